"""Polynomial approximations for special math ops (what `disc-math-approximation` applies).

The patterns of BladeDISC's DiscMathApproximationPass, which applies MLIR's
`populateMathPolynomialApproximationPatterns`. Each scalar `f32` op below is
replaced by branch-free `arith` / `math.fma` / `math.absf` / `math.floor` /
`math.copysign` code (selects instead of branches, bit tricks through
`arith.bitcast`), which LLVM vectorizes in the CPU kernels instead of
calling the scalar libm function per element:

* `math.exp` -- Cephes: `e^x = e^a * 2^n`, `n = floor(x * log2(e) + 0.5)`,
  `x` clamped to [-87.8, 88.8], `n` to [-127, 127], degree-5 polynomial of
  `a`, `2^n` built in the exponent bits (0 when `n = -127`);
* `math.expm1` -- `u = exp(x)`; `x` when `u == 1` (or NaN), `-1` when
  `u - 1 == -1`, `u` when `u` is +inf, else `(u - 1) * x / log(u)`;
* `math.log`, `math.log2` -- Cephes (Pommier's SSE library): `frexp` through
  the exponent bits, degree-8 polynomial around 1; `log(0) = -inf`,
  `log(x < 0) = NaN`, `log(+inf) = +inf`;
* `math.log1p` -- Kahan: `u = x + 1`; `x` if `u == 1` or `u` is +inf, else
  `x * log(u) / (u - 1)`;
* `math.tanh` -- rational minimax approximation (odd degree-13 over even
  degree-6) on `x` clamped to +-7.99881172; `x` itself for `|x| < 0.0004`;
* `math.erf` -- `offset + P(x)/Q(x)` (degree-4 polynomials) on three
  intervals of |x| (< 0.8, < 2, < 3.75), 1 beyond, sign restored;
* `math.sin`, `math.cos` -- reduction by `k = x * 2/pi` rounded to
  nearest, `y = x - k*pi/2` with pi/2 in three parts (Cody-Waite; y in
  [-pi/4, pi/4], signed zeros kept), degree-10 even polynomials for sin/cos
  of `y` selected and negated by `k mod 4`, clamped to [-1, 1] (accurate
  for |x| up to about 1e4; the reduction is not Payne-Hanek);
* `math.atan` -- Cephes with the range reduction at 0.66 and tan(3pi/8)
  (with Cephes' monic denominator, which MLIR's port lacks);
  `math.atan2` -- `atan` of min(|x|, |y|) / max(|x|, |y|) with the octant
  fixed by selects, C's special cases (signed zeros, infinities) exact;
* `math.cbrt` -- Hacker's Delight bit estimate plus two Newton steps.

`f16` / `bf16` operands are extended to `f32`, approximated, and truncated
back (MLIR's ReuseF32Expansion). Ops on `f64` or vectors are left alone. The
new `math.exp` / `math.log` of `expm1` / `log1p` / `atan2` are approximated
in turn (the rewrite runs to a fixed point).
"""

from __future__ import annotations

import builtins
import math as pymath
import struct
from collections.abc import Callable

from xdsl.dialects import arith, builtin
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    FloatAttr,
    IntegerAttr,
    f32,
    i1,
    i32,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.ir import builders
from disc_ir.rewriting.walker import PatternRewriteWalker

LN2 = 0.693147180559945309417232121458176568
LOG2E = 1.442695040888963407359924681001892137
TWO_OVER_PI = 0.6366197723675813430755350534900574
PI_OVER_2 = 1.5707963267948966192313216916397514
#: pi/2 as a sum of three f32 values, each exact times a k of up to 2^12
_PI_OVER_2_PARTS = (1.5703125, 4.83751296997070312e-04, 7.54978995489188216e-08)

#: Ops rewritten by this pass (also those extended from f16/bf16 first).
APPROXIMATED_OPS = (
    "math.exp",
    "math.expm1",
    "math.log",
    "math.log2",
    "math.log1p",
    "math.tanh",
    "math.erf",
    "math.sin",
    "math.cos",
    "math.atan",
    "math.atan2",
    "math.cbrt",
)


