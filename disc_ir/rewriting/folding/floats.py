"""Floating-point helpers for folding: IEEE rounding to the target format."""

from __future__ import annotations

import math
from typing import cast

from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
)
from xdsl.ir import Attribute


def is_supported_float(type_: Attribute) -> bool:
    """Whether folding can compute exactly in `type_` (f16, bf16, f32, f64)."""
    return isinstance(type_, Float16Type | BFloat16Type | Float32Type | Float64Type)


#: (precision in bits with the implicit one, smallest normal exponent,
#: largest exponent) of the formats folded below f64
_FORMATS: dict[type, tuple[int, int, int]] = {
    Float16Type: (11, -14, 15),
    BFloat16Type: (8, -126, 127),
    Float32Type: (24, -126, 127),
}


def _round_scaled(mantissa: int, exponent: int, format_: tuple[int, int, int]) -> float:
    """`mantissa * 2**exponent` rounded once, to nearest-even, in `format_`.

    Subnormals and overflow (to an infinity of the value's sign) as IEEE 754
    does; a zero mantissa gives +0.0.
    """
    precision, min_exp, max_exp = format_
    sign = -1.0 if mantissa < 0 else 1.0
    mantissa = abs(mantissa)
    if mantissa == 0:
        return 0.0
    lead = exponent + mantissa.bit_length() - 1
    quantum = max(lead, min_exp) - (precision - 1)
    shift = quantum - exponent
    if shift > 0:
        kept, dropped = divmod(mantissa, 1 << shift)
        half = 1 << (shift - 1)
        if dropped > half or (dropped == half and kept & 1):
            kept += 1
        mantissa, exponent = kept, quantum
    if mantissa.bit_length() + exponent > max_exp + 1:
        return math.copysign(math.inf, sign)
    return math.copysign(math.ldexp(float(mantissa), exponent), sign)


def round_to(value: float, type_: Attribute) -> float | None:
    """`value` rounded to nearest-even in `type_`'s format, in one rounding.

    Returns None when the format cannot represent the rounding (unsupported
    type); overflow gives an infinity as IEEE arithmetic does. bf16 rounds
    straight from the double (not through f32, which would round twice).
    """
    if isinstance(type_, Float64Type) or math.isnan(value) or math.isinf(value):
        return value
    format_ = _FORMATS.get(type(type_))
    if format_ is None:
        return None
    if value == 0.0:
        return value  # keeps the sign of zero
    fraction, exponent = math.frexp(value)
    return _round_scaled(int(fraction * (1 << 53)), exponent - 53, format_)


def round_int_to(value: int, type_: Attribute) -> float | None:
    """The integer `value` rounded once, to nearest-even, to `type_` (f16/bf16/f32/f64).

    Exact for any width: `float(value)` first would round twice for wide
    integers (an i64 into f32). None for an unsupported type.
    """
    if isinstance(type_, Float64Type):
        format_: tuple[int, int, int] | None = (53, -1022, 1023)
    else:
        format_ = _FORMATS.get(type(type_))
    if format_ is None:
        return None
    return _round_scaled(value, 0, format_)


def make_float_attr(value: float, type_: Attribute) -> FloatAttr | None:
    """A `FloatAttr` of `type_` holding `value` rounded to the type; None if unsupported."""
    rounded = round_to(value, type_)
    if rounded is None:
        return None
    return FloatAttr(rounded, cast(AnyFloat, type_))  # round_to() accepted it: a float type


def float_value(attr: Attribute) -> float | None:
    """The value of a scalar `FloatAttr` of a supported type; None otherwise."""
    if isinstance(attr, FloatAttr) and is_supported_float(attr.type):
        return attr.value.data
    return None


def ieee_div(a: float, b: float) -> float:
    """a / b with IEEE semantics (infinities and NaN instead of exceptions)."""
    if b == 0.0:
        if a == 0.0 or math.isnan(a):
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b
