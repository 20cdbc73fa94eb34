"""`disc-fusion`: fuse lmhlo ops to kLoop/kInput fusion patterns (BladeDISC's DiscFusionPass).

For every block of every function (not the bodies of `lmhlo.reduce` /
`lmhlo.fusion`, not `@shape_constraint_graph`), a *fusion planner* groups
ops into clusters, then each cluster of two or more non-constant ops becomes
one `lmhlo.fusion`:

1. metadata-only ops (`shape.shape_of`, `memref.dim`) move up next to their
   operands' definitions, so they do not separate producers from consumers;
2. a dependency graph links each op to the last writer of every buffer it
   touches (lmhlo ops write their trailing output operands);
3. for each strategy stage of the pipeline (see `fusion_strategies`), edges
   are contracted greedily in post order while the strategy accepts the
   merged pattern and no cycle arises -- so nothing fuses across an op the
   strategy cannot fuse (shape computation, library calls such as dot or
   convolution, custom calls, host-side ops, other devices);
   then, with `DISC_ENABLE_HORIZONTAL_FUSION` (on by default, as in
   BladeDISC), unconnected clusters are tried pairwise;
4. ops are reordered so every producer cluster precedes its consumers, each
   cluster is moved into an `lmhlo.fusion` (placed where its last op was,
   body ended by `lmhlo.terminator`) with `disc.fusion_type` and
   `disc.device`, and finally every unnamed fusion is named
   `<func>_<type>_<roots>__<#ops>_<#results>_<counter>` (`disc.fusion.name`).

Options: `gpu-enabled` (default true), `fusion-strategy` (`base` | `stitch`,
default `base`), `mlir-compute-intensive-codegen` (default false).
`DISC_ENABLE_SHAPE_CONSTRAINT_IR` selects how shapes are compared. With
`mlir-compute-intensive-codegen` (or `DISC_ENABLE_TRANSFORM_SCHEDULE`) the
CPU stitch pipeline ends with the transform-based stage: GEMMs with their
constant weights and elementwise epilogues become kTransform fusions (whose
transform-dialect code generation disc-ir lacks). The dot, sparse and GPU
transform-based stages are not implemented and fuse nothing (their ops stay
as the other stages left them).
`DISC_EXPECTED_KERNELS_IN_UT=N` makes the pass fail unless it created N
fusions; `DISC_DEBUG_MAX_FUSION_NUMBER=N` applies only the first N.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir import config
from disc_ir.analysis.buffer_alias import buffer_writes, is_lmhlo_op
from disc_ir.analysis.graph_cycles import GraphCycles
from disc_ir.analysis.shape_analysis import SHAPE_CONSTRAINT_GRAPH, ShapeAnalysis
from disc_ir.config import shape_constraint_ir_enabled
from disc_ir.dialects.lmhlo import FusionOp, TerminatorOp
from disc_ir.fusion.pattern import (
    FusionPattern,
    OpFacts,
    fusion_body_ops,
    fusion_name,
    generate_signature,
    is_gpu_memref,
    output_operands,
    result_buffer,
    set_fusion_attrs,
)
from disc_ir.fusion.strategies import make_fusion_pipeline
from disc_ir.fusion.strategy_base import (
    REFUSE_ALL,
    FusionStrategy,
    PlacementAwareFusionStrategy,
)
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


def horizontal_fusion_enabled() -> bool:
    """`DISC_ENABLE_HORIZONTAL_FUSION`, on unless set false (BladeDISC's default)."""
    return config.flag("DISC_ENABLE_HORIZONTAL_FUSION")


def mem_intensive_opt_enabled() -> bool:
    """`DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL`, on unless set false (BladeDISC's default)."""
    return config.flag("DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL")


def is_inplace(op: Operation) -> bool:
    """An lmhlo op whose output buffer is also one of its inputs."""
    if not is_lmhlo_op(op) or op.name == "lmhlo.terminator":
        return False
    out = result_buffer(op)
    return out is not None and any(v is out for v in op.operands[:-1])


class _UnionFind:
    """Union-find whose merged set keeps the first argument's leader."""

    def __init__(self, n: int) -> None:
        self._parent = list(range(n))

    def leader(self, x: int) -> int:
        while self._parent[x] != x:
            self._parent[x] = self._parent[self._parent[x]]
            x = self._parent[x]
        return x

    def union(self, a: int, b: int) -> None:
        la, lb = self.leader(a), self.leader(b)
        if la != lb:
            self._parent[lb] = la


class _Cluster:
    """A (partial) fusion: its node in the cycle graph and its pattern."""

    __slots__ = ("node_id", "pattern")

    def __init__(self, node_id: int, pattern: FusionPattern) -> None:
        self.node_id = node_id
        self.pattern = pattern


class FusionPlanner:
    """Proposes the fusion plan (a list of patterns) of one block."""

    def __init__(
        self,
        pipeline: list[PlacementAwareFusionStrategy],
        block: Block,
        shape_analysis: ShapeAnalysis,
    ) -> None:
        assert pipeline
        self.pipeline = pipeline
        self.strategy: PlacementAwareFusionStrategy = pipeline[0]
        self.block = block
        self.shape_analysis = shape_analysis
        self._move_up_metadata_only_ops()
        self.op_list: list[Operation] = list(block.ops)
        # per-op operand / result facts shared by every (trial) pattern: the IR
        # does not change while planning
        self.facts = OpFacts()
        n = len(self.op_list)
        # BladeDISC also keeps `original_graph_with_explicit_edges_`, a copy
        # with the same edges that nothing here reads: not kept.
        self.cycles = GraphCycles(n)
        self.op_to_node: dict[Operation, int] = {}
        self.leaders = _UnionFind(n)
        self.clusters: list[_Cluster] = []
        self.last_writer: dict[SSAValue, Operation] = {}
        # (lhs, rhs) pattern ids whose merge the current stage's strategy refused;
        # the patterns are kept alive so their ids are not reused.
        self._refused: set[tuple[int, int]] = set()
        self._refused_patterns: list[FusionPattern] = []
        # the current stage's strategy's `is_fusible` verdict per pattern: it
        # reads the pattern's op list and kind, which change for no pattern
        # while the stage contracts (merges make new patterns)
        self._fusible: dict[FusionPattern, bool] = {}
        self._build_node_map()

    # -- setup --------------------------------------------------------------------

    def _move_up_metadata_only_ops(self) -> None:
        block = self.block
        positions = _BlockPositions(block)

        def defining_in_block(v: SSAValue) -> Operation | None:
            owner = v.owner
            if isinstance(owner, Operation) and owner.parent_block() is block:
                return owner
            return None

        def move_to_front(op: Operation) -> None:
            first = block.first_op
            if first is op:
                return
            op.detach()
            assert first is not None
            block.insert_op_before(op, first)
            positions.moved(op)

        def move_after(op: Operation, anchor: Operation) -> None:
            if anchor is op:
                return
            op.detach()
            block.insert_op_after(op, anchor)
            positions.moved(op)

        for op in list(block.ops):
            if op.name == "shape.shape_of":
                d = defining_in_block(op.operands[0])
                if d is None:
                    move_to_front(op)
                else:
                    move_after(op, d)
            elif op.name == "memref.dim" and len(op.operands) == 2:
                a, b = (defining_in_block(v) for v in op.operands)
                if a is None and b is None:
                    move_to_front(op)
                elif a is None:
                    assert b is not None
                    move_after(op, b)
                elif b is None:
                    move_after(op, a)
                elif positions.is_before(a, b):
                    move_after(op, b)
                else:
                    move_after(op, a)

    def _find_last_writer(self, v: SSAValue) -> Operation | None:
        op = self.last_writer.get(v)
        if op is not None:
            return op
        return v.owner if isinstance(v.owner, Operation) else None

    def _build_node_map(self) -> None:
        for node_id, op in enumerate(self.op_list):
            pattern = FusionPattern([op], self.facts)
            self.strategy.init_fusion_pattern(self.shape_analysis, pattern)
            self.clusters.append(_Cluster(node_id, pattern))
            self.op_to_node[op] = node_id
            for nested in preorder_ops(op):
                for v in nested.operands:
                    writer = self._find_last_writer(v)
                    src = self.op_to_node.get(writer) if writer is not None else None
                    if src is None or src == node_id:
                        continue
                    self.cycles.insert_edge(src, node_id)
            if is_inplace(op) or not is_lmhlo_op(op):
                for i in buffer_writes(op):
                    self.last_writer[op.operands[i]] = op
            else:
                for v in output_operands(op):
                    self.last_writer.setdefault(v, op)

    # -- cluster bookkeeping ------------------------------------------------------------

    def cluster_of_op(self, op: Operation) -> _Cluster:
        return self.clusters[self.leaders.leader(self.op_to_node[op])]

    def cluster_of_node(self, node: int) -> _Cluster:
        return self.clusters[self.leaders.leader(node)]

    # -- planning -------------------------------------------------------------------------

    def run(self) -> list[FusionPattern] | None:
        """The fusion plan, or None when a strategy failed to finalise its patterns."""
        for strategy in self.pipeline:
            self.strategy = strategy
            self._init_fusion_patterns()
            self._refused.clear()
            self._refused_patterns.clear()
            self._fusible.clear()
            self._edge_contraction_loop()
            if not self._finalize_patterns():
                return None
        plan: list[FusionPattern] = []
        seen: set[int] = set()
        for op in self.op_list:
            cluster = self.cluster_of_op(op)
            if id(cluster) in seen:
                continue
            seen.add(id(cluster))
            pattern = cluster.pattern
            pattern.sort_by(self.op_to_node)
            size = pattern.effective_size()
            if (
                not pattern.is_fusible()
                or size < 1
                or (not pattern.is_transform_based() and size == 1)
            ):
                continue
            plan.append(pattern)
        self._reorder_operations()
        return plan

    def _init_fusion_patterns(self) -> None:
        """Re-initialise the unfused patterns with the current stage's strategy."""
        for node in self.cycles.all_nodes_in_post_order():
            pattern = self.cluster_of_node(node).pattern
            if not pattern.is_fusible():
                self.strategy.init_fusion_pattern(self.shape_analysis, pattern)

    def _for_each_edge_in_post_order(
        self, fn: Callable[[_Cluster, _Cluster], bool], cross: bool = False
    ) -> bool:
        """Apply `fn` to every (producer, consumer) cluster pair in post order; with
        `cross`, also to unconnected pairs through a temporary edge. True if any
        call returned True."""
        changed = False
        for node in self.cycles.all_nodes_in_post_order():
            src = self.cluster_of_node(node)
            for to in self.cycles.successors(src.node_id):
                changed |= fn(src, self.cluster_of_node(to))
        if not cross:
            return changed
        skip_reshapes = mem_intensive_opt_enabled()

        def lone_reshape(pattern: FusionPattern) -> bool:
            return (
                skip_reshapes
                and len(pattern.op_list) == 1
                and pattern.op_list[0].name in ("lmhlo.dynamic_reshape", "lmhlo.reshape")
            )

        return self._horizontal_sweep(lone_reshape) or changed

    def _horizontal_sweep(self, lone_reshape: Callable[[FusionPattern], bool]) -> bool:
        """Try every unconnected pair of fusible clusters (BladeDISC inserts a
        virtual edge lhs -> rhs and tries to contract it); True if any merged.

        BladeDISC's order and side effects are kept exactly, cheaper: the
        strategy is asked first (it does not look at the graph), for a whole
        class of pairs at once where it can (`_UnconnectedKeys`); a refused
        pair only needs its virtual edge's effect on the topological ranks
        (`GraphCycles.reorder_as_if_edges`, nothing when the ranks are already
        in order), as the edge is removed again right away.
        """
        cycles = self.cycles
        order = cycles.all_nodes_in_post_order()
        keys = _UnconnectedKeys(self.strategy, self.shape_analysis)

        def candidates() -> tuple[list[int], list[_Cluster], np.ndarray, dict[int, list[int]]]:
            # positions in `order` of the nodes whose cluster can take part,
            # those clusters, their nodes and, per cluster, its indices in
            # these lists: they change with merges only
            positions: list[int] = []
            clusters: list[_Cluster] = []
            members: dict[int, list[int]] = {}
            for i, node in enumerate(order):
                cluster = self.cluster_of_node(node)
                if cluster.pattern.is_fusible() and not lone_reshape(cluster.pattern):
                    members.setdefault(id(cluster), []).append(len(positions))
                    positions.append(i)
                    clusters.append(cluster)
            nodes = np.fromiter((c.node_id for c in clusters), dtype=np.int64, count=len(clusters))
            return positions, clusters, nodes, members

        def merged_into(lc: _Cluster, rc: _Cluster) -> bool:
            # `rc` was merged into `lc`: their candidate entries become the
            # merged cluster's, in place (False: it cannot take part, the
            # lists need rebuilding)
            if not lc.pattern.is_fusible() or lone_reshape(lc.pattern):
                return False
            mine = members[id(lc)]
            theirs = members.pop(id(rc))
            for i in theirs:
                cand_clusters[i] = lc
            mine += theirs
            cand_nodes[mine] = lc.node_id
            keys.refresh(cand_clusters, mine)
            return True

        changed = False
        cands, cand_clusters, cand_nodes, members = candidates()
        for lhs in order:
            lc = self.cluster_of_node(lhs)
            if lone_reshape(lc.pattern) or not lc.pattern.is_fusible():
                continue
            k = 0
            while k < len(cands):
                # the candidates from `k` on that no path joins to `lhs`'s
                # cluster: the closure changes with merges only
                free = np.flatnonzero(~cycles.connected_to(lc.node_id, cand_nodes[k:])) + k
                verdicts = keys.verdicts(lc.pattern, cand_clusters, free)
                # A refused pair ranked in order leaves no trace; the ranks
                # below `lhs`'s only fall further below it.
                busy = (verdicts != _REFUSED) | (
                    cycles.ranks_of(cand_nodes[free]) < cycles.rank(lc.node_id)
                )
                merged_at = restart_at = -1
                refused: list[int] = []  # their rank changes are replayed in one go
                for j, verdict in zip(free[busy].tolist(), verdicts[busy].tolist(), strict=True):
                    rc = cand_clusters[j]
                    if rc is lc:
                        continue
                    a, b = lc.node_id, rc.node_id
                    if verdict == _REFUSED:
                        refused.append(b)
                        continue
                    if refused:
                        cycles.reorder_as_if_edges(a, refused)
                        refused = []
                    merged = None
                    if verdict == _ACCEPTED or self.strategy.may_merge_unconnected(
                        self.shape_analysis, lc.pattern, rc.pattern
                    ):
                        merged = self._trial_merge(lc, rc)
                    if merged is None:
                        cycles.reorder_as_if_edges(a, [b])
                        if keys.stale():
                            restart_at = j + 1  # the strategy learnt a fact
                            break
                        continue
                    # A virtual edge lets the normal contraction merge the pair.
                    cycles.insert_edge(a, b)
                    self._contract(lc, rc, merged)
                    changed = True
                    merged_at = cands[j]  # a position in `order`: the lists may be rebuilt
                    if not merged_into(lc, rc):
                        cands, cand_clusters, cand_nodes, members = candidates()
                    break
                if refused:
                    cycles.reorder_as_if_edges(lc.node_id, refused)
                if restart_at >= 0:
                    k = restart_at
                    continue
                if merged_at < 0:
                    break
                k = bisect.bisect_right(cands, merged_at)
                lc = self.cluster_of_node(lhs)
        return changed

    def _trial_merge(self, src: _Cluster, dst: _Cluster) -> FusionPattern | None:
        """The strategy's merge of the two clusters' patterns, or None."""
        # The strategy's answer depends on the two patterns only: a refused
        # pair (same pattern objects, same stage) is refused again.
        key = (id(src.pattern), id(dst.pattern))
        if key in self._refused:
            return None
        merged = self.strategy.try_fuse_inplace(self.shape_analysis, src.pattern, dst.pattern)
        if merged is None:
            self._refused.add(key)
            self._refused_patterns += (src.pattern, dst.pattern)
        return merged

    def _contract(self, src: _Cluster, dst: _Cluster, merged: FusionPattern) -> None:
        """Merge `dst` into `src` along the edge between their nodes."""
        a, b = src.node_id, dst.node_id
        node = self.cycles.contract_edge(a, b)
        assert node is not None
        src.pattern = merged
        src.node_id = node
        self.leaders.union(a, b)

    def _is_fusible(self, pattern: FusionPattern) -> bool:
        """`self.strategy.is_fusible(pattern)`, asked once per pattern and stage."""
        ok = self._fusible.get(pattern)
        if ok is None:
            ok = self._fusible[pattern] = self.strategy.is_fusible(pattern)
        return ok

    def _try_contract(self, src: _Cluster, dst: _Cluster) -> bool:
        if (
            (id(src.pattern), id(dst.pattern)) in self._refused
            or not self._is_fusible(src.pattern)
            or not self._is_fusible(dst.pattern)
        ):
            # refused whatever the graph says (a side the stage cannot fuse, or
            # a pair `_trial_merge` refused before): only the edge's move that
            # BladeDISC's cycle check makes is kept
            self.cycles.touch_edge(src.node_id, dst.node_id)
            return False
        if not self.cycles.can_contract_edge(src.node_id, dst.node_id):
            return False
        merged = self._trial_merge(src, dst)
        if merged is None:
            return False
        self._contract(src, dst, merged)
        return True

    def _edge_contraction_loop(self) -> None:
        while self._for_each_edge_in_post_order(self._try_contract):
            pass
        # Horizontal fusion last, so it never pre-empts producer/consumer fusion.
        horizontal = horizontal_fusion_enabled() and not _only_dot_strategy(self.strategy)
        if horizontal:
            while self._for_each_edge_in_post_order(self._try_contract, cross=True):
                pass

    def _finalize_patterns(self) -> bool:
        for node in self.cycles.all_nodes_in_post_order():
            excluded: list[Operation] = []
            pattern = self.cluster_of_node(node).pattern
            if not self.strategy.prune_fusion_pattern(self.shape_analysis, pattern, excluded):
                return False
            if excluded:
                return False  # no implemented strategy prunes; see module doc
        return True

    def _reorder_operations(self) -> None:
        """Move consumers after producers' last ops so fused regions keep dominance."""
        block = self.block
        positions = _BlockPositions(block)
        # each cluster's first op in the block: the order among a cluster's
        # ops changes only when `reorder` moves some of them (dropped then)
        first_ops: dict[int, Operation] = {}

        def reorder(src: _Cluster, dst: _Cluster) -> bool:
            last = src.pattern.op_list[-1]
            first = first_ops.get(id(dst))
            if first is None:
                first = first_ops[id(dst)] = positions.first_of(dst.pattern.op_list)
            if positions.is_before(last, first):
                return False  # all of `dst` already follows `last`
            changed = False
            for op in reversed(dst.pattern.op_list):
                if not positions.is_before(last, op):
                    changed = True
                    op.detach()
                    block.insert_op_after(op, last)
                    positions.moved(op)
            if changed:
                del first_ops[id(dst)]
            return changed

        while self._for_each_edge_in_post_order(reorder):
            pass


#: `_UnconnectedKeys.verdicts`: the strategy refuses the pair, accepts it
#: (a trial merge decides), or can only tell by looking at the pair
_REFUSED, _ACCEPTED, _ASK = 0, 1, 2


class _UnconnectedKeys:
    """The strategy's `may_merge_unconnected` for one pattern against many,
    by classes of patterns (`FusionStrategy.unconnected_merge_key`): each
    pattern's key gets a small integer code, each pair of codes one answer,
    valid while the shape analysis learns nothing new (`stale`)."""

    def __init__(self, strategy: FusionStrategy, shape_analysis: ShapeAnalysis) -> None:
        self.strategy = strategy
        self.shape_analysis = shape_analysis
        self._reset()

    def _reset(self) -> None:
        self._version = self.shape_analysis.version
        self._codes: dict[object, int] = {}
        self._keys: list[object] = []
        self._pattern_codes: dict[int, tuple[FusionPattern, int]] = {}
        self._answers: dict[int, np.ndarray] = {}
        self._clusters: list[_Cluster] | None = None
        self._cluster_codes = np.zeros(0, dtype=np.int64)

    def stale(self) -> bool:
        """Whether the analysis changed since the codes were made (they are
        remade at the next `verdicts`)."""
        return self.shape_analysis.version != self._version

    def _code(self, pattern: FusionPattern) -> int:
        """The code of `pattern`'s key; -1 when it has none (ask per pair)."""
        found = self._pattern_codes.get(id(pattern))
        if found is not None and found[0] is pattern:
            return found[1]
        key = self.strategy.unconnected_merge_key(self.shape_analysis, pattern)
        code = -1
        if key is not None:
            code = self._codes.get(key, -1)
            if code < 0:
                code = self._codes[key] = len(self._keys)
                self._keys.append(key)
        self._pattern_codes[id(pattern)] = (pattern, code)
        return code

    def _refuse_all_code(self) -> int:
        """The code of `REFUSE_ALL` (a pattern merging with nothing
        unconnected, whichever side it is on); -1 while no pattern has it."""
        return self._codes.get(REFUSE_ALL, -1)

    def refresh(self, clusters: list[_Cluster], changed: list[int]) -> None:
        """`clusters[i]` for `i` in `changed` holds a new pattern (the same
        list, changed in place)."""
        if self._clusters is clusters and not self.stale():
            codes = self._cluster_codes
            for i in changed:
                codes[i] = self._code(clusters[i].pattern)

    def _answers_for(self, code: int) -> np.ndarray:
        """`may_merge_unconnected_keys(code, c)` for every code `c` so far."""
        found = self._answers.get(code)
        count = len(self._keys)
        if found is None or len(found) < count:
            ask = self.strategy.may_merge_unconnected_keys
            lhs_key = self._keys[code]
            found = np.fromiter(
                (ask(self.shape_analysis, lhs_key, k) for k in self._keys), dtype=bool, count=count
            )
            self._answers[code] = found
        return found

    def verdicts(
        self, lhs: FusionPattern, clusters: list[_Cluster], picked: np.ndarray
    ) -> np.ndarray:
        """`_REFUSED` / `_ACCEPTED` / `_ASK` for `lhs` against the pattern of
        each of `clusters[i]`, `i` in `picked` (an int64 array). `clusters`
        is taken to hold the same patterns as long as it is the same list."""
        if self.stale():
            self._reset()
        lhs_code = self._code(lhs)
        if lhs_code >= 0 and self._keys[lhs_code] is REFUSE_ALL:
            return np.full(len(picked), _REFUSED, dtype=np.int8)
        if self._clusters is not clusters:
            self._clusters = clusters
            self._cluster_codes = np.fromiter(
                (self._code(c.pattern) for c in clusters), dtype=np.int64, count=len(clusters)
            )
        codes = self._cluster_codes[picked]
        if lhs_code < 0:
            # only the pair can tell, unless the candidate merges with nothing
            out = np.full(len(picked), _ASK, dtype=np.int8)
            refuse_all = self._refuse_all_code()
            if refuse_all >= 0:
                out[codes == refuse_all] = _REFUSED
            return out
        answers = self._answers_for(lhs_code)
        out = np.where(answers[np.maximum(codes, 0)], _ACCEPTED, _REFUSED).astype(np.int8)
        out[codes < 0] = _ASK
        return out


class _BlockPositions:
    """Order keys of a block's ops, kept up to date as ops move, so "is `a`
    before `b`" is one comparison instead of a walk down the block."""

    #: Python ints: a wide gap lets ~128 ops be moved into one slot before
    #: the block is renumbered (the reordering moves many after one op)
    _GAP = 1 << 128

    def __init__(self, block: Block) -> None:
        self.block = block
        self._key: dict[Operation, int] = {}
        self._renumber()

    def _renumber(self) -> None:
        self._key = {op: i * self._GAP for i, op in enumerate(self.block.ops)}

    def is_before(self, a: Operation, b: Operation) -> bool:
        """`a.is_before_in_block(b)` for two ops of the block."""
        return self._key[a] < self._key[b]

    def first_of(self, ops: list[Operation]) -> Operation:
        """The op of `ops` (ops of the block, not empty) placed first."""
        return min(ops, key=self._key.__getitem__)

    def moved(self, op: Operation) -> None:
        """Record that `op` now sits where it is in the block (after a move)."""
        prev, nxt = op.prev_op, op.next_op
        lo = self._key[prev] if prev is not None else -self._GAP
        hi = self._key[nxt] if nxt is not None else lo + 2 * self._GAP
        if hi - lo < 2:
            self._renumber()
        else:
            self._key[op] = (lo + hi) // 2


def _only_dot_strategy(strategy: FusionStrategy) -> bool:
    strategies = getattr(strategy, "device_strategies", {})
    return (
        list(strategies) == ["gpu"] and type(strategies["gpu"]).__name__ == "DotGpuFusionStrategy"
    )


def _blocks_to_fuse(f: func.FuncOp) -> list[Block]:
    """Blocks of `f`, nested ones first, except reduce / fusion bodies."""
    out: list[Block] = []

    def visit(region: Region) -> None:
        for block in region.blocks:
            for op in block.ops:
                for r in op.regions:
                    visit(r)
            parent = block.parent_op()
            if parent is None or parent.name not in ("lmhlo.reduce", "lmhlo.fusion"):
                out.append(block)

    visit(f.body)
    return out


def apply_fusion_plan(
    plan: list[FusionPattern],
    max_fusions: int | None = None,
    made_from: dict[Operation, FusionPattern] | None = None,
) -> int:
    """Wrap each pattern's ops in an `lmhlo.fusion`; the number of fusions made
    (each recorded in `made_from`, fusion -> its pattern, when given)."""
    made = 0
    for pattern in plan:
        if max_fusions is not None and made >= max_fusions:
            break
        ops = pattern.op_list
        last = ops[-1]
        block = last.parent_block()
        assert block is not None
        body = Block()
        fusion = FusionOp.create(regions=[Region(body)])
        block.insert_op_before(fusion, last)
        for op in ops:
            op.detach()
            body.add_op(op)
        body.add_op(TerminatorOp.create())
        dominant = pattern.dominant_op or ops[0]
        out = result_buffer(dominant)
        device = "gpu" if out is not None and is_gpu_memref(out) else "cpu"
        set_fusion_attrs(fusion, pattern.fusion_type, device)
        if made_from is not None:
            made_from[fusion] = pattern
        made += 1
    return made


def name_fusions(
    f: func.FuncOp,
    shape_analysis: ShapeAnalysis,
    made_from: dict[Operation, FusionPattern] | None = None,
) -> None:
    """Name each unnamed fusion `<func>_<signature>_<counter>`, BladeDISC's way.

    The signature is that of the fusion's pattern, re-made from the fusion
    op; for the fusions in `made_from`, whose type the plan already knows,
    without running the strategy's analysis again."""
    made_from = made_from or {}
    fusions = [op for op in preorder_ops(f) if op.name == "lmhlo.fusion"]
    names = {fusion_name(op) for op in fusions if fusion_name(op)}
    counters: dict[str, int] = {}
    func_name = f.sym_name.data
    for op in fusions:
        if fusion_name(op):
            continue
        planned = made_from.get(op)
        if planned is None:
            pattern = FusionPattern.from_fusion_op(op, shape_analysis)
        else:
            # the roots and results of the body as it now stands (the planned
            # pattern lists them in merge order), the type as planned
            pattern = FusionPattern(fusion_body_ops(op))
            pattern.fusion_type = planned.fusion_type
        signature = generate_signature(pattern)
        if signature not in names:
            names.add(signature)
            counters[signature] = 0
        while True:
            counter = counters.get(signature, 0)
            counters[signature] = counter + 1
            name = f"{func_name}_{signature}_{counter}"
            if name not in names:
                break
        op.attributes["disc.fusion.name"] = builtin.StringAttr(name)


@register_pass
@dataclass(frozen=True)
class DiscFusionPass(ModulePass):
    """Fuse lmhlo ops to kLoop/kInput fusion patterns."""

    name = "disc-fusion"

    gpu_enabled: bool = True
    fusion_strategy: str = "base"
    mlir_compute_intensive_codegen: bool = False

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "gpu-enabled": "whether gpu is available.",
        "fusion-strategy": "Name of the fusion strategy (base or stitch).",
        "mlir-compute-intensive-codegen": "whether using MLIR based compute intensive codegen.",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.fusion_strategy not in ("base", "stitch"):
            raise DiagnosticException(
                f"disc-fusion: unknown fusion-strategy '{self.fusion_strategy}' "
                "(expected base or stitch)"
            )
        for f in [o for o in preorder_ops(op) if isinstance(o, func.FuncOp)]:
            if f.sym_name.data == SHAPE_CONSTRAINT_GRAPH or not f.body.blocks:
                continue
            self._run_on_function(f)

    def _run_on_function(self, f: func.FuncOp) -> None:
        shape_analysis = ShapeAnalysis(f, use_shape_constraint_ir=shape_constraint_ir_enabled())
        pipeline = make_fusion_pipeline(
            self.gpu_enabled, self.fusion_strategy, self.mlir_compute_intensive_codegen
        )
        max_fusions = config.get_optional_int("DISC_DEBUG_MAX_FUSION_NUMBER")
        total = 0
        made_from: dict[Operation, FusionPattern] = {}
        for block in _blocks_to_fuse(f):
            plan = FusionPlanner(pipeline, block, shape_analysis).run()
            if plan is None:
                raise DiagnosticException(
                    f"@{f.sym_name.data}: an error occurs while trying to find fusion candidates"
                )
            remaining = None if max_fusions is None else max(0, max_fusions - total)
            apply_fusion_plan(plan, remaining, made_from)
            total += len(plan)
        expected = config.get_optional_int("DISC_EXPECTED_KERNELS_IN_UT")
        if expected is not None and expected >= 0 and expected != total:
            raise DiagnosticException(
                f"@{f.sym_name.data}: fusion pattern number is not as expected "
                f"({expected} vs {total})"
            )
        name_fusions(f, shape_analysis, made_from)


__all__ = ["DiscFusionPass", "FusionPlanner", "apply_fusion_plan", "name_fusions"]
