"""`disc-remove-shape-constraint`: drop shape constraints, assuming they hold.

As BladeDISC's RemoveShapeConstraintsPass (with MLIR's remove-shape-constraints
patterns), per function: `shape.cstr_broadcastable`, `shape.cstr_eq` and
`mhlo.cstr_reshapable` become `shape.const_witness true`; a
`shape.assuming_all` of true witnesses becomes one; a `shape.assuming` on a true
witness is inlined (its results replaced by the yielded values); witnesses left
unused are erased. `shape.cstr_require` (a runtime check with a message) is
kept, as MLIR does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i1
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.dialects.upstream.shape import ConstWitnessOp, WitnessType
from disc_ir.ir.attrs import inherent_attr
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.greedy import greedy_applier
from disc_ir.rewriting.walker import PatternRewriteWalker

_CONSTRAINTS = frozenset(["shape.cstr_broadcastable", "shape.cstr_eq", "mhlo.cstr_reshapable"])


def _true_witness() -> Operation:
    return ConstWitnessOp.create(
        attributes={"passing": IntegerAttr(1, i1)}, result_types=[WitnessType()]
    )


def _is_true_witness(op: object) -> bool:
    if not isinstance(op, Operation) or op.name != "shape.const_witness":
        return False
    passing = inherent_attr(op, "passing")
    return isinstance(passing, IntegerAttr) and passing.value.data != 0


class RemoveConstraint(RewritePattern):
    """A constraint op: replaced by a true witness."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name in _CONSTRAINTS:
            rewriter.replace(op, _true_witness())


class FoldAssumingAll(RewritePattern):
    """`shape.assuming_all` of true witnesses only (or of none): a true witness."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name == "shape.assuming_all" and all(_is_true_witness(v.owner) for v in op.operands):
            rewriter.replace(op, _true_witness())


class InlineAssumingOnTrue(RewritePattern):
    """`shape.assuming` on a true witness: its body, inlined in place."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != "shape.assuming" or not _is_true_witness(op.operands[0].owner):
            return
        block = op.regions[0].blocks.first
        if block is None:
            return
        terminator = block.last_op
        assert terminator is not None
        yielded = list(terminator.operands)
        rewriter.erase(terminator)
        rewriter.inline_block(block, InsertPoint.before(op))
        rewriter.replace(op, [], yielded)


@register_pass
@dataclass(frozen=True)
class DiscRemoveShapeConstraintsPass(ModulePass):
    """Pass to remove all shape constraint ops"""

    name = "disc-remove-shape-constraint"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(
            greedy_applier([RemoveConstraint(), FoldAssumingAll(), InlineAssumingOnTrue()]),
            apply_recursively=True,
        ).rewrite_module(op)
