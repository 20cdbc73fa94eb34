"""Fusion patterns: a set of lmhlo ops to be emitted as one kernel, and what codegen needs to know about it.

Re-implements the data half of BladeDISC's `fusion_utils.{h,cc}`:

* op classification: `is_elementwise`, `is_row_reduction`,
  `is_rank2_row_reduction` / `is_rank2_col_reduction`, `is_fusible` (what
  the loop / input codegen supports);
* `FusionType` and its `disc.fusion_type` spellings (`kLoop`,
  `kRowReduction`, `kColReduction`, `kInput`, `kStitch`, ...);
* `FusionPattern`: the op list plus its *operands* (buffers read and not
  written inside), *results* (buffers written inside and read outside),
  *root ops* (the ops writing results), internal results, the *dominant op*
  (whose shape drives the loop schedule) and the fusion type; built from an
  op list, or from an existing `lmhlo.fusion` (`FusionPattern.from_fusion_op`)
  so later passes ask a fusion for its pattern;
* the fusion attributes and BladeDISC's naming scheme
  (`<func>_<signature>_<counter>`, `generate_signature`).

The schedule table (seed document, "Backbone CodeGen Passes"):
`dominant_schedule()` maps a pattern to `RowReductionSchedule`,
`ColReductionSchedule` or `LoopSchedule` by its root composition.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Protocol

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    MemRefType,
    StringAttr,
)
from xdsl.ir import Operation, SSAValue

from disc_ir.analysis.buffer_alias import is_lmhlo_op, lmhlo_num_outputs
from disc_ir.dialects.hlo_attrs import ints
from disc_ir.ir.attrs import inherent_attr

if TYPE_CHECKING:
    from disc_ir.analysis.shape_analysis import ShapeAnalysis

FUSION_TYPE_ATTR = "disc.fusion_type"
FUSION_NAME_ATTR = "disc.fusion.name"
FUSION_TAG_ATTR = "disc.fusion.tag"
PLACEMENT_ATTR = "disc.device"
SHAPE_CALC_ATTR = "disc.shape_op"


class FusionType(enum.Enum):
    """BladeDISC's fusion kinds; `.value` is the `disc.fusion_type` string."""

    NONE = "kNone"
    LOOP = "kLoop"
    ROW_REDUCTION = "kRowReduction"
    COL_REDUCTION = "kColReduction"
    INPUT = "kInput"
    STITCH = "kStitch"
    LARGE_CONCAT = "kLargeConcat"
    DOT = "kDot"
    WHERE = "kWhere"
    TRANSFORM = "kTransform"
    SPARSE_REDUCTION = "kSparseReduction"

    @classmethod
    def from_string(cls, text: str) -> FusionType:
        for member in cls:
            if member.value == text:
                return member
        raise ValueError(f"unknown fusion type '{text}'")


# ---------------------------------------------------------------------------
# Op classification
# ---------------------------------------------------------------------------

_UNARY = frozenset(
    "lmhlo." + m
    for m in (
        "abs ceil convert copy cosine exponential floor is_finite log log_plus_one logistic "
        "negate not rsqrt sign sine sqrt tanh round_nearest_afz round_nearest_even"
    ).split()
)
_BINARY = frozenset(
    "lmhlo." + m
    for m in ("add and compare divide maximum minimum multiply or power remainder subtract").split()
)
_TERNARY = frozenset({"lmhlo.select", "lmhlo.clamp"})
_BROADCASTS = frozenset(
    {"lmhlo.broadcast_in_dim", "lmhlo.broadcast", "lmhlo.dynamic_broadcast_in_dim"}
)
_RESHAPES = frozenset({"lmhlo.reshape", "lmhlo.dynamic_reshape"})
_OTHER_FUSIBLE = frozenset(
    {
        "lmhlo.clamp",
        "lmhlo.concatenate",
        "lmhlo.dynamic_gather",
        "lmhlo.dynamic_iota",
        "lmhlo.dynamic_pad",
        "lmhlo.gather",
        "lmhlo.real_dynamic_slice",
        "lmhlo.reduce",
        "lmhlo.reverse",
        "lmhlo.select",
        "lmhlo.slice",
        "lmhlo.transpose",
        "lmhlo.dynamic_update_slice",
        *_BROADCASTS,
        *_RESHAPES,
    }
)

