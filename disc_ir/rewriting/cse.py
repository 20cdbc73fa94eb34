"""MLIR's common sub-expression elimination on xDSL's CSE driver (what `cse` runs).

Walks every region with a scoped table of known ops (a fresh scope for
isolated-from-above ops such as `func.func`, the enclosing scope for nested
regions such as `scf.for` / `scf.parallel` / `lmhlo.fusion` bodies): an op
equal to a known one (same name, attributes, properties, operands, result
types, structurally equal regions) is replaced by it. Ops with memory effects
are kept, except read-only ops, which are merged with an equal op of the same
block when no op in between may write. Trivially dead ops are erased, as
MLIR's CSE does (an unused `memref.alloc` included).
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.traits import IsolatedFromAbove, IsTerminator, MemoryEffectKind
from xdsl.transforms.common_subexpression_elimination import (
    CSEDriver,
    has_other_side_effecting_op_in_between,
)

from disc_ir.ir.memo import ClassMemo, IdentityMemo
from disc_ir.ir.trait_cache import get_effects, has_trait
from disc_ir.rewriting.dead_ops import is_trivially_dead

#: `hash` of attribute objects: an attribute's hash is recomputed over all its
#: parameters on every call, and the same few objects (types, GEP element
#: types, predicates) recur on many ops
_attr_hash: IdentityMemo[object, int] = IdentityMemo(hash, 1 << 14)


def _dict_hash(items: dict[str, Attribute]) -> int:
    """An order-independent hash of a name -> attribute dict (equal dicts hash alike)."""
    return sum(hash(k) ^ _attr_hash(v) for k, v in items.items())


#: per op class: whether it is one of xDSL's unregistered-op classes (made per
#: op name)
_UNREGISTERED_CLASS: ClassMemo[bool] = ClassMemo(lambda cls: issubclass(cls, UnregisteredOp))


class _OpKey:
    """xDSL's `OperationInfo` (ops equal in name, attributes, properties,
    operands, result types and region structure) with its hash computed once
    (from the name, operands and properties, or for ops without operands from
    the name, attributes, properties and result types).

    A dict keeps the hash a key had when it was stored; equal fields imply
    equal hashes, so comparing the fields (as xDSL does after the hashes)
    decides equality exactly as xDSL's recomputed hashes do.
    """

    __slots__ = ("hash", "name", "op")

    def __init__(self, op: Operation) -> None:
        self.op = op
        self.name = op.op_name.data if _UNREGISTERED_CLASS[op.__class__] else op.name  # type: ignore[attr-defined]  # an UnregisteredOp then
        operands = op._operands  # pyright: ignore[reportPrivateUsage]
        if operands:
            # name, operands and properties only (ops equal in every field hash
            # alike): hashing attributes and types costs more than the few ops
            # on the same operands (e.g. other predicates) cost `__eq__`;
            # properties tell apart e.g. the GEPs of one base pointer
            properties = op.properties
            self.hash = hash((self.name, operands, _dict_hash(properties) if properties else 0))
        else:
            self.hash = hash(
                (
                    self.name,
                    _dict_hash(op.attributes),
                    _dict_hash(op.properties),
                    tuple([_attr_hash(r.type) for r in op.results]),
                )
            )

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, _OpKey):
            return False
        a, b = self.op, other.op
        return (
            self.name == other.name
            and a.attributes == b.attributes
            and a.properties == b.properties
            and a._operands == b._operands  # pyright: ignore[reportPrivateUsage]
            and [r.type for r in a.results] == [r.type for r in b.results]
            and all(
                s.is_structurally_equivalent(o) for s, o in zip(a.regions, b.regions, strict=True)
            )
        )


class _ScopedKnownOps:
    """xDSL's `KnownOps` scopes (a nested region sees a copy of its parent's
    table) as one table with an undo log per open scope, so entering a region
    costs nothing instead of a copy of every known op.

    The table maps a key to (the key object stored, the known op): an entry is
    restored or removed through the very key object the table holds.
    """

    def __init__(self) -> None:
        self.table: dict[_OpKey, tuple[_OpKey, Operation]] = {}
        self.logs: list[list[tuple[_OpKey, tuple[_OpKey, Operation] | None]]] = []

    def lookup(self, op: Operation) -> tuple[_OpKey, Operation | None]:
        """`op`'s key (for `store`) and the known op equal to it, if any."""
        key = _OpKey(op)
        found = self.table.get(key)
        return key, None if found is None else found[1]

    def __contains__(self, op: Operation) -> bool:
        return _OpKey(op) in self.table

    def store(self, key: _OpKey, value: Operation) -> None:
        """Map `key` (of an op) to `value` in the innermost scope."""
        previous = self.table.get(key)
        stored = key if previous is None else previous[0]
        self.table[stored] = (stored, value)
        if self.logs:
            self.logs[-1].append((stored, previous))

    def push(self) -> None:
        self.logs.append([])

    def pop(self) -> None:
        table = self.table
        for stored, previous in reversed(self.logs.pop()):
            if previous is None:
                del table[stored]
            else:
                table[stored] = previous