def _to_f32(value: float) -> float:
    """`value` rounded to the nearest f32 (as MLIR's getF32FloatAttr does)."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


def _signed32(bits: int) -> int:
    bits &= 0xFFFFFFFF
    return bits - (1 << 32) if bits & 0x80000000 else bits


class _Emitter:
    """Builds scalar f32 / i32 / i1 arithmetic before an op."""

    def __init__(self, rewriter: PatternRewriter, op: Operation):
        self.rewriter = rewriter
        self.point = InsertPoint.before(op)

    def _add(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op, self.point)
        return op.results[0]

    # constants
    def f32(self, value: float) -> SSAValue:
        return self._add(builders.constant(FloatAttr(_to_f32(value), f32)))

    def i32(self, value: int) -> SSAValue:
        return self._add(builders.constant(IntegerAttr(_signed32(value), i32)))

    def bool(self, value: bool) -> SSAValue:
        return self._add(arith.ConstantOp(IntegerAttr(int(value), i1)))

    def f32_bits(self, bits: int) -> SSAValue:
        return self.bitcast(self.i32(bits), f32)

    # float arithmetic
    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.AddfOp(a, b))

    def sub(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.SubfOp(a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.MulfOp(a, b))

    def div(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.DivfOp(a, b))

    def neg(self, a: SSAValue) -> SSAValue:
        return self._add(arith.NegfOp(a))

    def fma(self, a: SSAValue, b: SSAValue, c: SSAValue) -> SSAValue:
        """`a * b + c`."""
        return self._add(xmath.FmaOp(a, b, c))

    def abs(self, a: SSAValue) -> SSAValue:
        return self._add(xmath.AbsFOp(a))

    def floor(self, a: SSAValue) -> SSAValue:
        return self._add(xmath.FloorOp(a))

    def copysign(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(xmath.CopySignOp(a, b))

    def exp(self, a: SSAValue) -> SSAValue:
        return self._add(xmath.ExpOp(a))

    def log(self, a: SSAValue) -> SSAValue:
        return self._add(xmath.LogOp(a))

    def atan(self, a: SSAValue) -> SSAValue:
        return self._add(xmath.AtanOp(a))

    def cmpf(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.CmpfOp(a, b, pred))

    def select(self, c: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.SelectOp(c, a, b))

    def min(self, value: SSAValue, bound: SSAValue) -> SSAValue:
        """min, NaN if `value` is NaN."""
        return self.select(self.cmpf("ult", value, bound), value, bound)

    def max(self, value: SSAValue, bound: SSAValue) -> SSAValue:
        """max, NaN if `value` is NaN."""
        return self.select(self.cmpf("ugt", value, bound), value, bound)

    # integer arithmetic
    def addi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.AddiOp(a, b))

    def andi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.AndIOp(a, b))

    def ori(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.OrIOp(a, b))

    def shli(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.ShLIOp(a, b))

    def shrui(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.ShRUIOp(a, b))

    def shrsi(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.ShRSIOp(a, b))

    def cmpi(self, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._add(arith.CmpiOp(a, b, pred))

    def bitcast(self, a: SSAValue, t: Float32Type | builtin.IntegerType) -> SSAValue:
        return self._add(arith.BitcastOp(a, t))

    def sitofp(self, a: SSAValue) -> SSAValue:
        return self._add(arith.SIToFPOp(a, f32))

    def fptosi(self, a: SSAValue) -> SSAValue:
        return self._add(arith.FPToSIOp(a, i32))

    def poly(self, coeffs: list[SSAValue], x: SSAValue) -> SSAValue:
        """`c0 + x*(c1 + x*(c2 + ...))` by Horner's scheme with fma."""
        if len(coeffs) == 1:
            return coeffs[0]
        res = self.fma(x, coeffs[-1], coeffs[-2])
        for c in reversed(coeffs[:-2]):
            res = self.fma(x, res, c)
        return res

    # building blocks
    def frexp(self, arg: SSAValue, positive: builtins.bool = False) -> tuple[SSAValue, SSAValue]:
        """(fraction in [0.5, 1), exponent) of `arg`, both f32."""
        c126 = self.f32(126.0)
        half = self.f32(0.5)
        inv_mant_mask = self.f32_bits(~0x7F800000)
        i32_half = self.bitcast(half, i32)
        i32_mask = self.bitcast(inv_mant_mask, i32)
        i32_arg = self.bitcast(arg, i32)
        frac = self.bitcast(self.ori(self.andi(i32_arg, i32_mask), i32_half), f32)
        a = arg if positive else self.abs(arg)
        biased = self.shrui(self.bitcast(a, i32), self.i32(23))
        exponent = self.sub(self.sitofp(biased), c126)
        return frac, exponent

    def exp2_i32(self, n: SSAValue) -> SSAValue:
        """2^n for an i32 `n` in [-127, 127] (0 for -127), built in the exponent bits."""
        biased = self.addi(n, self.i32(127))
        return self.bitcast(self.shli(biased, self.i32(23)), f32)


