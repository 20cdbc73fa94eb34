"""`disc_ir.rewriting.greedy.greedy_applier` is xDSL's greedy applier with a
cheaper dead-op check: the same ops are erased, the patterns run as before."""

from __future__ import annotations

from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)

from disc_ir.api import make_context, parse_module, print_module
from disc_ir.rewriting.greedy import greedy_applier

SOURCE = """
func.func @f(%m: memref<?xf32>, %i: index, %x: f32) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dead = arith.addi %c0, %c1 : index
  %dim = memref.dim %m, %c0 : memref<?xf32>
  %unused_alloc = memref.alloc(%dim) : memref<?xf32>
  %used_alloc = memref.alloc(%dim) : memref<?xf32>
  memref.store %x, %used_alloc[%c0] : memref<?xf32>
  %load = memref.load %m[%c0] : memref<?xf32>
  %r = arith.muli %i, %c1 : index
  return %r : index
}
"""


class MulByOne(RewritePattern):
    """`arith.muli %x, 1` -> `%x` (a pattern besides the dead-op check)."""

    def match_and_rewrite(self, op, rewriter: PatternRewriter, /) -> None:
        if op.name != "arith.muli":
            return
        rhs = op.operands[1].owner
        if getattr(rhs, "name", "") == "arith.constant" and rhs.value.value.data == 1:
            rewriter.replace(op, [], [op.operands[0]])


def _run(applier: RewritePattern) -> str:
    module = parse_module(make_context(), SOURCE, "<test>")
    PatternRewriteWalker(applier, apply_recursively=True).rewrite_module(module)
    return print_module(module)


def test_same_result_as_xdsls_applier() -> None:
    ours = _run(greedy_applier([MulByOne()]))
    theirs = _run(GreedyRewritePatternApplier([MulByOne()]))
    assert ours == theirs
    # dead pure ops and a load whose value is unused go; the store stays, and
    # so does the unused alloc (xDSL's rule: an allocation effect without a
    # value is not removable, unlike MLIR's); the pattern applied
    assert "arith.addi" not in ours and "memref.load" not in ours
    assert ours.count("memref.alloc") == 2 and "memref.store" in ours
    assert "arith.muli" not in ours
