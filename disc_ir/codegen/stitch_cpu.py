"""The kStitch schedule on CPU: one row-parallel kernel with per-row tile buffers.

A CPU stitch fusion (a row softmax, a layer norm: row reductions feeding
elementwise ops feeding row reductions) is emitted, like BladeDISC's CPU
stitch codegen (`disc-stitch-fusion`: tile buffers per parallel row), as ONE
`scf.parallel` over the *rows* -- the leading, non-reduced dimensions of the
row reductions' input `X` -- whose body computes every materialised
*sub-root* for that row, in program order, each in a sequential `scf.for`
over the row's columns:

    scf.parallel (%row) = (%c0) to (%rows) step (%c1) {
      %tile = memref.alloca(%cols) : memref<?xf32>        // non-result row tile
      %max = scf.for %j = %c0 to %cols step %c1 iter_args(%a = %init) -> (f32) {
        %x = memref.load %X[%row, %j] ; %m = arith.maximumf %a, %x ; scf.yield %m
      }
      %sum = scf.for %j = %c0 to %cols step %c1 iter_args(%a = %zero) -> (f32) {
        ... %e = math.exp(x - max)                          // a sub-root
        memref.store %e, %tile[%j]
        %s = arith.addf %a, %e fastmath<reassoc> ; scf.yield %s
      }
      scf.for %j = %c0 to %cols step %c1 { ... memref.store %o, %out[%row, %j] }
    }

* materialised sub-roots are the fusion's results, its reductions and the
  sub-roots the CPU stitch strategy marks (`FusionPattern.sub_root_ops`),
  except a non-result sub-root read only by one reduction (inlined into that
  reduction's loop instead);
* a sub-root covering the whole row shape (*full*) that is not a result is
  written to a per-row tile (`memref.alloca` of the row length, hoisted out
  of the row loop by `disc-outline-cpu-kernel`), a per-row value (*row*:
  reduce outputs...) that is not a result stays an SSA value; results are
  stored to their buffers; so the fusion's intermediate buffers are never
  touched (`disc-remove-dead-buffer` drops them);
* a full sub-root computed just before a row reduction of it shares that
  reduction's loop (softmax's exp and its sum: one pass over the row, one
  `exp` per element);
* the other lmhlo ops are inlined into these loops right away (as
  `disc-input-inline-fusion` would), then the loads of tiles and row values
  are redirected to them;
* floating-point add / multiply accumulators of the reductions carry
  `fastmath<reassoc>`, so LLVM vectorizes them (partial sums in vector
  lanes; BladeDISC's CPU row reduction reassociates the same way);
* sub-roots of another shape that do not depend on the row loop (e.g. a
  single-element broadcast source) get a kLoop nest of their own before it.

The row schedule needs every op depending on a value computed in the row loop
to stay in that row: elementwise ops, reductions over the trailing dims of a
full buffer and broadcasts of a row value along the trailing dims, with full
or row outputs proven by shape analysis. A row value may also have the rows'
rank with unit trailing dims (a reduction's keepdims form, as jax writes a
mean: `reduce -> ?x1 -> ?xN`); such buffers are indexed `[row, 0]`. Otherwise (or without shape
analysis) the fusion falls back to one loop nest per sub-root over full
buffers (`lower_stitch_per_sub_root`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType, ShapedType
from xdsl.ir import Operation, SSAValue

from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.codegen import elemental, scalar
from disc_ir.codegen.col_reduction import lower_kinput_reduce_cpu
from disc_ir.codegen.common import (
    LoweringError,
    erase_ops,
    for_loop,
    parallel,
)
from disc_ir.codegen.elemental import VIEW_OPS, Builder
from disc_ir.codegen.input_inline import InlineError, inline_fusion
from disc_ir.codegen.loop_schedule import lower_loop_cpu
from disc_ir.codegen.loop_utils import shape_values
from disc_ir.codegen.row_reduction import (
    emit_row_reduce,
    mark_reassociable_reductions,
)
from disc_ir.fusion.pattern import (
    FusionPattern,
    broadcast_dimensions,
    is_row_reduction,
    reduce_dimensions,
    result_buffer,
)
from disc_ir.ir.walk import preorder_ops

_BROADCASTS = ("lmhlo.broadcast_in_dim", "lmhlo.dynamic_broadcast_in_dim")


def stitch_sub_roots(pattern: FusionPattern) -> list[Operation]:
    """The ops of `pattern` materialised by the CPU stitch schedule, in program order."""
    chosen: set[Operation] = set(pattern.root_ops) | set(pattern.sub_root_ops)
    chosen |= {op for op in pattern.op_list if op.name == "lmhlo.reduce"}
    return [op for op in pattern.op_list if op in chosen]


# ---------------------------------------------------------------------------
# Planning
# ---------------------------------------------------------------------------


@dataclass
class RowStitchPlan:
    """How `lower_row_stitch` emits a fusion.

    `x`: the row reductions' input (defines rows x columns), `num_parallel`:
    its leading (row) dims; `hoisted`: sub-roots emitted as loop nests of
    their own before the row loop; `in_loop`: sub-roots computed per row, in
    program order; `tiles` / `row_values`: the non-result ones among them with
    a full / row output; `column_invariant`: full ones among the row values
    (constant along the row: computed once, at column 0).
    """

    x: SSAValue
    num_parallel: int
    keepdims: set[SSAValue] = field(default_factory=set)
    hoisted: list[Operation] = field(default_factory=list)
    in_loop: list[Operation] = field(default_factory=list)
    tiles: set[Operation] = field(default_factory=set)
    row_values: set[Operation] = field(default_factory=set)
    column_invariant: set[Operation] = field(default_factory=set)

    def is_keepdims(self, buffer: SSAValue) -> bool:
        """A per-row buffer of the rows' rank (unit trailing dims)."""
        return buffer in self.keepdims