# ---------------------------------------------------------------------------
# The approximations: each takes the emitter and the f32 operand(s).
# ---------------------------------------------------------------------------


def approx_exp(e: _Emitter, x: SSAValue) -> SSAValue:
    half = e.f32(0.5)
    one = e.f32(1.0)
    log2e = e.f32(1.44269504088896341)
    c1 = e.f32(-0.693359375)
    c2 = e.f32(2.12194440e-4)
    p = [
        e.f32(v)
        for v in (
            1.9875691500e-4,
            1.3981999507e-3,
            8.3334519073e-3,
            4.1665795894e-2,
            1.6666665459e-1,
            5.0000001201e-1,
        )
    ]

    def clamp(value: SSAValue, lo: float, hi: float) -> SSAValue:
        value = e.select(e.cmpf("uge", value, lo_c := e.f32(lo)), value, lo_c)
        return e.select(e.cmpf("ule", value, hi_c := e.f32(hi)), value, hi_c)

    x = clamp(x, -87.8, 88.8)
    n = e.floor(e.fma(x, log2e, half))
    n = clamp(n, -127.0, 127.0)
    x = e.fma(c1, n, x)
    x = e.fma(c2, n, x)
    z = e.fma(x, p[0], p[1])
    for c in p[2:]:
        z = e.fma(z, x, c)
    z = e.fma(z, e.mul(x, x), x)
    z = e.add(one, z)
    return e.mul(z, e.exp2_i32(e.fptosi(n)))


def approx_expm1(e: _Emitter, x: SSAValue) -> SSAValue:
    one = e.f32(1.0)
    neg_one = e.f32(-1.0)
    u = e.exp(x)
    u_eq_one_or_nan = e.cmpf("ueq", u, one)
    u_minus_one = e.sub(u, one)
    u_minus_one_eq_neg_one = e.cmpf("oeq", u_minus_one, neg_one)
    log_u = e.log(u)
    is_inf = e.cmpf("oeq", log_u, u)
    expm1 = e.mul(u_minus_one, e.div(x, log_u))
    expm1 = e.select(is_inf, u, expm1)
    return e.select(u_eq_one_or_nan, x, e.select(u_minus_one_eq_neg_one, neg_one, expm1))


