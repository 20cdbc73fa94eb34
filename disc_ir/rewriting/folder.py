"""The constant folder (MLIR's OperationFolder) of the greedy rewrite driver.

`ConstantFolder` folds ops (`disc_ir.rewriting.folding.fold_op`, falling back
to xDSL's `HasFolder` hooks) and keeps constants uniqued per
isolated-from-above region, keyed by (dialect, value, type), and hoisted to the
front of the region's entry block; `insertion_region(block)` is the region the
constants of `block`'s ops go to.
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.traits import (
    IsolatedFromAbove,
)

from disc_ir.ir.trait_cache import (
    has_trait,
)
from disc_ir.rewriting.folding import (
    constant_value,
    materialize_constant,
    move_constants_right,
    operand_constants,
)
from disc_ir.rewriting.folding.core import (
    _constant_kind,
    fold_in_place,
    fold_with_constants,
    may_fold,
)
from disc_ir.rewriting.folding.ints import int_value, to_signed
from disc_ir.rewriting.patterns.utils import erase_op

# --------------------------------------------------------------------------
# the constant folder


def _attr_key(attr: Attribute) -> object:
    """A hashable key identifying a constant value exactly (-0.0 != 0.0, i8 255 == -1)."""
    if isinstance(attr, IntegerAttr) and (iv := int_value(attr)) is not None:
        return ("int", to_signed(*iv), attr.type)
    if isinstance(attr, FloatAttr):
        value = attr.value.data
        bits = struct.pack("<d", value) if not math.isnan(value) else b"nan"
        return ("float", bits, attr.type)
    return attr


def insertion_region(block: Block) -> Region:
    """The region constants for ops in `block` go to: the closest isolated-from-above one.

    A region whose parent op is isolated from above (or unregistered), or is a
    top-level op, takes the constants (MLIR's getInsertionRegion).
    """
    while True:
        region = block.parent
        assert region is not None, "block outside of any region"
        parent = region.parent
        if parent is None:
            return region
        if (
            has_trait(parent, IsolatedFromAbove, value_if_unregistered=True)
            or parent.parent is None
        ):
            return region
        assert parent.parent is not None
        block = parent.parent


ConstKey = tuple[str, object, Attribute]


@dataclass
class ConstantFolder:
    """MLIR's OperationFolder: folds ops and keeps constants uniqued and hoisted."""

    ctx: Context | None
    scopes: dict[Region, dict[ConstKey, Operation]] = field(default_factory=dict)
    owned: dict[Operation, list[str]] = field(default_factory=dict)
    on_insert: Callable[[Operation], None] | None = None
    on_erase: Callable[[Operation], None] | None = None
    #: how many times the folder changed the IR (moved, created or erased an op)
    changes: int = 0

    def is_owned(self, op: Operation | None) -> bool:
        return op is not None and op in self.owned

    def _key(self, dialect: str, value: Attribute, type_: Attribute) -> ConstKey:
        return (dialect, _attr_key(value), type_)

    def _rehoist(self, op: Operation) -> None:
        block = op.parent_block()
        assert block is not None
        if block.first_op is not op and not self.is_owned(op.prev_op):
            _move_to_front(op, block)
            self.changes += 1

    def insert_known_constant(self, op: Operation, value: Attribute | None = None) -> bool:
        """Register the constant `op`; returns False when it was replaced by a known one."""
        block = op.parent_block()
        assert block is not None
        if self.is_owned(op):
            self._rehoist(op)
            return True
        if value is None:
            value = constant_value(op.results[0])
            assert value is not None, "expected a constant op"
        region = insertion_region(block)
        uniqued = self.scopes.setdefault(region, {})
        key = self._key(op.dialect_name(), value, op.results[0].type)
        existing = uniqued.get(key)
        if existing is not None:
            self._replace(op, list(existing.results))
            return False
        entry = region.blocks.first
        assert entry is not None
        if block is not entry or (entry.first_op is not op and not self.is_owned(op.prev_op)):
            _move_to_front(op, entry)
            self.changes += 1
        uniqued[key] = op
        self.owned[op] = [op.dialect_name()]
        return True

    def notify_removal(self, op: Operation) -> None:
        """Forget `op` if it is a constant this folder uniqued."""
        dialects = self.owned.pop(op, None)
        if dialects is None:
            return
        value = constant_value(op.results[0])
        block = op.parent_block()
        if value is None or block is None:
            return
        uniqued = self.scopes.get(insertion_region(block), {})
        for dialect in dialects:
            key = self._key(dialect, value, op.results[0].type)
            if uniqued.get(key) is op:
                del uniqued[key]

    def _replace(self, op: Operation, values: Sequence[SSAValue]) -> None:
        for old, new in zip(op.results, values, strict=True):
            old.replace_all_uses_with(new)
        if self.on_erase is not None:
            self.on_erase(op)
        self.notify_removal(op)
        erase_op(op)
        self.changes += 1

    def get_or_create_constant(
        self, region: Region, dialect: str, value: Attribute, type_: Attribute
    ) -> Operation | None:
        """The uniqued constant of `value` in `region`, materialized at the entry's front if new."""
        uniqued = self.scopes.setdefault(region, {})
        key = self._key(dialect, value, type_)
        if (existing := uniqued.get(key)) is not None:
            return existing
        new = materialize_constant(dialect, value, type_, self.ctx)
        if new is None:
            return None
        entry = region.blocks.first
        assert entry is not None
        _insert_at_front(new, entry)
        self.changes += 1
        if self.on_insert is not None:
            self.on_insert(new)
        new_dialect = new.dialect_name()
        if new_dialect == dialect:
            uniqued[key] = new
            self.owned[new] = [dialect]
            return new
        new_key = self._key(new_dialect, value, type_)
        if (existing := uniqued.get(new_key)) is not None:
            if self.on_erase is not None:
                self.on_erase(new)
            erase_op(new)
            self.changes += 1
            uniqued[key] = existing
            self.owned.setdefault(existing, []).append(dialect)
            return existing
        uniqued[key] = new
        uniqued[new_key] = new
        self.owned[new] = [dialect, new_dialect]
        return new

    def try_to_fold(self, op: Operation) -> tuple[list[SSAValue] | None, bool]:
        """Fold `op`: (replacement values or None, whether it changed in place)."""
        if self.is_owned(op):
            self._rehoist(op)
            return None, False
        block = op.parent
        assert block is not None
        if _constant_kind(op) is not None:
            value = constant_value(op.results[0]) if len(op.results) == 1 else None
            if value is None:
                return None, False
            region = insertion_region(block)
            existing = self.scopes.setdefault(region, {}).get(
                self._key(op.dialect_name(), value, op.results[0].type)
            )
            if existing is not None:
                return list(existing.results), False
            self.insert_known_constant(op, value)
            return None, True
        moved = move_constants_right(op)
        if not may_fold(op):
            return None, moved  # (moving constants right again would move nothing)
        consts = operand_constants(op)
        folded = fold_with_constants(op, consts)
        if folded is None:
            # what fold_op(op, in_place=True) adds (its folding part would
            # find nothing again: the IR is unchanged)
            in_place = fold_in_place(op, consts)
            return None, moved or in_place
        region = insertion_region(block)
        results: list[SSAValue] = []
        created: list[Operation] = []
        for folded_value, old in zip(folded, op.results, strict=True):
            if isinstance(folded_value, SSAValue):
                if folded_value.type != old.type:
                    return None, moved
                results.append(folded_value)
                continue
            const = self.get_or_create_constant(region, op.dialect_name(), folded_value, old.type)
            if const is None:
                for c in created:
                    if not any(r.uses for r in c.results):
                        self.notify_removal(c)
                        if self.on_erase is not None:
                            self.on_erase(c)
                        erase_op(c)
                        self.changes += 1
                return None, moved
            created.append(const)
            const_block = const.parent_block()
            if const_block is block and block.first_op is not const:
                _move_to_front(const, block)
                self.changes += 1
            results.append(const.results[0])
        return results, False


def _move_to_front(op: Operation, block: Block) -> None:
    op.detach()
    _insert_at_front(op, block)


def _insert_at_front(op: Operation, block: Block) -> None:
    first = block.first_op
    if first is None:
        block.add_op(op)
    else:
        block.insert_op_before(op, first)
