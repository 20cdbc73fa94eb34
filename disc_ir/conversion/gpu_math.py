"""Math ops a GPU cannot call libm for, rewritten into ops that have device forms.

Used by `disc-convert-gpu-to-nvvm` before the polynomial approximations
(BladeDISC links libdevice for these; disc-ir has none). On scalar floats:

* `math.tan x` -> `sin x / cos x`;
* `math.sinh x` -> `(expm1 x - expm1 -x) / 2`; `math.cosh x` -> `(exp x + exp -x) / 2`;
* `math.asin x` -> `atan2(x, sqrt(1 - x*x))`; `math.acos x` -> `atan2(sqrt(1 - x*x), x)`;
* `math.log10 x` -> `log x * (1 / ln 10)`;
* `math.powf a, b` -> `exp(b * log |a|)` (MLIR's powf expansion), then
  `1` when `b == 0`; for `a < 0`: negated when `b` is an odd integer, NaN
  when `b` is not an integer.

`sin`, `cos`, `exp`, `expm1`, `log` and `atan2` are then approximated by
`disc-math-approximation`'s polynomials.

* `llvm.frem a, b` on f32 (float `remainder`: C's `fmodf`, exact by
  definition; NVPTX would select `a - trunc(a / b) * b`, wrong once the
  quotient outgrows the mantissa) -> an exact reduction in f64: ten steps of
  `A -= trunc(A / S) * S` (one `fma`), `S = |b| * 2^e` with `e` leaving a
  quotient below 2^30 (so every step is exact, `+ S` when the rounded quotient
  was one too large); NaN for an infinite or NaN `a`, a NaN or zero `b`; `a`
  for an infinite `b`. f64 `frem` keeps NVPTX's expansion.
"""

from __future__ import annotations

import math as pymath

from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import AnyFloat, Float32Type, Float64Type, FloatAttr, IntegerAttr, i64
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.conversion.dispatch import Handler, OpDispatch


class _Emit:
    def __init__(self, rewriter: PatternRewriter, op: Operation):
        self.rewriter, self.op = rewriter, op

    def __call__(self, new: Operation) -> SSAValue:
        self.rewriter.insert(new, InsertPoint.before(self.op))
        return new.results[0]

    def const(self, value: float, t: AnyFloat) -> SSAValue:
        return self(arith.ConstantOp(FloatAttr(value, t)))


def _tan(op: Operation, rw: PatternRewriter) -> None:
    e, (x,) = _Emit(rw, op), op.operands
    rw.replace(op, arith.DivfOp(e(xmath.SinOp(x)), e(xmath.CosOp(x))))


def _sinh(op: Operation, rw: PatternRewriter) -> None:
    e, (x,) = _Emit(rw, op), op.operands
    neg = e(arith.NegfOp(x))
    diff = e(arith.SubfOp(e(xmath.ExpM1Op(x)), e(xmath.ExpM1Op(neg))))
    rw.replace(op, arith.MulfOp(diff, e.const(0.5, x.type)))  # type: ignore[arg-type]  # the op's operand is a float (its type constraint)


def _cosh(op: Operation, rw: PatternRewriter) -> None:
    e, (x,) = _Emit(rw, op), op.operands
    neg = e(arith.NegfOp(x))
    total = e(arith.AddfOp(e(xmath.ExpOp(x)), e(xmath.ExpOp(neg))))
    rw.replace(op, arith.MulfOp(total, e.const(0.5, x.type)))  # type: ignore[arg-type]  # the op's operand is a float (its type constraint)


def _sqrt_one_minus_square(e: _Emit, x: SSAValue) -> SSAValue:
    one = e.const(1.0, x.type)  # type: ignore[arg-type]  # the op's operand is a float (its type constraint)
    return e(xmath.SqrtOp(e(arith.SubfOp(one, e(arith.MulfOp(x, x))))))


def _asin(op: Operation, rw: PatternRewriter) -> None:
    e, (x,) = _Emit(rw, op), op.operands
    rw.replace(op, xmath.Atan2Op(x, _sqrt_one_minus_square(e, x)))


def _acos(op: Operation, rw: PatternRewriter) -> None:
    e, (x,) = _Emit(rw, op), op.operands
    rw.replace(op, xmath.Atan2Op(_sqrt_one_minus_square(e, x), x))


def _log10(op: Operation, rw: PatternRewriter) -> None:
    e, (x,) = _Emit(rw, op), op.operands
    scale = e.const(1.0 / pymath.log(10.0), x.type)  # type: ignore[arg-type]  # the op's operand is a float (its type constraint)
    rw.replace(op, arith.MulfOp(e(xmath.LogOp(x)), scale))


