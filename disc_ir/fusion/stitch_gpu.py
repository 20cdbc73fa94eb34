"""The GPU stitch fusion strategy (BladeDISC's `StitchGpuFusionStrategy`, `fusion_utils_stitch_gpu.cc`).

`disc-fusion{gpu-enabled=true fusion-strategy=stitch}` runs `[base, stitch]`:
the base stage forms kLoop / kRowReduction / kColReduction fusions, then this
stage merges them further. A merged pattern whose rank-2 row reduction feeds
another op of the pattern (a softmax, a layer norm) becomes **kStitch**: one
kernel in which each block reduces its rows into shared memory and the ops
after the reduction read the row results from there (`gpu_stitch` codegen).

Pattern initialisation (`init_fusion_pattern`), as BladeDISC's:

1. *Reductions*: rank-2 row reductions, and rank-2 column reductions whose
   outputs are not read inside the pattern; any other reduction refuses.
2. *Type*: kStitch when a row reduction's output is read inside the
   pattern, or when the results are not all of the row shape (row
   reductions: same shape as the dominant's input; others: same number of
   elements); else kRowReduction, kColReduction (shape-checked the same way,
   refused on mismatch) or kLoop (results of one element count). kStitch
   with a column reduction refuses. The dominant op is the last reduction.
3. *Tiles* (kStitch only, `tileXroots`): every sub-root (row reduction) has
   the dominant's input shape; the reduced (tiled) dimension of each
   sub-root's input is tiled, its output is not. A result is a *regular*
   x-root when a leading run of its dims has the product of the dominant's
   rows (those dims untiled, the rest tiled), else *irregular*; every result
   read only outside the pattern (a *skeleton*) must be regular.
4. *Cover* (`backtraceTileAndCover`): from each skeleton's output (a
   sub-root: its input) tile information is propagated to operands through
   elementwise ops, concatenate, slices, broadcasts, reshapes, transposes and
   gathers; it must agree where two paths meet, and a root read through an
   op whose output does not cover its input (a slice, a gather) refuses.

`try_fuse`: the generic checks (kernel argument count, no constant root), no
mix of row and column reductions, then the initialisation above.

One check is this implementation's own, stated so nothing is hidden: the
GPU stitch codegen writes each result in a loop over the rows of the
dominant reduction, so every result other than a sub-root's must have as
many elements as those rows or as the reduction's input (BladeDISC's
codegen also writes other irregular x-roots; this one refuses them here).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation, SSAValue

from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.dialects.hlo_attrs import ints
from disc_ir.fusion.pattern import (
    FusionPattern,
    FusionType,
    broadcast_dimensions,
    input_operands,
    is_elementwise,
    is_fusible,
    is_rank2_col_reduction,
    is_rank2_or3_transpose,
    is_rank2_row_reduction,
    output_operands,
    reduce_dimensions,
    result_buffer,
)
from disc_ir.fusion.strategy_base import FusionStrategy, mixes_row_and_col_reductions
from disc_ir.ir.attrs import inherent_attr

#: Tile plan of a buffer: its tiled dimensions (BladeDISC keeps sizes, all
#: `kDynamicSize` here, so only which dimensions are tiled matters).
Tile = frozenset[int]


def _rank(value: SSAValue) -> int:
    t = value.type
    return len(t.get_shape()) if isinstance(t, MemRefType) else 0


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    return tuple(t.get_shape()) if isinstance(t, MemRefType) else ()


def _readers_inside(op: Operation, pattern: FusionPattern) -> bool:
    """Whether an op of `pattern` other than `op` reads one of `op`'s outputs."""
    for v in output_operands(op):
        for use in v.uses:
            user = use.operation
            if user is not op and pattern.contains(user):
                return True
    return False


def _valid_reductions(
    pattern: FusionPattern,
) -> tuple[list[Operation], list[Operation]] | None:
    """(row reductions, column reductions) of `pattern` in order, None when a
    reduction is of another kind or a column reduction's output is read
    inside (`findValidReductionOps`)."""
    rows: list[Operation] = []
    cols: list[Operation] = []
    for op in pattern.op_list:
        if op.name != "lmhlo.reduce":
            continue
        if is_rank2_row_reduction(op):
            rows.append(op)
        elif is_rank2_col_reduction(op):
            if _readers_inside(op, pattern):
                return None
            cols.append(op)
        else:
            return None
    return rows, cols


