"""Fusion strategies deciding which fusion patterns may merge: the XLA-style "base" family.

Re-implements BladeDISC's `FusionStrategy` hierarchy (`fusion_utils.cc`):

* `FusionStrategy`: the common rules -- both sides fusible, at most
  `max_num_arguments_per_kernel` operands + results, no `lmhlo.constant` root.
* `BaseFusionStrategy`: kLoop / kInput fusion. A reduce's output is never read
  inside its own fusion; all results must provably hold the same number of
  elements (the same shape when both sides are kInput on the GPU), comparing
  each result's *effective shape* (a reduce's is its input's).
* `BaseGpuFusionStrategy`: only rank-2 row / column reductions; never both
  kinds in one fusion; no rank-2/3 transposes. Types kLoop / kRowReduction /
  kColReduction.
* `BaseCpuFusionStrategy`: any reduce (kRowReduction for trailing-dims
  reductions, kInput otherwise); reshapes only with the shape-constraint IR
  and only expand-like ones; a reduce root must be the single root; nothing
  marked `disc.shape_op`.
* `StitchBaseCpuFusionStrategy`: the CPU base rules restricted to the ops the
  CPU stitch codegen supports (the first stage of the CPU stitch pipeline).
* `PlacementAwareFusionStrategy`: dispatches to the strategy of the op's
  device (`disc.device` / memory space); patterns on different devices never
  merge, and a device without a strategy (CPU ops under `gpu-enabled=true`)
  fuses nothing.

Library calls (dot, convolution, custom calls) and non-lmhlo ops are simply
not fusible, so they end fusions: the planner never merges across them.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Operation, SSAValue

from disc_ir import config
from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.config import shape_constraint_ir_enabled
from disc_ir.dialects.hlo_attrs import ints
from disc_ir.fusion.pattern import (
    FusionPattern,
    FusionType,
    is_elementwise,
    is_fusible,
    is_gpu_lmhlo,
    is_rank2_col_reduction,
    is_rank2_or3_transpose,
    is_rank2_row_reduction,
    is_row_reduction,
    is_shape_calc,
    output_operands,
    result_buffer,
    value_users,
)
from disc_ir.ir.attrs import inherent_attr

_RESHAPES = ("lmhlo.reshape", "lmhlo.dynamic_reshape")
#: `unconnected_merge_key` of a pattern that merges with no unconnected pattern
REFUSE_ALL = ("refuse-all",)
#: `FusionPattern.checks` key of the pattern's device
_PLACEMENT_KEY = "placement"


@dataclass(frozen=True)
class FusionOptions:
    """Limits every strategy honours."""

    #: Maximum kernel arguments (read-only plus written buffers).
    max_num_arguments_per_kernel: int = 64


def large_concat_limit() -> int:
    return config.get_int("DISC_CPU_LARGE_CONCAT_NUM_OPERANDS")


def is_large_concat(op: Operation) -> bool:
    """A concatenate with many operands (its own CPU schedule, kLargeConcat)."""
    return op.name == "lmhlo.concatenate" and len(op.operands) >= large_concat_limit()


def _has_consumer_inside(op: Operation, pattern: FusionPattern) -> bool:
    for v in output_operands(op):
        for user in value_users(v):
            if user is not op and pattern.contains(user):
                return True
    return False


def is_expand_like_reshape(shape_analysis: ShapeAnalysis, op: Operation) -> bool:
    """A reshape that only inserts / removes size-1 dims (needs the shape-constraint IR)."""
    if not shape_analysis.use_shape_constraint_ir:
        return False
    src, dst = op.operands[0], result_buffer(op)
    if dst is None:
        return False
    in_dims = shape_analysis.symbolic_dims(src)
    out_dims = shape_analysis.symbolic_dims(dst)
    if in_dims is None or out_dims is None:
        return False
    ins = [i for i, d in enumerate(in_dims) if d.value != 1]
    outs = [i for i, d in enumerate(out_dims) if d.value != 1]
    if len(ins) != len(outs):
        return False
    return all(shape_analysis.is_dim_equal(src, i, dst, j) for i, j in zip(ins, outs, strict=True))


class FusionStrategy:
    """Decides fusibility of ops and patterns, and whether two patterns merge."""

    name = "FusionStrategy"

    def __init__(self, options: FusionOptions | None = None) -> None:
        self.options = options or FusionOptions()

    def is_fusible_op(self, op: Operation) -> bool:
        return is_fusible(op)

    def is_fusible(self, pattern: FusionPattern) -> bool:
        if not pattern.is_fusible():
            return False
        # the op list of a pattern never changes: ask each strategy once
        ok = pattern.checks.get(self)
        if ok is None:
            facts = pattern.facts
            ok = pattern.checks[self] = (
                facts.all_fusible(self, pattern.op_list)
                if facts is not None
                else all(self.is_fusible_op(op) for op in pattern.op_list)
            )
        return bool(ok)

    def is_fusible_op_of(self, pattern: FusionPattern, op: Operation) -> bool:
        """`is_fusible_op(op)` for an op of `pattern`, asked once per op while
        planning (the pattern's `OpFacts`)."""
        facts = pattern.facts
        return facts.fusible(self, op) if facts is not None else self.is_fusible_op(op)

    def init_fusion_pattern(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> bool:
        """Set `pattern`'s fusion type and dominant op; False if not fusible."""
        raise NotImplementedError

    def prune_fusion_pattern(
        self, shape_analysis: ShapeAnalysis, pattern: FusionPattern, excluded: list[Operation]
    ) -> bool:
        """Move ops that must not stay in `pattern` to `excluded` (none by default)."""
        return True

    def try_fuse(
        self,
        shape_analysis: ShapeAnalysis,
        lhs: FusionPattern,
        rhs: FusionPattern,
        target: FusionPattern,
    ) -> bool:
        if len(target.results) + len(target.operands) > self.options.max_num_arguments_per_kernel:
            return False
        # A constant cannot be an output of a fusion.
        return not any(op.name == "lmhlo.constant" for op in target.root_ops)

    def may_merge(
        self, shape_analysis: ShapeAnalysis, lhs: FusionPattern, rhs: FusionPattern
    ) -> bool:
        """False only when `try_fuse` would refuse the merge of these two
        patterns: a necessary condition, asked before the merged pattern is
        built (True when unsure)."""
        return True

    def may_merge_unconnected(
        self, shape_analysis: ShapeAnalysis, lhs: FusionPattern, rhs: FusionPattern
    ) -> bool:
        """False only when `try_fuse_inplace(lhs, rhs)` would refuse, for two
        patterns no path joins (the horizontal sweep asks it of every such
        pair, before building anything). No path joins them, so each side's
        roots stay roots of the merge: a constant root is refused. Answered
        from the two keys (`unconnected_merge_key`) where both have one."""
        lhs_key = self.unconnected_merge_key(shape_analysis, lhs)
        rhs_key = self.unconnected_merge_key(shape_analysis, rhs)
        if lhs_key is REFUSE_ALL or rhs_key is REFUSE_ALL:
            return False
        if lhs_key is None or rhs_key is None:
            return self.may_merge(shape_analysis, lhs, rhs)
        return self.may_merge_unconnected_keys(shape_analysis, lhs_key, rhs_key)

    def unconnected_merge_key(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> Any:
        """What `may_merge_unconnected` looks at of `pattern`, hashable: for
        two patterns no path joins whose keys are both not None,
        `may_merge_unconnected(lhs, rhs) ==
        may_merge_unconnected_keys(key(lhs), key(rhs))`, so the horizontal
        sweep answers a class of pairs at once. `REFUSE_ALL` when `pattern`
        merges with nothing unconnected; None when only the pair can tell."""
        if not self.is_fusible(pattern) or _has_constant_root(pattern):
            return REFUSE_ALL
        return None

    def may_merge_unconnected_keys(
        self, shape_analysis: ShapeAnalysis, lhs_key: Any, rhs_key: Any
    ) -> bool:
        """`may_merge_unconnected` of two unconnected patterns from their keys
        (see `unconnected_merge_key`; neither is None)."""
        return lhs_key is not REFUSE_ALL and rhs_key is not REFUSE_ALL

    def try_fuse_inplace(
        self, shape_analysis: ShapeAnalysis, lhs: FusionPattern, rhs: FusionPattern
    ) -> FusionPattern | None:
        """The initialised merge of `lhs` and `rhs`, or None if they must not merge."""
        if not self.is_fusible(lhs) or not self.is_fusible(rhs):
            return None
        if not self.may_merge(shape_analysis, lhs, rhs):
            return None
        target = lhs.merged_with(rhs)
        if not self.try_fuse(shape_analysis, lhs, rhs, target):
            return None
        if not self.init_fusion_pattern(shape_analysis, target):
            return None
        return target


class BaseFusionStrategy(FusionStrategy):
    """XLA-style loop / input fusion (see module doc)."""

    name = "BaseFusionStrategy"

    def is_fusible(self, pattern: FusionPattern) -> bool:
        if pattern.is_stitch():
            return False
        return super().is_fusible(pattern)

    def init_fusion_pattern(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> bool:
        dominant: Operation | None = None
        ftype = FusionType.NONE
        for op in pattern.op_list:
            if is_rank2_row_reduction(op):
                ftype, dominant = FusionType.ROW_REDUCTION, op
            elif is_rank2_col_reduction(op):
                if ftype is not FusionType.ROW_REDUCTION:
                    ftype, dominant = FusionType.COL_REDUCTION, op
            elif self.is_fusible_op_of(pattern, op):
                if ftype in (FusionType.NONE, FusionType.LOOP):
                    ftype, dominant = FusionType.LOOP, op
            elif op.name != "lmhlo.terminator":
                ftype, dominant = FusionType.NONE, None
                break
        pattern.dominant_op, pattern.fusion_type = dominant, ftype
        return ftype is not FusionType.NONE and dominant is not None

    def effective_shape(self, target: FusionPattern, value: SSAValue) -> SSAValue:
        return value

    def check_same_shape(self, lhs: FusionPattern, rhs: FusionPattern) -> bool:
        """Compare results' shapes (True) or only their element counts (False)."""
        return False

    def try_fuse(
        self,
        shape_analysis: ShapeAnalysis,
        lhs: FusionPattern,
        rhs: FusionPattern,
        target: FusionPattern,
    ) -> bool:
        if not super().try_fuse(shape_analysis, lhs, rhs, target):
            return False
        # A reduce's output cannot be consumed inside its own fusion.
        for op in target.op_list:
            if op.name == "lmhlo.reduce" and _has_consumer_inside(op, target):
                return False
        if not target.results:
            return True  # dead ops: fuse them, a later DCE removes them
        if lhs.is_sparse() or rhs.is_sparse():
            return False
        ref = self.effective_shape(target, target.results[0])
        same_shape = self.check_same_shape(lhs, rhs)
        for result in target.results:
            shape = self.effective_shape(target, result)
            ok = (
                shape_analysis.is_shape_equal(ref, shape)
                if same_shape
                else shape_analysis.is_same_num_elements(ref, shape)
            )
            if not ok:
                return False
        return True


def mixes_row_and_col_reductions(pattern: FusionPattern) -> bool:
    """Whether `pattern` holds both a rank-2 row and a rank-2 column
    reduction (no GPU schedule emits both in one kernel)."""
    ops = pattern.op_list
    return any(is_rank2_row_reduction(op) for op in ops) and any(
        is_rank2_col_reduction(op) for op in ops
    )


class BaseGpuFusionStrategy(BaseFusionStrategy):
    """Base fusion for GPU kernels: rank-2 reductions only."""

    name = "BaseGpuFusionStrategy"

    def is_fusible_op(self, op: Operation) -> bool:
        if op.name == "lmhlo.reduce" and not (
            is_rank2_row_reduction(op) or is_rank2_col_reduction(op)
        ):
            return False
        if is_rank2_or3_transpose(op):
            return False
        return super().is_fusible_op(op)

    def check_same_shape(self, lhs: FusionPattern, rhs: FusionPattern) -> bool:
        return lhs.is_kinput() and rhs.is_kinput()

    def effective_shape(self, target: FusionPattern, value: SSAValue) -> SSAValue:
        writer = target.find_last_writer(value)
        if writer is not None and writer.name == "lmhlo.reduce":
            return writer.operands[0]
        if (
            writer is not None
            and writer.name == "lmhlo.dynamic_update_slice"
            and result_buffer(writer) in writer.operands[:-1]
        ):
            return writer.operands[1]
        return value

    def try_fuse(
        self,
        shape_analysis: ShapeAnalysis,
        lhs: FusionPattern,
        rhs: FusionPattern,
        target: FusionPattern,
    ) -> bool:
        if mixes_row_and_col_reductions(target):
            return False
        if any(is_rank2_col_reduction(op) for op in target.op_list):
            for result in target.results:
                writer = target.find_last_writer(result)
                if writer is not None and writer.name == "lmhlo.transpose":
                    return False
        return super().try_fuse(shape_analysis, lhs, rhs, target)


def _reshapes_expand_like(shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> bool:
    """Every reshape of `pattern` is expand-like (memoised per pattern)."""
    key = ("expand_like_reshapes", shape_analysis)
    ok = pattern.checks.get(key)
    if ok is None:
        ok = pattern.checks[key] = all(
            is_expand_like_reshape(shape_analysis, op)
            for op in pattern.op_list
            if op.name in _RESHAPES
        )
    return bool(ok)


def _result_classes(
    shape_analysis: ShapeAnalysis, pattern: FusionPattern
) -> tuple[Any, ...] | None:
    """The element classes (`ShapeAnalysis.elements_class`) of the results
    `pattern` keeps when merged with a pattern that reads none of them (the
    results read outside it), memoised per pattern and analysis state; None
    if one is unranked."""
    key = ("result_classes", shape_analysis)
    version = shape_analysis.version
    found = pattern.checks.get(key)
    if isinstance(found, tuple) and found[0] == version:
        return found[1]
    classes: tuple[Any, ...] | None = tuple(
        shape_analysis.elements_class(v) for v, readers in pattern.result_readers() if readers
    )
    if classes is not None and any(c is None for c in classes):
        classes = None
    pattern.checks[key] = (version, classes)
    return classes


def _has_constant_root(pattern: FusionPattern) -> bool:
    """A root of `pattern` is an `lmhlo.constant` (no fusion may output one)."""
    return any(op.name == "lmhlo.constant" for op in pattern.root_ops)


def _both_stitch_supported(lhs: FusionPattern, rhs: FusionPattern) -> bool:
    return all_stitch_cpu_supported(lhs) and all_stitch_cpu_supported(rhs)


def all_stitch_cpu_supported(pattern: FusionPattern) -> bool:
    """Every op of `pattern` is supported by the CPU stitch codegen (memoised)."""
    ok = pattern.checks.get("stitch_supported")
    if ok is None:
        ok = pattern.checks["stitch_supported"] = all(
            is_stitch_cpu_supported(op) for op in pattern.op_list
        )
    return bool(ok)


class BaseCpuFusionStrategy(BaseFusionStrategy):
    """Base fusion for CPU kernels (see module doc)."""

    name = "BaseCpuFusionStrategy"
    _classes_memo: dict[tuple[tuple[Any, ...], tuple[Any, ...]], bool]
    _classes_memo_version: tuple[weakref.ref[ShapeAnalysis], Any] | None = None

    def is_fusible_op(self, op: Operation) -> bool:
        if op.name in _RESHAPES:
            return shape_constraint_ir_enabled()
        if op.name == "lmhlo.transpose" and not config.flag(
            "DISC_CPU_ENABLE_EAGER_TRANSPOSE_FUSION"
        ):
            perm = ints(inherent_attr(op, "permutation"))
            if perm and perm[-1] != len(perm) - 1:
                return False
        if is_shape_calc(op):
            return False
        return super().is_fusible_op(op)

    def init_fusion_pattern(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> bool:
        dominant: Operation | None = None
        ftype = FusionType.NONE
        for op in pattern.op_list:
            if is_row_reduction(op):
                ftype, dominant = FusionType.ROW_REDUCTION, op
            elif op.name == "lmhlo.reduce":
                ftype, dominant = FusionType.INPUT, op
            elif self.is_fusible_op_of(pattern, op):
                if op.name == "lmhlo_disc.where":
                    ftype, dominant = FusionType.WHERE, op
                elif ftype in (FusionType.NONE, FusionType.LOOP):
                    ftype, dominant = FusionType.LOOP, op
            elif op.name != "lmhlo.terminator":
                ftype, dominant = FusionType.NONE, None
                break
        if len(pattern.root_ops) == 1 and is_large_concat(pattern.root_ops[0]):
            ftype = FusionType.LARGE_CONCAT
        pattern.dominant_op, pattern.fusion_type = dominant, ftype
        return ftype is not FusionType.NONE and dominant is not None

    def may_merge(
        self, shape_analysis: ShapeAnalysis, lhs: FusionPattern, rhs: FusionPattern
    ) -> bool:
        # `BaseFusionStrategy.try_fuse` on the CPU (effective shapes are the
        # results, element counts compared): the merged results must all hold
        # as many elements as the first
        results = lhs.merged_results(rhs)
        if not results:
            return True
        ref = results[0]
        return all(shape_analysis.is_same_num_elements(ref, r) for r in results)

    def unconnected_merge_key(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> Any:
        # No path joins the two: each side's results stay results, so the
        # answer of `may_merge` depends on the element classes of the two
        # sides' results only.
        key = super().unconnected_merge_key(shape_analysis, pattern)
        if key is REFUSE_ALL:
            return key
        return _result_classes(shape_analysis, pattern)

    def may_merge_unconnected_keys(
        self, shape_analysis: ShapeAnalysis, lhs_key: Any, rhs_key: Any
    ) -> bool:
        # memoised per pair of classes, per analysis state
        if lhs_key is REFUSE_ALL or rhs_key is REFUSE_ALL:
            return False
        version = shape_analysis.version
        memo_for = self._classes_memo_version
        if memo_for is None or memo_for[0]() is not shape_analysis or memo_for[1] != version:
            # a weak reference: the strategy is shared (`get_fusion_strategy`)
            # and outlives the pass, the analysis and its module must not
            self._classes_memo = {}
            self._classes_memo_version = (weakref.ref(shape_analysis), version)
        classes = (lhs_key, rhs_key)
        found = self._classes_memo.get(classes)
        if found is None:
            merged = lhs_key + rhs_key
            found = not merged or all(
                shape_analysis.same_elements_class(merged[0], c) for c in merged[1:]
            )
            self._classes_memo[classes] = found
        return found

    def try_fuse(
        self,
        shape_analysis: ShapeAnalysis,
        lhs: FusionPattern,
        rhs: FusionPattern,
        target: FusionPattern,
    ) -> bool:
        if not super().try_fuse(shape_analysis, lhs, rhs, target):
            return False
        if not all(_reshapes_expand_like(shape_analysis, p) for p in (lhs, rhs)):
            return False
        roots = target.root_ops
        if len(roots) > 1 and any(op.name == "lmhlo.reduce" or is_large_concat(op) for op in roots):
            return False
        return not any(
            is_large_concat(op) and _has_consumer_inside(op, target) for op in target.op_list
        )


def is_stitch_cpu_supported(op: Operation) -> bool:
    """Ops the CPU stitch codegen handles: elementwise, row reductions,
    broadcasts and (with the shape-constraint IR) reshapes; no shape computation."""
    if is_shape_calc(op):
        return False
    if is_elementwise(op):
        return True
    if op.name == "lmhlo.reduce":
        return is_row_reduction(op)
    if op.name in _RESHAPES:
        return shape_constraint_ir_enabled()
    return op.name in (
        "lmhlo.broadcast_in_dim",
        "lmhlo.broadcast",
        "lmhlo.dynamic_broadcast_in_dim",
    )


class StitchBaseCpuFusionStrategy(BaseCpuFusionStrategy):
    """CPU base fusion limited to stitch-supported ops (first CPU stitch stage)."""

    name = "StitchBaseCpuFusionStrategy"

    def try_fuse(
        self,
        shape_analysis: ShapeAnalysis,
        lhs: FusionPattern,
        rhs: FusionPattern,
        target: FusionPattern,
    ) -> bool:
        # the target's ops are lhs's and rhs's
        return _both_stitch_supported(lhs, rhs) and super().try_fuse(
            shape_analysis, lhs, rhs, target
        )

    def may_merge(
        self, shape_analysis: ShapeAnalysis, lhs: FusionPattern, rhs: FusionPattern
    ) -> bool:
        return _both_stitch_supported(lhs, rhs) and super().may_merge(shape_analysis, lhs, rhs)

    def unconnected_merge_key(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> Any:
        if not all_stitch_cpu_supported(pattern):
            return REFUSE_ALL
        return super().unconnected_merge_key(shape_analysis, pattern)


class PlacementAwareFusionStrategy(FusionStrategy):
    """Routes every decision to the strategy of the device an op / pattern runs on."""

    name = "PlacementAwareFusionStrategy"

    def __init__(
        self,
        default_device: str,
        device_strategies: dict[str, FusionStrategy],
        options: FusionOptions | None = None,
    ) -> None:
        super().__init__(options)
        self.default_device = default_device
        self.device_strategies = device_strategies

    @staticmethod
    def placement(op: Operation | None) -> str:
        return "gpu" if is_gpu_lmhlo(op) else "cpu"

    def pattern_placement(self, pattern: FusionPattern) -> str:
        placement = pattern.checks.get(_PLACEMENT_KEY)
        if placement is None:
            placement = self.placement(pattern.root_ops[0] if pattern.root_ops else None)
            pattern.checks[_PLACEMENT_KEY] = placement
        return str(placement)

    def strategy_for(self, device: str) -> FusionStrategy | None:
        return self.device_strategies.get(device)

    def is_fusible_op(self, op: Operation) -> bool:
        strategy = self.strategy_for(self.placement(op))
        return strategy is not None and strategy.is_fusible_op(op)

    def is_fusible(self, pattern: FusionPattern) -> bool:
        strategy = self.strategy_for(self.pattern_placement(pattern))
        return strategy is not None and strategy.is_fusible(pattern)

    def try_fuse_inplace(
        self, shape_analysis: ShapeAnalysis, lhs: FusionPattern, rhs: FusionPattern
    ) -> FusionPattern | None:
        # patterns on different devices never merge (`try_fuse`): refuse them
        # before building the merged pattern
        if self.pattern_placement(lhs) != self.pattern_placement(rhs):
            return None
        return super().try_fuse_inplace(shape_analysis, lhs, rhs)

    def may_merge(
        self, shape_analysis: ShapeAnalysis, lhs: FusionPattern, rhs: FusionPattern
    ) -> bool:
        strategy = self.strategy_for(self.pattern_placement(lhs))
        return strategy is None or strategy.may_merge(shape_analysis, lhs, rhs)

    def may_merge_unconnected(
        self, shape_analysis: ShapeAnalysis, lhs: FusionPattern, rhs: FusionPattern
    ) -> bool:
        device = self.pattern_placement(lhs)
        if device != self.pattern_placement(rhs):
            return False
        strategy = self.strategy_for(device)
        return strategy is not None and strategy.may_merge_unconnected(shape_analysis, lhs, rhs)

    def unconnected_merge_key(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> Any:
        device = self.pattern_placement(pattern)
        strategy = self.strategy_for(device)
        if strategy is None:
            return REFUSE_ALL
        key = strategy.unconnected_merge_key(shape_analysis, pattern)
        if key is None or key is REFUSE_ALL:
            return key
        return (device, key)

    def may_merge_unconnected_keys(
        self, shape_analysis: ShapeAnalysis, lhs_key: Any, rhs_key: Any
    ) -> bool:
        if lhs_key is REFUSE_ALL or rhs_key is REFUSE_ALL or lhs_key[0] != rhs_key[0]:
            return False
        strategy = self.strategy_for(lhs_key[0])
        assert strategy is not None
        return strategy.may_merge_unconnected_keys(shape_analysis, lhs_key[1], rhs_key[1])

    def try_fuse(
        self,
        shape_analysis: ShapeAnalysis,
        lhs: FusionPattern,
        rhs: FusionPattern,
        target: FusionPattern,
    ) -> bool:
        device = self.pattern_placement(lhs)
        if device != self.pattern_placement(rhs):
            return False
        strategy = self.strategy_for(device)
        return strategy is not None and strategy.try_fuse(shape_analysis, lhs, rhs, target)

    def init_fusion_pattern(self, shape_analysis: ShapeAnalysis, pattern: FusionPattern) -> bool:
        if not pattern.op_list:
            return True
        strategy = self.strategy_for(self.placement(pattern.op_list[0]))
        return strategy is not None and strategy.init_fusion_pattern(shape_analysis, pattern)

    def prune_fusion_pattern(
        self, shape_analysis: ShapeAnalysis, pattern: FusionPattern, excluded: list[Operation]
    ) -> bool:
        if not pattern.op_list or pattern.fusion_type is FusionType.NONE:
            return True
        strategy = self.strategy_for(self.placement(pattern.op_list[0]))
        if strategy is None:
            return True  # a stage without a strategy for this device changes nothing
        return strategy.prune_fusion_pattern(shape_analysis, pattern, excluded)

    def has_only(self, device: str, strategy_type: type[FusionStrategy]) -> bool:
        return list(self.device_strategies) == [device] and isinstance(
            self.device_strategies[device], strategy_type
        )


__all__ = [
    "REFUSE_ALL",
    "BaseCpuFusionStrategy",
    "BaseFusionStrategy",
    "BaseGpuFusionStrategy",
    "FusionOptions",
    "FusionStrategy",
    "PlacementAwareFusionStrategy",
    "StitchBaseCpuFusionStrategy",
    "is_expand_like_reshape",
    "is_large_concat",
    "all_stitch_cpu_supported",
    "is_stitch_cpu_supported",
]