def _rank(value: SSAValue) -> int | None:
    t = value.type
    return len(t.get_shape()) if isinstance(t, MemRefType) else None


def _readers(pattern: FusionPattern, buffer: SSAValue) -> list[Operation]:
    """Ops of the fusion reading `buffer` (an input operand that is it)."""
    return [
        op
        for op in pattern.op_list
        if any(v is buffer for v in op.operands[:-1]) and result_buffer(op) is not buffer
    ]


def _is_column_invariant(op: Operation, invariant: set[SSAValue], p: int) -> bool:
    """Whether `op`'s output is constant along its dims >= `p`: a broadcast into
    the leading dims only, a splat constant, or an elementwise op of such values."""
    if op.name in _BROADCASTS:
        return all(d < p for d in broadcast_dimensions(op))
    if op.name == "lmhlo.constant":
        return elemental.splat_constant_value(op) is not None
    if elemental.is_elementwise(op):
        return all(v in invariant for v in op.operands[:-1])
    return False


def plan_row_stitch(
    pattern: FusionPattern, sub_roots: Sequence[Operation], sa: ShapeAnalysis | None
) -> RowStitchPlan | None:
    """The row schedule of a CPU stitch fusion; None when it does not apply."""
    if sa is None:
        return None
    reduces = [op for op in pattern.op_list if op.name == "lmhlo.reduce"]
    if not reduces or any(len(r.operands) != 3 or not is_row_reduction(r) for r in reduces):
        return None
    x = reduces[0].operands[0]
    rank = _rank(x)
    num_reduced = len(reduce_dimensions(reduces[0]))
    if rank is None or rank - num_reduced < 1:
        return None
    p = rank - num_reduced

    def is_full(v: SSAValue) -> bool:
        if v is x:
            return True
        if _rank(v) != rank:
            return False
        try:
            return sa.is_shape_equal(v, x)
        except Exception:  # noqa: BLE001 - values the analysis does not know
            return False

    def is_row(v: SSAValue) -> bool:
        # one value per row: the rows' shape, or it with unit trailing dims
        # (a reduction's keepdims form, as jax's mean / var write it)
        r = _rank(v)
        if r == rank:
            shape = cast(ShapedType, v.type).get_shape()  # ranked: `_rank` returned a rank
            if any(d != 1 for d in shape[p:]):
                return False
        elif r != p:
            return False
        try:
            return all(sa.is_dim_equal(v, d, x, d) for d in range(p))
        except Exception:  # noqa: BLE001
            return False

    roots = set(pattern.root_ops)
    materialized: list[Operation] = []
    for op in sub_roots:
        out = result_buffer(op)
        if out is None:
            return None
        readers = _readers(pattern, out)
        if (
            op not in roots
            and op.name != "lmhlo.reduce"
            and len(readers) == 1
            and readers[0].name == "lmhlo.reduce"
        ):
            continue  # computed inside the one reduction reading it
        materialized.append(op)

    plan = RowStitchPlan(x, p)
    writer_dep: dict[SSAValue, bool] = {}
    invariant: set[SSAValue] = set()  # buffers constant along the trailing dims
    chosen = set(materialized)
    for op in pattern.op_list:
        out = result_buffer(op)
        if out is None:
            return None
        if _is_column_invariant(op, invariant, p):
            invariant.add(out)
        dep_operands = [v for v in op.operands[:-1] if writer_dep.get(v, False)]
        full, row = is_full(out), is_row(out)
        if row and _rank(out) == rank:
            plan.keepdims.add(out)
        in_loop = op in chosen and (full or row)
        dep = in_loop or bool(dep_operands)
        writer_dep[out] = dep
        if op in chosen and not in_loop:
            if dep:
                return None  # another shape computed from row values
            plan.hoisted.append(op)
            continue
        if not dep:
            continue
        if not (full or row) or any(u.operation.name in VIEW_OPS for u in out.uses):
            return None
        # Every op depending on the row loop must stay within the row.
        if op.name == "lmhlo.reduce":
            if not is_full(op.operands[0]) or not row:
                return None
        elif op.name in _BROADCASTS:
            # a row value along the trailing dims (full output), or a row
            # value to its keepdims form (row output)
            source = op.operands[0]
            if not is_row(source) or not (full or row):
                return None
            if tuple(broadcast_dimensions(op)) != tuple(range(_rank(source) or 0)):
                return None
        elif not elemental.is_elementwise(op):
            return None
        if in_loop:
            plan.in_loop.append(op)
            if op not in roots:
                if full and out in invariant:
                    plan.column_invariant.add(op)
                # A full buffer whose trailing dims are all 1 (`row` too) holds
                # one element per row: a row value, written and read at
                # [row, 0...], never a tile.
                is_tile = full and not row and out not in invariant
                (plan.tiles if is_tile else plan.row_values).add(op)
    if not plan.in_loop:
        return None
    return plan


