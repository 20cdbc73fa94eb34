"""xDSL's `PatternRewriteWalker`, its worklist filled from one op list.

Each sweep of the walker pushes every op of the region on its worklist, in
the reverse of the order it will pop them; xDSL lists them with a walk whose
generators nest as deep as the IR (most of a sweep over a module that the
patterns mostly leave alone). This walker pushes the same ops in the same
order from `preorder_ops`, reversed; a walker configured to walk in reverse
or regions first fills it as xDSL does.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, Region
from xdsl.pattern_rewriter import PatternRewriteWalker as XdslPatternRewriteWalker

from disc_ir.ir.walk import preorder_ops


class PatternRewriteWalker(XdslPatternRewriteWalker):
    """`xdsl.pattern_rewriter.PatternRewriteWalker` with a cheaper worklist fill."""

    def _populate_worklist(self, op: Operation | Region | Block) -> None:
        if self.walk_reverse or self.walk_regions_first:
            super()._populate_worklist(op)
            return
        # xDSL walks `reverse=True, region_first=True`: the pre-order reversed
        push = self._worklist.push  # pyright: ignore[reportPrivateUsage]
        for sub_op in reversed(preorder_ops(op)):
            push(sub_op)


__all__ = ["PatternRewriteWalker"]
