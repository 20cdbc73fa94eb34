"""Folders of the `arith` dialect, following MLIR's ArithOps.cpp.

Integer ops fold on scalars of integer and index type with APInt semantics
(wraparound modulo 2**width, index 64 bits wide); division by zero and signed
division overflow are never folded. Float ops fold on f16/bf16/f32/f64
scalars, rounding to the result type. Algebraic identities are the ones MLIR's
folders apply (`x + 0`, `x * 1`, `x * 0`, `x - x`, `x ^ x`, select of a
constant condition or equal branches, cast chains, `cmpi` of identical
operands, ...).
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects.builtin import IntegerAttr, IntegerType
from xdsl.ir import Attribute, Operation, OpResult, SSAValue

from disc_ir.rewriting.folding.core import FOLDED_IN_PLACE, FoldResult, register_folder
from disc_ir.rewriting.folding.floats import float_value, ieee_div, make_float_attr, round_int_to
from disc_ir.rewriting.folding.ints import (
    int_value,
    int_width,
    make_int_attr,
    mask,
    signed_max,
    signed_min,
    to_signed,
    to_unsigned,
    trunc_div,
    trunc_rem,
)

Consts = list[Attribute | None]

# --------------------------------------------------------------------------
# helpers


def _defining(value: SSAValue, name: str) -> Operation | None:
    """The op defining `value` if its name is `name`."""
    if isinstance(value, OpResult) and value.op.name == name:
        return value.op
    return None


def _is_int(attr: Attribute | None, value: int) -> bool:
    """Whether `attr` is an integer constant equal to `value` modulo its width."""
    if attr is None:
        return False
    iv = int_value(attr)
    return iv is not None and iv[0] == to_unsigned(value, iv[1])


def _is_all_ones(attr: Attribute | None) -> bool:
    return _is_int(attr, -1)


def _is_float(attr: Attribute | None, value: float) -> bool:
    """Whether `attr` is a float constant bit-equal to `value` (sign of zero counts)."""
    v = float_value(attr) if attr is not None else None
    if v is None:
        return False
    return v == value and math.copysign(1.0, v) == math.copysign(1.0, value)


def _result(op: Operation) -> SSAValue:
    return op.results[0]


IntBinFn = Callable[[int, int, int], int | None]
"""(lhs unsigned, rhs unsigned, width) -> result (any int, wrapped later) or None."""


def _fold_int_binary(op: Operation, consts: Consts, fn: IntBinFn) -> FoldResult | None:
    lhs, rhs = consts[0], consts[1]
    if lhs is None or rhs is None:
        return None
    lv, rv = int_value(lhs), int_value(rhs)
    if lv is None or rv is None or lv[1] != rv[1]:
        return None
    res = fn(lv[0], rv[0], lv[1])
    if res is None:
        return None
    return (make_int_attr(res, _result(op).type),)


# --------------------------------------------------------------------------
# integer arithmetic


@register_folder("arith.addi")
def fold_addi(op: Operation, consts: Consts) -> FoldResult | None:
    lhs, rhs = op.operands
    if _is_int(consts[1], 0):  # addi(x, 0) -> x
        return (lhs,)
    # addi(subi(a, b), b) -> a ; addi(b, subi(a, b)) -> a
    for sub_val, other in ((lhs, rhs), (rhs, lhs)):
        sub = _defining(sub_val, "arith.subi")
        if sub is not None and sub.operands[1] == other:
            return (sub.operands[0],)
    return _fold_int_binary(op, consts, lambda a, b, w: a + b)


@register_folder("arith.subi")
def fold_subi(op: Operation, consts: Consts) -> FoldResult | None:
    lhs, rhs = op.operands
    if lhs == rhs:  # subi(x, x) -> 0
        return (make_int_attr(0, _result(op).type),) if int_width(lhs.type) else None
    if _is_int(consts[1], 0):  # subi(x, 0) -> x
        return (lhs,)
    add = _defining(lhs, "arith.addi")
    if add is not None:
        if add.operands[1] == rhs:  # subi(addi(a, b), b) -> a
            return (add.operands[0],)
        if add.operands[0] == rhs:  # subi(addi(a, b), a) -> b
            return (add.operands[1],)
    return _fold_int_binary(op, consts, lambda a, b, w: a - b)


@register_folder("arith.muli")
def fold_muli(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_int(consts[1], 0):  # muli(x, 0) -> 0
        return (op.operands[1],)
    if _is_int(consts[1], 1):  # muli(x, 1) -> x
        return (op.operands[0],)
    return _fold_int_binary(op, consts, lambda a, b, w: a * b)


def _sdiv(a: int, b: int, w: int) -> int | None:
    sa, sb = to_signed(a, w), to_signed(b, w)
    if sb == 0 or (sa == signed_min(w) and sb == -1):
        return None  # division by zero / overflow: not folded
    return trunc_div(sa, sb)


@register_folder("arith.divsi")
def fold_divsi(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_int(consts[1], 1):
        return (op.operands[0],)
    return _fold_int_binary(op, consts, _sdiv)


@register_folder("arith.divui")
def fold_divui(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_int(consts[1], 1):
        return (op.operands[0],)
    return _fold_int_binary(op, consts, lambda a, b, w: a // b if b else None)


def _ceildivsi(a: int, b: int, w: int) -> int | None:
    sa, sb = to_signed(a, w), to_signed(b, w)
    if sb == 0 or (sa == signed_min(w) and sb == -1):
        return None
    return -((-sa) // sb)


def _floordivsi(a: int, b: int, w: int) -> int | None:
    sa, sb = to_signed(a, w), to_signed(b, w)
    if sb == 0 or (sa == signed_min(w) and sb == -1):
        return None
    return sa // sb


@register_folder("arith.ceildivsi")
def fold_ceildivsi(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_int(consts[1], 1):
        return (op.operands[0],)
    return _fold_int_binary(op, consts, _ceildivsi)


@register_folder("arith.floordivsi")
def fold_floordivsi(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_int(consts[1], 1):
        return (op.operands[0],)
    return _fold_int_binary(op, consts, _floordivsi)


@register_folder("arith.ceildivui")
def fold_ceildivui(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_int(consts[1], 1):
        return (op.operands[0],)
    return _fold_int_binary(op, consts, lambda a, b, w: -((-a) // b) if b else None)


@register_folder("arith.remsi")
def fold_remsi(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_int(consts[1], 1):  # remsi(x, 1) -> 0
        return (make_int_attr(0, _result(op).type),)

    def rem(a: int, b: int, w: int) -> int | None:
        sb = to_signed(b, w)
        return trunc_rem(to_signed(a, w), sb) if sb else None

    return _fold_int_binary(op, consts, rem)


@register_folder("arith.remui")
def fold_remui(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_int(consts[1], 1):  # remui(x, 1) -> 0
        return (make_int_attr(0, _result(op).type),)
    return _fold_int_binary(op, consts, lambda a, b, w: a % b if b else None)


@register_folder("arith.andi")
def fold_andi(op: Operation, consts: Consts) -> FoldResult | None:
    lhs, rhs = op.operands
    if _is_int(consts[1], 0):  # andi(x, 0) -> 0
        return (rhs,)
    if _is_all_ones(consts[1]):  # andi(x, -1) -> x
        return (lhs,)
    if lhs == rhs:  # andi(x, x) -> x
        return (lhs,)
    return _fold_int_binary(op, consts, lambda a, b, w: a & b)


@register_folder("arith.ori")
def fold_ori(op: Operation, consts: Consts) -> FoldResult | None:
    lhs, rhs = op.operands
    if _is_int(consts[1], 0):  # ori(x, 0) -> x
        return (lhs,)
    if _is_all_ones(consts[1]):  # ori(x, -1) -> -1
        return (rhs,)
    if lhs == rhs:  # ori(x, x) -> x
        return (lhs,)
    return _fold_int_binary(op, consts, lambda a, b, w: a | b)


@register_folder("arith.xori")
def fold_xori(op: Operation, consts: Consts) -> FoldResult | None:
    lhs, rhs = op.operands
    if _is_int(consts[1], 0):  # xori(x, 0) -> x
        return (lhs,)
    if lhs == rhs:  # xori(x, x) -> 0
        return (make_int_attr(0, _result(op).type),) if int_width(lhs.type) else None
    # xori(xori(x, a), a) -> x ; xori(xori(a, x), a) -> x
    inner = _defining(lhs, "arith.xori")
    if inner is not None:
        if inner.operands[1] == rhs:
            return (inner.operands[0],)
        if inner.operands[0] == rhs:
            return (inner.operands[1],)
    return _fold_int_binary(op, consts, lambda a, b, w: a ^ b)


def _shift(kind: str) -> IntBinFn:
    def fn(a: int, b: int, w: int) -> int | None:
        if b >= w:  # shifting by the width or more is poison: not folded
            return None
        if kind == "shl":
            return a << b
        if kind == "lshr":
            return a >> b
        return to_signed(a, w) >> b

    return fn


def _register_shift(name: str, kind: str) -> None:
    def fold(op: Operation, consts: Consts) -> FoldResult | None:
        if _is_int(consts[1], 0):  # shift by 0 -> x
            return (op.operands[0],)
        return _fold_int_binary(op, consts, _shift(kind))

    register_folder(name)(fold)


_register_shift("arith.shli", "shl")
_register_shift("arith.shrui", "lshr")
_register_shift("arith.shrsi", "ashr")


def _register_minmax(name: str, signed: bool, is_max: bool) -> None:
    def fold(op: Operation, consts: Consts) -> FoldResult | None:
        lhs, rhs = op.operands
        if lhs == rhs:
            return (lhs,)
        rhs_c = consts[1]
        if rhs_c is not None and (iv := int_value(rhs_c)) is not None:
            w = iv[1]
            top = signed_max(w) if signed else mask(w)
            bottom = signed_min(w) if signed else 0
            # max(x, MAX) -> MAX, max(x, MIN) -> x, min(x, MIN) -> MIN, min(x, MAX) -> x
            absorbing, identity = (top, bottom) if is_max else (bottom, top)
            if _is_int(rhs_c, absorbing):
                return (rhs,)
            if _is_int(rhs_c, identity):
                return (lhs,)

        def fn(a: int, b: int, w: int) -> int:
            x, y = (to_signed(a, w), to_signed(b, w)) if signed else (a, b)
            return max(x, y) if is_max else min(x, y)

        return _fold_int_binary(op, consts, fn)

    register_folder(name)(fold)


_register_minmax("arith.maxsi", True, True)
_register_minmax("arith.minsi", True, False)
_register_minmax("arith.maxui", False, True)
_register_minmax("arith.minui", False, False)

# --------------------------------------------------------------------------
# comparisons and select

# cmpi predicates: eq ne slt sle sgt sge ult ule ugt uge
_CMPI_EQUAL_OPERANDS = (True, False, False, True, False, True, False, True, False, True)
# predicate of `cmpi p, a, b` as `cmpi p', b, a`
_CMPI_SWAPPED = (0, 1, 4, 5, 2, 3, 8, 9, 6, 7)


def apply_cmpi(predicate: int, a: int, b: int, width: int) -> bool:
    """MLIR's applyCmpPredicate for integers given as unsigned values of `width` bits."""
    if predicate in (2, 3, 4, 5):
        a, b = to_signed(a, width), to_signed(b, width)
    match predicate:
        case 0:
            return a == b
        case 1:
            return a != b
        case 2 | 6:
            return a < b
        case 3 | 7:
            return a <= b
        case 4 | 8:
            return a > b
        case 5 | 9:
            return a >= b
    raise ValueError(f"unknown cmpi predicate {predicate}")


