"""The column-reduction (kColReduction) schedules on GPU: tiles and atomics.

BladeDISC's `lowerWithScheduleColReduction<512, 32>`,
`lowerWithScheduleColReductionTileH<32, 8, 64>` and `emitInitLoops`
(`lhlo_legalize_roots_to_loops.cc`). The dominant op is a rank-2 column
reduce `in[rows, cols] -> out[cols]`. Partial results are combined with
`memref.atomic_rmw` into the output, so the output is first filled with the
init value by a separate loop (`emit_init_loops`, one `scf.parallel` over
the output elements for every rank-2 column reduce among the roots --
BladeDISC emits it for any GPU fusion with such roots):

    scf.parallel (%i) = (0) to (num_elements(out)) step (1) {
      %idx = "disc_shape.delinearize"(%i, %d0) ; out[%idx] = init
    }

`disc_col_reduction_schedule_hint` picks the tile (`DISC_THREAD_TILE_H32`
= 7, the default, or `DISC_BLOCK_TILE_H64` = 8):

* thread tile (512 threads per block, 32 rows per thread)::

    scf.parallel (%m, %n) = (0, 0) to (ceil(cols/512) * ceil(rows/32), 512) step (1, 1) {
      col = (m % ceil(cols/512)) * 512 + n
      acc = col < cols ? (scf.for %l = 0 to 32 iter_args(init) {
                            row = (m / ceil(cols/512)) * 32 + l
                            row < rows ? acc op in[row, col] : acc }) : init
      if col < cols: memref.atomic_rmw <op> acc, out[col]
    }

* block tile (32 x 8 threads, 64 rows per thread, a tree reduction of the
  8 partial sums of a column in shared memory)::

    scf.parallel (%m, %n) = (0, 0) to (ceil(cols/32) * ceil(rows/512), 256) step (1, 1) {
      tr = n / 32; tc = n % 32; s = tr + tc * 8; col = tc + (m % ceil(cols/32)) * 32
      %smem = memref.alloc() : memref<256xT, #gpu.address_space<workgroup>>
      acc = col < cols ? (scf.for %l = 0 to 64 ... row = l + 64 * (tr + (m / ceil(cols/32)) * 8)) : init
      smem[s] = acc
      for stride in 4, 2, 1: gpu.barrier; if tr < stride: smem[s] = smem[s] op smem[s + stride]
      gpu.barrier
      if tr == 0 and col < cols: memref.atomic_rmw <op> smem[s], out[col]
    }

Other roots are emitted in the row loop: further rank-2 column reduces
accumulate alongside, higher-rank reduces atomically at their own output
index, any other root writes its element at the linear index of
`in[row, col]` (`lowerHelper`); a rank-2 row reduce is an error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, memref, scf
from xdsl.ir import Operation, SSAValue

from disc_ir.codegen import elemental
from disc_ir.codegen.common import LoweringError, lower_root, parallel
from disc_ir.codegen.elemental import Builder
from disc_ir.codegen.gpu_common import (
    atomic_accumulate,
    barrier,
    reduce_element_type,
    shared_memory,
)
from disc_ir.codegen.gpu_row_reduction import (
    emit_not_to_vector_reduction,
    for_with_args,
    if_else,
    if_then,
)
from disc_ir.codegen.loop_utils import shape_values
from disc_ir.fusion.pattern import is_rank2_col_reduction, is_rank2_row_reduction

#: `disc_col_reduction_schedule_hint` values (BladeDISC's `DiscColReductionScheduleType`).
THREAD_TILE_H32 = 7
BLOCK_TILE_H64 = 8


def _dim(b: Builder, value: SSAValue, d: int) -> SSAValue:
    return b.create(memref.DimOp(value, b.index(d))).result


def _binary(b: Builder, cls: type, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return b.create(cls(lhs, rhs)).result


def _cmpi(b: Builder, pred: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return b.create(arith.CmpiOp(lhs, rhs, pred)).result


def col_reduction_roots(roots: Sequence[Operation]) -> list[Operation]:
    """The rank-2 column reduces among `roots`, in order."""
    return [r for r in roots if is_rank2_col_reduction(r)]


def emit_init_loops(roots: Sequence[Operation]) -> None:
    """Fill the output of every rank-2 column reduce among `roots` with its init
    value, before the last root (`maybeEmitInitLoops`)."""
    col_roots = col_reduction_roots(roots)
    if not col_roots:
        return
    b = Builder.before(roots[-1])
    zero = b.index(0)
    one = b.index(1)
    total = elemental.num_elements(b, col_roots[0].operands[-1])
    loop, body = parallel(b, [zero], [total], [one])
    var = loop.body.block.args[0]
    for reduce in col_roots:
        out = reduce.operands[-1]
        index = elemental.multi_dim_index(body, var, out)
        init = elemental.create_load(body, reduce.operands[1], [])
        body.create(memref.StoreOp.get(init, out, index))


def _emit_row_step(
    b: Builder,
    roots: Sequence[Operation],
    accs: Sequence[SSAValue],
    index: list[SSAValue],
    dominant: Operation,
) -> list[SSAValue]:
    """The body of the row loop for every root; returns the new accumulators."""
    new_accs: list[SSAValue] = []
    k = 0
    for root in roots:
        if is_rank2_col_reduction(root):
            data = elemental.load(b, root.operands[0], index, check_cache=True)
            new_accs.append(elemental.accumulator(root)(b, accs[k], data))
            k += 1
        elif is_rank2_row_reduction(root):
            raise LoweringError("unexpected row reduction in a column-reduction fusion")
        elif root.name == "lmhlo.reduce":
            linear = elemental.linearize(b, index, shape_values(b, dominant.operands[0]))
            emit_not_to_vector_reduction(b, root, linear)
        else:
            linear = elemental.linearize(b, index, shape_values(b, dominant.operands[0]))
            lower_root(b, root, linear)
    return new_accs


def _tile_loop(
    b: Builder,
    roots: Sequence[Operation],
    dominant: Operation,
    inits: list[SSAValue],
    tile_h: SSAValue,
    row_of: Callable[[Builder, SSAValue], SSAValue],
    col_index: SSAValue,
    rows: SSAValue,
    is_lt_cols: SSAValue,
) -> list[SSAValue]:
    """`col < cols ? (for l < tile_h: row < rows ? step : acc) : init` -- the
    accumulators of one thread's column tile."""
    types = [v.type for v in inits]
    if_cols, cb, ceb = if_else(b, is_lt_cols, types)
    zero = cb.index(0)
    one = cb.index(1)
    loop, lb = for_with_args(cb, zero, tile_h, one, inits)
    var_l = loop.body.block.args[0]
    accs = list(loop.body.block.args[1:])
    row_index = row_of(lb, var_l)
    is_lt_rows = _cmpi(lb, "slt", row_index, rows)
    if_rows, rb, reb = if_else(lb, is_lt_rows, types)
    rb.create(scf.YieldOp(*_emit_row_step(rb, roots, accs, [row_index, col_index], dominant)))
    reb.create(scf.YieldOp(*accs))
    lb.create(scf.YieldOp(*if_rows.results))
    cb.create(scf.YieldOp(*loop.results))
    ceb.create(scf.YieldOp(*inits))
    return list(if_cols.results)


