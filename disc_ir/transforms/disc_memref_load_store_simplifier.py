"""`disc-memref-load-store-simplifier`: forward stored scalars to loads.

BladeDISC's DiscMemRefLoadStoreSimplifierPass (pattern LoadScalarSimplifier).

    memref.store %v, %m[%c3] : memref<?xf32>
    ...
    %a = memref.load %m[%c3] : memref<?xf32>     // uses of %a -> %v

applies to a `memref.load` of a non-GPU memref with a single constant index
when, among the users of the memref that the load does not dominate,

* none is a view of it (`memref.cast`, `memref.reinterpret_cast`,
  `memref.subview`, ...) nor another op writing it (an lmhlo output, a
  `memref.copy` target...): those could change it indirectly;
* every store not dominating the load stores to a known, different constant
  index (a conditional store of the same element, or of an unknown one,
  blocks the rewrite);
* exactly one store dominating the load writes the same constant index
  (dominating stores to other or unknown indices are ignored).

The store itself is kept (`disc-remove-dead-buffer` or DCE may drop it).
Applied greedily until nothing changes.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, memref
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.analysis.buffer_alias import buffer_writes, is_view_like
from disc_ir.analysis.dominance import DominanceInfo
from disc_ir.analysis.placement import is_gpu_memref
from disc_ir.codegen.loop_utils import constant_index_value
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.walker import PatternRewriteWalker


def _scalar_index(indices: tuple[SSAValue, ...] | list[SSAValue]) -> int | None:
    if len(indices) != 1:
        return None
    return constant_index_value(indices[0])


def op_dominates(dom: DominanceInfo, a: Operation, b: Operation) -> bool:
    """MLIR's `DominanceInfo::dominates(a, b)`: `a` is `b`, encloses it, or
    comes before (the op containing) `b` in a block dominating it."""
    if a is b:
        return True
    block = a.parent_block()
    if block is None or block.parent is None:
        return False
    region = block.parent
    anc: Operation | None = b
    while anc is not None and anc.parent_region() is not region:
        anc = anc.parent_op()
    if anc is None:
        return False
    if anc is a:
        return True
    anc_block = anc.parent_block()
    if anc_block is block:
        node = a.next_op
        while node is not None:
            if node is anc:
                return True
            node = node.next_op
        return False
    assert anc_block is not None
    return dom.dominates(block, anc_block)


def _writes(op: Operation, value: SSAValue) -> bool:
    return any(op.operands[i] is value for i in buffer_writes(op))


class LoadScalarSimplifier(RewritePattern):
    """Replace a constant-index load by the value the one store before it wrote."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, memref.LoadOp):
            return
        load_index = _scalar_index(tuple(op.indices))
        if load_index is None:
            return
        buffer = op.memref
        if is_gpu_memref(buffer):
            return
        dom = DominanceInfo()
        found: memref.StoreOp | None = None
        for use in list(buffer.uses):
            user = use.operation
            if op_dominates(dom, op, user):
                continue
            if is_view_like(user) or (
                not isinstance(user, memref.StoreOp) and _writes(user, buffer)
            ):
                return
            if not isinstance(user, memref.StoreOp):
                continue
            if user.memref is not buffer:
                continue  # `buffer` is the stored value, not the target
            store_index = _scalar_index(tuple(user.indices))
            if not op_dominates(dom, user, op):
                if store_index is None or store_index == load_index:
                    return
                continue
            if store_index is None or store_index != load_index:
                continue
            if found is not None:
                return
            found = user
        if found is not None:
            rewriter.replace(op, [], [found.value])


@register_pass
@dataclass(frozen=True)
class DiscMemRefLoadStoreSimplifierPass(ModulePass):
    """Perform load/store simplifier on memref"""

    name = "disc-memref-load-store-simplifier"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(LoadScalarSimplifier()).rewrite_module(op)
