"""Memoizing pure functions of immutable IR objects and of IR classes.

xDSL attributes are immutable, and a module's few types and attributes are
shared by thousands of ops; hashing one (for an equality-keyed cache) rehashes
all its parameters every time. `IdentityMemo` looks an object up by `id`,
keeping the object in the entry so that its id is not reused while the entry
lives; the table is emptied when it reaches its size limit.

`ClassMemo` answers a question about a class (an op's traits, whether a class
is one of xDSL's attribute or unregistered-op classes) once per class: xDSL's
IR classes are ABCs, so `isinstance` on a miss is a slow check, and trait
queries scan the class's trait list on every call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class IdentityMemo(Generic[K, V]):
    """`fn(key)`, computed once per key object (while its entry lives)."""

    __slots__ = ("_fn", "_limit", "_table")

    def __init__(self, fn: Callable[[K], V], limit: int = 1 << 12) -> None:
        self._fn = fn
        self._limit = limit
        self._table: dict[int, tuple[K, V]] = {}

    def __call__(self, key: K) -> V:
        seen = self._table.get(id(key))
        if seen is not None and seen[0] is key:
            return seen[1]
        value = self._fn(key)
        if len(self._table) >= self._limit:
            self._table.clear()
        self._table[id(key)] = (key, value)
        return value

    def clear(self) -> None:
        self._table.clear()


class ClassMemo(dict[type, V]):
    """`fn(cls)`, computed on the first lookup `memo[cls]` and kept.

    A dict, so that a known class costs one lookup in the hot loops. `clear()`
    forgets every answer: call it when something `fn` reads changes (a folder
    registered after the first query, say).
    """

    __slots__ = ("_fn",)

    def __init__(self, fn: Callable[[type], V]) -> None:
        super().__init__()
        self._fn = fn

    def __missing__(self, cls: type) -> V:
        value = self[cls] = self._fn(cls)
        return value


__all__ = ["ClassMemo", "IdentityMemo"]