#: Ops emitted as library calls (a kernel of their own, never fused by base/stitch).
LIBRARY_CALL_OPS = frozenset(
    {
        "lmhlo.dot_general",
        "lmhlo.dot",
        "lmhlo.convolution",
        "lmhlo_disc.conv_forward",
        "lmhlo_disc.custom_call",
        "lmhlo_disc.custom_call_v2",
        "lmhlo.custom_call",
        "lmhlo.fft",
    }
)

#: Metadata-only users of a buffer: they read its shape, not its data.
_NON_DATA_USERS = frozenset({"memref.dim", "memref.dealloc", "shape.shape_of"})

#: Ops whose result aliases their first operand (`ViewLikeOpInterface`).
_VIEW_OPS = frozenset(
    {
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.subview",
        "memref.view",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.transpose",
        "memref.memory_space_cast",
    }
)


def _memref_type(value: SSAValue) -> MemRefType | None:
    t = value.type
    return t if isinstance(t, MemRefType) else None


def memref_rank(value: SSAValue) -> int | None:
    """The rank of `value`'s memref type (None for other types)."""
    t = _memref_type(value)
    return None if t is None else len(t.get_shape())


_rank = memref_rank


def is_broadcast(op: Operation) -> bool:
    """`lmhlo.broadcast_in_dim`, `lmhlo.broadcast` or `lmhlo.dynamic_broadcast_in_dim`."""
    return op.name in _BROADCASTS


def num_result_operands(op: Operation) -> int:
    """How many trailing operands of an lmhlo op are its output buffers."""
    return lmhlo_num_outputs(op) if is_lmhlo_op(op) else 0


def input_operands(op: Operation) -> list[SSAValue]:
    n = num_result_operands(op)
    return list(op.operands[: len(op.operands) - n])


def output_operands(op: Operation) -> list[SSAValue]:
    n = num_result_operands(op)
    return list(op.operands[len(op.operands) - n :]) if n else []


def result_buffer(op: Operation) -> SSAValue | None:
    """The (last) buffer an lmhlo op writes (`LmhloOp::getResultBuffer`)."""
    outs = output_operands(op)
    return outs[-1] if outs else None


def is_single_element_h2d(op: Operation) -> bool:
    if op.name != "lmhlo_disc.h2d" or not op.operands:
        return False
    t = _memref_type(op.operands[0])
    if t is None:
        return False
    shape = t.get_shape()
    return all(d >= 0 for d in shape) and _prod(shape) == 1


def _prod(xs: Iterable[int]) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def is_elementwise_unary(op: Operation) -> bool:
    if op.name == "lmhlo_disc.h2d":
        return is_single_element_h2d(op)
    return op.name in _UNARY


def is_elementwise_binary(op: Operation) -> bool:
    return op.name in _BINARY


def is_elementwise_ternary(op: Operation) -> bool:
    """`select` / `clamp` with all operands of one rank (no implicit scalar broadcast)."""
    if op.name not in _TERNARY:
        return False
    ranks = {_rank(v) for v in op.operands}
    return len(ranks) == 1


def is_elementwise(op: Operation) -> bool:
    return is_elementwise_unary(op) or is_elementwise_binary(op) or is_elementwise_ternary(op)


def reduce_dimensions(op: Operation) -> tuple[int, ...]:
    return ints(inherent_attr(op, "dimensions"))


def broadcast_dimensions(op: Operation) -> tuple[int, ...]:
    return ints(inherent_attr(op, "broadcast_dimensions"))


def is_rank2_row_reduction(op: Operation) -> bool:
    if op.name != "lmhlo.reduce":
        return False
    dims = reduce_dimensions(op)
    return len(dims) == 1 and dims[0] == 1 and _rank(op.operands[0]) == 2


def is_rank2_col_reduction(op: Operation) -> bool:
    if op.name != "lmhlo.reduce":
        return False
    dims = reduce_dimensions(op)
    return len(dims) == 1 and dims[0] == 0 and _rank(op.operands[0]) == 2


def is_row_reduction(op: Operation) -> bool:
    """A reduce over the trailing dimensions (any rank)."""
    if op.name != "lmhlo.reduce":
        return False
    rank = _rank(op.operands[0])
    if rank is None:
        return False
    expected = rank - 1
    for d in reversed(reduce_dimensions(op)):
        if d != expected:
            return False
        expected -= 1
    return True


