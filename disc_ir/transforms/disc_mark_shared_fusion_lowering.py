"""`disc-mark-shared-fusion-lowering`: mark the CPU fusions that will take another's lowering.

Runs before `disc-lhlo-legalize-roots-to-parallel-loops` (CPU pipeline, when
`DISC_SHARE_FUSION_LOWERING` is on): fusions with the same lowering key are
grouped, the first of each group lowers, the others get
`disc.fusion.lowered_as` and are skipped by the code generation passes
(`disc_ir.codegen.shared_lowering`). What the instantiation needs besides
the marks (each duplicate's representative and the values it used) is held
for this module until `disc-instantiate-shared-fusion-lowering` (after
`disc-merge-identical-kernels`) takes it, so both passes run in one
pipeline run (disc-opt's or `disc_ir.compile`'s).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.codegen import shared_lowering
from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class DiscMarkSharedFusionLoweringPass(ModulePass):
    """Mark duplicate CPU fusions (disc.fusion.lowered_as): each set lowers one of them."""

    name = "disc-mark-shared-fusion-lowering"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        shared_lowering.hold(op, shared_lowering.share_fusion_lowering(op))
