"""Splat detection of dense elements by their stored bits.

xDSL's `DenseIntOrFPElementsAttr.is_splat` compares element values with
`==`, so it calls `dense<[-0.0, 0.0]>` a splat of -0.0 (and its printer then
writes `dense<-0.0>`, changing the constant through a text round trip) and
never calls `[nan, nan]` one. MLIR's `DenseElementsAttr::isSplat` is a
property of the stored data; `install()` makes xDSL's method the same, for
the printer and for every fold that asks.
"""

from __future__ import annotations

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

SPLAT_ELEMENT_LIMIT = 65536
"""Largest splat constant the compiler creates: xDSL stores a splat with every
element (MLIR stores one), so a larger one is a broadcast scalar instead."""


def first_value(attr: DenseIntOrFPElementsAttr) -> int | float | None:
    """The first element of `attr` as xDSL's `get_values` gives it, unpacking only it."""
    count = len(attr)
    if count == 0:
        return None
    raw = attr.data.data
    size = len(raw) // count
    return attr.get_element_type().unpack(raw[:size], 1)[0]


def is_bitwise_splat(attr: DenseIntOrFPElementsAttr) -> bool:
    """Every element of `attr` is stored with the same bits (False when empty)."""
    raw, count = attr.data.data, len(attr)
    if count == 0 or len(raw) % count:
        return False
    size = len(raw) // count
    return raw == raw[:size] * count


def install() -> None:
    """Make `DenseIntOrFPElementsAttr.is_splat` compare stored bits (idempotent)."""
    DenseIntOrFPElementsAttr.is_splat = is_bitwise_splat  # type: ignore[assignment]  # MLIR's splat is a property of the stored bits, not of `==` on values


install()
