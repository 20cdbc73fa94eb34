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
"""

from __future__ import annotations

from typing import TypeVar

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Operation
from xdsl.traits import MemoryEffect, NoMemoryEffect, OpTrait

T = TypeVar("T", bound=OpTrait)

_GET: dict[tuple[type[Operation], type[OpTrait]], OpTrait | None] = {}
_PURE: dict[type[Operation], bool] = {}


def get_trait(op: Operation, trait: type[T]) -> T | None:
    """`op.get_trait(trait)` for a trait class, cached per op class."""
    key = (type(op), trait)
    try:
        return _GET[key]  # type: ignore[return-value]
    except KeyError:
        found = op.get_trait(trait)
        _GET[key] = found
        return found


def has_trait(op: Operation, trait: type[OpTrait], value_if_unregistered: bool = True) -> bool:
    """`op.has_trait(trait, value_if_unregistered=...)` for a trait class, cached."""
    if isinstance(op, UnregisteredOp):
        return value_if_unregistered
    return get_trait(op, trait) is not None


def is_pure_class(op: Operation) -> bool:
    """The op's class has memory-effect traits and each is a `NoMemoryEffect`."""
    cls = type(op)
    pure = _PURE.get(cls)
    if pure is None:
        if isinstance(op, UnregisteredOp):
            pure = False
        else:
            effects = op.get_traits_of_type(MemoryEffect)
            pure = bool(effects) and all(isinstance(t, NoMemoryEffect) for t in effects)
        _PURE[cls] = pure
    return pure


__all__ = ["get_trait", "has_trait", "is_pure_class"]