def _predicate(op: Operation) -> int:
    attr = op.properties.get("predicate")
    if attr is None:
        attr = op.attributes.get("predicate")
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


def _bool_attr(value: bool) -> IntegerAttr:
    return make_int_attr(1 if value else 0, IntegerType(1))


@register_folder("arith.cmpi")
def fold_cmpi(op: Operation, consts: Consts) -> FoldResult | None:
    lhs, rhs = op.operands
    if not isinstance(op.results[0].type, IntegerType):
        return None  # vector/tensor comparisons are not folded here
    pred = _predicate(op)
    if lhs == rhs:
        return (_bool_attr(_CMPI_EQUAL_OPERANDS[pred]),)
    is_i1 = lhs.type == IntegerType(1)
    if _is_int(consts[1], 0):
        for ext_name in ("arith.extsi", "arith.extui"):
            ext = _defining(lhs, ext_name)
            if ext is not None and ext.operands[0].type == IntegerType(1) and pred == 1:
                return (ext.operands[0],)  # ext(%x : i1) != 0 -> %x
        if is_i1 and pred == 1:  # cmpi ne, %x, false -> %x
            return (lhs,)
    if _is_int(consts[1], 1) and is_i1 and pred == 0:  # cmpi eq, %x, true -> %x
        return (lhs,)
    if consts[0] is None or consts[1] is None:
        return None
    lv, rv = int_value(consts[0]), int_value(consts[1])
    if lv is None or rv is None:
        return None
    return (_bool_attr(apply_cmpi(pred, lv[0], rv[0], lv[1])),)


