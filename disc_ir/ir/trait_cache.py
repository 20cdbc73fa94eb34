"""Cached trait queries on operation classes.

xDSL's `Operation.has_trait` / `get_trait` scan the class's trait list on
every call; the hot loops of the canonicalizer and the folder ask the same
few questions (`ConstantLike`, `HasFolder`, `Commutative`, ...) of every op
on every sweep. A trait given as a class is a property of the op's class, so
the answer is cached per (op class, trait class). Unregistered ops answer
`value_if_unregistered`, as xDSL's `has_trait` documents.

`is_pure_class(op)`: the op's class declares memory-effect traits and all of
them are `NoMemoryEffect` (e.g. `Pure`): such an op without regions has no
effects whatever its operands, attributes or nesting.

`get_effects(op, memo)`: xDSL's `get_effects` (the same set, None for
unknown effects) with the effects of classes whose memory-effect traits are
all xDSL's constant ones (`NoMemoryEffect`, `MemoryReadEffect`, ...)
computed once per class, and `RecursiveMemoryEffect` ops' nested effects
remembered in `memo` (valid while the IR is not changed), so a sweep over
nested regions costs linear time.
"""

from __future__ import annotations

from collections.abc import Set as AbstractSet
from typing import TypeVar

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Operation, SSAValue
from xdsl.traits import (
    EffectInstance,
    MemoryAllocEffect,
    MemoryEffect,
    MemoryEffectKind,
    MemoryFreeEffect,
    MemoryReadEffect,
    MemoryWriteEffect,
    NoMemoryEffect,
    OpTrait,
    RecursiveMemoryEffect,
)

from disc_ir.ir.memo import ClassMemo

T = TypeVar("T", bound=OpTrait)

_GET: dict[tuple[type[Operation], type[OpTrait]], OpTrait | None] = {}


def get_trait(op: Operation, trait: type[T]) -> T | None:
    """`op.get_trait(trait)` for a trait class, cached per op class."""
    key = (type(op), trait)
    try:
        return _GET[key]  # type: ignore[return-value]  # the cache maps (op class, T) to a T
    except KeyError:
        found = op.get_trait(trait)
        _GET[key] = found
        return found


_HAS: dict[tuple[type[Operation], type[OpTrait], bool], bool] = {}


def has_trait(op: Operation, trait: type[OpTrait], value_if_unregistered: bool = True) -> bool:
    """`op.has_trait(trait, value_if_unregistered=...)` for a trait class, cached."""
    key = (type(op), trait, value_if_unregistered)
    try:
        return _HAS[key]
    except KeyError:
        if isinstance(op, UnregisteredOp):
            found = value_if_unregistered
        else:
            found = get_trait(op, trait) is not None
        _HAS[key] = found
        return found


def _class_is_pure(cls: type[Operation]) -> bool:
    if issubclass(cls, UnregisteredOp):
        return False
    effects = cls.get_traits_of_type(MemoryEffect)  # type: ignore[type-abstract]  # xDSL looks traits up by their abstract base
    return bool(effects) and all(isinstance(t, NoMemoryEffect) for t in effects)


_PURE: ClassMemo[bool] = ClassMemo(_class_is_pure)


def is_pure_class(op: Operation) -> bool:
    """The op's class has memory-effect traits and each is a `NoMemoryEffect`."""
    return _PURE[type(op)]


Effects = AbstractSet[EffectInstance]

#: memory-effect traits whose `get_effects` is a constant of the class
_CONSTANT_EFFECTS = frozenset(
    t.get_effects.__func__  # type: ignore[attr-defined]  # get_effects is a classmethod: bound, it has __func__
    for t in (
        NoMemoryEffect,
        MemoryReadEffect,
        MemoryWriteEffect,
        MemoryAllocEffect,
        MemoryFreeEffect,
    )
)
_RECURSIVE_EFFECTS = RecursiveMemoryEffect.get_effects.__func__  # type: ignore[attr-defined]  # get_effects is a classmethod: bound, it has __func__

#: per op class: None (no memory-effect trait: unknown effects), the constant
#: effect set, or the traits to ask (`True` marks RecursiveMemoryEffect's own hook)
_CLASS_EFFECTS: dict[type[Operation], Effects | tuple[tuple[MemoryEffect, bool], ...] | None] = {}
_UNSET = object()


