"""`disc-instantiate-shared-fusion-lowering`: give each marked duplicate fusion its copy.

Runs after `disc-merge-identical-kernels` (CPU pipeline, when
`DISC_SHARE_FUSION_LOWERING` is on): every fusion
`disc-mark-shared-fusion-lowering` marked in this pipeline run gets a copy of
its representative's lowered body, its own buffers mapped in
(`disc_ir.codegen.shared_lowering.SharedLowering.instantiate`). When a copy
cannot be made the pass raises `shared_lowering.SharingFailed`; the drivers
(disc-opt and `disc_ir.compile`) then run the pipeline again without the two
sharing passes (`disc_ir.pipeline.with_sharing_fallback`).
A module holding marks from another run is a diagnostic.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.codegen import shared_lowering
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class DiscInstantiateSharedFusionLoweringPass(ModulePass):
    """Copy each representative's lowered body into the duplicate fusions marked for it."""

    name = "disc-instantiate-shared-fusion-lowering"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        shared = shared_lowering.take(op)
        if shared is not None:
            shared.instantiate()
        elif any(shared_lowering.is_shared_duplicate(o) for o in preorder_ops(op)):
            raise DiagnosticException(
                "fusions are marked 'disc.fusion.lowered_as' by another run: run "
                "disc-mark-shared-fusion-lowering in the same pipeline"
            )
