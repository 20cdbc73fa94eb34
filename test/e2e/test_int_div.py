"""Integer divide / remainder where the machine instruction traps: XLA defines
`x / 0 = -1` (all ones unsigned), `x % 0 = x`, `INT_MIN / -1 = INT_MIN` and
`INT_MIN % -1 = 0`. A plain `arith.divsi` there killed the process (SIGFPE)."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import compiled, rand, rng, run


def _graph(t: str) -> str:
    return f"""
func.func @main(%x: tensor<?x{t}>, %y: tensor<?x{t}>) -> (tensor<?x{t}>, tensor<?x{t}>) {{
  %0 = mhlo.divide %x, %y : tensor<?x{t}>
  %1 = mhlo.remainder %x, %y : tensor<?x{t}>
  return %0, %1 : tensor<?x{t}>, tensor<?x{t}>
}}
"""


def _reference(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    info = np.iinfo(x.dtype)
    quot, rem = [], []
    for a, b in zip(x.tolist(), y.tolist(), strict=True):
        if b == 0:
            quot.append(info.max if info.min == 0 else -1)
            rem.append(a)
        elif a == info.min and b == -1 and info.min < 0:
            quot.append(info.min)
            rem.append(0)
        else:
            q = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # toward zero
            quot.append(q)
            rem.append(a - q * b)
    return np.array(quot, x.dtype), np.array(rem, x.dtype)


@pytest.mark.parametrize(
    "t, dtype",
    [("i32", np.int32), ("i8", np.int8), ("ui32", np.uint32), ("i64", np.int64)],
    ids=str,
)
def test_division_by_zero_and_overflow(t, dtype):
    info = np.iinfo(dtype)
    gen = rng("intdiv", t)
    x = np.concatenate(
        [[7, 0, info.min, info.max, info.min], rand(gen, (64,), dtype, max(info.min, -50), 50)]
    )
    y = np.concatenate(
        [[0, 0, -1 if info.min < 0 else 3, 0, 7], rand(gen, (64,), dtype, max(info.min, -4), 4)]
    )
    x, y = x.astype(dtype), y.astype(dtype)
    quot, rem = run(compiled(_graph(t)), x, y)
    want_q, want_r = _reference(x, y)
    np.testing.assert_array_equal(quot, want_q)
    np.testing.assert_array_equal(rem, want_r)
