"""`disc-lhlo-legalize-roots-to-parallel-loops`: expand each fusion's roots into loops.

BladeDISC's DiscLhloLegalizeRootsToParallelLoops
(`lhlo_legalize_roots_to_loops.cc`). Per function (skipping the
`shape_constraint_graph` and compute-intensive fusion functions):

* `lmhlo.sort` (never fused) is lowered by the CPU sort schedule
  (`disc_ir.codegen.sort`: a stable merge sort per row, the
  comparator evaluated on scalars), which BladeDISC does not have; a sort
  placed on the GPU is an error (`mhlo-place-ops` puts sorts on the host).
* `lmhlo.scatter` (never fused) is lowered by the CPU scatter schedule
  (`disc_ir.codegen.scatter`: the operand copied into the output,
  then a serial loop over the updates with the update computation evaluated
  on scalars, windows that do not fit skipped as XLA skips them), which
  BladeDISC does not have either; a scatter on the GPU is an error.
* a rank-2 row or column `lmhlo.reduce` on the GPU outside fusions is wrapped
  alone in an `lmhlo.fusion` of its reduction type and lowered by that
  schedule (`wrap_gpu_reduce`; BladeDISC's TODO, which gives it the loop
  schedule: one thread per output element);
* other lmhlo ops outside any fusion are lowered alone: on the CPU by the CPU loop
  schedule (a multi-dimensional `scf.parallel` with `cpu-only=true`,
  BladeDISC's CPU-only build, which the CPU pipeline passes; a 1-D `scf.for`
  by default, as BladeDISC's GPU build lowers host shape computations); on
  the GPU by a 1-D `scf.parallel`. The op is erased.
* each `lmhlo.fusion` is lowered by the schedule of its fusion pattern
  (`FusionPattern.from_fusion_op`: roots, dominant op, fusion type) --
  the loop nests are emitted inside the fusion, before its last root, and the
  lmhlo ops no loop reads are erased; the others stay for
  `disc-input-inline-fusion`. CPU schedules
  (`disc_ir.codegen`):

  - kLoop: `loop_schedule.lower_loop_cpu` (multi-dimensional parallel loop);
    with `disc_vectorize_or_tile_hint = v > 1` the tiled form (parallel loop
    over `n / v`, inner `scf.for` over `v`);
  - kRowReduction: `row_reduction.lower_row_reduction_cpu`;
  - kColReduction / kInput: `col_reduction.lower_col_reduction_cpu`;
  - kStitch: `stitch_cpu.lower_stitch_cpu`.

  GPU fusions (`HandleGpuFusionOp`; the outputs of rank-2 column reduces
  among the roots are first filled with the init value,
  `gpu_col_reduction.emit_init_loops`):

  - kLoop: `loop_schedule.lower_loop_1d` with `disc_vectorize_or_tile_hint`
    adjacent elements per thread, all loads before the stores, the output
    assumed 16-byte aligned (the kernels' buffers are), so the NVPTX backend
    emits 128-bit accesses. (BladeDISC's DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL
    schedule, a tile loop per thread, is not used on the GPU: its per-element
    stores between the loads keep LLVM from merging them);
  - kRowReduction: `gpu_row_reduction` -- warp shuffles, one block per row
    (`disc_row_reduction_schedule_hint = 1`, default, two shuffle rounds
    through shared memory) or one warp per row (`= 2`), `disc_cta_size_hint`
    threads per block, `disc_vectorize_or_tile_hint` rows per block / warp;
  - kColReduction: `gpu_col_reduction` -- the 512-thread x 32-row tile with
    atomics, or the 32 x 8 block tile reducing in shared memory
    (`disc_col_reduction_schedule_hint = 8`);
  - kStitch: `gpu_stitch` -- row reductions and the ops around them in one
    kernel, reduction results kept in shared memory, inlined in place.

Then, as BladeDISC's greedy driver does, ops are folded, constants uniqued and
hoisted to the function entry, and dead ops removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.buffer_alias import is_lmhlo_op
from disc_ir.analysis.shape_analysis import SHAPE_CONSTRAINT_GRAPH, ShapeAnalysis
from disc_ir.codegen import codegen_hints
from disc_ir.codegen.cleanup import fold_greedily
from disc_ir.codegen.col_reduction import lower_col_reduction_cpu
from disc_ir.codegen.common import LoweringError, erase_ops, fusion_block
from disc_ir.codegen.gpu_col_reduction import emit_init_loops, lower_col_reduction_gpu
from disc_ir.codegen.gpu_row_reduction import lower_row_reduction_gpu
from disc_ir.codegen.gpu_stitch import lower_stitch_gpu
from disc_ir.codegen.input_inline import clean_unused_lhlo_ops
from disc_ir.codegen.loop_schedule import (
    lower_loop_1d,
    lower_loop_cpu,
    lower_loop_tiled,
)
from disc_ir.codegen.row_reduction import lower_row_reduction_cpu
from disc_ir.codegen.scalar import UnsupportedOp
from disc_ir.codegen.scatter import lower_scatter
from disc_ir.codegen.shared_lowering import is_shared_duplicate
from disc_ir.codegen.sort import lower_sort
from disc_ir.codegen.stitch_cpu import lower_stitch_cpu
from disc_ir.config import shape_constraint_ir_enabled
from disc_ir.dialects.lmhlo import FusionOp, TerminatorOp
from disc_ir.fusion.pattern import (
    FusionPattern,
    FusionType,
    fusion_type_of,
    is_gpu_lmhlo,
    is_rank2_col_reduction,
    is_rank2_row_reduction,
    set_fusion_attrs,
)
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

#: Functions holding a compute-intensive (dot) fusion are skipped (`kFuncCompIntensFusionAttr`).
COMP_INTENS_FUSION_ATTR = "disc.comp_intens_fusion"
_SKIPPED = frozenset({"lmhlo_disc.args_mutation", "lmhlo.terminator"})


def _parent_lmhlo(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None:
        if is_lmhlo_op(parent):
            return parent
        parent = parent.parent_op()
    return None


def collect_work(f: func.FuncOp) -> tuple[list[Operation], list[Operation], list[Operation]]:
    """(CPU non-fusion ops, GPU non-fusion ops, fusions) of `f`, in program order."""
    cpu_ops: list[Operation] = []
    gpu_ops: list[Operation] = []
    fusions: list[Operation] = []
    for op in preorder_ops(f):
        if not is_lmhlo_op(op) or op.name in _SKIPPED:
            continue
        if op.name == "lmhlo.fusion":
            if not is_shared_duplicate(op):  # lowered by copying (codegen/shared_lowering.py)
                fusions.append(op)
            continue
        if _parent_lmhlo(op) is not None:
            continue
        (gpu_ops if is_gpu_lmhlo(op) else cpu_ops).append(op)
    return cpu_ops, gpu_ops, fusions


def lower_cpu_fusion(fusion: Operation, sa: ShapeAnalysis | None) -> None:
    """Emit a CPU fusion by the schedule of its type (BladeDISC's `HandleCpuFusionOp`)."""
    pattern = FusionPattern.from_fusion_op(fusion, sa)
    block = fusion_block(fusion)
    roots = list(pattern.root_ops)
    if not roots:
        clean_unused_lhlo_ops(block)
        return
    ftype = pattern.fusion_type
    if ftype is FusionType.NONE:
        ftype = fusion_type_of(fusion)
    dominant = pattern.dominant_op or roots[-1]
    vector_size = codegen_hints.vectorize_or_tile(fusion)
    if ftype is FusionType.LOOP:
        if vector_size > 1:
            lower_loop_tiled(roots, dominant, vector_size)
        else:
            lower_loop_cpu(roots, dominant)
    elif ftype is FusionType.ROW_REDUCTION:
        lower_row_reduction_cpu(roots, dominant, sa, vector_size)
    elif ftype in (FusionType.COL_REDUCTION, FusionType.INPUT):
        lower_col_reduction_cpu(roots)
    elif ftype is FusionType.STITCH:
        lower_stitch_cpu(pattern, shape_analysis=sa, fusion=fusion)
    elif ftype is FusionType.TRANSFORM:
        # BladeDISC lowers these with transform-dialect schedules
        # (disc-transform-legalize-to-loop), which disc-ir does not have
        raise LoweringError(
            "Unknown fusion type kTransform (its transform-dialect code generation "
            "is not implemented: unset DISC_ENABLE_TRANSFORM_SCHEDULE / "
            "mlir-compute-intensive-codegen)"
        )
    else:
        raise LoweringError(f"Unknown fusion type {ftype.value}")
    clean_unused_lhlo_ops(block)


def lower_gpu_fusion(fusion: Operation, sa: ShapeAnalysis | None) -> None:
    """Emit a GPU fusion by the schedule of its type (BladeDISC's `HandleGpuFusionOp`)."""
    pattern = FusionPattern.from_fusion_op(fusion, sa)
    block = fusion_block(fusion)
    roots = list(pattern.root_ops)
    if not roots:
        clean_unused_lhlo_ops(block)
        return
    # The outputs of rank-2 column reduces are accumulated atomically: fill
    # them with the init value first, whatever the schedule.
    emit_init_loops(roots)
    ftype = pattern.fusion_type
    if ftype is FusionType.NONE:
        ftype = fusion_type_of(fusion)
    dominant = pattern.dominant_op or roots[-1]
    vector_size = codegen_hints.vectorize_or_tile(dominant)
    if ftype is FusionType.ROW_REDUCTION:
        schedule = codegen_hints.row_reduction_schedule(dominant)
        lower_row_reduction_gpu(roots, dominant, schedule, vector_size)
    elif ftype is FusionType.COL_REDUCTION:
        lower_col_reduction_gpu(roots, dominant, codegen_hints.col_reduction_schedule(dominant))
    elif ftype is FusionType.LOOP:
        lower_loop_1d(roots, dominant, vector_size=vector_size)
    elif ftype is FusionType.STITCH:
        lower_stitch_gpu(fusion, pattern, sa)
    else:
        raise LoweringError(f"the GPU {ftype.value} schedule is not implemented")
    clean_unused_lhlo_ops(block)


def wrap_gpu_reduce(f: func.FuncOp, op: Operation, index: int) -> Operation | None:
    """A rank-2 row / column `lmhlo.reduce` on the GPU outside fusions, wrapped alone in
    an `lmhlo.fusion` of its reduction type (named `<func>_k<Type>_reduce__<index>`), so
    it gets the reduction schedule (warp shuffles / atomics) instead of the loop
    schedule; None for any other op. BladeDISC leaves this as a TODO ("single nodes
    with non kLoop schedule like ReduceOp ... lowered with loop schedule, which means
    poor performance"): one thread per output element reading a whole row."""
    if op.name != "lmhlo.reduce":
        return None
    if is_rank2_row_reduction(op):
        ftype = FusionType.ROW_REDUCTION
    elif is_rank2_col_reduction(op):
        ftype = FusionType.COL_REDUCTION
    else:
        return None
    out = op.operands[-1]
    if not any(use.operation is not op for use in out.uses):
        return None  # nothing reads the result: a fusion would have no root
    block = op.parent_block()
    assert block is not None
    body = Block()
    fusion = FusionOp.create(regions=[Region(body)])
    block.insert_op_before(fusion, op)
    op.detach()
    body.add_op(op)
    body.add_op(TerminatorOp.create())
    set_fusion_attrs(fusion, ftype, "gpu", f"{f.sym_name.data}_{ftype.value}_reduce__{index}")
    return fusion


def legalize_roots(f: func.FuncOp, cpu_only: bool) -> None:
    """Lower every root of `f` to loops."""
    cpu_ops, gpu_ops, fusions = collect_work(f)
    sa: ShapeAnalysis | None = None
    if fusions:
        sa = ShapeAnalysis(f, use_shape_constraint_ir=shape_constraint_ir_enabled())
    try:
        for op in cpu_ops:
            if op.name == "lmhlo.sort":
                lower_sort(op, parallel_loop=cpu_only)
                continue
            if op.name == "lmhlo.scatter":
                lower_scatter(op, parallel_loop=cpu_only)
                continue
            lower_loop_cpu([op], op, parallel_loop=cpu_only, multi_dim=True)
            erase_ops([op])
        for index, op in enumerate(gpu_ops):
            if op.name == "lmhlo.sort":
                raise LoweringError(
                    "lmhlo.sort has no GPU schedule (mhlo-place-ops runs sorts on the host)"
                )
            if op.name == "lmhlo.scatter":
                raise LoweringError("lmhlo.scatter has no GPU schedule")
            wrapped = wrap_gpu_reduce(f, op, index)
            if wrapped is not None:
                if sa is None:
                    sa = ShapeAnalysis(f, use_shape_constraint_ir=shape_constraint_ir_enabled())
                lower_gpu_fusion(wrapped, sa)
                continue
            lower_loop_1d([op], op, parallel_loop=True)
            erase_ops([op])
        for fusion in fusions:
            if is_gpu_lmhlo(fusion) and fusion.attributes.get("disc.device") is not None:
                lower_gpu_fusion(fusion, sa)
            else:
                lower_cpu_fusion(fusion, sa)
    except (LoweringError, UnsupportedOp) as err:
        raise DiagnosticException(f"failed to lower to loops: {err}") from None


def skip_function(f: func.FuncOp) -> bool:
    return (
        not f.body.blocks
        or f.sym_name.data == SHAPE_CONSTRAINT_GRAPH
        or COMP_INTENS_FUSION_ATTR in f.attributes
    )


@register_pass
@dataclass(frozen=True)
class DiscLhloLegalizeRootsToParallelLoopsPass(ModulePass):
    """Legalize the roots of lmhlo.fusion to parallel loops."""

    name = "disc-lhlo-legalize-roots-to-parallel-loops"

    core_count: int = -1
    gpu_sm_cc_major: int = 8
    gpu_sm_cc_minor: int = 0
    cpu_only: bool = False

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "core-count": "core count (e.g., SM count on NVIDIA GPU).",
        "gpu-sm-cc-major": "gpu sm cc_major.",
        "gpu-sm-cc-minor": "gpu sm cc_minor.",
        "cpu-only": "BladeDISC's CPU-only build (TAO_CPU_ONLY): CPU ops outside fusions "
        "get multi-dimensional parallel loops (else 1-D scf.for, as host shape code).",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in [o for o in preorder_ops(op) if isinstance(o, func.FuncOp)]:
            if skip_function(f):
                continue
            legalize_roots(f, self.cpu_only)
            fold_greedily(ctx, f)


__all__ = ["DiscLhloLegalizeRootsToParallelLoopsPass", "legalize_roots"]
