"""Shape operands assembled by concatenation, rewritten as `tensor.from_elements`.

A shape-polymorphic `jax.export` builds every dynamic shape operand (of
`dynamic_broadcast_in_dim`, `dynamic_reshape`, `dynamic_iota`,
`real_dynamic_slice`, ...) by concatenating one-element tensors:

    %d = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x768xf32>) -> tensor<i32>
    %r = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
    %s = stablehlo.concatenate %r, %c768, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %y = stablehlo.dynamic_broadcast_in_dim %v, %s, dims = [0, 1] : ...

Compiled as it stands, each such shape is a small host kernel (a loop
selecting among its pieces) fed by constants the RAL loads at run time.
`concatenated_shapes_to_from_elements(module)` rewrites every
`mhlo.concatenate` that

- joins rank-1 integer or index tensors of static sizes along dimension 0,
  at most `MAX_EXTENTS` elements in all, and
- is used only as shape operands (`disc_ir.analysis.placement.
  shape_calc_operand_indices`: the operands BladeDISC's placement computes
  on the host),

into `tensor.from_elements` of its extents, the form BladeDISC's framework
bridges give the pipeline: a `mhlo.reshape` of a 0-d tensor contributes
`tensor.extract %t[]`, a constant its values as `arith.constant`s, any other
piece `tensor.extract %t[i]` per element. The shape analysis then reads each
extent directly and the host computes them as scalars; the values are the
same. Returns how many concatenates were rewritten.
"""

from __future__ import annotations

from xdsl.dialects import arith, builtin, tensor
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import Rewriter

from disc_ir.analysis.placement import shape_calc_operand_indices
from disc_ir.dialects.hlo_attrs import ints
from disc_ir.ir.builders import index_constant
from disc_ir.ir.walk import preorder_ops

#: the most extents a rewritten shape may have (shapes are as long as ranks)
MAX_EXTENTS = 16


def _static_vector(value: SSAValue) -> int | None:
    """The length of `value` when it is a rank-1 integer or index tensor of static size."""
    t = value.type
    if not isinstance(t, TensorType) or len(t.get_shape()) != 1:
        return None
    if not isinstance(t.element_type, IntegerType | IndexType):
        return None
    size = t.get_shape()[0]
    return size if size >= 0 else None


def _only_shape_uses(op: Operation) -> bool:
    uses = list(op.results[0].uses)
    return bool(uses) and all(
        use.index in shape_calc_operand_indices(use.operation) for use in uses
    )


def _rewritable(op: Operation) -> bool:
    if op.name != "mhlo.concatenate" or ints(op.attributes.get("dimension")) != (0,):
        return False
    total = _static_vector(op.results[0])
    if total is None or total > MAX_EXTENTS:
        return False
    if any(_static_vector(v) is None for v in op.operands):
        return False
    return _only_shape_uses(op)


def _extents(piece: SSAValue, element: Attribute) -> tuple[list[Operation], list[SSAValue]]:
    """The ops computing the scalars of rank-1 `piece`, and those scalars."""
    owner = piece.owner
    size = _static_vector(piece)
    assert size is not None
    if isinstance(owner, Operation) and owner.name == "mhlo.constant":
        value = owner.attributes.get("value")
        if isinstance(value, DenseIntOrFPElementsAttr):
            consts = [arith.ConstantOp(IntegerAttr(v, element)) for v in ints(value)]  # type: ignore[call-overload]  # an integer shape vector's element type
            return list(consts), [c.result for c in consts]
    if isinstance(owner, Operation) and owner.name == "mhlo.reshape":
        source = owner.operands[0]
        if isinstance(source.type, TensorType) and not source.type.get_shape():
            extract = tensor.ExtractOp(source, [], element)
            return [extract], [extract.result]
    ops: list[Operation] = []
    scalars: list[SSAValue] = []
    for i in range(size):
        index = index_constant(i)
        extract = tensor.ExtractOp(piece, [index.result], element)
        ops += [index, extract]
        scalars.append(extract.result)
    return ops, scalars


def concatenated_shapes_to_from_elements(module: builtin.ModuleOp) -> int:
    """Rewrite the shape-operand concatenates of `module` (see the module docstring)."""
    targets = [op for op in preorder_ops(module) if _rewritable(op)]
    rewriter = Rewriter()
    for op in targets:
        result_type = op.results[0].type
        assert isinstance(result_type, TensorType)
        element = result_type.element_type
        new_ops: list[Operation] = []
        scalars: list[SSAValue] = []
        for piece in op.operands:
            ops, values = _extents(piece, element)
            new_ops += ops
            scalars += values
        packed = tensor.FromElementsOp(*scalars, result_type=result_type)
        rewriter.replace_op(op, [*new_ops, packed], [packed.result])
    return len(targets)


__all__ = ["MAX_EXTENTS", "concatenated_shapes_to_from_elements"]
