"""mhlo expansions of chlo's special functions and of the newer elementwise ops.

Each function takes an `MhloBuilder` and the operand(s) and returns the
value of an mhlo expression computing the op elementwise, or None when the
element type is one the expansion does not cover (the op is then left in
place and the compiler names it as unsupported). The formulas are those of
mlir-hlo's `chlo-legalize-to-hlo` (and XLA's elemental IR emitter for
`reduce_precision` and `next_after`):

* `asin(x) = 2 atan2(x, 1 + sqrt(1 - x^2))`, `acos(x) = 2 atan2(sqrt(1 -
  x^2), 1 + x)` (pi at -1), `atan(x) = atan2(x, 1)`;
* `sinh` / `cosh` as `exp(x + log 1/2) -/+ exp(-x + log 1/2)` (no early
  overflow), `sinh` through `expm1` for |x| < 1;
* `asinh`, `acosh` through `log1p` near 0 / 1 and `log 2 + log |x|` past
  sqrt(max); `atanh(x) = (log1p(x) - log1p(-x)) / 2`;
* `bessel_i1e`: Chebyshev series of I1(x) e^-|x| on |x| <= 8 and beyond;
* `lgamma` and `digamma`: the Lanczos approximation (g = 7, 8 terms) with
  the reflection formula below 1/2; `lgamma(+-inf) = +inf`, `digamma` of a
  non-positive integer is NaN;
* `erf_inv`: Giles' single-precision polynomials ("Approximating the
  erfinv function", GPU Computing Gems), +-inf at +-1;
* `next_after(x, y)`: one step of the integer representation towards `y`;
* `reduce_precision(x, e, m)`: round the mantissa to `m` bits (nearest,
  ties to even), then flush the exponent to the `e`-bit range (overflow to
  +-inf, underflow to +-0); NaN stays NaN.

f16 / bf16 operands of the transcendental expansions are computed in f32
and rounded back; f64 ones in f64 where the formula holds that precision
(not `erf_inv` and `bessel_i1e`, whose polynomials are f32-accurate: f64
operands of those are left, and refused); the bit-level ones work on every
float width.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint

from disc_ir.dialects.hlo_attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
)
from disc_ir.ir.mhlo_builder import MhloBuilder

Expansion = Callable[[MhloBuilder, SSAValue], SSAValue | None]

_F32_MAX = 3.4028234663852886e38
_LOG_HALF = math.log(0.5)
_LOG_TWO = math.log(2.0)

_LANCZOS_G = 7.0
_LANCZOS_BASE = 0.99999999999980993227684700473478
_LANCZOS = (
    676.520368121885098567009190444019,
    -1259.13921672240287047156078755283,
    771.3234287776530788486528258894,
    -176.61502916214059906584551354,
    12.507343278686904814458936853,
    -0.13857109526572011689554707,
    9.984369578019570859563e-6,
    1.50563273514931155834e-7,
)

# Giles' erfinv coefficients, highest power first (w < 5, then w >= 5).
_ERF_INV_SMALL = (
    2.81022636e-08,
    3.43273939e-07,
    -3.5233877e-06,
    -4.39150654e-06,
    0.00021858087,
    -0.00125372503,
    -0.00417768164,
    0.246640727,
    1.50140941,
)
_ERF_INV_LARGE = (
    -0.000200214257,
    0.000100950558,
    0.00134934322,
    -0.00367342844,
    0.00573950773,
    -0.0076224613,
    0.00943887047,
    1.00167406,
    2.83297682,
)


def with_f32_or_f64(fn: Callable[[MhloBuilder, SSAValue], SSAValue]) -> Expansion:
    """`fn` (an expansion accurate in the operand's own precision) applied to
    f64 operands as they are, to the others as `with_f32` does."""
    in_f32 = with_f32(fn)

    def apply(b: MhloBuilder, x: SSAValue) -> SSAValue | None:
        if isinstance(_element(x), Float64Type):
            return fn(b, x)
        return in_f32(b, x)

    return apply


def with_f32(fn: Callable[[MhloBuilder, SSAValue], SSAValue]) -> Expansion:
    """`fn` (an f32 expansion) applied to f32 operands, and to f16 / bf16
    ones upcast to f32 and rounded back; None for other element types."""

    def apply(b: MhloBuilder, x: SSAValue) -> SSAValue | None:
        t = x.type
        assert isinstance(t, TensorType)
        elem = t.get_element_type()
        if isinstance(elem, Float32Type):
            return fn(b, x)
        if isinstance(elem, Float16Type | BFloat16Type):
            wide = b.op("mhlo.convert", [x], TensorType(Float32Type(), t.get_shape()))
            return b.op("mhlo.convert", [fn(b, wide)], t)
        return None

    return apply


def _un(b: MhloBuilder, name: str, x: SSAValue) -> SSAValue:
    return b.op(f"mhlo.{name}", [x])


def asin(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """asin(x) = 2 atan2(x, 1 + sqrt(1 - x^2)) (NaN past |x| > 1)."""
    one = b.const(1.0, x)
    root = _un(b, "sqrt", b.binary("subtract", one, b.binary("multiply", x, x)))
    half = b.binary("atan2", x, b.binary("add", one, root))
    return b.binary("multiply", b.const(2.0, x), half)


def acos(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """acos(x) = 2 atan2(sqrt(1 - x^2), 1 + x), pi at x = -1."""
    one = b.const(1.0, x)
    root = _un(b, "sqrt", b.binary("subtract", one, b.binary("multiply", x, x)))
    half = b.binary("atan2", root, b.binary("add", one, x))
    value = b.binary("multiply", b.const(2.0, x), half)
    at_minus_one = b.compare("EQ", x, b.const(-1.0, x))
    return b.select(at_minus_one, b.const(math.pi, x), value)


def atan(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """atan(x) = atan2(x, 1)."""
    return b.binary("atan2", x, b.const(1.0, x))


def _exp_halves(b: MhloBuilder, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    log_half = b.const(_LOG_HALF, x)
    up = _un(b, "exponential", b.binary("add", x, log_half))
    down = _un(b, "exponential", b.binary("subtract", log_half, x))
    return up, down


def sinh(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """sinh: e^x/2 - e^-x/2 for |x| >= 1, (e + e / (e + 1)) / 2 with e =
    expm1(x) below (no cancellation near 0)."""
    up, down = _exp_halves(b, x)
    large = b.binary("subtract", up, down)
    e = _un(b, "exponential_minus_one", x)
    one = b.const(1.0, x)
    small = b.binary(
        "multiply",
        b.const(0.5, x),
        b.binary("add", e, b.binary("divide", e, b.binary("add", e, one))),
    )
    lt_one = b.compare("LT", _un(b, "abs", x), one)
    return b.select(lt_one, small, large)


def cosh(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """cosh(x) = e^x/2 + e^-x/2."""
    up, down = _exp_halves(b, x)
    return b.binary("add", up, down)


def asinh(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """asinh(x) = sign(x) log(|x| + sqrt(x^2 + 1)): log1p(a + a^2 / (1 +
    sqrt(1 + a^2))) for a = |x| <= 1, log 2 + log a past sqrt(max)."""
    a = _un(b, "abs", x)
    one = b.const(1.0, x)
    a2 = b.binary("multiply", a, a)
    root = _un(b, "sqrt", b.binary("add", a2, one))
    mid = _un(b, "log", b.binary("add", a, root))
    small = _un(
        b, "log_plus_one", b.binary("add", a, b.binary("divide", a2, b.binary("add", one, root)))
    )
    large = b.binary("add", b.const(_LOG_TWO, x), _un(b, "log", a))
    value = b.select(b.compare("LE", a, one), small, mid)
    value = b.select(b.compare("GE", a, b.const(math.sqrt(_F32_MAX), x)), large, value)
    signed = b.select(b.compare("LT", x, b.const(0.0, x)), _un(b, "negate", value), value)
    # NaN and +-0 pass through unchanged
    return b.select(b.compare("EQ", a, b.const(0.0, x)), x, signed)


def acosh(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """acosh(x) = log1p(y + sqrt(y (y + 2))), y = x - 1; log 2 + log x past
    sqrt(max); NaN below 1."""
    one = b.const(1.0, x)
    y = b.binary("subtract", x, one)
    root = _un(b, "sqrt", b.binary("multiply", y, b.binary("add", y, b.const(2.0, x))))
    value = _un(b, "log_plus_one", b.binary("add", y, root))
    large = b.binary("add", b.const(_LOG_TWO, x), _un(b, "log", x))
    value = b.select(b.compare("GE", x, b.const(math.sqrt(_F32_MAX), x)), large, value)
    return b.select(b.compare("LT", x, one), b.const(math.nan, x), value)


def atanh(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """atanh(x) = (log1p(x) - log1p(-x)) / 2; NaN past |x| > 1."""
    diff = b.binary(
        "subtract", _un(b, "log_plus_one", x), _un(b, "log_plus_one", _un(b, "negate", x))
    )
    value = b.binary("multiply", b.const(0.5, x), diff)
    outside = b.compare("GT", _un(b, "abs", x), b.const(1.0, x))
    return b.select(outside, b.const(math.nan, x), value)


def _reflected(b: MhloBuilder, x: SSAValue) -> tuple[SSAValue, SSAValue]:
    """(x < 1/2, z): z = -x when reflecting, x - 1 otherwise."""
    reflect = b.compare("LT", x, b.const(0.5, x))
    z = b.select(reflect, _un(b, "negate", x), b.binary("subtract", x, b.const(1.0, x)))
    return reflect, z


def _log_t(b: MhloBuilder, z: SSAValue) -> SSAValue:
    """log(z + g + 1/2), as log(g + 1/2) + log1p(z / (g + 1/2))."""
    gh = _LANCZOS_G + 0.5
    return b.binary(
        "add",
        b.const(math.log(gh), z),
        _un(b, "log_plus_one", b.binary("divide", z, b.const(gh, z))),
    )


def lgamma(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """log |Gamma(x)| (Lanczos; reflection below 1/2; +inf at +-inf and at
    the poles)."""
    reflect, z = _reflected(b, x)
    series = b.const(_LANCZOS_BASE, x)
    for i, c in enumerate(_LANCZOS):
        term = b.binary("divide", b.const(c, x), b.binary("add", z, b.const(i + 1.0, x)))
        series = b.binary("add", series, term)
    t = b.binary("add", z, b.const(_LANCZOS_G + 0.5, x))
    log_t = _log_t(b, z)
    exponent = b.binary(
        "subtract", b.binary("add", z, b.const(0.5, x)), b.binary("divide", t, log_t)
    )
    log_y = b.binary(
        "add",
        b.binary(
            "add", b.const(0.5 * math.log(2 * math.pi), x), b.binary("multiply", exponent, log_t)
        ),
        _un(b, "log", series),
    )
    a = _un(b, "abs", x)
    frac = b.binary("subtract", a, _un(b, "floor", a))
    half = b.const(0.5, x)
    reduced = b.select(
        b.compare("GT", frac, half), b.binary("subtract", b.const(1.0, x), frac), frac
    )
    denom = _un(b, "log", _un(b, "sine", b.binary("multiply", b.const(math.pi, x), reduced)))
    finite = b.op("mhlo.is_finite", [denom], _pred_type(x))
    reflection = b.select(
        finite,
        b.binary("subtract", b.binary("subtract", b.const(math.log(math.pi), x), denom), log_y),
        _un(b, "negate", denom),
    )
    value = b.select(reflect, reflection, log_y)
    is_inf = b.compare("EQ", a, b.const(math.inf, x))
    return b.select(is_inf, b.const(math.inf, x), value)


def digamma(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """psi(x) = d/dx log Gamma(x) (Lanczos; reflection below 1/2; NaN at
    the non-positive integers)."""
    reflect, z = _reflected(b, x)
    num = b.const(0.0, x)
    denom = b.const(_LANCZOS_BASE, x)
    for i, c in enumerate(_LANCZOS):
        zi = b.binary("add", z, b.const(i + 1.0, x))
        coeff = b.const(c, x)
        num = b.binary("subtract", num, b.binary("divide", coeff, b.binary("multiply", zi, zi)))
        denom = b.binary("add", denom, b.binary("divide", coeff, zi))
    t = b.binary("add", z, b.const(_LANCZOS_G + 0.5, x))
    y = b.binary(
        "subtract",
        b.binary("add", _log_t(b, z), b.binary("divide", num, denom)),
        b.binary("divide", b.const(_LANCZOS_G, x), t),
    )
    reduced = b.binary(
        "add", x, _un(b, "abs", _un(b, "floor", b.binary("add", x, b.const(0.5, x))))
    )
    pi_r = b.binary("multiply", b.const(math.pi, x), reduced)
    cot = b.binary("divide", _un(b, "cosine", pi_r), _un(b, "sine", pi_r))
    reflection = b.binary("subtract", y, b.binary("multiply", b.const(math.pi, x), cot))
    value = b.select(reflect, reflection, y)
    pole = b.op(
        "mhlo.and",
        [
            b.compare("LE", x, b.const(0.0, x)),
            b.compare("EQ", x, _un(b, "floor", x)),
        ],
    )
    return b.select(pole, b.const(math.nan, x), value)


def erf_inv(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """erf^-1(x) (Giles); +-inf at +-1, NaN past |x| > 1."""
    one = b.const(1.0, x)
    w = _un(
        b,
        "negate",
        _un(b, "log", b.binary("multiply", b.binary("subtract", one, x), b.binary("add", one, x))),
    )
    small_w = b.binary("subtract", w, b.const(2.5, x))
    large_w = b.binary("subtract", _un(b, "sqrt", w), b.const(3.0, x))
    lt = b.compare("LT", w, b.const(5.0, x))
    p_small = b.poly(small_w, _ERF_INV_SMALL)
    p_large = b.poly(large_w, _ERF_INV_LARGE)
    value = b.binary("multiply", b.select(lt, p_small, p_large), x)
    at_one = b.compare("EQ", _un(b, "abs", x), one)
    return b.select(at_one, b.binary("multiply", x, b.const(math.inf, x)), value)


# Chebyshev expansions of I1(x) e^-|x| (fitted to it in float64): of
# i1e(x) / x in t = x/4 - 1 for |x| <= 8, of sqrt(x) i1e(x) in t = 16/x - 1
# beyond; relative errors below 4e-9 and 3e-12.
_I1E_SMALL = (
    0.1262935932218168,
    -0.17641651835783406,
    0.10264365868984704,
    -0.05294598120809501,
    0.024726449030626495,
    -0.010564084894626185,
    0.0041564229443128604,
    -0.0015135724506312401,
    0.0005122859561684762,
    -0.0001617608158258655,
    4.781565107536489e-05,
    -1.3273163655974172e-05,
    3.4702513080218115e-06,
    -8.568720264351443e-07,
    2.0032947528000804e-07,
    -4.4450591231314055e-08,
    9.381537295957068e-09,
    -1.8872496933810033e-09,
    3.6255893147806115e-10,
)
_I1E_LARGE = (
    0.38928811750914,
    -0.009761097491361469,
    -0.00011058893876262306,
    -3.882564808883502e-06,
    -2.5122362378846926e-07,
    -2.6314688471709896e-08,
    -3.835380388912338e-09,
    -5.589743548545002e-10,
    -1.8974954653873033e-11,
    3.25260343841146e-11,
    1.4125810365449387e-11,
    2.0356304276626505e-12,
)


def _chebyshev(b: MhloBuilder, t: SSAValue, coefficients: tuple[float, ...]) -> SSAValue:
    """sum_k c_k T_k(t) by Clenshaw's recurrence."""
    two_t = b.binary("multiply", b.const(2.0, t), t)
    b1, b2 = b.const(0.0, t), b.const(0.0, t)
    for c in reversed(coefficients[1:]):
        b1, b2 = (
            b.binary(
                "subtract", b.binary("add", b.const(c, t), b.binary("multiply", two_t, b1)), b2
            ),
            b1,
        )
    return b.binary(
        "subtract", b.binary("add", b.const(coefficients[0], t), b.binary("multiply", t, b1)), b2
    )


def bessel_i1e(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """I1(x) e^-|x|, odd: x g(x/4 - 1) for |x| <= 8, sign(x) h(16/|x| - 1) /
    sqrt(|x|) beyond (Chebyshev series g, h); 0 at +-inf, NaN at NaN."""
    a = _un(b, "abs", x)
    one = b.const(1.0, x)
    small = b.binary(
        "multiply",
        x,
        _chebyshev(
            b, b.binary("subtract", b.binary("multiply", a, b.const(0.25, x)), one), _I1E_SMALL
        ),
    )
    t_large = b.binary("subtract", b.binary("divide", b.const(16.0, x), a), one)
    large = b.binary("divide", _chebyshev(b, t_large, _I1E_LARGE), _un(b, "sqrt", a))
    large = b.select(b.compare("LT", x, b.const(0.0, x)), _un(b, "negate", large), large)
    return b.select(b.compare("LE", a, b.const(8.0, x)), small, large)


def _bernoulli_ratios(count: int) -> list[float]:
    """(2k)! / B_2k for k = 1..count (B the Bernoulli numbers): the
    denominators of the Euler-Maclaurin correction terms (Cephes' table)."""
    bernoulli = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        bernoulli.append(
            -sum(math.comb(m + 1, k) * bernoulli[k] for k in range(m)) / Fraction(m + 1)
        )
    return [float(Fraction(math.factorial(2 * k)) / bernoulli[2 * k]) for k in range(1, count + 1)]


_ZETA_TERMS = 12
_ZETA_RATIOS = _bernoulli_ratios(_ZETA_TERMS)


def _in_f64(
    b: MhloBuilder, values: list[SSAValue]
) -> tuple[list[SSAValue], Callable[[SSAValue], SSAValue]] | None:
    """`values` extended to f64 and the map of a result back to their type
    (None for non-float element types)."""
    elem = _element(values[0])
    if not isinstance(elem, _FLOAT_TYPES):
        return None
    if isinstance(elem, Float64Type):
        return values, lambda v: v

    def convert(v: SSAValue, to: Attribute) -> SSAValue:
        t = v.type
        assert isinstance(t, TensorType)
        return b.op("mhlo.convert", [v], TensorType(to, t.get_shape()))

    return [convert(v, Float64Type()) for v in values], lambda v: convert(v, elem)


def _zeta_f64(b: MhloBuilder, x: SSAValue, q: SSAValue) -> SSAValue:
    """Hurwitz zeta(x, q) = sum_k (q + k)^-x (Cephes' Euler-Maclaurin
    summation: ten terms, then twelve correction terms), with XLA's
    special cases: NaN for x < 1, for q <= 0 with x not an integer and at
    the poles q = 0, -1, ... unless x is even (+inf there), +inf at x = 1."""
    one = b.const(1.0, x)
    neg_x = _un(b, "negate", x)
    a = q
    term = b.binary("power", a, neg_x)
    total = term
    for _ in range(9):
        a = b.binary("add", a, one)
        term = b.binary("power", a, neg_x)
        total = b.binary("add", total, term)
    w = a
    total = b.binary(
        "add",
        total,
        b.binary("divide", b.binary("multiply", term, w), b.binary("subtract", x, one)),
    )
    total = b.binary("subtract", total, b.binary("multiply", b.const(0.5, x), term))
    factor = one
    k = 0.0
    for ratio in _ZETA_RATIOS:
        factor = b.binary("multiply", factor, b.binary("add", x, b.const(k, x)))
        term = b.binary("divide", term, w)
        total = b.binary(
            "add", total, b.binary("divide", b.binary("multiply", factor, term), b.const(ratio, x))
        )
        k += 1.0
        factor = b.binary("multiply", factor, b.binary("add", x, b.const(k, x)))
        term = b.binary("divide", term, w)
        k += 1.0
    nan, inf = b.const(math.nan, x), b.const(math.inf, x)
    zero = b.const(0.0, x)
    value = b.select(b.compare("LT", x, one), nan, total)
    q_le_zero = b.compare("LE", q, zero)
    x_int = b.compare("EQ", x, _un(b, "floor", x))
    value = b.select(b.op("mhlo.and", [q_le_zero, _un(b, "not", x_int)]), nan, value)
    half_x = b.binary("multiply", x, b.const(0.5, x))
    x_even = b.op("mhlo.and", [x_int, b.compare("EQ", half_x, _un(b, "floor", half_x))])
    pole = b.op("mhlo.and", [q_le_zero, b.compare("EQ", q, _un(b, "floor", q))])
    value = b.select(pole, b.select(x_even, inf, nan), value)
    return b.select(b.compare("EQ", x, one), inf, value)


def zeta(b: MhloBuilder, x: SSAValue, q: SSAValue) -> SSAValue | None:
    """`chlo.zeta`: Hurwitz zeta(x, q), computed in f64 (`_zeta_f64`)."""
    converted = _in_f64(b, [x, q])
    if converted is None:
        return None
    (x64, q64), back = converted
    return back(_zeta_f64(b, x64, q64))


def polygamma(b: MhloBuilder, n: SSAValue, x: SSAValue) -> SSAValue | None:
    """`chlo.polygamma`: psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x), digamma
    at n = 0, NaN unless n is a non-negative integer (computed in f64)."""
    converted = _in_f64(b, [n, x])
    if converted is None:
        return None
    (n64, x64), back = converted
    one = b.const(1.0, n64)
    n_plus_one = b.binary("add", n64, one)
    half = b.binary("multiply", n_plus_one, b.const(0.5, n64))
    odd_n_plus_one = b.compare("NE", half, _un(b, "floor", half))
    sign = b.select(odd_n_plus_one, b.const(-1.0, n64), one)
    factorial = _un(b, "exponential", lgamma(b, n_plus_one))
    value = b.binary(
        "multiply", b.binary("multiply", sign, factorial), _zeta_f64(b, n_plus_one, x64)
    )
    natural = b.op(
        "mhlo.and",
        [b.compare("EQ", n64, _un(b, "floor", n64)), b.compare("GE", n64, b.const(0.0, n64))],
    )
    value = b.select(natural, value, b.const(math.nan, n64))
    value = b.select(b.compare("EQ", n64, b.const(0.0, n64)), digamma(b, x64), value)
    return back(value)


# -- bit-level ops ---------------------------------------------------------------

_FLOAT_BITS: dict[type, tuple[int, int, int]] = {
    # width, exponent bits, mantissa bits
    Float16Type: (16, 5, 10),
    BFloat16Type: (16, 8, 7),
    Float32Type: (32, 8, 23),
    Float64Type: (64, 11, 52),
}


_FLOAT_TYPES = (Float16Type, BFloat16Type, Float32Type, Float64Type)


def _pred_type(x: SSAValue) -> Attribute:
    t = x.type
    assert isinstance(t, TensorType)
    return TensorType(IntegerType(1), t.get_shape())


def _float_layout(x: SSAValue) -> tuple[int, int, int] | None:
    t = x.type
    assert isinstance(t, TensorType)
    return _FLOAT_BITS.get(type(t.get_element_type()))


def _as_int(b: MhloBuilder, x: SSAValue, width: int) -> SSAValue:
    t = x.type
    assert isinstance(t, TensorType)
    return b.op("mhlo.bitcast_convert", [x], TensorType(IntegerType(width), t.get_shape()))


def _signed(value: int, width: int) -> int:
    """`value` (a bit pattern of `width` bits) as a signed integer."""
    value &= (1 << width) - 1
    return value - (1 << width) if value >> (width - 1) else value


def _int_const(b: MhloBuilder, value: int, like: SSAValue, width: int) -> SSAValue:
    return b.const(_signed(value, width), like)


def _is_nan(b: MhloBuilder, x: SSAValue) -> SSAValue:
    return b.compare("NE", x, x)


def next_after(b: MhloBuilder, x: SSAValue, y: SSAValue) -> SSAValue | None:
    """The float next to `x` in the direction of `y` (`y` when they are
    equal, NaN when either is NaN, the smallest subnormal of `y`'s sign
    from zero)."""
    layout = _float_layout(x)
    if layout is None:
        return None
    width = layout[0]
    xi, yi = _as_int(b, x, width), _as_int(b, y, width)
    sign_mask = _int_const(b, 1 << (width - 1), xi, width)
    magnitude_mask = _int_const(b, (1 << (width - 1)) - 1, xi, width)
    x_abs = b.binary("and", xi, magnitude_mask)
    y_abs = b.binary("and", yi, magnitude_mask)
    zero = _int_const(b, 0, xi, width)
    one = _int_const(b, 1, xi, width)
    x_sign = b.binary("and", xi, sign_mask)
    y_sign = b.binary("and", yi, sign_mask)
    towards_zero = b.op(
        "mhlo.or",
        [
            b.compare("NE", x_sign, y_sign, "SIGNED"),
            b.compare("GT", x_abs, y_abs, "SIGNED"),
        ],
    )
    stepped = b.select(towards_zero, b.binary("subtract", xi, one), b.binary("add", xi, one))
    from_zero = b.binary("or", y_sign, one)
    x_zero = b.compare("EQ", x_abs, zero, "SIGNED")
    y_zero = b.compare("EQ", y_abs, zero, "SIGNED")
    stepped = b.select(x_zero, b.select(y_zero, yi, from_zero), stepped)
    result = b.op("mhlo.bitcast_convert", [stepped], x.type)
    result = b.select(b.compare("EQ", x, y), y, result)
    nan = b.op("mhlo.or", [_is_nan(b, x), _is_nan(b, y)])
    return b.select(nan, b.const(math.nan, x), result)


def reduce_precision(
    b: MhloBuilder, x: SSAValue, exponent_bits: int, mantissa_bits: int
) -> SSAValue | None:
    """`x` rounded to a float of `exponent_bits` / `mantissa_bits` (module
    docstring), in `x`'s own type."""
    layout = _float_layout(x)
    if layout is None:
        return None
    width, src_exp, src_mant = layout
    xi = _as_int(b, x, width)
    if mantissa_bits < src_mant:
        shift = src_mant - mantissa_bits
        last_bit_mask = 1 << shift
        last_bit = b.op(
            "mhlo.shift_right_logical",
            [
                b.binary("and", xi, _int_const(b, last_bit_mask, xi, width)),
                _int_const(b, shift, xi, width),
            ],
        )
        bias = b.binary("add", last_bit, _int_const(b, (last_bit_mask >> 1) - 1, xi, width))
        truncation = _int_const(b, ~(last_bit_mask - 1), xi, width)
        xi = b.binary("and", b.binary("add", xi, bias), truncation)
    if exponent_bits < src_exp:
        exp_mask = ((1 << src_exp) - 1) << src_mant
        sign_mask = 1 << (width - 1)
        exponent_bias = (1 << (src_exp - 1)) - 1
        reduced_bias = (1 << (exponent_bits - 1)) - 1
        max_exp = (exponent_bias + reduced_bias) << src_mant
        min_exp = (exponent_bias - reduced_bias) << src_mant
        x_exp = b.binary("and", xi, _int_const(b, exp_mask, xi, width))
        overflows = b.compare("GT", x_exp, _int_const(b, max_exp, xi, width), "SIGNED")
        underflows = b.compare("LE", x_exp, _int_const(b, min_exp, xi, width), "SIGNED")
        signed_zero = b.binary("and", xi, _int_const(b, sign_mask, xi, width))
        signed_inf = b.binary("or", signed_zero, _int_const(b, exp_mask, xi, width))
        xi = b.select(overflows, signed_inf, xi)
        xi = b.select(underflows, signed_zero, xi)
    result = b.op("mhlo.bitcast_convert", [xi], x.type)
    if mantissa_bits > 0:
        return b.select(_is_nan(b, x), x, result)
    # no mantissa left: a NaN would read as inf; keep it NaN
    return b.select(_is_nan(b, x), b.const(math.nan, x), result)


def top_k(b: MhloBuilder, x: SSAValue, k: int) -> tuple[SSAValue, SSAValue] | None:
    """`chlo.top_k`: a stable descending sort of (x, iota) along the last
    dimension (floats in the total order -NaN < -inf < -0 < +0 < +inf <
    +NaN, as XLA's TopK), then the first `k` of each row; None for an
    unranked or 0-d operand."""
    t = x.type
    if not isinstance(t, TensorType) or t.get_num_dims() == 0:
        return None
    shape = list(t.get_shape())
    rank = len(shape)
    last = rank - 1
    index_type = TensorType(IntegerType(32), shape)
    dim_attr = IntegerAttr(last, 64)
    if DYNAMIC_INDEX in shape:
        iota = b.op("mhlo.dynamic_iota", [b.shape_of(x)], index_type, {"iota_dimension": dim_attr})
    else:
        iota = b.op("mhlo.iota", [], index_type, {"iota_dimension": dim_attr})
    elem = t.get_element_type()
    scalar, index = TensorType(elem, []), TensorType(IntegerType(32), [])
    block = Block(arg_types=[scalar, scalar, index, index])
    if isinstance(elem, _FLOAT_TYPES):
        compare_type = "TOTALORDER"
    elif isinstance(elem, IntegerType) and (
        elem.width.data == 1 or elem.signedness.data == Signedness.UNSIGNED
    ):
        compare_type = "UNSIGNED"
    else:
        compare_type = "SIGNED"
    gt = _OPS("mhlo.compare").create(
        operands=[block.args[0], block.args[1]],
        result_types=[TensorType(IntegerType(1), [])],
        attributes={
            "comparison_direction": ComparisonDirectionAttr(ComparisonDirection("GT")),
            "compare_type": ComparisonTypeAttr(ComparisonType(compare_type)),
        },
    )
    block.add_ops([gt, _OPS("mhlo.return").create(operands=[gt.results[0]])])
    sort = _OPS("mhlo.sort").create(
        operands=[x, iota],
        result_types=[t, index_type],
        attributes={"dimension": IntegerAttr(last, 64), "is_stable": BoolAttr.from_bool(True)},
        regions=[Region(block)],
    )
    sort.location = b.anchor.location
    b.rewriter.insert_op(sort, InsertPoint.before(b.anchor))
    out: list[SSAValue] = []
    for value in sort.results:
        vt = value.type
        assert isinstance(vt, TensorType)
        result_type = TensorType(vt.get_element_type(), [*shape[:-1], k])
        if DYNAMIC_INDEX not in shape[:-1]:
            limits = [*shape[:-1], k]
            out.append(
                b.op(
                    "mhlo.slice",
                    [value],
                    result_type,
                    {
                        "start_indices": _i64s([0] * rank),
                        "limit_indices": _i64s(limits),
                        "strides": _i64s([1] * rank),
                    },
                )
            )
            continue
        start = _const_i64s(b, [0] * rank)
        strides = _const_i64s(b, [1] * rank)
        limit = b.dims_i64(value, {last: k})
        out.append(b.op("mhlo.real_dynamic_slice", [value, start, limit, strides], result_type))
    return out[0], out[1]


def _i64s(values: list[int]) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), values)


