"""The CPU stitch fusion strategy: ops of different schedules in one kernel through tile buffers.

Re-implements BladeDISC's `StitchCPUAnalysis` fusibility half and
`StitchCpuFusionStrategy` (`fusion_utils.cc`). A stitch kernel runs one
outer parallel loop over the *dominant* buffer; each iteration computes a
*tile* of every buffer, keeping intermediate tiles (of reductions, expensive
elementwise ops, broadcast sources) in small scratch buffers instead of
memory, so a row softmax or a layer norm (row reductions feeding
elementwise ops feeding row reductions) becomes one kernel.

The analysis, all on the fusion pattern's buffers:

1. supported ops only (elementwise, trailing-dims reductions, broadcasts,
   expand-like reshapes); no shape computation;
2. *roots*: build "a dominates b" (a is at least as large as b: elementwise
   operands dominate each other, a reduce's input its output, a broadcast's
   output its input, reshape both ways), close it transitively, and pick a
   minimal buffer dominating every result -- the dominant value;
3. *tiles*: per buffer, the axes a tile covers entirely (reduced axes, and
   what reaches them through elementwise ops, broadcasts and reshapes),
   propagated to a fixed point; conflicting tile sizes fail;
4. *parallel indices*: the dominant value's untiled axes become parallel
   loop indices, propagated from the dominant value to every root and back
   from the roots to every producer;
5. *sub-roots*: results, reduction inputs / outputs, `exp` / `sqrt` /
   `rsqrt` outputs and single-element broadcast sources are materialised per
   tile; each must see one consistent parallel index set.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import DYNAMIC_INDEX, MemRefType
from xdsl.ir import Operation, SSAValue

from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.fusion.pattern import (
    FusionPattern,
    FusionType,
    broadcast_dimensions,
    is_elementwise,
    reduce_dimensions,
    result_buffer,
    value_users,
)
from disc_ir.fusion.strategy_base import (
    REFUSE_ALL,
    FusionStrategy,
    all_stitch_cpu_supported,
    is_expand_like_reshape,
    is_stitch_cpu_supported,
)

#: Tile size meaning "the whole axis".
FULL = -(2**63)

_BROADCASTS = ("lmhlo.broadcast_in_dim", "lmhlo.broadcast", "lmhlo.dynamic_broadcast_in_dim")
_RESHAPES = ("lmhlo.reshape", "lmhlo.dynamic_reshape")


def _shape(value: SSAValue) -> tuple[int, ...]:
    t = value.type
    assert isinstance(t, MemRefType), f"stitch analysis expects memrefs, got {t}"
    return tuple(t.get_shape())


def _non_size_one_dims(value: SSAValue) -> list[int]:
    return [i for i, d in enumerate(_shape(value)) if d != 1]


class TileInfo:
    """Axis -> tile size (`FULL`: the whole axis) of one buffer."""

    __slots__ = ("sizes",)

    def __init__(self, sizes: dict[int, int] | None = None) -> None:
        self.sizes: dict[int, int] = dict(sizes or {})

    def copy(self) -> TileInfo:
        return TileInfo(self.sizes)

    def merge_axis(self, axis: int, size: int = FULL) -> bool:
        old = self.sizes.get(axis)
        if old is None:
            self.sizes[axis] = size
            return True
        lo, hi = min(old, size), max(old, size)
        if lo == FULL:
            self.sizes[axis] = FULL
            return True
        if lo == 0 or hi % lo != 0:
            return False
        self.sizes[axis] = hi
        return True

    def merge(self, other: TileInfo) -> bool:
        return all(self.merge_axis(a, s) for a, s in other.sizes.items())

    def update_if_not_equal(self, other: TileInfo) -> bool:
        if other.sizes == self.sizes:
            return False
        self.sizes = dict(other.sizes)
        return True


@dataclass
class ParallelIndex:
    """One parallel loop index: its step, and its value when constant (else None)."""

    id: int
    step: int = 1
    value: int | None = None


@dataclass
class ParallelInfo:
    """How one buffer is indexed by the parallel loop, derived from `producer_id`'s info."""

    id: int
    value: SSAValue
    producer_id: int
    op: Operation | None
    indices: dict[int, int] = field(default_factory=dict)  # axis -> ParallelIndex id
    consumer_ids: set[int] = field(default_factory=set)
    in_bound: int = -1
    is_owner: int = -1
    consumed_by_roots: bool = False

    def clone(self) -> ParallelInfo:
        return ParallelInfo(
            self.id,
            self.value,
            self.producer_id,
            self.op,
            dict(self.indices),
            set(self.consumer_ids),
            self.in_bound,
            self.is_owner,
            self.consumed_by_roots,
        )


