"""Data movement: transpose, reshape / dynamic_reshape, slice / real_dynamic_slice,
concatenate, pad / dynamic_pad, reverse, iota / dynamic_iota, gather."""

from __future__ import annotations

import re

import numpy as np
import pytest

from .conftest import check, compiled, rand, rng, run

TRANSPOSE = """
func.func @main(%x: tensor<?x?xf32>, %y: tensor<?x?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?x?xf32>) {
  %0 = "mhlo.transpose"(%x) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = mhlo.negate %0 : tensor<?x?xf32>
  %2 = "mhlo.transpose"(%y) {permutation = dense<[2, 0, 1]> : tensor<3xi64>} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %1, %2 : tensor<?x?xf32>, tensor<?x?x?xf32>
}
"""


@pytest.fixture(scope="module")
def transpose():
    return compiled(TRANSPOSE)


@pytest.mark.parametrize(
    "shapes", [((1, 1), (1, 1, 1)), ((3, 7), (2, 3, 5)), ((1031, 1029), (64, 130, 129))], ids=str
)
def test_transpose(transpose, shapes):
    gen = rng("transpose", shapes)
    x, y = rand(gen, shapes[0]), rand(gen, shapes[1])
    o0, o1 = run(transpose, x, y)
    check(o0, -x.T)
    check(o1, np.transpose(y, (2, 0, 1)))


# dynamic_reshape to a shape computed from the input (flatten the two trailing
# dims) and to a shape passed as an i64 input; a static reshape beside them.
RESHAPE = """
func.func @main(%x: tensor<?x?x?xf32>, %s: tensor<2xi64>, %z: tensor<4x6xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<3x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x?xf32>
  %d2 = tensor.dim %x, %c2 : tensor<?x?x?xf32>
  %d12 = arith.muli %d1, %d2 : index
  %shape = tensor.from_elements %d0, %d12 : tensor<2xindex>
  %0 = "mhlo.dynamic_reshape"(%x, %shape) : (tensor<?x?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %1 = mhlo.abs %0 : tensor<?x?xf32>
  %2 = "mhlo.dynamic_reshape"(%x, %s) : (tensor<?x?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %3 = "mhlo.reshape"(%z) : (tensor<4x6xf32>) -> tensor<3x8xf32>
  return %1, %2, %3 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<3x8xf32>
}
"""


@pytest.fixture(scope="module")
def reshape():
    return compiled(RESHAPE)


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 5), (65, 129, 130)], ids=str)
def test_reshape(reshape, shape):
    gen = rng("reshape", shape)
    x, z = rand(gen, shape), rand(gen, (4, 6))
    target = (shape[0] * shape[1], shape[2])
    o0, o1, o2 = run(reshape, x, np.array(target, np.int64), z)
    check(o0, np.abs(x.reshape(shape[0], -1)))
    check(o1, x.reshape(target))
    check(o2, z.reshape(3, 8))


