"""Row, column and full reductions (sum, max, min, mean with keepdims reshapes).

References are computed in float64. Sums over up to ~1M elements accumulate
in f32 in the compiled code, so sums use rtol=1e-4 (the documented large-extent
allowance) on positive data (no cancellation to make relative error
meaningless); max / min are exact.
"""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import check, compiled, rand, rng, run

SHAPES = [(1, 1), (1, 17), (13, 1), (7, 33), (1031, 1029)]

ROW_COL = """
func.func @main(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %pinf = mhlo.constant dense<0x7F800000> : tensor<f32>
  %0 = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %2 = mhlo.reduce(%x init: %pinf) applies mhlo.minimum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %3 = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %4 = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %0, %1, %2, %3, %4 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
"""


@pytest.fixture(scope="module")
def row_col():
    return compiled(ROW_COL)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_row_and_column(row_col, shape):
    x = rand(rng("rowcol", shape), shape, np.float32, 0.0, 1.0)
    x64 = x.astype(np.float64)
    rsum, rmax, rmin, csum, cmax = run(row_col, x)
    check(rsum, x64.sum(1).astype(np.float32), rtol=1e-4)
    check(rmax, x.max(1))
    check(rmin, x.min(1))
    check(csum, x64.sum(0).astype(np.float32), rtol=1e-4)
    check(cmax, x.max(0))


COLUMN_ONLY = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %pinf = mhlo.constant dense<0x7F800000> : tensor<f32>
  %0 = mhlo.reduce(%x init: %pinf) applies mhlo.minimum across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


@pytest.fixture(scope="module")
def column_min():
    return compiled(COLUMN_ONLY)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_column_min(column_min, shape):
    x = rand(rng("colmin", shape), shape)
    (out,) = run(column_min, x)
    check(out, x.min(0))


FULL = """
func.func @main(%x: tensor<?x?xf32>, %i: tensor<?xi32>) -> (tensor<f32>, tensor<f32>, tensor<i32>) {
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %izero = mhlo.constant dense<0> : tensor<i32>
  %0 = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [0, 1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<f32>
  %1 = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [0, 1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<f32>
  %2 = mhlo.reduce(%i init: %izero) applies mhlo.add across dimensions = [0] : (tensor<?xi32>, tensor<i32>) -> tensor<i32>
  return %0, %1, %2 : tensor<f32>, tensor<f32>, tensor<i32>
}
"""


@pytest.fixture(scope="module")
def full():
    return compiled(FULL)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_full(full, shape):
    gen = rng("full", shape)
    x = rand(gen, shape, np.float32, 0.0, 1.0)
    i = rand(gen, (shape[0] * shape[1],), np.int32, -1000, 1000)
    s, m, si = run(full, x, i)
    check(s, np.float32(x.astype(np.float64).sum()), rtol=1e-4)
    check(m, np.float32(x.max()))
    check(si, np.int32(i.sum()))


