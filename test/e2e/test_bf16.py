"""bf16 on the CPU: computed in f32, rounded to bf16 after every op (as XLA's
CPU backend does), conversions as integer arithmetic (disc-bf16-expansion).

bf16 arrays cross the API as uint16 bit patterns. The reference rounds the
f32 result of every op with numpy's round-to-nearest-even, so ops that are
exact in f32 before rounding (add, multiply, convert, max, select, sort)
must match bit for bit; `exp` goes through disc-ir's f32 polynomial and may
differ from numpy's f32 exp by one f32 ulp, hence by at most one bf16 ulp
after rounding.
"""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import compiled, rand, rng, run

SHAPES = [(1, 1), (3, 17), (8, 129), (33, 1025)]

GRAPH = """
func.func @main(%x: tensor<?x?xbf16>, %y: tensor<?x?xf32>)
    -> (tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?x?xf32>, tensor<?xbf16>, tensor<?x?xbf16>, tensor<?x?xbf16>) {
  %yb = mhlo.convert %y : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %sum = mhlo.add %x, %yb : tensor<?x?xbf16>
  %prod = mhlo.multiply %sum, %x : tensor<?x?xbf16>
  %back = mhlo.convert %prod : (tensor<?x?xbf16>) -> tensor<?x?xf32>
  %ninf = mhlo.constant dense<0xFF80> : tensor<bf16>
  %max = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<?x?xbf16>, tensor<bf16>) -> tensor<?xbf16>
  %half = mhlo.constant dense<5.000000e-01> : tensor<bf16>
  %shape = shape.shape_of %x : tensor<?x?xbf16> -> tensor<2xindex>
  %halves = "mhlo.dynamic_broadcast_in_dim"(%half, %shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<bf16>, tensor<2xindex>) -> tensor<?x?xbf16>
  %gt = mhlo.compare GT, %x, %halves, FLOAT : (tensor<?x?xbf16>, tensor<?x?xbf16>) -> tensor<?x?xi1>
  %exp = mhlo.exponential %x : tensor<?x?xbf16>
  %sel = mhlo.select %gt, %exp, %x : tensor<?x?xi1>, tensor<?x?xbf16>
  %sorted = "mhlo.sort"(%x) ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
    %lt = mhlo.compare LT, %a, %b, TOTALORDER : (tensor<bf16>, tensor<bf16>) -> tensor<i1>
    mhlo.return %lt : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<?x?xbf16>) -> tensor<?x?xbf16>
  return %sum, %prod, %back, %max, %sel, %sorted : tensor<?x?xbf16>, tensor<?x?xbf16>, tensor<?x?xf32>, tensor<?xbf16>, tensor<?x?xbf16>, tensor<?x?xbf16>
}
"""


def to_f32(bits: np.ndarray) -> np.ndarray:
    return (bits.astype(np.uint32) << 16).view(np.float32)


def to_bf16(values: np.ndarray) -> np.ndarray:
    """f32 -> bf16 bits, round to nearest even, NaN kept quiet with its sign."""
    values = np.ascontiguousarray(values, np.float32)
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    quiet = ((bits >> 16) | 0x40).astype(np.uint16)
    return np.where(np.isnan(values), quiet, rounded)


def _bf16_ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in bf16 ulps of same-signed finite bit patterns."""
    return np.abs(a.astype(np.int64) - b.astype(np.int64))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_bf16_elementwise_reduce_select_sort(shape):
    gen = rng("bf16", shape)
    x = to_bf16(rand(gen, shape, np.float32, -3.0, 3.0))
    y = rand(gen, shape, np.float32, -3.0, 3.0)
    if x.size > 4:
        x.reshape(-1)[:4] = to_bf16(np.array([np.nan, np.inf, -0.0, 0.5], np.float32))
        y.reshape(-1)[4] = 1.00390625  # halfway between two bf16 values: ties to even
    xf = to_f32(x)
    total, prod, back, top, sel, srt = run(compiled(GRAPH), x, y)
    want_sum = to_bf16(xf + to_f32(to_bf16(y)))
    np.testing.assert_array_equal(total, want_sum)
    want_prod = to_bf16(to_f32(want_sum) * xf)
    np.testing.assert_array_equal(prod, want_prod)
    np.testing.assert_array_equal(back.view(np.uint32), to_f32(want_prod).view(np.uint32))
    np.testing.assert_array_equal(top, to_bf16(np.max(xf, axis=1)))
    exp_ref = to_bf16(np.exp(xf))
    chosen = xf > 0.5
    np.testing.assert_array_equal(sel[~chosen], x[~chosen])
    finite = chosen & np.isfinite(to_f32(exp_ref))
    assert _bf16_ulps(sel[finite], exp_ref[finite]).max(initial=0) <= 1
    np.testing.assert_array_equal(sel[chosen & ~finite], exp_ref[chosen & ~finite])
    bits = x.astype(np.int64)
    key = np.where(bits & 0x8000, -(bits & 0x7FFF) - 1, bits)  # -NaN < -inf < -0 < +0 < +NaN
    order = np.argsort(key, axis=1, kind="stable")
    np.testing.assert_array_equal(srt, np.take_along_axis(x, order, 1))


BF16_SUM = """
func.func @main(%x: tensor<?x?xbf16>) -> tensor<?xbf16> {
  %zero = mhlo.constant dense<0.000000e+00> : tensor<bf16>
  %0 = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xbf16>, tensor<bf16>) -> tensor<?xbf16>
  return %0 : tensor<?xbf16>
}
"""


def test_sum_accumulates_in_f32():
    # XLA's answer: 3000 rounded once to bf16 (3008); a running bf16 sum of
    # ones stops at 256
    (out,) = run(compiled(BF16_SUM), to_bf16(np.ones((2, 3000), np.float32)))
    assert (to_f32(out) == 3008).all()


BF16_CUMSUM = """
func.func @main(%x: tensor<3000xbf16>) -> tensor<3000xbf16> {
  %zero = mhlo.constant dense<0.000000e+00> : tensor<bf16>
  %0 = "mhlo.reduce_window"(%x, %zero) ({
  ^bb0(%a: tensor<bf16>, %b: tensor<bf16>):
    %s = mhlo.add %a, %b : tensor<bf16>
    mhlo.return %s : tensor<bf16>
  }) {padding = dense<[[2999, 0]]> : tensor<1x2xi64>, window_dimensions = dense<3000> : tensor<1xi64>} : (tensor<3000xbf16>, tensor<bf16>) -> tensor<3000xbf16>
  return %0 : tensor<3000xbf16>
}
"""


def test_cumulative_sum_accumulates_in_f32():
    # each prefix sum of ones rounded once to bf16 (XLA's answer), not a
    # running bf16 sum stuck at 256
    (out,) = run(compiled(BF16_CUMSUM), to_bf16(np.ones(3000, np.float32)))
    want = to_f32(to_bf16(np.arange(1, 3001, dtype=np.float32)))
    np.testing.assert_array_equal(to_f32(out), want)
