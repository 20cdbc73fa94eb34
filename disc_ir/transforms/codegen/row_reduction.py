"""The row-reduction schedule on CPU: one sequential reduction per output element.

BladeDISC lowers a CPU kRowReduction fusion with its CPU loop schedule
(`lowerWithScheduleLoopCPU` with the reduce as dominant op): an
`scf.parallel` over the reduce's output, each iteration running the reduce's
elemental emission -- an `scf.for` over the reduced elements carrying the
accumulator:

    scf.parallel (%i) = (%c0) to (%rows) step (%c1) {
      %init = memref.load %init[] : memref<f32>
      %acc = scf.for %k = %c0 to %cols step %c1 iter_args(%a = %init) -> (f32) {
        %x = memref.load %in[%i, %k] ...
        %s = arith.addf %a, %x : f32
        scf.yield %s : f32
      }
      memref.store %acc, %out[%i]
    }

Hints: with `disc_vectorize_or_tile_hint = v > 1` each parallel iteration
handles `v` adjacent output rows (`scf.parallel` over `rows / v`, an inner
`scf.for %k = 0 to v`), as the GPU row-reduction schedules give `v` rows to a
thread. `disc_row_reduction_schedule_hint` / `disc_thread_per_block_hint`
choose between GPU thread mappings (block per row, warp per row) and have no
CPU counterpart: the CPU schedule is the same for both.

Roots with another element count than the dominant reduce's output (e.g. an
elementwise output of the reduce input's shape) get a loop of their own,
emitted first; the op is then erased, so the reduction loop reads the
buffer instead of recomputing it.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation

from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.transforms.codegen.common import erase_ops, iteration_buffer, split_roots
from disc_ir.transforms.codegen.loop_schedule import lower_loop_cpu, lower_loop_tiled


def lower_row_reduction_cpu(
    roots: Sequence[Operation],
    dominant: Operation,
    shape_analysis: ShapeAnalysis | None,
    vector_size: int = 1,
) -> None:
    """Emit the roots of a CPU kRowReduction fusion (dominant: a row reduce)."""
    shared, own = split_roots(shape_analysis, roots, iteration_buffer(dominant))
    for root in own:
        lower_loop_cpu([root], root)
        erase_ops([root])  # later loops read the materialised buffer
    if not shared:
        return
    if vector_size > 1:
        lower_loop_tiled(shared, dominant, vector_size)
    else:
        lower_loop_cpu(shared, dominant)


__all__ = ["lower_row_reduction_cpu"]
