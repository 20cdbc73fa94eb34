"""Buffer aliasing: view-like ops, value flow through control flow, buffer effects.

This is the shared vocabulary of the buffer-level passes (memory space
assignment, deallocation, dead buffer removal, fusion and codegen):

- *view-like ops* (MLIR's `ViewLikeOpInterface`: `memref.cast`,
  `memref.reinterpret_cast`, `memref.subview`, `memref.view`,
  `memref.expand_shape`, `memref.collapse_shape`, `memref.transpose`,
  `memref.reshape`, `memref.memory_space_cast`) return a new view of the
  buffer of their first operand (`view_source`, `is_view_like`);
  `root_memref` walks BladeDISC's getRootMemRef chain (subview, view, cast,
  reinterpret_cast) back to the underlying buffer;
- *value flow* (`flow_edges`): where an operand of an op becomes another SSA
  value, i.e. the successor operands of region-branch ops and their
  terminators (`scf.if`, `scf.for`, `scf.while`, `scf.execute_region`,
  `scf.index_switch`) and of CFG branches (`cf.br`, `cf.cond_br`);
- `BufferViewFlowAnalysis` (MLIR's analysis of the same name): for each
  value, the values it may flow into (views and control-flow successors),
  transitively;
- buffer effects (`buffer_reads`, `buffer_writes`): which memref operands an
  op reads or writes, following the operand conventions of lmhlo (inputs
  first, output buffer(s) last), lmhlo_disc, disc_ral and memref.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import MemRefType, StringAttr, UnrankedMemRefType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.walk import preorder_ops

# ---------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------

VIEW_LIKE_OPS: frozenset[str] = frozenset(
    {
        "memref.cast",
        "memref.reinterpret_cast",
        "memref.subview",
        "memref.view",
        "memref.expand_shape",
        "memref.collapse_shape",
        "memref.transpose",
        "memref.reshape",
        "memref.memory_space_cast",
    }
)
"""Ops whose single result is a view of the buffer of their first operand."""

ROOT_MEMREF_VIEW_OPS: frozenset[str] = frozenset(
    {"memref.subview", "memref.view", "memref.cast", "memref.reinterpret_cast"}
)
"""The view ops BladeDISC's getRootMemRef looks through."""


def is_memref_type(t: Attribute) -> bool:
    """A ranked or unranked memref type."""
    return isinstance(t, MemRefType | UnrankedMemRefType)


def is_memref(value: SSAValue) -> bool:
    return is_memref_type(value.type)


def is_view_like(op: Operation) -> bool:
    """BladeDISC's IsMemRefAliasOp: `op` returns a view of its first operand."""
    return op.name in VIEW_LIKE_OPS and len(op.results) == 1 and len(op.operands) >= 1


def view_source(op: Operation) -> SSAValue | None:
    """The viewed buffer of a view-like op, None for other ops."""
    return op.operands[0] if is_view_like(op) else None


def root_memref(value: SSAValue) -> SSAValue:
    """The buffer `value` is a (chain of) subview/view/cast/reinterpret_cast of."""
    while isinstance(value.owner, Operation) and value.owner.name in ROOT_MEMREF_VIEW_OPS:
        value = value.owner.operands[0]
    return value


def same_underlying_buffer(lhs: SSAValue, rhs: SSAValue) -> bool:
    return root_memref(lhs) == root_memref(rhs)


# ---------------------------------------------------------------------------
# Control-flow value flow
# ---------------------------------------------------------------------------

REGION_BRANCH_OPS: frozenset[str] = frozenset(
    {
        "scf.if",
        "scf.for",
        "scf.while",
        "scf.execute_region",
        "scf.index_switch",
        "scf.parallel",
        "scf.forall",
        "affine.for",
        "affine.if",
        "affine.parallel",
    }
)
"""Ops with regions whose control flow between regions is known
(MLIR's RegionBranchOpInterface)."""

LOOP_OPS: frozenset[str] = frozenset(
    {"scf.for", "scf.while", "scf.parallel", "scf.forall", "affine.for", "affine.parallel"}
)
"""Region-branch ops whose regions may run more than once."""

AUTOMATIC_ALLOCATION_SCOPE_OPS: frozenset[str] = frozenset(
    {
        "func.func",
        "gpu.func",
        "scf.for",
        "scf.parallel",
        "scf.forall",
        "affine.for",
        "affine.parallel",
        "memref.alloca_scope",
        "async.execute",
    }
)
"""Ops with MLIR's AutomaticAllocationScope trait: an `alloca` in them lives
until they exit."""


