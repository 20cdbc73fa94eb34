"""Folders of the bufferization casts, following MLIR's BufferizationOps.cpp.

- `to_memref(to_tensor(%m))` (also spelt `to_buffer`) folds to `%m` when the
  types match (`ToMemrefOp::fold`);
- `to_tensor(to_memref(%t))` folds to `%t` when the `to_memref` is the op
  right before it in the same block, so that no write to the buffer can come
  in between (`ToTensorOp::fold`), and the types match.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Operation, OpResult

from disc_ir.rewriting.folding.core import FoldResult, register_folder

_TO_MEMREF = ("bufferization.to_memref", "bufferization.to_buffer")


@register_folder(*_TO_MEMREF)
def fold_to_memref(op: Operation, consts: list[Attribute | None]) -> FoldResult | None:
    source = op.operands[0]
    if not isinstance(source, OpResult) or source.op.name != "bufferization.to_tensor":
        return None
    memref = source.op.operands[0]
    return (memref,) if memref.type == op.results[0].type else None


@register_folder("bufferization.to_tensor")
def fold_to_tensor(op: Operation, consts: list[Attribute | None]) -> FoldResult | None:
    source = op.operands[0]
    if not isinstance(source, OpResult) or source.op.name not in _TO_MEMREF:
        return None
    producer = source.op
    if producer.parent_block() is not op.parent_block() or producer.next_op is not op:
        return None
    tensor = producer.operands[0]
    return (tensor,) if tensor.type == op.results[0].type else None
