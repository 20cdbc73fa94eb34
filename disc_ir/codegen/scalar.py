"""Scalar semantics of lmhlo ops (mlir-hlo's `LhloOpToStdScalarOp::map`).

`map_lmhlo_to_scalar(b, op, result_type, operands)` emits, at the builder's
insertion point, the arith / math ops computing one element of `op`'s output
from one element of each input (`operands`, already loaded) and returns the
value. Element types follow mlir-hlo:

* floats use the `*f` ops (`arith.addf`, `arith.maximumf`, `math.exp`...);
* signless integers the `*i` / signed ops (`arith.divsi`, `arith.maxsi`);
  unsigned integers (`ui32`) are computed on the signless type of their width
  through `builtin.unrealized_conversion_cast` (BladeDISC's
  `convertValuesIfIntegerType`) with the unsigned ops (`divui`, `maxui`);
* `i1` add / multiply are `ori` / `andi`.

`accumulate(b, op_name, elem_type, lhs, rhs)` is the same for the binary ops a
reduce body may hold (add, multiply, maximum, minimum, or, and).
Float remainder is C's `fmod` (XLA's and IEEE's definition: `lhs - n * rhs`
with `n = trunc(lhs / rhs)` computed exactly, the result exact): `llvm.frem`
(xDSL's arith has no `remf`), which LLVM lowers to `fmodf` / `fmod` on CPUs.
A float `compare` with `compare_type = TOTALORDER` orders as XLA's
total order (-NaN < -Inf < -0 < +0 < +Inf < +NaN): the bits, negative values'
magnitude bits flipped, compared as signed integers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast, overload

from xdsl.dialects import arith, llvm, math
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float16Type,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    UnrealizedConversionCastOp,
)
from xdsl.ir import Attribute, Operation, SSAValue

from disc_ir.codegen.loop_utils import OpBuilder
from disc_ir.ir.attrs import inherent_attr


class UnsupportedOp(Exception):
    """An op (or element type) the scalar mapping does not cover."""


def is_float(t: Attribute) -> bool:
    return isinstance(t, AnyFloat)


def is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


def is_unsigned(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED


def is_bool(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.width.data == 1


@overload
def signless(t: IntegerType) -> IntegerType: ...
@overload
def signless(t: Attribute) -> Attribute: ...
def signless(t: Attribute) -> Attribute:
    """The signless integer type of `t`'s width (other types unchanged)."""
    if isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS:
        return IntegerType(t.width.data)
    return t


def cast_to(b: OpBuilder, value: SSAValue, t: Attribute) -> SSAValue:
    """`value` as type `t` through `builtin.unrealized_conversion_cast` (no-op when equal)."""
    if value.type == t:
        return value
    return b.create(UnrealizedConversionCastOp.get([value], [t])).results[0]


def constant(b: OpBuilder, t: Attribute, value: float | int) -> SSAValue:
    """`arith.constant value : t` (t a float, signless integer or index)."""
    if is_float(t):
        return b.create(arith.ConstantOp(FloatAttr(float(value), cast(AnyFloat, t)))).result
    if isinstance(t, IntegerType | IndexType):
        if isinstance(t, IntegerType) and t.width.data == 1:
            value = -1 if value else 0
        return b.create(arith.ConstantOp(IntegerAttr(int(value), t))).result
    raise UnsupportedOp(f"no constant of type {t}")


def _op(b: OpBuilder, op: Operation) -> SSAValue:
    return b.create(op).results[0]


# float op, signed int op, unsigned int op (None: not defined)
_BINARY: dict[str, tuple[type | None, type | None, type | None]] = {
    "add": (arith.AddfOp, arith.AddiOp, arith.AddiOp),
    "subtract": (arith.SubfOp, arith.SubiOp, arith.SubiOp),
    "multiply": (arith.MulfOp, arith.MuliOp, arith.MuliOp),
    "divide": (arith.DivfOp, arith.DivSIOp, arith.DivUIOp),
    "maximum": (arith.MaximumfOp, arith.MaxSIOp, arith.MaxUIOp),
    "minimum": (arith.MinimumfOp, arith.MinSIOp, arith.MinUIOp),
    "and": (None, arith.AndIOp, arith.AndIOp),
    "or": (None, arith.OrIOp, arith.OrIOp),
    "xor": (None, arith.XOrIOp, arith.XOrIOp),
    "remainder": (None, arith.RemSIOp, arith.RemUIOp),
    "atan2": (math.Atan2Op, None, None),
}