def _check(dominant: Operation) -> None:
    if not is_rank2_col_reduction(dominant):
        raise LoweringError("the GPU column-reduction schedule expects a rank-2 column reduction")


def lower_col_reduction_thread_tile(
    roots: Sequence[Operation], dominant: Operation, threads: int = 512, tile: int = 32
) -> Operation:
    """`lowerWithScheduleColReduction<threads, tile>`: each thread reduces
    `tile` rows of one column and adds its result atomically."""
    _check(dominant)
    col_roots = col_reduction_roots(roots)
    lhs = dominant.operands[0]
    b = Builder.before(roots[-1])
    zero = b.index(0)
    one = b.index(1)
    rows = _dim(b, lhs, 0)
    cols = _dim(b, lhs, 1)
    var_threads = b.index(threads)
    var_tile_h = b.index(tile)
    blocks_col = _binary(b, arith.CeilDivUIOp, cols, var_threads)
    blocks_row = _binary(b, arith.CeilDivUIOp, rows, var_tile_h)
    blocks = b.muli(blocks_col, blocks_row)
    loop, pb = parallel(b, [zero, zero], [blocks, var_threads], [one, one])
    var_m, var_n = loop.body.block.args
    inits = [elemental.create_load(pb, r.operands[1], []) for r in col_roots]
    block_row = _binary(pb, arith.DivUIOp, var_m, blocks_col)
    block_col = _binary(pb, arith.RemUIOp, var_m, blocks_col)
    col_index = pb.addi(pb.muli(block_col, var_threads), var_n)
    is_lt_cols = _cmpi(pb, "ult", col_index, cols)

    def row_of(lb: Builder, var_l: SSAValue) -> SSAValue:
        return lb.addi(lb.muli(block_row, var_tile_h), var_l)

    accs = _tile_loop(pb, roots, dominant, inits, var_tile_h, row_of, col_index, rows, is_lt_cols)
    _, vb = if_then(pb, is_lt_cols)
    for reduce, acc in zip(col_roots, accs, strict=True):
        atomic_accumulate(vb, reduce, acc, [col_index])
    return loop


