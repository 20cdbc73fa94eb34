"""`disc-math-approximation`: polynomial approximations of math ops (MLIR's
`populateMathPolynomialApproximationPatterns`, as BladeDISC's DiscMathApproximationPass
applies them); the patterns live in `disc_ir.rewriting.math_approximation`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.math_approximation import approximate_math


@register_pass
@dataclass(frozen=True)
class DiscMathApproximationPass(ModulePass):
    """using approximation for some special math ops."""

    name = "disc-math-approximation"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        approximate_math(op)
