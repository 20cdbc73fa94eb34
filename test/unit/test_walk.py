"""`preorder_ops` lists what xDSL's walk yields (forward and reversed), and the rewrite walker fills its
worklist in xDSL's order, at every stage of the pipeline."""

from __future__ import annotations

from pathlib import Path

import pytest
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.pattern_rewriter import PatternRewriteWalker as XdslPatternRewriteWalker

from disc_ir.api import lower_to_llvm_ir
from disc_ir.ir.walk import preorder_ops
from disc_ir.rewriting.walker import PatternRewriteWalker

MODELS = Path(__file__).resolve().parents[1] / "models"


def _same(a: list[Operation], b: list[Operation]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


class _Nothing(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        pass


def _worklist(walker: XdslPatternRewriteWalker, root: Operation) -> list[Operation]:
    walker._populate_worklist(root.regions[0])  # pyright: ignore[reportPrivateUsage]
    items = list(walker._worklist._stack)  # pyright: ignore[reportPrivateUsage]
    walker._worklist = type(walker._worklist)()  # pyright: ignore[reportPrivateUsage]
    return items


@pytest.mark.parametrize("model", ["layernorm_gelu_dyn", "bert_layer_dyn"])
def test_preorder_ops_is_the_walk_at_every_stage(model: str) -> None:
    checked = {"stages": 0, "nested": 0}

    def after(_pass: object, module: Operation, _seconds: float) -> None:
        for reverse in (False, True):
            assert _same(preorder_ops(module, reverse=reverse), list(module.walk(reverse=reverse)))
        for op in module.walk():
            for region in op.regions:
                for reverse in (False, True):
                    walked = list(region.walk(reverse=reverse))
                    assert _same(preorder_ops(region, reverse=reverse), walked)
                for block in region.blocks:
                    for reverse in (False, True):
                        walked = list(block.walk(reverse=reverse))
                        assert _same(preorder_ops(block, reverse=reverse), walked)
                    checked["nested"] += 1
        ours = _worklist(PatternRewriteWalker(_Nothing()), module)
        theirs = _worklist(XdslPatternRewriteWalker(_Nothing()), module)
        assert _same(ours, theirs)
        checked["stages"] += 1

    text = (MODELS / f"{model}.mlir").read_text()
    lower_to_llvm_ir(text, "cpu", keep_ir=False, after_pass=after)
    assert checked["stages"] > 50 and checked["nested"] > 500


def test_reverse_walkers_fill_as_xdsl_does() -> None:
    text = (MODELS / "softmax_dyn.mlir").read_text()
    seen: list[Operation] = []

    def after(_pass: object, module: Operation, _seconds: float) -> None:
        if not seen:
            seen.append(module)

    lower_to_llvm_ir(text, "cpu", keep_ir=False, after_pass=after)
    module = seen[0]
    for options in ({"walk_reverse": True}, {"walk_regions_first": True}):
        ours = _worklist(PatternRewriteWalker(_Nothing(), **options), module)
        theirs = _worklist(XdslPatternRewriteWalker(_Nothing(), **options), module)
        assert _same(ours, theirs) and len(ours) > 10
