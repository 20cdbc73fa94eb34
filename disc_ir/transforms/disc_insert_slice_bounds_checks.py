"""`disc-insert-slice-bounds-checks`: run-time bounds checks of `mhlo.real_dynamic_slice`.

Each `mhlo.real_dynamic_slice` gets a check of its start / limit / stride
operands against its operand's shape before it
(`disc_ir.frontends.runtime_checks.insert_slice_bounds_checks`); constant
bounds out of range for a static operand raise `RejectedInput` at compile
time instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.frontends.runtime_checks import RuntimeCheckError, insert_slice_bounds_checks
from disc_ir.ir.diagnostics import RejectedInput
from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class DiscInsertSliceBoundsChecksPass(ModulePass):
    """Check the bounds of every mhlo.real_dynamic_slice at run time (constant ones now)."""

    name = "disc-insert-slice-bounds-checks"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            insert_slice_bounds_checks(op)
        except RuntimeCheckError as err:
            raise RejectedInput(str(err)) from None