def _const_i64s(b: MhloBuilder, values: list[int]) -> SSAValue:
    attr = _i64s(values)
    return b.op("mhlo.constant", [], attr.type, {"value": attr})


def _OPS(name: str) -> type[Operation]:  # noqa: N802 - a registry lookup
    from disc_ir.ir.context import make_context

    cls = make_context().get_optional_op(name)
    assert cls is not None, name
    return cls


# -- batch normalization (mlir-hlo's unfuse-batch-norm, XLA's BatchNormExpander) ----


def _feature_broadcast(b: MhloBuilder, v: SSAValue, like: SSAValue, d: int) -> SSAValue:
    """The 1-d per-feature `v` broadcast along dimension `d` of `like`'s shape."""
    t = like.type
    assert isinstance(t, TensorType)
    out = TensorType(_element(v), t.get_shape())
    dims = {"broadcast_dimensions": _i64s([d])}
    if DYNAMIC_INDEX in t.get_shape():
        return b.op("mhlo.dynamic_broadcast_in_dim", [v, b.shape_of(like)], out, dims)
    return b.op("mhlo.broadcast_in_dim", [v], out, dims)


def _element(v: SSAValue) -> Attribute:
    t = v.type
    assert isinstance(t, TensorType)
    return t.get_element_type()