# static slice of the first row (valid for any row count), and a strided
# real_dynamic_slice with bounds from the input: x[1:d0, 0:d1:2].
SLICE = """
func.func @main(%x: tensor<?x9xf32>, %y: tensor<?x?xf32>) -> (tensor<1x4xf32>, tensor<?x?xf32>) {
  %0 = "mhlo.slice"(%x) {start_indices = dense<[0, 1]> : tensor<2xi64>, limit_indices = dense<[1, 9]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} : (tensor<?x9xf32>) -> tensor<1x4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %d0 = tensor.dim %y, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %y, %c1 : tensor<?x?xf32>
  %start = tensor.from_elements %c1, %c0 : tensor<2xindex>
  %limit = tensor.from_elements %d0, %d1 : tensor<2xindex>
  %strides = tensor.from_elements %c1, %c2 : tensor<2xindex>
  %1 = "mhlo.real_dynamic_slice"(%y, %start, %limit, %strides) : (tensor<?x?xf32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xf32>
  %2 = mhlo.exponential %1 : tensor<?x?xf32>
  return %0, %2 : tensor<1x4xf32>, tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def slices():
    return compiled(SLICE)


@pytest.mark.parametrize("shape", [(2, 1), (3, 7), (1025, 1031)], ids=str)
def test_slices(slices, shape):
    gen = rng("slice", shape)
    x, y = rand(gen, (shape[0], 9)), rand(gen, shape)
    o0, o1 = run(slices, x, y)
    check(o0, x[0:1, 1:9:2])
    check(o1, np.exp(y[1:, ::2]), rtol=1e-4)  # exp approximation


# real_dynamic_slice with start / limit / strides given as i64 inputs
DYN_SLICE = """
func.func @main(%y: tensor<?x?xf32>, %start: tensor<2xi64>, %limit: tensor<2xi64>, %strides: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = "mhlo.real_dynamic_slice"(%y, %start, %limit, %strides) : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def dyn_slice():
    return compiled(DYN_SLICE)


@pytest.mark.parametrize(
    "case",
    [
        ((1, 1), (0, 0), (1, 1), (1, 1)),
        ((9, 11), (2, 1), (7, 11), (2, 3)),
        ((1500, 999), (3, 0), (1499, 998), (1, 1)),
    ],
    ids=str,
)
def test_real_dynamic_slice_inputs(dyn_slice, case):
    shape, start, limit, strides = case
    y = rand(rng("dyn_slice", case), shape)
    (out,) = run(dyn_slice, y, *(np.array(v, np.int64) for v in (start, limit, strides)))
    check(out, y[start[0] : limit[0] : strides[0], start[1] : limit[1] : strides[1]])


@pytest.mark.parametrize(
    "case",
    [
        ((16, 16), (5, 5), (2, 2), (1, 1)),  # start past the limit
        ((16, 16), (0, 0), (20, 16), (1, 1)),  # limit past the dim
        ((16, 16), (-3, 0), (5, 5), (1, 1)),  # negative start
        ((16, 16), (0, 0), (5, 5), (0, 1)),  # zero stride (the size would divide by it)
        ((16, 16), (0, 0), (5, 5), (1, -2)),  # negative stride
    ],
    ids=str,
)
def test_real_dynamic_slice_out_of_range_raises(dyn_slice, case):
    """Bounds out of range raise the compile driver's check (naming the shape
    and the bounds) instead of reading outside the operand or crashing; the
    executable keeps working afterwards."""
    from disc_ir.runtime import ShapeAssertionError

    shape, start, limit, strides = case
    y = rand(rng("dyn_slice_bad", case), shape)
    want = (
        f"operand of shape (16, 16) with start {start}, limit {limit} and strides {strides}: "
        "expected 0 <= start <= limit <= size and stride >= 1"
    )
    with pytest.raises(ShapeAssertionError, match=re.escape(want)):
        run(dyn_slice, y, *(np.array(v, np.int64) for v in (start, limit, strides)))
    (out,) = run(dyn_slice, y, *(np.array(v, np.int64) for v in ((1, 2), (9, 16), (2, 3))))
    check(out, y[1:9:2, 2:16:3])


def test_real_dynamic_slice_constant_bounds_are_checked_when_compiling():
    from disc_ir.api import CompileError
    from disc_ir.api import compile as disc_compile

    text = """
func.func @main(%y: tensor<4x4xf32>) -> tensor<?x?xf32> {
  %s = mhlo.constant dense<[0, 1]> : tensor<2xi64>
  %l = mhlo.constant dense<[4, 6]> : tensor<2xi64>
  %t = mhlo.constant dense<1> : tensor<2xi64>
  %0 = "mhlo.real_dynamic_slice"(%y, %s, %l, %t) : (tensor<4x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""
    with pytest.raises(CompileError, match="dimension 1: start 1, limit 6, stride 1 for size 4"):
        disc_compile(text)


NEGATIVE_IOTA = """
func.func @main(%s: tensor<1xi64>) -> tensor<?xi32> {
  %0 = "mhlo.dynamic_iota"(%s) {iota_dimension = 0 : i64} : (tensor<1xi64>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}
"""


def test_negative_output_size_is_a_clear_error():
    """A size computed from an input that comes out negative is reported as
    such (it was a numpy ValueError about strides)."""
    from disc_ir.runtime import RalError

    exe = compiled(NEGATIVE_IOTA)
    with pytest.raises(RalError, match=re.escape("output #0 has a negative size (shape (-4,))")):
        run(exe, np.array([-4], np.int64))
    (out,) = run(exe, np.array([3], np.int64))
    np.testing.assert_array_equal(out, np.arange(3, dtype=np.int32))


CONCAT = """
func.func @main(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %c: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = "mhlo.concatenate"(%a, %b, %c) {dimension = 1 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "mhlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = mhlo.multiply %1, %1 : tensor<?x?xf32>
  return %0, %2 : tensor<?x?xf32>, tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def concat():
    return compiled(CONCAT)


@pytest.mark.parametrize("case", [(1, (1, 1, 1)), (3, (2, 5, 1)), (1023, (400, 1, 627))], ids=str)
def test_concatenate(concat, case):
    m, widths = case
    gen = rng("concat", case)
    a, b, c = (rand(gen, (m, w)) for w in widths)
    o0, o1 = run(concat, a, b, c)
    check(o0, np.concatenate([a, b, c], axis=1))
    aa = np.concatenate([a, a], axis=0)
    check(o1, aa * aa)


PAD = """
func.func @main(%x: tensor<?x?xf32>, %v: tensor<f32>, %lo: tensor<2xi64>, %hi: tensor<2xi64>, %in: tensor<2xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = "mhlo.pad"(%x, %v) {edge_padding_low = dense<[1, 2]> : tensor<2xi64>, edge_padding_high = dense<[0, 3]> : tensor<2xi64>, interior_padding = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %1 = "mhlo.dynamic_pad"(%x, %v, %lo, %hi, %in) : (tensor<?x?xf32>, tensor<f32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}
"""


def np_pad(x: np.ndarray, v: float, lo, hi, interior) -> np.ndarray:
    shape = [
        lo[d] + hi[d] + x.shape[d] + max(x.shape[d] - 1, 0) * interior[d] for d in range(x.ndim)
    ]
    out = np.full(shape, v, x.dtype)
    idx = tuple(
        slice(lo[d], lo[d] + (x.shape[d] - 1) * (interior[d] + 1) + 1, interior[d] + 1)
        for d in range(x.ndim)
    )
    out[idx] = x
    return out


@pytest.fixture(scope="module")
def pad():
    return compiled(PAD)


@pytest.mark.parametrize("shape", [(1, 1), (3, 4), (1025, 700)], ids=str)
def test_pad(pad, shape):
    x = rand(rng("pad", shape), shape)
    v = np.float32(-7.5)
    lo, hi, interior = (2, 0), (1, 4), (1, 0)
    o0, o1 = run(pad, x, np.array(v), *(np.array(t, np.int64) for t in (lo, hi, interior)))
    check(o0, np_pad(x, v, (1, 2), (0, 3), (0, 1)))
    check(o1, np_pad(x, v, lo, hi, interior))


IOTA_REVERSE = """
func.func @main(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xi32>, tensor<3x4xi64>, tensor<?x?xf32>) {
  %shape = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %0 = "mhlo.dynamic_iota"(%shape) {iota_dimension = 1 : i64} : (tensor<2xindex>) -> tensor<?x?xf32>
  %1 = mhlo.add %x, %0 : tensor<?x?xf32>
  %2 = "mhlo.dynamic_iota"(%shape) {iota_dimension = 0 : i64} : (tensor<2xindex>) -> tensor<?x?xi32>
  %3 = "mhlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<3x4xi64>
  %4 = "mhlo.reverse"(%x) {dimensions = dense<[1]> : tensor<1xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1, %2, %3, %4 : tensor<?x?xf32>, tensor<?x?xi32>, tensor<3x4xi64>, tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def iota_reverse():
    return compiled(IOTA_REVERSE)


@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (1024, 1031)], ids=str)
def test_iota_and_reverse(iota_reverse, shape):
    x = rand(rng("iota", shape), shape)
    o0, o1, o2, o3 = run(iota_reverse, x)
    m, n = shape
    check(o0, x + np.arange(n, dtype=np.float32)[None, :])
    check(o1, np.broadcast_to(np.arange(m, dtype=np.int32)[:, None], shape))
    check(o2, np.broadcast_to(np.arange(4, dtype=np.int64)[None, :], (3, 4)))
    check(o3, x[:, ::-1])


# An embedding lookup: rows of a table picked by an index vector, through
# mhlo.gather (static slice sizes) and mhlo.dynamic_gather (slice sizes [1, d1]
# given at run time, a dynamic column count).
GATHER = """
func.func @main(%table: tensor<?x16xf32>, %idx: tensor<?xi32>, %wide: tensor<?x?xf32>, %sizes: tensor<2xi64>) -> (tensor<?x16xf32>, tensor<?x?xf32>) {
  %0 = "mhlo.gather"(%table, %idx) {dimension_numbers = #mhlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = dense<[1, 16]> : tensor<2xi64>} : (tensor<?x16xf32>, tensor<?xi32>) -> tensor<?x16xf32>
  %1 = mhlo.multiply %0, %0 : tensor<?x16xf32>
  %2 = "mhlo.dynamic_gather"(%wide, %idx, %sizes) {dimension_numbers = #mhlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false} : (tensor<?x?xf32>, tensor<?xi32>, tensor<2xi64>) -> tensor<?x?xf32>
  return %1, %2 : tensor<?x16xf32>, tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def gather():
    return compiled(GATHER)


@pytest.mark.parametrize("case", [(1, 1, 1), (7, 5, 3), (1000, 70001, 33)], ids=str)
def test_gather(gather, case):
    rows, n, cols = case
    gen = rng("gather", case)
    table, wide = rand(gen, (rows, 16)), rand(gen, (rows, cols))
    idx = gen.integers(0, rows, size=(n,), dtype=np.int32)
    o0, o1 = run(gather, table, idx, wide, np.array([1, cols], np.int64))
    check(o0, table[idx] * table[idx])
    check(o1, wide[idx])


DYNAMIC_SLICE = """
func.func @main(%x: tensor<?x?xf32>, %i: tensor<i32>, %j: tensor<i32>) -> tensor<2x3xf32> {
  %0 = "mhlo.dynamic_slice"(%x, %i, %j) {slice_sizes = dense<[2, 3]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
"""


@pytest.mark.parametrize(
    "shape, start",
    [((4, 10), (1, 2)), ((4, 10), (3, 9)), ((5, 3), (-7, 0)), ((2, 3), (0, 0))],
    ids=str,
)
def test_dynamic_slice_clamps_starts(shape, start):
    """XLA's DynamicSlice: starts are clamped so the slice lies in the operand."""
    x = rand(rng("dynamic_slice", shape), shape)
    i, j = (np.array(s, np.int32) for s in start)
    (got,) = run(compiled(DYNAMIC_SLICE), x, i, j)
    ci = min(max(int(i), 0), shape[0] - 2)
    cj = min(max(int(j), 0), shape[1] - 3)
    check(got, x[ci : ci + 2, cj : cj + 3])


# Fixed windows over dynamically shaped operands: a window that does not fit
# the operand at run time raises the compile driver's check (it would read or
# write outside the operand).
WINDOWS = """
func.func @main(%x: tensor<?x?xf32>, %u: tensor<?x?xf32>, %i: tensor<i32>, %g: tensor<2x1xi32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>, tensor<?x?xf32>) {
  %0 = "mhlo.slice"(%x) {start_indices = dense<[1, 1]> : tensor<2xi64>, limit_indices = dense<[3, 4]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<?x?xf32>) -> tensor<2x3xf32>
  %1 = "mhlo.dynamic_slice"(%x, %i, %i) {slice_sizes = dense<[2, 3]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
  %2 = "mhlo.gather"(%x, %g) {dimension_numbers = #mhlo.gather<offset_dims = [1, 2], start_index_map = [0], index_vector_dim = 1>, slice_sizes = dense<[2, 3]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<2x1xi32>) -> tensor<2x2x3xf32>
  %3 = mhlo.dynamic_update_slice %x, %u, %i, %i : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<i32>, tensor<i32>) -> tensor<?x?xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x2x3xf32>, tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def windows():
    return compiled(WINDOWS)


def test_fixed_windows_that_fit_run(windows):
    gen = rng("windows")
    x, u = rand(gen, (4, 5)), rand(gen, (2, 2))
    zero, rows = np.array(0, np.int32), np.array([[0], [2]], np.int32)
    sliced, dynamic, gathered, updated = run(windows, x, u, zero, rows)
    check(sliced, x[1:3, 1:4])
    check(dynamic, x[0:2, 0:3])
    check(gathered, np.stack([x[0:2, 0:3], x[2:4, 0:3]]))
    want = x.copy()
    want[0:2, 0:2] = u
    check(updated, want)


@pytest.mark.parametrize(
    "x_shape,u_shape,message",
    [
        ((2, 5), (1, 1), "mhlo.slice of an operand of shape (2, 5) with limits (3, 4)"),
        ((4, 3), (1, 1), "mhlo.slice of an operand of shape (4, 3) with limits (3, 4)"),
        (
            (4, 5),
            (5, 1),
            "mhlo.dynamic_update_slice of an update of shape (5, 1) into an operand of shape (4, 5)",
        ),
    ],
    ids=["rows", "cols", "update"],
)
def test_windows_that_do_not_fit_raise(windows, x_shape, u_shape, message):
    """Instead of reading past the operand (garbage values) or writing past it."""
    from disc_ir.runtime import ShapeAssertionError

    gen = rng("windows_bad", x_shape, u_shape)
    zero, rows = np.array(0, np.int32), np.array([[0], [0]], np.int32)
    with pytest.raises(ShapeAssertionError, match=re.escape(message)):
        run(windows, rand(gen, x_shape), rand(gen, u_shape), zero, rows)


def test_dynamic_slice_and_gather_sizes_are_checked():
    from disc_ir.runtime import ShapeAssertionError

    text = WINDOWS.replace('"mhlo.slice"(%x)', '"mhlo.slice"(%u)')
    exe = compiled(text)
    gen = rng("windows_sizes")
    zero, rows = np.array(0, np.int32), np.array([[0], [0]], np.int32)
    with pytest.raises(
        ShapeAssertionError,
        match=re.escape("of an operand of shape (1, 2) with slice sizes (2, 3)"),
    ):
        run(exe, rand(gen, (1, 2)), rand(gen, (4, 5)), zero, rows)


def test_window_checks_only_where_needed():
    """None for a static operand, a window of a dead value, or an update the
    shape analysis proves no larger than its operand (a scan's chain)."""
    from disc_ir.frontends.runtime_checks import insert_extent_checks
    from disc_ir.ir.context import make_context
    from disc_ir.ir.parser import parse_module

    def added(text: str) -> int:
        return insert_extent_checks(parse_module(make_context(), text))

    assert added(WINDOWS) == 4
    dead = """
func.func @main(%x: tensor<?x?xf32>, %s: tensor<4x5xf32>) -> tensor<2x3xf32> {
  %0 = "mhlo.slice"(%x) {start_indices = dense<0> : tensor<2xi64>, limit_indices = dense<[2, 3]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<?x?xf32>) -> tensor<2x3xf32>
  %1 = "mhlo.slice"(%s) {start_indices = dense<0> : tensor<2xi64>, limit_indices = dense<[2, 3]> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<4x5xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
"""
    assert added(dead) == 0
    chain = """
func.func @main(%x: tensor<5x?xf32>, %v: tensor<?xf32>, %i: tensor<i32>) -> tensor<5x?xf32> {
  %c0 = mhlo.constant dense<0> : tensor<i32>
  %one = mhlo.constant dense<1> : tensor<1xi32>
  %d = "mhlo.get_dimension_size"(%x) {dimension = 1 : i64} : (tensor<5x?xf32>) -> tensor<i32>
  %r = mhlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %shape = "mhlo.concatenate"(%one, %r) {dimension = 0 : i64} : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %row = "mhlo.dynamic_broadcast_in_dim"(%v, %shape) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xi32>) -> tensor<1x?xf32>
  %0 = mhlo.dynamic_update_slice %x, %row, %i, %c0 : (tensor<5x?xf32>, tensor<1x?xf32>, tensor<i32>, tensor<i32>) -> tensor<5x?xf32>
  %1 = mhlo.dynamic_update_slice %0, %row, %c0, %c0 : (tensor<5x?xf32>, tensor<1x?xf32>, tensor<i32>, tensor<i32>) -> tensor<5x?xf32>
  return %1 : tensor<5x?xf32>
}
"""
    assert added(chain) == 0