def _class_effects(op: Operation) -> Effects | tuple[tuple[MemoryEffect, bool], ...] | None:
    cls = type(op)
    found = _CLASS_EFFECTS.get(cls, _UNSET)
    if found is not _UNSET:
        return found  # type: ignore[return-value]  # not the _UNSET sentinel: a cached value
    traits = op.get_traits_of_type(MemoryEffect)  # type: ignore[type-abstract]  # xDSL looks traits up by their abstract base
    result: Effects | tuple[tuple[MemoryEffect, bool], ...] | None
    if not traits:
        result = None
    elif all(type(t).get_effects.__func__ in _CONSTANT_EFFECTS for t in traits):  # type: ignore[attr-defined]  # get_effects is a classmethod: bound, it has __func__
        constant: set[EffectInstance] = set()
        for t in traits:
            constant.update(t.get_effects(op))  # type: ignore[arg-type]  # constant-effect traits return a set
        result = frozenset(constant)
    else:
        result = tuple(
            (t, type(t).get_effects.__func__ is _RECURSIVE_EFFECTS)  # type: ignore[attr-defined]  # get_effects is a classmethod: bound, it has __func__
            for t in traits
        )
    _CLASS_EFFECTS[cls] = result
    return result


def get_effects(
    op: Operation, memo: dict[Operation, Effects | None] | None = None
) -> Effects | None:
    """xDSL's `get_effects(op)`: the op's memory effects, None when unknown.

    `memo` (op -> effects) remembers the effects of ops with regions; pass the
    same dict only while the IR does not change.
    """
    found = _class_effects(op)
    if found is None:
        return None
    if not isinstance(found, tuple):
        return found
    if memo is not None and op in memo:
        return memo[op]
    effects: set[EffectInstance] = set()
    result: Effects | None = effects
    for trait, recursive in found:
        if recursive:
            nested = _nested_effects(op, memo)
        else:
            nested = trait.get_effects(op)
        if nested is None:
            result = None
            break
        effects.update(nested)
    if memo is not None:
        memo[op] = result
    return result


def _nested_effects(op: Operation, memo: dict[Operation, Effects | None] | None) -> Effects | None:
    """RecursiveMemoryEffect's effects: the union of the nested ops' effects."""
    effects: set[EffectInstance] = set()
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                child_effects = get_effects(child, memo)
                if child_effects is None:
                    return None
                effects.update(child_effects)
    return effects


def _removable(effect: EffectInstance, root: Operation, alloc_without_value: bool) -> bool:
    kind = effect.kind
    if kind == MemoryEffectKind.READ:
        return True
    if kind != MemoryEffectKind.ALLOC:
        return False
    value = effect.value
    if value is None:
        return alloc_without_value
    return isinstance(value, SSAValue) and root.is_ancestor(value.owner)


#: (op class, alloc_without_value) -> `_only_removable` for classes whose
#: effects are a constant set (its effects carry no value: the answer is the class's)
_CONSTANT_REMOVABLE: dict[tuple[type[Operation], bool], bool] = {}


def _only_removable(op: Operation, root: Operation, alloc_without_value: bool) -> bool:
    key = (type(op), alloc_without_value)
    known = _CONSTANT_REMOVABLE.get(key)
    if known is not None:
        return known
    found = _class_effects(op)
    if found is None:
        _CONSTANT_REMOVABLE[key] = False
        return False
    if not isinstance(found, tuple):
        removable = all(_removable(e, root, alloc_without_value) for e in found)
        if all(e.value is None for e in found):
            _CONSTANT_REMOVABLE[key] = removable
        return removable
    for trait, recursive in found:
        if recursive:
            # last ops first: a loop body's writes (what makes the answer
            # False) usually sit at its end, just before the terminator
            for region in op.regions:
                block = region._last_block  # pyright: ignore[reportPrivateUsage]
                while block is not None:
                    child = block._last_op  # pyright: ignore[reportPrivateUsage]
                    while child is not None:
                        if not _only_removable(child, root, alloc_without_value):
                            return False
                        child = child._prev_op  # pyright: ignore[reportPrivateUsage]
                    block = block._prev_block  # pyright: ignore[reportPrivateUsage]
            continue
        effects = trait.get_effects(op)
        if effects is None or not all(_removable(e, root, alloc_without_value) for e in effects):
            return False
    return True


def removal_is_class_constant(op: Operation, alloc_without_value: bool) -> bool:
    """Whether `only_reads_or_allocates(op, alloc_without_value)`, once asked,
    is known to answer the same for every op of `op`'s class."""
    return (type(op), alloc_without_value) in _CONSTANT_REMOVABLE


def only_reads_or_allocates(op: Operation, alloc_without_value: bool) -> bool:
    """Whether `op` (with everything nested in it) has known effects that are all
    reads or allocations of values defined in it: `get_effects(op)` is not None
    and every effect is a READ, or an ALLOC whose value `op` or an op nested in it
    defines. An ALLOC effect without a value (xDSL's `MemoryAllocEffect`) counts
    as one on the op's own results when `alloc_without_value` (MLIR's rule), as
    an observable effect otherwise (xDSL's `result_only_effects`). Stops at the
    first other effect."""
    return _only_removable(op, op, alloc_without_value)


__all__ = [
    "Effects",
    "get_effects",
    "get_trait",
    "has_trait",
    "is_pure_class",
    "only_reads_or_allocates",
    "removal_is_class_constant",
]
