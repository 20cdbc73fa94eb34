"""`disc-memref-cse`: CSE of `memref.load` (BladeDISC's DiscMemRefCSEPass).

Runs after `disc-lhlo-legalize-roots-to-parallel-loops` and
`disc-input-inline-fusion`, where one buffer element is often loaded several
times in a loop body. A load B is replaced by an earlier load A when

1. both read the same memref value at the same index values, and
2. B lies (at any depth) in A's block, in or after an op that follows A.

As in BladeDISC this does not look for writes between A and B: in DISC's
fused loop bodies a buffer is either read or written, never both, so the
values agree. The rewrite alternates with a `cse` pass (so that equal index
computations become the same values) until nothing changes (at most 4096
rounds), then runs `cse` once more.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, memref
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import get_pass, register_pass

MAX_ITERATIONS = 4096


def _ancestor_in_block(block: Block, op: Operation) -> Operation | None:
    """The op of `block` that is or contains `op` (None if `op` is not under it)."""
    current: Operation | None = op
    while current is not None and current.parent_block() is not block:
        current = current.parent_op()
    return current


def _is_before(a: Operation, b: Operation) -> bool:
    node = a._next_op  # pyright: ignore[reportPrivateUsage] - a linear scan: the link itself
    while node is not None:
        if node is b:
            return True
        node = node._next_op  # pyright: ignore[reportPrivateUsage]
    return False


def try_load_cse(load: memref.LoadOp, pending: set[memref.LoadOp]) -> bool:
    """Replace the loads `load` makes redundant; True if any was replaced."""
    block = load.parent_block()
    assert block is not None
    redundant: list[memref.LoadOp] = []
    indices = tuple(load.indices)
    # the other loads of the memref: its users (not a walk of the whole block)
    users = dict.fromkeys(use.operation for use in load.memref.uses)
    for op in users:
        if (
            op is not load
            and isinstance(op, memref.LoadOp)
            and op.memref is load.memref
            and tuple(op.indices) == indices
        ):
            ancestor = _ancestor_in_block(block, op)
            if ancestor is not None and _is_before(load, ancestor):
                redundant.append(op)
    pending.discard(load)
    for other in redundant:
        pending.discard(other)
        other.res.replace_all_uses_with(load.res)
        other.detach()
        other.erase()
    return bool(redundant)


def memref_load_cse(root: Operation) -> bool:
    """One round of load CSE over `root`; True if something changed."""
    loads = [op for op in preorder_ops(root) if isinstance(op, memref.LoadOp)]
    pending = set(loads)
    changed = False
    for load in loads:
        if load in pending:
            changed |= try_load_cse(load, pending)
    return changed


@register_pass
@dataclass(frozen=True)
class DiscMemRefCSEPass(ModulePass):
    """Perform CSE on memref.load"""

    name = "disc-memref-cse"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        cse_cls = get_pass("cse")
        assert cse_cls is not None, "the cse pass is not registered"
        cse = cse_cls()
        for _ in range(MAX_ITERATIONS):
            cse.apply(ctx, op)
            if not memref_load_cse(op):
                break
        cse.apply(ctx, op)
