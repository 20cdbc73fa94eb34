"""Input inline fusion: inline producer lmhlo ops into the loops reading their results.

Re-implements BladeDISC's `InputInlineFusionPattern`
(`input_inline_fusion_pattern.cc`) and `cleanUnusedLhloOps`
(`fusion_utils.cc`). After `disc-lhlo-legalize-roots-to-parallel-loops` a
fusion body holds the non-root lmhlo ops followed by loop nests that load
their results:

    "lmhlo.fusion"() ({
      lmhlo.aaa(%0, %1, %2)
      lmhlo.bbb(%2, %3, %4)
      scf.parallel (...) { memref.load %4[...] ... memref.store ... }
    })

One inlining step (`inline_once`) takes, in an innermost `scf.parallel` of
the fusion, the first `memref.load` whose buffer an lmhlo op of the fusion
writes (the *producer*), and

1. replaces the load by the producer's element computation at the load's
   indices (`elemental.elemental_lower`; elementwise producers load their
   inputs at the same indices), emitted right before the load;
2. removes the original load -- and every other load of the same buffer at
   the same indices that it dominates, which reuse the value -- and the
   producer once no other reader of its buffer remains, then erases lmhlo ops
   of the fusion that no remaining load depends on.

A producer is only inlined when no other lmhlo op of the fusion reads its
buffer (so `C = op(A, B)`, `B = op(A)` inlines B before A). Repeating until
nothing changes (`inline_fusion`) leaves only the loops.

BladeDISC runs the whole-fusion cleanup after every step, which makes the
run quadratic in the fusion's size. Here it runs after the first step and
afterwards only when a step can have orphaned an lmhlo op (a writer of the
erased producer's inputs that lost its last load); the result is the same
(tested against cleaning after every step, `FULL_CLEAN_EVERY_STEP`). Loads
of buffers no lmhlo op of the fusion writes are not searched for producers.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

from xdsl.dialects import memref
from xdsl.ir import Block, Operation, SSAValue

from disc_ir.analysis.buffer_alias import is_lmhlo_op
from disc_ir.codegen import elemental, scalar
from disc_ir.codegen.elemental import (
    VIEW_OPS,
    Builder,
    is_inplace,
    root_memref,
    same_underlying_buffer,
)
from disc_ir.codegen.loop_utils import innermost_parallel_loops
from disc_ir.fusion.pattern import (
    FusionType,
    fusion_type_of,
    is_gpu_lmhlo,
    parent_fusion,
    result_buffer,
)
from disc_ir.ir.walk import preorder_ops

#: Upper bound of inlining steps per function (BladeDISC's `c_MAX_ITERATION`).
MAX_ITERATIONS = 4096 * 1000


class InlineError(Exception):
    """The producer of a load cannot be emitted elementally."""


class _Lookups:
    """Facts remembered while an inlining run is on (`_fusion_lookups`): a
    block's enclosing `lmhlo.fusion` (a value shared by every layer of a
    model, a shape or a constant, has users in every fusion, each walked up
    from otherwise) and an op's writer facts (an op's operands do not change
    while producers are inlined)."""

    def __init__(self) -> None:
        self.fusion: dict[Block, Operation | None] = {}
        self.writes: dict[Operation, tuple[bool, SSAValue | None]] = {}


_LOOKUPS: ContextVar[_Lookups | None] = ContextVar("_LOOKUPS", default=None)


@contextmanager
def _fusion_lookups() -> Iterator[None]:
    """Remember block and op facts for the duration (reentrant). Only for
    work that moves no block into or out of a fusion: inlining adds and
    erases ops inside one fusion (an erased block or op stays a key, so its
    id is never reused while the tables live)."""
    if _LOOKUPS.get() is not None:
        yield
        return
    token = _LOOKUPS.set(_Lookups())
    try:
        yield
    finally:
        _LOOKUPS.reset(token)


def _fusion_of(op: Operation) -> Operation | None:
    lookups = _LOOKUPS.get()
    block = op.parent
    if lookups is None or block is None:
        return parent_fusion(op)
    if block not in lookups.fusion:
        lookups.fusion[block] = parent_fusion(op)
    return lookups.fusion[block]


def _writer_facts(op: Operation) -> tuple[bool, SSAValue | None]:
    """(`op` is an lmhlo op writing a buffer, that buffer: `result_buffer`)."""
    lookups = _LOOKUPS.get()
    if lookups is not None and op in lookups.writes:
        return lookups.writes[op]
    writer = is_lmhlo_op(op) and op.name not in ("lmhlo.fusion", "lmhlo.terminator")
    facts = (writer, result_buffer(op) if writer else None)
    if lookups is not None:
        lookups.writes[op] = facts
    return facts


def _has_load(out: SSAValue, op: Operation) -> bool:
    """Whether a load in `op`'s fusion reads `out`'s buffer."""
    return any(isinstance(u, memref.LoadOp) for u in users_in_fusion_like(out, op))


def _block_writes(block: Block) -> set[SSAValue]:
    """The underlying buffers the lmhlo ops of `block` write."""
    return _written_buffers([op for op in block.ops if _is_lmhlo_writer(op)])


def users_in_fusion_like(value: SSAValue, op: Operation) -> list[Operation]:
    """Users of `value`'s underlying buffer, through views, inside `op`'s fusion
    (or a copy of it) (`getValueUsersInFusionLike`)."""
    users: list[Operation] = []
    target = _fusion_of(op)
    if target is None:
        return users
    seen: set[Operation] = set()
    worklist = [root_memref(value)]
    while worklist:
        cur = worklist.pop()
        for use in list(cur.uses):
            user = use.operation
            if user.name in VIEW_OPS:
                worklist.append(user.results[0])
                continue
            if user in seen or _fusion_of(user) is not target:
                continue
            seen.add(user)
            users.append(user)
    return users


def _is_lmhlo_writer(op: Operation) -> bool:
    return _writer_facts(op)[0]


def fusible_producer(load: memref.LoadOp) -> Operation | None:
    """The lmhlo op of the fusion writing the buffer `load` reads (`getFusibleOperation`)."""
    producer: Operation | None = None
    for user in users_in_fusion_like(load.memref, load):
        writer, out = _writer_facts(user)
        if not writer:
            continue
        if out is not None and same_underlying_buffer(out, load.memref):
            if producer is not None and producer is not user:
                raise InlineError("more than one lmhlo op writes one memref within one fusion")
            producer = user
    return producer


def dominates(a: Operation, b: Operation) -> bool:
    """`a` dominates `b` in structured (single-block region) control flow."""
    block = a.parent_block()
    cur: Operation | None = b
    while cur is not None:
        if cur.parent_block() is block:
            return cur is a or a.is_before_in_block(cur)
        cur = cur.parent_op()
    return False


def check_fusible(
    producer: Operation, load: memref.LoadOp
) -> tuple[bool, bool, list[memref.LoadOp]]:
    """(fusible, producer removable, loads sharing `load`'s value) (`checkIfFusible`)."""
    fusible, can_remove, same, _ = _check_fusible(producer, load)
    return fusible, can_remove, same


def _check_fusible(
    producer: Operation, load: memref.LoadOp
) -> tuple[bool, bool, list[memref.LoadOp], Operation | None]:
    """`check_fusible`'s answer, and when not fusible, the other lmhlo op reading
    `producer`'s output that prevents it (the answer holds while that op lives)."""
    out = _writer_facts(producer)[1]
    assert out is not None
    can_remove = True
    same: list[memref.LoadOp] = []
    for user in users_in_fusion_like(out, producer):
        if is_lmhlo_op(user) and user is not producer:
            return False, False, [], user
        if not isinstance(user, memref.LoadOp):
            continue
        if (
            user.memref is load.memref
            and list(user.indices) == list(load.indices)
            and dominates(load, user)
        ):
            same.append(user)
        else:
            can_remove = False
    return True, can_remove, same, None


def _inline_value(producer: Operation, load: memref.LoadOp) -> SSAValue:
    b = Builder.before(load)
    index = list(load.indices)
    try:
        if elemental.is_elementwise(producer):
            values = [
                elemental.create_load(b, v, index if elemental.rank_of(v) else [])
                for v in producer.operands[:-1]
            ]
            out_type = elemental.element_type(producer.operands[-1])
            return scalar.map_lmhlo_to_scalar(b, producer, out_type, values)
        return elemental.elemental_lower(b, producer, index, check_cache=True)
    except scalar.UnsupportedOp as err:
        raise InlineError(f"cannot inline '{producer.name}': {err}") from err


def _erase(op: Operation) -> None:
    op.detach()
    op.erase(safe_erase=False)


def clean_unused_lhlo_ops(block: Block) -> None:
    """Erase the lmhlo ops of `block` whose results no load (directly or through
    other kept lmhlo ops) reads (`cleanUnusedLhloOps`)."""
    with _fusion_lookups():
        _clean_unused_lhlo_ops(block)


def _written_buffers(ops: list[Operation]) -> set[SSAValue]:
    """The underlying buffers the lmhlo ops `ops` write."""
    return {root_memref(out) for op in ops if (out := _writer_facts(op)[1]) is not None}


def _clean_unused_lhlo_ops(block: Block) -> None:
    lhlo_ops = [op for op in block.ops if _is_lmhlo_writer(op)]
    # an operand no lmhlo op of the block writes (an input, a shape buffer
    # every layer reads) has no writer to keep: its users are not scanned
    written = _written_buffers(lhlo_ops)
    has_loader: set[Operation] = set()
    worklist: list[Operation] = []
    for op in lhlo_ops:
        out = _writer_facts(op)[1]
        if out is None:
            continue
        if not is_inplace(op) and _has_load(out, op):
            has_loader.add(op)
            worklist.append(op)
    while worklist:
        op = worklist.pop()
        for operand in op.operands[:-1]:
            if root_memref(operand) not in written:
                continue
            for user in users_in_fusion_like(operand, op):
                writer, out = _writer_facts(user)
                if not writer or user in has_loader:
                    continue
                if (
                    out is not None
                    and same_underlying_buffer(out, operand)
                    and not is_inplace(user)
                ):
                    has_loader.add(user)
                    worklist.append(user)
    for op in lhlo_ops:
        if op not in has_loader:
            _erase(op)


#: clean after every step as BladeDISC does (the reference the tests compare with)
FULL_CLEAN_EVERY_STEP = False


@dataclass
class _InlineRun:
    """What one inlining run over a fusion knows between steps."""

    #: a superset of the buffers the fusion's lmhlo ops write (steps only erase writers)
    written: set[SSAValue]
    #: a full `clean_unused_lhlo_ops` ran since the run began
    clean: bool = False
    #: the fusion's innermost `scf.parallel` loops: steps add scalar ops and
    #: loads in them and erase lmhlo ops and loads, never a loop
    loops: list[Operation] | None = None
    #: loads seen to have no producer in the fusion (steps never add a writer)
    no_producer: set[Operation] = field(default_factory=set)
    #: each load's producer once found: it stays the only writer of the load's
    #: buffer (steps never add a writer) until it is erased, then there is none
    producers: dict[Operation, Operation] = field(default_factory=dict)
    #: loads found not fusible, with the lmhlo op reading their producer's output
    #: that made them so: lmhlo ops never change, so the answer holds while it lives
    blocked: dict[Operation, Operation] = field(default_factory=dict)
    #: each loop's loads in walk order, kept up to date by the steps (a step
    #: replaces one load, and the loads reading the same element, by the ops it
    #: emits just before that load)
    loads: dict[Operation, list[memref.LoadOp]] = field(default_factory=dict)


#: check every step's updated load list against a fresh walk (for tests)
VERIFY_LOAD_LISTS = False


def _loads_in(ops: Iterable[Operation]) -> list[memref.LoadOp]:
    return [o for op in ops for o in preorder_ops(op) if isinstance(o, memref.LoadOp)]


def _ops_between(first: Operation | None, block: Block, end: Operation) -> list[Operation]:
    """The ops of `block` after `first` (from its start when None) and before `end`."""
    cur = block.first_op if first is None else first.next_op
    ops = []
    while cur is not None and cur is not end:
        ops.append(cur)
        cur = cur.next_op
    return ops


def _writers_still_loaded(values: list[SSAValue], anchor: Operation, run: _InlineRun) -> bool:
    """Whether every lmhlo op of the fusion writing one of `values` still has
    a load of its output: then erasing an inlined producer that read `values`
    leaves every other lmhlo op reachable from a load (a full clean would
    erase nothing)."""
    for value in values:
        if root_memref(value) not in run.written:
            continue
        for user in users_in_fusion_like(value, anchor):
            writer, out = _writer_facts(user)
            if not writer or out is None or not same_underlying_buffer(out, value):
                continue
            if is_inplace(user) or not _has_load(out, user):
                return False
    return True


def _process_parallel(loop: Operation, fusion_block: Block, run: _InlineRun) -> bool:
    loads = run.loads.get(loop)
    if loads is None:
        loads = run.loads[loop] = _loads_in([loop])
    for i, load in enumerate(loads):
        if load in run.no_producer:
            continue
        if root_memref(load.memref) not in run.written:
            run.no_producer.add(load)
            continue  # no lmhlo op of the fusion writes it: no producer
        producer = run.producers.get(load)
        if producer is None:
            producer = fusible_producer(load)
            if producer is None:
                run.no_producer.add(load)
                continue
            run.producers[load] = producer
        elif producer.parent is None:  # erased: the buffer has no writer left
            run.no_producer.add(load)
            continue
        blocker = run.blocked.get(load)
        if blocker is not None and blocker.parent is not None:
            continue
        fusible, can_remove, same, blocker = _check_fusible(producer, load)
        if not fusible:
            assert blocker is not None
            run.blocked[load] = blocker
            continue
        before, block = load.prev_op, load.parent_block()
        assert block is not None
        value = _inline_value(producer, load)
        emitted = _loads_in(_ops_between(before, block, load))
        for other in same:
            other.res.replace_all_uses_with(value)
        read = list(producer.operands[:-1])
        if can_remove:
            _erase(producer)
        for other in same:
            _erase(other)
        updated = [*loads[:i], *emitted, *(x for x in loads[i + 1 :] if x.parent is not None)]
        run.loads[loop] = updated
        if VERIFY_LOAD_LISTS:
            assert updated == _loads_in([loop]), "load list out of date"
        # BladeDISC cleans the whole fusion after every step. Once it is
        # clean, a step can only orphan what the erased producer alone kept
        # (a producer that stays still has a load): the full clean runs
        # only when a writer of the producer's inputs lost its last load.
        anchor = fusion_block.last_op
        assert anchor is not None
        if (
            FULL_CLEAN_EVERY_STEP
            or not run.clean
            or (can_remove and not _writers_still_loaded(read, anchor, run))
        ):
            clean_unused_lhlo_ops(fusion_block)
            run.clean = True
        return True
    return False


def should_process(fusion: Operation, only_gpu_stitch: bool = False) -> bool:
    """Whether the inliner works on `fusion`: every fusion, or only GPU kStitch
    ones when the roots pass inlines its GPU stitch kernels itself."""
    if not only_gpu_stitch:
        return True
    return is_gpu_lmhlo(fusion) and fusion_type_of(fusion) is FusionType.STITCH


def inline_once(fusion: Operation, run: _InlineRun | None = None) -> bool:
    """One inlining step in `fusion`; False when nothing is left to inline.
    `run`: the state of the run this step belongs to (a fresh one if None)."""
    block = fusion.regions[0].blocks.first
    if block is None:
        return False
    if run is None:
        run = _InlineRun(_block_writes(block))
    loops = run.loops
    if loops is None:
        loops = run.loops = list(innermost_parallel_loops(fusion))
    for loop in loops:
        if _process_parallel(loop, block, run):
            return True
    return False


def inline_fusion(fusion: Operation, max_iterations: int = MAX_ITERATIONS) -> int:
    """Inline until a fixed point; returns the number of steps."""
    steps = 0
    block = fusion.regions[0].blocks.first
    if block is None:
        return steps
    with _fusion_lookups():
        run = _InlineRun(_block_writes(block))
        while steps < max_iterations and inline_once(fusion, run):
            steps += 1
    return steps


__all__ = [
    "InlineError",
    "check_fusible",
    "clean_unused_lhlo_ops",
    "dominates",
    "fusible_producer",
    "inline_fusion",
    "inline_once",
    "should_process",
    "users_in_fusion_like",
]
