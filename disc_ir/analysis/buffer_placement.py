"""Where buffers are allocated and where they may be freed (MLIR's BufferUtils).

- `heap_allocs(root)`: the heap allocations under `root` (MLIR's
  BufferPlacementAllocs): results of `memref.alloc`, `memref.realloc` and
  `bufferization.clone` (`memref.alloca` is freed with its scope), each with
  its `memref.dealloc` when it has exactly one; allocations freed more than
  once are left out.
- `common_post_dominator(value, aliases, postdom)`: the block in which a
  buffer and all its aliases' uses end (MLIR's findCommonDominator).
- `dealloc_end_operation(...)`: the last op of that block at which one of
  the aliases is still live; a dealloc goes right after it, or nowhere when
  it is the block's terminator (the buffer escapes: returned or yielded).
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue

from disc_ir.analysis.buffer_alias import BufferViewFlowAnalysis
from disc_ir.analysis.dominance import DominanceInfo
from disc_ir.analysis.liveness import Liveness
from disc_ir.ir import builders
from disc_ir.ir.walk import preorder_ops

HEAP_ALLOC_OPS: frozenset[str] = frozenset(
    {"memref.alloc", "memref.realloc", "bufferization.clone"}
)
"""Ops whose result is a heap buffer that must be freed with `memref.dealloc`."""


def find_deallocs(value: SSAValue) -> list[Operation]:
    """The `memref.dealloc` ops freeing `value` itself."""
    return [u.operation for u in value.uses if u.operation.name == "memref.dealloc"]


def heap_allocs(root: Operation) -> list[tuple[SSAValue, Operation | None]]:
    """(buffer, its single dealloc or None) for every heap allocation under `root`."""
    out: list[tuple[SSAValue, Operation | None]] = []
    for op in preorder_ops(root):
        if op.name not in HEAP_ALLOC_OPS or len(op.results) != 1:
            continue
        value = op.results[0]
        deallocs = find_deallocs(value)
        if len(deallocs) > 1:
            continue
        out.append((value, deallocs[0] if deallocs else None))
    return out


def common_post_dominator(
    value: SSAValue, aliases: set[SSAValue], postdom: DominanceInfo
) -> Block | None:
    """The nearest block post-dominating `value`'s block and every use of its aliases."""
    block = value.owner if isinstance(value.owner, Block) else value.owner.parent_block()
    dom: Block | None = block
    for alias in aliases:
        for use in alias.uses:
            dom = postdom.nearest_common_dominator(dom, use.operation.parent_block())
        owner = alias.owner
        alias_block = owner if isinstance(owner, Block) else owner.parent_block()
        dom = postdom.nearest_common_dominator(dom, alias_block)
    return dom


def dealloc_end_operation(
    value: SSAValue,
    aliases: set[SSAValue],
    block: Block,
    liveness: Liveness,
) -> Operation | None:
    """The last op of `block` after which every alias of `value` is dead."""
    info = liveness.block_info(block)
    end = block.first_op
    if end is None:
        return None
    for alias in aliases:
        before = end
        owner = alias.owner
        if isinstance(owner, Operation):
            anc = block.find_ancestor_op_in_block(owner)
            if anc is None:
                continue
            before = anc
        alias_end = info.end_operation(alias, before)
        if alias_end.parent_block() is block and info.order.is_before(end, alias_end):
            end = alias_end
    return end


def insert_dealloc_after_last_use(
    value: SSAValue,
    aliases: BufferViewFlowAnalysis,
    liveness: Liveness,
    postdom: DominanceInfo,
    existing: Operation | None = None,
) -> Operation | None:
    """Free `value` after the last use of its aliases; return the dealloc (None: escapes).

    An `existing` dealloc is moved there instead of creating a new one.
    """
    from xdsl.rewriter import InsertPoint, Rewriter

    alias_set = aliases.resolve(value)
    block = common_post_dominator(value, alias_set, postdom)
    if block is None:
        raise ValueError("no block post-dominates the buffer and its uses")
    end = dealloc_end_operation(value, alias_set, block, liveness)
    if end is None:
        return None
    if existing is not None:
        if existing is not end:
            existing.detach()
            Rewriter.insert_op(existing, InsertPoint.after(end))
            liveness.block_info(block).order.moved(existing)
        return existing
    nxt = end.next_op
    if nxt is None:
        return None
    dealloc = builders.dealloc(value)
    Rewriter.insert_op(dealloc, InsertPoint.before(nxt))
    return dealloc