def _feature_sum(b: MhloBuilder, x: SSAValue, d: int) -> SSAValue:
    """sum of `x` over every dimension but `d` (a 1-d tensor)."""
    t = x.type
    assert isinstance(t, TensorType)
    elem = t.get_element_type()
    scalar = TensorType(elem, [])
    block = Block(arg_types=[scalar, scalar])
    add = _OPS("mhlo.add").create(operands=list(block.args), result_types=[scalar])
    block.add_ops([add, _OPS("mhlo.return").create(operands=[add.results[0]])])
    init = DenseIntOrFPElementsAttr.from_list(scalar, [0.0])
    zero = b.op("mhlo.constant", [], scalar, {"value": init})
    reduced = [i for i in range(t.get_num_dims()) if i != d]
    op = _OPS("mhlo.reduce").create(
        operands=[x, zero],
        result_types=[TensorType(elem, [t.get_shape()[d]])],
        attributes={"dimensions": _i64s(reduced)},
        regions=[Region(block)],
    )
    op.location = b.anchor.location
    b.rewriter.insert_op(op, InsertPoint.before(b.anchor))
    return op.results[0]


def _feature_count(b: MhloBuilder, x: SSAValue, d: int, like: SSAValue) -> SSAValue:
    """The number of elements per feature, as a float tensor shaped like `like`."""
    t = x.type
    assert isinstance(t, TensorType)
    others = [n for i, n in enumerate(t.get_shape()) if i != d]
    if DYNAMIC_INDEX not in others:
        return b.const(float(math.prod(others)), like)
    return _feature_sum(b, b.const(1.0, x), d)


