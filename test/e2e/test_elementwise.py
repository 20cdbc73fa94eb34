"""Every elementwise op, unary and binary, as a table: one dynamic-shape graph per op.

Each graph is compiled once (module-scoped, parametrized fixtures) and run at
1x1, odd and >1M-element shapes against numpy. Transcendental functions go
through disc-math-approximation's polynomials (or LLVM's libm calls), so those
rows state a looser rtol (<= 1e-4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from .conftest import check, compiled, rand, rng, run

SHAPES = [(1, 1), (3, 7), (17, 129), (1024, 1031)]
MLIR = {
    np.float32: "f32",
    np.float16: "f16",
    np.int32: "i32",
    np.int64: "i64",
    np.bool_: "i1",
    np.uint32: "ui32",
}


@dataclass(frozen=True)
class Case:
    op: str
    dtype: type
    ref: Callable[..., np.ndarray]
    low: float = -2.0
    high: float = 2.0
    rtol: float = 1e-5
    atol: float = 1e-6
    out: type | None = None  # result dtype if it differs

    @property
    def id(self) -> str:
        return f"{self.op}-{MLIR[self.dtype]}"


def _round_afz(x: np.ndarray) -> np.ndarray:
    return (np.sign(x) * np.floor(np.abs(x) + 0.5)).astype(x.dtype)


def _clz32(x: np.ndarray) -> np.ndarray:
    u = x.astype(np.int64) & 0xFFFFFFFF
    _, exp = np.frexp(u.astype(np.float64))
    return (32 - exp).astype(np.int32)


def _popcnt(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x.view(np.uint32)).astype(np.int32)


def _sign_f(x: np.ndarray) -> np.ndarray:
    return np.sign(x).astype(x.dtype)


UNARY = [
    Case("abs", np.float32, np.abs),
    Case("abs", np.int32, np.abs, -100, 100),
    # cbrt, trig, exp/log families: LLVM / polynomial approximations, rtol 1e-4.
    Case("cbrt", np.float32, np.cbrt, -8, 8, rtol=1e-4),
    Case("ceil", np.float32, np.ceil, -5, 5),
    Case("floor", np.float32, np.floor, -5, 5),
    Case("round_nearest_afz", np.float32, _round_afz, -5, 5),
    Case("round_nearest_even", np.float32, np.rint, -5, 5),
    Case("cosine", np.float32, np.cos, -4, 4, rtol=1e-4, atol=1e-5),
    Case("sine", np.float32, np.sin, -4, 4, rtol=1e-4, atol=1e-5),
    Case("tan", np.float32, np.tan, -1.2, 1.2, rtol=1e-4, atol=1e-5),
    Case("exponential", np.float32, np.exp, -5, 5, rtol=1e-4),
    Case("exponential_minus_one", np.float32, np.expm1, -2, 2, rtol=1e-4, atol=1e-6),
    Case("log", np.float32, np.log, 0.01, 10, rtol=1e-4, atol=1e-6),
    Case("log_plus_one", np.float32, np.log1p, -0.9, 5, rtol=1e-4, atol=1e-6),
    Case("logistic", np.float32, lambda x: 1 / (1 + np.exp(-x)), -8, 8, rtol=1e-4),
    Case("negate", np.float32, np.negative),
    Case("negate", np.int32, np.negative, -100, 100),
    Case("rsqrt", np.float32, lambda x: 1 / np.sqrt(x), 0.05, 10, rtol=1e-4),
    Case("sqrt", np.float32, np.sqrt, 0.0, 10),
    Case("tanh", np.float32, np.tanh, -5, 5, rtol=1e-4, atol=1e-6),
    Case("sign", np.float32, _sign_f),
    Case("sign", np.int32, np.sign, -3, 3),
    Case("not", np.int32, np.invert, -1000, 1000),
    Case("not", np.bool_, np.logical_not),
    Case("popcnt", np.int32, _popcnt, -(2**31), 2**31 - 1),
    Case("count_leading_zeros", np.int32, _clz32, -(2**31), 2**31 - 1),
]


def _unary_graph(c: Case) -> str:
    t = f"tensor<?x?x{MLIR[c.dtype]}>"
    return f"""
