"""The column-reduction (kInput) schedule on CPU.

BladeDISC's `lowerWithSchedulekInputCPU`. For a reduce over any non-trailing
dimensions, e.g. `memref<100x1100xf32> -> memref<1100xf32>`, the output is
walked in tiles of `DISC_REDUCTION_TILE_SIZE` (128 by default; <= 0: the
whole innermost dimension) along its innermost dimension:

    scf.parallel (%o..., %t) = (%c0, ...) to (%d..., %n) step (%c1, ..., %c128) {
      %ub = select(%t + 128 < %n, %t + 128, %n)
      %init = memref.load %init[]
      scf.for %j = %t to %ub { memref.store %init, %out[%o..., %j] }
      scf.for %r = %c0 to %reduced_elements step %c1 {
        %ri... = "disc_shape.delinearize"(%r, %reduced_dims...)
        scf.for %j = %t to %ub {
          %x = memref.load %in[...]          // reduced dims from %ri, the others from %o, %j
          %y = memref.load %out[%o..., %j]
          memref.store acc(%x, %y), %out[%o..., %j]
        }
      }
    }

so consecutive iterations of the innermost loop touch consecutive input
elements. Each non-row reduce root gets such a nest; other roots get a loop
nest of their own (BladeDISC supports a single root only).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, memref
from xdsl.ir import Operation, SSAValue

from disc_ir import config
from disc_ir.codegen import elemental
from disc_ir.codegen.common import LoweringError, erase_ops, for_loop, parallel
from disc_ir.codegen.elemental import Builder
from disc_ir.codegen.loop_schedule import lower_loop_cpu
from disc_ir.codegen.loop_utils import shape_values
from disc_ir.fusion.pattern import is_row_reduction

#: BladeDISC's `kReductionTileSizeOnCPU`.
DEFAULT_REDUCTION_TILE_SIZE = 128


def reduction_tile_size() -> int:
    """`DISC_REDUCTION_TILE_SIZE` (default 128)."""
    return config.get_int("DISC_REDUCTION_TILE_SIZE")


def lower_kinput_reduce_cpu(reduce: Operation) -> None:
    """Emit one non-row `lmhlo.reduce` with the tiled kInput CPU schedule, erasing it."""
    if reduce.name != "lmhlo.reduce" or len(reduce.operands) != 3:
        raise LoweringError("the kInput CPU schedule expects a single-output lmhlo.reduce")
    if is_row_reduction(reduce):
        raise LoweringError("row reductions use the row-reduction schedule")
    inp, init, out = reduce.operands
    out_rank = elemental.rank_of(out)
    if out_rank == 0:
        raise LoweringError("the kInput CPU schedule expects a non-scalar output")
    acc = elemental.accumulator(reduce)
    b = Builder.before(reduce)
    zero = b.index(0)
    one = b.index(1)
    limits = shape_values(b, out)
    steps = [one] * out_rank
    innermost_size = limits[-1]
    innermost_step = innermost_size
    tile = reduction_tile_size()
    if tile > 0:
        innermost_step = b.index(tile)
    steps[-1] = innermost_step
    loop, body = parallel(b, [zero] * out_rank, limits, steps)
    out_vars: list[SSAValue] = list(loop.body.block.args)
    outer_iv = out_vars[-1]
    upper = body.addi(outer_iv, innermost_step)
    pred = body.create(arith.CmpiOp(upper, innermost_size, "slt")).result
    upper = body.create(arith.SelectOp(pred, upper, innermost_size)).result

    init_index = [zero] if elemental.rank_of(init) > 0 else []
    init_value = elemental.create_load(body, init, init_index)
    init_loop, ib = for_loop(body, outer_iv, upper, one)
    init_vars = [*out_vars[:-1], init_loop.body.block.args[0]]
    ib.create(memref.StoreOp.get(init_value, out, init_vars))

    dims = elemental.reduce_dims(reduce)
    total = one
    sizes: list[SSAValue] = []
    for d in dims:
        size = body.create(memref.DimOp(inp, body.index(d))).result
        sizes.append(size)
        total = body.muli(total, size)
    red_loop, rb = for_loop(body, zero, total, one)
    reduce_index = elemental.delinearize(rb, red_loop.body.block.args[0], sizes)
    inner_loop, nb = for_loop(rb, outer_iv, upper, one)
    vars_ = [*out_vars[:-1], inner_loop.body.block.args[0]]
    in_vars: list[SSAValue] = []
    ri = oi = 0
    for d in range(elemental.rank_of(inp)):
        if d in dims:
            in_vars.append(reduce_index[ri])
            ri += 1
        else:
            in_vars.append(vars_[oi])
            oi += 1
    lhs = elemental.create_load(nb, inp, in_vars)
    rhs = elemental.create_load(nb, out, vars_)
    nb.create(memref.StoreOp.get(acc(nb, lhs, rhs), out, vars_))
    # The nest reads the output it accumulates into: the reduce must go now,
    # not be inlined into that read.
    erase_ops([reduce])


def lower_col_reduction_cpu(roots: Sequence[Operation]) -> None:
    """Emit the roots of a CPU kColReduction / kInput fusion."""
    for root in roots:
        if root.name == "lmhlo.reduce" and not is_row_reduction(root) and len(root.operands) == 3:
            lower_kinput_reduce_cpu(root)
        else:
            lower_loop_cpu([root], root)
            erase_ops([root])


__all__ = ["lower_col_reduction_cpu", "lower_kinput_reduce_cpu", "reduction_tile_size"]
