"""`disc_ir.jax.compile`: JAX functions exported to StableHLO and compiled by disc-ir.

Checks the dynamic-axes conventions (axis numbers share `d<k>` symbols,
mappings name symbols), one compile reused across shapes, pytree arguments
and outputs, jax.export's shape assertions failing at run time, argument
errors, and that jax stays optional (`import disc_ir` never imports it;
`import disc_ir.jax` without jax names the `jax` extra).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

import disc_ir.jax as dj  # noqa: E402

jax.config.update("jax_platforms", "cpu")


def _rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


def dense_tanh(x, w, b):  # noqa: ANN001, ANN201
    return jnp.tanh(x @ w + b)


@pytest.fixture(scope="module")
def dense_exe() -> dj.JaxExecutable:
    return dj.compile(dense_tanh, _rand(4, 16), _rand(16, 8), _rand(8), dynamic_axes={0: (0,)})


def test_dynamic_batch_one_compile_many_shapes(dense_exe: dj.JaxExecutable) -> None:
    assert "tensor<?x16xf32>" in dense_exe.stablehlo
    assert [a.shape for a in dense_exe.executable.inputs] == [(None, 16), (16, 8), (8,)]
    w, b = _rand(16, 8), _rand(8)
    for batch in (1, 4, 37):
        x = _rand(batch, 16, seed=batch)
        out = dense_exe(x, w, b)
        assert isinstance(out, np.ndarray) and out.shape == (batch, 8)
        np.testing.assert_allclose(out, np.asarray(dense_tanh(x, w, b)), rtol=1e-5, atol=1e-6)
    with pytest.raises(Exception, match="dimension 1"):
        dense_exe(_rand(3, 15), w, b)  # a static axis keeps its size


def test_axis_numbers_share_symbols_across_arguments() -> None:
    def attend(x, mask):  # (b, s, h), (b, s)
        return jnp.sum(x * mask[..., None], axis=1)

    specs = dj.input_specs([_rand(2, 3, 4), _rand(2, 3)], {0: (0, 1), 1: (0, 1)})
    assert str(specs[0].shape) == "(d0, d1, 4)" and str(specs[1].shape) == "(d0, d1)"
    exe = dj.compile(attend, _rand(2, 3, 4), _rand(2, 3), dynamic_axes={0: (0, 1), 1: (0, 1)})
    for b, s in ((1, 1), (3, 5)):
        x, mask = _rand(b, s, 4), _rand(b, s, seed=7)
        np.testing.assert_allclose(exe(x, mask), np.asarray(attend(x, mask)), rtol=1e-5, atol=1e-6)


def test_named_symbols_pytrees_and_tuple_outputs() -> None:
    def layer(xs, w):
        h = (xs["a"] + xs["c"]) @ w
        return h, jnp.max(h, axis=-1)

    xs = {"a": _rand(2, 6), "c": _rand(2, 6, seed=1)}
    # a pytree argument: the spec applies to each of its leaves; the
    # contracted axis ("features") is dynamic too
    exe = dj.compile(
        layer, xs, _rand(6, 5), dynamic_axes={0: {0: "batch", 1: "features"}, 1: {0: "features"}}
    )
    for batch, feat in ((1, 6), (4, 9)):
        xs = {"a": _rand(batch, feat), "c": _rand(batch, feat, seed=1)}
        w = _rand(feat, 5, seed=2)
        got = exe(xs, w)
        assert isinstance(got, tuple) and len(got) == 2
        for g, e in zip(got, layer(xs, w), strict=True):
            np.testing.assert_allclose(g, np.asarray(e), rtol=1e-5, atol=1e-5)
    with pytest.raises(TypeError, match="structure"):
        exe(xs["a"], w)


def test_shape_assertions_fail_at_run_time() -> None:
    from disc_ir.runtime import RalInputError

    def two(x, y):
        return x * 2.0, y + 1.0

    exe = dj.compile(
        two, _rand(3), _rand(3), dynamic_axes={0: {0: "b"}, 1: {0: "b"}}, constraints=("b >= 3",)
    )
    a, c = exe(_rand(5), _rand(5, seed=1))
    np.testing.assert_allclose(a, _rand(5) * 2.0, rtol=1e-6)
    np.testing.assert_allclose(c, _rand(5, seed=1) + 1.0, rtol=1e-6)
    # jax.export's assertions, with JAX's messages
    with pytest.raises(Exception, match=r"symbolic shape constraint b >= 3.*found -1"):
        exe(_rand(2), _rand(2))
    with pytest.raises(Exception, match=r"Expected value >= 1 for dimension variable 'b'"):
        exe(np.zeros(0, np.float32), np.zeros(0, np.float32))
    # inconsistent dims sharing a symbol: rejected before any code runs
    with pytest.raises(RalInputError, match=r"dimension 0 is 4, expected 5"):
        exe(_rand(5), _rand(4))


def test_argument_errors() -> None:
    x = _rand(2, 3)
    with pytest.raises(ValueError, match="argument index 1 is out of range"):
        dj.input_specs([x], {1: (0,)})
    with pytest.raises(ValueError, match="dynamic axis 2 is out of range"):
        dj.input_specs([x], {0: (2,)})
    with pytest.raises(ValueError, match="not an identifier"):
        dj.input_specs([x], {0: {0: "2b"}})
    with pytest.raises(TypeError, match="sequence of axes or a mapping"):
        dj.input_specs([x], {0: 0})  # type: ignore[dict-item]
    assert dj.input_specs([x], {0: (-1,)})[0].shape[0] == 2


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_jax_is_optional() -> None:
    proc = _python(
        """
        import sys
        import disc_ir
        disc_ir.compile  # the lazy API import
        assert "jax" not in sys.modules, "import disc_ir imported jax"
        sys.modules["jax"] = None  # as if jax were not installed
        try:
            import disc_ir.jax
        except ImportError as exc:
            print("ImportError:", exc)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert "ImportError: disc_ir.jax needs jax" in proc.stdout
    assert "disc-ir[jax]" in proc.stdout