@register_folder("arith.cmpi", in_place=True)
def swap_cmpi_constant(op: Operation, consts: Consts) -> FoldResult | None:
    """cmpi p, %cst, %x -> cmpi swap(p), %x, %cst (constants to the right)."""
    if consts[0] is None or consts[1] is not None:
        return None
    from xdsl.dialects.arith import CmpiOp

    if not isinstance(op, CmpiOp):
        return None
    op.predicate = IntegerAttr(_CMPI_SWAPPED[_predicate(op)], 64)
    op.operands = [op.operands[1], op.operands[0]]
    return FOLDED_IN_PLACE


def apply_cmpf(predicate: int, a: float, b: float) -> bool:
    """MLIR's applyCmpPredicate for floats (ordered/unordered predicates 0..15)."""
    unordered = math.isnan(a) or math.isnan(b)
    match predicate:
        case 0:
            return False
        case 15:
            return True
        case 7:  # ord
            return not unordered
        case 14:  # uno
            return unordered
    ordered_pred = predicate if predicate < 7 else predicate - 7
    if unordered:
        return predicate >= 8
    match ordered_pred:
        case 1:
            return a == b
        case 2:
            return a > b
        case 3:
            return a >= b
        case 4:
            return a < b
        case 5:
            return a <= b
        case 6:
            return a != b
    raise ValueError(f"unknown cmpf predicate {predicate}")