@dataclass(frozen=True)
class FlowEdge:
    """Operand `index` of `op` becomes `target` when control moves on."""

    op: Operation
    index: int
    target: SSAValue

    @property
    def source(self) -> SSAValue:
        return self.op.operands[self.index]


def _terminator(block: Block) -> Operation | None:
    return block.last_op


def _region_terminators(region: Region) -> Iterator[Operation]:
    """The terminators of `region` that return control to the parent op."""
    for block in region.blocks:
        term = _terminator(block)
        if term is not None and term.name in ("scf.yield", "affine.yield", "scf.condition"):
            yield term


def _edges(op: Operation, first: int, targets: Sequence[SSAValue]) -> list[FlowEdge]:
    return [
        FlowEdge(op, first + i, t) for i, t in enumerate(targets) if first + i < len(op.operands)
    ]


def region_branch_edges(op: Operation) -> list[FlowEdge]:
    """The value flow of region-branch op `op` (entry operands and region terminators)."""
    name = op.name
    edges: list[FlowEdge] = []
    if name in ("scf.if", "scf.execute_region", "scf.index_switch", "affine.if"):
        for region in op.regions:
            for term in _region_terminators(region):
                edges += _edges(term, 0, list(op.results))
    elif name == "scf.for":
        body = op.regions[0].blocks[0] if op.regions[0].blocks else None
        iter_args = list(body.args[1:]) if body is not None else []
        n = len(op.results)
        edges += _edges(op, 3, iter_args[:n])
        edges += _edges(op, 3, list(op.results))
        if body is not None:
            for term in _region_terminators(op.regions[0]):
                edges += _edges(term, 0, iter_args[:n])
                edges += _edges(term, 0, list(op.results))
    elif name == "scf.while":
        before, after = op.regions[0], op.regions[1]
        before_args = list(before.blocks[0].args) if before.blocks else []
        after_args = list(after.blocks[0].args) if after.blocks else []
        edges += _edges(op, 0, before_args)
        for term in _region_terminators(before):
            if term.name == "scf.condition":
                edges += _edges(term, 1, after_args)
                edges += _edges(term, 1, list(op.results))
        for term in _region_terminators(after):
            edges += _edges(term, 0, before_args)
    return edges


def branch_edges(op: Operation) -> list[FlowEdge]:
    """The value flow of CFG branch `op` into the arguments of its successors."""
    if op.name == "cf.br" and op.successors:
        return _edges(op, 0, list(op.successors[0].args))
    if op.name == "cf.cond_br" and len(op.successors) == 2:
        then_args = list(op.successors[0].args)
        else_args = list(op.successors[1].args)
        return _edges(op, 1, then_args) + _edges(op, 1 + len(then_args), else_args)
    return []


def flow_edges(op: Operation) -> list[FlowEdge]:
    """Every value flow `op` defines: view-like, region-branch and branch edges.

    For a terminator of a region-branch op, the edges are reported by the
    parent (see `region_branch_edges`), not by the terminator itself.
    """
    if is_view_like(op):
        return [FlowEdge(op, 0, op.results[0])]
    if op.name in REGION_BRANCH_OPS:
        return region_branch_edges(op)
    return branch_edges(op)


class BufferViewFlowAnalysis:
    """MLIR's BufferViewFlowAnalysis: the values each value may flow into.

    `resolve(v)` is `v` and every value it reaches through views and control
    flow, transitively (the set of possible aliases created from `v`).
    """

    def __init__(self, root: Operation):
        self.dependencies: dict[SSAValue, set[SSAValue]] = {}
        for op in preorder_ops(root):
            for edge in flow_edges(op):
                self.dependencies.setdefault(edge.source, set()).add(edge.target)

    def resolve(self, value: SSAValue) -> set[SSAValue]:
        result = {value}
        worklist = [value]
        while worklist:
            current = worklist.pop()
            for dep in self.dependencies.get(current, ()):
                if dep not in result:
                    result.add(dep)
                    worklist.append(dep)
        return result

    def direct(self, value: SSAValue) -> set[SSAValue]:
        """The values `value` flows into in one step."""
        return self.dependencies.get(value, set())

    def remove(self, values: Iterable[SSAValue]) -> None:
        """Forget `values` as sources and as targets."""
        gone = set(values)
        for v in gone:
            self.dependencies.pop(v, None)
        for deps in self.dependencies.values():
            deps -= gone