# ---------------------------------------------------------------------------
# Emission
# ---------------------------------------------------------------------------


def _element(b: Builder, op: Operation, index: Sequence[SSAValue]) -> SSAValue:
    """The element of `op`'s output at `index` (its inputs loaded there)."""
    try:
        if elemental.is_elementwise(op):
            values = [
                elemental.create_load(b, v, list(index) if elemental.rank_of(v) else [])
                for v in op.operands[:-1]
            ]
            out_type = elemental.element_type(op.operands[-1])
            return scalar.map_lmhlo_to_scalar(b, op, out_type, values)
        return elemental.elemental_lower(b, op, list(index), check_cache=False)
    except scalar.UnsupportedOp as err:
        raise LoweringError(str(err)) from err


def _split_index(b: Builder, linear: SSAValue, sizes: Sequence[SSAValue]) -> list[SSAValue]:
    return [linear] if len(sizes) == 1 else elemental.delinearize(b, linear, sizes)


def _product(b: Builder, sizes: Sequence[SSAValue]) -> SSAValue:
    total = sizes[0]
    for s in sizes[1:]:
        total = b.muli(total, s)
    return total


def lower_row_stitch(fusion: Operation, plan: RowStitchPlan) -> None:
    """Emit a CPU stitch fusion with the row schedule of `plan` (see the module doc)."""
    for op in plan.hoisted:
        lower_loop_cpu([op], op)
        erase_ops([op])
    block = fusion.regions[0].blocks.first
    assert block is not None and block.last_op is not None
    b = Builder.before(block.last_op)  # the lmhlo.terminator
    p = plan.num_parallel
    sizes = shape_values(b, plan.x)
    leading, trailing = sizes[:p], sizes[p:]
    zero = b.index(0)
    one = b.index(1)
    rows = _product(b, leading)
    cols = _product(b, trailing)
    loop, body = parallel(b, [zero], [rows], [one])
    row_index = _split_index(body, loop.body.block.args[0], leading)

    tile_of: dict[SSAValue, SSAValue] = {}
    for op in plan.in_loop:
        if op in plan.tiles:
            out = result_buffer(op)
            assert out is not None
            elem = elemental.element_type(out)
            tile = body.create(
                memref.AllocaOp.get(elem, shape=[DYNAMIC_INDEX], dynamic_sizes=[cols])
            )
            tile_of[out] = tile.memref
    row_value_of: dict[SSAValue, SSAValue] = {}

    # A row reduction of the tile computed just before it shares the tile's pass.
    reduce_after: dict[Operation, Operation] = {
        tile_op: next_op
        for tile_op, next_op in zip(plan.in_loop, plan.in_loop[1:], strict=False)
        if tile_op in plan.tiles
        and next_op.name == "lmhlo.reduce"
        and next_op.operands[0] is result_buffer(tile_op)
    }
    reduced: dict[Operation, SSAValue] = {}
    for op in plan.in_loop:
        out = result_buffer(op)
        assert out is not None
        if op in reduce_after:
            reduced[reduce_after[op]] = _emit_tile_and_reduce(
                body, op, reduce_after[op], tile_of[out], row_index, cols, trailing
            )
        elif op.name == "lmhlo.reduce":
            value = reduced[op] if op in reduced else emit_row_reduce(body, op, row_index, trailing)
            if op in plan.row_values:
                row_value_of[out] = value
            else:
                body.create(memref.StoreOp.get(value, out, row_index))
        elif op in plan.column_invariant:
            row_value_of[out] = _element(body, op, row_index + [zero] * len(trailing))
        elif op in plan.row_values or elemental.rank_of(out) == p or plan.is_keepdims(out):
            # one value per row; a keepdims buffer is indexed with zeros after the row
            at = row_index + [zero] * (elemental.rank_of(out) - p)
            value = _element(body, op, at)
            if op in plan.row_values:
                row_value_of[out] = value
            else:
                body.create(memref.StoreOp.get(value, out, at))
        else:
            inner, ib = for_loop(body, zero, cols, one)
            j = inner.body.block.args[0]
            index = row_index + _split_index(ib, j, trailing)
            value = _element(ib, op, index)
            if out in tile_of:
                ib.create(memref.StoreOp.get(value, tile_of[out], [j]))
            else:
                ib.create(memref.StoreOp.get(value, out, index))
    erase_ops(plan.in_loop)
    try:
        inline_fusion(fusion)
    except InlineError as err:
        raise LoweringError(str(err)) from err
    _redirect_loads(loop, tile_of, row_value_of, trailing, p)


