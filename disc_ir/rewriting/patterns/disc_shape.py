"""Canonicalization patterns of `disc_shape.linearize` / `disc_shape.delinearize`.

BladeDISC's `disc_shape_ops.cc`:

- `linearize(delinearize(%l, %d...), %d...)` -> `%l` when the indices are
  exactly the delinearize results and the shapes match (LinearizeOfDelinearizeOp);
- `delinearize(linearize(%i..., %d...), %d...)` -> `%i...` when the shapes
  match (DelinearizeOfLinearizeOp) -- so index math through reshapes
  (linearize in the output shape, delinearize in the operand shape) vanishes
  when the shapes are the same SSA values;
- dimensions of constant size 1 are dropped: from a linearize with their
  indices, from a delinearize whose corresponding results become `0`
  (RemoveSizeOneDimOfLinearizeOp / RemoveSizeOneDimOfDelinearizeOp);
- one-dimensional ones are the identity: `linearize(%i, %d)` -> `%i`,
  `delinearize(%l, %d)` -> `%l` (as `disc-shape-to-std` lowers them; not in
  BladeDISC, whose CSE of `memref.dim` makes DelinearizeOfLinearize catch
  most of these).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.dialects.disc_shape import DelinearizeOp, LinearizeOp
from disc_ir.ir.builders import index_constant
from disc_ir.rewriting.patterns import register_canonicalization
from disc_ir.rewriting.patterns.utils import const_int, defining


def _same(lhs: list[SSAValue], rhs: list[SSAValue]) -> bool:
    return len(lhs) == len(rhs) and all(a is b for a, b in zip(lhs, rhs, strict=True))


class LinearizeOfDelinearize(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, LinearizeOp) or not op.multiDimIndexes:
            return
        delin = defining(op.multiDimIndexes[0], "disc_shape.delinearize")
        if delin is None or not isinstance(delin, DelinearizeOp):
            return
        if not _same(list(op.multiDimIndexes), list(delin.results)):
            return
        if not _same(list(delin.shapeDimIndexes), list(op.shapeDimIndexes)):
            return
        rewriter.replace(op, [], [delin.linearIndex])


class DelinearizeOfLinearize(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, DelinearizeOp) or not op.shapeDimIndexes:
            return
        lin = defining(op.linearIndex, "disc_shape.linearize")
        if lin is None or not isinstance(lin, LinearizeOp):
            return
        if not _same(list(lin.shapeDimIndexes), list(op.shapeDimIndexes)):
            return
        rewriter.replace(op, [], list(lin.multiDimIndexes))


def _is_one(value: SSAValue) -> bool:
    return isinstance(value.type, IndexType) and const_int(value) == 1


class RemoveSizeOneDimOfLinearize(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, LinearizeOp):
            return
        indexes = op.multiDimIndexes
        if not indexes:
            return
        kept = [(i, d) for i, d in zip(indexes, op.shapeDimIndexes, strict=True) if not _is_one(d)]
        if len(kept) == len(indexes):
            return
        rewriter.replace(op, LinearizeOp([i for i, _ in kept], [d for _, d in kept]))


class RemoveSizeOneDimOfDelinearize(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, DelinearizeOp) or not op.shapeDimIndexes:
            return
        ones = [_is_one(d) for d in op.shapeDimIndexes]
        if not any(ones):
            return
        new = DelinearizeOp(
            op.linearIndex, [d for d, one in zip(op.shapeDimIndexes, ones, strict=True) if not one]
        )
        zero = index_constant(0)
        rewriter.insert([new, zero], InsertPoint.before(op))
        it = iter(new.results)
        values = [zero.result if one else next(it) for one in ones]
        rewriter.replace(op, [], values)


class OneDimLinearize(RewritePattern):
    """`linearize(%i, %d)` -> `%i`; `linearize()` (rank 0) -> `0`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, LinearizeOp) or len(op.multiDimIndexes) > 1:
            return
        if op.multiDimIndexes:
            rewriter.replace(op, [], [op.multiDimIndexes[0]])
        else:
            rewriter.replace(op, index_constant(0))


class OneDimDelinearize(RewritePattern):
    """`delinearize(%l, %d)` -> `%l` (the outermost index is not reduced modulo its size)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, DelinearizeOp) or len(op.shapeDimIndexes) != 1:
            return
        rewriter.replace(op, [], [op.linearIndex])


register_canonicalization("disc_shape.linearize")(
    lambda ctx: (LinearizeOfDelinearize(), RemoveSizeOneDimOfLinearize(), OneDimLinearize())
)
register_canonicalization("disc_shape.delinearize")(
    lambda ctx: (DelinearizeOfLinearize(), RemoveSizeOneDimOfDelinearize(), OneDimDelinearize())
)
