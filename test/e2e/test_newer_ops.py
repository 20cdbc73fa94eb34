"""Ops of today's StableHLO / CHLO / mhlo beyond BladeDISC's pinned mlir-hlo, against JAX.

The ops are those `jax.jit(f).lower(x)` emits (`chlo.asin` for
`jnp.arcsin`, `chlo.lgamma` for `lax.lgamma`, `chlo.top_k` for `lax.top_k`,
`stablehlo.reduce_precision` ...): each is compiled once with a dynamic
dimension and run at lengths 1, odd and large, and JAX's own text compiles
too; the reference is XLA's result on the same inputs (`jax.jit` on the
CPU). Inputs hold the edge values of each
function: NaN, +-inf, +-0, +-1, poles, the domain's ends, huge and tiny
magnitudes (normal ones: XLA's CPU code reads subnormal inputs as zero). Results must agree to a few f32 ulps (NaN where XLA
gives NaN, infinities of the same sign); bit-level ops (`reduce_precision`,
`next_after`) and `top_k` exactly. The mhlo spellings of today's mhlo
(`mhlo.asin`, `mhlo.reduce_precision` ...) are checked on the same data.
"""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from jax import export, lax  # noqa: E402

import disc_ir  # noqa: E402

from .conftest import rng  # noqa: E402

_SPECIALS = np.array(
    [
        np.nan,
        -np.nan,
        np.inf,
        -np.inf,
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        3.0,
        -3.0,
        2e-38,
        -2e-38,
        1.2e-38,
        1e-20,
        -1e-20,
        1e-7,
        0.9999999,
        -0.9999999,
        1.0000001,
        10.0,
        -10.0,
        -2.5,
        -0.25,
        35.0,
        1e4,
        -1e4,
        1e19,
        1e20,
        -1e20,
        3e38,
        -3e38,
        88.0,
        89.0,
        -104.0,
        171.5,
    ],
    np.float32,
)


def _inputs(name: str, n: int, low: float, high: float) -> np.ndarray:
    """`n` values: the specials first, then uniform in [low, high] and log-spread magnitudes."""
    gen = rng(name, n)
    uniform = gen.uniform(low, high, n).astype(np.float32)
    spread = (np.sign(gen.standard_normal(n)) * 10.0 ** gen.uniform(-30, 30, n)).astype(np.float32)
    x = np.where(np.arange(n) % 3 == 0, spread, uniform).astype(np.float32)
    k = min(n, _SPECIALS.size)
    x[:k] = _SPECIALS[:k]
    return x


def _export(fn, *dtypes) -> str:
    """`fn` exported with one symbolic dimension (jax.export)."""
    (n,) = export.symbolic_shape("n")
    specs = [jax.ShapeDtypeStruct((n,), d) for d in dtypes]
    return export.export(jax.jit(fn))(*specs).mlir_module()


def _unary_graph(op: str, element: str = "f32") -> str:
    return f"""
func.func @main(%x: tensor<?x{element}>) -> tensor<?x{element}> {{
  %0 = {op} %x : tensor<?x{element}> -> tensor<?x{element}>
  return %0 : tensor<?x{element}>
}}
"""


_COMPILED: dict[str, object] = {}


def _compiled(text: str):
    if text not in _COMPILED:
        _COMPILED[text] = disc_ir.compile(text, target="cpu")
    return _COMPILED[text]


