"""Builtin types built once: `memref_type` is `MemRefType(...)` memoised.

xDSL's `MemRefType.__init__` checks its shape argument against
`ArrayAttr[IntAttr]` by building that generic constraint anew on every call:
the passes create the same few buffer types thousands of
times on a transformer, so they build them here. Attributes are immutable
and hashable, so a cached instance is as good as a new one.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, MemRefLayoutAttr, MemRefType, NoneAttr
from xdsl.ir import Attribute


@functools.lru_cache(maxsize=4096)
def _memref_type(
    element_type: Attribute,
    shape: tuple[int, ...],
    layout: MemRefLayoutAttr | NoneAttr,
    memory_space: Attribute,
) -> MemRefType:
    return MemRefType(element_type, ArrayAttr([IntAttr(d) for d in shape]), layout, memory_space)


_NONE = NoneAttr()


def memref_type(
    element_type: Attribute,
    shape: Sequence[int | IntAttr],
    layout: MemRefLayoutAttr | NoneAttr = _NONE,
    memory_space: Attribute = _NONE,
) -> MemRefType:
    """`MemRefType(element_type, shape, layout, memory_space)`, memoised."""
    dims = tuple(d.data if isinstance(d, IntAttr) else d for d in shape)
    return _memref_type(element_type, dims, layout, memory_space)


__all__ = ["memref_type"]