def _approx_log(e: _Emitter, operand: SSAValue, base2: bool) -> SSAValue:
    zero = e.f32(0.0)
    one = e.f32(1.0)
    neg_half = e.f32(-0.5)
    min_norm_pos = e.f32_bits(0x00800000)
    minus_inf = e.f32_bits(0xFF800000)
    pos_inf = e.f32_bits(0x7F800000)
    nan = e.f32_bits(0x7FC00000)
    sqrthf = e.f32(0.707106781186547524)
    p = [
        e.f32(v)
        for v in (
            7.0376836292e-2,
            -1.1514610310e-1,
            1.1676998740e-1,
            -1.2420140846e-1,
            1.4249322787e-1,
            -1.6668057665e-1,
            2.0000714765e-1,
            -2.4999993993e-1,
            3.3333331174e-1,
        )
    ]
    x = e.max(operand, min_norm_pos)
    x, exponent = e.frexp(x, positive=True)
    # x in [0.5, 1): shift to [sqrt(1/2), sqrt(2)) - 1
    mask = e.cmpf("olt", x, sqrthf)
    tmp = e.select(mask, x, zero)
    x = e.sub(x, one)
    exponent = e.sub(exponent, e.select(mask, one, zero))
    x = e.add(x, tmp)
    x2 = e.mul(x, x)
    x3 = e.mul(x2, x)
    y0 = e.fma(p[0], x, p[1])
    y1 = e.fma(p[3], x, p[4])
    y2 = e.fma(p[6], x, p[7])
    y0 = e.fma(y0, x, p[2])
    y1 = e.fma(y1, x, p[5])
    y2 = e.fma(y2, x, p[8])
    y0 = e.fma(y0, x3, y1)
    y0 = e.fma(y0, x3, y2)
    y0 = e.mul(y0, x3)
    y0 = e.fma(neg_half, x2, y0)
    x = e.add(x, y0)
    if base2:
        x = e.fma(x, e.f32(LOG2E), exponent)
    else:
        x = e.fma(exponent, e.f32(LN2), x)
    invalid = e.cmpf("ult", operand, zero)
    is_zero = e.cmpf("oeq", operand, zero)
    is_pos_inf = e.cmpf("oeq", operand, pos_inf)
    return e.select(is_zero, minus_inf, e.select(invalid, nan, e.select(is_pos_inf, pos_inf, x)))


def approx_log(e: _Emitter, x: SSAValue) -> SSAValue:
    return _approx_log(e, x, base2=False)


def approx_log2(e: _Emitter, x: SSAValue) -> SSAValue:
    return _approx_log(e, x, base2=True)


def approx_log1p(e: _Emitter, x: SSAValue) -> SSAValue:
    one = e.f32(1.0)
    u = e.add(x, one)
    u_small = e.cmpf("oeq", u, one)
    log_u = e.log(u)
    u_inf = e.cmpf("oeq", u, log_u)
    log_large = e.mul(x, e.div(log_u, e.sub(u, one)))
    return e.select(e.ori(u_small, u_inf), x, log_large)


def approx_tanh(e: _Emitter, operand: SSAValue) -> SSAValue:
    minus_clamp = e.f32(-7.99881172180175781)
    plus_clamp = e.f32(7.99881172180175781)
    x = e.max(e.min(operand, plus_clamp), minus_clamp)
    tiny_mask = e.cmpf("olt", e.abs(operand), e.f32(0.0004))
    alpha = [
        e.f32(v)
        for v in (
            4.89352455891786e-03,
            6.37261928875436e-04,
            1.48572235717979e-05,
            5.12229709037114e-08,
            -8.60467152213735e-11,
            2.00018790482477e-13,
            -2.76076847742355e-16,
        )
    ]
    beta = [
        e.f32(v)
        for v in (
            4.89352518554385e-03,
            2.26843463243900e-03,
            1.18534705686654e-04,
            1.19825839466702e-06,
        )
    ]
    x2 = e.mul(x, x)
    p = e.mul(x, e.poly(alpha, x2))
    q = e.poly(beta, x2)
    return e.select(tiny_mask, x, e.div(p, q))


