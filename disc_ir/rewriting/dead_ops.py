"""Dead ops and region dead-code elimination (MLIR's `wouldOpBeTriviallyDead`,
`isOpTriviallyDead` and `RegionUtils`' `runRegionDCE`).

`would_be_trivially_dead(op)`: erasing `op` is unobservable once its results
are unused; `is_trivially_dead(op)`: that and no result is used;
`is_trivially_dead_as_xdsl(op)`: xDSL's `is_trivially_dead` answer, cached per
op class where the class decides it; `region_dce(region)`: erase the ops of a
region no live op depends on (cyclic dead values included).
"""

from __future__ import annotations

from collections.abc import Collection

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Operation, OpResult, Region
from xdsl.ir.post_order import PostOrderIterator
from xdsl.pattern_rewriter import PatternRewriterListener
from xdsl.traits import (
    IsTerminator,
    SymbolOpInterface,
)

from disc_ir.ir.memo import ClassMemo
from disc_ir.ir.trait_cache import (
    is_pure_class,
    only_reads_or_allocates,
    removal_is_class_constant,
)

# --------------------------------------------------------------------------
# dead ops


def _class_kept(cls: type[Operation]) -> bool:
    return not issubclass(cls, UnregisteredOp) and (
        cls.get_trait(IsTerminator) is not None or cls.get_trait(SymbolOpInterface) is not None
    )


#: per op class: a terminator or a symbol (never trivially dead)
_KEPT_CLASS: ClassMemo[bool] = ClassMemo(_class_kept)


def would_be_trivially_dead(op: Operation) -> bool:
    """MLIR's wouldOpBeTriviallyDead: removing `op` is unobservable once its results are unused.

    Terminators and symbols are kept; otherwise `op` (with everything nested in
    it) may only read memory or allocate values it defines itself. An
    allocation effect without a value (xDSL's `MemoryAllocEffect` trait) is on
    the op's own results, as in MLIR.
    """
    if _KEPT_CLASS[type(op)]:
        return False
    if not op.regions and is_pure_class(op):
        return True  # no effects at all (what get_effects would find)
    return only_reads_or_allocates(op, alloc_without_value=True)


def is_trivially_dead(op: Operation) -> bool:
    """MLIR's isOpTriviallyDead: no result is used and the op would be trivially dead."""
    for result in op.results:
        if result.first_use is not None:
            return False
    return would_be_trivially_dead(op)


# --------------------------------------------------------------------------
# region dead code elimination


#: per op class whose answer is the class's: `_dead_if_unused`
_DEAD_IF_UNUSED_CLASS: dict[type[Operation], bool] = {}


def _dead_if_unused(op: Operation) -> bool:
    """xDSL's would_be_trivially_dead (its allocation rule, not MLIR's)."""
    cls = type(op)
    dead = _DEAD_IF_UNUSED_CLASS.get(cls)
    if dead is not None:
        return dead
    if _KEPT_CLASS[type(op)]:
        _DEAD_IF_UNUSED_CLASS[cls] = False
        return False
    dead = only_reads_or_allocates(op, alloc_without_value=False)
    if removal_is_class_constant(op, alloc_without_value=False):
        _DEAD_IF_UNUSED_CLASS[cls] = dead
    return dead


def is_trivially_dead_as_xdsl(op: Operation) -> bool:
    """xDSL's `is_trivially_dead` (its allocation rule), as its greedy
    pattern applier erases ops: no result is used and the op has no effect
    beyond reading or allocating what it defines."""
    for result in op.results:
        if result.first_use is not None:
            return False
    return _dead_if_unused(op)


def _collect_liveness_roots(
    region: Region, visited: set[int], roots: list[Operation], skip: Collection[int]
) -> None:
    """The ids of the ops xDSL's `LiveSet` visits in `region` (blocks reachable
    from the entry, nested regions likewise, but those of the ops whose ids
    `skip` holds) into `visited`; those live whatever their uses (not dead if
    unused) into `roots`."""
    first = region._first_block  # pyright: ignore[reportPrivateUsage]
    if first is None:
        return
    blocks = (first,) if first._next_block is None else PostOrderIterator(first)  # pyright: ignore[reportPrivateUsage]
    for block in blocks:
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            visited.add(id(op))
            if op.regions and id(op) not in skip:
                for nested in op.regions:
                    _collect_liveness_roots(nested, visited, roots, skip)
            if not _dead_if_unused(op):
                roots.append(op)
            op = op._next_op  # pyright: ignore[reportPrivateUsage]


def _delete_dead(
    region: Region,
    live: set[int],
    listener: PatternRewriterListener | None,
    skip: Collection[int],
) -> bool:
    """xDSL's `LiveSet.delete_dead` for the live set `live` (op ids): erase the
    non-entry blocks without live ops and the ops not live, innermost regions of
    live ops likewise (but those of the ops whose ids `skip` holds), last block
    and last op first; returns whether it erased any."""
    first = region._first_block  # pyright: ignore[reportPrivateUsage]
    if first is None:
        return False
    changed = False
    block = region._last_block  # pyright: ignore[reportPrivateUsage]
    while block is not None:
        prev_block = block._prev_block  # pyright: ignore[reportPrivateUsage]
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None and id(op) not in live:
            op = op._next_op  # pyright: ignore[reportPrivateUsage]
        if op is None and block is not first:
            changed = True
            region.erase_block(block, safe_erase=False)
        else:
            op = block._last_op  # pyright: ignore[reportPrivateUsage]
            while op is not None:
                prev_op = op._prev_op  # pyright: ignore[reportPrivateUsage]
                if id(op) not in live:
                    changed = True
                    if listener is not None:
                        listener.handle_operation_removal(op)
                    block.erase_op(op, safe_erase=False)
                elif op.regions and id(op) not in skip:
                    for nested in op.regions:
                        changed |= _delete_dead(nested, live, listener, skip)
                op = prev_op
        block = prev_block
    return changed


def region_dce(
    region: Region,
    listener: PatternRewriterListener | None = None,
    skip: Collection[int] = (),
) -> bool:
    """xDSL's `region_dce`: erase the ops (and non-entry blocks) of `region` that
    nothing live uses, cyclic dead values included; returns whether it erased any.

    `skip`: ids of isolated-from-above ops whose regions are left as they are
    (known to hold nothing dead: what is live in them depends on them alone).

    The live set is the least fixed point xDSL's `LiveSet` iterates to (an op
    it visits is live when it is not dead if unused, or a live op uses one of
    its results), computed in one sweep: the roots, then the producers of the
    live ops' operands, transitively. Ops are keyed by id: every op is held by
    the IR while the set is in use.
    """
    visited: set[int] = set()
    stack: list[Operation] = []
    _collect_liveness_roots(region, visited, stack, skip)
    live = {id(op) for op in stack}
    while stack:
        op = stack.pop()
        for value in op._operands:  # pyright: ignore[reportPrivateUsage]
            if value.__class__ is OpResult:  # (no subclasses; cheaper than the ABC check)
                producer = value.op  # pyright: ignore[reportAttributeAccessIssue]
                key = id(producer)
                if key not in live and key in visited:
                    live.add(key)
                    stack.append(producer)
    return _delete_dead(region, live, listener, skip)
