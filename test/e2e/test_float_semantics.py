"""Floating-point semantics XLA defines exactly, and ops jax emits that must compile.

* `atan2` follows C / IEEE 754 (what XLA computes): signed zeros, infinities
  and NaNs give the special values C lists, and finite pairs of any magnitude
  are accurate to a few f32 ulps;
* float `remainder` is C's `fmod`, exact by definition: `fmod(1e20, 3) = 2`
  (a quotient beyond the mantissa), on f32, f16, bf16 and f64;
* `mhlo.erf` (today's mhlo) parses and computes erf;
* a `dot_general` contracting no dimension (an outer product) compiles, and
  one of f16 operands with an f32 result runs;
* reduce bodies of several ops (log-add-exp, a sum of absolute values) apply
  the body to (accumulator, element) pairs, row and column reductions alike;
* a row reduction over a static length-1 axis fused with the elementwise ops
  after it (a kStitch fusion: RMS norm, softmax) computes each row.

Graphs are module-level MHLO strings, so the CUDA compilation test
(`cuda_graphs.py`) also compiles them for the GPU; the bf16 one, which the
cuda target does not take yet, is built inside its test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from .conftest import check, compiled, rand, rng, run
from .test_bf16 import to_bf16, to_f32

ATAN2 = """
func.func @main(%y: tensor<?xf32>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mhlo.atan2 %y, %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""

ATAN2_F16 = """
func.func @main(%y: tensor<?xf16>, %x: tensor<?xf16>) -> tensor<?xf16> {
  %0 = mhlo.atan2 %y, %x : tensor<?xf16>
  return %0 : tensor<?xf16>
}
"""


def _remainder_graph(element: str) -> str:
    return f"""
func.func @main(%a: tensor<?x{element}>, %b: tensor<?x{element}>) -> tensor<?x{element}> {{
  %0 = mhlo.remainder %a, %b : tensor<?x{element}>
  return %0 : tensor<?x{element}>
}}
"""


REMAINDER_F32 = _remainder_graph("f32")
REMAINDER_F16 = _remainder_graph("f16")
REMAINDER_F64 = _remainder_graph("f64")

POWER_F16 = """
func.func @main(%a: tensor<?xf16>, %b: tensor<?xf16>) -> tensor<?xf16> {
  %0 = mhlo.power %a, %b : tensor<?xf16>
  return %0 : tensor<?xf16>
}
"""

ERF = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = mhlo.erf %x : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""

OUTER = """
func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<>} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""

BATCHED_OUTER = """
func.func @main(%a: tensor<?x3xf32>, %b: tensor<?x4xf32>) -> tensor<?x3x4xf32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0]>} : (tensor<?x3xf32>, tensor<?x4xf32>) -> tensor<?x3x4xf32>
  return %0 : tensor<?x3x4xf32>
}
"""

#: f16 operands, f32 result (jax's `preferred_element_type=jnp.float32`)
MIXED_PRECISION_DOT = """
func.func @main(%a: tensor<?x5xf16>, %b: tensor<5x4xf16>) -> tensor<?x4xf32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x5xf16>, tensor<5x4xf16>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
"""


def _logaddexp_graph(dim: int) -> str:
    return f"""