class DiscCSEDriver(CSEDriver):
    """xDSL's CSE driver with MLIR's notion of trivially dead ops, and its
    known-op scopes kept in one table with undo logs."""

    def __init__(self) -> None:
        super().__init__()
        self._known_ops = _ScopedKnownOps()  # type: ignore[assignment]  # _ScopedKnownOps replaces xDSL's KnownOps, with its interface

    def _simplify_block(self, block: Block) -> None:
        for op in block.ops:
            if op.regions:
                if has_trait(op, IsolatedFromAbove, value_if_unregistered=True):
                    # a blank table inside, the current one back after
                    outer = self._known_ops
                    self._known_ops = _ScopedKnownOps()  # type: ignore[assignment]  # _ScopedKnownOps replaces xDSL's KnownOps, with its interface
                    for region in op.regions:
                        self._simplify_region(region)
                    self._known_ops = outer
                else:
                    for region in op.regions:
                        self._simplify_region(region)
            self._simplify_operation(op)

    def _simplify_region(self, region: Region) -> None:
        first = region.first_block
        if first is None or first.next_block is not None:
            return  # empty, or several blocks: left alone (as xDSL and MLIR do)
        known: _ScopedKnownOps = self._known_ops  # type: ignore[assignment]  # set to a _ScopedKnownOps in __init__
        known.push()
        try:
            self._simplify_block(first)
        finally:
            known.pop()

    def _simplify_operation(self, op: Operation) -> None:
        if has_trait(op, IsTerminator):
            return
        if is_trivially_dead(op):
            self._mark_erasure(op)
            return
        if any(len(region.blocks) > 1 for region in op.regions):
            return
        # xDSL's is_side_effect_free / only_has_effect(READ), on cached effects
        effects = get_effects(op)
        known: _ScopedKnownOps = self._known_ops  # type: ignore[assignment]  # set to a _ScopedKnownOps in __init__
        if effects is None or effects:
            if effects is None or any(e.kind != MemoryEffectKind.READ for e in effects):
                return
            key, existing = known.lookup(op)
            if (
                existing is not None
                and op.parent_block() is existing.parent_block()
                and not has_other_side_effecting_op_in_between(existing, op)
            ):
                self._replace_and_delete(op, existing)
                return
            known.store(key, op)
            return
        key, existing = known.lookup(op)
        if existing is not None:
            self._replace_and_delete(op, existing)
            return
        known.store(key, op)

    def _commit_erasures(self) -> None:
        # erase users before producers so no erased value is still in use
        pending = [o for o in self._to_erase]
        while pending:
            progress = False
            for o in list(pending):
                if o.parent is None:
                    pending.remove(o)
                    continue
                if all(not r.uses for r in o.results):
                    self._rewriter.erase_op(o)
                    pending.remove(o)
                    progress = True
            if not progress:
                for o in pending:
                    if o.parent is not None:
                        self._rewriter.erase_op(o, safe_erase=False)
                break


def cse(op: Operation) -> None:
    """Run CSE on the regions of `op`."""
    DiscCSEDriver().simplify(op)