def _close(got: np.ndarray, want: np.ndarray, ulps: float, what: str) -> None:
    """Equal NaN pattern and infinities; finite values within `ulps` f32 ulps of
    `want`'s magnitude (and absolutely within `ulps` ulps of 1 near zeros)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{what}: NaN pattern")
    inf = np.isinf(want)
    np.testing.assert_array_equal(got[inf], want[inf], err_msg=f"{what}: infinities")
    finite = np.isfinite(want)
    eps = np.finfo(want.dtype).eps
    g, w = got[finite].astype(np.float64), want[finite].astype(np.float64)
    tol = ulps * eps * np.maximum(np.abs(w), 1.0 if ulps else 0.0)
    bad = np.abs(g - w) > tol
    assert not bad.any(), (
        f"{what}: {bad.sum()} values off, e.g. x -> got {g[bad][:5]}, want {w[bad][:5]}"
    )


# name -> (jax function, ulps, low, high); ulps bound |got - want| by ulps * eps * max(|want|, 1)
UNARY = {
    "asin": (jnp.arcsin, 4, -1.0, 1.0),
    "acos": (jnp.arccos, 4, -1.0, 1.0),
    "atan": (jnp.arctan, 4, -50.0, 50.0),
    "sinh": (jnp.sinh, 8, -20.0, 20.0),
    "cosh": (jnp.cosh, 8, -20.0, 20.0),
    "asinh": (jnp.arcsinh, 4, -50.0, 50.0),
    "acosh": (jnp.arccosh, 4, 0.5, 50.0),
    "atanh": (jnp.arctanh, 4, -1.0, 1.0),
    "lgamma": (lax.lgamma, 64, -20.0, 40.0),
    "digamma": (lax.digamma, 64, -20.0, 40.0),
    # ill-conditioned next to +-1: w = -log((1 - x)(1 + x)) carries log's ulp
    "erf_inv": (lax.erf_inv, 32, -1.0, 1.0),
    "bessel_i1e": (lax.bessel_i1e, 32, -30.0, 30.0),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_chlo_unary_matches_xla(name):
    fn, ulps, low, high = UNARY[name]
    exe = _compiled(_unary_graph(f"chlo.{name}"))
    for n in (1, 7, 3001):
        x = _inputs(name, n, low, high)
        (got,) = exe(x)
        want = np.asarray(jax.jit(fn)(x))
        _close(np.asarray(got), want, ulps, f"{name} n={n}")


@pytest.mark.parametrize("name", sorted(UNARY))
def test_jax_text_compiles(name):
    """The module `jax.jit(f).lower(x).as_text()` prints (chlo op and all)."""
    fn, ulps, low, high = UNARY[name]
    x = _inputs(name, 64, low, high)
    text = jax.jit(fn).lower(x).as_text()
    assert f"chlo.{name}" in text
    (got,) = _compiled(text)(x)
    _close(np.asarray(got), np.asarray(jax.jit(fn)(x)), ulps, f"jax text {name}")


@pytest.mark.parametrize("name", ["asin", "acos", "asinh", "acosh", "atanh", "cosh", "sinh"])
def test_todays_mhlo_spelling(name):
    """`mhlo.<name>` (today's mhlo) computes what `chlo.<name>` does."""
    fn, ulps, low, high = UNARY[name]
    text = f"""
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {{
  %0 = mhlo.{name} %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}}
"""
    x = _inputs(name, 501, low, high)
    (got,) = _compiled(text)(x)
    _close(np.asarray(got), np.asarray(jax.jit(fn)(x)), ulps, f"mhlo.{name}")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_chlo_unary_half_types(dtype):
    """f16 / bf16 operands: computed in f32 and rounded once, so within two
    of their ulps of XLA (which does the same), NaN and infinities alike."""
    dt = jnp.dtype(dtype)
    element = {"float16": "f16", "bfloat16": "bf16"}[dtype]
    for name in ("asin", "sinh", "lgamma", "erf_inv"):
        fn, _, low, high = UNARY[name]
        exe = _compiled(_unary_graph(f"chlo.{name}", element))
        x = _inputs(name, 257, low, high).astype(dt)
        # the runtime takes bf16 as its bits (numpy uint16)
        (got,) = exe(x.view(np.uint16) if dtype == "bfloat16" else x)
        got = np.asarray(got).view(dt).astype(np.float32)
        want = np.asarray(jax.jit(fn)(x)).astype(np.float32)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
        finite = np.isfinite(want)
        np.testing.assert_array_equal(
            got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)]
        )
        g, w = got[finite], want[finite]
        eps = {"float16": 2.0**-10, "bfloat16": 2.0**-7}[dtype]
        step = eps * np.maximum(np.abs(w), 1.0)
        assert (np.abs(g - w) <= 2 * step).all(), f"{name} {dtype}"


