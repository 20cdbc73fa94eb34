"""Fixed-width integer arithmetic with MLIR's APInt semantics.

Signless integers of width `w` (and `index`, 64 bits wide as MLIR's
`IndexType::kInternalStorageBitWidth`) are plain Python ints reduced modulo
`2**w`. Helpers here convert between the two's complement views and build the
`IntegerAttr` MLIR would print (signless values print signed: `-1 : i8`,
`true` for an i1 one).
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType
from xdsl.ir import Attribute

INDEX_WIDTH = 64
"""Bit width of `index` values when folding (MLIR's internal storage width)."""


def int_width(type_: Attribute) -> int | None:
    """The bit width of an integer or index type; None for any other type."""
    if isinstance(type_, IndexType):
        return INDEX_WIDTH
    if isinstance(type_, IntegerType):
        return type_.width.data
    return None


def mask(width: int) -> int:
    """All ones in `width` bits."""
    return (1 << width) - 1


def to_unsigned(value: int, width: int) -> int:
    """`value` reduced modulo 2**width, in [0, 2**width)."""
    return value & mask(width)


def to_signed(value: int, width: int) -> int:
    """`value` as a two's complement number of `width` bits, in [-2**(w-1), 2**(w-1))."""
    u = to_unsigned(value, width)
    return u - (1 << width) if u >> (width - 1) else u


def signed_min(width: int) -> int:
    return -(1 << (width - 1))


def signed_max(width: int) -> int:
    return (1 << (width - 1)) - 1


def make_int_attr(value: int, type_: Attribute) -> IntegerAttr:
    """An `IntegerAttr` of `type_` holding `value` wrapped to the type's width.

    The stored value is the signed view, which is how MLIR prints signless
    integers (`arith.constant -1 : i8`, `arith.constant true`).
    """
    width = int_width(type_)
    assert width is not None, f"not an integer type: {type_}"
    return IntegerAttr(
        to_signed(value, width), cast(IntegerType | IndexType, type_)
    )  # width: an integer type


def int_value(attr: Attribute) -> tuple[int, int] | None:
    """(unsigned value, width) of an integer/index `IntegerAttr`; None otherwise."""
    if not isinstance(attr, IntegerAttr):
        return None
    width = int_width(attr.type)
    if width is None:
        return None
    return to_unsigned(attr.value.data, width), width


def trunc_div(a: int, b: int) -> int:
    """Integer division rounding toward zero (C / APInt::sdiv semantics)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def trunc_rem(a: int, b: int) -> int:
    """Remainder with the sign of the dividend (APInt::srem)."""
    return a - b * trunc_div(a, b)
