"""Fuse splat constant to avoid memory access.

`disc-fuse-splat-const` (BladeDISC's DiscFuseSplatConstPass) runs after
`disc-fusion` and fuses every splat `lmhlo.constant` outside fusions into the
fusions that read it, a restricted version of XLA's FusionMerger with a
splat constant as the only producer:

* for each `lmhlo.constant` whose `value` is a splat and which is not inside
  an `lmhlo.fusion`, the lmhlo ops inside fusions that read its buffer are
  grouped by their fusion;
* when the buffer comes from a `memref.alloc`, each such fusion gets its own
  copy: the alloc is duplicated (inserted before the original), a clone of the
  constant writing the new buffer is put first in the fusion body, and the
  fusion's readers are switched to the new buffer;
* the original constant is erased once nothing else uses its buffer (its
  alloc stays; `disc-remove-dead-buffer` / canonicalization drop it).

Constants whose buffer is not an alloc (a function argument, a view) and
readers that are not lmhlo ops inside a fusion are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.analysis.buffer_alias import is_lmhlo_op
from disc_ir.fusion.pattern import parent_fusion
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


def is_splat_constant(op: Operation) -> bool:
    """`op` is an `lmhlo.constant` whose dense `value` is a splat."""
    if op.name != "lmhlo.constant":
        return False
    value = inherent_attr(op, "value")
    # `is_splat` compares stored bits (disc_ir.ir.dense_splat): [-0.0, 0.0] is none
    return isinstance(value, DenseIntOrFPElementsAttr) and value.is_splat()


def _fused_readers(
    constant: Operation, order: dict[Operation, int]
) -> dict[Operation, list[Operation]]:
    """The lmhlo ops inside fusions using `constant`'s buffer, by fusion, in
    program order (`order`: position of each op in a pre-order walk)."""
    buffer = constant.operands[-1]
    users: dict[Operation, list[Operation]] = {}
    for user in sorted({use.operation for use in buffer.uses}, key=lambda o: order.get(o, -1)):
        if user is constant or not is_lmhlo_op(user):
            continue
        fusion = parent_fusion(user)
        if fusion is None:
            continue
        users.setdefault(fusion, []).append(user)
    return users


def _replace_operand(op: Operation, old: SSAValue, new: SSAValue) -> None:
    for i, operand in enumerate(op.operands):
        if operand is old:
            op.operands[i] = new


def fuse_splat_constant(constant: Operation, order: dict[Operation, int]) -> bool:
    """Duplicate `constant` into each fusion reading it (fusions in `order`);
    erase it when unused. Returns whether anything changed."""
    readers = _fused_readers(constant, order)
    if not readers:
        return False
    buffer = constant.operands[-1]
    alloc = buffer.owner
    changed = False
    if isinstance(alloc, Operation) and alloc.name == "memref.alloc":
        for fusion, ops in readers.items():
            new_alloc = alloc.clone()
            Rewriter.insert_op(new_alloc, InsertPoint.before(alloc))
            new_buffer = new_alloc.results[0]
            new_constant = constant.clone()
            new_constant.operands[len(new_constant.operands) - 1] = new_buffer
            body = fusion.regions[0].blocks.first
            assert body is not None
            Rewriter.insert_op(new_constant, InsertPoint.at_start(body))
            for op in ops:
                _replace_operand(op, buffer, new_buffer)
            changed = True
    if all(use.operation is constant for use in buffer.uses):
        Rewriter.erase_op(constant)
        changed = True
    return changed


def fuse_splat_constants(root: Operation) -> int:
    """Fuse every unfused splat constant under `root`; return how many changed."""
    order = {op: i for i, op in enumerate(preorder_ops(root))}
    worklist = [op for op in order if is_splat_constant(op) and parent_fusion(op) is None]
    return sum(1 for constant in worklist if fuse_splat_constant(constant, order))


@register_pass
@dataclass(frozen=True)
class DiscFuseSplatConstPass(ModulePass):
    """Fuse splat constant to avoid memory access."""

    name = "disc-fuse-splat-const"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        fuse_splat_constants(op)