# mean over the last axis with keepdims (x - mean(x, -1, keepdims=True)), as
# frameworks lower it: sum, divide by the converted extent, reshape to ?x1,
# broadcast back.
MEAN_KEEPDIMS = """
func.func @main(%x: tensor<?x?xf32>) -> (tensor<?x1xf32>, tensor<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %sum = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %shape = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %n_i = arith.index_cast %d1 : index to i64
  %n_f = arith.sitofp %n_i : i64 to f32
  %n_t = tensor.from_elements %n_f : tensor<f32>
  %s1 = tensor.from_elements %d0 : tensor<1xindex>
  %n_b = "mhlo.dynamic_broadcast_in_dim"(%n_t, %s1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
  %mean = mhlo.divide %sum, %n_b : tensor<?xf32>
  %s2 = tensor.from_elements %d0, %c1 : tensor<2xindex>
  %mk = "mhlo.dynamic_reshape"(%mean, %s2) : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x1xf32>
  %mb = "mhlo.dynamic_broadcast_in_dim"(%mk, %shape) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x1xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %centered = mhlo.subtract %x, %mb : tensor<?x?xf32>
  return %mk, %centered : tensor<?x1xf32>, tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def mean_keepdims():
    return compiled(MEAN_KEEPDIMS)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_mean_keepdims(mean_keepdims, shape):
    x = rand(rng("mean", shape), shape, np.float32, 0.0, 1.0)
    mean = x.astype(np.float64).mean(1, keepdims=True)
    mk, centered = run(mean_keepdims, x)
    # f32 sums over up to 1029 elements: rtol 1e-4; centered values are
    # differences of O(1) numbers, so the absolute error of the mean carries over.
    check(mk, mean.astype(np.float32), rtol=1e-4)
    check(centered, (x - mean).astype(np.float32), rtol=1e-4, atol=1e-5)


MIDDLE = """
func.func @main(%x: tensor<?x?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>) {
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %0 = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %1 = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [0, 2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?xf32>
}
"""


@pytest.fixture(scope="module")
def middle():
    return compiled(MIDDLE)


@pytest.mark.parametrize("shape", [(1, 1, 1), (3, 5, 7), (32, 129, 257)], ids=str)
def test_rank3_middle_and_outer(middle, shape):
    x = rand(rng("middle", shape), shape, np.float32, 0.0, 1.0)
    s, m = run(middle, x)
    check(s, x.astype(np.float64).sum(1).astype(np.float32), rtol=1e-4)
    check(m, x.max((0, 2)))


REDUCE_WINDOW = """
func.func @main(%x: tensor<?x?x?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = "mhlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = mhlo.maximum %a, %b : tensor<f32>
    mhlo.return %m : tensor<f32>
  }) {window_dimensions = dense<[1, 2, 2, 1]> : tensor<4xi64>, window_strides = dense<[1, 2, 2, 1]> : tensor<4xi64>} : (tensor<?x?x?x?xf32>, tensor<f32>) -> tensor<?x?x?x?xf32>
  %1 = "mhlo.reduce_window"(%x, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = mhlo.add %a, %b : tensor<f32>
    mhlo.return %s : tensor<f32>
  }) {padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dimensions = dense<[1, 3, 3, 1]> : tensor<4xi64>, window_strides = dense<[1, 2, 2, 1]> : tensor<4xi64>} : (tensor<?x?x?x?xf32>, tensor<f32>) -> tensor<?x?x?x?xf32>
  %2 = "mhlo.reduce_window"(%y, %zero) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %s = mhlo.add %a, %b : tensor<f32>
    mhlo.return %s : tensor<f32>
  }) {padding = dense<[[0, 0], [2, 1]]> : tensor<2x2xi64>, window_dimensions = dense<[1, 3]> : tensor<2xi64>, base_dilations = dense<[1, 2]> : tensor<2xi64>, window_dilations = dense<[1, 2]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %3 = "mhlo.reduce_window"(%y, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = mhlo.maximum %a, %b : tensor<f32>
    mhlo.return %m : tensor<f32>
  }) {window_dimensions = dense<[2, 2]> : tensor<2xi64>, window_strides = dense<[1, 3]> : tensor<2xi64>, window_dilations = dense<[2, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0, %1, %2, %3 : tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
"""


def reduce_window_reference(
    x: np.ndarray,
    init: float,
    fn: np.ufunc,
    window: tuple[int, ...],
    strides: tuple[int, ...] | None = None,
    padding: tuple[tuple[int, int], ...] | None = None,
    base_dilations: tuple[int, ...] | None = None,
    window_dilations: tuple[int, ...] | None = None,
) -> np.ndarray:
    """XLA's ReduceWindow in float64: dilate the base, pad with `init`, slide."""
    rank = x.ndim
    strides = strides or (1,) * rank
    padding = padding or ((0, 0),) * rank
    base = base_dilations or (1,) * rank
    wdil = window_dilations or (1,) * rank
    dilated_shape = tuple((n - 1) * d + 1 if n else 0 for n, d in zip(x.shape, base, strict=True))
    dilated = np.full(dilated_shape, init, np.float64)
    dilated[tuple(slice(None, None, d) for d in base)] = x
    padded = np.pad(dilated, padding, constant_values=init)
    extent = [(w - 1) * d + 1 for w, d in zip(window, wdil, strict=True)]
    out_shape = [(p - e) // s + 1 for p, e, s in zip(padded.shape, extent, strides, strict=True)]
    out = np.full(out_shape, init, np.float64)
    for offsets in np.ndindex(*window):
        start = [o * d for o, d in zip(offsets, wdil, strict=True)]
        view = padded[
            tuple(
                slice(st, st + (n - 1) * s + 1, s)
                for st, n, s in zip(start, out_shape, strides, strict=True)
            )
        ]
        out = fn(out, view)
    return out


@pytest.fixture(scope="module")
def reduce_window():
    return compiled(REDUCE_WINDOW)


@pytest.mark.parametrize(
    "x_shape, y_shape",
    [((1, 2, 2, 1), (2, 2)), ((2, 7, 6, 3), (5, 9)), ((3, 16, 17, 8), (33, 40))],
    ids=str,
)
def test_reduce_window_pooling_and_dilations(reduce_window, x_shape, y_shape):
    """Max-pool 2x2/2, a padded 3x3/2 sum (avg-pool), and base / window
    dilations with padding (what jax emits for conv transposes and cumsum)."""
    x = rand(rng("reduce_window", x_shape), x_shape, np.float32, 0.0, 1.0)
    y = rand(rng("reduce_window", y_shape), y_shape, np.float32, 0.0, 1.0)
    x64, y64 = x.astype(np.float64), y.astype(np.float64)
    ninf = -np.inf
    maxpool, sumpool, dilated_sum, dilated_max = run(reduce_window, x, y)
    check(
        maxpool,
        reduce_window_reference(x64, ninf, np.maximum, (1, 2, 2, 1), (1, 2, 2, 1)).astype(
            np.float32
        ),
    )
    want = reduce_window_reference(
        x64, 0.0, np.add, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0))
    )
    check(sumpool, want.astype(np.float32))
    want = reduce_window_reference(y64, 0.0, np.add, (1, 3), None, ((0, 0), (2, 1)), (1, 2), (1, 2))
    check(dilated_sum, want.astype(np.float32))
    want = reduce_window_reference(y64, ninf, np.maximum, (2, 2), (1, 3), None, None, (2, 1))
    check(dilated_max, want.astype(np.float32))


ARGMAX = """
func.func @main(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xi32>, tensor<?xi32>) {
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %pinf = mhlo.constant dense<0x7F800000> : tensor<f32>
  %zero = mhlo.constant dense<0> : tensor<i32>
  %shape = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %iota1 = "mhlo.dynamic_iota"(%shape) {iota_dimension = 1 : i64} : (tensor<2xindex>) -> tensor<?x?xi32>
  %iota0 = "mhlo.dynamic_iota"(%shape) {iota_dimension = 0 : i64} : (tensor<2xindex>) -> tensor<?x?xi32>
  %max:2 = mhlo.reduce(%x init: %ninf), (%iota1 init: %zero) across dimensions = [1] : (tensor<?x?xf32>, tensor<?x?xi32>, tensor<f32>, tensor<i32>) -> (tensor<?xf32>, tensor<?xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ia: tensor<i32>, %ib: tensor<i32>) {
    %gt = mhlo.compare GT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %nan = mhlo.compare NE, %a, %a, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %pick = mhlo.or %gt, %nan : tensor<i1>
    %eq = mhlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %lt = mhlo.compare LT, %ia, %ib, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = mhlo.and %eq, %lt : tensor<i1>
    %pick_i = mhlo.or %pick, %tie : tensor<i1>
    %v = mhlo.select %pick, %a, %b : tensor<i1>, tensor<f32>
    %i = mhlo.select %pick_i, %ia, %ib : tensor<i1>, tensor<i32>
    mhlo.return %v, %i : tensor<f32>, tensor<i32>
  }
  %min:2 = mhlo.reduce(%x init: %pinf), (%iota0 init: %zero) across dimensions = [0] : (tensor<?x?xf32>, tensor<?x?xi32>, tensor<f32>, tensor<i32>) -> (tensor<?xf32>, tensor<?xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%ia: tensor<i32>, %ib: tensor<i32>) {
    %lt = mhlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %eq = mhlo.compare EQ, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %ilt = mhlo.compare LT, %ia, %ib, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %tie = mhlo.and %eq, %ilt : tensor<i1>
    %pick_i = mhlo.or %lt, %tie : tensor<i1>
    %v = mhlo.select %lt, %a, %b : tensor<i1>, tensor<f32>
    %i = mhlo.select %pick_i, %ia, %ib : tensor<i1>, tensor<i32>
    mhlo.return %v, %i : tensor<f32>, tensor<i32>
  }
  return %max#0, %max#1, %min#1 : tensor<?xf32>, tensor<?xi32>, tensor<?xi32>
}
"""


@pytest.mark.parametrize("shape", [(1, 1), (3, 17), (64, 5)], ids=str)
def test_variadic_reduce_argmax_argmin(shape):
    """A variadic reduce (value, index) pair, as jnp.argmax / argmin lower:
    the first index wins on ties, a NaN wins the max."""
    x = np.round(rand(rng("argmax", shape), shape, np.float32, 0.0, 4.0))  # ties
    if shape[0] > 1 and shape[1] > 1:
        x[1, 0] = np.nan
    top, arg_max, arg_min = run(compiled(ARGMAX), x)
    want = np.where(np.isnan(x).any(1), 0, np.argmax(np.nan_to_num(x, nan=-1.0), 1))
    want = np.where(np.isnan(x).any(1), np.argmax(np.isnan(x), 1), want)
    np.testing.assert_array_equal(arg_max, want.astype(np.int32))
    np.testing.assert_array_equal(np.isnan(top), np.isnan(x).any(1))
    finite = ~np.isnan(top)
    check(top[finite], np.nanmax(x, 1)[finite])
    col_ok = ~np.isnan(x).any(0)
    np.testing.assert_array_equal(arg_min[col_ok], np.argmin(x, 0)[col_ok].astype(np.int32))


LOW_PRECISION_SUMS = """
func.func @main(%h: tensor<?x?xf16>, %p: tensor<?x?xi1>, %i: tensor<?x?xi8>)
    -> (tensor<?xf16>, tensor<?xi1>, tensor<?xi8>, tensor<?xi8>) {
  %hz = mhlo.constant dense<0.000000e+00> : tensor<f16>
  %pz = mhlo.constant dense<false> : tensor<i1>
  %iz = mhlo.constant dense<0> : tensor<i8>
  %ones = mhlo.constant dense<-1> : tensor<i8>
  %0 = mhlo.reduce(%h init: %hz) applies mhlo.add across dimensions = [0] : (tensor<?x?xf16>, tensor<f16>) -> tensor<?xf16>
  %1 = mhlo.reduce(%p init: %pz) applies mhlo.add across dimensions = [0] : (tensor<?x?xi1>, tensor<i1>) -> tensor<?xi1>
  %2 = mhlo.reduce(%i init: %iz) applies mhlo.add across dimensions = [0] : (tensor<?x?xi8>, tensor<i8>) -> tensor<?xi8>
  %3 = mhlo.reduce(%i init: %ones) applies mhlo.and across dimensions = [0] : (tensor<?x?xi8>, tensor<i8>) -> tensor<?xi8>
  return %0, %1, %2, %3 : tensor<?xf16>, tensor<?xi1>, tensor<?xi8>, tensor<?xi8>
}
"""


def test_low_precision_reductions_accumulate_wide():
    # f16 sums accumulate in f32 and round once (XLA's answer; a running f16
    # sum of ones stops at 2048); i1 sums wrap (xor), i8 sums wrap, i8 `and`
    # is bitwise
    exe = compiled(LOW_PRECISION_SUMS)
    g = rng("low-precision-sums")
    h = np.ones((3000, 3), np.float16)
    p = g.integers(0, 2, (7, 5)).astype(np.bool_)
    i = g.integers(-128, 128, (300, 4)).astype(np.int8)
    hs, ps, is_, ia = run(exe, h, p, i)
    assert (hs == np.float16(3000)).all()
    np.testing.assert_array_equal(ps, np.logical_xor.reduce(p, axis=0))
    np.testing.assert_array_equal(is_, i.sum(0, dtype=np.int64).astype(np.int8))
    np.testing.assert_array_equal(ia, np.bitwise_and.reduce(i, axis=0))