func.func @main(%a: tensor<?x?xf32>) -> tensor<?xf32> {{
  %init = mhlo.constant dense<0xFF800000> : tensor<f32>
  %0 = mhlo.reduce(%a init: %init) across dimensions = [{dim}] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
   reducer(%x: tensor<f32>, %y: tensor<f32>) {{
    %m = mhlo.maximum %x, %y : tensor<f32>
    %n = mhlo.minimum %x, %y : tensor<f32>
    %d = mhlo.subtract %n, %m : tensor<f32>
    %e = mhlo.exponential %d : tensor<f32>
    %l = mhlo.log_plus_one %e : tensor<f32>
    %s = mhlo.add %m, %l : tensor<f32>
    mhlo.return %s : tensor<f32>
  }}
  return %0 : tensor<?xf32>
}}
"""


LOGADDEXP_ROWS = _logaddexp_graph(1)
LOGADDEXP_COLUMNS = _logaddexp_graph(0)

SUM_ABS = """
func.func @main(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %init = mhlo.constant dense<0.0> : tensor<f32>
  %0 = mhlo.reduce(%a init: %init) across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
   reducer(%x: tensor<f32>, %y: tensor<f32>) {
    %m = mhlo.abs %y : tensor<f32>
    %s = mhlo.add %x, %m : tensor<f32>
    mhlo.return %s : tensor<f32>
  }
  return %0 : tensor<?xf32>
}
"""

#: x * rsqrt(mean(x * x, axis=-1, keepdims) + eps) and exp(x - max(x, axis=-1))
#: * 2 over a static length-1 axis: one kStitch fusion each.
UNIT_ROW_RMS_NORM = """
func.func @main(%x: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %zero = mhlo.constant dense<0.0> : tensor<f32>
  %sq = mhlo.multiply %x, %x : tensor<5x1xf32>
  %sum = mhlo.reduce(%sq init: %zero) applies mhlo.add across dimensions = [1] : (tensor<5x1xf32>, tensor<f32>) -> tensor<5xf32>
  %b = "mhlo.broadcast_in_dim"(%sum) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<5xf32>) -> tensor<5x1xf32>
  %eps = mhlo.constant dense<1.0e-6> : tensor<5x1xf32>
  %v = mhlo.add %b, %eps : tensor<5x1xf32>
  %r = mhlo.rsqrt %v : tensor<5x1xf32>
  %y = mhlo.multiply %x, %r : tensor<5x1xf32>
  return %y : tensor<5x1xf32>
}
"""

UNIT_ROW_EXP = """
func.func @main(%x: tensor<5x1xf32>) -> tensor<5x1xf32> {
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %max = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<5x1xf32>, tensor<f32>) -> tensor<5xf32>
  %b = "mhlo.broadcast_in_dim"(%max) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<5xf32>) -> tensor<5x1xf32>
  %d = mhlo.subtract %x, %b : tensor<5x1xf32>
  %e = mhlo.exponential %d : tensor<5x1xf32>
  %two = mhlo.constant dense<2.0> : tensor<5x1xf32>
  %y = mhlo.multiply %e, %two : tensor<5x1xf32>
  return %y : tensor<5x1xf32>
}
"""

_INF, _NAN = math.inf, math.nan
#: (y, x, atan2(y, x)) as C's atan2 defines them
ATAN2_SPECIAL = [
    (0.0, 0.0, 0.0),
    (-0.0, 0.0, -0.0),
    (0.0, -0.0, math.pi),
    (-0.0, -0.0, -math.pi),
    (_INF, _INF, math.pi / 4),
    (-_INF, _INF, -math.pi / 4),
    (_INF, -_INF, 3 * math.pi / 4),
    (-_INF, -_INF, -3 * math.pi / 4),
    (1.0, _INF, 0.0),
    (-1.0, _INF, -0.0),
    (1.0, -_INF, math.pi),
    (-1.0, -_INF, -math.pi),
    (_INF, 3.0, math.pi / 2),
    (-_INF, -3.0, -math.pi / 2),
    (2.0, 0.0, math.pi / 2),
    (-2.0, -0.0, -math.pi / 2),
    (0.0, 1.0, 0.0),
    (-0.0, -1.0, -math.pi),
    (_NAN, 1.0, _NAN),
    (1.0, _NAN, _NAN),
]


def _same_bits_or_nan(actual: np.ndarray, expected: np.ndarray) -> None:
    """Equal values with equal signs (signed zeros), NaN where NaN is expected."""
    nan = np.isnan(expected)
    assert np.array_equal(np.isnan(actual), nan), (actual, expected)
    np.testing.assert_array_equal(actual[~nan], expected[~nan])
    np.testing.assert_array_equal(np.signbit(actual[~nan]), np.signbit(expected[~nan]))


def test_atan2_special_values() -> None:
    y, x, expected = (np.array(c, np.float32) for c in zip(*ATAN2_SPECIAL, strict=True))
    (out,) = run(compiled(ATAN2), y, x)
    _same_bits_or_nan(out, expected)


def test_atan2_any_magnitude() -> None:
    g = rng("atan2-magnitude")
    n = 200_000
    y = (g.standard_normal(n) * 10.0 ** g.uniform(-30, 30, n)).astype(np.float32)
    x = (g.standard_normal(n) * 10.0 ** g.uniform(-30, 30, n)).astype(np.float32)
    y[:1000] = x[:1000] * g.uniform(0.99, 1.01, 1000).astype(np.float32)  # near the diagonal
    (out,) = run(compiled(ATAN2), y, x)
    expected = np.arctan2(y.astype(np.float64), x.astype(np.float64)).astype(np.float32)
    # the polynomial is within a few f32 ulps of the correctly rounded value
    check(out, expected, rtol=1e-6, atol=0.0)


def test_atan2_f16() -> None:
    g = rng("atan2-f16")
    y, x = rand(g, (1000,), np.float16, -8, 8), rand(g, (1000,), np.float16, -8, 8)
    y[:4], x[:4] = [0.0, -0.0, np.inf, -np.inf], [-0.0, -0.0, np.inf, -np.inf]
    (out,) = run(compiled(ATAN2_F16), y, x)
    expected = np.arctan2(y.astype(np.float32), x.astype(np.float32)).astype(np.float16)
    check(out.astype(np.float32), expected.astype(np.float32), rtol=1e-3 / 10, atol=1e-3)


def _remainder_operands(dtype: type, n: int) -> tuple[np.ndarray, np.ndarray]:
    g = rng("remainder", np.dtype(dtype).name)
    big = 30 if dtype in (np.float32, np.float64) else 4
    a = g.standard_normal(n) * 10.0 ** g.uniform(-3, big, n)
    b = g.standard_normal(n) * 10.0 ** g.uniform(-3, 2, n)
    fixed_a = [1e20 if big == 30 else 6e4, 3e5 if big == 30 else 3e3, 5.5, -7.25, 0.0, -0.0, np.inf]
    fixed_b = [3.0, 0.1, 2.0, 2.0, 1.0, 1.0, 2.0]
    a[: len(fixed_a)], b[: len(fixed_b)] = fixed_a, fixed_b
    b[len(fixed_b)] = 0.0  # fmod(x, 0) is NaN
    return a, b


@pytest.mark.parametrize(
    ("graph", "dtype"),
    [(REMAINDER_F32, np.float32), (REMAINDER_F16, np.float16), (REMAINDER_F64, np.float64)],
    ids=["f32", "f16", "f64"],
)
def test_remainder_is_exact_fmod(graph: str, dtype: type) -> None:
    a, b = (v.astype(dtype) for v in _remainder_operands(dtype, 20_000))
    (out,) = run(compiled(graph), a, b)
    with np.errstate(invalid="ignore"):  # fmod(inf, y) and fmod(x, 0) are NaN
        expected = np.fmod(a, b)
    _same_bits_or_nan(out, expected)


def test_remainder_bf16_is_exact_fmod() -> None:
    a, b = (to_bf16(v.astype(np.float32)) for v in _remainder_operands(np.float32, 20_000))
    (out,) = run(compiled(_remainder_graph("bf16")), a, b)  # CPU only: not module-level
    with np.errstate(invalid="ignore"):  # exact in f32, and fits bf16
        expected = to_bf16(np.fmod(to_f32(a), to_f32(b)))
    _same_bits_or_nan(to_f32(out), to_f32(expected))


def test_remainder_of_huge_quotients() -> None:
    a = np.array([1e20, 3e5], np.float32)
    b = np.array([3.0, 0.1], np.float32)
    (out,) = run(compiled(REMAINDER_F32), a, b)
    assert out[0] == 2.0
    assert out[1] == np.fmod(np.float32(3e5), np.float32(0.1))  # 0.0955...


def test_power_f16() -> None:
    g = rng("power-f16")
    a, b = rand(g, (777,), np.float16, 0.1, 3.0), rand(g, (777,), np.float16, -2.0, 2.0)
    (out,) = run(compiled(POWER_F16), a, b)
    expected = np.power(a.astype(np.float32), b.astype(np.float32)).astype(np.float16)
    check(out.astype(np.float32), expected.astype(np.float32), rtol=1e-4, atol=2e-3)


def test_mhlo_erf() -> None:
    x = rand(rng("erf"), (17, 129), np.float32, -5.0, 5.0)
    (out,) = run(compiled(ERF), x)
    expected = np.vectorize(math.erf)(x.astype(np.float64)).astype(np.float32)
    check(out, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("m", "n"), [(1, 1), (5, 7), (300, 129)])
def test_outer_product(m: int, n: int) -> None:
    g = rng("outer", m, n)
    a, b = rand(g, (m,)), rand(g, (n,))
    (out,) = run(compiled(OUTER), a, b)
    check(out, np.outer(a, b))


def test_batched_outer_product() -> None:
    g = rng("batched-outer")
    a, b = rand(g, (6, 3)), rand(g, (6, 4))
    (out,) = run(compiled(BATCHED_OUTER), a, b)
    check(out, np.einsum("bi,bj->bij", a, b))


def test_outer_product_from_jax() -> None:
    jnp = pytest.importorskip("jax.numpy")
    import disc_ir.jax as dj

    g = rng("outer-jax")
    a, b = rand(g, (5,)), rand(g, (7,))
    exe = dj.compile(jnp.outer, a, b, dynamic_axes={0: {0: "m"}, 1: {0: "n"}})
    check(np.asarray(exe(a[:3], b)), np.outer(a[:3], b))
    exe = dj.compile(lambda x, y: jnp.einsum("i,j->ij", x, y), a, b, dynamic_axes={0: (0,)})
    check(np.asarray(exe(a, b)), np.outer(a, b))


def test_mixed_precision_dot() -> None:
    g = rng("mixed-precision-dot")
    a, b = rand(g, (7, 5), np.float16), rand(g, (5, 4), np.float16)
    (out,) = run(compiled(MIXED_PRECISION_DOT), a, b)
    check(out, a.astype(np.float32) @ b.astype(np.float32))


@pytest.mark.parametrize(("graph", "dim"), [(LOGADDEXP_ROWS, 1), (LOGADDEXP_COLUMNS, 0)])
@pytest.mark.parametrize("shape", [(1, 1), (7, 9), (33, 1025)])
def test_logaddexp_reduce(graph: str, dim: int, shape: tuple[int, int]) -> None:
    a = rand(rng("logaddexp", dim, shape), shape, low=-4.0, high=4.0)
    (out,) = run(compiled(graph), a)
    expected = np.logaddexp.reduce(a.astype(np.float64), axis=dim).astype(np.float32)
    # log1p / exp polynomials over up to 1025 steps
    check(out, expected, rtol=1e-5, atol=1e-5)


def test_sum_of_abs_reduce() -> None:
    a = rand(rng("sum-abs"), (17, 129))
    (out,) = run(compiled(SUM_ABS), a)
    check(out, np.abs(a).sum(axis=1), rtol=1e-5, atol=1e-5)


def test_unit_row_stitch_fusions() -> None:
    x = rand(rng("unit-rows"), (5, 1))
    (rms,) = run(compiled(UNIT_ROW_RMS_NORM), x)
    check(rms, x / np.sqrt(x * x + np.float32(1e-6)), rtol=1e-5)
    (exp,) = run(compiled(UNIT_ROW_EXP), x)
    check(exp, np.full_like(x, 2.0))


def test_unit_row_softmax_and_rms_norm_from_jax() -> None:
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    import disc_ir.jax as dj

    x = rand(rng("unit-rows-jax"), (6, 1))

    def rms_norm(v):  # noqa: ANN001, ANN202 - a jax function
        return v * jax.lax.rsqrt(jnp.mean(v * v, axis=-1, keepdims=True) + 1e-6)

    for fn in (rms_norm, lambda v: jax.nn.softmax(v, axis=-1)):
        for dynamic in (None, {0: (0,)}):
            exe = dj.compile(fn, x, dynamic_axes=dynamic)
            check(np.asarray(exe(x)), np.asarray(fn(x)), rtol=1e-5)


def test_gpu_fmod_expansion_is_exact(monkeypatch: pytest.MonkeyPatch) -> None:
    """The GPU's f32 `frem` expansion (`conversion/gpu_math.py`), run here by
    applying it to the CPU kernels before their LLVM lowering: bit-exact fmod."""
    from xdsl.pattern_rewriter import PatternRewriteWalker

    import disc_ir
    import disc_ir.transforms.disc_to_llvm as disc_to_llvm
    from disc_ir.conversion.dispatch import OpDispatch
    from disc_ir.conversion.gpu_math import HANDLERS

    lower = disc_to_llvm.convert_to_llvm
    expanded: list[tuple[int, int]] = []  # llvm.frem ops before, after

    def expand_then_lower(module, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        before = sum(op.name == "llvm.frem" for op in module.walk())
        frem = OpDispatch({"llvm.frem": HANDLERS["llvm.frem"]})
        PatternRewriteWalker(frem, apply_recursively=True).rewrite_module(module)
        expanded.append((before, sum(op.name == "llvm.frem" for op in module.walk())))
        return lower(module, *args, **kwargs)

    monkeypatch.setattr(disc_to_llvm, "convert_to_llvm", expand_then_lower)
    exe = disc_ir.compile(REMAINDER_F32, target="cpu", keep_ir=False)
    assert sum(before for before, _ in expanded) > 0
    assert all(after == 0 for _, after in expanded)
    g = rng("gpu-fmod")
    n = 100_000
    with np.errstate(over="ignore"):
        a = (g.standard_normal(n) * 10.0 ** g.uniform(-45, 38.5, n)).astype(np.float32)
        b = (g.standard_normal(n) * 10.0 ** g.uniform(-45, 38.5, n)).astype(np.float32)
    special = [(0.0, 1.0), (-0.0, 1.0), (_INF, 2.0), (_NAN, 1.0), (1.0, 0.0), (1.0, _NAN)]
    special += [(5.0, _INF), (-5.0, -_INF), (1e20, 3.0), (3e5, 0.1), (3.4e38, 1.4e-45)]
    a[: len(special)], b[: len(special)] = zip(*special, strict=True)
    (out,) = run(exe, a, b)
    with np.errstate(invalid="ignore"):
        expected = np.fmod(a, b)
    _same_bits_or_nan(out, expected)


def test_cumulative_reductions_along_dynamic_axes() -> None:
    """jax's cumulative reductions along a shape-polymorphic axis
    (`@stablehlo.dynamic_reduce_window`), forward and reversed, on every axis."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    import disc_ir.jax as dj

    cases = {
        "cumsum0": lambda v: jnp.cumsum(v, axis=0),
        "cumsum2": lambda v: jnp.cumsum(v, axis=2),
        "cumsum1_reversed": lambda v: jax.lax.cumsum(v, axis=1, reverse=True),
        "cumprod1": lambda v: jnp.cumprod(v, axis=1),
        "cummax1_reversed": lambda v: jax.lax.cummax(v, axis=1, reverse=True),
        "cumlogsumexp2": lambda v: jax.lax.cumlogsumexp(v, axis=2),
    }
    example = rand(rng("cumulative"), (2, 3, 4))
    for name, fn in cases.items():
        exe = dj.compile(fn, example, dynamic_axes={0: (0, 1, 2)})
        for shape in [(1, 1, 1), (3, 17, 5), (2, 4, 129)]:
            x = rand(rng("cumulative", name, shape), shape, low=-1.0, high=1.0)
            # cumsum / cumlogsumexp add up to 129 terms in another order
            check(np.asarray(exe(x)), np.asarray(fn(x)), rtol=1e-5, atol=1e-5)


