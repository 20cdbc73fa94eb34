"""`cse`: MLIR's common sub-expression elimination (the driver lives in
`disc_ir.rewriting.cse`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.cse import cse


@register_pass
@dataclass(frozen=True)
class CSEPass(ModulePass):
    """Eliminate common sub-expressions."""

    name = "cse"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        cse(op)
