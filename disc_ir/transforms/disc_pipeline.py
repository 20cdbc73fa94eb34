"""`disc-pipeline`: the whole documented pipeline as one named pass."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class DiscPipelinePass(ModulePass):
    """Run BladeDISC's documented pass pipeline (see disc_ir/pipeline.py).

    disc-opt expands it into its passes, so `--mlir-print-ir-after-all` and
    `--mlir-timing` show every step; run directly, it applies them in order.
    """

    name = "disc-pipeline"
    OPTION_HELP: ClassVar[dict[str, str]] = {
        "target": "code generation target: cpu or cuda",
        "until": "stop after this phase (tensor, placement, bufferize, lhlo, ral, codegen, [device,] llvm); empty: all",
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
        for p in self.expand():
            p.apply(ctx, op)