func.func @main(%arg0: {t}) -> {t} {{
  %0 = "mhlo.{c.op}"(%arg0) : ({t}) -> {t}
  return %0 : {t}
}}
"""


@pytest.fixture(scope="module", params=UNARY, ids=lambda c: c.id)
def unary(request):
    c = request.param
    return c, compiled(_unary_graph(c))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_unary(unary, shape):
    c, exe = unary
    x = rand(rng(c.id, shape), shape, c.dtype, c.low, c.high)
    (out,) = run(exe, x)
    check(out, c.ref(x), rtol=c.rtol, atol=c.atol)


def test_is_finite():
    t, p = "tensor<?xf32>", "tensor<?xi1>"
    exe = compiled(
        f"""
func.func @main(%arg0: {t}) -> {p} {{
  %0 = "mhlo.is_finite"(%arg0) : ({t}) -> {p}
  return %0 : {p}
}}
"""
    )
    for n in (1, 5, 1 << 20 | 3):
        x = rand(rng("is_finite", n), (n,), np.float32)
        x[:: max(n // 4, 1)] = np.inf
        x[1::7] = np.nan
        x[2::9] = -np.inf
        (out,) = run(exe, x)
        check(out, np.isfinite(x))


# ---------------------------------------------------------------------------
# Binary ops
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BinCase(Case):
    # rhs range when it differs from lhs (divisors away from zero, shift amounts)
    rlow: float | None = None
    rhigh: float | None = None
    rsign: bool = False  # random sign on rhs (with |rhs| in [rlow, rhigh))


def _trunc_div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    q = np.abs(a) // np.abs(b)
    return (q * np.sign(a) * np.sign(b)).astype(a.dtype)


def _int_pow(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """mlir-hlo's integer power: a negative exponent gives 1 for base 1, +-1 for -1, else 0."""
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    out = np.power(a64, np.maximum(b64, 0))
    negative = np.where(a64 == 1, 1, np.where(a64 == -1, np.where(b64 % 2 == 0, 1, -1), 0))
    return np.where(b64 < 0, negative, out).astype(a.dtype)


def _shr_logical(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.view(np.uint32) >> b.astype(np.uint32)).view(np.int32)


BINARY = [
    BinCase("add", np.float32, np.add),
    BinCase("subtract", np.float32, np.subtract),
    BinCase("multiply", np.float32, np.multiply),
    BinCase("divide", np.float32, np.divide, rlow=0.5, rhigh=2.0, rsign=True),
    BinCase("maximum", np.float32, np.maximum),
    BinCase("minimum", np.float32, np.minimum),
    # pow / atan2 are transcendental (libm or approximations): rtol 1e-4.
    BinCase("power", np.float32, np.power, 0.1, 3.0, rtol=1e-4, rlow=-2.0, rhigh=2.0),
    BinCase("atan2", np.float32, np.arctan2, rtol=1e-4, atol=1e-6),
    BinCase("remainder", np.float32, np.fmod, -10, 10, rlow=0.5, rhigh=3.0, rsign=True),
    BinCase("add", np.int32, np.add, -1000, 1000),
    BinCase("subtract", np.int32, np.subtract, -1000, 1000),
    BinCase("multiply", np.int32, np.multiply, -1000, 1000),
    BinCase("divide", np.int32, _trunc_div, -1000, 1000, rlow=1, rhigh=50, rsign=True),
    BinCase("remainder", np.int32, np.fmod, -1000, 1000, rlow=1, rhigh=50, rsign=True),
    BinCase("maximum", np.int32, np.maximum, -1000, 1000),
    BinCase("minimum", np.int32, np.minimum, -1000, 1000),
    BinCase("power", np.int32, _int_pow, -3, 4, rlow=-3, rhigh=7),
    BinCase("and", np.int32, np.bitwise_and, -(2**31), 2**31 - 1),
    BinCase("or", np.int32, np.bitwise_or, -(2**31), 2**31 - 1),
    BinCase("xor", np.int32, np.bitwise_xor, -(2**31), 2**31 - 1),
    BinCase("shift_left", np.int32, np.left_shift, -1000, 1000, rlow=0, rhigh=31),
    BinCase(
        "shift_right_arithmetic", np.int32, np.right_shift, -(2**31), 2**31 - 1, rlow=0, rhigh=31
    ),
    BinCase("shift_right_logical", np.int32, _shr_logical, -(2**31), 2**31 - 1, rlow=0, rhigh=31),
    BinCase("add", np.int64, np.add, -(2**40), 2**40),
    BinCase("multiply", np.int64, np.multiply, -(2**20), 2**20),
    BinCase("and", np.bool_, np.logical_and),
    BinCase("or", np.bool_, np.logical_or),
    BinCase("xor", np.bool_, np.logical_xor),
]