def is_rank2_or3_transpose(op: Operation) -> bool:
    return op.name == "lmhlo.transpose" and _rank(op.operands[0]) in (2, 3)


def is_splat_or_scalar_constant(op: Operation) -> bool:
    out = result_buffer(op)
    if out is None:
        return False
    if _rank(out) == 0:
        return True
    value = inherent_attr(op, "value")
    if isinstance(value, DenseIntOrFPElementsAttr):
        return is_splat_dense(value)
    return False


def is_splat_dense(value: DenseIntOrFPElementsAttr) -> bool:
    """All elements equal, compared on the stored bytes (no unpacking: xDSL
    stores a splat `dense<c> : tensor<1x16x3072xf32>` expanded, and the fusion
    strategies ask this for every constant again and again)."""
    raw = value.data.data
    count = _prod(value.get_shape())
    if count <= 0 or not raw or len(raw) % count:
        return False
    size = len(raw) // count
    return raw == raw[:size] * count


def is_fusible(op: Operation) -> bool:
    """Whether the loop / input fusion codegen can emit `op` inside a kernel."""
    if op.name == "lmhlo.constant":
        return is_splat_or_scalar_constant(op)
    if is_elementwise(op):
        return True
    if op.name == "lmhlo_disc.where":
        return True
    return op.name in _OTHER_FUSIBLE


def is_shape_calc(op: Operation) -> bool:
    """Marked as shape computation (`disc.shape_op`): runs on the host, never fused."""
    return op.attributes.get(SHAPE_CALC_ATTR) is not None


def is_gpu_memref(value: SSAValue) -> bool:
    t = _memref_type(value)
    return t is not None and getattr(t.memory_space, "name", None) == "gpu.address_space"


def is_gpu_lmhlo(op: Operation | None) -> bool:
    """BladeDISC's `isGpuLmhlo`: an explicit `disc.device` decides, else the
    result buffer's memory space (an `lmhlo.fusion` without one is on the GPU)."""
    if op is None or not is_lmhlo_op(op) or op.name == "lmhlo.terminator":
        return False
    attr = op.attributes.get(PLACEMENT_ATTR)
    if isinstance(attr, StringAttr):
        return attr.data == "gpu"
    if op.name == "lmhlo.fusion":
        return True
    out = result_buffer(op)
    return out is not None and is_gpu_memref(out)


def value_users(value: SSAValue) -> list[Operation]:
    """Ops reading `value`'s data through it or its views (BladeDISC's
    `getValueUsers`): `memref.dim`, `memref.dealloc`, `shape.shape_of` skipped."""
    root = value
    while isinstance(root.owner, Operation) and root.owner.name in _VIEW_OPS:
        root = root.owner.operands[0]
    users: list[Operation] = []
    worklist = [root]
    while worklist:
        cur = worklist.pop()
        for use in list(cur.uses):
            user = use.operation
            if user.name in _NON_DATA_USERS:
                continue
            if user.name in _VIEW_OPS and user.results:
                worklist.append(user.results[0])
            else:
                users.append(user)
    return users


def parent_fusion(op: Operation) -> Operation | None:
    parent = op.parent_op()
    while parent is not None:
        if parent.name == "lmhlo.fusion":
            return parent
        parent = parent.parent_op()
    return None


def fusion_name(op: Operation) -> str:
    attr = op.attributes.get(FUSION_NAME_ATTR)
    return attr.data if isinstance(attr, StringAttr) else ""


def in_same_fusion_family(op: Operation, other: Operation) -> bool:
    """Both inside `lmhlo.fusion` ops of one (non-empty) name (speculated copies)."""
    f1, f2 = parent_fusion(op), parent_fusion(other)
    if f1 is None or f2 is None:
        return False
    name = fusion_name(f1)
    return bool(name) and name == fusion_name(f2)


def fusion_type_of(op: Operation) -> FusionType:
    """The `disc.fusion_type` of an `lmhlo.fusion` (kNone for other ops)."""
    if op.name != "lmhlo.fusion":
        return FusionType.NONE
    attr = op.attributes.get(FUSION_TYPE_ATTR)
    if isinstance(attr, StringAttr):
        return FusionType.from_string(attr.data)
    return FusionType.NONE


def fusion_body_ops(fusion: Operation) -> list[Operation]:
    """The ops of an `lmhlo.fusion` body, terminator excluded."""
    block = fusion.regions[0].blocks.first
    if block is None:
        return []
    return [o for o in block.ops if o.name != "lmhlo.terminator"]


