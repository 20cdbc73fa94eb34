"""Canonicalization patterns on `tensor` ops.

- `tensor.extract(shape.shape_of(%t), %i)` -> `tensor.dim %t, %i` for a
  tensor `%t` (MLIR's ExtractFromShapeOfExtentTensor, from the shape dialect).
- `tensor.dim(bufferization.to_tensor(%m), %i)` -> `memref.dim %m, %i` (MLIR's
  DimOfToTensorFolding).
"""

from __future__ import annotations

from xdsl.dialects import memref, tensor
from xdsl.dialects.builtin import IndexType, TensorType, UnrankedTensorType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.rewriting.patterns import register_canonicalization
from disc_ir.rewriting.patterns.utils import create_op, defining, op_class


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


class DimOfToTensor(RewritePattern):
    """MLIR's DimOfToTensorFolding: `tensor.dim(to_tensor(%m), %i)` -> `memref.dim %m, %i`."""

    def __init__(self, ctx):
        self.ctx = ctx

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        to_tensor = defining(op.operands[0], "bufferization.to_tensor")
        if to_tensor is None:
            return
        dim_cls = op_class(self.ctx, "memref.dim", memref.DimOp)
        rewriter.replace(
            op, create_op(dim_cls, [to_tensor.operands[0], op.operands[1]], [IndexType()])
        )


register_canonicalization("tensor.dim")(lambda ctx: (DimOfToTensor(ctx),))
