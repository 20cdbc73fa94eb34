"""expand-strided-metadata: express `memref.subview` through its strided metadata.

MLIR's pass of the same name, for `memref.subview` (the view the DISC codegen
makes): the subview

    %v = memref.subview %src[o0, o1] [s0, s1] [t0, t1]

becomes

    %base, %off, %sizes:2, %strides:2 = memref.extract_strided_metadata %src
    %v = memref.reinterpret_cast %base to
           offset: [%off + o0 * %strides#0 + o1 * %strides#1],
           sizes: [s0, s1], strides: [%strides#0 * t0, %strides#1 * t1]

with static layout information folded into constants and the dropped unit
dimensions of a rank-reducing subview left out. (`disc-to-llvm` lowers both
forms; this pass only exposes the address arithmetic to the arith folders.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, DenseArrayBase, IntegerAttr, MemRefType, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.conversion.llvm_common import strides_and_offset
from disc_ir.conversion.memref_to_llvm import dropped_subview_dims
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.walker import PatternRewriteWalker

Mixed = int | SSAValue


class _Arith:
    """Index arithmetic on static ints or SSA values, folding the static cases."""

    def __init__(self, rewriter: PatternRewriter, before: Operation):
        self.rewriter = rewriter
        self.ip = InsertPoint.before(before)

    def value(self, v: Mixed) -> SSAValue:
        if isinstance(v, int):
            op = arith.ConstantOp(IntegerAttr.from_index_int_value(v))
            self.rewriter.insert(op, self.ip)
            return op.result
        return v

    def add(self, a: Mixed, b: Mixed) -> Mixed:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if a == 0:
            return b
        if b == 0:
            return a
        op = arith.AddiOp(self.value(a), self.value(b))
        self.rewriter.insert(op, self.ip)
        return op.result

    def mul(self, a: Mixed, b: Mixed) -> Mixed:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if a == 1:
            return b
        if b == 1:
            return a
        op = arith.MuliOp(self.value(a), self.value(b))
        self.rewriter.insert(op, self.ip)
        return op.result


def _mixed(static: Sequence[int], dynamic: Sequence[SSAValue]) -> list[Mixed]:
    it = iter(dynamic)
    return [next(it) if s == DYNAMIC_INDEX else s for s in static]


def _split(values: Sequence[Mixed]) -> tuple[list[int], list[SSAValue]]:
    static = [v if isinstance(v, int) else DYNAMIC_INDEX for v in values]
    return static, [v for v in values if not isinstance(v, int)]


class ExpandSubview(RewritePattern):
    """`memref.subview` -> `extract_strided_metadata` + `reinterpret_cast`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not isinstance(op, memref.SubviewOp):
            return
        src_t = op.source.type
        res_t = op.result.type
        assert isinstance(src_t, MemRefType) and isinstance(res_t, MemRefType)
        try:
            static_strides, static_offset = strides_and_offset(src_t)
        except ValueError:
            return
        meta = memref.ExtractStridedMetaDataOp(op.source)
        rewriter.insert(meta, InsertPoint.before(op))
        rank = src_t.get_num_dims()
        strides: list[Mixed] = [
            s if s is not None else meta.strides[i] for i, s in enumerate(static_strides)
        ]
        calc = _Arith(rewriter, op)
        offset: Mixed = static_offset if static_offset is not None else meta.offset
        static_sizes = [int(v) for v in op.static_sizes.get_values()]
        offsets = _mixed([int(v) for v in op.static_offsets.get_values()], op.offsets)
        sizes = _mixed(static_sizes, op.sizes)
        steps = _mixed([int(v) for v in op.static_strides.get_values()], op.strides)
        dropped = dropped_subview_dims(static_sizes, list(res_t.get_shape()))
        new_sizes: list[Mixed] = []
        new_strides: list[Mixed] = []
        for i in range(rank):
            offset = calc.add(offset, calc.mul(offsets[i], strides[i]))
            if i not in dropped:
                new_sizes.append(sizes[i])
                new_strides.append(calc.mul(strides[i], steps[i]))
        off_static, off_dyn = _split([offset])
        size_static, size_dyn = _split(new_sizes)
        stride_static, stride_dyn = _split(new_strides)
        cast = memref.ReinterpretCastOp.build(
            operands=[meta.base_buffer, off_dyn, size_dyn, stride_dyn],
            result_types=[res_t],
            properties={
                "static_offsets": DenseArrayBase.from_list(i64, off_static),
                "static_sizes": DenseArrayBase.from_list(i64, size_static),
                "static_strides": DenseArrayBase.from_list(i64, stride_static),
            },
        )
        rewriter.replace(op, cast)


@register_pass
@dataclass(frozen=True)
class ExpandStridedMetadataPass(ModulePass):
    """Expand memref operations into easier to analyze constructs."""

    name = "expand-strided-metadata"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(ExpandSubview(), apply_recursively=False).rewrite_module(op)