@register_folder("arith.cmpf")
def fold_cmpf(op: Operation, consts: Consts) -> FoldResult | None:
    if consts[0] is None or consts[1] is None or not isinstance(op.results[0].type, IntegerType):
        return None
    a, b = float_value(consts[0]), float_value(consts[1])
    if a is None or b is None:
        return None
    return (_bool_attr(apply_cmpf(_predicate(op), a, b)),)


@register_folder("arith.select")
def fold_select(op: Operation, consts: Consts) -> FoldResult | None:
    cond, true_val, false_val = op.operands
    if true_val == false_val:
        return (true_val,)
    if _is_int(consts[0], 1) and cond.type == IntegerType(1):
        return (true_val,)
    if _is_int(consts[0], 0) and cond.type == IntegerType(1):
        return (false_val,)
    # select %x, true, false -> %x
    if (
        op.results[0].type == IntegerType(1)
        and _is_int(consts[1], 1)
        and _is_int(consts[2], 0)
        and cond.type == IntegerType(1)
    ):
        return (cond,)
    cmp = _defining(cond, "arith.cmpi")
    if cmp is not None and _predicate(cmp) in (0, 1):
        a, b = cmp.operands
        if (a == true_val and b == false_val) or (b == true_val and a == false_val):
            return (true_val,) if _predicate(cmp) == 1 else (false_val,)
    return None


# --------------------------------------------------------------------------
# casts


def _int_cast(op: Operation, consts: Consts, signed: bool) -> FoldResult | None:
    src = consts[0]
    if src is None or (iv := int_value(src)) is None:
        return None
    out_type = op.results[0].type
    if int_width(out_type) is None:
        return None
    value = to_signed(iv[0], iv[1]) if signed else iv[0]
    return (make_int_attr(value, out_type),)


@register_folder("arith.index_cast")
def fold_index_cast(op: Operation, consts: Consts) -> FoldResult | None:
    return _int_cast(op, consts, signed=True)


@register_folder("arith.index_castui")
def fold_index_castui(op: Operation, consts: Consts) -> FoldResult | None:
    return _int_cast(op, consts, signed=False)


@register_folder("arith.extsi")
def fold_extsi(op: Operation, consts: Consts) -> FoldResult | None:
    return _int_cast(op, consts, signed=True)


@register_folder("arith.extui")
def fold_extui(op: Operation, consts: Consts) -> FoldResult | None:
    return _int_cast(op, consts, signed=False)


