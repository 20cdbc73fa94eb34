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
"""

from __future__ import annotations

import math as pymath

from xdsl.dialects import arith
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import AnyFloat, FloatAttr
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


HANDLERS: dict[str, Handler] = {
    "math.tan": _tan,
    "math.sinh": _sinh,
    "math.cosh": _cosh,
    "math.asin": _asin,
    "math.acos": _acos,
    "math.log10": _log10,
    "math.powf": _powf,
}


def _has_float_result(op: Operation) -> bool:
    """Whether `op`'s first result is a float scalar (the ops `HANDLERS` expands)."""
    return bool(op.results) and isinstance(op.results[0].type, AnyFloat)


def gpu_math_patterns() -> list[RewritePattern]:
    """The patterns of this module."""
    return [OpDispatch(HANDLERS, applies=_has_float_result)]


__all__ = ["HANDLERS", "gpu_math_patterns"]
