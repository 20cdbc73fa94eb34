"""The kStitch schedule on GPU: row reductions stitched through shared memory.

BladeDISC's `lowerWithScheduleStitch` with `emitRowReduceThreadBlock`,
`emitFirstRoundShuffleStitch` and `emitSecondRoundShuffleStitch`
(`lhlo_legalize_roots_to_loops.cc`), followed, as BladeDISC does for GPU
kStitch fusions, by input inlining inside the pass with the reduce outputs
read from shared memory (`LowerConfig::SpecificLoader`).

A GPU stitch fusion (a softmax, a layer norm) has rank-2 row reductions
(the *sub-roots*; the dominant op is the last one) whose results feed further
ops of the fusion. One block handles `R` rows (`R = T / reduce_threads * v`
with `T` = `disc_cta_size_hint`, `v` = `disc_vectorize_or_tile_hint`,
`reduce_threads` = `T` for schedule 1 (block-wise, the default) and 32 for
schedule 2 (warp-wise)); every *skeleton* -- each sub-root, then each op
writing an external-only result -- is emitted in program order inside one
2-D `scf.parallel` (block, thread):

    scf.parallel (%blk, %tid) = (0, 0) to (ceil(rows / R), T) step (1, 1) {
      // a row-reduce skeleton
      %res = memref.alloc() : memref<R x T', #gpu.address_space<workgroup>>
      acc = scf.for %j = %tid to cols step T ...            // in-thread
      round 1 (shuffle, width 32); lane 0: %warp_smem[warp] = acc
      gpu.barrier
      warp 0: round 2 (shuffle, width T/32); thread 0: %res[i] = acc (and out[row] for a root)
      gpu.barrier
      // an elementwise skeleton over the same rows
      scf.for %j = %tid to tiled step T { root element at row * tiled + j }
    }

(warp-wise: one round, lane 0 writes `%res[warp * v + i]`, the skeletons
guarded by `row < rows`). The other ops of the fusion are then inlined into
these loops (`disc_ir.codegen.input_inline`), and every load of a sub-root's
output inside the loop becomes a load of its shared buffer at
`linear index % R`. Every op writing a result of the fusion is a skeleton;
one whose result is also read inside the fusion (an x-root) keeps its op in
the body, so the readers inside recompute its elements by inlining rather
than read them back from global memory. Supported: sub-roots with the rows
of the dominant reduce, skeleton outputs with as many elements as the reduce
output (`tiled = 1`) or as its input (`tiled` = its row length; any shape,
the index is linear); other fusions are reported as errors (the GPU stitch
fusion strategy forms none).
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.gpu import ProcessorEnum
from xdsl.ir import Operation, SSAValue

from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.codegen import codegen_hints, elemental
from disc_ir.codegen.common import (
    LoweringError,
    erase_ops,
    fusion_block,
    lower_root,
    parallel,
    same_num_elements,
)
from disc_ir.codegen.elemental import Builder
from disc_ir.codegen.gpu_common import (
    WARP_SIZE,
    align,
    barrier,
    extend_to_shuffle_type,
    reduce_element_type,
    shared_memory,
    shuffle_element_type,
    truncate_from_shuffle_type,
    warp_all_reduce,
)
from disc_ir.codegen.gpu_mapping import set_mapping
from disc_ir.codegen.gpu_row_reduction import (
    BLOCK_WISE,
    for_with_args,
    if_else,
    if_then,
)
from disc_ir.codegen.input_inline import InlineError, clean_unused_lhlo_ops, inline_fusion
from disc_ir.codegen.loop_utils import shape_values
from disc_ir.dialects.upstream.gpu import AddressSpace, AddressSpaceAttr
from disc_ir.fusion.pattern import FusionPattern, is_rank2_row_reduction
from disc_ir.ir.walk import preorder_ops


def _cmpi(b: Builder, pred: str, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return b.create(arith.CmpiOp(lhs, rhs, pred)).result


def _dim(b: Builder, value: SSAValue, d: int) -> SSAValue:
    return b.create(memref.DimOp(value, b.index(d))).result


class _Ctx:
    """The values of the stitch loop every skeleton uses."""

    def __init__(
        self,
        block_id: SSAValue,
        thread_id: SSAValue,
        warp_id: SSAValue,
        lane_id: SSAValue,
        row_tile: int,
        block_size: int,
        schedule: int,
        row_per_block: SSAValue,
    ) -> None:
        self.block_id = block_id
        self.thread_id = thread_id
        self.warp_id = warp_id
        self.lane_id = lane_id
        self.row_tile = row_tile
        self.block_size = block_size
        self.schedule = schedule
        self.row_per_block = row_per_block

    @property
    def reduce_threads(self) -> int:
        return self.block_size if self.schedule == BLOCK_WISE else WARP_SIZE

    def row_ids(self, b: Builder) -> tuple[list[SSAValue], list[SSAValue]]:
        """(offsets in the block, row ids) of the rows this thread handles."""
        base = b.muli(self.block_id, self.row_per_block)
        offsets: list[SSAValue] = []
        for i in range(self.row_tile):
            if self.schedule == BLOCK_WISE:
                offsets.append(b.index(i))
            else:
                offsets.append(b.addi(b.muli(self.warp_id, b.index(self.row_tile)), b.index(i)))
        return offsets, [b.addi(base, off) for off in offsets]


def _emit_row_reduce(
    b: Builder,
    ctx: _Ctx,
    op: Operation,
    result_shm: SSAValue,
    is_output: bool,
    external_only: bool,
) -> None:
    """One row-reduce skeleton (`emitRowReduceThreadBlock`)."""
    lhs = op.operands[0]
    zero = b.index(0)
    shape_h = _dim(b, lhs, 0)
    shape_w = _dim(b, lhs, 1)
    lane_zero = _cmpi(b, "eq", ctx.lane_id, zero)
    init = elemental.create_load(b, op.operands[1], [])
    acc = elemental.accumulator(op)
    elem = reduce_element_type(op)
    stype = shuffle_element_type(elem)
    offsets, row_ids = ctx.row_ids(b)
    body = b
    if ctx.reduce_threads == WARP_SIZE:
        in_bound = _cmpi(b, "slt", row_ids[-1], shape_h)
        _, body = if_then(b, in_bound)
    lb = ctx.lane_id if ctx.reduce_threads == WARP_SIZE else ctx.thread_id
    loop, jb = for_with_args(
        body, lb, shape_w, body.index(ctx.reduce_threads), [init] * ctx.row_tile
    )
    var_j = loop.body.block.args[0]
    new = []
    for i in range(ctx.row_tile):
        data = elemental.load(jb, lhs, [row_ids[i], var_j], check_cache=True)
        new.append(acc(jb, loop.body.block.args[1 + i], data))
    jb.create(scf.YieldOp(*new))
    warp_shm = [shared_memory(body, WARP_SIZE, stype) for _ in range(ctx.row_tile)]
    sums = warp_all_reduce(body, list(loop.results), acc, WARP_SIZE)
    _, zb = if_then(body, lane_zero)
    sums = [extend_to_shuffle_type(zb, s, stype) for s in sums]
    if ctx.reduce_threads == WARP_SIZE:
        if not external_only:
            if ctx.row_tile > 1:
                align(zb, result_shm, ctx.row_tile)
            for i in range(ctx.row_tile):
                zb.create(memref.StoreOp.get(sums[i], result_shm, [offsets[i]]))
        if is_output:
            out = op.operands[-1]
            if ctx.row_tile > 1:
                align(zb, out, ctx.row_tile)
            for i in range(ctx.row_tile):
                value = truncate_from_shuffle_type(zb, sums[i], elem)
                zb.create(memref.StoreOp.get(value, out, [row_ids[i]]))
        return
    for i in range(ctx.row_tile):
        zb.create(memref.StoreOp.get(sums[i], warp_shm[i], [ctx.warp_id]))
    barrier(body)
    # Round two, in the first warp only.
    thread_zero = _cmpi(body, "eq", ctx.thread_id, zero)
    first_warp = _cmpi(body, "eq", ctx.warp_id, body.index(0))
    _, wb = if_then(body, first_warp)
    inbound = _cmpi(wb, "slt", ctx.lane_id, wb.index(ctx.block_size // WARP_SIZE))
    if_op, tb, eb = if_else(wb, inbound, [elem] * ctx.row_tile)
    loaded = [
        truncate_from_shuffle_type(tb, elemental.create_load(tb, warp_shm[i], [ctx.lane_id]), elem)
        for i in range(ctx.row_tile)
    ]
    tb.create(scf.YieldOp(*loaded))
    eb.create(scf.YieldOp(*([init] * ctx.row_tile)))
    results = warp_all_reduce(wb, list(if_op.results), acc, ctx.block_size // WARP_SIZE)
    _, t0 = if_then(wb, thread_zero)
    if not external_only:
        if ctx.row_tile > 1:
            align(t0, result_shm, ctx.row_tile)
        for i in range(ctx.row_tile):
            stored = extend_to_shuffle_type(t0, results[i], stype)
            t0.create(memref.StoreOp.get(stored, result_shm, [t0.index(i)]))
    if is_output:
        out = op.operands[-1]
        if ctx.row_tile > 1:
            align(t0, out, ctx.row_tile)
        for i in range(ctx.row_tile):
            t0.create(memref.StoreOp.get(results[i], out, [row_ids[i]]))


def _tiled_size(
    b: Builder, sa: ShapeAnalysis | None, op: Operation, dominant: Operation
) -> SSAValue:
    """Elements of `op`'s output per row of the dominant reduce."""
    out = elemental.output_of(op)
    if same_num_elements(sa, out, dominant.operands[-1]):
        return b.index(1)
    if same_num_elements(sa, out, dominant.operands[0]):
        # row-major: row r of the dominant's input is elements [r*cols, (r+1)*cols)
        # of the output whatever its shape ([B, S, H] for rows B*S, say)
        return _dim(b, dominant.operands[0], 1)
    raise LoweringError(
        f"GPU stitch: the output of '{op.name}' has neither the rows nor the "
        "elements of the dominant row reduction"
    )


