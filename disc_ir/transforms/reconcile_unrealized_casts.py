"""`reconcile-unrealized-casts`: fold away `builtin.unrealized_conversion_cast` chains.

MLIR's pass of that name (xDSL's implementation): a cast whose result is
unused is erased, a chain of casts that ends at its starting type is
replaced by the value it started from. Casts still needed stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.transforms.reconcile_unrealized_casts import reconcile_unrealized_casts

from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class ReconcileUnrealizedCastsPass(ModulePass):
    """simplify and eliminate unrealized conversion casts."""

    name = "reconcile-unrealized-casts"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        reconcile_unrealized_casts(op, warn_on_failure=False)