class StitchCpuAnalysis:
    """Whether a fusion pattern is a valid CPU stitch kernel (see module doc).

    After a successful `fusibility_analysis()`: `dominant_value`, `tile_plan`,
    `parallel_plan` (buffer -> parallel info ids) and `sub_roots` describe the
    kernel for codegen.
    """

    def __init__(self, pattern: FusionPattern, shape_analysis: ShapeAnalysis) -> None:
        self.pattern = pattern
        self.shape_analysis = shape_analysis
        self.dominant_value: SSAValue | None = None
        self.tile_plan: dict[SSAValue, TileInfo] = {}
        self.parallel_indices: dict[int, ParallelIndex] = {}
        self._const_indices: dict[int, int] = {}
        self.parallel_infos: dict[int, ParallelInfo] = {}
        self.parallel_plan: dict[SSAValue, set[int]] = {}
        self.sub_roots: list[SSAValue] = []
        self._next_id = 0

    # -- driver ----------------------------------------------------------------

    def fusibility_analysis(self) -> bool:
        ops = self.pattern.op_list
        if not all(is_stitch_cpu_supported(op) for op in ops):
            return False
        for op in ops:
            if op.name in _RESHAPES and not self._supported_reshape(op):
                return False
        return (
            self._roots_analysis()
            and self._tile_analysis()
            and self._parallel_analysis()
            and self._sub_roots_analysis()
        )

    def _supported_reshape(self, op: Operation) -> bool:
        out = result_buffer(op)
        assert out is not None
        for v in (op.operands[0], out):
            shape = _shape(v)
            if all(d != DYNAMIC_INDEX for d in shape) and _prod(shape) == 1:
                return False  # rank-0-like reshapes are not supported
        return is_expand_like_reshape(self.shape_analysis, op)

    # -- 1. roots --------------------------------------------------------------

    def _all_values(self) -> list[SSAValue]:
        seen: dict[SSAValue, None] = {}
        for op in self.pattern.op_list:
            for v in op.operands:
                seen.setdefault(v, None)
        return list(seen)

    def _dominance(self) -> tuple[list[SSAValue], list[int]] | None:
        """The pattern's operand values and, per value, the set of values it
        dominates (reaches through the ops' operands, itself included) as a
        bitset over their indices; None on an op the analysis does not know."""
        values = self._all_values()
        index = {v: i for i, v in enumerate(values)}
        reach = [1 << i for i in range(len(values))]
        for op in self.pattern.op_list:
            if op.name == "lmhlo.constant":
                continue
            if is_elementwise(op):
                mask = 0
                for a in op.operands:
                    mask |= 1 << index[a]
                for a in op.operands:
                    reach[index[a]] |= mask
            elif op.name == "lmhlo.reduce":
                reach[index[op.operands[0]]] |= 1 << index[op.operands[2]]
            elif op.name in _BROADCASTS:
                out = result_buffer(op)
                assert out is not None
                reach[index[out]] |= 1 << index[op.operands[0]]
            elif op.name in _RESHAPES:
                out = result_buffer(op)
                assert out is not None
                src, dst = index[op.operands[0]], index[out]
                reach[dst] |= 1 << src
                reach[src] |= 1 << dst
            else:
                return None
        # transitive closure (Warshall, on bitsets)
        for k in range(len(reach)):
            bit, via = 1 << k, reach[k]
            for i, r in enumerate(reach):
                if r & bit:
                    reach[i] = r | via
        return values, reach

    def _roots_analysis(self) -> bool:
        found = self._dominance()
        if found is None:
            return False
        values, reach = found
        index = {v: i for i, v in enumerate(values)}
        wanted = 0
        for r in self.pattern.results:
            i = index.get(r)
            if i is None:
                return False  # a result no value dominates
            wanted |= 1 << i
        dominant = -1
        for i, dominated in enumerate(reach):
            if dominated & wanted != wanted:
                continue
            if dominant < 0 or (reach[dominant] >> i) & 1:
                dominant = i
        self.dominant_value = values[dominant] if dominant >= 0 else None
        return dominant >= 0

    # -- 2. tiles --------------------------------------------------------------

    def _tile(self, v: SSAValue) -> TileInfo:
        info = self.tile_plan.get(v)
        if info is None:
            info = self.tile_plan[v] = TileInfo()
        return info

    def _tile_analysis(self) -> bool:
        changed = True
        while changed:
            changed = False
            for op in self.pattern.op_list:
                if op.name == "lmhlo.constant":
                    continue
                if is_elementwise(op):
                    step = self._elementwise_tiles(op)
                elif op.name == "lmhlo.reduce":
                    step = self._reduce_tiles(op)
                elif op.name in _BROADCASTS:
                    step = self._broadcast_tiles(op)
                elif op.name in _RESHAPES:
                    step = self._reshape_tiles(op)
                else:
                    return False
                if step is None:
                    return False
                changed |= step
        return True

    def _elementwise_tiles(self, op: Operation) -> bool | None:
        merged = TileInfo()
        for v in op.operands:
            if not merged.merge(self._tile(v)):
                return None
        changed = False
        for v in op.operands:
            changed |= self._tile(v).update_if_not_equal(merged)
        return changed

    def _whole_axis0(self, v: SSAValue) -> bool | None:
        """A shape / init operand is never split: select its axis 0 entirely."""
        info = self._tile(v)
        merged = info.copy()
        if not merged.merge_axis(0):
            return None
        return info.update_if_not_equal(merged)

    def _reduce_tiles(self, op: Operation) -> bool | None:
        dims = reduce_dimensions(op)
        changed = False
        if len(_shape(op.operands[1])) != 0:
            step = self._whole_axis0(op.operands[1])
            if step is None:
                return None
            changed |= step
        src, out = op.operands[0], op.operands[2]
        in_info, out_info = self._tile(src).copy(), self._tile(out).copy()
        for d in dims:
            if not in_info.merge_axis(d):
                return None
        out_idx = 0
        for d in range(len(_shape(src))):
            if d in dims:
                continue
            if d in in_info.sizes and not out_info.merge_axis(out_idx, in_info.sizes[d]):
                return None
            if out_idx in out_info.sizes and not in_info.merge_axis(d, out_info.sizes[out_idx]):
                return None
            out_idx += 1
        changed |= self._tile(src).update_if_not_equal(in_info)
        changed |= self._tile(out).update_if_not_equal(out_info)
        return changed

    def _broadcast_tiles(self, op: Operation) -> bool | None:
        changed = False
        if op.name == "lmhlo.dynamic_broadcast_in_dim":
            step = self._whole_axis0(op.operands[1])
            if step is None:
                return None
            changed |= step
        src, out = op.operands[0], result_buffer(op)
        assert out is not None
        dims = broadcast_dimensions(op)
        in_info, out_info = self._tile(src).copy(), self._tile(out).copy()
        in_idx = 0
        for d in range(len(_shape(out))):
            if d not in dims:
                continue
            if in_idx in in_info.sizes and not out_info.merge_axis(d, in_info.sizes[in_idx]):
                return None
            if d in out_info.sizes and not in_info.merge_axis(in_idx, out_info.sizes[d]):
                return None
            in_idx += 1
        changed |= self._tile(src).update_if_not_equal(in_info)
        changed |= self._tile(out).update_if_not_equal(out_info)
        return changed

    def _reshape_tiles(self, op: Operation) -> bool | None:
        changed = False
        if op.name == "lmhlo.dynamic_reshape":
            step = self._whole_axis0(op.operands[1])
            if step is None:
                return None
            changed |= step
        src, out = op.operands[0], result_buffer(op)
        assert out is not None
        in_info, out_info = self._tile(src).copy(), self._tile(out).copy()

        def pull(to: SSAValue, to_info: TileInfo, frm: SSAValue, frm_info: TileInfo) -> bool:
            to_dims, frm_dims = _non_size_one_dims(to), _non_size_one_dims(frm)
            if len(to_dims) != len(frm_dims):
                return False
            for ti, fi in zip(to_dims, frm_dims, strict=True):
                if fi in frm_info.sizes and not to_info.merge_axis(ti, frm_info.sizes[fi]):
                    return False
            return True

        if not pull(src, in_info, out, out_info) or not pull(out, out_info, src, in_info):
            return None
        changed |= self._tile(src).update_if_not_equal(in_info)
        changed |= self._tile(out).update_if_not_equal(out_info)
        return changed

    # -- 3. parallel indices ---------------------------------------------------

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id - 1

    def _make_index(self, step: int = 1, value: int | None = None) -> ParallelIndex:
        if value is not None and value in self._const_indices:
            return self.parallel_indices[self._const_indices[value]]
        index = ParallelIndex(self._new_id(), step, value)
        if value is not None:
            self._const_indices[value] = index.id
        self.parallel_indices[index.id] = index
        return index

    def _make_info(
        self, value: SSAValue, producer_id: int = 0, op: Operation | None = None
    ) -> ParallelInfo:
        shape = _shape(value)
        tile = self._tile(value)
        indices: dict[int, int] = {}
        for d, size in enumerate(shape):
            t = tile.sizes.get(d)
            static = size != DYNAMIC_INDEX
            if t is None:
                indices[d] = self._make_index(1, 0 if static and size <= 1 else None).id
            elif t != FULL:
                indices[d] = self._make_index(t, 0 if static and size <= t else None).id
        in_bound, is_owner, info_id = self._new_id(), self._new_id(), self._new_id()
        info = ParallelInfo(info_id, value, producer_id, op, indices, set(), in_bound, is_owner)
        producer = self.parallel_infos.get(producer_id)
        if producer is not None:
            producer.consumer_ids.add(info_id)
        self.parallel_infos[info_id] = info
        return info

    def _plan(self, v: SSAValue) -> set[int]:
        plan = self.parallel_plan.get(v)
        if plan is None:
            plan = self.parallel_plan[v] = set()
        return plan

    def _parallel_analysis(self) -> bool:
        assert self.dominant_value is not None
        info = self._make_info(self.dominant_value)
        if not info.indices:
            return False  # nothing left to parallelise over
        info.producer_id = info.id
        self._plan(self.dominant_value).add(info.id)
        return self._propagate_to_roots() and self._propagate_to_producers()

    def _propagate_to_roots(self) -> bool:
        ops = set(self.pattern.op_list)
        results = self.pattern.results
        dominant = self.dominant_value
        assert dominant is not None
        left = len(results) - (1 if dominant in results else 0)
        if left:
            stack = [dominant]
            processed = {dominant}
            while stack and left:
                v = stack.pop()
                plan = self._plan(v)
                assert len(plan) == 1
                info = self.parallel_infos[next(iter(plan))].clone()
                for user in value_users(v):
                    if user not in ops or user.name == "lmhlo.constant":
                        continue
                    reached = self._step_to_root(user, v, info, processed)
                    if reached is None:
                        return False
                    for other, other_id in reached:
                        left -= 1 if other in results else 0
                        stack.append(other)
                        self._plan(other).add(other_id)
                    if not left:
                        break
        # Keep only the infos some root depends on.
        dependent: set[int] = set()
        for v in results:
            plan = self.parallel_plan.get(v, set())
            if not plan:
                return False  # a root the dominant value does not reach
            cur = next(iter(plan))
            dependent.add(cur)
            while self.parallel_infos[cur].producer_id != cur:
                cur = self.parallel_infos[cur].producer_id
                dependent.add(cur)
        for plan in self.parallel_plan.values():
            for i in list(plan):
                if i not in dependent:
                    plan.discard(i)
                    info = self.parallel_infos[i]
                    self.parallel_infos[info.producer_id].consumer_ids.discard(i)
        return True

    def _step_to_root(
        self, user: Operation, v: SSAValue, info: ParallelInfo, processed: set[SSAValue]
    ) -> list[tuple[SSAValue, int]] | None:
        """Parallel infos `user` derives from `v`'s; None on an unknown op."""
        out: list[tuple[SSAValue, int]] = []
        if is_elementwise(user):
            for other in user.operands:
                if other is v or other in processed:
                    continue
                processed.add(other)
                new = self._make_info(other, info.id, user)
                new.indices, new.in_bound, new.is_owner = (
                    dict(info.indices),
                    info.in_bound,
                    info.is_owner,
                )
                out.append((other, new.id))
            return out
        if user.name == "lmhlo.reduce":
            other = user.operands[2]
            if v is not user.operands[0] or other in processed:
                return out
            processed.add(other)
            new = self._make_info(other, info.id, user)
            new.in_bound, new.is_owner = info.in_bound, info.is_owner
            dims = reduce_dimensions(user)
            new.indices = {}
            out_idx = 0
            for d in range(len(_shape(v))):
                if d in dims:
                    continue
                if d in info.indices:
                    new.indices[out_idx] = info.indices[d]
                out_idx += 1
            return [(other, new.id)]
        if user.name in _BROADCASTS:
            other, result = user.operands[0], result_buffer(user)
            if v is not result or other in processed:
                return out
            processed.add(other)
            new = self._make_info(other, info.id, user)
            new.in_bound = info.in_bound
            new.indices = {}
            dims = broadcast_dimensions(user)
            in_idx = 0
            for d in range(len(_shape(v))):
                if d not in dims:
                    continue
                if d in info.indices:
                    new.indices[in_idx] = info.indices[d]
                in_idx += 1
            return [(other, new.id)]
        if user.name in _RESHAPES:
            src, dst = user.operands[0], result_buffer(user)
            assert dst is not None
            if v is not src and v is not dst:
                return out  # the target shape operand
            frm, to = (src, dst) if v is src else (dst, src)
            if to in processed:
                return out
            processed.add(to)
            new = self._make_info(to, info.id, user)
            new.in_bound, new.is_owner = info.in_bound, info.is_owner
            for fi, ti in zip(_non_size_one_dims(frm), _non_size_one_dims(to), strict=False):
                if ti in new.indices:
                    new.indices[ti] = info.indices.get(fi, 0)
            return [(to, new.id)]
        return None

    def _existing_input_id(self, src: SSAValue, info_id: int) -> int | None:
        info = self.parallel_infos[info_id]
        for cid in self._plan(src):
            if self.parallel_infos[cid].producer_id == info_id:
                return cid
        prev = self.parallel_infos.get(info.producer_id)
        if prev is not None and prev.value is src:
            return prev.id
        return None

    def _propagate_to_producers(self) -> bool:
        ops = set(self.pattern.op_list)
        work: list[tuple[Operation, int]] = []
        for root in self.pattern.results:
            plan = self._plan(root)
            assert len(plan) == 1
            writer = self.pattern.find_last_writer(root)
            assert writer is not None
            work.append((writer, next(iter(plan))))
        processed: dict[Operation, set[int]] = {}
        src_id: int | None
        while work:
            op, info_id = work.pop()
            seen = processed.setdefault(op, set())
            if info_id in seen:
                continue
            seen.add(info_id)
            info = self.parallel_infos[info_id]
            info.consumed_by_roots = True
            if op.name == "lmhlo.constant":
                continue
            if is_elementwise(op):
                inputs = list(op.operands[:-1])
                for src in inputs:
                    src_id = self._input_info(src, info_id, op, copy_indices=True)
                    self._push_writer(src, src_id, ops, work)
            elif op.name == "lmhlo.reduce":
                src, init = op.operands[0], op.operands[1]
                init_info = self._make_info(init, info_id, op)
                init_info.in_bound = info.in_bound
                self._plan(init).add(init_info.id)
                src_id = self._existing_input_id(src, info_id)
                if src_id is None:
                    new = self._make_info(src, info_id, op)
                    new.in_bound, new.is_owner = info.in_bound, info.is_owner
                    dims = reduce_dimensions(op)
                    new.indices = {}
                    out_idx = 0
                    for d in range(len(_shape(src))):
                        if d in dims:
                            continue
                        if out_idx in info.indices:
                            new.indices[d] = info.indices[out_idx]
                        out_idx += 1
                    self._plan(src).add(new.id)
                    src_id = new.id
                self._push_writer(src, src_id, ops, work)
            elif op.name in _BROADCASTS or op.name in _RESHAPES:
                src, out = op.operands[0], result_buffer(op)
                assert out is not None
                if op.name in ("lmhlo.dynamic_broadcast_in_dim", "lmhlo.dynamic_reshape"):
                    shape_info = self._make_info(op.operands[1], info_id, op)
                    shape_info.in_bound = info.in_bound
                    self._plan(op.operands[1]).add(shape_info.id)
                src_id = self._existing_input_id(src, info_id)
                if src_id is None:
                    new = self._make_info(src, info_id, op)
                    new.in_bound = info.in_bound
                    if op.name in _BROADCASTS:
                        new.indices = {}
                        in_idx = 0
                        dims = broadcast_dimensions(op)
                        for d in range(len(_shape(out))):
                            if d not in dims:
                                continue
                            if d in info.indices:
                                new.indices[in_idx] = info.indices[d]
                            in_idx += 1
                    else:
                        new.is_owner = info.is_owner
                        for si, oi in zip(
                            _non_size_one_dims(src), _non_size_one_dims(out), strict=False
                        ):
                            if si in new.indices:
                                new.indices[si] = info.indices.get(oi, 0)
                    self._plan(src).add(new.id)
                    src_id = new.id
                self._push_writer(src, src_id, ops, work)
            else:
                return False
        return True

    def _input_info(self, src: SSAValue, info_id: int, op: Operation, copy_indices: bool) -> int:
        existing = self._existing_input_id(src, info_id)
        if existing is not None:
            return existing
        info = self.parallel_infos[info_id]
        new = self._make_info(src, info_id, op)
        if copy_indices:
            new.indices = dict(info.indices)
        new.in_bound, new.is_owner = info.in_bound, info.is_owner
        self._plan(src).add(new.id)
        return new.id

    def _push_writer(
        self,
        src: SSAValue,
        src_id: int,
        ops: set[Operation],
        work: list[tuple[Operation, int]],
    ) -> None:
        writer = self.pattern.find_last_writer(src)
        if writer is not None and writer in ops:
            work.append((writer, src_id))

    # -- 4. sub-roots ----------------------------------------------------------

    def _small_tile(self, v: SSAValue) -> bool:
        tile = self._tile(v)
        if not tile.sizes:
            return True
        shape = _shape(v)
        total = 1
        for axis, size in tile.sizes.items():
            if size == FULL:
                size = shape[axis]
            if size == DYNAMIC_INDEX:
                return False
            total *= size
        return total == 1

    def _sub_roots_analysis(self) -> bool:
        chosen: dict[SSAValue, None] = dict.fromkeys(self.pattern.results)
        candidates = set(self.pattern.internal_results) | set(self.pattern.results)
        for op in self.pattern.op_list:
            if op.name == "lmhlo.reduce":
                chosen.setdefault(op.operands[2], None)
                if op.operands[0] in candidates:
                    chosen.setdefault(op.operands[0], None)
            elif op.name in ("lmhlo.exponential", "lmhlo.sqrt", "lmhlo.rsqrt"):
                chosen.setdefault(op.operands[1], None)
            elif op.name in _BROADCASTS:
                src = op.operands[0]
                if src in candidates and self._small_tile(src):
                    chosen.setdefault(src, None)
        for v in chosen:
            ids = list(self.parallel_plan.get(v, ()))
            if len(ids) > 1:
                ref = self.parallel_infos[ids[0]].indices
                if any(self.parallel_infos[i].indices != ref for i in ids[1:]):
                    return False
        self.sub_roots = list(chosen)
        return True