def _in_f32(
    b: MhloBuilder, values: list[SSAValue]
) -> tuple[list[SSAValue], Callable[[SSAValue], SSAValue]] | None:
    """`values` in f32 (f16 / bf16 extended) and the map of results back to
    their element type; None for element types other than f16 / bf16 / f32 / f64."""
    elem = _element(values[0])
    if isinstance(elem, Float32Type | Float64Type):
        return values, lambda v: v
    if not isinstance(elem, Float16Type | BFloat16Type):
        return None

    def widen(v: SSAValue) -> SSAValue:
        t = v.type
        assert isinstance(t, TensorType)
        return b.op("mhlo.convert", [v], TensorType(Float32Type(), t.get_shape()))

    def narrow(v: SSAValue) -> SSAValue:
        t = v.type
        assert isinstance(t, TensorType)
        return b.op("mhlo.convert", [v], TensorType(elem, t.get_shape()))

    return [widen(v) for v in values], narrow


def batch_norm_inference(
    b: MhloBuilder, operands: list[SSAValue], epsilon: float, d: int
) -> SSAValue | None:
    """`(x - mean) * (scale / sqrt(variance + epsilon)) + offset` per feature."""
    converted = _in_f32(b, operands)
    if converted is None:
        return None
    (x, scale, offset, mean, variance), back = converted
    rstd = _un(b, "rsqrt", b.binary("add", variance, b.const(epsilon, variance)))
    coef = _feature_broadcast(b, b.binary("multiply", scale, rstd), x, d)
    centered = b.binary("subtract", x, _feature_broadcast(b, mean, x, d))
    y = b.binary("add", b.binary("multiply", centered, coef), _feature_broadcast(b, offset, x, d))
    return back(y)