_ERF_P = (
    (
        0.0,
        1.12837916222975858e00,
        -5.23018562988006470e-01,
        2.09741709609267072e-01,
        2.58146801602987875e-02,
    ),
    (
        0.0,
        1.12750687816789140e00,
        -3.64721408487825775e-01,
        1.18407396425136952e-01,
        3.70645533056476558e-02,
    ),
    (
        -3.30093071049483172e-03,
        3.51961938357697011e-03,
        -1.41373622814988039e-03,
        2.53447094961941348e-04,
        -1.71048029455037401e-05,
    ),
)
_ERF_Q = (
    (
        1.0,
        -4.635138185962547255e-01,
        5.192301327279782447e-01,
        -1.318089722204810087e-01,
        7.397964654672315005e-02,
    ),
    (
        1.0,
        -3.27607011824493086e-01,
        4.48369090658821977e-01,
        -8.83462621207857930e-02,
        5.72442770283176093e-02,
    ),
    (
        1.0,
        -2.06069165953913769e00,
        1.62705939945477759e00,
        -5.83389859211130017e-01,
        8.21908939856640930e-02,
    ),
)
_ERF_OFFSETS = (0.0, 0.0, 1.0)
_ERF_BOUNDS = (0.8, 2.0, 3.75)


def approx_erf(e: _Emitter, operand: SSAValue) -> SSAValue:
    zero = e.f32(0.0)
    one = e.f32(1.0)
    pp = [[e.f32(v) for v in row] for row in _ERF_P]
    qq = [[e.f32(v) for v in row] for row in _ERF_Q]
    offsets = [e.f32(v) for v in _ERF_OFFSETS]
    bounds = [e.f32(v) for v in _ERF_BOUNDS]
    is_negative = e.cmpf("olt", operand, zero)
    x = e.select(is_negative, e.neg(operand), operand)
    offset = offsets[0]
    p = list(pp[0])
    q = list(qq[0])
    for j in range(len(bounds) - 1):
        less = e.cmpf("olt", x, bounds[j])
        p = [e.select(less, p[i], pp[j + 1][i]) for i in range(len(p))]
        q = [e.select(less, q[i], qq[j + 1][i]) for i in range(len(q))]
        offset = e.select(less, offset, offsets[j + 1])
    in_range = e.cmpf("ult", x, bounds[-1])
    formula = e.add(offset, e.div(e.poly(p, x), e.poly(q, x)))
    formula = e.select(in_range, formula, one)
    return e.select(is_negative, e.neg(formula), formula)


_SIN_C = (
    -0.16666667163372039794921875,
    8.333347737789154052734375e-3,
    -1.9842604524455964565277099609375e-4,
    2.760012648650445044040679931640625e-6,
    -2.50293279435709337121807038784027099609375e-8,
)
_COS_C = (
    -0.5,
    4.166664183139801025390625e-2,
    -1.388833043165504932403564453125e-3,
    2.47562347794882953166961669921875e-5,
    -2.59630184018533327616751194000244140625e-7,
)


def _approx_sin_cos(e: _Emitter, x: SSAValue, is_sine: bool) -> SSAValue:
    # k = x * 2/pi rounded to nearest, so y in [-pi/4, pi/4] (tiny negative
    # x stays in k = 0); y = x - k pi/2 with pi/2 in three parts (Cody-Waite)
    k = e.floor(e.fma(x, e.f32(TWO_OVER_PI), e.f32(0.5)))
    neg_k = e.neg(k)
    y = x
    for part in _PI_OVER_2_PARTS:
        y = e.fma(neg_k, e.f32(part), y)
    one = e.f32(1.0)
    neg_one = e.f32(-1.0)
    sc = [e.f32(v) for v in _SIN_C]
    cc = [e.f32(v) for v in _COS_C]
    k_mod4 = e.andi(e.fptosi(k), e.i32(3))
    k_r = [e.cmpi("eq", k_mod4, e.i32(r)) for r in range(4)]
    use_cos = e.ori(k_r[1], k_r[3]) if is_sine else e.ori(k_r[0], k_r[2])
    negative = e.cmpi("sgt", k_mod4, e.i32(1)) if is_sine else e.ori(k_r[1], k_r[2])
    y2 = e.mul(y, y)
    base = e.select(use_cos, one, y)
    c = [e.select(use_cos, cc[i], sc[i]) for i in range(5)]
    v = e.fma(y2, c[4], c[3])
    v = e.fma(y2, v, c[2])
    v = e.fma(y2, v, c[1])
    v = e.fma(y2, v, c[0])
    v = e.fma(y2, v, one)
    v = e.mul(base, v)
    v = e.select(negative, e.mul(neg_one, v), v)
    # past the reduction's range the polynomial leaves [-1, 1]; NaN stays NaN
    return e.max(e.min(v, one), neg_one)