_UNARY_FLOAT: dict[str, type] = {
    "ceil": math.CeilOp,
    "floor": math.FloorOp,
    "cosine": math.CosOp,
    "sine": math.SinOp,
    "tan": math.TanOp,
    "exponential": math.ExpOp,
    "exponential_minus_one": math.ExpM1Op,
    "log": math.LogOp,
    "log_plus_one": math.Log1pOp,
    "sqrt": math.SqrtOp,
    "rsqrt": math.RsqrtOp,
    "tanh": math.TanhOp,
    "cbrt": math.CbrtOp,
    "round_nearest_afz": math.RoundOp,
    "round_nearest_even": math.RoundEvenOp,
}

_CMP_INT = {"EQ": "eq", "NE": "ne", "LT": "slt", "LE": "sle", "GT": "sgt", "GE": "sge"}
_CMP_UINT = {"EQ": "eq", "NE": "ne", "LT": "ult", "LE": "ule", "GT": "ugt", "GE": "uge"}
# mlir-hlo: NE is unordered-not-equal, the others ordered.
_CMP_FLOAT = {"EQ": "oeq", "NE": "une", "LT": "olt", "LE": "ole", "GT": "ogt", "GE": "oge"}


def _short(name: str) -> str:
    return name.split(".", 1)[1] if "." in name else name


