"""`mhlo.sort`: the merge-sort schedule with the comparator evaluated on scalars.

The graphs are what JAX exports for `jnp.sort`, `jnp.argsort` and
`jax.lax.top_k` (a comparator canonicalizing -0 and NaN, then comparing in
TOTALORDER, reading constants defined outside the sort; a (keys, iota) pair;
GT for a descending sort), plus a raw TOTALORDER comparison and a two-key
lexicographic comparator. Shapes are dynamic, rows of length 1, odd, a power
of two plus one and a few thousand elements. References are numpy's stable
sorts; results must be exact (a sort moves values, it computes nothing).
"""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import compiled, rand, rng, run

SHAPES = [(1, 1), (1, 17), (13, 1), (7, 33), (5, 1025), (3, 4099)]

# jnp.sort(x, axis=1) and jnp.argsort(x, axis=0), as JAX exports them
JAX_SORT = """
func.func @main(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi32>) {
  %nan = mhlo.constant dense<0x7FC00000> : tensor<f32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "mhlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = mhlo.compare EQ, %a, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = mhlo.select %1, %zero, %a : tensor<i1>, tensor<f32>
    %3 = mhlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = mhlo.select %3, %nan, %2 : tensor<i1>, tensor<f32>
    %5 = mhlo.compare EQ, %b, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %6 = mhlo.select %5, %zero, %b : tensor<i1>, tensor<f32>
    %7 = mhlo.compare NE, %b, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %8 = mhlo.select %7, %nan, %6 : tensor<i1>, tensor<f32>
    %9 = mhlo.compare LT, %4, %8, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %9 : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %shape = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %iota = "mhlo.dynamic_iota"(%shape) {iota_dimension = 0 : i64} : (tensor<2xindex>) -> tensor<?x?xi32>
  %10:2 = "mhlo.sort"(%x, %iota) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %ia: tensor<i32>, %ib: tensor<i32>):
    %11 = mhlo.compare EQ, %a, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %12 = mhlo.select %11, %zero, %a : tensor<i1>, tensor<f32>
    %13 = mhlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %14 = mhlo.select %13, %nan, %12 : tensor<i1>, tensor<f32>
    %15 = mhlo.compare EQ, %b, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %16 = mhlo.select %15, %zero, %b : tensor<i1>, tensor<f32>
    %17 = mhlo.compare NE, %b, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %18 = mhlo.select %17, %nan, %16 : tensor<i1>, tensor<f32>
    %19 = mhlo.compare LT, %14, %18, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %19 : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<?x?xf32>, tensor<?x?xi32>) -> (tensor<?x?xf32>, tensor<?x?xi32>)
  return %0, %10#1 : tensor<?x?xf32>, tensor<?x?xi32>
}
"""


def _special_values(x: np.ndarray) -> np.ndarray:
    """Put NaNs of both signs, signed zeros, infinities and ties into `x`."""
    x = x.copy()
    flat = x.reshape(-1)
    specials = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf, 0.5, 0.5, 0.5]
    idx = rng("specials", x.shape).permutation(flat.size)[: len(specials)]
    flat[idx] = specials[: idx.size]
    return x


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_jax_sort_and_argsort(shape):
    """NaNs last, -0 == 0, ties keep their order (the sort is stable)."""
    x = _special_values(np.round(rand(rng("sort", shape), shape, np.float32), 1))
    values, indices = run(compiled(JAX_SORT), x)
    want = np.sort(x, axis=1)
    np.testing.assert_array_equal(values, want)
    np.testing.assert_array_equal(indices, np.argsort(x, axis=0, kind="stable").astype(np.int32))


# the raw total order (-NaN < -inf < -0 < +0 < +inf < +NaN), descending ints
# along the last of three dimensions, and a two-key lexicographic sort
RAW = """
func.func @main(%x: tensor<?xf32>, %y: tensor<?x?x?xi32>, %k: tensor<?x?xf32>, %v: tensor<?x?xi32>)
    -> (tensor<?xf32>, tensor<?x?x?xi32>, tensor<?x?xf32>, tensor<?x?xi32>) {
  %0 = "mhlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = mhlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %1 : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<?xf32>) -> tensor<?xf32>
  %2 = "mhlo.sort"(%y) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %3 = mhlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    mhlo.return %3 : tensor<i1>
  }) {dimension = 2 : i64, is_stable = false} : (tensor<?x?x?xi32>) -> tensor<?x?x?xi32>
  %4:2 = "mhlo.sort"(%k, %v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %lt = mhlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = mhlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %gt2 = mhlo.compare GT, %c, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = mhlo.and %eq, %gt2 : tensor<i1>
    %5 = mhlo.or %lt, %tie : tensor<i1>
    mhlo.return %5 : tensor<i1>
  }) {dimension = 1 : i64} : (tensor<?x?xf32>, tensor<?x?xi32>) -> (tensor<?x?xf32>, tensor<?x?xi32>)
  return %0, %2, %4#0, %4#1 : tensor<?xf32>, tensor<?x?x?xi32>, tensor<?x?xf32>, tensor<?x?xi32>
}
"""


def _total_order_key(x: np.ndarray) -> np.ndarray:
    bits = x.view(np.int32).astype(np.int64)
    return np.where(bits < 0, bits ^ 0x7FFFFFFF, bits)


@pytest.mark.parametrize("n", [1, 2, 9, 64, 1000], ids=str)
def test_total_order_descending_and_two_keys(n):
    gen = rng("raw", n)
    x = _special_values(np.round(rand(gen, (n,), np.float32), 1))
    x[: min(n, 2)] = np.array([-np.nan, np.nan], np.float32)[: min(n, 2)]
    x = np.where(np.isnan(x) & (np.arange(n) % 2 == 0), -np.abs(x), x).astype(np.float32)
    y = rand(gen, (2, 3, n), np.int32, -4, 4)
    k = np.round(rand(gen, (3, n), np.float32, 0.0, 3.0))
    v = rand(gen, (3, n), np.int32, -50, 50)
    got_x, got_y, got_k, got_v = run(compiled(RAW), x, y, k, v)
    want_x = x[np.argsort(_total_order_key(x), kind="stable")]
    np.testing.assert_array_equal(got_x.view(np.int32), want_x.view(np.int32))
    np.testing.assert_array_equal(got_y, -np.sort(-y, axis=2))
    order = np.lexsort((-v, k), axis=1)
    np.testing.assert_array_equal(got_k, np.take_along_axis(k, order, 1))
    np.testing.assert_array_equal(got_v, np.take_along_axis(v, order, 1))