def pool_and_cumsum(x):  # noqa: ANN001, ANN201
    """Max-pool 2x2/2 and a SAME-padded 3x3/2 average pool over NHWC, and a
    cumulative sum over W: jax lowers all three to stablehlo.reduce_window."""
    maxpool = jax.lax.reduce_window(x, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    avgpool = jax.lax.reduce_window(x, 0.0, jax.lax.add, (1, 3, 3, 1), (1, 2, 2, 1), "SAME") / 9
    return maxpool, avgpool, jnp.cumsum(x, axis=2)


def test_reduce_window_pooling_dynamic_batch() -> None:
    exe = dj.compile(pool_and_cumsum, _rand(2, 8, 8, 3), dynamic_axes={0: (0,)})
    for batch in (1, 3):
        x = _rand(batch, 8, 8, 3, seed=batch)
        for got, want in zip(exe(x), pool_and_cumsum(x), strict=True):
            np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-6)


def test_reduce_window_pooling_dynamic_image_size() -> None:
    """Dynamic H and W: jax exports the SAME-padded pool (its padding depends
    on the size) as `@stablehlo.dynamic_reduce_window`, the VALID one as a
    plain reduce_window; both compile once and run at odd, even and 1-pixel sizes."""
    exe = dj.compile(pool_and_cumsum, _rand(2, 8, 8, 3), dynamic_axes={0: (0, 1, 2)})
    for shape in [(1, 1, 1, 3), (2, 7, 9, 3), (1, 12, 5, 3)]:
        x = _rand(*shape, seed=sum(shape))
        for got, want in zip(exe(x), pool_and_cumsum(x), strict=True):
            np.testing.assert_allclose(got, np.asarray(want), rtol=1e-5, atol=1e-5)


