"""`disc-memref-canonicalize`: fold `memref.reinterpret_cast` of a fresh allocation.

`%1 = memref.reinterpret_cast %0 to offset: [0], sizes: [%a, %b], strides:
[..]` where `%0 = memref.alloc(..)` has the same type as the result: the
allocation is given the sizes `%a, %b` instead (for dynamic shapes) and takes
the cast's place; the cast's `kDiscSymbolicDimAttr` moves to the allocation.
A cast of anything else, or changing the type (rank, layout...), stays. The
allocation must come after the new sizes are defined; otherwise it is left as
it is. Ops left dead by the rewrite (the old size computations) are removed,
as MLIR's greedy driver does.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects import memref as xmemref
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from disc_ir.analysis.block_order import OpOrder
from disc_ir.ir import builders
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.dead_ops import region_dce

SYMBOLIC_DIM_ATTR = "kDiscSymbolicDimAttr"


def _dominates(value: SSAValue, op: Operation, order: OpOrder) -> bool:
    """Whether `value` is available at `op` (defined in an enclosing block
    before it, or an argument of an enclosing block)."""
    if isinstance(value, OpResult):
        def_op = value.op
        ancestor: Operation | None = op
        while ancestor is not None:
            if ancestor.parent_block() is def_op.parent_block():
                return def_op is not ancestor and order.is_before(def_op, ancestor)
            ancestor = ancestor.parent_op()
        return False
    block = value.owner  # a block argument
    current = op.parent_block()
    while current is not None:
        if current is block:
            return True
        parent = current.parent_op()
        current = parent.parent_block() if parent is not None else None
    return False


def fold_reinterpret_cast_of_alloc(
    op: xmemref.ReinterpretCastOp, order: OpOrder, rewriter: PatternRewriter
) -> bool:
    """Replace `op`, a cast of a same-typed allocation whose new sizes are
    defined before the allocation, by a new allocation with those sizes (at
    the old one's place); False, changing nothing, for any other cast."""
    source = op.source
    if not isinstance(source, OpResult) or not isinstance(source.op, xmemref.AllocOp):
        return False
    alloc = source.op
    if alloc.memref.type != op.result.type:
        return False
    sizes = list(op.sizes)
    if len(sizes) != len(alloc.dynamic_sizes):
        return False
    if not all(_dominates(s, alloc, order) for s in sizes):
        return False
    new_alloc = builders.alloc(alloc.memref.type, sizes, list(alloc.symbol_operands))
    new_alloc.properties |= dict(alloc.properties)
    new_alloc.attributes |= dict(alloc.attributes)
    if SYMBOLIC_DIM_ATTR in op.attributes:
        new_alloc.attributes[SYMBOLIC_DIM_ATTR] = op.attributes[SYMBOLIC_DIM_ATTR]
    rewriter.insert(new_alloc, InsertPoint.before(alloc))
    rewriter.replace_all_uses_with(alloc.memref, new_alloc.memref)
    rewriter.replace(op, [], [new_alloc.memref])
    rewriter.erase(alloc)
    return True


@register_pass
@dataclass(frozen=True)
class DiscMemrefCanonicalizerPass(ModulePass):
    """Do some memref-related cleanup."""

    name = "disc-memref-canonicalize"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        # One forward walk folds every cast the greedy rewrite would: a cast's
        # source is defined before it, so a cast of a cast folds after the inner
        # one, and a fold enables no other (it keeps the allocation's place).
        order = OpOrder()
        casts = [o for o in preorder_ops(op) if isinstance(o, xmemref.ReinterpretCastOp)]
        for cast in casts:
            fold_reinterpret_cast_of_alloc(cast, order, PatternRewriter(cast))
        region_dce(op.body)  # xDSL's region_dce, computed in one sweep