def is_region_return_like(op: Operation) -> bool:
    """MLIR's isRegionReturnLike: a terminator returning control to the parent op."""
    from xdsl.traits import ReturnLike

    return op.name in ("scf.yield", "affine.yield", "scf.condition", "func.return") or (
        op.has_trait(ReturnLike, value_if_unregistered=False)
    )


# ---------------------------------------------------------------------------
# Buffer effects
# ---------------------------------------------------------------------------

# lmhlo_disc ops whose written operands are not only the last one
_LMHLO_DISC_OUTPUTS: dict[str, int] = {
    "lmhlo_disc.sparse_reshape": 2,
    "lmhlo_disc.sparse_fill_empty_rows": 5,
    "lmhlo_disc.sparse_segment_reduction_with_empty_rows": 2,
    "lmhlo_disc.where": 2,
}

_NO_OUTPUT_OPS: frozenset[str] = frozenset(
    {
        "lmhlo.terminator",
        "lmhlo.fusion",
        "lmhlo.while",
        "lmhlo.case",
        "lmhlo_disc.custom_call_v2",
        "lmhlo_disc.printf",
        "lmhlo_disc.optimization_barrier",
    }
)

_SIDE_EFFECTING_OPS: frozenset[str] = frozenset(
    {
        "lmhlo.custom_call",
        "lmhlo_disc.custom_call",
        "lmhlo_disc.custom_call_v2",
        "lmhlo_disc.printf",
        "lmhlo_disc.source_code",
        "lmhlo_disc.args_mutation",
        "lmhlo_disc.optimization_barrier",
        "disc_ral.dispatch",
    }
)
"""Ops that may do more than read their inputs and write their outputs."""


def lmhlo_num_outputs(op: Operation) -> int:
    """How many trailing operands of an lmhlo / lmhlo_disc op are written.

    Ops with variadic outputs (`lmhlo.reduce`, `lmhlo.sort`,
    `lmhlo.reduce_window`) write as many buffers as they have inputs
    (`reduce`: inputs, init values, outputs in equal numbers).
    """
    name = op.name
    if name in _NO_OUTPUT_OPS:
        return 0
    if name in _LMHLO_DISC_OUTPUTS:
        return _LMHLO_DISC_OUTPUTS[name]
    if name in ("lmhlo.reduce", "lmhlo.reduce_window"):
        return len(op.operands) // 3
    if name == "lmhlo.sort":
        return len(op.operands) // 2
    if name == "lmhlo.custom_call":
        segments = inherent_attr(op, "operandSegmentSizes")
        values = getattr(segments, "get_values", None)
        if values is not None:
            sizes = list(values())
            if len(sizes) == 2:
                return int(sizes[1])
        return 1
    return 1 if op.operands else 0


def is_lmhlo_op(op: Operation) -> bool:
    """An op of the lmhlo or lmhlo_disc dialect."""
    return op.dialect_name() in ("lmhlo", "lmhlo_disc")


def buffer_writes(op: Operation) -> list[int]:
    """Indices of the memref operands `op` writes (its own effects, not nested ops')."""
    name = op.name
    if is_lmhlo_op(op):
        n = lmhlo_num_outputs(op)
        total = len(op.operands)
        return [i for i in range(total - n, total) if is_memref(op.operands[i])]
    if name in ("memref.store", "affine.store"):
        return [1]
    if name in ("memref.copy", "memref.atomic_rmw"):
        return [1]
    if name == "memref.generic_atomic_rmw":
        return [0]
    if name == "disc_ral.dispatch":
        return [i for i, v in enumerate(op.operands) if is_memref(v)]
    return []


def buffer_reads(op: Operation) -> list[int]:
    """Indices of the memref operands `op` may read (its own effects).

    Unknown ops are assumed to read every memref operand, except the
    deallocation and view-like ops, which only handle the buffer.
    """
    name = op.name
    if name == "memref.dealloc" or is_view_like(op):
        return []
    if name in ("memref.store", "affine.store"):
        return []
    if name in ("memref.dim", "memref.rank", "memref.extract_strided_metadata"):
        return []
    if is_lmhlo_op(op):
        writes = set(buffer_writes(op))
        return [i for i, v in enumerate(op.operands) if is_memref(v) and i not in writes]
    return [i for i, v in enumerate(op.operands) if is_memref(v)]


def has_side_effects_beyond_buffers(op: Operation) -> bool:
    """An op that may do something besides reading/writing its memref operands."""
    return op.name in _SIDE_EFFECTING_OPS or bool(op.regions)


def call_target_name(op: Operation) -> str | None:
    attr = op.attributes.get("call_target_name")
    return attr.data if isinstance(attr, StringAttr) else None
