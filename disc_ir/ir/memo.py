"""Memoizing pure functions of immutable IR objects (attributes, types) by
object identity.

xDSL attributes are immutable, and a module's few types and attributes are
shared by thousands of ops; hashing one (for an equality-keyed cache) rehashes
all its parameters every time. `IdentityMemo` looks an object up by `id`,
keeping the object in the entry so that its id is not reused while the entry
lives; the table is emptied when it reaches its size limit.
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


__all__ = ["IdentityMemo"]