def _binary_graph(c: BinCase) -> str:
    t = f"tensor<?x?x{MLIR[c.dtype]}>"
    return f"""
func.func @main(%arg0: {t}, %arg1: {t}) -> {t} {{
  %0 = "mhlo.{c.op}"(%arg0, %arg1) : ({t}, {t}) -> {t}
  return %0 : {t}
}}
"""


@pytest.fixture(scope="module", params=BINARY, ids=lambda c: c.id)
def binary(request):
    c = request.param
    return c, compiled(_binary_graph(c))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_binary(binary, shape):
    c, exe = binary
    gen = rng(c.id, shape)
    a = rand(gen, shape, c.dtype, c.low, c.high)
    rlow = c.low if c.rlow is None else c.rlow
    rhigh = c.high if c.rhigh is None else c.rhigh
    b = rand(gen, shape, c.dtype, rlow, rhigh)
    if c.rsign:
        b = np.where(gen.random(shape) < 0.5, -b, b).astype(c.dtype)
    (out,) = run(exe, a, b)
    check(out, c.ref(a, b), rtol=c.rtol, atol=c.atol)


# ---------------------------------------------------------------------------
# compare / select / clamp
# ---------------------------------------------------------------------------

DIRECTIONS = {
    "EQ": np.equal,
    "NE": np.not_equal,
    "LT": np.less,
    "LE": np.less_equal,
    "GT": np.greater,
    "GE": np.greater_equal,
}
COMPARE = [(d, dt) for d in DIRECTIONS for dt in (np.float32, np.int32)]


def _compare_graph(direction: str, dtype: type) -> str:
    t = f"tensor<?x?x{MLIR[dtype]}>"
    p = "tensor<?x?xi1>"
    return f"""
func.func @main(%arg0: {t}, %arg1: {t}) -> {p} {{
  %0 = "mhlo.compare"(%arg0, %arg1) {{comparison_direction = #mhlo<comparison_direction {direction}>}} : ({t}, {t}) -> {p}
  return %0 : {p}
}}
"""


@pytest.fixture(scope="module", params=COMPARE, ids=lambda p: f"{p[0]}-{MLIR[p[1]]}")
def compare(request):
    direction, dtype = request.param
    return direction, dtype, compiled(_compare_graph(direction, dtype))


@pytest.mark.parametrize("shape", SHAPES[:3], ids=str)
def test_compare(compare, shape):
    direction, dtype, exe = compare
    gen = rng("compare", direction, shape)
    a = rand(gen, shape, dtype, -5, 5)
    b = rand(gen, shape, dtype, -5, 5)
    same = gen.random(shape) < 0.3  # equal elements too
    b = np.where(same, a, b).astype(dtype)
    (out,) = run(exe, a, b)
    check(out, DIRECTIONS[direction](a, b))


SELECT_GRAPH = """
func.func @main(%arg0: tensor<?x?x?xf32>, %arg1: tensor<?x?x?xf32>, %arg2: tensor<?x?x?xi32>) -> (tensor<?x?x?xf32>, tensor<?x?x?xi32>) {
  %0 = "mhlo.compare"(%arg0, %arg1) {comparison_direction = #mhlo<comparison_direction GT>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xi1>
  %1 = "mhlo.select"(%0, %arg0, %arg1) : (tensor<?x?x?xi1>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %2 = mhlo.negate %arg2 : tensor<?x?x?xi32>
  %3 = "mhlo.select"(%0, %arg2, %2) : (tensor<?x?x?xi1>, tensor<?x?x?xi32>, tensor<?x?x?xi32>) -> tensor<?x?x?xi32>
  return %1, %3 : tensor<?x?x?xf32>, tensor<?x?x?xi32>
}
"""


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 5), (64, 129, 130)], ids=str)
def test_compare_select(shape):
    exe = compiled(SELECT_GRAPH)
    gen = rng("select", shape)
    a, b = rand(gen, shape), rand(gen, shape)
    c = rand(gen, shape, np.int32, -100, 100)
    out_f, out_i = run(exe, a, b, c)
    check(out_f, np.where(a > b, a, b))
    check(out_i, np.where(a > b, c, -c))


