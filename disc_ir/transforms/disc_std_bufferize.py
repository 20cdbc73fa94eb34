"""`disc-std-bufferize`: bufferize the small tensors of shape computations.

After `hlo-legalize-to-lhlo`, what remains in the tensor world are shape
tensors: constants, `tensor.from_elements` of index values, their element
reads. BladeDISC supports static ranks only, so each becomes a small buffer
filled element by element (its `disc-std-bufferize` plus the parts of MLIR's
arith / tensor bufferization that its pipeline runs right after):

* `arith.constant dense<[..]> : tensor<Nxi64>` (rank <= 1, integer or index)
  -> `memref.alloc` + one `memref.store` per element (`arith.index_cast` to
  the element type when it is not `index`);
* `arith.index_cast %t : tensor<Nxi64> to tensor<Nxindex>` -> a new buffer
  filled with load / index_cast / store per element;
* `tensor.from_elements %a, %b : tensor<2xindex>` -> `memref.alloc` +
  `memref.store`s (any static shape, row-major);
* `tensor.extract %t[..]` -> `memref.load`, `tensor.dim` -> `memref.dim`,
  `tensor.cast` -> `memref.cast`.

Tensor operands are read through `bufferization.to_memref`, converted results
are given to remaining tensor users through `bufferization.to_tensor`; the
casts fold away where both sides are buffers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.dialects import memref as xmemref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    MemRefType,
    TensorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.conversion.bufferization import (
    ExtractOfToTensor,
    cleanup_materializations,
    memref_type_for,
    replace_with_buffers,
    to_buffer,
)
from disc_ir.dialects.upstream.memref import CastOp as MemrefCastOp
from disc_ir.ir.builders import index_constant
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.greedy import greedy_applier
from disc_ir.rewriting.walker import PatternRewriteWalker


def _static_tensor(t) -> TensorType | None:
    if isinstance(t, TensorType) and DYNAMIC_INDEX not in t.get_shape():
        return t
    return None


def _is_int_like(t) -> bool:
    return isinstance(t, IndexType | IntegerType)


class _Emitter:
    """Inserts ops before `anchor`, reusing index constants."""

    def __init__(self, anchor: Operation, rewriter: PatternRewriter):
        self.anchor = anchor
        self.rewriter = rewriter
        self.consts: dict[int, SSAValue] = {}

    def emit(self, op: Operation) -> SSAValue | None:
        self.rewriter.insert(op, InsertPoint.before(self.anchor))
        return op.results[0] if op.results else None

    def index(self, value: int) -> SSAValue:
        if value not in self.consts:
            c = self.emit(index_constant(value))
            assert c is not None
            self.consts[value] = c
        return self.consts[value]

    def alloc(self, ty: TensorType) -> SSAValue:
        mtype = memref_type_for(ty)
        assert isinstance(mtype, MemRefType)
        result = self.emit(xmemref.AllocOp([], [], mtype))
        assert result is not None
        return result

    def store(self, value: SSAValue, buffer: SSAValue, position: tuple[int, ...]) -> None:
        self.emit(xmemref.StoreOp.get(value, buffer, [self.index(i) for i in position]))


def _positions(shape: tuple[int, ...]) -> list[tuple[int, ...]]:
    return list(itertools.product(*(range(d) for d in shape)))


class ConstantToBuffer(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.ConstantOp):
            return
        ty = _static_tensor(op.result.type)
        if ty is None or len(ty.get_shape()) > 1 or not _is_int_like(ty.get_element_type()):
            return
        attr = op.value
        if not isinstance(attr, DenseIntOrFPElementsAttr):
            return
        e = _Emitter(op, rewriter)
        buffer = e.alloc(ty)
        values = [int(v) for v in attr.get_values()]
        positions = _positions(tuple(ty.get_shape()))
        if len(values) == 1 and len(positions) != 1:
            values = values * len(positions)
        elem = ty.get_element_type()
        for pos, v in zip(positions, values, strict=True):
            value = e.emit(index_constant(v))
            assert value is not None
            if not isinstance(elem, IndexType):
                value = e.emit(arith.IndexCastOp(value, elem))
                assert value is not None
            e.store(value, buffer, pos)
        replace_with_buffers(op, [buffer], rewriter)


class IndexCastToBuffer(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, arith.IndexCastOp):
            return
        ty = _static_tensor(op.result.type)
        if ty is None or len(ty.get_shape()) != 1:
            return
        e = _Emitter(op, rewriter)
        source = to_buffer(op.input, op, rewriter)
        buffer = e.alloc(ty)
        for (i,) in _positions(tuple(ty.get_shape())):
            loaded = e.emit(xmemref.LoadOp.get(source, [e.index(i)]))
            assert loaded is not None
            casted = e.emit(arith.IndexCastOp(loaded, ty.get_element_type()))
            assert casted is not None
            e.store(casted, buffer, (i,))
        replace_with_buffers(op, [buffer], rewriter)


class FromElementsToBuffer(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "tensor.from_elements":
            return
        ty = _static_tensor(op.results[0].type)
        if ty is None:
            return
        e = _Emitter(op, rewriter)
        buffer = e.alloc(ty)
        for pos, value in zip(_positions(tuple(ty.get_shape())), op.operands, strict=True):
            e.store(value, buffer, pos)
        replace_with_buffers(op, [buffer], rewriter)


class ExtractToLoad(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "tensor.extract":
            return
        source = to_buffer(op.operands[0], op, rewriter)
        rewriter.replace(op, xmemref.LoadOp.get(source, list(op.operands[1:])))


class DimToMemrefDim(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "tensor.dim":
            return
        source = to_buffer(op.operands[0], op, rewriter)
        rewriter.replace(op, xmemref.DimOp(source, op.operands[1]))


class CastToMemrefCast(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "tensor.cast":
            return
        source = to_buffer(op.operands[0], op, rewriter)
        target = memref_type_for(op.results[0].type)
        if source.type == target:
            replace_with_buffers(op, [source], rewriter)
            return
        cast = MemrefCastOp.create(operands=[source], result_types=[target])
        rewriter.insert(cast, InsertPoint.before(op))
        replace_with_buffers(op, cast.results, rewriter)


STD_BUFFERIZE_PATTERNS: tuple[type[RewritePattern], ...] = (
    ConstantToBuffer,
    IndexCastToBuffer,
    FromElementsToBuffer,
    ExtractToLoad,
    DimToMemrefDim,
    CastToMemrefCast,
)


@register_pass
@dataclass(frozen=True)
class DiscStdBufferizePass(ModulePass):
    """Pass to convert tensor std.constant ops to hlo dialect"""

    name = "disc-std-bufferize"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(
            greedy_applier([cls() for cls in STD_BUFFERIZE_PATTERNS]),
            apply_recursively=False,
        ).rewrite_module(op)
        cleanup_materializations(op, [ExtractOfToTensor()])