def batch_norm_training(
    b: MhloBuilder, operands: list[SSAValue], epsilon: float, d: int
) -> list[SSAValue] | None:
    """(output, batch mean, batch variance): the mean and the biased variance
    (of the centered values) over every dimension but the feature one."""
    converted = _in_f32(b, operands)
    if converted is None:
        return None
    (x, scale, offset), back = converted
    count = _feature_count(b, x, d, scale)
    mean = b.binary("divide", _feature_sum(b, x, d), count)
    centered = b.binary("subtract", x, _feature_broadcast(b, mean, x, d))
    var = b.binary("divide", _feature_sum(b, b.binary("multiply", centered, centered), d), count)
    rstd = _un(b, "rsqrt", b.binary("add", var, b.const(epsilon, var)))
    coef = _feature_broadcast(b, b.binary("multiply", scale, rstd), x, d)
    y = b.binary("add", b.binary("multiply", centered, coef), _feature_broadcast(b, offset, x, d))
    return [back(y), back(mean), back(var)]


def batch_norm_grad(
    b: MhloBuilder, operands: list[SSAValue], epsilon: float, d: int
) -> list[SSAValue] | None:
    """(grad_operand, grad_scale, grad_offset) of the training normalization:
    with xc = x - mean, r = 1 / sqrt(var + eps) and N elements per feature,
    grad_offset = sum(dy), grad_scale = r sum(dy xc), grad_operand =
    scale r (dy - sum(dy) / N - xc r^2 sum(dy xc) / N)."""
    converted = _in_f32(b, operands)
    if converted is None:
        return None
    (x, scale, mean, variance, dy), back = converted
    count = _feature_count(b, x, d, scale)
    rstd = _un(b, "rsqrt", b.binary("add", variance, b.const(epsilon, variance)))
    centered = b.binary("subtract", x, _feature_broadcast(b, mean, x, d))
    sum_dy = _feature_sum(b, dy, d)
    sum_dy_xc = _feature_sum(b, b.binary("multiply", dy, centered), d)
    grad_scale = b.binary("multiply", sum_dy_xc, rstd)
    mean_dy = b.binary("divide", sum_dy, count)
    proj = b.binary(
        "divide", b.binary("multiply", b.binary("multiply", rstd, rstd), sum_dy_xc), count
    )
    inner = b.binary(
        "subtract",
        b.binary("subtract", dy, _feature_broadcast(b, mean_dy, x, d)),
        b.binary("multiply", centered, _feature_broadcast(b, proj, x, d)),
    )
    coef = _feature_broadcast(b, b.binary("multiply", scale, rstd), x, d)
    grad_operand = b.binary("multiply", coef, inner)
    return [back(grad_operand), back(grad_scale), back(sum_dy)]