def approx_sin(e: _Emitter, x: SSAValue) -> SSAValue:
    return _approx_sin_cos(e, x, is_sine=True)


def approx_cos(e: _Emitter, x: SSAValue) -> SSAValue:
    return _approx_sin_cos(e, x, is_sine=False)


def approx_atan(e: _Emitter, operand: SSAValue) -> SSAValue:
    abs_x = e.abs(operand)
    one = e.f32(1.0)
    # 0.66 < |x| <= 2.41: atan(x) = pi/4 + atan((x - 1) / (x + 1))
    two_thirds = e.f32(0.66)
    cmp2 = e.cmpf("ogt", abs_x, two_thirds)
    xnum = e.select(cmp2, e.sub(abs_x, one), abs_x)
    xden = e.select(cmp2, e.add(abs_x, one), one)
    # |x| > tan(3pi/8): atan(x) = pi/2 - atan(1/x)
    tan3pio8 = e.f32(2.41421356237309504880)
    cmp1 = e.cmpf("ogt", abs_x, tan3pio8)
    xnum = e.select(cmp1, one, xnum)
    xden = e.select(cmp1, abs_x, xden)
    x = e.div(xnum, xden)
    xx = e.mul(x, x)
    p = [
        e.f32(v)
        for v in (
            -8.750608600031904122785e-01,
            -1.615753718733365076637e01,
            -7.500855792314704667340e01,
            -1.228866684490136173410e02,
            -6.485021904942025371773e01,
        )
    ]
    q = [
        e.f32(v)
        for v in (
            2.485846490142306297962e01,
            1.650270098316988542046e02,
            4.328810604912902668951e02,
            4.853903996359136964868e02,
            1.945506571482613964425e02,
        )
    ]
    n = p[0]
    for c in p[1:]:
        n = e.fma(xx, n, c)
    n = e.mul(n, xx)
    # Cephes' denominator is monic: xx^5 + q0 xx^4 + ... + q4 (MLIR's port
    # drops the leading 1, which costs ~4e-6 relative error near 0.66).
    d = one
    for c in q:
        d = e.fma(xx, d, c)
    ans0 = e.fma(e.div(n, d), x, x)
    ans = e.select(cmp2, e.add(e.f32(pymath.pi / 4), ans0), ans0)
    ans = e.select(cmp1, e.sub(e.f32(pymath.pi / 2), ans0), ans)
    return e.copysign(ans, operand)


def approx_atan2(e: _Emitter, y: SSAValue, x: SSAValue) -> SSAValue:
    """C's / IEEE 754's atan2 (what XLA computes), special cases included.

    `r = atan(min(|x|, |y|) / max(|x|, |y|))` in [0, pi/4], `pi/2 - r` when
    `|y| > |x|`, `pi - r` when `x` is negative or -0, the sign of `y` restored.
    So atan2(+-0, +0) = +-0, atan2(+-0, -0) = +-pi, atan2(y != 0, +-0) =
    +-pi/2, atan2(finite y, +inf) = +-0, atan2(finite y, -inf) = +-pi,
    atan2(+-inf, +inf) = +-pi/4, atan2(+-inf, -inf) = +-3pi/4, NaN in -> NaN.
    """
    abs_x, abs_y = e.abs(x), e.abs(y)
    y_larger = e.cmpf("ogt", abs_y, abs_x)
    num = e.select(y_larger, abs_x, abs_y)
    den = e.select(y_larger, abs_y, abs_x)
    ratio = e.div(num, den)
    # 0 / 0 (both zero) -> 0; inf / inf (both infinite) -> 1
    ratio = e.select(e.cmpf("oeq", den, e.f32(0.0)), e.f32(0.0), ratio)
    inf = e.f32(pymath.inf)
    ratio = e.select(e.cmpf("oeq", num, inf), e.f32(1.0), ratio)
    r = e.atan(ratio)
    r = e.select(y_larger, e.sub(e.f32(PI_OVER_2), r), r)
    x_negative = e.cmpi("slt", e.bitcast(x, i32), e.i32(0))  # also -0
    r = e.select(x_negative, e.sub(e.f32(pymath.pi), r), r)
    result = e.copysign(r, y)
    return e.select(e.cmpf("uno", x, y), e.add(x, y), result)