def lower_col_reduction_block_tile(
    roots: Sequence[Operation],
    dominant: Operation,
    threads_col: int = 32,
    threads_row: int = 8,
    tile: int = 64,
) -> Operation:
    """`lowerWithScheduleColReductionTileH<threads_col, threads_row, tile>`:
    `threads_row` threads per column each reduce `tile` rows, then a tree
    reduction in shared memory and one atomic per column and block."""
    _check(dominant)
    col_roots = col_reduction_roots(roots)
    lhs = dominant.operands[0]
    b = Builder.before(roots[-1])
    zero = b.index(0)
    one = b.index(1)
    rows = _dim(b, lhs, 0)
    cols = _dim(b, lhs, 1)
    n_threads_col = b.index(threads_col)
    n_threads_row = b.index(threads_row)
    var_tile_h = b.index(tile)
    n_tile_row = b.index(threads_row * tile)
    var_threads = b.index(threads_col * threads_row)
    blocks_col = _binary(b, arith.CeilDivUIOp, cols, n_threads_col)
    blocks_row = _binary(b, arith.CeilDivUIOp, rows, n_tile_row)
    blocks = b.muli(blocks_col, blocks_row)
    loop, pb = parallel(b, [zero, zero], [blocks, var_threads], [one, one])
    var_m, var_n = loop.body.block.args
    inits = [elemental.create_load(pb, r.operands[1], []) for r in col_roots]
    accumulators = [elemental.accumulator(r) for r in col_roots]
    block_row = _binary(pb, arith.DivUIOp, var_m, blocks_col)
    block_col = _binary(pb, arith.RemUIOp, var_m, blocks_col)
    thread_row = _binary(pb, arith.DivUIOp, var_n, n_threads_col)
    thread_col = _binary(pb, arith.RemUIOp, var_n, n_threads_col)
    shm_index = pb.addi(thread_row, pb.muli(thread_col, n_threads_row))
    col_index = pb.addi(thread_col, pb.muli(block_col, n_threads_col))
    smem = [shared_memory(pb, threads_col * threads_row, reduce_element_type(r)) for r in col_roots]
    is_lt_cols = _cmpi(pb, "ult", col_index, cols)

    def row_of(lb: Builder, var_l: SSAValue) -> SSAValue:
        local_row = lb.addi(thread_row, lb.muli(block_row, n_threads_row))
        return lb.addi(var_l, lb.muli(var_tile_h, local_row))

    accs = _tile_loop(pb, roots, dominant, inits, var_tile_h, row_of, col_index, rows, is_lt_cols)
    for buf, acc_value in zip(smem, accs, strict=True):
        pb.create(memref.StoreOp.get(acc_value, buf, [shm_index]))
    stride = threads_row // 2
    while stride > 0:
        barrier(pb)
        var_stride = pb.index(stride)
        is_lt_stride = _cmpi(pb, "slt", thread_row, var_stride)
        _, sb = if_then(pb, is_lt_stride)
        offset = sb.addi(shm_index, var_stride)
        for buf, acc in zip(smem, accumulators, strict=True):
            lhs_v = elemental.create_load(sb, buf, [shm_index])
            rhs_v = elemental.create_load(sb, buf, [offset])
            sb.create(memref.StoreOp.get(acc(sb, lhs_v, rhs_v), buf, [shm_index]))
        stride //= 2
    barrier(pb)
    is_row_zero = _cmpi(pb, "eq", thread_row, zero)
    is_valid = _binary(pb, arith.AndIOp, is_row_zero, is_lt_cols)
    _, vb = if_then(pb, is_valid)
    for reduce, buf in zip(col_roots, smem, strict=True):
        result = elemental.create_load(vb, buf, [shm_index])
        atomic_accumulate(vb, reduce, result, [col_index])
    return loop


def lower_col_reduction_gpu(
    roots: Sequence[Operation], dominant: Operation, schedule: int
) -> Operation:
    """Emit a GPU kColReduction fusion by `disc_col_reduction_schedule_hint`
    (`BLOCK_TILE_H64`: the block tile, anything else: the thread tile)."""
    if schedule == BLOCK_TILE_H64:
        return lower_col_reduction_block_tile(roots, dominant)
    return lower_col_reduction_thread_tile(roots, dominant)


__all__ = [
    "BLOCK_TILE_H64",
    "THREAD_TILE_H32",
    "col_reduction_roots",
    "emit_init_loops",
    "lower_col_reduction_block_tile",
    "lower_col_reduction_gpu",
    "lower_col_reduction_thread_tile",
]
