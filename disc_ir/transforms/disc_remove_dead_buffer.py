"""`disc-remove-dead-buffer`: remove buffers nobody reads (BladeDISC's RemoveDeadBufferPass).

A `memref.alloc` is dead when every op reached from it through views
(`memref.cast`, `memref.reinterpret_cast`, `memref.subview`... and the views
of those) is one of

- a `memref.dealloc`,
- a view-like op,
- an op that only writes the buffer: a `memref.store` into it, or an lmhlo /
  lmhlo_disc op without regions or other side effects all of whose output
  buffers are views of it (a `memref.copy` into it, likewise).

The alloc and all those ops are then erased. Any other use (a read, a
`return`, a call, `memref.dim` -- run `canonicalize` first to fold those --
an op with regions) keeps the buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from disc_ir.analysis.buffer_alias import (
    buffer_writes,
    has_side_effects_beyond_buffers,
    is_lmhlo_op,
    is_view_like,
)
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


def _only_writes(op: Operation, aliases: set[SSAValue]) -> bool:
    """`op` does nothing observable but write buffers of `aliases`."""
    if op.name == "memref.store":
        return op.operands[1] in aliases and op.operands[0] not in aliases
    if op.name == "memref.copy":
        return op.operands[1] in aliases and op.operands[0] not in aliases
    if is_lmhlo_op(op) and not op.results and not has_side_effects_beyond_buffers(op):
        writes = buffer_writes(op)
        return bool(writes) and all(op.operands[i] in aliases for i in writes)
    return False


def dead_buffer_users(alloc: Operation) -> list[Operation] | None:
    """The ops to erase with `alloc` when its buffer is dead, else None."""
    aliases: set[SSAValue] = {alloc.results[0]}
    consumers: list[Operation] = []
    seen: set[Operation] = set()
    worklist = [alloc.results[0]]
    while worklist:
        value = worklist.pop()
        for use in list(value.uses):
            user = use.operation
            if user in seen:
                continue
            seen.add(user)
            consumers.append(user)
            if is_view_like(user):
                aliases.add(user.results[0])
                worklist.append(user.results[0])
    for user in consumers:
        if user.name == "memref.dealloc" or is_view_like(user):
            continue
        if not _only_writes(user, aliases):
            return None
    return consumers


def remove_dead_buffers(root: Operation) -> int:
    """Erase the dead allocs under `root` with their users; return how many."""
    count = 0
    for alloc in [op for op in preorder_ops(root) if op.name == "memref.alloc"]:
        if alloc.parent is None:
            continue
        users = dead_buffer_users(alloc)
        if users is None:
            continue
        for user in _erase_order(users):
            Rewriter.erase_op(user)
        Rewriter.erase_op(alloc)
        count += 1
    return count


def _erase_order(users: list[Operation]) -> list[Operation]:
    """Users before the views they use: views last, innermost views first."""
    non_views = [u for u in users if not is_view_like(u)]
    views = [u for u in users if is_view_like(u)]
    return non_views + list(reversed(views))


@register_pass
@dataclass(frozen=True)
class RemoveDeadBufferPass(ModulePass):
    """Pass to remove buffers that are not accessed by others"""

    name = "disc-remove-dead-buffer"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and f.body.blocks:
                remove_dead_buffers(f)


__all__ = ["RemoveDeadBufferPass", "dead_buffer_users", "remove_dead_buffers"]
