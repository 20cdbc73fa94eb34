"""Floating-point helpers for folding: IEEE rounding to the target format."""

from __future__ import annotations

import math
import struct
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

_PACK_FORMATS: dict[type, str] = {Float16Type: "<e", Float32Type: "<f", Float64Type: "<d"}


def is_supported_float(type_: Attribute) -> bool:
    """Whether folding can compute exactly in `type_` (f16, bf16, f32, f64)."""
    return isinstance(type_, Float16Type | BFloat16Type | Float32Type | Float64Type)


def round_to(value: float, type_: Attribute) -> float | None:
    """`value` rounded to nearest-even in `type_`'s format.

    Returns None when the format cannot represent the rounding (unsupported
    type); overflow gives an infinity as IEEE arithmetic does.
    """
    if isinstance(type_, Float64Type) or math.isnan(value) or math.isinf(value):
        return value
    if isinstance(type_, BFloat16Type):
        bits = struct.unpack("<I", struct.pack("<f", _round_f32(value)))[0]
        if (bits & 0x7F800000) == 0x7F800000:
            return struct.unpack("<f", struct.pack("<I", bits & 0xFFFF0000))[0]
        rounding = 0x7FFF + ((bits >> 16) & 1)
        bits = ((bits + rounding) >> 16) << 16
        return struct.unpack("<f", struct.pack("<I", bits & 0xFFFFFFFF))[0]
    fmt = _PACK_FORMATS.get(type(type_))
    if fmt is None:
        return None
    if isinstance(type_, Float32Type):
        return _round_f32(value)
    try:
        return struct.unpack(fmt, struct.pack(fmt, value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


def _round_f32(value: float) -> float:
    try:
        return struct.unpack("<f", struct.pack("<f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)


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
