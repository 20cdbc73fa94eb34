"""`disc-lower-static-control-flow`: static mhlo control flow as straight-line code.

`mhlo.while` loops whose trip count is a compile-time constant are unrolled,
side-effect-free `mhlo.if` / `mhlo.case` whose results have one shape in every
branch (static, or proven equal by the shape analysis) become selects,
innermost first (`disc_ir.frontends.control_flow`); the pipeline has no
lowering for the control flow ops themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.frontends.control_flow import lower_static_control_flow
from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class DiscLowerStaticControlFlowPass(ModulePass):
    """Unroll constant-trip-count mhlo.while loops, turn pure mhlo.if / mhlo.case into selects."""

    name = "disc-lower-static-control-flow"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        lower_static_control_flow(op)
