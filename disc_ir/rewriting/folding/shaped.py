"""Folders of memref and tensor ops on shapes, following MLIR's MemRefOps.cpp / TensorOps.cpp.

- `memref.dim` / `tensor.dim`: a static extent folds to a constant; the extent
  of an `alloc`/`alloca`/`tensor.empty` result is its dynamic size operand;
  `dim(cast(x))` reads `x` (in place).
- `memref.cast` / `tensor.cast`: a cast to the same type folds to its source;
  `cast(cast(x))` reads `x` when the inner cast only lost static information.
- `memref.load` / `memref.store` / `memref.dealloc`: a `memref.cast` operand
  that only lost static information is replaced by its source (in place).
- `memref.rank` / `tensor.rank` of a ranked operand folds to a constant;
- `tensor.extract` of `tensor.from_elements` (constant indices) or of a dense
  constant folds to the element; `tensor.from_elements` of constants folds
  to a dense constant.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    MemRefType,
    NoneAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue

from disc_ir.rewriting.folding.core import (
    FOLDED_IN_PLACE,
    FoldResult,
    register_folder,
)
from disc_ir.rewriting.folding.ints import int_value, make_int_attr, to_signed

Consts = list[Attribute | None]


def _const_index(attr: Attribute | None) -> int | None:
    if attr is None or (iv := int_value(attr)) is None:
        return None
    return to_signed(iv[0], iv[1])


def _shape(type_: Attribute) -> tuple[int, ...] | None:
    if isinstance(type_, MemRefType | TensorType):
        return tuple(type_.get_shape())
    return None


def _is_dynamic(extent: int) -> bool:
    return extent < 0


def _dim_of_producer(source: SSAValue, index: int) -> SSAValue | None:
    """The dynamic size operand giving extent `index` of an alloc/alloca/empty result."""
    if not isinstance(source, OpResult):
        return None
    producer = source.op
    if producer.name not in ("memref.alloc", "memref.alloca", "tensor.empty"):
        return None
    shape = _shape(source.type)
    if shape is None or not _is_dynamic(shape[index]):
        return None
    position = sum(1 for e in shape[:index] if _is_dynamic(e))
    sizes = producer.operands
    if producer.name != "tensor.empty":
        sizes = getattr(producer, "dynamic_sizes", sizes)
    return sizes[position] if position < len(sizes) else None


@register_folder("memref.dim", "tensor.dim")
def fold_dim(op: Operation, consts: Consts) -> FoldResult | None:
    source = op.operands[0]
    index = _const_index(consts[1])
    shape = _shape(source.type)
    if index is None or shape is None or not 0 <= index < len(shape):
        return None
    if not _is_dynamic(shape[index]):
        return (make_int_attr(shape[index], IndexType()),)
    if (size := _dim_of_producer(source, index)) is not None:
        return (size,)
    return None


def can_fold_cast_into_consumer(cast: Operation) -> bool:
    """MLIR's CastOp::canFoldIntoConsumerOp: the cast only makes static extents dynamic.

    Both sides must be ranked, of the same element type and rank, with the
    same layout; no extent may go from dynamic to static.
    """
    src_t, dst_t = cast.operands[0].type, cast.results[0].type
    if not (
        (isinstance(src_t, MemRefType) and isinstance(dst_t, MemRefType))
        or (isinstance(src_t, TensorType) and isinstance(dst_t, TensorType))
    ):
        return False
    if src_t.get_element_type() != dst_t.get_element_type():
        return False
    src_shape, dst_shape = src_t.get_shape(), dst_t.get_shape()
    if len(src_shape) != len(dst_shape):
        return False
    if isinstance(src_t, MemRefType) and isinstance(dst_t, MemRefType):
        if _layout(src_t) != _layout(dst_t) or src_t.memory_space != dst_t.memory_space:
            return False
    return all(
        not (_is_dynamic(s) and not _is_dynamic(d))
        for s, d in zip(src_shape, dst_shape, strict=True)
    )


def _layout(t: MemRefType) -> Attribute | None:
    layout = t.layout
    return None if isinstance(layout, NoneAttr) else layout


def fold_cast_operands(op: Operation, cast_name: str, skip: tuple[int, ...] = ()) -> bool:
    """Replace operands of `op` produced by foldable `cast_name` casts by the cast sources."""
    changed = False
    operands = list(op.operands)
    for i, v in enumerate(operands):
        if i in skip or not isinstance(v, OpResult) or v.op.name != cast_name:
            continue
        if can_fold_cast_into_consumer(v.op):
            operands[i] = v.op.operands[0]
            changed = True
    if changed:
        op.operands = operands
    return changed


@register_folder("memref.dim", in_place=True)
def fold_memref_dim_cast(op: Operation, consts: Consts) -> FoldResult | None:
    return FOLDED_IN_PLACE if fold_cast_operands(op, "memref.cast", skip=(1,)) else None


@register_folder("tensor.dim", in_place=True)
def fold_tensor_dim_cast(op: Operation, consts: Consts) -> FoldResult | None:
    return FOLDED_IN_PLACE if fold_cast_operands(op, "tensor.cast", skip=(1,)) else None


@register_folder("memref.load", "memref.dealloc", in_place=True)
def fold_memref_cast_into_user(op: Operation, consts: Consts) -> FoldResult | None:
    return FOLDED_IN_PLACE if fold_cast_operands(op, "memref.cast", skip=()) else None


@register_folder("memref.store", in_place=True)
def fold_memref_cast_into_store(op: Operation, consts: Consts) -> FoldResult | None:
    # the stored value (operand 0) is left alone
    return FOLDED_IN_PLACE if fold_cast_operands(op, "memref.cast", skip=(0,)) else None


@register_folder("memref.cast", "tensor.cast")
def fold_cast(op: Operation, consts: Consts) -> FoldResult | None:
    if op.operands[0].type == op.results[0].type:
        return (op.operands[0],)
    return None


@register_folder("memref.cast", "tensor.cast", in_place=True)
def fold_cast_of_cast(op: Operation, consts: Consts) -> FoldResult | None:
    return FOLDED_IN_PLACE if fold_cast_operands(op, op.name) else None


@register_folder("tensor.extract")
def fold_extract(op: Operation, consts: Consts) -> FoldResult | None:
    tensor = op.operands[0]
    indices = [_const_index(c) for c in consts[1:]]
    src_const = consts[0]
    if isinstance(src_const, DenseIntOrFPElementsAttr):
        values = src_const.get_attrs()
        if src_const.is_splat() and values:  # by stored bits: not [-0.0, 0.0]
            return (values[0],)
        if any(i is None for i in indices):
            return None
        flat = _flat_index(src_const.get_shape(), indices)  # type: ignore[arg-type]  # no None index: checked above
        return (values[flat],) if flat is not None and flat < len(values) else None
    if isinstance(tensor, OpResult) and tensor.op.name == "tensor.from_elements":
        if any(i is None for i in indices):
            return None
        shape = _shape(tensor.type)
        if shape is None:
            return None
        flat = _flat_index(shape, indices)  # type: ignore[arg-type]  # no None index: checked above
        elements = tensor.op.operands
        return (elements[flat],) if flat is not None and flat < len(elements) else None
    return None


def _flat_index(shape: tuple[int, ...] | None, indices: list[int]) -> int | None:
    if shape is None or len(shape) != len(indices):
        return None
    flat = 0
    for extent, i in zip(shape, indices, strict=True):
        if not 0 <= i < extent:
            return None
        flat = flat * extent + i
    return flat


@register_folder("tensor.from_elements")
def fold_from_elements(op: Operation, consts: Consts) -> FoldResult | None:
    if not consts or any(c is None for c in consts):
        return None
    result_type = op.results[0].type
    if not isinstance(result_type, TensorType):
        return None
    values: list[int | float] = []
    for c in consts:
        if (iv := int_value(c)) is not None:  # type: ignore[arg-type]  # no None const: checked above
            values.append(to_signed(iv[0], iv[1]))
        elif hasattr(c, "value") and isinstance(getattr(c.value, "data", None), float):  # type: ignore[union-attr]  # no None const: checked above
            values.append(c.value.data)  # type: ignore[union-attr]  # no None const: checked above
        else:
            return None
    try:
        return (DenseIntOrFPElementsAttr.from_list(result_type, values),)
    except Exception:  # noqa: BLE001 - an element type xDSL cannot store densely: no fold
        return None


@register_folder("memref.rank", "tensor.rank")
def fold_rank(op: Operation, consts: Consts) -> FoldResult | None:
    """MLIR's RankOp::fold: the rank of a ranked operand is a constant index."""
    shape = _shape(op.operands[0].type)
    if shape is None:
        return None
    return (make_int_attr(len(shape), IndexType()),)