def _powf(op: Operation, rw: PatternRewriter) -> None:
    e, (a, b) = _Emit(rw, op), op.operands
    t = a.type
    zero, one, half = e.const(0.0, t), e.const(1.0, t), e.const(0.5, t)  # type: ignore[arg-type]  # the op's operand is a float (its type constraint)
    magnitude = e(xmath.ExpOp(e(arith.MulfOp(b, e(xmath.LogOp(e(xmath.AbsFOp(a))))))))
    is_int = e(arith.CmpfOp(e(xmath.FloorOp(b)), b, "oeq"))
    half_b = e(arith.MulfOp(b, half))
    is_odd = e(arith.AndIOp(is_int, e(arith.CmpfOp(e(xmath.FloorOp(half_b)), half_b, "one"))))
    negated = e(arith.SelectOp(is_odd, e(arith.NegfOp(magnitude)), magnitude))
    nan = e.const(float("nan"), t)  # type: ignore[arg-type]  # the op's operand is a float (its type constraint)
    negative_base = e(arith.SelectOp(is_int, negated, nan))
    a_negative = e(arith.CmpfOp(a, zero, "olt"))
    value = e(arith.SelectOp(a_negative, negative_base, magnitude))
    b_zero = e(arith.CmpfOp(b, zero, "oeq"))
    rw.replace(op, arith.SelectOp(b_zero, one, value))


#: steps of the f32 fmod reduction: each lowers the exponent gap between the
#: running remainder and |b| by 29, from at most 276 (f32's max over its
#: smallest subnormal) to <= 29, which the last step finishes
_FMOD_STEPS = 10


def _frem(op: Operation, rw: PatternRewriter) -> None:
    e, (a, b) = _Emit(rw, op), op.operands
    if not isinstance(a.type, Float32Type):
        return
    f64 = Float64Type()

    def i64_const(value: int) -> SSAValue:
        return e(arith.ConstantOp(IntegerAttr(value, i64)))

    def exponent(x: SSAValue) -> SSAValue:  # biased exponent bits of a positive f64
        return e(arith.ShRUIOp(e(arith.BitcastOp(x, i64)), i64_const(52)))

    rem = e(arith.ExtFOp(e(xmath.AbsFOp(a)), f64))
    divisor = e(arith.ExtFOp(e(xmath.AbsFOp(b)), f64))
    divisor_exp = exponent(divisor)
    zero = e.const(0.0, f64)
    for _ in range(_FMOD_STEPS):
        gap = e(arith.SubiOp(e(arith.SubiOp(exponent(rem), divisor_exp)), i64_const(29)))
        shift = e(arith.MaxSIOp(gap, i64_const(0)))
        scale = e(
            arith.BitcastOp(
                e(arith.ShLIOp(e(arith.AddiOp(shift, i64_const(1023))), i64_const(52))), f64
            )
        )
        step = e(arith.MulfOp(divisor, scale))
        quotient = e(xmath.TruncOp(e(arith.DivfOp(rem, step))))
        rem = e(xmath.FmaOp(e(arith.NegfOp(quotient)), step, rem))
        rem = e(arith.SelectOp(e(arith.CmpfOp(rem, zero, "olt")), e(arith.AddfOp(rem, step)), rem))
    t = a.type
    result = e(xmath.CopySignOp(e(arith.TruncFOp(rem, t)), a))
    inf = e.const(pymath.inf, t)
    b_inf = e(arith.CmpfOp(e(xmath.AbsFOp(b)), inf, "oeq"))
    result = e(arith.SelectOp(b_inf, a, result))
    a_not_finite = e(arith.CmpfOp(e(xmath.AbsFOp(a)), inf, "ueq"))
    b_nan_or_zero = e(arith.CmpfOp(b, e.const(0.0, t), "ueq"))
    invalid = e(arith.OrIOp(a_not_finite, b_nan_or_zero))
    rw.replace(op, arith.SelectOp(invalid, e.const(pymath.nan, t), result))


HANDLERS: dict[str, Handler] = {
    "math.tan": _tan,
    "math.sinh": _sinh,
    "math.cosh": _cosh,
    "math.asin": _asin,
    "math.acos": _acos,
    "math.log10": _log10,
    "math.powf": _powf,
    "llvm.frem": _frem,
}


def _has_float_result(op: Operation) -> bool:
    """Whether `op`'s first result is a float scalar (the ops `HANDLERS` expands)."""
    return bool(op.results) and isinstance(op.results[0].type, AnyFloat)


def gpu_math_patterns() -> list[RewritePattern]:
    """The patterns of this module."""
    return [OpDispatch(HANDLERS, applies=_has_float_result)]


__all__ = ["HANDLERS", "gpu_math_patterns"]