def _ext_of_ext(name: str) -> None:
    def fold(op: Operation, consts: Consts) -> FoldResult | None:
        inner = _defining(op.operands[0], name)
        if inner is None:
            return None
        op.operands = [inner.operands[0]]  # ext(ext(x)) -> ext(x)
        return FOLDED_IN_PLACE

    register_folder(name, in_place=True)(fold)


_ext_of_ext("arith.extsi")
_ext_of_ext("arith.extui")


@register_folder("arith.trunci")
def fold_trunci(op: Operation, consts: Consts) -> FoldResult | None:
    src = op.operands[0]
    for ext_name in ("arith.extsi", "arith.extui"):
        ext = _defining(src, ext_name)
        if ext is not None and ext.operands[0].type == op.results[0].type:
            return (ext.operands[0],)  # trunci(ext(a)) -> a
    return _int_cast(op, consts, signed=False)


@register_folder("arith.trunci", in_place=True)
def fold_trunci_in_place(op: Operation, consts: Consts) -> FoldResult | None:
    src = op.operands[0]
    out_width = int_width(op.results[0].type)
    if out_width is None:
        return None
    for name in ("arith.extsi", "arith.extui", "arith.trunci"):
        inner = _defining(src, name)
        if inner is None:
            continue
        inner_src = inner.operands[0]
        width = int_width(inner_src.type)
        # trunci(ext(a)) -> trunci(a) when a is wider; trunci(trunci(a)) -> trunci(a)
        if width is not None and width > out_width:
            op.operands = [inner_src]
            return FOLDED_IN_PLACE
    return None


def _int_to_float(op: Operation, consts: Consts, signed: bool) -> FoldResult | None:
    src = consts[0]
    if src is None or (iv := int_value(src)) is None:
        return None
    value = to_signed(iv[0], iv[1]) if signed else iv[0]
    rounded = round_int_to(value, op.results[0].type)  # one rounding, from the exact integer
    attr = make_float_attr(rounded, op.results[0].type) if rounded is not None else None
    return (attr,) if attr is not None else None


@register_folder("arith.sitofp")
def fold_sitofp(op: Operation, consts: Consts) -> FoldResult | None:
    return _int_to_float(op, consts, signed=True)


@register_folder("arith.uitofp")
def fold_uitofp(op: Operation, consts: Consts) -> FoldResult | None:
    return _int_to_float(op, consts, signed=False)


# --------------------------------------------------------------------------
# float arithmetic

FloatBinFn = Callable[[float, float], float]


def _fold_float_binary(op: Operation, consts: Consts, fn: FloatBinFn) -> FoldResult | None:
    if consts[0] is None or consts[1] is None:
        return None
    a, b = float_value(consts[0]), float_value(consts[1])
    if a is None or b is None or consts[0].type != consts[1].type:  # type: ignore[attr-defined]  # float_value() accepted both: typed float attributes
        return None
    attr = make_float_attr(fn(a, b), op.results[0].type)
    return (attr,) if attr is not None else None


@register_folder("arith.addf")
def fold_addf(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_float(consts[1], -0.0):  # addf(x, -0) -> x
        return (op.operands[0],)
    return _fold_float_binary(op, consts, lambda a, b: a + b)


@register_folder("arith.subf")
def fold_subf(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_float(consts[1], 0.0):  # subf(x, +0) -> x
        return (op.operands[0],)
    return _fold_float_binary(op, consts, lambda a, b: a - b)


@register_folder("arith.mulf")
def fold_mulf(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_float(consts[1], 1.0):  # mulf(x, 1) -> x
        return (op.operands[0],)
    return _fold_float_binary(op, consts, lambda a, b: a * b)


@register_folder("arith.divf")
def fold_divf(op: Operation, consts: Consts) -> FoldResult | None:
    if _is_float(consts[1], 1.0):  # divf(x, 1) -> x
        return (op.operands[0],)
    return _fold_float_binary(op, consts, ieee_div)


@register_folder("arith.negf")
def fold_negf(op: Operation, consts: Consts) -> FoldResult | None:
    inner = _defining(op.operands[0], "arith.negf")
    if inner is not None:  # negf(negf(x)) -> x
        return (inner.operands[0],)
    if consts[0] is None or (v := float_value(consts[0])) is None:
        return None
    attr = make_float_attr(-v, op.results[0].type)
    return (attr,) if attr is not None else None


__all__ = ["apply_cmpf", "apply_cmpi"]
