"""`disc-convert-hlo-to-std`: lower shape-computing mhlo ops to arith / tensor ops.

BladeDISC's ConvertHloToStandardPass (disc_hlo_to_std.cc) lowers
`mhlo.compute_reshape_shape(%num_elements, %shape)`: the target shape of a
reshape where one extent may be -1. With `n` the element count and `p` the
product of the extents multiplied onto -1 (so positive when one extent is -1),
each extent becomes `e == -1 ? n / p : e`, where `p` is replaced by 1 when
`n == 0` or `p < 0` (no -1 extent: the division result is then unused). The
extents are read with `tensor.extract` (cast to `index` when the shape's
elements are integers, and back), and gathered with `tensor.from_elements`.
A shape operand of dynamic size is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, tensor
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, IndexType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern, op_type_rewrite_pattern
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.dialects.mhlo import ComputeReshapeShapeOp
from disc_ir.ir.builders import index_constant
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.walker import PatternRewriteWalker


def _index_const(value: int) -> arith.ConstantOp:
    return index_constant(value)


class ComputeReshapeShapeToStd(RewritePattern):
    """`mhlo.compute_reshape_shape` -> arith / tensor ops (see the module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ComputeReshapeShapeOp, rewriter: PatternRewriter, /) -> None:
        shape_type = op.dynamic_shape.type
        if (
            not isinstance(shape_type, TensorType)
            or shape_type.get_num_dims() != 1
            or shape_type.get_shape()[0] < 0
        ):
            raise DiagnosticException("mhlo.compute_reshape_shape: only static rank is supported")
        rank = shape_type.get_shape()[0]
        element = shape_type.element_type
        is_index = isinstance(element, IndexType)
        new_ops: list[Operation] = []

        def add(new: Operation) -> SSAValue:
            new_ops.append(new)
            return new.results[0]

        def extent(i: int) -> SSAValue:
            index = add(_index_const(i))
            value = add(tensor.ExtractOp(op.dynamic_shape, [index], element))
            if not is_index:
                value = add(arith.IndexCastOp(value, IndexType()))
            return value

        zero = add(_index_const(0))
        one = add(_index_const(1))
        neg_one = add(_index_const(-1))
        num_elements = op.num_elements
        accumulated = neg_one
        for i in range(rank):
            accumulated = add(arith.MuliOp(extent(i), accumulated))
        is_zero = add(arith.CmpiOp(num_elements, zero, "eq"))
        is_neg = add(arith.CmpiOp(accumulated, zero, "slt"))
        zero_or_neg = add(arith.OrIOp(is_zero, is_neg))
        accumulated = add(arith.SelectOp(zero_or_neg, one, accumulated))
        extents: list[SSAValue] = []
        for i in range(rank):
            value = extent(i)
            is_neg_one = add(arith.CmpiOp(value, neg_one, "eq"))
            inferred = add(arith.DivUIOp(num_elements, accumulated))
            value = add(arith.SelectOp(is_neg_one, inferred, value))
            if not is_index:
                value = add(arith.IndexCastOp(value, element))
            extents.append(value)
        result_type = op.result.type
        if extents:
            packed = add(tensor.FromElementsOp(*extents, result_type=result_type))
        else:  # a reshape to a scalar: the empty shape
            assert isinstance(result_type, TensorType)
            packed = add(arith.ConstantOp(DenseIntOrFPElementsAttr.from_list(result_type, [])))
        rewriter.replace(op, new_ops, [packed])


@register_pass
@dataclass(frozen=True)
class DiscConvertHloToStdPass(ModulePass):
    """Pass to convert some hlo ops to std dialect."""

    name = "disc-convert-hlo-to-std"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(ComputeReshapeShapeToStd(), apply_recursively=False).rewrite_module(op)