def binary(b: OpBuilder, name: str, t: Attribute, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """`lhs <name> rhs` on elements of type `t` (`name` without dialect prefix)."""
    if is_bool(t) and name in ("add", "multiply"):
        name = "or" if name == "add" else "and"
    if name == "power":
        return _power(b, t, lhs, rhs)
    if name in ("shift_left", "shift_right_arithmetic", "shift_right_logical"):
        return _shift(b, name, t, lhs, rhs)
    if name == "remainder" and is_float(t):
        # fmod is exact; `lhs - trunc(lhs / rhs) * rhs` is not once the
        # quotient needs more bits than the mantissa holds (fmod(1e20, 3) = 2).
        # f16 / bf16 go through f32: their fmod is exact in f32 and fits back.
        if isinstance(t, Float16Type | BFloat16Type):
            wide_lhs, wide_rhs = (_op(b, arith.ExtFOp(v, Float32Type())) for v in (lhs, rhs))
            return _op(b, arith.TruncFOp(_op(b, llvm.FRemOp(wide_lhs, wide_rhs)), t))
        return _op(b, llvm.FRemOp(lhs, rhs))
    if name in ("divide", "remainder") and isinstance(t, IntegerType) and not is_bool(t):
        return _int_div_rem(b, name, t, lhs, rhs)
    entry = _BINARY.get(name)
    if entry is None:
        raise UnsupportedOp(f"no scalar lowering of binary op '{name}'")
    fop, sop, uop = entry
    if is_float(t):
        cls = fop
    elif is_int(t) or isinstance(t, IndexType):
        cls = uop if is_unsigned(t) else sop
    else:
        cls = None
    if cls is None:
        raise UnsupportedOp(f"no scalar lowering of '{name}' on {t}")
    return _op(b, cls(lhs, rhs))


def _int_div_rem(b: OpBuilder, name: str, t: IntegerType, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """Integer divide / remainder with XLA's (and mlir-hlo's) defined results
    where the machine instruction traps: `x / 0 = -1` (all ones unsigned),
    `x % 0 = x`, `INT_MIN / -1 = INT_MIN`, `INT_MIN % -1 = 0`. The division
    runs on a safe divisor (1) in those cases."""
    st = signless(t)
    zero = constant(b, st, 0)
    one = constant(b, st, 1)
    by_zero = _op(b, arith.CmpiOp(rhs, zero, "eq"))
    invalid = by_zero
    overflow = None
    if not is_unsigned(t):
        int_min = constant(b, st, -(1 << (t.width.data - 1)))
        is_min = _op(b, arith.CmpiOp(lhs, int_min, "eq"))
        minus_one = _op(b, arith.CmpiOp(rhs, constant(b, st, -1), "eq"))
        overflow = _op(b, arith.AndIOp(is_min, minus_one))
        invalid = _op(b, arith.OrIOp(by_zero, overflow))
    divisor = _op(b, arith.SelectOp(invalid, one, rhs))
    if name == "divide":
        cls = arith.DivUIOp if is_unsigned(t) else arith.DivSIOp
        result = _op(b, cls(lhs, divisor))  # INT_MIN / 1 = INT_MIN on overflow
        return _op(b, arith.SelectOp(by_zero, constant(b, st, -1), result))
    rem_cls = arith.RemUIOp if is_unsigned(t) else arith.RemSIOp
    result = _op(b, rem_cls(lhs, divisor))  # x % 1 = 0 on overflow
    return _op(b, arith.SelectOp(by_zero, lhs, result))


def _power(b: OpBuilder, t: Attribute, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    if is_float(t):
        return _op(b, math.PowFOp(lhs, rhs))
    if is_int(t):
        return _int_power(b, t, lhs, rhs)
    raise UnsupportedOp(f"no scalar lowering of 'power' on {t}")


# mlir-hlo bounds integer exponentiation by squaring to 6 steps: any larger
# exponent overflows every base but 0, 1 and -1, whose results only depend on
# the exponent's low bit.
_INT_POW_STEPS = 6


def _int_power(b: OpBuilder, t: Attribute, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """mlir-hlo's integer `power`: squaring over the exponent's low bits, then negative exponents.

    A negative exponent gives 1 for base 1, +-1 for base -1 (by parity) and 0
    otherwise (integer reciprocal truncates); unsigned exponents are never negative.
    """
    st = signless(t)  # operands arrive as signless integers
    one = constant(b, st, 1)
    zero = constant(b, st, 0)
    accum, base, exponent = one, lhs, rhs
    for _ in range(_INT_POW_STEPS):
        odd = _op(b, arith.CmpiOp(_op(b, arith.AndIOp(exponent, one)), one, "eq"))
        accum = _op(b, arith.SelectOp(odd, _op(b, arith.MuliOp(accum, base)), accum))
        base = _op(b, arith.MuliOp(base, base))
        exponent = _op(b, arith.ShRUIOp(exponent, one))
    if is_unsigned(t):
        return accum
    minus_one = constant(b, st, -1)
    even = _op(b, arith.CmpiOp(_op(b, arith.AndIOp(rhs, one)), zero, "eq"))
    negative = _op(b, arith.CmpiOp(rhs, zero, "slt"))
    base_one = _op(b, arith.CmpiOp(lhs, one, "eq"))
    base_minus_one = _op(b, arith.CmpiOp(lhs, minus_one, "eq"))
    parity = _op(b, arith.SelectOp(even, one, minus_one))
    for_minus_one = _op(b, arith.SelectOp(base_minus_one, parity, zero))
    for_negative = _op(b, arith.SelectOp(base_one, one, for_minus_one))
    return _op(b, arith.SelectOp(negative, for_negative, accum))


def _shift(b: OpBuilder, name: str, t: Attribute, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """mlir-hlo's shifts: an amount >= the bit width gives 0 (or the sign fill)."""
    if not is_int(t):
        raise UnsupportedOp(f"no scalar lowering of '{name}' on {t}")
    assert isinstance(t, IntegerType)
    st = signless(t)  # the values are signless (ui32 data arrives as i32)
    width = constant(b, st, t.width.data)
    in_range = _op(b, arith.CmpiOp(rhs, width, "ult"))
    if name == "shift_left":
        shifted = _op(b, arith.ShLIOp(lhs, rhs))
        return _op(b, arith.SelectOp(in_range, shifted, constant(b, st, 0)))
    if name == "shift_right_logical":
        shifted = _op(b, arith.ShRUIOp(lhs, rhs))
        return _op(b, arith.SelectOp(in_range, shifted, constant(b, st, 0)))
    max_shift = constant(b, st, t.width.data - 1)
    amount = _op(b, arith.SelectOp(in_range, rhs, max_shift))
    return _op(b, arith.ShRSIOp(lhs, amount))


def unary(b: OpBuilder, name: str, t: Attribute, x: SSAValue) -> SSAValue:
    """`name(x)` on elements of type `t` (same result type)."""
    if is_float(t):
        cls = _UNARY_FLOAT.get(name)
        if cls is not None:
            return _op(b, cls(x))
        if name == "abs":
            return _op(b, math.AbsFOp(x))
        if name == "negate":
            return _op(b, arith.NegfOp(x))
        if name == "logistic":
            # 1 / (1 + exp(-x))
            one = constant(b, t, 1.0)
            e = _op(b, math.ExpOp(_op(b, arith.NegfOp(x))))
            return _op(b, arith.DivfOp(one, _op(b, arith.AddfOp(one, e))))
        if name == "sign":
            # nan -> nan, +-0 -> +-0, else copysign(1, x)
            zero = constant(b, t, 0.0)
            one = constant(b, t, 1.0)
            is_zero = _op(b, arith.CmpfOp(x, zero, "oeq"))
            is_nan = _op(b, arith.CmpfOp(x, x, "uno"))
            signed_one = _op(b, math.CopySignOp(one, x))
            keep = _op(b, arith.OrIOp(is_zero, is_nan))
            return _op(b, arith.SelectOp(keep, x, signed_one))
        if name == "is_finite":
            raise UnsupportedOp("is_finite changes the element type; use `map_lmhlo_to_scalar`")
    elif is_int(t):
        assert isinstance(t, IntegerType)
        st = signless(t)  # the values are signless (ui32 data arrives as i32)
        if name == "abs":
            return _op(b, math.AbsIOp(x))
        if name == "negate":
            return _op(b, arith.SubiOp(constant(b, st, 0), x))
        if name == "not":
            return _op(b, arith.XOrIOp(x, constant(b, st, -1)))
        if name == "popcnt":
            return _op(b, math.CtPopOp(x))
        if name == "count_leading_zeros":
            return _op(b, math.CountLeadingZerosOp(x))
        if name == "sign":
            # (x >> (w-1)) | (0 - x) >>u (w-1): -1, 0 or 1
            shift = constant(b, st, t.width.data - 1)
            neg = _op(b, arith.ShRSIOp(x, shift))
            pos = _op(b, arith.ShRUIOp(_op(b, arith.SubiOp(constant(b, st, 0), x)), shift))
            return _op(b, arith.OrIOp(neg, pos))
    raise UnsupportedOp(f"no scalar lowering of unary op '{name}' on {t}")


def convert(b: OpBuilder, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    """mlir-hlo's `convert` element conversion from `src` to `dst` (signless values)."""
    if src == dst:
        return x
    if is_bool(dst) and not is_bool(src):
        # x != 0
        if is_float(src):
            return _op(b, arith.CmpfOp(x, constant(b, src, 0.0), "une"))
        return _op(b, arith.CmpiOp(x, constant(b, signless(src), 0), "ne"))
    if is_float(src) and is_float(dst):
        assert isinstance(src, AnyFloat) and isinstance(dst, AnyFloat)
        if src.bitwidth < dst.bitwidth:
            return _op(b, arith.ExtFOp(x, dst))
        return _op(b, arith.TruncFOp(x, dst))
    if is_int(src) and is_float(dst):
        if is_unsigned(src) or is_bool(src):
            return _op(b, arith.UIToFPOp(x, cast(AnyFloat, dst)))
        return _op(b, arith.SIToFPOp(x, cast(AnyFloat, dst)))
    if is_float(src) and is_int(dst):
        return _float_to_int(b, x, src, dst)
    if is_int(src) and is_int(dst):
        assert isinstance(src, IntegerType) and isinstance(dst, IntegerType)
        sw, dw = src.width.data, dst.width.data
        if sw == dw:
            return x
        if sw > dw:
            return _op(b, arith.TruncIOp(x, signless(dst)))
        if is_unsigned(src) or sw == 1:
            return _op(b, arith.ExtUIOp(x, signless(dst)))
        return _op(b, arith.ExtSIOp(x, signless(dst)))
    if isinstance(src, IndexType) or isinstance(dst, IndexType):
        return _op(b, arith.IndexCastOp(x, signless(dst)))
    raise UnsupportedOp(f"no conversion from {src} to {dst}")


def _float_to_int(b: OpBuilder, x: SSAValue, src: Attribute, dst: Attribute) -> SSAValue:
    """XLA's saturating float -> integer conversion: truncation toward zero,
    out-of-range values clamped to the integer type's bounds, NaN -> 0
    (`arith.fptosi` / `fptoui` alone give poison there)."""
    assert isinstance(dst, IntegerType) and isinstance(src, AnyFloat)
    width = dst.width.data
    st = signless(dst)
    # a bound beyond the float type's range (f16 -> i32): only infinities pass it
    max_finite = 65504.0 if src.name == "f16" else float("inf")  # wider types hold 2**64
    if is_unsigned(dst):
        lo, hi = 0, (1 << width) - 1
        converted = _op(b, arith.FPToUIOp(x, st))
        # !(x > 0): negative, zero or NaN -> 0
        low = _op(b, arith.CmpfOp(x, constant(b, src, 0.0), "ule"))
    else:
        lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
        converted = _op(b, arith.FPToSIOp(x, st))
        if -lo <= max_finite:
            low = _op(b, arith.CmpfOp(x, constant(b, src, float(lo)), "olt"))
        else:
            low = _op(b, arith.CmpfOp(x, constant(b, src, float("-inf")), "oeq"))
    if hi + 1 <= max_finite:
        high = _op(b, arith.CmpfOp(x, constant(b, src, float(hi + 1)), "oge"))
    else:
        high = _op(b, arith.CmpfOp(x, constant(b, src, float("inf")), "oeq"))
    result = _op(b, arith.SelectOp(high, constant(b, st, hi), converted))
    result = _op(b, arith.SelectOp(low, constant(b, st, lo), result))
    if not is_unsigned(dst):
        is_nan = _op(b, arith.CmpfOp(x, x, "uno"))
        result = _op(b, arith.SelectOp(is_nan, constant(b, st, 0), result))
    return result


def compare(b: OpBuilder, direction: str, t: Attribute, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """`lhs <direction> rhs` (EQ/NE/LT/LE/GT/GE) on elements of type `t`, an i1."""
    if is_float(t):
        return _op(b, arith.CmpfOp(lhs, rhs, _CMP_FLOAT[direction]))
    table = _CMP_UINT if (is_unsigned(t) or is_bool(t)) else _CMP_INT
    return _op(b, arith.CmpiOp(lhs, rhs, table[direction]))


def total_order_compare(
    b: OpBuilder, direction: str, t: Attribute, lhs: SSAValue, rhs: SSAValue
) -> SSAValue:
    """`lhs <direction> rhs` in XLA's total order of floats of type `t`:
    -NaN < -Inf < ... < -0 < +0 < ... < +Inf < +NaN. The bits are compared as
    signed integers after flipping every bit but the sign of negative values."""
    assert isinstance(t, AnyFloat)
    it = IntegerType(t.bitwidth)
    shift = constant(b, it, t.bitwidth - 1)

    def key(x: SSAValue) -> SSAValue:
        bits = _op(b, arith.BitcastOp(x, it))
        sign = _op(b, arith.ShRSIOp(bits, shift))  # all ones when negative
        magnitude_mask = _op(b, arith.ShRUIOp(sign, constant(b, it, 1)))
        return _op(b, arith.XOrIOp(bits, magnitude_mask))

    return _op(b, arith.CmpiOp(key(lhs), key(rhs), _CMP_INT[direction]))


def _compare_type(op: Operation) -> str | None:
    attr = inherent_attr(op, "compare_type")
    if attr is None:
        return None
    data = getattr(attr, "data", attr)
    return str(getattr(data, "value", data))


def _direction(op: Operation) -> str:
    attr = inherent_attr(op, "comparison_direction")
    if attr is None:
        raise UnsupportedOp("lmhlo.compare without comparison_direction")
    data = getattr(attr, "data", attr)
    return str(getattr(data, "value", data))


def accumulate(b: OpBuilder, op_name: str, t: Attribute, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    """The reduce-body binary op `op_name` (`lmhlo.add`...) on `lhs`, `rhs` of type `t`."""
    return _with_signless(b, t, [lhs, rhs], lambda vs: binary(b, _short(op_name), t, *vs))


def _with_signless(b: OpBuilder, t: Attribute, values: Sequence[SSAValue], emit) -> SSAValue:
    """Run `emit` on `values` cast to signless integers, casting the result back to `t`."""
    st = signless(t)
    if st == t:
        return emit(list(values))
    cast = [cast_to(b, v, signless(v.type)) for v in values]
    result = emit(cast)
    return cast_to(b, result, t) if result.type == st else result


def map_lmhlo_to_scalar(
    b: OpBuilder, op: Operation, result_type: Attribute, operands: Sequence[SSAValue]
) -> SSAValue:
    """One output element of the elementwise lmhlo op `op` from input elements `operands`."""
    name = _short(op.name)
    in_type = operands[0].type if operands else result_type
    if name in ("convert", "bitcast_convert"):
        if name == "bitcast_convert":
            x = cast_to(b, operands[0], signless(in_type))
            out = _op(b, arith.BitcastOp(x, signless(result_type)))
            return cast_to(b, out, result_type)
        x = cast_to(b, operands[0], signless(in_type))
        out = convert(b, x, in_type, result_type)
        return cast_to(b, out, result_type)
    if name == "compare":
        direction = _direction(op)
        vs = [cast_to(b, v, signless(v.type)) for v in operands]
        if is_float(in_type) and _compare_type(op) == "TOTALORDER":
            return total_order_compare(b, direction, in_type, vs[0], vs[1])
        return compare(b, direction, in_type, vs[0], vs[1])
    if name == "is_finite":
        x = operands[0]
        inf = constant(b, in_type, float("inf"))
        return _op(b, arith.CmpfOp(_op(b, math.AbsFOp(x)), inf, "one"))
    if name == "select":
        return _op(b, arith.SelectOp(operands[0], operands[1], operands[2]))
    if name == "clamp":
        lo, x, hi = operands
        return _with_signless(
            b,
            in_type,
            [lo, x, hi],
            lambda vs: binary(
                b, "minimum", x.type, binary(b, "maximum", x.type, vs[1], vs[0]), vs[2]
            ),
        )
    if name == "copy":
        return operands[0]
    if len(operands) == 1:
        return _with_signless(b, in_type, operands, lambda vs: unary(b, name, in_type, vs[0]))
    if len(operands) == 2:
        return _with_signless(
            b, in_type, operands, lambda vs: binary(b, name, in_type, vs[0], vs[1])
        )
    raise UnsupportedOp(f"no scalar lowering of '{op.name}'")


__all__ = [
    "UnsupportedOp",
    "accumulate",
    "binary",
    "cast_to",
    "compare",
    "constant",
    "convert",
    "is_bool",
    "is_float",
    "is_int",
    "is_unsigned",
    "map_lmhlo_to_scalar",
    "signless",
    "total_order_compare",
    "unary",
]
