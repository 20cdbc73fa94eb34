"""The row-reduction (kRowReduction) schedules on GPU: warp shuffles.

BladeDISC's `lowerWithScheduleRowReduction<DISC_BLOCK_WISE_ROW_REDUCE>` and
`<DISC_WARP_WISE_ROW_REDUCE>` (`lhlo_legalize_roots_to_loops.cc`). The
dominant op is a rank-2 row reduce `in[rows, cols] -> out[rows]`; the loop
nest is a 2-D `scf.parallel` (block, thread) emitted before the last root.
`T` = `disc_cta_size_hint` (default 256) threads per block, `v` =
`disc_vectorize_or_tile_hint` rows per block / warp (the speculation pass
only emits `v > 1` when `rows % v == 0`).

Schedule 1 (`disc_row_reduction_schedule_hint = 1`, the default): one block
per `v` rows, two rounds of warp shuffle::

    scf.parallel (%m, %n) = (0, 0) to (rows / v, T) step (1, 1) {
      lane = n % 32; warp = n / 32
      %init = memref.load %init[]
      %smem = memref.alloc() : memref<32xT', #gpu.address_space<workgroup>>  // per root, per row
      acc = scf.for %j = %n to cols step T iter_args(init) { acc op in[m*v+i, j] }
      round 1: acc = acc op shuffle xor (acc, 1, 2, 4, 8, 16; width 32)
               if lane == 0: smem[warp] = acc
      gpu.barrier
      x = lane < T/32 ? smem[lane] : init
      round 2: x = x op shuffle xor (x, 1, 2, ... < T/32; width T/32)
      if n == 0: out[m*v+i] = x        // assume_alignment of out for v > 1
    }

Schedule 2 (`= 2`): one warp per `v` rows, one round of shuffle::

    scf.parallel (%m, %n) = (0, 0) to (rows, T) step (T/32*v, 1) {
      lane = n % 32; warp = n / 32; row_i = m + warp*v + i
      if row_0 < rows {
        acc = scf.for %k = lane to cols step 32 iter_args(init) { ... }
        acc = acc op shuffle xor (acc, 1, 2, 4, 8, 16; width 32)
        if lane == 0: out[row_i] = acc
      }
    }

Every root is emitted in the in-thread loop (`emitInThreadReduction`): other
rank-2 row reduces accumulate alongside the dominant one; rank-2 column
reduces add their element atomically (`memref.atomic_rmw`) into the output
the init loop (`gpu_col_reduction.emit_init_loops`) filled; higher-rank
reduces do so at their own output index; any other root writes its element
at the linear index of `in[row, j]` (`lowerHelper`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, memref, scf
from xdsl.ir import Attribute, Operation, SSAValue

from disc_ir.codegen import codegen_hints, elemental
from disc_ir.codegen.common import LoweringError, lower_root, parallel
from disc_ir.codegen.elemental import Builder
from disc_ir.codegen.gpu_common import (
    WARP_SIZE,
    align,
    atomic_accumulate,
    barrier,
    extend_to_shuffle_type,
    i32_const,
    reduce_element_type,
    shared_memory,
    shuffle,
    shuffle_element_type,
    truncate_from_shuffle_type,
    warp_all_reduce,
)
from disc_ir.codegen.loop_utils import new_if, shape_values
from disc_ir.dialects.upstream.scf import IfOp
from disc_ir.fusion.pattern import is_rank2_col_reduction, is_rank2_row_reduction

BLOCK_WISE = codegen_hints.BLOCK_WISE_ROW_REDUCE
WARP_WISE = codegen_hints.WARP_WISE_ROW_REDUCE


def _cmpi(b: Builder, pred: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return b.create(arith.CmpiOp(lhs, rhs, pred)).result


def _divui(b: Builder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return b.create(arith.DivUIOp(lhs, rhs)).result


def _remui(b: Builder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return b.create(arith.RemUIOp(lhs, rhs)).result


def _dim(b: Builder, value: SSAValue, d: int) -> SSAValue:
    return b.create(memref.DimOp(value, b.index(d))).result


def if_then(b: Builder, cond: SSAValue) -> tuple[IfOp, Builder]:
    """`scf.if %cond` without results or else; returns it and a builder in `then`."""
    op = b.create(new_if(cond))
    terminator = op.true_region.block.last_op
    assert terminator is not None
    return op, Builder.before(terminator)


def if_else(
    b: Builder, cond: SSAValue, types: Sequence[Attribute]
) -> tuple[IfOp, Builder, Builder]:
    """`scf.if %cond -> (types)` with empty then / else blocks (the caller yields)."""
    op = elemental.new_if_with_results(b, cond, list(types))
    return op, Builder.at_end(op.true_region.block), Builder.at_end(op.false_region.block)


def for_with_args(
    b: Builder, lb: SSAValue, ub: SSAValue, step: SSAValue, init: Sequence[SSAValue]
) -> tuple[scf.ForOp, Builder]:
    """`scf.for` carrying `init`; the caller yields at the returned builder."""
    loop = elemental.new_for(b, lb, ub, step, list(init))
    return loop, Builder.at_end(loop.body.block)


def emit_in_thread_reduction(
    b: Builder,
    roots: Sequence[Operation],
    accs: Sequence[SSAValue],
    input_index: Sequence[SSAValue],
    col_index: SSAValue,
    dominant: Operation,
) -> list[SSAValue]:
    """One step of the in-thread loop for every root (`emitInThreadReduction`):
    returns the new accumulators of the rank-2 row reduces, in order."""
    new_accs: list[SSAValue] = []
    k = 0
    for root in roots:
        if is_rank2_row_reduction(root):
            data = elemental.load(b, root.operands[0], input_index, check_cache=True)
            new_accs.append(elemental.accumulator(root)(b, accs[k], data))
            k += 1
        elif is_rank2_col_reduction(root):
            data = elemental.load(b, root.operands[0], input_index, check_cache=True)
            atomic_accumulate(b, root, data, [col_index])
        elif root.name == "lmhlo.reduce":
            dom_shape = shape_values(b, dominant.operands[0])
            linear = elemental.linearize(b, input_index, dom_shape)
            emit_not_to_vector_reduction(b, root, linear)
        else:
            dom_shape = shape_values(b, dominant.operands[0])
            linear = elemental.linearize(b, input_index, dom_shape)
            lower_root(b, root, linear)
    return new_accs


def emit_not_to_vector_reduction(b: Builder, root: Operation, linear: SSAValue) -> None:
    """Atomically accumulate the input element of a (rank > 2) reduce at
    `linear` into its output (`emitNotToVectorReduction`)."""
    inp = root.operands[0]
    if elemental.rank_of(inp) <= 2 or len(root.operands) != 3:
        raise LoweringError(
            "unexpected reduce root: only rank-2 row / column reductions or "
            "single-output reductions of rank > 2 can share a reduction schedule"
        )
    index = elemental.multi_dim_index(b, linear, inp)
    data = elemental.load(b, inp, index, check_cache=True)
    dims = set(elemental.reduce_dims(root))
    out_index = [v for d, v in enumerate(index) if d not in dims]
    atomic_accumulate(b, root, data, out_index)


def _check_dominant(dominant: Operation) -> None:
    if not is_rank2_row_reduction(dominant):
        raise LoweringError("the GPU row-reduction schedule expects a rank-2 row reduction")


def lower_row_reduction_warp_wise(
    roots: Sequence[Operation], dominant: Operation, vector_size: int = 1
) -> Operation:
    """Schedule 2: one warp per `vector_size` rows, one round of shuffle."""
    _check_dominant(dominant)
    row_roots = [r for r in roots if is_rank2_row_reduction(r)]
    threads_per_block = codegen_hints.thread_per_block(dominant)
    if threads_per_block % WARP_SIZE or threads_per_block <= 0:
        raise LoweringError(f"threads per block ({threads_per_block}) must be a multiple of 32")
    b = Builder.before(roots[-1])
    lhs = dominant.operands[0]
    zero = b.index(0)
    one = b.index(1)
    rows = _dim(b, lhs, 0)
    cols = _dim(b, lhs, 1)
    threads = b.index(threads_per_block)
    warp_size = b.index(WARP_SIZE)
    row_per_block = b.index(threads_per_block // WARP_SIZE * vector_size)
    loop, pb = parallel(b, [zero, zero], [rows, threads], [row_per_block, one])
    var_m, var_n = loop.body.block.args
    lane_id = _remui(pb, var_n, warp_size)
    warp_id = _divui(pb, var_n, warp_size)
    vec = pb.index(vector_size)
    row_base = pb.addi(var_m, pb.muli(warp_id, vec))
    row_ids = [pb.addi(row_base, pb.index(i)) for i in range(vector_size)]
    valid = _cmpi(pb, "ult", row_ids[0], rows)
    _, tb = if_then(pb, valid)
    n_roots = len(row_roots)
    init_values: list[SSAValue] = [None] * (n_roots * vector_size)  # type: ignore[list-item]  # every slot is filled below before use
    for idx, root in enumerate(row_roots):
        init = elemental.create_load(tb, root.operands[1], [])
        for i in range(vector_size):
            init_values[i * n_roots + idx] = init
    for_k, kb = for_with_args(tb, lane_id, cols, warp_size, init_values)
    var_k = for_k.body.block.args[0]
    iter_args = list(for_k.body.block.args[1:])
    yields: list[SSAValue] = []
    for i in range(vector_size):
        yields += emit_in_thread_reduction(
            kb,
            roots,
            iter_args[i * n_roots : (i + 1) * n_roots],
            [row_ids[i], var_k],
            var_k,
            dominant,
        )
    kb.create(scf.YieldOp(*yields))
    sums: list[SSAValue] = list(for_k.results)
    for root in row_roots:
        shuffle_element_type(reduce_element_type(root))  # rejects unsupported types
    sums = _interleaved_warp_reduce(tb, row_roots, sums, vector_size, WARP_SIZE)
    lane_zero = _cmpi(tb, "eq", lane_id, zero)
    _, zb = if_then(tb, lane_zero)
    for idx, root in enumerate(row_roots):
        out = root.operands[-1]
        if vector_size > 1:
            align(zb, out, vector_size)
        for i in range(vector_size):
            zb.create(memref.StoreOp.get(sums[i * n_roots + idx], out, [row_ids[i]]))
    return loop


def _interleaved_warp_reduce(
    b: Builder,
    row_roots: Sequence[Operation],
    values: list[SSAValue],
    vector_size: int,
    width: int,
) -> list[SSAValue]:
    """Shuffle-reduce `values` (indexed `i * len(row_roots) + root`) over
    `width` lanes, offset by offset, all values of an offset together."""
    n_roots = len(row_roots)
    accs = [elemental.accumulator(r) for r in row_roots]
    out = list(values)
    width_val = i32_const(b, width)
    offset = 1
    while offset < width:
        offset_val = i32_const(b, offset)
        for idx in range(n_roots):
            for i in range(vector_size):
                k = i * n_roots + idx
                out[k] = accs[idx](b, out[k], shuffle(b, out[k], offset_val, width_val))
        offset <<= 1
    return out


def lower_row_reduction_block_wise(
    roots: Sequence[Operation], dominant: Operation, vector_size: int = 1
) -> Operation:
    """Schedule 1: one block per `vector_size` rows, two rounds of shuffle."""
    _check_dominant(dominant)
    threads_per_block = codegen_hints.thread_per_block(dominant)
    if threads_per_block % WARP_SIZE or threads_per_block <= 0:
        raise LoweringError(f"threads per block ({threads_per_block}) must be a multiple of 32")
    num_warps = threads_per_block // WARP_SIZE
    b = Builder.before(roots[-1])
    lhs = dominant.operands[0]
    zero = b.index(0)
    one = b.index(1)
    shape_h = _dim(b, lhs, 0)
    shape_w = _dim(b, lhs, 1)
    num_threads = b.index(threads_per_block)
    row_roots = [r for r in roots if is_rank2_row_reduction(r)]
    n_roots = len(row_roots)
    warp_size = b.index(WARP_SIZE)
    vec = b.index(vector_size)
    num_blocks = _divui(b, shape_h, vec)
    loop, pb = parallel(b, [zero, zero], [num_blocks, num_threads], [one, one])
    var_m, var_n = loop.body.block.args
    lane_id = _remui(pb, var_n, warp_size)
    warp_id = _divui(pb, var_n, warp_size)
    lane_zero = _cmpi(pb, "eq", lane_id, zero)
    thread_zero = _cmpi(pb, "eq", var_n, zero)

    init_values: list[SSAValue] = [None] * (n_roots * vector_size)  # type: ignore[list-item]  # every slot is filled below before use
    inits: list[SSAValue] = []
    smem: list[list[SSAValue]] = [[] for _ in range(vector_size)]
    for idx, root in enumerate(row_roots):
        init = elemental.create_load(pb, root.operands[1], [])
        inits.append(init)
        for i in range(vector_size):
            init_values[i * n_roots + idx] = init
        stype = shuffle_element_type(reduce_element_type(root))
        for i in range(vector_size):
            smem[i].append(shared_memory(pb, WARP_SIZE, stype))

    row_base = pb.muli(var_m, vec)
    row_ids = [pb.addi(row_base, pb.index(i)) for i in range(vector_size)]
    for_j, jb = for_with_args(pb, var_n, shape_w, num_threads, init_values)
    var_j = for_j.body.block.args[0]
    iter_args = list(for_j.body.block.args[1:])
    yields: list[SSAValue] = []
    for i in range(vector_size):
        yields += emit_in_thread_reduction(
            jb,
            roots,
            iter_args[i * n_roots : (i + 1) * n_roots],
            [row_ids[i], var_j],
            var_j,
            dominant,
        )
    jb.create(scf.YieldOp(*yields))

    # Round one: reduce within each warp, lane 0 writes the warp's partial sum.
    results: list[SSAValue] = list(for_j.results)
    for idx, root in enumerate(row_roots):
        values = [results[i * n_roots + idx] for i in range(vector_size)]
        values = warp_all_reduce(pb, values, elemental.accumulator(root), WARP_SIZE)
        _, zb = if_then(pb, lane_zero)
        stype = shuffle_element_type(reduce_element_type(root))
        for i in range(vector_size):
            value = extend_to_shuffle_type(zb, values[i], stype)
            zb.create(memref.StoreOp.get(value, smem[i][idx], [warp_id]))
    barrier(pb)

    # Round two: the first `num_warps` lanes reduce the partial sums.
    elem_types = [reduce_element_type(r) for r in row_roots]
    types = [elem_types[k % n_roots] for k in range(n_roots * vector_size)]
    inbound = _cmpi(pb, "slt", lane_id, pb.index(num_warps))
    if_op, tb, eb = if_else(pb, inbound, types)
    loaded: list[SSAValue] = [None] * (n_roots * vector_size)  # type: ignore[list-item]  # every slot is filled below before use
    for idx in range(n_roots):
        for i in range(vector_size):
            value = elemental.create_load(tb, smem[i][idx], [lane_id])
            loaded[i * n_roots + idx] = truncate_from_shuffle_type(tb, value, elem_types[idx])
    tb.create(scf.YieldOp(*loaded))
    eb.create(scf.YieldOp(*[inits[k % n_roots] for k in range(n_roots * vector_size)]))
    partial: list[SSAValue] = list(if_op.results)
    for idx, root in enumerate(row_roots):
        values = [partial[i * n_roots + idx] for i in range(vector_size)]
        values = warp_all_reduce(pb, values, elemental.accumulator(root), num_warps)
        _, zb = if_then(pb, thread_zero)
        out = root.operands[-1]
        if vector_size > 1:
            align(zb, out, vector_size)
        for i in range(vector_size):
            zb.create(memref.StoreOp.get(values[i], out, [row_ids[i]]))
    return loop


def lower_row_reduction_gpu(
    roots: Sequence[Operation], dominant: Operation, schedule: int, vector_size: int
) -> Operation:
    """Emit a GPU kRowReduction fusion by `schedule` (2: warp-wise, else block-wise)."""
    if vector_size < 1:
        raise LoweringError(f"invalid disc_vectorize_or_tile_hint {vector_size}")
    if schedule == WARP_WISE:
        return lower_row_reduction_warp_wise(roots, dominant, vector_size)
    return lower_row_reduction_block_wise(roots, dominant, vector_size)


__all__ = [
    "emit_in_thread_reduction",
    "emit_not_to_vector_reduction",
    "if_else",
    "if_then",
    "lower_row_reduction_block_wise",
    "lower_row_reduction_gpu",
    "lower_row_reduction_warp_wise",
]