def _emit_elementwise_skeleton(
    b: Builder, ctx: _Ctx, op: Operation, dominant: Operation, sa: ShapeAnalysis | None
) -> None:
    """A non-reduce skeleton over the rows of the block."""
    shape_h = _dim(b, dominant.operands[0], 0)
    _, row_ids = ctx.row_ids(b)
    body = b
    if ctx.schedule != BLOCK_WISE:
        in_bound = _cmpi(b, "slt", row_ids[-1], shape_h)
        _, body = if_then(b, in_bound)
    tiled = _tiled_size(body, sa, op, dominant)
    lb = ctx.thread_id if ctx.schedule == BLOCK_WISE else ctx.lane_id
    loop, jb = for_with_args(body, lb, tiled, body.index(ctx.reduce_threads), [])
    var_j = loop.body.block.args[0]
    jb.create(scf.YieldOp())
    jb = Builder.before(cast(Operation, loop.body.block.last_op))  # the scf.yield just made
    for i in range(ctx.row_tile):
        index = jb.addi(jb.muli(row_ids[i], tiled), var_j)
        lower_root(jb, op, index)


def _skeletons(pattern: FusionPattern) -> tuple[list[Operation], list[Operation]]:
    """(sub-roots, skeletons in program order): the row reductions and every
    op writing a result of the fusion."""
    sub_roots = [op for op in pattern.op_list if is_rank2_row_reduction(op)]
    chosen = set(sub_roots) | set(pattern.root_ops)
    return sub_roots, [op for op in pattern.op_list if op in chosen]