CLAMP_GRAPH = """
func.func @main(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>, %arg2: tensor<?x?xf32>, %arg3: tensor<f32>, %arg4: tensor<f32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %0 = "mhlo.clamp"(%arg0, %arg1, %arg2) : (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "mhlo.clamp"(%arg3, %arg1, %arg4) : (tensor<f32>, tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}
"""


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_clamp(shape):
    exe = compiled(CLAMP_GRAPH)
    gen = rng("clamp", shape)
    lo = rand(gen, shape, np.float32, -2, 0)
    x = rand(gen, shape, np.float32, -3, 3)
    hi = rand(gen, shape, np.float32, 0, 2)
    slo, shi = np.float32(-0.5), np.float32(0.75)
    out, out_s = run(exe, lo, x, hi, np.array(slo), np.array(shi))
    check(out, np.minimum(np.maximum(x, lo), hi))
    check(out_s, np.clip(x, slo, shi))


# ---------------------------------------------------------------------------
# convert between f32 / f16 / i32 / i64 / i1
# ---------------------------------------------------------------------------

CONVERTS = [
    (np.float32, np.float16),
    (np.float16, np.float32),
    (np.float32, np.int32),
    (np.int32, np.float32),
    (np.float32, np.int64),
    (np.int64, np.float32),
    (np.int32, np.int64),
    (np.int64, np.int32),
    (np.bool_, np.float32),
    (np.float32, np.bool_),
    (np.int32, np.bool_),
    (np.bool_, np.int32),
    (np.float16, np.int32),
]


def _convert_graph(src: type, dst: type) -> str:
    s, d = f"tensor<?x?x{MLIR[src]}>", f"tensor<?x?x{MLIR[dst]}>"
    return f"""
func.func @main(%arg0: {s}) -> {d} {{
  %0 = "mhlo.convert"(%arg0) : ({s}) -> {d}
  return %0 : {d}
}}
"""


def _convert_ref(x: np.ndarray, dst: type) -> np.ndarray:
    if dst is np.bool_:
        return x != 0
    if np.dtype(dst).kind in "iu" and x.dtype.kind == "f":
        return np.trunc(x).astype(dst)
    return x.astype(dst)


@pytest.fixture(scope="module", params=CONVERTS, ids=lambda p: f"{MLIR[p[0]]}-to-{MLIR[p[1]]}")
def convert(request):
    src, dst = request.param
    return src, dst, compiled(_convert_graph(src, dst))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_convert(convert, shape):
    src, dst, exe = convert
    gen = rng("convert", MLIR[src], MLIR[dst], shape)
    if src is np.int64:
        x = rand(gen, shape, src, -(2**33), 2**33)
        if dst is np.float32:
            x = x >> 12  # exactly representable magnitudes are not needed; keep rounding tame
    else:
        x = rand(gen, shape, src, -300, 300)
    if np.dtype(src).kind == "f":
        x[..., ::3] = 0  # some exact zeros (bool conversions)
    (out,) = run(exe, x)
    check(out, _convert_ref(x, dst))


# StableHLO's negate takes unsigned integers too (jnp.negative of a uint8
# array): the result wraps modulo 2^n.
NEGATE_UNSIGNED = """
func.func @main(%a: tensor<?xui8>, %b: tensor<?xui32>) -> (tensor<?xui8>, tensor<?xui32>) {
  %0 = stablehlo.negate %a : tensor<?xui8>
  %1 = stablehlo.negate %b : tensor<?xui32>
  return %0, %1 : tensor<?xui8>, tensor<?xui32>
}
"""


@pytest.mark.parametrize("n", [1, 4, 37], ids=str)
def test_negate_unsigned(n: int) -> None:
    gen = rng("negate_unsigned", n)
    a = gen.integers(0, 256, n).astype(np.uint8)
    b = gen.integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    got_a, got_b = run(compiled(NEGATE_UNSIGNED), a, b)
    check(got_a, (-a.astype(np.int64)).astype(np.uint8))
    check(got_b, (-b.astype(np.int64)).astype(np.uint32))