BATCH_NORM_EXPANSIONS: dict[
    str, Callable[[MhloBuilder, list[SSAValue], float, int], SSAValue | list[SSAValue] | None]
] = {
    "mhlo.batch_norm_inference": batch_norm_inference,
    "mhlo.batch_norm_training": batch_norm_training,
    "mhlo.batch_norm_grad": batch_norm_grad,
}


#: chlo / today's mhlo unary op name -> its expansion
UNARY_EXPANSIONS: dict[str, Expansion] = {
    "chlo.asin": with_f32_or_f64(asin),
    "chlo.acos": with_f32_or_f64(acos),
    "chlo.atan": with_f32_or_f64(atan),
    "chlo.sinh": with_f32_or_f64(sinh),
    "chlo.cosh": with_f32_or_f64(cosh),
    "chlo.asinh": with_f32_or_f64(asinh),
    "chlo.acosh": with_f32_or_f64(acosh),
    "chlo.atanh": with_f32_or_f64(atanh),
    "chlo.lgamma": with_f32_or_f64(lgamma),
    "chlo.digamma": with_f32_or_f64(digamma),
    "chlo.erf_inv": with_f32(erf_inv),
    "chlo.bessel_i1e": with_f32(bessel_i1e),
}


__all__ = [
    "BATCH_NORM_EXPANSIONS",
    "UNARY_EXPANSIONS",
    "Expansion",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atanh",
    "batch_norm_grad",
    "batch_norm_inference",
    "batch_norm_training",
    "bessel_i1e",
    "cosh",
    "digamma",
    "erf_inv",
    "lgamma",
    "next_after",
    "polygamma",
    "reduce_precision",
    "sinh",
    "top_k",
    "with_f32",
    "with_f32_or_f64",
    "zeta",
]