def test_cumulative_reductions_along_long_dynamic_axes() -> None:
    """A cumulative reduction along a dynamic axis of 150,000 elements (and
    lengths at block edges) runs in memory linear in the axis: a scan over an
    N x N broadcast would allocate 180 GB here."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    import disc_ir.jax as dj

    cases = {
        "cumsum_i32": (lambda v: jnp.cumsum(v, axis=1), np.int32),
        "cumsum1_reversed": (lambda v: jax.lax.cumsum(v, axis=1, reverse=True), np.float32),
        "cummax0": (lambda v: jax.lax.cummax(v, axis=0), np.float32),
        "cummin1_reversed": (lambda v: jax.lax.cummin(v, axis=1, reverse=True), np.float32),
    }
    for name, (fn, dtype) in cases.items():
        exe = dj.compile(fn, np.zeros((2, 3, 2), dtype), dynamic_axes={0: (0, 1)})
        for shape in [(1, 150_000, 2), (150_000, 1, 2), (3, 16_385, 2), (2, 128, 2), (129, 2, 2)]:
            g = rng("cumulative-long", name, shape)
            if dtype == np.int32:
                x = g.integers(-(2**31), 2**31 - 1, shape, dtype=np.int32)  # wraps
                np.testing.assert_array_equal(np.asarray(exe(x)), np.asarray(fn(x)))
            else:
                x = rand(g, shape, low=-1.0, high=1.0)
                check(np.asarray(exe(x)), np.asarray(fn(x)), rtol=1e-5, atol=5e-4)