def test_argmax_variadic_reduce_dynamic_batch() -> None:
    """jnp.argmax exports a two-input reduce (value, index) with the reducer's
    arguments printed with locations; ties pick the first index."""

    def fn(x):  # noqa: ANN001, ANN202
        return jnp.argmax(x, axis=1), jax.nn.one_hot(jnp.argmin(x, axis=0), 4)

    exe = dj.compile(fn, _rand(3, 4), dynamic_axes={0: (0,)})
    for batch in (1, 6):
        x = np.round(_rand(batch, 4, seed=batch))  # ties
        for got, want in zip(exe(x), fn(x), strict=True):
            np.testing.assert_array_equal(got, np.asarray(want))


def sort_family(x):  # noqa: ANN001, ANN201
    """jnp.sort / argsort (a NaN- and -0-canonicalizing TOTALORDER comparator,
    a (keys, iota) pair) and a descending sort along the batch axis."""
    return jnp.sort(x, axis=1), jnp.argsort(x, axis=1), jnp.sort(x, axis=0, descending=True)


def top_k(x):  # noqa: ANN001, ANN201
    """lax.top_k: a GT comparator over (values, iota), then slices."""
    return jax.lax.top_k(x, 3)


def test_sort_argsort_top_k_dynamic_shapes() -> None:
    """One compile sorts rows of any length exactly as XLA does: NaNs last,
    ties in their original order (stable)."""
    sort_exe = dj.compile(sort_family, _rand(3, 5), dynamic_axes={0: (0, 1)})
    top_exe = dj.compile(top_k, _rand(3, 5), dynamic_axes={0: (0,)})
    for shape in ((1, 5), (4, 7), (9, 33)):
        x = np.round(_rand(*shape, seed=shape[1]), 1)
        x[0, 1] = np.nan
        x[-1, 0] = -0.0
        x[-1, 2] = x[-1, 3]  # a tie
        for got, want in zip(sort_exe(x), sort_family(x), strict=True):
            np.testing.assert_array_equal(got, np.asarray(want))
        x5 = np.ascontiguousarray(x[:, :5])  # top_k's row length is static
        for got, want in zip(top_exe(x5), top_k(x5), strict=True):
            np.testing.assert_array_equal(got, np.asarray(want))


def bf16_block(x):  # noqa: ANN001, ANN201
    """bf16 in and out: rsqrt, a softmax (exp, max and sum reductions), a sort."""
    h = jax.lax.rsqrt(jnp.abs(x) + 1)
    return jax.nn.softmax(h * x, axis=-1), jnp.sort(x, axis=-1), (x * 3).astype(jnp.int32)


def test_bf16_arrays_in_and_out_dynamic_batch() -> None:
    """bfloat16 arguments and results pass through as JAX's bfloat16 arrays;
    values agree with XLA's within one bf16 rounding (exactly for the sort
    and the conversion)."""
    exe = dj.compile(bf16_block, _rand(2, 8).astype(jnp.bfloat16), dynamic_axes={0: (0,)})
    for batch in (1, 5):
        x = (_rand(batch, 8, seed=batch) * 3).astype(jnp.bfloat16)
        got = exe(x)
        want = jax.jit(bf16_block)(x)
        assert [np.asarray(g).dtype for g in got] == [np.asarray(w).dtype for w in want]
        np.testing.assert_allclose(
            np.asarray(got[0], np.float32), np.asarray(want[0], np.float32), rtol=2**-7, atol=0
        )
        np.testing.assert_array_equal(np.asarray(got[1]), np.asarray(want[1]))
        np.testing.assert_array_equal(np.asarray(got[2]), np.asarray(want[2]))


def bf16_dot_and_scatter(x, v, idx):  # noqa: ANN001, ANN201
    return jnp.matmul(x.astype(jnp.bfloat16), v), v.at[idx].max(v[idx])


