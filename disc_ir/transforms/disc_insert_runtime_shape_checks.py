"""`disc-insert-runtime-shape-checks`: run-time checks of the shapes the compiler assumes.

Dynamic and chlo broadcasts whose dims the shape analysis cannot prove
compatible, and fixed windows (`mhlo.slice`, `mhlo.dynamic_slice`,
`mhlo.gather`, `mhlo.dynamic_update_slice`) that may not fit a dynamically
shaped operand, get a check that fails the call with a message at run time
(`disc_ir.frontends.runtime_checks.insert_shape_checks`). The pipeline runs
it after a CSE: the shape analysis then proves more broadcasts valid.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.frontends.runtime_checks import insert_shape_checks
from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class DiscInsertRuntimeShapeChecksPass(ModulePass):
    """Add run-time checks of unproven broadcast dims and of windows on dynamic operands."""

    name = "disc-insert-runtime-shape-checks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        insert_shape_checks(op)