def _written_back(pattern: FusionPattern, skeletons: list[Operation]) -> list[Operation]:
    """Skeletons other than sub-roots whose result is also read inside the
    fusion (x-roots): their loop writes the result, and the readers inside
    recompute it (the op stays in the body for input inlining)."""
    external_only = set(pattern.external_only_results)
    return [
        op
        for op in skeletons
        if not is_rank2_row_reduction(op)
        and any(
            v not in external_only for v in pattern.results if pattern.find_last_writer(v) is op
        )
    ]


def _redirect_loads(loop: Operation, shm: dict[SSAValue, SSAValue], per_block: int) -> None:
    """Loads of a sub-root output inside `loop` read its shared buffer instead
    (`SpecificLoader`: `shm[linear % per_block]`)."""
    for load in [op for op in preorder_ops(loop) if isinstance(op, memref.LoadOp)]:
        buf = shm.get(load.memref)
        if buf is None:
            continue
        b = Builder.before(load)
        index = list(load.indices)
        if index:
            linear = elemental.linearize(b, index, shape_values(b, load.memref))
        else:
            linear = b.index(0)
        slot = b.create(arith.RemUIOp(linear, b.index(per_block))).result
        value = elemental.create_load(b, buf, [slot])
        value = truncate_from_shuffle_type(b, value, load.res.type)
        load.res.replace_all_uses_with(value)
        erase_ops([load])


