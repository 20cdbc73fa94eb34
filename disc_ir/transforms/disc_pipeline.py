"""`disc-pipeline`: the whole documented pipeline as one named pass.

`disc_ir.compile` and `disc-opt --disc-pipeline` run the same passes
(`expand()`, i.e. `disc_ir.pipeline.pipeline_passes`), so
`disc-opt '--disc-pipeline=target=T until=P' in.mlir` prints the module
`disc_ir.compile(in.mlir, T).mlir_after(P)` shows. Both recover from a
failed shared fusion lowering the same way, `with_sharing_fallback`: when
`disc-instantiate-shared-fusion-lowering` raises `SharingFailed`, the run
starts again from the input without the two sharing passes
(`without_shared_lowering`), each fusion lowered by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.passes.registry import register_pass
from disc_ir.pipeline import with_sharing_fallback, without_shared_lowering


@register_pass
@dataclass(frozen=True)
class DiscPipelinePass(ModulePass):
    """Run BladeDISC's documented pass pipeline (see disc_ir/pipeline.py).

    disc-opt expands it into its passes, so `--mlir-print-ir-after-all` and
    `--mlir-timing` show every step; run directly, it applies them in order
    (and again on the input without sharing when a shared fusion lowering
    fails, as the drivers do).
    """

    name = "disc-pipeline"
    OPTION_HELP: ClassVar[dict[str, str]] = {
        "target": "code generation target: cpu or cuda",
        "until": "stop after this phase (input, tensor, placement, bufferize, lhlo, ral, codegen, [device,] llvm); empty: all",
        "metadata-file-name": "where disc-const-to-ral writes constants; empty: no file",
    }

    target: str = "cpu"
    until: str = ""
    metadata_file_name: str = ""

    def expand(self) -> list[ModulePass]:
        """The configured passes this pipeline runs, in order."""
        from disc_ir.pipeline import pipeline_passes

        return pipeline_passes(self.target, self.until or None, self.metadata_file_name)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        passes = self.expand()
        original = op.clone() if len(without_shared_lowering(passes)) < len(passes) else None

        def attempt(share: bool) -> None:
            if not share:
                assert original is not None
                op.attributes = dict(original.attributes)
                for inner in list(op.ops):
                    inner.detach()
                    inner.erase(safe_erase=False)
                for inner in list(original.ops):
                    inner.detach()
                    op.body.block.add_op(inner)
            for p in passes if share else without_shared_lowering(passes):
                p.apply(ctx, op)

        with_sharing_fallback(attempt)
