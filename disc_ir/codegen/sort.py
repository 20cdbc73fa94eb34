"""The sort schedule: `lmhlo.sort` as a stable bottom-up merge sort per row.

BladeDISC has no loop lowering of `lmhlo.sort` (only the GPU `topk` custom call
reaching `ral_dsort`); XLA's CPU backend calls a runtime sort with the
comparator compiled as a function. Here the comparator region (mhlo ops on
rank-0 tensors, kept by `hlo-legalize-to-lhlo`) is evaluated on scalars
(`disc_ir.codegen.hlo_body`) inside the loops, so any comparator JAX emits
(the NaN / -0 canonicalizing total order of `jnp.sort`, `argsort`'s
key + iota pair, `top_k`'s GT) sorts exactly as XLA does.

`lower_sort(op, parallel_loop=...)` emits, before `op`:

* one scratch buffer per output (`memref.alloc` of the output's type), freed
  after the loops;
* a loop over every row -- every index but `dimension` -- (a multi-dimensional
  `scf.parallel`; an `scf.for` over the linear row index with
  `parallel_loop=False`), whose body
  - copies the inputs' row into the outputs (not when sorting in place),
  - runs the passes of a bottom-up merge sort two at a time (outputs ->
    scratch with run width `w`, scratch -> outputs with `2w`; `w *= 4`
    while `w < n`), so the row ends in the outputs after `ceil(log2 n)`
    rounded up to even passes. A merge writes position `k` from the left run
    unless the right run's element compares less (`comparator(right,
    left)`): equal keys keep their order, the sort is stable whether or not
    `is_stable` asks for it. The comparator reads every operand pair
    (lhs_0, rhs_0, lhs_1, rhs_1, ...) as mhlo's sort does; run indices are
    clamped so every load stays inside the row.

`op` is erased. Comparators the scalar evaluator does not cover raise
`LoweringError` naming the op.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IntegerAttr, MemRefType, NoneAttr
from xdsl.ir import Operation, SSAValue

from disc_ir.codegen import elemental
from disc_ir.codegen.common import LoweringError, erase_ops, for_loop, parallel
from disc_ir.codegen.elemental import Builder
from disc_ir.codegen.hlo_body import (
    body_is_supported,
    erase_dead_captures,
    evaluate_hlo_body,
    read_captures,
)
from disc_ir.codegen.loop_utils import DYNAMIC, new_if, shape_values
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.types import memref_type

#: Merge passes run in pairs; 32 pairs cover every row length below 2**62.
_MAX_PASS_PAIRS = 32


def sort_dimension(op: Operation) -> int:
    """`dimension` of `lmhlo.sort` (negative values count from the back)."""
    attr = inherent_attr(op, "dimension")
    rank = elemental.rank_of(op.operands[0])
    if not isinstance(attr, IntegerAttr):
        raise LoweringError("lmhlo.sort without a 'dimension' attribute")
    dim = attr.value.data
    if dim < 0:
        dim += rank
    if not 0 <= dim < rank:
        raise LoweringError(f"lmhlo.sort dimension {attr.value.data} out of range for rank {rank}")
    return dim


def _alloc_like(b: Builder, buffer: SSAValue, shape: Sequence[SSAValue]) -> SSAValue:
    t = buffer.type
    assert isinstance(t, MemRefType)
    static = t.get_shape()
    dynamic = [shape[d] for d, size in enumerate(static) if size == DYNAMIC]
    scratch_type = memref_type(t.element_type, static, NoneAttr(), t.memory_space)
    return b.create(memref.AllocOp(dynamic, [], scratch_type)).memref


def _min(b: Builder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return b.create(arith.MinSIOp(lhs, rhs)).result


def _at(row: Sequence[SSAValue], dim: int, position: SSAValue) -> list[SSAValue]:
    index = list(row)
    index[dim] = position
    return index


class _Row:
    """The emission context of one row: its index, the sort dimension, the comparator."""

    def __init__(
        self,
        op: Operation,
        row: Sequence[SSAValue],
        dim: int,
        size: SSAValue,
        captures: dict[SSAValue, SSAValue],
    ) -> None:
        self.op = op
        self.row = list(row)
        self.dim = dim
        self.size = size
        self.captures = captures

    def at(self, position: SSAValue) -> list[SSAValue]:
        return _at(self.row, self.dim, position)

    def copy(self, b: Builder, src: Sequence[SSAValue], dst: Sequence[SSAValue]) -> None:
        loop, body = for_loop(b, b.index(0), self.size, b.index(1))
        index = self.at(loop.body.block.args[0])
        for s, d in zip(src, dst, strict=True):
            value = elemental.create_load(body, s, index)
            body.create(memref.StoreOp.get(value, d, index))

    def merge_pass(
        self, b: Builder, src: Sequence[SSAValue], dst: Sequence[SSAValue], width: SSAValue
    ) -> None:
        """Merge the adjacent runs of `width` elements of `src` into `dst`."""
        one = b.index(1)
        two_w = b.addi(width, width)
        chunks, cb = for_loop(b, b.index(0), self.size, two_w)
        lo = chunks.body.block.args[0]
        mid = _min(cb, cb.addi(lo, width), self.size)
        hi = _min(cb, cb.addi(lo, two_w), self.size)
        mid_last = cb.create(arith.SubiOp(mid, one)).result
        hi_last = cb.create(arith.SubiOp(hi, one)).result
        merge = elemental.new_for(cb, lo, hi, one, [lo, mid])
        mb = elemental.at_end(merge.body.block)
        k, i, j = merge.body.block.args
        left_at = self.at(_min(mb, i, mid_last))
        right_at = self.at(_min(mb, j, hi_last))
        left = [elemental.create_load(mb, s, left_at) for s in src]
        right = [elemental.create_load(mb, s, right_at) for s in src]
        args: list[SSAValue] = []
        for r, lft in zip(right, left, strict=True):
            args += [r, lft]
        (less,) = evaluate_hlo_body(mb, self.op.regions[0], args, self.captures)
        right_ok = mb.create(arith.CmpiOp(j, hi, "slt")).result
        left_done = mb.create(arith.CmpiOp(i, mid, "sge")).result
        take_right = mb.create(arith.OrIOp(left_done, less)).result
        take_right = mb.create(arith.AndIOp(right_ok, take_right)).result
        out_at = self.at(k)
        for r, lft, d in zip(right, left, dst, strict=True):
            value = mb.create(arith.SelectOp(take_right, r, lft)).result
            mb.create(memref.StoreOp.get(value, d, out_at))
        next_i = mb.create(arith.SelectOp(take_right, i, mb.addi(i, one))).result
        next_j = mb.create(arith.SelectOp(take_right, mb.addi(j, one), j)).result
        mb.create(scf.YieldOp(next_i, next_j))

    def sort(self, b: Builder, outputs: Sequence[SSAValue], scratch: Sequence[SSAValue]) -> None:
        """Merge passes in pairs (outputs -> scratch -> outputs) while the run
        width is below the row length."""
        pairs = elemental.new_for(b, b.index(0), b.index(_MAX_PASS_PAIRS), b.index(1), [b.index(1)])
        pb = elemental.at_end(pairs.body.block)
        width = pairs.body.block.args[1]
        unsorted = pb.create(arith.CmpiOp(width, self.size, "slt")).result
        if_op = pb.create(new_if(unsorted))
        then_yield = if_op.true_region.block.last_op
        assert then_yield is not None
        tb = Builder.before(then_yield)
        self.merge_pass(tb, outputs, scratch, width)
        self.merge_pass(tb, scratch, outputs, tb.addi(width, width))
        four_w = pb.create(arith.ShLIOp(width, pb.index(2))).result
        pb.create(scf.YieldOp(four_w))


def lower_sort(op: Operation, *, parallel_loop: bool = True) -> None:
    """Emit `lmhlo.sort` `op` as loops before it and erase it (see the module doc)."""
    n = len(op.operands) // 2
    if n == 0 or len(op.operands) != 2 * n:
        raise LoweringError("lmhlo.sort needs as many outputs as inputs")
    inputs, outputs = list(op.operands[:n]), list(op.operands[n:])
    why = body_is_supported(op.regions[0])
    if why is not None:
        raise LoweringError(f"the comparator of lmhlo.sort is not supported: {why}")
    dim = sort_dimension(op)
    rank = elemental.rank_of(outputs[0])
    b = Builder.before(op)
    zero = b.index(0)
    one = b.index(1)
    shape = shape_values(b, outputs[0])
    scratch = [_alloc_like(b, out, shape) for out in outputs]
    rows = list(shape)
    rows[dim] = one
    loop: scf.ParallelOp | scf.ForOp
    if parallel_loop:
        loop, body = parallel(b, [zero] * rank, rows, [one] * rank)
        row: list[SSAValue] = list(loop.body.block.args)
    else:
        count = one
        for extent in rows:
            count = b.muli(count, extent)
        loop, body = for_loop(b, zero, count, one)
        row = elemental.delinearize(body, loop.body.block.args[0], rows)
    captures = read_captures(body, op.regions[0])
    row_ctx = _Row(op, row, dim, shape[dim], captures)
    copies = [
        (src, dst)
        for src, dst in zip(inputs, outputs, strict=True)
        if not elemental.same_underlying_buffer(src, dst)
    ]
    if copies:
        row_ctx.copy(body, [s for s, _ in copies], [d for _, d in copies])
    row_ctx.sort(body, outputs, scratch)
    after = elemental.after(loop)
    for buffer in reversed(scratch):
        after.create(memref.DeallocOp.get(buffer))
    erase_ops([op])
    erase_dead_captures(captures)  # the body's tensor views of captured buffers


__all__ = ["lower_sort", "sort_dimension"]