# ---------------------------------------------------------------------------
# FusionPattern
# ---------------------------------------------------------------------------


_RESULT_READERS_KEY = "result_readers"
_OPERAND_VALUES_KEY = "operand_values"


class _OpFusibility(Protocol):
    """What `OpFacts.fusible` asks: a fusion strategy's per-op verdict."""

    def is_fusible_op(self, op: Operation) -> bool: ...


class OpFacts:
    """Per-op facts `FusionPattern` derives its operands / results from, and
    the strategies' per-op verdicts (`fusible`), computed once per op: a
    fusion planner builds thousands of trial patterns over the same ops while
    the IR does not change.

    Valid only while the ops' operands, the users of the buffers they write
    and the enclosing fusions stay as they were when first asked (the
    planner's lifetime); patterns built without an `OpFacts` compute them anew.
    """

    __slots__ = ("_facts", "_fusible")

    def __init__(self) -> None:
        self._facts: dict[
            Operation,
            tuple[list[SSAValue], list[tuple[SSAValue, tuple[tuple[Operation, bool], ...]]]],
        ] = {}
        self._fusible: dict[_OpFusibility, dict[Operation, bool]] = {}

    def get(
        self, op: Operation
    ) -> tuple[list[SSAValue], list[tuple[SSAValue, tuple[tuple[Operation, bool], ...]]]]:
        """(input buffers, [(output buffer, ((data user, same fusion family), ...))])
        of `op`; `op` itself is not among the users."""
        facts = self._facts.get(op)
        if facts is None:
            facts = self._facts[op] = _op_facts(op)
        return facts

    def fusible(self, strategy: _OpFusibility, op: Operation) -> bool:
        """`strategy.is_fusible_op(op)`, asked once per strategy and op (the
        answer reads the op's name, attributes and placement, and the
        configuration: none of them change while planning)."""
        known = self._verdicts(strategy)
        ok = known.get(op)
        if ok is None:
            ok = known[op] = strategy.is_fusible_op(op)
        return ok

    def all_fusible(self, strategy: _OpFusibility, ops: Iterable[Operation]) -> bool:
        """`all(strategy.is_fusible_op(op) for op in ops)`, each op asked once
        per strategy (see `fusible`)."""
        known = self._verdicts(strategy)
        for op in ops:
            ok = known.get(op)
            if ok is None:
                ok = known[op] = strategy.is_fusible_op(op)
            if not ok:
                return False
        return True

    def _verdicts(self, strategy: _OpFusibility) -> dict[Operation, bool]:
        known = self._fusible.get(strategy)
        if known is None:
            known = self._fusible[strategy] = {}
        return known


def _op_facts(
    op: Operation,
) -> tuple[list[SSAValue], list[tuple[SSAValue, tuple[tuple[Operation, bool], ...]]]]:
    outputs = [
        (
            v,
            tuple(
                (user, in_same_fusion_family(user, op)) for user in value_users(v) if user is not op
            ),
        )
        for v in output_operands(op)
    ]
    return input_operands(op), outputs