def _prod(xs: tuple[int, ...]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


class StitchCpuFusionStrategy(FusionStrategy):
    """Merge patterns when the result is a valid CPU stitch kernel (kStitch)."""

    name = "StitchCpuFusionStrategy"

    def try_fuse(
        self,
        shape_analysis: ShapeAnalysis,
        lhs: FusionPattern,
        rhs: FusionPattern,
        target: FusionPattern,
    ) -> bool:
        if not super().try_fuse(shape_analysis, lhs, rhs, target):
            return False
        return self._analysis(target, shape_analysis)[1]

    def may_merge(
        self, shape_analysis: ShapeAnalysis, lhs: FusionPattern, rhs: FusionPattern
    ) -> bool:
        # The analysis needs supported ops only, and a dominant value reaching
        # every result through the ops' operands: with results written on
        # both sides and no buffer in common, nothing links the two sides.
        if not (all_stitch_cpu_supported(lhs) and all_stitch_cpu_supported(rhs)):
            return False
        mine, theirs = lhs.merged_results_by_side(rhs)
        return not (mine and theirs and lhs.operand_values().isdisjoint(rhs.operand_values()))

    def unconnected_merge_key(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> Any:
        # `may_merge` refuses any pair with an op the stitch codegen does not
        # support; otherwise only the pair can tell
        key = super().unconnected_merge_key(shape_analysis, pattern)
        if key is None and not all_stitch_cpu_supported(pattern):
            return REFUSE_ALL
        return key

    def _analysis(
        self, pattern: FusionPattern, shape_analysis: ShapeAnalysis
    ) -> tuple[StitchCpuAnalysis, bool]:
        """The stitch analysis of `pattern` and its verdict, run once per
        pattern (`try_fuse` then `init_fusion_pattern` ask about the same target)."""
        key = (self, shape_analysis)
        found = pattern.checks.get(key)
        if isinstance(found, tuple):
            return found
        analysis = StitchCpuAnalysis(pattern, shape_analysis)
        result = (analysis, analysis.fusibility_analysis())
        pattern.checks[key] = result
        return result

    def init_fusion_pattern(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> bool:
        analysis, ok = self._analysis(pattern, shape_analysis)
        if not ok:
            pattern.fusion_type = FusionType.NONE
            return True
        pattern.fusion_type = FusionType.STITCH
        dominant = analysis.dominant_value
        writer = pattern.find_last_writer(dominant) if dominant is not None else None
        if writer is not None and pattern.contains(writer):
            pattern.dominant_op = writer
        results = set(pattern.results)
        pattern.sub_root_ops = []
        for v in analysis.sub_roots:
            op = pattern.find_last_writer(v)
            if (
                v not in results
                and op is not None
                and pattern.contains(op)
                and op not in pattern.sub_root_ops
            ):
                pattern.sub_root_ops.append(op)
        return True


__all__ = ["StitchCpuAnalysis", "StitchCpuFusionStrategy", "TileInfo"]
