"""Canonicalization patterns on `tensor` ops.

- `tensor.extract(shape.shape_of(%t), %i)` -> `tensor.dim %t, %i` for a
  tensor `%t` (MLIR's ExtractFromShapeOfExtentTensor, from the shape dialect).
"""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import IndexType, TensorType, UnrankedTensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.transforms.patterns import register_canonicalization
from disc_ir.transforms.patterns.utils import create_op, defining, op_class


class ExtractFromShapeOf(RewritePattern):
    def __init__(self, ctx):
        self.ctx = ctx

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if len(op.operands) != 2 or op.results[0].type != IndexType():
            return
        shape_of = defining(op.operands[0], "shape.shape_of")
        if shape_of is None or not shape_of.operands:
            return
        source = shape_of.operands[0]
        if not isinstance(source.type, TensorType | UnrankedTensorType):
            return
        dim_cls = op_class(self.ctx, "tensor.dim", tensor.DimOp)
        rewriter.replace(op, create_op(dim_cls, [source, op.operands[1]], [IndexType()]))


register_canonicalization("tensor.extract")(lambda ctx: (ExtractFromShapeOf(ctx),))