def _emit_tile_and_reduce(
    b: Builder,
    tile_op: Operation,
    reduce_op: Operation,
    tile: SSAValue,
    row_index: list[SSAValue],
    cols: SSAValue,
    trailing: list[SSAValue],
) -> SSAValue:
    """One pass over the row computing `tile_op`'s elements into `tile` and
    reducing them with `reduce_op` (which reads `tile_op`'s output); the
    reduction's value for the row."""

    def element(ib: Builder, j: SSAValue, column: list[SSAValue]) -> SSAValue:
        value = _element(ib, tile_op, row_index + column)
        ib.create(memref.StoreOp.get(value, tile, [j]))
        return value

    return emit_row_reduce(b, reduce_op, row_index, trailing, element, total=cols)


def _redirect_loads(
    loop: Operation,
    tile_of: dict[SSAValue, SSAValue],
    row_value_of: dict[SSAValue, SSAValue],
    trailing: Sequence[SSAValue],
    p: int,
) -> None:
    """Loads of tile buffers read the row tile; loads of row values use the value.

    A row value may itself be such a load (a broadcast of another row value to
    its keepdims form): `replaced` follows those chains to the final value."""
    replaced: dict[SSAValue, SSAValue] = {}

    def resolve(value: SSAValue) -> SSAValue:
        while value in replaced:
            value = replaced[value]
        return value

    for op in preorder_ops(loop):
        if not isinstance(op, memref.LoadOp):
            continue
        source = op.memref
        if source in row_value_of:
            target = resolve(row_value_of[source])
            replaced[op.res] = target
            op.res.replace_all_uses_with(target)
            op.detach()
            op.erase()
        elif source in tile_of:
            b = Builder.before(op)
            cols = list(op.indices)[p:]
            column = cols[0] if len(cols) == 1 else elemental.linearize(b, cols, trailing)
            new = b.create(memref.LoadOp.get(tile_of[source], [column]))
            op.res.replace_all_uses_with(new.res)
            op.detach()
            op.erase()


def lower_stitch_per_sub_root(
    pattern: FusionPattern, sub_roots: Sequence[Operation] | None = None
) -> None:
    """The fallback: one loop nest per sub-root over its whole buffer, in order;
    the rest is inlined later by `disc-input-inline-fusion`."""
    for op in sub_roots if sub_roots is not None else stitch_sub_roots(pattern):
        if op.name == "lmhlo.reduce" and len(op.operands) == 3 and not is_row_reduction(op):
            lower_kinput_reduce_cpu(op)
        else:
            loop = lower_loop_cpu([op], op)
            if op.name == "lmhlo.reduce":
                mark_reassociable_reductions(loop)
            erase_ops([op])


def lower_stitch_cpu(
    pattern: FusionPattern,
    sub_roots: Sequence[Operation] | None = None,
    shape_analysis: ShapeAnalysis | None = None,
    fusion: Operation | None = None,
) -> None:
    """Emit a CPU kStitch fusion: the row schedule when it applies, else one
    loop nest per sub-root."""
    subs = list(sub_roots) if sub_roots is not None else stitch_sub_roots(pattern)
    if fusion is None and pattern.op_list:
        fusion = pattern.op_list[0].parent_op()
    plan = plan_row_stitch(pattern, subs, shape_analysis) if fusion is not None else None
    if plan is None or fusion is None:
        lower_stitch_per_sub_root(pattern, subs)
        return
    lower_row_stitch(fusion, plan)


__all__ = [
    "RowStitchPlan",
    "lower_row_stitch",
    "lower_stitch_cpu",
    "lower_stitch_per_sub_root",
    "plan_row_stitch",
    "stitch_sub_roots",
]