def _drop_workgroup_alignments(loop: Operation) -> None:
    for op in [o for o in preorder_ops(loop) if isinstance(o, memref.AssumeAlignmentOp)]:
        space = getattr(op.memref.type, "memory_space", None)
        if space == AddressSpaceAttr(AddressSpace.WORKGROUP):
            op.result.replace_all_uses_with(op.memref)
            erase_ops([op])


def lower_stitch_gpu(fusion: Operation, pattern: FusionPattern, sa: ShapeAnalysis | None) -> None:
    """Emit a GPU kStitch fusion, inline its other ops, read sub-root results
    from shared memory."""
    sub_roots, skeletons = _skeletons(pattern)
    if not sub_roots:
        raise LoweringError("GPU stitch: no rank-2 row reduction in the fusion")
    dominant = sub_roots[-1]
    for op in pattern.op_list:
        if op.name == "lmhlo.reduce" and not is_rank2_row_reduction(op):
            raise LoweringError("GPU stitch: only rank-2 row reductions are supported")
    row_tile = codegen_hints.vectorize_or_tile(dominant)
    schedule = codegen_hints.row_reduction_schedule(dominant)
    block_size = codegen_hints.thread_per_block(dominant)
    if block_size <= 0 or block_size % WARP_SIZE:
        raise LoweringError(f"threads per block ({block_size}) must be a multiple of 32")
    reduce_threads = block_size if schedule == BLOCK_WISE else WARP_SIZE
    row_per_block = block_size // reduce_threads * row_tile
    external_only = {pattern.find_last_writer(v) for v in pattern.external_only_results}
    roots = set(pattern.root_ops)

    b = Builder.before(pattern.root_ops[-1])
    zero = b.index(0)
    one = b.index(1)
    shape_h = _dim(b, dominant.operands[0], 0)
    num_threads = b.index(block_size)
    per_block = b.index(row_per_block)
    num_blocks = b.create(arith.CeilDivUIOp(shape_h, per_block)).result
    loop, pb = parallel(b, [zero, zero], [num_blocks, num_threads], [one, one])
    # One loop of (block, thread): the barriers and shuffles need the second
    # dimension to be the threads of one block, so the loop says so itself
    # (gpu-map-parallel-loops would map both dimensions to the grid).
    set_mapping(loop, [ProcessorEnum.Block_X, ProcessorEnum.Thread_X])
    block_id, thread_id = loop.body.block.args
    warp_size = pb.index(WARP_SIZE)
    warp_id = pb.create(arith.DivUIOp(thread_id, warp_size)).result
    lane_id = pb.create(arith.RemUIOp(thread_id, warp_size)).result
    ctx = _Ctx(block_id, thread_id, warp_id, lane_id, row_tile, block_size, schedule, per_block)

    shm: dict[SSAValue, SSAValue] = {}
    for skeleton in skeletons:
        if is_rank2_row_reduction(skeleton):
            stype = shuffle_element_type(reduce_element_type(skeleton))
            result_shm = shared_memory(pb, row_per_block, stype)
            shm[skeleton.operands[-1]] = result_shm
            only_external = skeleton in external_only
            _emit_row_reduce(pb, ctx, skeleton, result_shm, skeleton in roots, only_external)
            if not only_external:
                barrier(pb)
        else:
            _emit_elementwise_skeleton(pb, ctx, skeleton, dominant, sa)
    written_back = set(_written_back(pattern, skeletons))
    erase_ops([op for op in skeletons if op not in written_back])
    block = fusion_block(fusion)
    clean_unused_lhlo_ops(block)
    try:
        inline_fusion(fusion)
    except InlineError as err:
        raise LoweringError(f"GPU stitch: {err}") from err
    _redirect_loads(loop, shm, row_per_block)
    _drop_workgroup_alignments(loop)
    leftover = [op for op in block.ops if op.name.startswith("lmhlo.") and op is not block.last_op]
    constants = [op for op in leftover if op.name == "lmhlo.constant"]
    erase_ops(constants)
    for op in leftover:
        if op not in constants:
            raise LoweringError(f"GPU stitch: unexpected remaining operation '{op.name}'")


__all__ = ["lower_stitch_gpu"]