@pytest.mark.parametrize(
    "exponent_bits,mantissa_bits", [(5, 10), (8, 7), (4, 3), (5, 2), (8, 23), (2, 0), (11, 52)]
)
def test_reduce_precision_bit_exact(exponent_bits, mantissa_bits):
    fn = lambda v: lax.reduce_precision(v, exponent_bits, mantissa_bits)  # noqa: E731
    text = _export(fn, np.float32)
    assert "stablehlo.reduce_precision" in text
    x = _inputs("rp", 4001, -70000.0, 70000.0)
    (got,) = _compiled(text)(x)
    want = np.asarray(jax.jit(fn)(x))
    got = np.asarray(got)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(got[ok].view(np.int32), want[ok].view(np.int32))


def test_reduce_precision_f16_and_mhlo_form():
    fn = lambda v: lax.reduce_precision(v, 4, 3)  # noqa: E731
    x = _inputs("rp16", 999, -300.0, 300.0).astype(np.float16)
    (got,) = _compiled(_export(fn, np.float16))(x)
    want = np.asarray(jax.jit(fn)(x))
    np.testing.assert_array_equal(np.asarray(got).view(np.int16), want.view(np.int16))
    text = """
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mhlo.reduce_precision %x, format = e5m10 : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""
    x32 = _inputs("rp32", 999, -70000.0, 70000.0)
    (got,) = _compiled(text)(x32)
    want = np.asarray(jax.jit(lambda v: lax.reduce_precision(v, 5, 10))(x32))
    ok = ~np.isnan(want)
    np.testing.assert_array_equal(np.asarray(got)[ok].view(np.int32), want[ok].view(np.int32))


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_next_after_bit_exact(dtype):
    element = {np.float32: "f32", np.float16: "f16"}[dtype]
    t = f"tensor<?x{element}>"
    exe = _compiled(f"""
func.func @main(%x: {t}, %y: {t}) -> {t} {{
  %0 = chlo.next_after %x, %y : {t}, {t} -> {t}
  return %0 : {t}
}}
""")
    x = _inputs("na-x", 2001, -5.0, 5.0).astype(dtype)
    y = np.roll(_inputs("na-y", 2001, -5.0, 5.0), 3).astype(dtype)
    y[:40] = x[:40]  # equal pairs, zeros to zeros, NaN with NaN
    y[40:80] = -x[40:80]
    (got,) = exe(x, y)
    want = np.asarray(jax.jit(jnp.nextafter)(x, y))
    got = np.asarray(got)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    bits = np.int32 if dtype == np.float32 else np.int16
    np.testing.assert_array_equal(got[ok].view(bits), want[ok].view(bits))


def test_next_after_jax_text():
    """`jnp.nextafter` as `jax.jit` prints it (`chlo.broadcast_next_after`)."""
    x = _inputs("na-jit", 64, -5.0, 5.0)
    y = x[::-1].copy()
    text = jax.jit(jnp.nextafter).lower(x, y).as_text()
    assert "chlo.next_after" in text or "chlo.broadcast_next_after" in text
    (got,) = _compiled(text)(x, y)
    want = np.asarray(jax.jit(jnp.nextafter)(x, y))
    np.testing.assert_array_equal(np.asarray(got).view(np.int32), want.view(np.int32))


@pytest.mark.parametrize(
    "shape,k", [((7,), 3), ((1,), 1), ((4, 9), 9), ((3, 1025), 5), ((2, 5), 0)]
)
def test_top_k(shape, k):
    """Descending values with their indices in XLA's total order (+NaN
    first, +0 before -0, -NaN last), ties to the lower index."""
    fn = lambda v: lax.top_k(v, k)  # noqa: E731
    x = np.round(rng("topk", shape).standard_normal(shape), 1).astype(np.float32)
    flat = x.reshape(-1)
    flat[: min(flat.size, 6)] = np.array([np.nan, -0.0, 0.0, np.inf, -np.nan, 0.5], np.float32)[
        : min(flat.size, 6)
    ]
    text = jax.jit(fn).lower(x).as_text()
    assert "chlo.top_k" in text
    values, indices = _compiled(text)(x)
    want_v, want_i = (np.asarray(a) for a in jax.jit(fn)(x))
    np.testing.assert_array_equal(np.asarray(indices), want_i)
    np.testing.assert_array_equal(np.asarray(values), want_v)


def test_top_k_integers():
    """Integer operands compare as signed (unsigned for ui32), ties to the lower index."""
    fn = lambda v: lax.top_k(v, 4)  # noqa: E731
    for dtype in (np.int32, np.uint32):
        x = rng("topk-int", str(dtype)).integers(0, 6, (5, 9)).astype(dtype)
        if dtype == np.int32:
            x[0, :3] = [-(2**31), 2**31 - 1, -1]
        else:
            x[0, :2] = [2**32 - 1, 2**31]
        values, indices = _compiled(jax.jit(fn).lower(x).as_text())(x)
        want_v, want_i = (np.asarray(a) for a in jax.jit(fn)(x))
        np.testing.assert_array_equal(np.asarray(values), want_v)
        np.testing.assert_array_equal(np.asarray(indices), want_i)


def test_top_k_dynamic_rows():
    """`chlo.top_k` of a tensor<?x?xf32>, k static: compiled once, any shape."""
    text = """