def _dim_eq_tile(
    out_tile: Tile,
    out_rank: int,
    in_rank: int,
    dim_eq: Sequence[tuple[Sequence[int], Sequence[int]]],
) -> Tile | None:
    """Input tiles from groups of equal (input dims, output dims), as
    BladeDISC's gather propagation: a group is tiled when its output dims
    are; dims in no group are tiled when every untiled output dim was mapped."""
    in_tile: set[int] = set()
    tiles_left = len(out_tile)
    non_tiles_left = out_rank - tiles_left
    mapped: set[int] = set()
    for ins, outs in dim_eq:
        mapped.update(ins)
        tiled = outs[0] in out_tile
        if any((d in out_tile) != tiled for d in outs[1:]):
            return None
        if tiled:
            in_tile.update(ins)
            tiles_left -= len(outs)
        else:
            non_tiles_left -= len(outs)
    if non_tiles_left == 0:
        if tiles_left != 0:
            in_tile.update(d for d in range(in_rank) if d not in mapped)
    elif tiles_left != 0:
        return None
    return frozenset(in_tile)


class StitchGpuFusionStrategy(FusionStrategy):
    """Merge patterns into GPU kStitch kernels (see module doc)."""

    name = "StitchGpuFusionStrategy"

    def is_fusible_op(self, op: Operation) -> bool:
        return not is_rank2_or3_transpose(op)

    def try_fuse(
        self,
        shape_analysis: ShapeAnalysis,
        lhs: FusionPattern,
        rhs: FusionPattern,
        target: FusionPattern,
    ) -> bool:
        if mixes_row_and_col_reductions(target):
            return False
        return super().try_fuse(shape_analysis, lhs, rhs, target)

    def init_fusion_pattern(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> bool:
        ok = bool(pattern.results) and self._type_and_sub_roots(shape_analysis, pattern)
        if ok and pattern.is_stitch():
            ok = self._stitch_is_valid(shape_analysis, pattern)
        if not ok:
            pattern.fusion_type = FusionType.NONE
            pattern.sub_root_ops = []
        return ok

    # -- type and sub-roots (`findFusionPatternTypeAndSubroot`) ---------------------------

    @staticmethod
    def _effective_shape(pattern: FusionPattern, value: SSAValue) -> SSAValue:
        writer = pattern.find_last_writer(value)
        return writer.operands[0] if writer is not None and writer.name == "lmhlo.reduce" else value

    def _compatible(
        self, sa: ShapeAnalysis, pattern: FusionPattern, dominant: Operation, row: bool
    ) -> bool:
        """Every result has the dominant's shape (reductions of its kind) or
        element count (others)."""
        same_kind = is_rank2_row_reduction if row else is_rank2_col_reduction
        ref = self._effective_shape(pattern, result_buffer(dominant))  # type: ignore[arg-type]  # the dominant op writes a buffer
        for result in pattern.results:
            writer = pattern.find_last_writer(result)
            if writer is dominant:
                continue
            shape = self._effective_shape(pattern, result)
            if writer is not None and same_kind(writer):
                if not sa.is_shape_equal(ref, shape):
                    return False
            elif not sa.is_same_num_elements(ref, shape):
                return False
        return True

    def _type_and_sub_roots(self, sa: ShapeAnalysis, pattern: FusionPattern) -> bool:
        found = _valid_reductions(pattern)
        if found is None:
            return False
        rows, cols = found
        ftype, dominant = FusionType.NONE, None
        if any(_readers_inside(op, pattern) for op in rows):
            ftype, dominant = FusionType.STITCH, rows[-1]
        elif rows:
            dominant = rows[-1]
            compatible = self._compatible(sa, pattern, dominant, row=True)
            ftype = FusionType.ROW_REDUCTION if compatible else FusionType.STITCH
        elif cols:
            dominant = cols[-1]
            if not self._compatible(sa, pattern, dominant, row=False):
                return False
            ftype = FusionType.COL_REDUCTION
        else:
            for op in pattern.op_list:
                if is_fusible(op):
                    ftype, dominant = FusionType.LOOP, op
                elif op.name != "lmhlo.terminator":
                    ftype, dominant = FusionType.NONE, None
                    break
            if ftype is FusionType.LOOP:
                ref = self._effective_shape(pattern, pattern.results[0])
                if not all(
                    sa.is_same_num_elements(ref, self._effective_shape(pattern, r))
                    for r in pattern.results
                ):
                    return False
        if ftype is FusionType.NONE or dominant is None:
            return False
        if ftype is FusionType.STITCH and cols:
            return False
        pattern.dominant_op, pattern.fusion_type = dominant, ftype
        pattern.sub_root_ops = list(rows) if ftype is FusionType.STITCH else []
        return True

    # -- kStitch validity (`tileXroots`, `backtraceTileAndCover`) -------------------------

    def _stitch_is_valid(self, sa: ShapeAnalysis, pattern: FusionPattern) -> bool:
        plan = self._tile_xroots(sa, pattern)
        if plan is None:
            return False
        sub_roots = set(pattern.sub_root_ops)
        skeletons = list(pattern.sub_root_ops)
        for v in pattern.external_only_results:
            writer = pattern.find_last_writer(v)
            if writer is not None and writer not in skeletons:
                skeletons.append(writer)
        for op in skeletons:
            start = op.operands[0] if op in sub_roots else result_buffer(op)
            if start is None or not self._backtrace(sa, pattern, plan, start):
                return False
        # What this implementation's codegen emits: every other result has
        # the rows of the dominant reduction or the elements of its input.
        dominant_op = pattern.dominant_op
        assert dominant_op is not None
        rows, elements = dominant_op.operands[-1], dominant_op.operands[0]
        return all(
            pattern.find_last_writer(v) in sub_roots
            or sa.is_same_num_elements(v, rows)
            or sa.is_same_num_elements(v, elements)
            for v in pattern.results
        )

    def _tile_xroots(
        self, sa: ShapeAnalysis, pattern: FusionPattern
    ) -> dict[SSAValue, Tile] | None:
        dominant_op = pattern.dominant_op
        assert dominant_op is not None
        dominant = dominant_op.operands[0]
        sub_roots = pattern.sub_root_ops
        if not all(
            op is dominant_op or sa.is_shape_equal(dominant, op.operands[0]) for op in sub_roots
        ):
            return None
        plan: dict[SSAValue, Tile] = {}
        for op in sub_roots:
            plan[op.operands[0]] = frozenset(reduce_dimensions(op))
            for out in output_operands(op):
                plan.setdefault(out, frozenset())
        dominant_tile = plan[dominant]
        untiled: list[int] = []
        for d in range(_rank(dominant)):
            if d in dominant_tile:
                break
            untiled.append(d)
        irregular: set[Operation] = set()
        sub_root_set = set(sub_roots)
        for res in pattern.results:
            writer = pattern.find_last_writer(res)
            if writer is None or writer in sub_root_set:
                continue
            rank = _rank(res)
            lead = next(
                (
                    k
                    for k in range(rank + 1)
                    if sa.is_product_equal(dominant, untiled, res, range(k))
                ),
                None,
            )
            if lead is None:
                irregular.add(writer)
                continue
            plan[res] = frozenset(range(lead, rank))
        for v in pattern.external_only_results:
            if pattern.find_last_writer(v) in irregular:
                return None
        return plan

    def _backtrace(
        self, sa: ShapeAnalysis, pattern: FusionPattern, plan: dict[SSAValue, Tile], start: SSAValue
    ) -> bool:
        """Propagate tiles from `start` to the operands of the ops writing it,
        transitively (`propagateO2I`; `cover` stays False once an op's output
        does not cover its input)."""
        sub_roots = set(pattern.sub_root_ops)
        roots = set(pattern.root_ops)
        cover = [True]
        stack = [start]
        while stack:
            value = stack.pop()
            op = pattern.find_last_writer(value)
            if op is None or not pattern.contains(op) or op in sub_roots:
                continue
            in_info = self._propagate_o2i(sa, plan, op, cover)
            if in_info is None:
                return False
            for in_value, tile in in_info:
                in_op = pattern.find_last_writer(in_value)
                if in_op in roots and not cover[0]:
                    return False
                known = plan.get(in_value)
                if known is not None:
                    if known != tile:
                        return False
                    continue
                plan[in_value] = tile
                stack.append(in_value)
        return True

    def _propagate_o2i(
        self, sa: ShapeAnalysis, plan: dict[SSAValue, Tile], op: Operation, cover: list[bool]
    ) -> list[tuple[SSAValue, Tile]] | None:
        """(operand, its tile) from `op`'s output tile (`tileCoverInfoPropagateO2I`)."""
        name = op.name
        if name == "lmhlo.constant":
            return []
        out = result_buffer(op)
        if out is None:
            return None
        out_tile = plan.get(out, frozenset())
        if is_elementwise(op) or name == "lmhlo.concatenate":
            return [(v, out_tile) for v in input_operands(op)]
        if name in ("lmhlo.real_dynamic_slice", "lmhlo.slice"):
            cover[0] = False
            return [(op.operands[0], out_tile)]
        if name in ("lmhlo.broadcast_in_dim", "lmhlo.dynamic_broadcast_in_dim"):
            o2i = {o: i for i, o in enumerate(broadcast_dimensions(op))}
            return [(op.operands[0], frozenset(o2i[d] for d in out_tile if d in o2i))]
        if name == "lmhlo.broadcast":
            length = len(ints(inherent_attr(op, "broadcast_sizes")))
            return [(op.operands[0], frozenset(d - length for d in out_tile))]
        if name in ("lmhlo.reshape", "lmhlo.dynamic_reshape"):
            tile = self._reshape_tile(sa, op.operands[0], out, out_tile)
            return None if tile is None else [(op.operands[0], tile)]
        if name == "lmhlo.transpose":
            perm = ints(inherent_attr(op, "permutation"))
            return [(op.operands[0], frozenset(perm[d] for d in out_tile))]
        if name in ("lmhlo.gather", "lmhlo.dynamic_gather"):
            tile = self._gather_tile(op, out, out_tile)
            if tile is None:
                return None
            cover[0] = False
            return [(op.operands[0], tile)]
        return None

    @staticmethod
    def _reshape_tile(
        sa: ShapeAnalysis, in_value: SSAValue, out_value: SSAValue, out_tile: Tile
    ) -> Tile | None:
        """Input tiles of a reshape: output dims split into runs that are
        all tiled or all untiled (a size-1 dim between tiled ones joins
        them), each run matched to the shortest input run of equal product."""
        out_rank, in_rank = _rank(out_value), _rank(in_value)
        out_shape = _shape(out_value)
        ends: list[int] = []
        last_tiled = False
        for i in range(out_rank):
            if i not in out_tile:
                if not last_tiled or out_shape[i] == 1:
                    continue
                last_tiled = False
                ends.append(i)
            else:
                if last_tiled:
                    continue
                last_tiled = True
                if i:
                    ends.append(i)
        in_tile: set[int] = set()
        in_start = out_start = 0
        for end in ends:
            match = next(
                (
                    i
                    for i in range(in_start, in_rank + 1)
                    if sa.is_product_equal(
                        out_value, range(out_start, end), in_value, range(in_start, i)
                    )
                ),
                None,
            )
            if match is None:
                return None
            if out_start in out_tile:
                in_tile.update(range(in_start, match))
            in_start, out_start = match, end
        if last_tiled:
            in_tile.update(range(in_start, in_rank))
        return frozenset(in_tile)

    @staticmethod
    def _gather_tile(op: Operation, out: SSAValue, out_tile: Tile) -> Tile | None:
        dnums = inherent_attr(op, "dimension_numbers")
        if dnums is None or not hasattr(dnums, "field"):
            return None
        offset_dims = tuple(dnums.field("offset_dims"))
        collapsed = tuple(dnums.field("collapsed_slice_dims"))
        out_rank = _rank(out)
        dim_eq: list[tuple[Sequence[int], Sequence[int]]] = [
            ((i,), (d,)) for i, d in enumerate(offset_dims)
        ]
        batch = [d for d in range(out_rank) if d not in set(offset_dims)]
        if collapsed or batch:
            dim_eq.append((collapsed, batch))
        dim_eq = [(ins, outs) for ins, outs in dim_eq if outs]
        return _dim_eq_tile(out_tile, out_rank, _rank(op.operands[0]), dim_eq)


__all__ = ["StitchGpuFusionStrategy"]
