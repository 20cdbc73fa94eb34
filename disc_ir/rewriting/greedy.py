"""xDSL's greedy pattern applier with a cheaper dead-op check.

`GreedyRewritePatternApplier` erases every trivially dead op it visits
before trying its patterns, asking xDSL's `is_trivially_dead`, which
gathers the memory effects of everything nested in the op each time (most
of a walk over a module of fusions and loops). `greedy_applier` gives the
same applier with that check done by `is_trivially_dead_as_xdsl` (the same
answer, cached per op class where the class decides it), first, as xDSL does.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriter, RewritePattern

from disc_ir.transforms.canonicalize import is_trivially_dead_as_xdsl


class EraseTriviallyDead(RewritePattern):
    """Erase an op xDSL would call trivially dead (no used result, no effect
    beyond reading or allocating what it defines)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if is_trivially_dead_as_xdsl(op):
            rewriter.erase(op)


def greedy_applier(patterns: Sequence[RewritePattern]) -> GreedyRewritePatternApplier:
    """`GreedyRewritePatternApplier(patterns)` (dead ops erased first, then the
    first pattern that applies), with the faster dead-op check."""
    return GreedyRewritePatternApplier([EraseTriviallyDead(), *patterns], dce_enabled=False)


__all__ = ["EraseTriviallyDead", "greedy_applier"]