def test_bf16_values_carried_in_llvm_structs() -> None:
    """bf16 scalars carried together through a loop (a struct of loop-carried
    values in the LLVM dialect) translate to LLVM IR and compute XLA's values."""
    v = np.array([1.5], jnp.bfloat16)
    exe = dj.compile(
        bf16_dot_and_scatter, _rand(2, 5, 1), v, np.zeros(3, np.int32), dynamic_axes={2: (0,)}
    )
    for n in (1, 4):
        args = (_rand(2, 5, 1, seed=n), v, np.zeros(n, np.int32))
        for got, want in zip(exe(*args), jax.jit(bf16_dot_and_scatter)(*args), strict=True):
            np.testing.assert_allclose(
                np.asarray(got, np.float32), np.asarray(want, np.float32), rtol=2**-7, atol=0
            )


def test_arguments_jax_drops_and_dtypes_jax_converts():
    """Like `jax.jit`: an argument the function does not use (jax drops it from
    the exported module) may still be passed, and float64 / int64 arrays and
    Python scalars are converted to the exported float32 / int32; a dtype jax
    would not convert is still rejected."""
    from disc_ir.runtime import RalInputError

    def fn(unused, x, n):  # noqa: ANN001, ANN202
        return x * n

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    exe = dj.compile(fn, np.zeros(4, np.float32), x, np.int32(2))
    try:
        want = np.asarray(jax.jit(fn)(np.zeros(4), x.astype(np.float64), 3))
        got = np.asarray(exe(np.zeros(4), x.astype(np.float64), 3))
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.asarray(exe(np.ones(4), x, np.int64(5))), x * 5)
        with pytest.raises(RalInputError, match="expected"):
            exe(np.zeros(4), x.astype(np.int32), 2)
    finally:
        exe.close()


def test_erf_within_three_ulps() -> None:
    """jax's erf (a `chlo.erf` composite) is lowered by disc-ir's own erf, within
    3 ulps of the float64 value everywhere, and exact where it saturates near 1."""
    import math

    x = np.concatenate([np.linspace(-6, 6, 24001), [3.6597407, -3.6597407]]).astype(np.float32)
    exe = dj.compile(lambda v: jax.scipy.special.erf(v), x)
    got = np.asarray(exe(x), np.float64)
    want = np.array([math.erf(float(v)) for v in x])
    ulps = np.abs(got - want) / np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
    assert ulps.max() <= 3.0, f"{ulps.max():.1f} ulps at x = {x[ulps.argmax()]}"


def test_reshape_of_zero_sized_tensor_with_dynamic_dim() -> None:
    """(4, a, 0) @ (0, 8): the reshape to (4a, 0) before the dot has as many elements
    as its input (none) whatever its first dim, which must stay 4a, not a."""
    w = np.zeros((0, 8), np.float32)
    exe = dj.compile(lambda x, v: x @ v, np.zeros((4, 3, 0), np.float32), w, dynamic_axes={0: (1,)})
    for a in (1, 3):
        np.testing.assert_array_equal(exe(np.zeros((4, a, 0), np.float32), w), np.zeros((4, a, 8)))


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_transposed_matrix_times_vector(dtype: type) -> None:
    """`m.T @ v` stays a dot_general of a transposed matrix and a vector (as BladeDISC's
    dot rewriter leaves it); the CPU runtime's matrix-vector ral_gemm runs it."""

    def fn(m, v):  # noqa: ANN001, ANN202
        return m.T @ v

    m0, v0 = np.ones((5, 3), dtype), np.ones(5, dtype)
    exe = dj.compile(fn, m0, v0, dynamic_axes={0: (0,), 1: (0,)})
    for n in (1, 7):
        m = (np.arange(n * 3).reshape(n, 3) - 4).astype(dtype)
        v = (np.arange(n) - 1).astype(dtype)
        np.testing.assert_array_equal(exe(m, v), jax.jit(fn)(m, v))
