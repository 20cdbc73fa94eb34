"""Every kind of array a user can pass to an `Executable` gives the correct result
or a clear `RalInputError` naming the input (the input contract of
`disc_ir.runtime.context.as_input_array`, documented in docs/guide.md).

* NaN / inf propagate as numpy and XLA compute them (max / min, reductions,
  exp, compare, divide, dot);
* strided, transposed, negative-stride, Fortran-order, read-only, unaligned,
  byte-swapped, broadcast (stride 0), `np.matrix` and `np.memmap` inputs give
  the result of their contiguous copy, and are not modified;
* Python numbers and lists convert by kind (no value changes); wrong dtypes,
  object arrays, masked arrays, strings, ragged lists are refused by name;
* a 0-sized dimension in every op family of the e2e suite gives the empty
  result (reductions over an empty axis give their init value, a pad its
  padding);
* outputs never alias inputs, each other, or memory a later call reuses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import disc_ir
from disc_ir.api import Executable
from disc_ir.runtime import RalInputError

_CACHE: dict[str, Executable] = {}


def compiled(text: str) -> Executable:
    """The executable of `text`, compiled once per test process."""
    exe = _CACHE.get(text)
    if exe is None:
        exe = _CACHE[text] = disc_ir.compile(text, keep_ir=False)
    return exe


def entry(inputs: str, outputs: str) -> str:
    """A `tf.entry_function` attribute naming the inputs and outputs (comma lists)."""
    n_in, n_out = inputs.count(",") + 1, outputs.count(",") + 1
    return (
        f'attributes {{tf.entry_function = {{inputs = "{inputs}", outputs = "{outputs}", '
        f'input_placements = "{",".join(["cpu"] * n_in)}", '
        f'output_placements = "{",".join(["cpu"] * n_out)}"}}}}'
    )


# ---------------------------------------------------------------------------
# The small graphs
# ---------------------------------------------------------------------------

# elementwise: NaN-propagating max / min, exp, compares, divide, log
ELEMENTWISE = f"""
func.func @main(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?x?xf32>) {entry("x,y", "mx,mn,ex,gt,ne,dv,sm")} {{
  %0 = mhlo.maximum %x, %y : tensor<?x?xf32>
  %1 = mhlo.minimum %x, %y : tensor<?x?xf32>
  %2 = mhlo.exponential %x : tensor<?x?xf32>
  %3 = mhlo.compare GT, %x, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %4 = mhlo.compare NE, %x, %y : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  %5 = mhlo.divide %x, %y : tensor<?x?xf32>
  %6 = mhlo.add %x, %y : tensor<?x?xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xi1>, tensor<?x?xi1>, tensor<?x?xf32>, tensor<?x?xf32>
}}
"""


def elementwise_ref(x: np.ndarray, y: np.ndarray) -> list[np.ndarray]:
    with np.errstate(all="ignore"):
        return [np.maximum(x, y), np.minimum(x, y), np.exp(x), x > y, x != y, x / y, x + y]


# row max / sum / min / product and a column sum, from their identities
REDUCE = f"""
func.func @main(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {entry("x", "rmax,rsum,rmin,rprod,csum")} {{
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %pinf = mhlo.constant dense<0x7F800000> : tensor<f32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %one = mhlo.constant dense<1.000000e+00> : tensor<f32>
  %0 = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %2 = mhlo.reduce(%x init: %pinf) applies mhlo.minimum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %3 = mhlo.reduce(%x init: %one) applies mhlo.multiply across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %4 = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %0, %1, %2, %3, %4 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}}
"""


def reduce_ref(x: np.ndarray) -> list[np.ndarray]:
    with np.errstate(all="ignore"):
        return [
            np.max(x, axis=1, initial=-np.inf),
            np.sum(x, axis=1),
            np.min(x, axis=1, initial=np.inf),
            np.prod(x, axis=1),
            np.sum(x, axis=0),
        ]


DOT = f"""
func.func @main(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {entry("a,b", "c")} {{
  %0 = "mhlo.dot"(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}}
"""

# flatten by a shape computed in the graph, then |.|; and a plain forwarded reshape
RESHAPE = f"""
func.func @main(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {entry("x", "absflat,flat")} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %n = arith.muli %d0, %d1 : index
  %shape = tensor.from_elements %n : tensor<1xindex>
  %0 = "mhlo.dynamic_reshape"(%x, %shape) : (tensor<?x?xf32>, tensor<1xindex>) -> tensor<?xf32>
  %1 = mhlo.abs %0 : tensor<?xf32>
  return %1, %0 : tensor<?xf32>, tensor<?xf32>
}}
"""

# a rank-0 f32, a rank-1 f32 and a rank-1 i32 input
SCALARS = f"""
func.func @main(%s: tensor<f32>, %v: tensor<?xf32>, %k: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi32>) {entry("s,v,k", "sv,kk")} {{
  %shape = shape.shape_of %v : tensor<?xf32> -> tensor<1xindex>
  %sb = "mhlo.dynamic_broadcast_in_dim"(%s, %shape) {{broadcast_dimensions = dense<> : tensor<0xi64>}} : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
  %0 = mhlo.multiply %sb, %v : tensor<?xf32>
  %1 = mhlo.add %k, %k : tensor<?xi32>
  return %0, %1 : tensor<?xf32>, tensor<?xi32>
}}
"""

# an input returned as is (twice), reshaped, and a constant returned
FORWARD = """
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "mhlo.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  %c = mhlo.constant dense<[1.5, 2.5]> : tensor<2xf32>
  %1 = mhlo.add %x, %x : tensor<2x3xf32>
  return %x, %x, %0, %c, %1, %1 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<6xf32>, tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}
"""


def forward_ref(x: np.ndarray) -> list[np.ndarray]:
    return [x, x, x.reshape(6), np.array([1.5, 2.5], np.float32), x + x, x + x]


def run(exe: Executable, *inputs: Any) -> list[np.ndarray]:
    """Calls `exe`; checks that the numpy arrays among `inputs` are left unchanged."""
    before = [(a, a.copy()) for a in inputs if isinstance(a, np.ndarray)]
    out = list(exe(*inputs))
    for array, copy in before:
        np.testing.assert_array_equal(array, copy, err_msg="a call modified its input")
    return out


def assert_same(actual: list[np.ndarray], expected: list[np.ndarray]) -> None:
    """Equal shapes and dtypes; values equal up to f32 rounding, NaNs where numpy has them."""
    assert len(actual) == len(expected)
    for i, (got, want) in enumerate(zip(actual, expected, strict=True)):
        want = np.asarray(want)
        assert type(got) is np.ndarray, f"output #{i} is a {type(got).__name__}"
        assert got.shape == want.shape, f"output #{i}: shape {got.shape}, expected {want.shape}"
        assert got.dtype == want.dtype, f"output #{i}: {got.dtype}, expected {want.dtype}"
        if got.dtype.kind == "f":
            np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-6, err_msg=f"output #{i}")
        else:
            np.testing.assert_array_equal(got, want, err_msg=f"output #{i}")


# ---------------------------------------------------------------------------
# NaN and inf
# ---------------------------------------------------------------------------

SPECIALS = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -2.5, 3e38], np.float32)


def special_pairs(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Special values at random, the first cells holding every ordered pair of them
    (as many as the grid holds)."""
    gen = np.random.default_rng(rows * 1000 + cols)
    x = gen.choice(SPECIALS, size=(rows, cols)).astype(np.float32)
    y = gen.choice(SPECIALS, size=(rows, cols)).astype(np.float32)
    pairs = np.array([(a, b) for a in SPECIALS for b in SPECIALS], np.float32)[: x.size]
    x.flat[: len(pairs)], y.flat[: len(pairs)] = pairs[:, 0], pairs[:, 1]
    return x, y


@pytest.mark.parametrize("shape", [(1, 7), (8, 8), (3, 67), (5, 260)], ids=str)
def test_nan_and_inf_propagate_through_elementwise_ops(shape):
    x, y = special_pairs(*shape)
    assert_same(run(compiled(ELEMENTWISE), x, y), elementwise_ref(x, y))


@pytest.mark.parametrize("cols", [1, 5, 8, 17, 64, 131], ids=str)
def test_nan_and_inf_propagate_through_reductions(cols):
    # one NaN at every column position (vector lanes and the tail), an inf and a
    # -inf in one row (their sum is NaN), an inf alone, finite rows
    rows = cols + 3
    gen = np.random.default_rng(cols)
    x = gen.uniform(-2, 2, size=(rows, cols)).astype(np.float32)
    for r in range(cols):
        x[r, r] = np.nan
    x[cols, 0] = np.inf
    x[cols, -1] = -np.inf if cols > 1 else np.inf
    x[cols + 1, cols // 2] = -np.inf
    assert_same(run(compiled(REDUCE), x), reduce_ref(x))


@pytest.mark.filterwarnings("error")  # no numpy warning from the RAL's gemm either
def test_nan_and_inf_propagate_through_dot():
    gen = np.random.default_rng(7)
    a = gen.uniform(-1, 1, size=(9, 33)).astype(np.float32)
    b = gen.uniform(-1, 1, size=(33, 5)).astype(np.float32)
    a[1, 4] = np.nan
    a[2, 0] = np.inf
    b[7, 3] = -np.inf
    b[:, 4] = 0.0
    a[3, 5] = np.inf  # inf * 0 in column 4: NaN
    got = run(compiled(DOT), a, b)[0]
    with np.errstate(invalid="ignore"):
        want = a @ b
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_array_equal(np.isinf(got), np.isinf(want))
    finite = np.isfinite(want)
    np.testing.assert_allclose(got[finite], want[finite], rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# Layouts: every view gives the result of its contiguous copy
# ---------------------------------------------------------------------------


def _unaligned(a: np.ndarray) -> np.ndarray:
    raw = np.zeros(a.nbytes + a.itemsize, np.uint8)
    view = np.frombuffer(raw, a.dtype, count=a.size, offset=1).reshape(a.shape)
    view.flags.writeable = True
    view[...] = a
    assert not view.flags.aligned
    return view


def _read_only(a: np.ndarray) -> np.ndarray:
    a = a.copy()
    a.setflags(write=False)
    return a


def _memmap(a: np.ndarray, path: Any) -> np.ndarray:
    file = path / f"m{len(list(path.iterdir()))}.bin"
    m = np.memmap(file, dtype=a.dtype, mode="w+", shape=a.shape)
    m[...] = a
    return m


#: name -> (array -> the same values in another layout / byte order / subclass)
LAYOUTS: dict[str, Callable[[np.ndarray, Any], np.ndarray]] = {
    "sliced": lambda a, _: np.repeat(a, 2, axis=1)[:, ::2],
    "transposed": lambda a, _: np.ascontiguousarray(a.T).T,
    "negative_stride": lambda a, _: np.ascontiguousarray(a[::-1, ::-1])[::-1, ::-1],
    "fortran": lambda a, _: np.asfortranarray(a),
    "read_only": lambda a, _: _read_only(a),
    "unaligned": lambda a, _: _unaligned(a),
    "byte_swapped": lambda a, _: a.astype(a.dtype.newbyteorder(">" if a.dtype.isnative else "<")),
    "matrix": lambda a, _: np.asmatrix(a) if a.ndim == 2 else a,
    "memmap": _memmap,
}


@pytest.mark.filterwarnings("ignore::PendingDeprecationWarning")  # np.matrix
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_layouts_give_the_contiguous_result(layout, tmp_path):
    gen = np.random.default_rng(3)
    x = gen.uniform(-2, 2, size=(6, 10)).astype(np.float32)
    y = gen.uniform(-2, 2, size=(6, 10)).astype(np.float32)
    b = gen.uniform(-2, 2, size=(10, 4)).astype(np.float32)
    lx, ly, lb = (LAYOUTS[layout](v, tmp_path) for v in (x, y, b))
    if layout != "byte_swapped":
        np.testing.assert_array_equal(lx, x)
    assert_same(run(compiled(ELEMENTWISE), lx, ly), elementwise_ref(x, y))
    assert_same(run(compiled(REDUCE), lx), reduce_ref(x))
    assert_same(run(compiled(DOT), lx, lb), [x @ b])
    assert_same(run(compiled(RESHAPE), lx), [np.abs(x.reshape(-1)), x.reshape(-1)])


def test_broadcast_views_and_zero_d_arrays():
    # stride-0 views (read-only), a 0-d array and a numpy scalar for the rank-0 input
    row = np.arange(10, dtype=np.float32)
    x = np.broadcast_to(row, (6, 10))
    assert x.strides[0] == 0
    assert_same(run(compiled(REDUCE), x), reduce_ref(np.ascontiguousarray(x)))
    v = np.broadcast_to(np.float32(2.0), (5,))
    k = np.arange(5, dtype=np.int32)
    for s in (np.array(1.5, np.float32), np.float32(1.5), np.array([1.5], np.float32)[0]):
        assert_same(run(compiled(SCALARS), s, v, k), [np.float32(1.5) * v, k + k])


# ---------------------------------------------------------------------------
# Python values: converted by kind, never by changing values
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "s, v, k",
    [
        (2.5, [1.0, -2.0, 3.0], [1, 2, 3]),
        (2, (1, 2, 3), (4, 5, 6)),
        (True, [True, False, True], [True, False, True]),
        (0.1, [np.inf, np.nan, -0.0], [2**31 - 1, -(2**31), 0]),
        (1.0, [], []),
    ],
    ids=["floats", "ints_and_tuples", "bools", "specials_and_extremes", "empty_lists"],
)
def test_python_numbers_and_lists_convert(s, v, k):
    want_v = np.float32(s) * np.asarray(v, np.float32)
    kk = np.asarray(k, np.int32)
    with np.errstate(over="ignore"):
        want_k = kk + kk
    assert_same(run(compiled(SCALARS), s, v, k), [want_v, want_k])


# (input values s, v, k) -> the message RalInputError must match
V = np.arange(4, dtype=np.float32)
K = np.arange(4, dtype=np.int32)
REFUSED: dict[str, tuple[tuple[Any, Any, Any], str]] = {
    "f64_for_f32": (
        (1.0, V.astype(np.float64), K),
        r"input #1 'v': expected a rank-1 f32 .*float64",
    ),
    "f16_for_f32": (
        (1.0, V.astype(np.float16), K),
        r"input #1 'v': expected a rank-1 f32 .*float16",
    ),
    "i64_for_i32": ((1.0, V, K.astype(np.int64)), r"input #2 'k': expected a rank-1 i32 .*int64"),
    "numpy_f64_scalar": ((np.float64(1.0), V, K), r"input #0 's': expected a rank-0 f32 .*float64"),
    "wrong_rank": ((1.0, V.reshape(2, 2), K), r"input #1 'v': expected a rank-1 f32 .*rank-2"),
    "list_for_scalar": (([1.0], V, K), r"input #0 's': expected a rank-0 f32 .*rank-1"),
    "object_array": ((1.0, V.astype(object), K), r"input #1 'v': expected a rank-1 f32 .*object"),
    "masked_array": (
        (1.0, np.ma.masked_array(V, mask=[0, 1, 0, 0]), K),
        r"input #1 'v': a masked array is not accepted",
    ),
    "none": ((1.0, None, K), r"input #1 'v': expected a rank-1 f32 .*got a NoneType"),
    "string": (("1.0", V, K), r"input #0 's': expected a rank-0 f32 .*got a str"),
    "ragged_list": ((1.0, [[1.0, 2.0], [3.0]], K), r"input #1 'v': cannot make an array"),
    "mixed_list": ((1.0, [1.0, "a"], K), r"input #1 'v': .*does not convert to f32"),
    "floats_for_i32": ((1.0, V, [1.5, 2.0]), r"input #2 'k': .*float64 values.*does not convert"),
    "complex_for_f32": ((1j, V, K), r"input #0 's': .*complex128 values.*does not convert"),
    "int_overflow": ((1.0, V, [2**40]), r"input #2 'k': .*out of the range of i32"),
    "huge_int": ((1.0, V, [2**70]), r"input #2 'k': .*does not convert"),
    "float_overflow": ((1e300, V, K), r"input #0 's': .*out of the range of f32"),
    "int32_underflow": ((1.0, V, [-(2**31) - 1]), r"input #2 'k': .*out of the range of i32"),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_refused_inputs_name_the_input_and_say_why(case):
    inputs, message = REFUSED[case]
    with pytest.raises(RalInputError, match=message) as info:
        compiled(SCALARS)(*inputs)
    assert isinstance(info.value, ValueError)


def test_wrong_input_count_is_refused():
    with pytest.raises(RalInputError, match="expected 3 inputs, got 2"):
        compiled(SCALARS)(1.0, V)


# ---------------------------------------------------------------------------
# Outputs own their memory
# ---------------------------------------------------------------------------


def _assert_owned(outputs: list[np.ndarray], inputs: list[np.ndarray]) -> None:
    for i, out in enumerate(outputs):
        for j, inp in enumerate(inputs):
            assert not np.shares_memory(out, inp), f"output #{i} aliases input #{j}"
        for j, other in enumerate(outputs[:i]):
            assert not np.shares_memory(out, other), f"output #{i} aliases output #{j}"


@pytest.mark.parametrize(
    "text, make, ref",
    [
        (FORWARD, lambda s: [np.full((2, 3), s, np.float32)], forward_ref),
        (
            ELEMENTWISE,
            lambda s: [np.full((3, 5), s, np.float32), np.full((3, 5), 2 * s, np.float32)],
            elementwise_ref,
        ),
        (REDUCE, lambda s: [np.full((4, 9), s, np.float32)], reduce_ref),
        (
            RESHAPE,
            lambda s: [np.full((3, 4), -s, np.float32)],
            lambda x: [abs(x).ravel(), x.ravel()],
        ),
    ],
    ids=["forward", "elementwise", "reduce", "reshape"],
)
def test_outputs_alias_nothing_and_survive_the_next_call(text, make, ref):
    exe = compiled(text)
    first_in = make(1.0)
    first = run(exe, *first_in)
    _assert_owned(first, first_in)
    kept = [o.copy() for o in first]
    for o in first:
        assert o.flags.writeable and o.flags.c_contiguous
    for step in range(3):
        later_in = make(5.0 + step)
        later = run(exe, *later_in)
        _assert_owned(later, later_in)
        for o in later:
            for f in first:
                assert not np.shares_memory(o, f)
    for got, want in zip(first, kept, strict=True):
        np.testing.assert_array_equal(got, want)
    assert_same(first, ref(*first_in))
    # writing an output changes neither the inputs nor the other outputs
    first[0][...] = 42.0
    assert_same(first[1:], ref(*first_in)[1:])
    np.testing.assert_array_equal(first_in[0], make(1.0)[0])


# ---------------------------------------------------------------------------
# 0-sized dimensions in every op family
# ---------------------------------------------------------------------------

ZERO_BROADCAST = """
func.func @main(%x: tensor<?x?xf32>, %row: tensor<?xf32>, %col: tensor<?xf32>) -> tensor<?x?xf32> {
  %s = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %r = "mhlo.dynamic_broadcast_in_dim"(%row, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %c = "mhlo.dynamic_broadcast_in_dim"(%col, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %0 = mhlo.add %x, %r : tensor<?x?xf32>
  %1 = mhlo.multiply %0, %c : tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}
"""

ZERO_UNARY_CONVERT = """
func.func @main(%x: tensor<?x?xf32>, %i: tensor<?x?xi32>) -> (tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xf32>, tensor<?x?xi1>) {
  %0 = mhlo.tanh %x : tensor<?x?xf32>
  %1 = mhlo.convert %x : (tensor<?x?xf32>) -> tensor<?x?xi32>
  %2 = mhlo.divide %i, %i : tensor<?x?xi32>
  %3 = mhlo.select %5, %x, %0 : tensor<?x?xi1>, tensor<?x?xf32>
  %5 = mhlo.compare LT, %x, %0 : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
  return %0, %1, %2, %3, %5 : tensor<?x?xf32>, tensor<?x?xi32>, tensor<?x?xi32>, tensor<?x?xf32>, tensor<?x?xi1>
}
"""

ZERO_INT_REDUCE = """
func.func @main(%x: tensor<?x?xi32>) -> (tensor<?xi32>, tensor<?xi32>, tensor<i32>) {
  %zero = mhlo.constant dense<0> : tensor<i32>
  %min = mhlo.constant dense<-2147483648> : tensor<i32>
  %0 = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xi32>, tensor<i32>) -> tensor<?xi32>
  %1 = mhlo.reduce(%x init: %min) applies mhlo.maximum across dimensions = [0] : (tensor<?x?xi32>, tensor<i32>) -> tensor<?xi32>
  %2 = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [0, 1] : (tensor<?x?xi32>, tensor<i32>) -> tensor<i32>
  return %0, %1, %2 : tensor<?xi32>, tensor<?xi32>, tensor<i32>
}
"""

ZERO_BATCHED_DOT = """
func.func @main(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}
"""

ZERO_SHAPE_OPS = """
func.func @main(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = "mhlo.transpose"(%x) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "mhlo.concatenate"(%x, %y) {dimension = 0 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %v = mhlo.constant dense<7.000000e+00> : tensor<f32>
  %2 = "mhlo.pad"(%x, %v) {edge_padding_low = dense<[1, 2]> : tensor<2xi64>, edge_padding_high = dense<[0, 3]> : tensor<2xi64>, interior_padding = dense<[0, 0]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %3 = "mhlo.reverse"(%x) {dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %c0 = mhlo.constant dense<0> : tensor<2xi64>
  %c1 = mhlo.constant dense<1> : tensor<2xi64>
  %i0 = arith.constant 0 : index
  %i1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %i0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %i1 : tensor<?x?xf32>
  %e0 = arith.index_cast %d0 : index to i64
  %e1 = arith.index_cast %d1 : index to i64
  %si = tensor.from_elements %e0, %e1 : tensor<2xi64>
  %4 = mhlo.real_dynamic_slice %x, %c0, %si, %c1 : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0, %1, %2, %3, %4 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
"""

ZERO_GATHER_IOTA = """
func.func @main(%table: tensor<?x?xf32>, %idx: tensor<?xi32>, %n: tensor<1xi64>) -> (tensor<?x?xf32>, tensor<?xi32>) {
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %table, %c1 : tensor<?x?xf32>
  %d1i = arith.index_cast %d1 : index to i64
  %one = arith.constant 1 : i64
  %sizes = tensor.from_elements %one, %d1i : tensor<2xi64>
  %0 = "mhlo.dynamic_gather"(%table, %idx, %sizes) {dimension_numbers = #mhlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false} : (tensor<?x?xf32>, tensor<?xi32>, tensor<2xi64>) -> tensor<?x?xf32>
  %1 = "mhlo.dynamic_iota"(%n) {iota_dimension = 0 : i64} : (tensor<1xi64>) -> tensor<?xi32>
  return %0, %1 : tensor<?x?xf32>, tensor<?xi32>
}
"""

ZERO_SORT = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "mhlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = mhlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %1 : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""

ZERO_SCATTER = """
func.func @main(%x: tensor<?x3xf32>, %idx: tensor<?xi64>, %upd: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %0 = "mhlo.scatter"(%x, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = mhlo.add %a, %b : tensor<f32>
    mhlo.return %1 : tensor<f32>
  }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<?x3xf32>, tensor<?xi64>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
"""

ZERO_WHILE = """
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %c0 = mhlo.constant dense<0> : tensor<i64>
  %c1 = mhlo.constant dense<1> : tensor<i64>
  %c3 = mhlo.constant dense<3> : tensor<i64>
  %0:2 = mhlo.while(%i = %c0, %v = %x) : tensor<i64>, tensor<?xf32>
    cond {
      %p = mhlo.compare LT, %i, %c3, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      mhlo.return %p : tensor<i1>
    } do {
      %n = mhlo.add %i, %c1 : tensor<i64>
      %w = mhlo.add %v, %v : tensor<?xf32>
      mhlo.return %n, %w : tensor<i64>, tensor<?xf32>
    }
  return %0#1 : tensor<?xf32>
}
"""

ZERO_REDUCE_WINDOW = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "mhlo.reduce_window"(%x, %ninf) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = mhlo.maximum %a, %b : tensor<f32>
    mhlo.return %m : tensor<f32>
  }) {window_dimensions = dense<[2, 1]> : tensor<2xi64>, window_strides = dense<[2, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""

ZERO_CONV = """
func.func @main(%x: tensor<?x?x?xf32>, %w: tensor<?x?x3xf32>) -> tensor<?x?x?xf32> {
  %0 = mhlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[2, 2]], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x?x?xf32>, tensor<?x?x3xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}
"""


def _conv_ref(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """`ZERO_CONV`'s reference: a 1-D convolution, window 3, padding 2 on each side."""
    xp = np.pad(x, ((0, 0), (0, 0), (2, 2)))
    n = xp.shape[2] - 2
    windows = np.zeros((x.shape[0], n, x.shape[1], 3), np.float32)
    for j in range(n):
        windows[:, j] = xp[:, :, j : j + 3]
    return np.einsum("bjck,ock->boj", windows, w)


ZERO_BF16 = """
func.func @main(%x: tensor<?x?xbf16>) -> tensor<?x?xbf16> {
  %0 = mhlo.add %x, %x : tensor<?x?xbf16>
  return %0 : tensor<?x?xbf16>
}
"""


ROW_SOFTMAX = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %m = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %mb = "mhlo.dynamic_broadcast_in_dim"(%m, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %c = mhlo.subtract %x, %mb : tensor<?x?xf32>
  %e = mhlo.exponential %c : tensor<?x?xf32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %sum = mhlo.reduce(%e init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %sb = "mhlo.dynamic_broadcast_in_dim"(%sum, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %p = mhlo.divide %e, %sb : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
"""


def _f(*shape: int) -> np.ndarray:
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) - 2.0


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True, initial=-np.inf))
    return e / e.sum(axis=1, keepdims=True)


def _max_pool_rows(x: np.ndarray) -> np.ndarray:
    """`ZERO_REDUCE_WINDOW`'s reference: windows of 2 rows, stride 2 (XLA: only
    whole windows, none when the input has fewer rows than the window)."""
    rows = x.shape[0] // 2
    return x[: 2 * rows].reshape(rows, 2, x.shape[1]).max(axis=1, initial=-np.inf)


def _pad_ref(x: np.ndarray) -> np.ndarray:
    return np.pad(x, ((1, 0), (2, 3)), constant_values=7.0)


#: family -> (graph, [inputs per case], inputs -> the numpy outputs)
ZERO_SIZED: dict[str, tuple[str, list[tuple[np.ndarray, ...]], Callable[..., list[Any]]]] = {
    "elementwise": (
        ELEMENTWISE,
        [(_f(0, 5), _f(0, 5)), (_f(3, 0), _f(3, 0)), (_f(0, 0), _f(0, 0))],
        elementwise_ref,
    ),
    "unary_convert_select_int_div": (
        ZERO_UNARY_CONVERT,
        [(_f(0, 4), np.ones((0, 4), np.int32)), (_f(2, 0), np.ones((2, 0), np.int32))],
        lambda x, i: [
            np.tanh(x),
            x.astype(np.int32),
            i // i,
            np.where(x < np.tanh(x), x, np.tanh(x)),
            x < np.tanh(x),
        ],
    ),
    "broadcast": (
        ZERO_BROADCAST,
        [(_f(0, 5), _f(5), _f(0)), (_f(3, 0), _f(0), _f(3))],
        lambda x, r, c: [(x + r[None, :]) * c[:, None]],
    ),
    "reduce": (REDUCE, [(_f(0, 5),), (_f(3, 0),), (_f(0, 0),)], reduce_ref),
    "int_reduce": (
        ZERO_INT_REDUCE,
        [(np.ones((0, 4), np.int32),), (np.ones((3, 0), np.int32),)],
        lambda x: [
            x.sum(axis=1, dtype=np.int32),
            x.max(axis=0, initial=np.iinfo(np.int32).min),
            np.int32(x.sum(dtype=np.int32)),
        ],
    ),
    "reduce_window": (
        ZERO_REDUCE_WINDOW,
        [(_f(0, 3),), (_f(4, 0),), (_f(5, 0),)],
        lambda x: [_max_pool_rows(x)],
    ),
    "softmax": (
        ROW_SOFTMAX,
        [(_f(0, 5),), (_f(3, 0),)],
        lambda x: [_softmax(x)],
    ),
    "dot": (
        DOT,
        [(_f(0, 4), _f(4, 3)), (_f(2, 0), _f(0, 3)), (_f(2, 4), _f(4, 0)), (_f(0, 0), _f(0, 0))],
        lambda a, b: [a @ b],
    ),
    "batched_dot": (
        ZERO_BATCHED_DOT,
        [(_f(0, 2, 3), _f(0, 3, 4)), (_f(2, 3, 0), _f(2, 0, 4))],
        lambda a, b: [a @ b],
    ),
    "reshape": (RESHAPE, [(_f(0, 5),), (_f(3, 0),)], lambda x: [np.abs(x).ravel(), x.ravel()]),
    "shape_ops": (
        ZERO_SHAPE_OPS,
        [(_f(0, 4), _f(2, 4)), (_f(3, 0), _f(1, 0)), (_f(0, 4), _f(0, 4))],
        lambda x, y: [x.T, np.concatenate([x, y]), _pad_ref(x), x[::-1, ::-1], x],
    ),
    "gather_iota": (
        ZERO_GATHER_IOTA,
        [
            (_f(4, 3), np.zeros(0, np.int32), np.array([0], np.int64)),
            (_f(4, 0), np.array([1, 3], np.int32), np.array([2], np.int64)),
        ],
        lambda t, i, n: [t[i], np.arange(n[0], dtype=np.int32)],
    ),
    "sort": (ZERO_SORT, [(_f(0, 5),), (_f(3, 0),)], lambda x: [np.sort(x, axis=1)]),
    "scatter": (
        ZERO_SCATTER,
        [
            (_f(4, 3), np.zeros(0, np.int64), _f(0, 3)),
            (_f(0, 3), np.array([0, 1], np.int64), _f(2, 3)),
        ],
        lambda x, i, u: [x],  # no updates, or only out-of-bounds ones (dropped, as XLA does)
    ),
    "conv": (
        ZERO_CONV,
        # the case before each empty one leaves its values in the RAL's cached buffers
        [
            (_f(2, 3, 5), _f(4, 3, 3)),
            (_f(2, 0, 5), _f(4, 0, 3)),
            (_f(2, 3, 5), _f(4, 3, 3)),
            (_f(2, 3, 0), _f(4, 3, 3)),
            (_f(0, 3, 5), _f(4, 3, 3)),
            (_f(2, 3, 5), _f(0, 3, 3)),
        ],
        lambda x, w: [_conv_ref(x, w)],
    ),
    "while": (ZERO_WHILE, [(_f(0),), (_f(3),)], lambda x: [x * 8]),
    "bf16": (
        ZERO_BF16,
        [(np.zeros((0, 3), np.uint16),), (np.zeros((2, 0), np.uint16),)],
        lambda x: [x.copy()],
    ),
}


@pytest.mark.parametrize("family", list(ZERO_SIZED))
def test_zero_sized_dims_in_every_op_family(family):
    text, cases, ref = ZERO_SIZED[family]
    exe = compiled(text)
    for inputs in cases:
        got = run(exe, *inputs)
        assert_same(got, ref(*inputs))


def test_reduce_window_larger_than_its_input_is_empty():
    x = _f(1, 3)
    assert_same(run(compiled(ZERO_REDUCE_WINDOW), x), [_max_pool_rows(x)])
