"""`mhlo.scatter`: the serial scatter schedule against jax (XLA) on the same inputs.

Each case is a JAX function exported through `disc_ir.jax.compile` (static and
shape-polymorphic) and compared with `jax.jit` at several shapes: `.at[...]`
add / set / multiply / min / max with repeated and out-of-bounds indices
(jax drops those: XLA skips a window that does not fit), negative indices,
2-D start indices, window slices and integer data; then scatters written as
MHLO text (index_vector_dim equal to the indices' rank, inserted dims in the
middle, an update computation reading a captured constant, in place on a
function argument's copy), and the StableHLO 1.x batching dims of gathers
and scatters (`jnp.take_along_axis`, vmapped gathers and scatters).
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from disc_ir.api import CompileError
from disc_ir.api import compile as disc_compile

from .conftest import rng, run

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
disc_jax = pytest.importorskip("disc_ir.jax")


def _indices(name: str, count: int, high: int, low: int = 0) -> np.ndarray:
    return rng(name, (count,)).integers(low, high, size=count).astype(np.int32)


def _values(name: str, shape: tuple[int, ...], dtype=np.float32) -> np.ndarray:  # noqa: ANN001
    g = rng(name, shape)
    if np.dtype(dtype).kind == "i":
        return g.integers(-9, 9, size=shape).astype(dtype)
    return g.standard_normal(shape).astype(dtype)


def _check(fn, args, dynamic_axes=None) -> None:  # noqa: ANN001
    exe = disc_jax.compile(fn, *args, dynamic_axes=dynamic_axes or {})
    try:
        got = exe(*args)
        want = np.asarray(jax.jit(fn)(*args))
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)
    finally:
        exe.close()


ROW_UPDATES = {
    "add": lambda x, i, u: x.at[i].add(u),
    "set": lambda x, i, u: x.at[i].set(u),
    "mul": lambda x, i, u: x.at[i].multiply(u),
    "min": lambda x, i, u: x.at[i].min(u),
    "max": lambda x, i, u: x.at[i].max(u),
}


@pytest.mark.parametrize("kind", sorted(ROW_UPDATES))
@pytest.mark.parametrize("rows,cols,count", [(8, 4, 3), (1, 1, 5), (33, 7, 64)], ids=str)
def test_row_updates_with_repeated_and_out_of_bounds_indices(kind, rows, cols, count):
    """Repeated indices combine in order; indices past either end are dropped."""
    x = _values(f"x{kind}", (rows, cols))
    i = _indices(f"i{kind}", count, rows + 3, low=-rows - 3)
    u = _values(f"u{kind}", (count, cols))
    _check(ROW_UPDATES[kind], (x, i, u))


def test_row_add_is_shape_polymorphic():
    """One compile (rows and update count dynamic) serves every shape."""

    def fn(x, i, u):  # noqa: ANN001, ANN202
        return x.at[i].add(u)

    x = _values("px", (6, 5))
    i = _indices("pi", 4, 6)
    u = _values("pu", (4, 5))
    exe = disc_jax.compile(fn, x, i, u, dynamic_axes={0: {0: "rows"}, 1: {0: "n"}, 2: {0: "n"}})
    try:
        for rows, count in [(1, 1), (6, 4), (50, 200), (3, 1)]:
            xs = _values(f"px{rows}", (rows, 5))
            ix = _indices(f"pi{rows}", count, rows + 2, low=-rows)
            us = _values(f"pu{rows}", (count, 5))
            got = np.asarray(exe(xs, ix, us))
            np.testing.assert_allclose(got, np.asarray(jax.jit(fn)(xs, ix, us)), rtol=1e-6)
    finally:
        exe.close()


def test_two_dimensional_start_indices():
    """x.at[rows, cols].add(v): a start index vector of two, every dim inserted."""

    def fn(x, r, c, v):  # noqa: ANN001, ANN202
        return x.at[r, c].add(v)

    x = _values("2x", (9, 11))
    r = _indices("2r", 40, 12, low=-3)
    c = _indices("2c", 40, 13, low=-2)
    v = _values("2v", (40,))
    _check(fn, (x, r, c, v))


def test_window_slices_into_a_middle_dim():
    """x.at[:, i].set(u): the scattered dim between two window dims."""

    def fn(x, i, u):  # noqa: ANN001, ANN202
        return x.at[:, i].set(u)

    x = _values("wx", (3, 10, 4))
    i = _indices("wi", 5, 10)
    u = _values("wu", (3, 5, 4))
    _check(fn, (x, i, u))


def test_integer_scatter_and_scalar_index():
    def fn(x, u):  # noqa: ANN001, ANN202
        return x.at[2].add(u).at[-1].set(7)

    x = _values("ix", (5, 3), np.int32)
    u = _values("iu", (3,), np.int32)
    _check(fn, (x, u))


def test_segment_sum():
    """jax.ops.segment_sum: a scatter-add of rows by segment id."""

    def fn(data, ids):  # noqa: ANN001, ANN202
        return jax.ops.segment_sum(data, ids, num_segments=6)

    data = _values("sd", (30, 4))
    ids = _indices("si", 30, 8)  # ids 6 and 7 are out of range: dropped
    _check(fn, (data, ids))


BATCHED = {
    "take_along_axis1": (
        lambda a, i: jnp.take_along_axis(a, i, axis=1),
        lambda: (_values("tx", (8, 16)), _indices("ti", 40, 16).reshape(8, 5)),
    ),
    "take_along_axis2": (
        lambda a, i: jnp.take_along_axis(a, i, axis=2),
        lambda: (_values("t3", (2, 3, 7)), _indices("t3i", 24, 7).reshape(2, 3, 4)),
    ),
    "vmap_gather": (
        jax.vmap(lambda r, j: r[j]),
        lambda: (_values("vg", (8, 16)), _indices("vgi", 8, 16)),
    ),
    "vmap_scatter_add": (
        jax.vmap(lambda r, j, u: r.at[j].add(u)),
        lambda: (
            _values("vs", (8, 16)),
            _indices("vsi", 24, 16).reshape(8, 3),
            _values("vsu", (8, 3)),
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(BATCHED))
@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_batching_dims_of_gather_and_scatter(name, dynamic):
    """StableHLO 1.x batching dims (jnp.take_along_axis, vmapped gathers and
    scatters) become extra start-index components; dynamic: the batch axis is
    shape-polymorphic."""
    fn, make = BATCHED[name]
    args = make()
    axes = {i: {0: "b"} for i in range(len(args))} if dynamic else None
    _check(fn, args, axes)


# index_vector_dim = rank(indices) (the start index is the element itself),
# and an update computation reading a constant from outside its region
IMPLICIT_INDEX_VECTOR = """
func.func @main(%x: tensor<?x3xf32>, %idx: tensor<?xi64>, %upd: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %half = mhlo.constant dense<5.000000e-01> : tensor<f32>
  %0 = "mhlo.scatter"(%x, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = mhlo.multiply %b, %half : tensor<f32>
    %2 = mhlo.add %a, %1 : tensor<f32>
    mhlo.return %2 : tensor<f32>
  }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<?x3xf32>, tensor<?xi64>, tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
"""


def test_mhlo_scatter_with_implicit_index_vector_and_captured_constant():
    exe = disc_compile(IMPLICIT_INDEX_VECTOR)
    try:
        for rows, count in [(4, 6), (1, 3), (17, 40)]:
            x = _values(f"mx{rows}", (rows, 3))
            idx = rng(f"mi{rows}", (count,)).integers(-2, rows + 2, size=count).astype(np.int64)
            upd = _values(f"mu{rows}", (count, 3))
            want = x.copy()
            for k, r in enumerate(idx):
                if 0 <= r < rows:
                    want[r] += upd[k] * np.float32(0.5)
            (got,) = run(exe, x, idx, upd)
            np.testing.assert_allclose(got, want, rtol=1e-6)
    finally:
        exe.close()


# a window that only partly fits is skipped whole (XLA's rule), not clipped
PARTIAL_WINDOW = """
func.func @main(%x: tensor<10xf32>, %idx: tensor<3x1xi32>, %upd: tensor<3x4xf32>) -> tensor<10xf32> {
  %0 = "mhlo.scatter"(%x, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    mhlo.return %b : tensor<f32>
  }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [1], inserted_window_dims = [], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<10xf32>, tensor<3x1xi32>, tensor<3x4xf32>) -> tensor<10xf32>
  return %0 : tensor<10xf32>
}
"""


def test_window_that_does_not_fit_is_skipped():
    exe = disc_compile(PARTIAL_WINDOW)
    try:
        x = np.zeros(10, np.float32)
        idx = np.array([[0], [6], [7]], np.int32)  # windows [0, 4), [6, 10) fit; [7, 11) does not
        upd = np.arange(1, 13, dtype=np.float32).reshape(3, 4)
        want = x.copy()
        want[0:4] = upd[0]
        want[6:10] = upd[1]
        (got,) = run(exe, x, idx, upd)
        np.testing.assert_array_equal(got, want)
    finally:
        exe.close()


VARIADIC = """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %idx: tensor<2x1xi32>, %u: tensor<2xf32>, %v: tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0:2 = "mhlo.scatter"(%x, %y, %idx, %u, %v) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<f32>, %d: tensor<f32>):
    mhlo.return %c, %d : tensor<f32>, tensor<f32>
  }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xf32>, tensor<4xf32>, tensor<2x1xi32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xf32>
}
"""


def test_variadic_scatter_is_a_clear_error():
    with pytest.raises(CompileError, match="scatter"):
        disc_compile(VARIADIC)


def test_cuda_target_runs_scatters_on_the_host():
    """`target="cuda"` places every scatter on the host (its schedule is a host
    loop), i64 indices included: the module compiles with PTX for the GPU part."""
    from disc_ir.api import lower_to_llvm_ir

    lowered = lower_to_llvm_ir(IMPLICIT_INDEX_VECTOR, "cuda", keep_ir=True)
    placed = str(lowered.phase_ir["placement"])
    (scatter_attrs,) = re.findall(r"\}\) \{(scatter_dimension_numbers.*)\} :", placed)
    assert 'disc.device = "cpu"' in scatter_attrs
    assert "lmhlo.scatter" not in str(lowered.phase_ir["codegen"])


# a GPU producer and consumer around the host scatter (copies both ways)
GPU_AROUND_SCATTER = """
func.func @main(%x: tensor<?x4xf32>, %idx: tensor<?x1xi32>, %upd: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %e = mhlo.exponential %x : tensor<?x4xf32>
  %0 = "mhlo.scatter"(%e, %idx, %upd) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = mhlo.maximum %a, %b : tensor<f32>
    mhlo.return %1 : tensor<f32>
  }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<?x4xf32>, tensor<?x1xi32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = mhlo.negate %0 : tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}
"""


def _has_gpu() -> bool:
    from disc_ir.runtime.cuda_libs import cuda_available

    return cuda_available()


@pytest.mark.skipif(not _has_gpu(), reason="no CUDA device")
@pytest.mark.parametrize("graph", ["GPU_AROUND_SCATTER", "IMPLICIT_INDEX_VECTOR"])
def test_scatter_on_a_gpu_matches_the_cpu(graph):
    text = globals()[graph]
    cpu, cuda = disc_compile(text), disc_compile(text, target="cuda")
    try:
        for rows, count in [(5, 9), (64, 300)]:
            x = _values(f"gx{rows}", (rows, 3 if "3xf32" in text else 4))
            dtype = np.int64 if "xi64" in text else np.int32
            idx = rng(f"gi{rows}", (count,)).integers(-2, rows + 2, size=count).astype(dtype)
            if "?x1xi32" in text:
                idx = idx.reshape(count, 1)
            upd = _values(f"gu{rows}", (count, x.shape[1]))
            (want,) = run(cpu, x, idx, upd)
            (got,) = run(cuda, x, idx, upd)
            np.testing.assert_allclose(got, want, rtol=1e-6)
    finally:
        cpu.close()
        cuda.close()
