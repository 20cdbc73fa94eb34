"""Constants (splat and non-splat, float and integer, taken out of the graph by
disc-const-to-ral) and multi-output graphs (outputs of several ranks and
element types, a value returned twice, an input returned as is)."""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import check, compiled, rand, rng, run

CONSTANTS = """
func.func @main(%x: tensor<?x4xf32>, %i: tensor<?x3xi32>) -> (tensor<?x4xf32>, tensor<?x3xi32>, tensor<2x2xf32>) {
  %w = mhlo.constant dense<[1.5, -2.0, 0.25, 3.0]> : tensor<4xf32>
  %k = mhlo.constant dense<2.500000e-01> : tensor<f32>
  %m = mhlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %iv = mhlo.constant dense<[7, -3, 100]> : tensor<3xi32>
  %shape = shape.shape_of %x : tensor<?x4xf32> -> tensor<2xindex>
  %wb = "mhlo.dynamic_broadcast_in_dim"(%w, %shape) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %kb = "mhlo.dynamic_broadcast_in_dim"(%k, %shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
  %0 = mhlo.multiply %x, %wb : tensor<?x4xf32>
  %1 = mhlo.add %0, %kb : tensor<?x4xf32>
  %ishape = shape.shape_of %i : tensor<?x3xi32> -> tensor<2xindex>
  %ivb = "mhlo.dynamic_broadcast_in_dim"(%iv, %ishape) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<3xi32>, tensor<2xindex>) -> tensor<?x3xi32>
  %2 = mhlo.subtract %i, %ivb : tensor<?x3xi32>
  %3 = mhlo.multiply %m, %m : tensor<2x2xf32>
  return %1, %2, %3 : tensor<?x4xf32>, tensor<?x3xi32>, tensor<2x2xf32>
}
"""


@pytest.fixture(scope="module")
def constants():
    return compiled(CONSTANTS)


@pytest.mark.parametrize("rows", [1, 5, 300007], ids=str)
def test_constants(constants, rows):
    gen = rng("constants", rows)
    x, i = rand(gen, (rows, 4)), rand(gen, (rows, 3), np.int32, -1000, 1000)
    o0, o1, o2 = run(constants, x, i)
    check(o0, x * np.array([1.5, -2.0, 0.25, 3.0], np.float32) + np.float32(0.25))
    check(o1, i - np.array([7, -3, 100], np.int32))
    m = np.array([[1, 2], [3, 4]], np.float32)
    check(o2, m * m)


MULTI = """
func.func @main(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>, %n: tensor<?xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xi64>, tensor<?x?xf32>) {
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = mhlo.add %x, %y : tensor<?x?xf32>
  %1 = mhlo.multiply %0, %y : tensor<?x?xf32>
  %2 = mhlo.reduce(%1 init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %3 = "mhlo.compare"(%0, %1) {comparison_direction = #mhlo<comparison_direction LT>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %4 = mhlo.add %n, %n : tensor<?xi64>
  return %0, %1, %2, %3, %0, %4, %x : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xi64>, tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def multi():
    return compiled(MULTI)


@pytest.mark.parametrize("case", [((1, 1), 1), ((3, 7), 4), ((1024, 1031), 100003)], ids=str)
def test_multi_output(multi, case):
    shape, k = case
    gen = rng("multi", case)
    x, y = rand(gen, shape), rand(gen, shape)
    n = rand(gen, (k,), np.int64, -(2**40), 2**40)
    outs = run(multi, x, y, n)
    assert len(outs) == 7
    s = x + y
    p = s * y
    check(outs[0], s)
    check(outs[1], p)
    # row sums of mixed-sign values: absolute error ~ f32 eps * sum |.|, atol 1e-4 for long rows
    check(outs[2], p.astype(np.float64).sum(1).astype(np.float32), rtol=1e-4, atol=1e-4)
    check(outs[3], s < p)
    check(outs[4], s)
    check(outs[5], n + n)
    check(outs[6], x)


# Element types beyond f32 / i32 in one graph: f16 arithmetic, an i1 `and`
# reduction (all), an i64 column max from the smallest i64.
DTYPES = """
func.func @main(%a: tensor<?x?xf16>, %b: tensor<?x?xf16>, %p: tensor<?x?xi1>, %i: tensor<?x?xi64>) -> (tensor<?x?xf16>, tensor<?xi1>, tensor<?xi64>) {
  %t = mhlo.constant dense<true> : tensor<i1>
  %m = mhlo.constant dense<-9223372036854775808> : tensor<i64>
  %0 = mhlo.multiply %a, %b : tensor<?x?xf16>
  %1 = mhlo.reduce(%p init: %t) applies mhlo.and across dimensions = [1] : (tensor<?x?xi1>, tensor<i1>) -> tensor<?xi1>
  %2 = mhlo.reduce(%i init: %m) applies mhlo.maximum across dimensions = [0] : (tensor<?x?xi64>, tensor<i64>) -> tensor<?xi64>
  return %0, %1, %2 : tensor<?x?xf16>, tensor<?xi1>, tensor<?xi64>
}
"""


@pytest.fixture(scope="module")
def dtypes():
    return compiled(DTYPES)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (1024, 1031)], ids=str)
def test_f16_i1_i64(dtypes, shape):
    gen = rng("dtypes", shape)
    a, b = rand(gen, shape, np.float16), rand(gen, shape, np.float16)
    p = gen.random(shape) < 0.995  # some rows all true, some not
    i = rand(gen, shape, np.int64, -(2**40), 2**40)
    o0, o1, o2 = run(dtypes, a, b, p, i)
    check(o0, a * b)  # one f16 rounding on both sides: identical
    check(o1, p.all(1))
    check(o2, i.max(0))