func.func @main(%x: tensor<?x?xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>) {
  %v, %i = chlo.top_k(%x, k = 2) : tensor<?x?xf32> -> (tensor<?x2xf32>, tensor<?x2xi32>)
  return %v, %i : tensor<?x2xf32>, tensor<?x2xi32>
}
"""
    exe = _compiled(text)
    for shape in [(1, 2), (5, 3), (17, 40)]:
        x = rng("topk-dyn", shape).standard_normal(shape).astype(np.float32)
        values, indices = exe(x)
        want_v, want_i = (np.asarray(a) for a in jax.jit(lambda v: lax.top_k(v, 2))(x))
        np.testing.assert_array_equal(np.asarray(values), want_v)
        np.testing.assert_array_equal(np.asarray(indices), want_i)


# -- batch normalization (torch-mlir emits these for aten.batch_norm and its backward) --

_BN_EPS = 1e-3


def _bn_graphs(shape: str, feat: str, d: int) -> str:
    t, v = f"tensor<{shape}xf32>", f"tensor<{feat}xf32>"
    attrs = f"{{epsilon = {_BN_EPS} : f32, feature_index = {d} : i64}}"
    return f"""
func.func @main(%x: {t}, %scale: {v}, %offset: {v}, %mean: {v}, %var: {v}, %dy: {t})
    -> ({t}, {t}, {v}, {v}, {t}, {v}, {v}) {{
  %0 = "stablehlo.batch_norm_inference"(%x, %scale, %offset, %mean, %var) {attrs}
      : ({t}, {v}, {v}, {v}, {v}) -> {t}
  %1:3 = "stablehlo.batch_norm_training"(%x, %scale, %offset) {attrs}
      : ({t}, {v}, {v}) -> ({t}, {v}, {v})
  %2:3 = "stablehlo.batch_norm_grad"(%x, %scale, %mean, %var, %dy) {attrs}
      : ({t}, {v}, {v}, {v}, {t}) -> ({t}, {v}, {v})
  return %0, %1#0, %1#1, %1#2, %2#0, %2#1, %2#2 : {t}, {t}, {v}, {v}, {t}, {v}, {v}
}}
"""


def _bn_reference(x, scale, offset, mean, var, dy, d):
    """The three ops in float64 (XLA's definitions; the variance is biased)."""
    x, dy = x.astype(np.float64), dy.astype(np.float64)
    axes = tuple(i for i in range(x.ndim) if i != d)
    shape = [1] * x.ndim
    shape[d] = -1

    def per_feature(v):
        return v.astype(np.float64).reshape(shape)

    inference = (x - per_feature(mean)) / np.sqrt(per_feature(var) + _BN_EPS) * per_feature(
        scale
    ) + per_feature(offset)
    batch_mean = x.mean(axis=axes)
    batch_var = x.var(axis=axes)
    train = (x - per_feature(batch_mean)) / np.sqrt(per_feature(batch_var) + _BN_EPS) * per_feature(
        scale
    ) + per_feature(offset)
    n = x.size // x.shape[d]
    r = 1.0 / np.sqrt(per_feature(var) + _BN_EPS)
    xc = x - per_feature(mean)
    sum_dy = dy.sum(axis=axes)
    sum_dy_xc = (dy * xc).sum(axis=axes)
    grad_x = (
        per_feature(scale)
        * r
        * (dy - per_feature(sum_dy) / n - xc * r**2 * per_feature(sum_dy_xc) / n)
    )
    grad_scale = sum_dy_xc * r.reshape(-1)
    return [inference, train, batch_mean, batch_var, grad_x, grad_scale, sum_dy]


@pytest.mark.parametrize(
    "shape,feat,d,runs",
    [
        ("2x3x4x5", "3", 1, [(2, 3, 4, 5)]),
        ("?x?x?", "?", 2, [(1, 1, 1), (3, 5, 7), (16, 33, 8)]),
        ("?x4", "4", 1, [(1, 4), (9, 4)]),
    ],
)
def test_batch_norm_ops(shape, feat, d, runs):
    exe = _compiled(_bn_graphs(shape, feat, d))
    for dims in runs:
        gen = rng("bn", dims)
        c = dims[d]
        x = (gen.standard_normal(dims) * 3 + 1).astype(np.float32)
        dy = gen.standard_normal(dims).astype(np.float32)
        scale = gen.uniform(0.5, 2.0, c).astype(np.float32)
        offset = gen.standard_normal(c).astype(np.float32)
        mean = gen.standard_normal(c).astype(np.float32)
        var = gen.uniform(0.1, 4.0, c).astype(np.float32)
        got = exe(x, scale, offset, mean, var, dy)
        want = _bn_reference(x, scale, offset, mean, var, dy, d)
        names = [
            "inference",
            "output",
            "mean",
            "variance",
            "grad_operand",
            "grad_scale",
            "grad_offset",
        ]
        for name, g, w in zip(names, got, want, strict=True):
            g = np.asarray(g)
            assert g.shape == w.shape and g.dtype == np.float32, name
            np.testing.assert_allclose(
                g,
                w,
                rtol=1e-4,
                atol=1e-4 * max(1.0, float(np.abs(w).max())),
                err_msg=f"{name} {dims}",
            )


def test_zeta_and_polygamma():
    """`chlo.zeta` / `chlo.polygamma` (computed in f64): NaN and infinities
    where XLA has them (x < 1, poles at q = 0, -1, ..., n not a natural
    number), finite values within 2 f32 ulps of scipy's float64 ones."""
    scipy_special = pytest.importorskip("scipy.special")
    t = "tensor<?xf32>"
    exe = _compiled(f"""
func.func @main(%x: {t}, %q: {t}) -> ({t}, {t}) {{
  %0 = chlo.zeta %x, %q : {t}, {t} -> {t}
  %1 = chlo.polygamma %x, %q : {t}, {t} -> {t}
  return %0, %1 : {t}, {t}
}}
""")
    gen = rng("zeta", 0)
    edge_x = [1, 1.5, 2, 3, 4, 0.5, -1, 0, 2, 3, 2, 3, 2, np.nan, np.inf, 2, 1, 2, 4]
    edge_q = [1, 2, 0.5, 1, 3, 1, 1, 1, -1, -2, -1.5, -1.5, 0, 1, 1, np.inf, 0.5, 1e-3, 1e4]
    x = np.concatenate([edge_x, gen.integers(0, 12, 2000), gen.uniform(1.0, 30.0, 2000)])
    q = np.concatenate([edge_q, gen.uniform(0.05, 20.0, 4000)])
    x, q = x.astype(np.float32), q.astype(np.float32)
    got_z, got_p = (np.asarray(v) for v in exe(x, q))
    want_z = np.asarray(jax.jit(jax.scipy.special.zeta)(x, q))
    want_p = np.asarray(jax.jit(lax.polygamma)(x, q))
    x64, q64 = x.astype(np.float64), q.astype(np.float64)
    for name, got, want, truth in (
        ("zeta", got_z, want_z, scipy_special.zeta(x64, q64)),
        ("polygamma", got_p, want_p, scipy_special.polygamma(x64, q64)),
    ):
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{name} NaN")
        inf = np.isinf(want)
        np.testing.assert_array_equal(got[inf], want[inf], err_msg=f"{name} inf")
        ok = np.isfinite(want) & np.isfinite(truth) & (np.abs(truth) < 3e38)
        exact = truth[ok].astype(np.float32).astype(np.float64)
        tol = 2 * np.finfo(np.float32).eps * np.maximum(np.abs(exact), np.finfo(np.float32).tiny)
        bad = np.abs(got[ok] - exact) > tol
        assert not bad.any(), (
            f"{name}: x={x[ok][bad][:4]} q={q[ok][bad][:4]} got {got[ok][bad][:4]}"
        )


_F64_REFERENCES = {
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
}


@pytest.mark.parametrize("name", [*sorted(_F64_REFERENCES), "lgamma", "digamma"])
def test_f64_operands(name):
    """f64 operands are computed in f64 (what jax emits with jax_enable_x64):
    within a few f64 ulps of numpy / scipy (64 for the Lanczos sums)."""
    scipy_special = pytest.importorskip("scipy.special")
    ref = (
        _F64_REFERENCES.get(name)
        or {
            "lgamma": scipy_special.gammaln,
            "digamma": scipy_special.psi,
        }[name]
    )
    _, _, low, high = UNARY[name]
    x = _inputs(f"{name}-f64", 3001, low, high).astype(np.float64)
    x[:3] = [1e-300, -1e-300, 1e300]
    (got,) = _compiled(_unary_graph(f"chlo.{name}", "f64"))(x)
    got = np.asarray(got)
    with np.errstate(all="ignore"):
        want = ref(x)
    if name == "lgamma":  # gammaln is NaN-free; lgamma's poles are +inf
        want = np.where(np.isinf(x), np.inf, want)
    if name == "digamma":  # psi at the poles: NaN, as XLA
        want = np.where((x <= 0) & (x == np.floor(x)), np.nan, want)
    ulps = 64 if name in ("lgamma", "digamma") else 8
    finite = np.isfinite(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
    np.testing.assert_array_equal(got[np.isinf(want)], want[np.isinf(want)], err_msg=name)
    # the function's condition number |x f'(x) / f(x)| (a central difference
    # of the reference) scales the error any f64 evaluation makes: the
    # rounding of x + log(1/2) in cosh(88), of pi x next to digamma's poles
    h = 1e-6
    with np.errstate(all="ignore"):
        relative_slope = (ref(x * (1 + h)) / want - ref(x * (1 - h)) / want) / (2 * h)
        cond = np.nan_to_num(np.abs(x * relative_slope), nan=1.0, posinf=1.0)[finite]
    scale = np.maximum(np.abs(want[finite]), 1.0) * np.maximum(cond, 1.0)
    tol = ulps * np.finfo(np.float64).eps * scale
    bad = np.abs(got[finite] - want[finite]) > tol
    assert not bad.any(), (
        f"{name}: x={x[finite][bad][:4]} got {got[finite][bad][:4]} want {want[finite][bad][:4]}"
    )