def approx_cbrt(e: _Emitter, operand: SSAValue) -> SSAValue:
    two_i, four_i, eight_i = e.i32(2), e.i32(4), e.i32(8)
    magic = e.i32(0x2A5137A0)
    third = e.f32(0.33333333)
    two = e.f32(2.0)
    zero = e.f32(0.0)
    abs_x = e.abs(operand)
    iv = e.bitcast(abs_x, i32)
    iv = e.addi(e.shrsi(iv, two_i), e.shrsi(iv, four_i))  # ix/4 + ix/16
    iv = e.addi(iv, e.shrsi(iv, four_i))  # + ix/16
    iv = e.addi(iv, e.shrsi(iv, eight_i))  # + ix/256
    iv = e.addi(iv, magic)
    fv = e.bitcast(iv, f32)
    for _ in range(2):  # Newton: x = (2x + a / x^2) / 3
        fv = e.mul(e.add(e.mul(fv, two), e.div(abs_x, e.mul(fv, fv))), third)
    fv = e.select(e.cmpf("oeq", abs_x, zero), zero, fv)
    return e.copysign(fv, operand)


_APPROXIMATIONS: dict[str, Callable[..., SSAValue]] = {
    "math.exp": approx_exp,
    "math.expm1": approx_expm1,
    "math.log": approx_log,
    "math.log2": approx_log2,
    "math.log1p": approx_log1p,
    "math.tanh": approx_tanh,
    "math.erf": approx_erf,
    "math.sin": approx_sin,
    "math.cos": approx_cos,
    "math.atan": approx_atan,
    "math.atan2": approx_atan2,
    "math.cbrt": approx_cbrt,
}


class ReuseF32Expansion(RewritePattern):
    """`f16` / `bf16` op -> `arith.extf` to f32, the op on f32, `arith.truncf` back."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name not in _APPROXIMATIONS or len(op.results) != 1:
            return
        t = op.results[0].type
        if not isinstance(t, Float16Type | BFloat16Type):
            return
        if any(o.type != t for o in op.operands):
            return
        point = InsertPoint.before(op)
        exts = []
        for operand in op.operands:
            ext = arith.ExtFOp(operand, f32)
            rewriter.insert(ext, point)
            exts.append(ext.result)
        new = type(op)(*exts)  # the same op on f32 (result type follows the operands)
        new.properties |= dict(op.properties)
        new.attributes |= dict(op.attributes)
        rewriter.insert(new, point)
        trunc = arith.TruncFOp(new.results[0], t)
        rewriter.replace(op, trunc)


class PolynomialApproximation(RewritePattern):
    """Replace a scalar f32 math op by its polynomial approximation."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        fn = _APPROXIMATIONS.get(op.name)
        if fn is None or len(op.results) != 1:
            return
        if not isinstance(op.results[0].type, Float32Type):
            return
        if any(not isinstance(o.type, Float32Type) for o in op.operands):
            return
        result = fn(_Emitter(rewriter, op), *op.operands)
        rewriter.replace(op, [], [result])


def approximate_math(root: Operation) -> None:
    """Apply the approximations under `root` until none applies."""
    from disc_ir.rewriting.greedy import greedy_applier

    walker = PatternRewriteWalker(
        greedy_applier([ReuseF32Expansion(), PolynomialApproximation()]),
        apply_recursively=True,
    )
    for region in root.regions:
        walker.rewrite_region(region)
