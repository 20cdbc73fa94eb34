"""Float -> integer `mhlo.convert` saturates as XLA's does: truncation toward
zero, out-of-range values clamped to the integer bounds, NaN -> 0 (negative
values -> 0 for unsigned types). `arith.fptosi` alone is poison there, which
gave INT_MIN for NaN and wrapped values for unsigned types."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import compiled, run

SPECIALS = [np.nan, np.inf, -np.inf, 3e9, -3e9, 2.7, -2.7, 300.0, -300.0, 65504.0, -0.5]


def _graph(src: str, dst: str) -> str:
    return f"""
func.func @main(%x: tensor<?x{src}>) -> tensor<?x{dst}> {{
  %0 = mhlo.convert %x : (tensor<?x{src}>) -> tensor<?x{dst}>
  return %0 : tensor<?x{dst}>
}}
"""


def _reference(x: np.ndarray, dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)

    def one(v: float) -> int:
        if np.isnan(v):
            return 0
        if np.isinf(v):
            return info.max if v > 0 else info.min
        return min(max(int(v), info.min), info.max)  # int() truncates toward zero

    return np.array([one(float(v)) for v in x], dtype)


@pytest.mark.parametrize(
    "src, dst",
    [
        ("f32", "i32"),
        ("f32", "ui8"),
        ("f32", "i8"),
        ("f32", "ui32"),
        ("f16", "i32"),
        ("f16", "ui16"),
        ("f64", "i64"),
        ("f32", "i16"),
    ],
    ids=lambda v: v,
)
def test_float_to_int_saturates(src, dst):
    fdt = {"f32": np.float32, "f16": np.float16, "f64": np.float64}[src]
    idt = {
        "i32": np.int32,
        "ui8": np.uint8,
        "i8": np.int8,
        "ui32": np.uint32,
        "ui16": np.uint16,
        "i64": np.int64,
        "i16": np.int16,
    }[dst]
    with np.errstate(over="ignore"):
        x = np.array(SPECIALS, fdt)
    (got,) = run(compiled(_graph(src, dst)), x)
    np.testing.assert_array_equal(got, _reference(x, np.dtype(idt)))


def test_truncation_through_int_round_trip_is_kept():
    """`x + convert(convert(x : f32 -> i32) -> f32)` is `x + trunc(x)`, not `2x`:
    the algebraic simplifier keeps a round trip through a narrower type."""
    graph = """
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mhlo.convert %x : (tensor<?xf32>) -> tensor<?xi32>
  %1 = mhlo.convert %0 : (tensor<?xi32>) -> tensor<?xf32>
  %2 = mhlo.add %1, %x : tensor<?xf32>
  return %2 : tensor<?xf32>
}
"""
    x = np.array([2.7, -2.7, 0.5, -0.5, 3.0, 1e3 + 0.25], np.float32)
    (got,) = run(compiled(graph), x)
    np.testing.assert_array_equal(got, np.trunc(x) + x)