class FusionPattern:
    """A list of lmhlo ops fused (or to be fused) into one kernel.

    The op-list derived facts (operands, results, roots...) are computed on
    construction from the current IR: a buffer written inside is a *result*
    when some op outside the pattern (other than `memref.dim` / `dealloc` /
    `shape_of`, and other than copies of the same named fusion) reads it.
    `fusion_type` and `dominant_op` are set by a fusion strategy
    (`kNone` / the first op until then). `facts`: a per-op cache shared by the
    patterns of one planning (see `OpFacts`); merged patterns inherit it.
    """

    def __init__(self, ops: Sequence[Operation], facts: OpFacts | None = None) -> None:
        self.facts = facts
        self.op_list: list[Operation] = list(ops)
        self.fusion_type: FusionType = FusionType.NONE
        self.dominant_op: Operation | None = self.op_list[0] if self.op_list else None
        self.sub_root_ops: list[Operation] = []
        self.operands: list[SSAValue] = []
        self.results: list[SSAValue] = []
        self.internal_results: list[SSAValue] = []
        self.external_only_results: list[SSAValue] = []
        self.root_ops: list[Operation] = []
        self.last_writer: dict[SSAValue, Operation] = {}
        #: memo of strategy-level checks over the (fixed) op list, keyed by the asker
        self.checks: dict[object, object] = {}
        self._calculate_operands_and_results()

    @classmethod
    def from_fusion_op(
        cls, fusion: Operation, shape_analysis: ShapeAnalysis | None
    ) -> FusionPattern:
        """The pattern of an existing `lmhlo.fusion`, re-initialised by the
        strategy its `disc.fusion_type` / `disc.device` name (kNone without them)."""
        from disc_ir.fusion.strategies import get_fusion_strategy

        pattern = cls(fusion_body_ops(fusion))
        ftype = fusion_type_of(fusion)
        device = fusion.attributes.get(PLACEMENT_ATTR)
        if not isinstance(device, StringAttr) or ftype is FusionType.NONE:
            return pattern
        strategy_name = {
            FusionType.STITCH: "stitch",
            FusionType.DOT: "dot",
            FusionType.TRANSFORM: "transform_based",
            FusionType.WHERE: "sparse_base",
            FusionType.SPARSE_REDUCTION: "sparse_base",
        }.get(ftype, "base")
        strategy = get_fusion_strategy(device.data, strategy_name)
        if strategy is None or not strategy.init_fusion_pattern(shape_analysis, pattern):  # type: ignore[arg-type]  # the loop lowering builds the analysis before any fusion
            # Keep what the attribute says even if this strategy is not
            # implemented here (kDot, kTransform, the sparse ones), or refuses
            # a pattern another planning formed.
            pattern.fusion_type = ftype
        return pattern

    # -- queries --------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.op_list)

    def effective_size(self) -> int:
        """Number of ops, constants not counted."""
        return sum(1 for op in self.op_list if op.name != "lmhlo.constant")

    def is_fusible(self) -> bool:
        return self.fusion_type is not FusionType.NONE

    def is_kloop(self) -> bool:
        return self.fusion_type is FusionType.LOOP

    def is_kinput(self) -> bool:
        return self.fusion_type in (FusionType.ROW_REDUCTION, FusionType.COL_REDUCTION)

    def is_stitch(self) -> bool:
        return self.fusion_type is FusionType.STITCH

    def is_sparse(self) -> bool:
        return self.fusion_type in (FusionType.WHERE, FusionType.SPARSE_REDUCTION)

    def is_transform_based(self) -> bool:
        return self.fusion_type is FusionType.TRANSFORM

    def find_last_writer(self, value: SSAValue) -> Operation | None:
        """The op of the pattern writing `value`, else `value`'s defining op."""
        op = self.last_writer.get(value)
        if op is not None:
            return op
        owner = value.owner
        return owner if isinstance(owner, Operation) else None

    def contains(self, op: Operation) -> bool:
        return op in self._op_set

    def merged_with(self, other: FusionPattern) -> FusionPattern:
        """A new, uninitialised pattern of both op lists."""
        return FusionPattern([*self.op_list, *other.op_list], self.facts or other.facts)

    def merged_results(self, other: FusionPattern) -> list[SSAValue]:
        """`self.merged_with(other).results`, without building the merged
        pattern: a result stays one unless all its outside readers are in `other`."""
        mine, theirs = self.merged_results_by_side(other)
        return mine + theirs

    def merged_results_by_side(self, other: FusionPattern) -> tuple[list[SSAValue], list[SSAValue]]:
        """The results of `self.merged_with(other)` written by `self`'s ops,
        then those written by `other`'s."""
        sides: list[list[SSAValue]] = []
        for p, q in ((self, other), (other, self)):
            inside = q._op_set
            sides.append(
                [v for v, readers in p._results_readers() if any(u not in inside for u in readers)]
            )
        return sides[0], sides[1]

    def operand_values(self) -> set[SSAValue]:
        """Every value an op of the pattern takes as operand (memoised)."""
        found = self.checks.get(_OPERAND_VALUES_KEY)
        if found is None:
            found = self.checks[_OPERAND_VALUES_KEY] = {
                v for op in self.op_list for v in op.operands
            }
        return found  # type: ignore[return-value]  # not the sentinel: the cached value

    def result_readers(self) -> list[tuple[SSAValue, list[Operation]]]:
        """(result, its data readers outside the pattern and its fusion family)
        for each entry of `results` (memoised)."""
        return self._results_readers()

    def _results_readers(self) -> list[tuple[SSAValue, list[Operation]]]:
        """(result, its data readers outside the pattern and its fusion family)
        for each entry of `results` (memoised)."""
        found = self.checks.get(_RESULT_READERS_KEY)
        if found is not None:
            return found  # type: ignore[return-value]  # not the sentinel: the cached value
        get = (self.facts or OpFacts()).get
        out: list[tuple[SSAValue, list[Operation]]] = []
        op_set = self._op_set
        for op in self.op_list:
            for v, users in get(op)[1]:
                readers = [u for u, same_family in users if u not in op_set and not same_family]
                if readers:
                    out.append((v, readers))
        self.checks[_RESULT_READERS_KEY] = out
        return out

    def sort_by(self, order: dict[Operation, int]) -> None:
        self.op_list.sort(key=lambda op: order[op])

    def dominant_schedule(self) -> str:
        """The codegen schedule this pattern's roots select (seed's table):
        any row reduction -> RowReductionSchedule; else any column reduction
        -> ColReductionSchedule; else LoopSchedule (kStitch: StitchSchedule)."""
        if self.is_stitch():
            return "StitchSchedule"
        reduces = [op for op in self.op_list if op.name == "lmhlo.reduce"]
        if any(is_row_reduction(op) for op in reduces):
            return "RowReductionSchedule"
        if reduces:
            return "ColReductionSchedule"
        return "LoopSchedule"

    # -- construction -----------------------------------------------------------

    def _calculate_operands_and_results(self) -> None:
        self._op_set = op_set = set(self.op_list)
        get = (self.facts or OpFacts()).get
        for op in self.op_list:
            for v, users in get(op)[1]:
                self.last_writer.setdefault(v, op)
                has_external = has_internal = False
                for user, same_family in users:
                    if user in op_set:
                        has_internal = True
                    elif not same_family:
                        has_external = True
                if has_external:
                    self.results.append(v)
                    if op not in self.root_ops:
                        self.root_ops.append(op)
                    if not has_internal:
                        self.external_only_results.append(v)
                else:
                    self.internal_results.append(v)
        seen: set[SSAValue] = set()
        for op in self.op_list:
            for v in get(op)[0]:
                if v in self.last_writer or v in seen:
                    continue
                seen.add(v)
                self.operands.append(v)

    def __repr__(self) -> str:
        names = ", ".join(op.name for op in self.op_list)
        return f"FusionPattern<{self.fusion_type.value}>[{names}]"


