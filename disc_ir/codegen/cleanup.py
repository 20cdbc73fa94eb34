"""Folding after a codegen rewrite, as BladeDISC's `applyPatternsAndFoldGreedily` does.

`fold_greedily(ctx, op)` runs the canonicalizer's greedy driver over `op`'s
regions with no patterns: ops are folded (`arith.addi %x, %c0` -> `%x`...),
constants uniqued and hoisted to the entry block of the enclosing
isolated-from-above region, and dead ops removed -- what the greedy driver
does around the patterns BladeDISC's codegen passes apply.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.ir import Operation


def fold_greedily(ctx: Context | None, op: Operation) -> None:
    from disc_ir.rewriting.canonicalization import apply_canonicalization
    from disc_ir.rewriting.greedy import GreedyConfig

    apply_canonicalization(ctx, op, GreedyConfig(), patterns=lambda _op: ())


__all__ = ["fold_greedily"]
