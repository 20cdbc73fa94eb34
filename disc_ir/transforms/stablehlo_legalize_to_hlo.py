"""`stablehlo-legalize-to-hlo`: legalize StableHLO to MHLO (mlir-hlo's
StablehloLegalizeToHloPass); the conversion lives in
`disc_ir.conversion.stablehlo_to_mhlo`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from disc_ir.conversion.stablehlo_to_mhlo import legalize_module
from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class StablehloLegalizeToHloPass(ModulePass):
    """Legalize StableHLO to MHLO (every stablehlo op to its mhlo twin)."""

    name = "stablehlo-legalize-to-hlo"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        legalize_module(op)
