"""`disc-mhlo-mark-shape-calc`: mark the ops of the entry function that compute shapes.

BladeDISC's DiscMarkShapeCalc (mhlo_mark_shape_calc.cc). In the entry block
of `@main` (nested regions and other functions are left alone), an op is a
shape calculation when

1. it is an `mhlo.get_dimension_size`, `tensor.from_elements` or
   `tensor.extract` none of whose operands comes from `mhlo_disc.where`
   (`where`'s element count feeds shapes, but marking it would keep `where`
   out of fusion), or
2. it defines a shape operand (`placement.shape_calc_operand_indices`) of an
   op, or
3. (propagated backwards, users before producers) it defines an operand of a
   marked op, unless it is `tensor.dim` / `shape.shape_of`, the operand is a
   static tensor of more than 64 elements (likely data), or the marked op
   takes an operand from `mhlo_disc.where`.

Only tensor-dialect ops, mhlo / mhlo_disc ops and `arith.index_cast` on
tensors are ever marked. A marked op gets `disc.shape_op = true` (an array of
`true`, one per element, when its result is a tuple); `mhlo-place-ops` then
places it on the host.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import ArrayAttr, TensorType
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.placement import (
    SHAPE_OP_ATTR,
    find_entry_function,
    has_tuple_result,
    is_mark_shape_calc_target_op,
    shape_calc_operand_indices,
    true_attr,
    tuple_size,
)
from disc_ir.passes.registry import register_pass

_ALWAYS_SHAPE_OPS = frozenset({"mhlo.get_dimension_size", "tensor.from_elements", "tensor.extract"})
_NOT_PROPAGATED = frozenset({"tensor.dim", "shape.shape_of"})
_LARGE_TENSOR_ELEMENTS = 64


def _defining_op(value: SSAValue) -> Operation | None:
    return value.op if isinstance(value, OpResult) else None


def has_input_from_where(op: Operation) -> bool:
    """Some operand of `op` is a result of `mhlo_disc.where`."""
    return any(
        (producer := _defining_op(v)) is not None and producer.name == "mhlo_disc.where"
        for v in op.operands
    )


def _is_large_static_tensor(value: SSAValue) -> bool:
    t = value.type
    if not isinstance(t, TensorType):
        return False
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        return False
    count = 1
    for d in shape:
        count *= d
    return count > _LARGE_TENSOR_ELEMENTS


def shape_calculation_ops(func: Operation) -> set[Operation]:
    """The ops of `func`'s entry block that compute shapes (see the module docstring)."""
    block = func.regions[0].blocks.first
    marked: set[Operation] = set()
    if block is None:
        return marked
    for op in block.ops:
        if not is_mark_shape_calc_target_op(op) or op in marked:
            continue
        if op.name in _ALWAYS_SHAPE_OPS and not has_input_from_where(op):
            marked.add(op)
            continue
        for index in shape_calc_operand_indices(op):
            if index >= len(op.operands):
                continue
            producer = _defining_op(op.operands[index])
            if producer is not None and is_mark_shape_calc_target_op(producer):
                marked.add(producer)

    for op in reversed(list(block.ops)):
        if op not in marked or not is_mark_shape_calc_target_op(op):
            continue
        if has_input_from_where(op):
            continue
        for value in op.operands:
            producer = _defining_op(value)
            if producer is None or not is_mark_shape_calc_target_op(producer):
                continue
            if producer.name in _NOT_PROPAGATED or _is_large_static_tensor(value):
                continue
            marked.add(producer)
    return marked


def mark_shape_op(op: Operation) -> None:
    """Set `disc.shape_op` on `op`: `true`, or one `true` per tuple element."""
    if has_tuple_result(op):
        op.attributes[SHAPE_OP_ATTR] = ArrayAttr([true_attr()] * tuple_size(op))
    else:
        op.attributes[SHAPE_OP_ATTR] = true_attr()


@register_pass
@dataclass(frozen=True)
class DiscMhloMarkShapeCalcPass(ModulePass):
    """Identify and mark with an attribute operations performing shape calculation."""

    name = "disc-mhlo-mark-shape-calc"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        func = find_entry_function(op)
        if func is None:
            raise DiagnosticException("entry function 'main' not found")
        for marked in shape_calculation_ops(func):
            mark_shape_op(marked)
