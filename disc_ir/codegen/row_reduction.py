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

Floating-point add / multiply accumulators carry `fastmath<reassoc>`
(`mark_reassociable_reductions`): LLVM then vectorizes the reduction loop
with partial sums in vector lanes instead of one in-order scalar chain (the
sum is reassociated, as BladeDISC's vectorized CPU row reductions and XLA's
do; max / min reductions vectorize without it). `emit_row_reduce` is the same
reduction loop for one row of a row-tiled schedule (the CPU stitch).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, scf
from xdsl.ir import Operation, SSAValue

from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.codegen import elemental
from disc_ir.codegen.common import erase_ops, iteration_buffer, split_roots
from disc_ir.codegen.elemental import Builder
from disc_ir.codegen.loop_schedule import lower_loop_cpu, lower_loop_tiled
from disc_ir.ir.walk import preorder_ops


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
        loop = lower_loop_tiled(shared, dominant, vector_size)
    else:
        loop = lower_loop_cpu(shared, dominant)
    mark_reassociable_reductions(loop)


REASSOC = arith.FastMathFlagsAttr([arith.FastMathFlag.REASSOC])


def mark_reassociable_reductions(root: Operation) -> None:
    """Give `fastmath<reassoc>` to the float add / multiply accumulating an
    `scf.for` iter_arg (the yielded value computed from the iter_arg) under `root`."""
    for op in preorder_ops(root):
        if not isinstance(op, scf.ForOp):
            continue
        block = op.body.block
        terminator = block.last_op
        if not isinstance(terminator, scf.YieldOp):
            continue
        for arg, value in zip(block.args[1:], terminator.operands, strict=False):
            owner = value.owner
            if isinstance(owner, arith.AddfOp | arith.MulfOp) and arg in owner.operands:
                owner.properties["fastmath"] = REASSOC


#: computes a reduction's input element in the row loop's body: (builder, the
#: linear column index, the column indices over the trailing dims) -> value
ElementFn = Callable[[Builder, SSAValue, list[SSAValue]], SSAValue]


def emit_row_reduce(
    b: Builder,
    op: Operation,
    row_index: list[SSAValue],
    trailing: list[SSAValue],
    element: ElementFn | None = None,
    total: SSAValue | None = None,
) -> SSAValue:
    """The reduction of `op` (over its operand's trailing dims, of sizes `trailing`)
    for the row at `row_index`: an `scf.for` over the row's elements carrying the
    accumulator, marked reassociable. Each element is loaded from the operand,
    or computed by `element` (which may also store it somewhere); `total`: the
    row's element count when already computed."""
    operand, init = op.operands[0], op.operands[1]
    init_value = elemental.create_load(b, init, [])
    if total is None:
        total = trailing[0]
        for size in trailing[1:]:
            total = b.muli(total, size)
    loop = elemental.new_for(b, b.index(0), total, b.index(1), [init_value])
    body = elemental.at_end(loop.body.block)
    j = loop.body.block.args[0]
    column: list[SSAValue] = [j] if len(trailing) == 1 else elemental.delinearize(body, j, trailing)
    if element is None:
        data = elemental.create_load(body, operand, row_index + column)
    else:
        data = element(body, j, column)
    acc = elemental.accumulator(op)(body, loop.body.block.args[1], data)
    body.create(scf.YieldOp(acc))
    mark_reassociable_reductions(loop)
    return loop.results[0]


__all__ = ["emit_row_reduce", "lower_row_reduction_cpu", "mark_reassociable_reductions"]
