"""`disc-convert-shape-to-std`: lower shape dialect ops on extent tensors to arith / tensor ops.

BladeDISC's replacement of MLIR's `convert-shape-to-std` (which lowers
`shape.broadcast` with scf loops): every shape here has a static rank, so the
extents are computed one by one.

* `shape.shape_of %x` (extent-tensor result) -> `tensor.from_elements` of
  `tensor.dim` / `memref.dim` (constants for static sizes), then a
  `tensor.cast` if the result type differs;
* `shape.const_shape [a, b]` -> constants, `tensor.from_elements` and a
  `tensor.cast` to `tensor<Nxindex>` (also for a `!shape.shape` result; its
  `shape.to_extent_tensor` users then fold away);
* `shape.broadcast` of static-rank extent tensors -> per output extent a
  chain of `arith.cmpi eq, %e, 1` / `arith.select`;
* `shape.split_at` (constant index), `shape.concat`, `shape.num_elements`
  and `shape.to_extent_tensor` of an extent tensor;
* `disc_shape.linearize` -> `(((i0 * d1) + i1) * d2 + i2) ...`,
  `disc_shape.delinearize` -> `arith.remui` / `arith.divui` chains.

Ops on `!shape.shape` / `!shape.size` values other than these are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.dialects.hlo_attrs import ints, shape_of
from disc_ir.ir import builders
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.greedy import greedy_applier
from disc_ir.rewriting.shape_reification import DimValue, ShapeBuilder, op_attr
from disc_ir.rewriting.walker import PatternRewriteWalker


def _static_extent_count(value: SSAValue) -> int | None:
    """N for a `tensor<Nxindex>`-like extent tensor, else None."""
    t = value.type
    if not isinstance(t, TensorType):
        return None
    shape = t.get_shape()
    if len(shape) != 1 or shape[0] == DYNAMIC_INDEX:
        return None
    return shape[0]


def _from_elements(b: ShapeBuilder, values: list[DimValue]) -> SSAValue:
    elems = [b.value(v) for v in values]
    ty = TensorType(IndexType(), [len(elems)])
    return b.insert(xtensor.FromElementsOp.build(operands=[elems], result_types=[ty])).results[0]


def _cast_to(b: ShapeBuilder, value: SSAValue, result_type) -> SSAValue:
    if value.type == result_type or not isinstance(result_type, TensorType):
        return value
    return b.insert(xtensor.CastOp(value, result_type)).results[0]


def _extract(b: ShapeBuilder, tensor: SSAValue, index: int) -> SSAValue:
    return b.insert(xtensor.ExtractOp(tensor, [b.const(index)], IndexType())).results[0]


class ShapeOfToStd(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "shape.shape_of" or not isinstance(op.results[0].type, TensorType):
            return
        arg = op.operands[0]
        shape = shape_of(arg.type)
        if shape is None:
            return
        b = ShapeBuilder(op, rewriter)
        dims = [b.dim(arg, i) for i in range(len(shape))]
        value = _cast_to(b, _from_elements(b, dims), op.results[0].type)
        rewriter.replace(op, [], [value])


class ConstShapeToStd(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "shape.const_shape":
            return
        extents = ints(op_attr(op, "shape"))
        b = ShapeBuilder(op, rewriter)
        values = [b.const(e) for e in extents]
        ty = TensorType(IndexType(), [len(values)])
        tensor = b.insert(xtensor.FromElementsOp.build(operands=[values], result_types=[ty]))
        cast = b.insert(xtensor.CastOp(tensor.results[0], ty))
        rewriter.replace(op, [], [cast.results[0]])


class ToExtentTensorToStd(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "shape.to_extent_tensor":
            return
        src = op.operands[0]
        if not isinstance(src.type, TensorType):
            return
        b = ShapeBuilder(op, rewriter)
        rewriter.replace(op, [], [_cast_to(b, src, op.results[0].type)])


class BroadcastToStd(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "shape.broadcast" or not isinstance(op.results[0].type, TensorType):
            return
        ranks = [_static_extent_count(v) for v in op.operands]
        if not ranks or any(r is None for r in ranks):
            return
        max_rank = max(r for r in ranks if r is not None)
        b = ShapeBuilder(op, rewriter)
        extents: list[DimValue] = []
        for i in range(max_rank):
            current: DimValue = 1
            for shape, rank in zip(op.operands, ranks, strict=True):
                assert rank is not None
                diff = max_rank - rank
                if i < diff:
                    continue
                extent = b.element(shape, i - diff)
                current = b.select_if_eq(extent, 1, current, extent)
            extents.append(current)
        value = _cast_to(b, _from_elements(b, extents), op.results[0].type)
        rewriter.replace(op, [], [value])


class SplitAtToStd(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "shape.split_at":
            return
        operand, index = op.operands
        rank = _static_extent_count(operand)
        if rank is None or not isinstance(index, OpResult) or index.op.name != "arith.constant":
            return
        split = ints(op_attr(index.op, "value"))[0]
        if split < 0:
            split += rank
        b = ShapeBuilder(op, rewriter)
        extents = [_extract(b, operand, i) for i in range(rank)]
        head = _from_elements(b, list(extents[:split]))
        tail = _from_elements(b, list(extents[split:]))
        rewriter.replace(op, [], [head, tail])


class ConcatToStd(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "shape.concat":
            return
        ranks = [_static_extent_count(v) for v in op.operands]
        if any(r is None for r in ranks):
            return
        b = ShapeBuilder(op, rewriter)
        extents: list[DimValue] = []
        for value, rank in zip(op.operands, ranks, strict=True):
            assert rank is not None
            extents += [_extract(b, value, i) for i in range(rank)]
        value = _cast_to(b, _from_elements(b, extents), op.results[0].type)
        rewriter.replace(op, [], [value])


class NumElementsToStd(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "shape.num_elements" or not isinstance(op.results[0].type, IndexType):
            return
        shape = op.operands[0]
        rank = _static_extent_count(shape)
        if rank is None:
            return
        b = ShapeBuilder(op, rewriter)
        total: SSAValue = b.const(1)
        for i in range(rank):
            total = b.insert(arith.MuliOp(_extract(b, shape, i), total)).results[0]
        rewriter.replace(op, [], [total])


class LinearizeToStd(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "disc_shape.linearize":
            return
        rank = len(op.operands) // 2
        indices, sizes = op.operands[:rank], op.operands[rank:]
        b = ShapeBuilder(op, rewriter)
        if rank == 0:
            rewriter.replace(op, [], [b.const(0)])
            return
        linear = indices[0]
        for index, size in zip(indices[1:], sizes[1:], strict=True):
            scaled = b.insert(builders.binary(arith.MuliOp, linear, size)).results[0]
            linear = b.insert(builders.binary(arith.AddiOp, scaled, index)).results[0]
        rewriter.replace(op, [], [linear])


class DelinearizeToStd(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "disc_shape.delinearize":
            return
        linear, *sizes = op.operands
        rank = len(sizes)
        if rank == 0:
            rewriter.erase(op)
            return
        if rank == 1:
            rewriter.replace(op, [], [linear])
            return
        b = ShapeBuilder(op, rewriter)
        multi: list[SSAValue] = [linear] * rank
        for pos in range(rank - 1, 0, -1):
            multi[pos] = b.insert(arith.RemUIOp(linear, sizes[pos])).results[0]
            linear = b.insert(arith.DivUIOp(linear, sizes[pos])).results[0]
        multi[0] = linear
        rewriter.replace(op, [], multi)


SHAPE_TO_STD_PATTERNS: tuple[type[RewritePattern], ...] = (
    BroadcastToStd,
    ConcatToStd,
    NumElementsToStd,
    ShapeOfToStd,
    SplitAtToStd,
    ToExtentTensorToStd,
    LinearizeToStd,
    DelinearizeToStd,
    ConstShapeToStd,
)


@register_pass
@dataclass(frozen=True)
class DiscConvertShapeToStandardPass(ModulePass):
    """Pass to convert shape ops to std dialect"""

    name = "disc-convert-shape-to-std"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(
            greedy_applier([cls() for cls in SHAPE_TO_STD_PATTERNS]),
            apply_recursively=True,
        ).rewrite_module(op)