# ---------------------------------------------------------------------------
# Naming
# ---------------------------------------------------------------------------


def _strip_dialect(name: str) -> str:
    return name.split(".", 1)[1] if "." in name else name


def generate_signature(pattern: FusionPattern) -> str:
    """BladeDISC's fusion signature: `<type>_<root>_<root>_..._<#ops>_<#results>`
    (e.g. `kLoop_add__2_1`, `kRowReduction_reduce__4_1`)."""
    parts = [pattern.fusion_type.value, "_"]
    for op in pattern.root_ops:
        parts.append(_strip_dialect(op.name) + "_")
    parts.append(f"_{len(pattern.op_list)}_{len(pattern.results)}")
    return "".join(parts)


def set_fusion_attrs(
    fusion: Operation, fusion_type: FusionType, device: str, name: str | None = None
) -> None:
    fusion.attributes[FUSION_TYPE_ATTR] = StringAttr(fusion_type.value)
    fusion.attributes[PLACEMENT_ATTR] = StringAttr(device)
    if name is not None:
        fusion.attributes[FUSION_NAME_ATTR] = StringAttr(name)


__all__ = [
    "is_broadcast",
    "memref_rank",
    "FUSION_NAME_ATTR",
    "FUSION_TAG_ATTR",
    "FUSION_TYPE_ATTR",
    "LIBRARY_CALL_OPS",
    "PLACEMENT_ATTR",
    "OpFacts",
    "SHAPE_CALC_ATTR",
    "FusionPattern",
    "FusionType",
    "broadcast_dimensions",
    "fusion_body_ops",
    "fusion_name",
    "fusion_type_of",
    "generate_signature",
    "input_operands",
    "is_elementwise",
    "is_fusible",
    "is_gpu_lmhlo",
    "is_rank2_col_reduction",
    "is_rank2_row_reduction",
    "is_row_reduction",
    "is_shape_calc",
    "output_operands",
    "reduce_dimensions",
    "result_buffer",
    "set_fusion_attrs",
    "value_users",
    "is_splat_dense",
]
