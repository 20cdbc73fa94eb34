"""Folders of mhlo ops, following mlir-hlo's `hlo_ops.cc` fold methods.

Every folder here works on constants held as `DenseIntOrFPElementsAttr`
(the value of `mhlo.constant`) and returns a dense attribute of the result
type, which the `mhlo` dialect materializes as `mhlo.constant` (see
`disc_ir.dialects.mhlo.MhloConstantMaterializer`). Like mlir-hlo:

- only statically shaped results fold to constants, and a result of more
  than `FOLD_ELEMENT_LIMIT` elements only when it is a splat;
- elementwise ops on int/float elements fold when all operands are constants
  (signless integers compute signed, unsigned ones and i1 unsigned, with
  wrap-around; floats round to the element type); `x + 0`, `0 + x`, `x - 0`,
  `x * 1`, `1 * x`, `and`/`or` with an all-ones / zero splat fold to an operand
  or the constant; integer division or remainder by zero does not fold;
- `compare` of constants, or of a value with itself for integers
  (EQ/LE/GE: true, NE/LT/GT: false); `select` with a splat predicate or equal
  branches, or all operands constant; `convert` to the same type is a no-op,
  of a constant converts the elements;
- `broadcast_in_dim`, `reshape`, `transpose`, `slice`, `concatenate`, `pad`
  of constants compute the new constant; `reshape`, `convert`, `transpose`
  (identity permutation), `broadcast_in_dim` (identity dims), `slice` (full),
  `pad` (no padding), a one-operand `concatenate`, `dynamic_reshape` and
  `dynamic_broadcast_in_dim` (identity dims) whose result type equals the
  operand type fold to the operand;
- `get_dimension_size` of a static dimension is a constant; `iota` along a
  dimension of size 1 is a zero constant (mlir-hlo folds no other iota).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue

from disc_ir.dialects.hlo_attrs import ints
from disc_ir.ir.dense_splat import SPLAT_ELEMENT_LIMIT
from disc_ir.rewriting.folding.core import FoldResult, register_folder
from disc_ir.rewriting.folding.floats import (
    ieee_div,
    is_supported_float,
    round_int_to,
    round_to,
)
from disc_ir.rewriting.folding.ints import (
    int_width,
    to_signed,
    to_unsigned,
    trunc_div,
    trunc_rem,
)

Consts = list[Attribute | None]
Scalar = int | float

FOLD_ELEMENT_LIMIT = 65536
"""mlir-hlo's kFoldOpEltLimit: largest non-splat constant a folder creates."""


# ---------------------------------------------------------------------------
# element helpers


def _static_tensor(type_: Attribute) -> TensorType | None:
    """`type_` if it is a statically shaped ranked tensor."""
    if isinstance(type_, TensorType) and all(d >= 0 for d in type_.get_shape()):
        return type_
    return None


def _numel(shape: Sequence[int]) -> int:
    return math.prod(shape)


def _is_int_elem(t: Attribute) -> bool:
    return isinstance(t, IntegerType | IndexType)


def _is_unsigned(t: Attribute) -> bool:
    """Whether integers of `t` compute unsigned (unsigned types and i1, as mlir-hlo's addSign)."""
    if isinstance(t, IntegerType):
        return t.signedness.data == Signedness.UNSIGNED or t.width.data == 1
    return False


def _normalize_int(value: int, t: Attribute) -> int:
    """`value` wrapped to `t`'s width, in the view xDSL stores (signed unless unsigned)."""
    width = int_width(t)
    assert width is not None
    if isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED:
        return to_unsigned(value, width)
    return to_signed(value, width)


def _int_view(value: int, t: Attribute) -> int:
    """The integer an element of `t` denotes when computing (unsigned for ui/i1)."""
    width = int_width(t)
    assert width is not None
    return to_unsigned(value, width) if _is_unsigned(t) else to_signed(value, width)


def _dense(attr: Attribute | None) -> DenseIntOrFPElementsAttr | None:
    """`attr` if it is a dense int/float constant of a supported element type."""
    if attr.__class__ is not DenseIntOrFPElementsAttr:  # (no subclasses; no ABC check)
        return None
    attr = cast(DenseIntOrFPElementsAttr, attr)
    et = attr.get_element_type()
    if not (_is_int_elem(et) or is_supported_float(et)):
        return None
    return attr


def _values(attr: DenseIntOrFPElementsAttr) -> list[Scalar]:
    """The elements of `attr` in computing view (see `_int_view`), row-major."""
    et = attr.get_element_type()
    raw = list(attr.get_values())
    if _is_int_elem(et):
        return [_int_view(int(v), et) for v in raw]  # type: ignore[call-overload]  # integer element type: the values are ints
    return [float(v) for v in raw]  # type: ignore[arg-type]  # a float element type: the values are floats


def _splat(attr: DenseIntOrFPElementsAttr) -> Scalar | None:
    """The single value of a splat `attr` (computing view), else None."""
    # xDSL stores splats expanded: compare the stored bytes before unpacking
    # (`dense<c> : tensor<1x16x3072xf32>` constants of JAX's erf decomposition)
    raw, count = attr.data.data, len(attr)
    if count > 1 and raw and len(raw) % count == 0:
        size = len(raw) // count
        if raw == raw[:size] * count:
            et = attr.get_element_type()
            first = next(iter(attr.iter_values()))
            return _int_view(int(first), et) if _is_int_elem(et) else float(first)  # type: ignore[arg-type, call-overload]  # an int for integer element types, else a float
    values = _values(attr)
    if not values:
        return None
    first = values[0]
    if isinstance(first, float) and math.isnan(first):
        return first if all(isinstance(v, float) and math.isnan(v) for v in values) else None
    if isinstance(first, float):  # `==` would take [-0.0, 0.0] for a splat
        sign = math.copysign(1.0, first)
        same = all(v == first and math.copysign(1.0, v) == sign for v in values)
        return first if same else None
    return first if all(v == first for v in values) else None


def _make(type_: TensorType, values: Sequence[Scalar]) -> DenseIntOrFPElementsAttr | None:
    """A dense attribute of `type_` (encoding dropped) from computing-view `values`.

    One value makes a splat. Returns None when the element type is not
    supported or a non-splat exceeds `FOLD_ELEMENT_LIMIT`.
    """
    et = type_.get_element_type()
    shape = list(type_.get_shape())
    if len(values) != 1 and len(values) != _numel(shape):
        return None
    if len(values) > FOLD_ELEMENT_LIMIT:
        return None
    if _numel(shape) > SPLAT_ELEMENT_LIMIT:
        return None  # a splat this large would be stored element by element
    stored: list[int | float] = []
    if _is_int_elem(et):
        stored = [_normalize_int(int(v), et) for v in values]
    elif is_supported_float(et):
        for v in values:
            rounded = round_to(float(v), et)
            if rounded is None:
                return None
            stored.append(rounded)
    else:
        return None
    plain = TensorType(et, shape)
    try:
        return DenseIntOrFPElementsAttr.from_list(plain, stored)  # type: ignore[return-value, type-var]  # _is_int_elem / is_supported_float checked `et` above
    except Exception:  # noqa: BLE001 - a value xDSL cannot store: no fold
        return None


def _result_type(op: Operation) -> TensorType | None:
    return _static_tensor(op.results[0].type)


def _too_big(*attrs: DenseIntOrFPElementsAttr) -> bool:
    return any(_numel(a.get_shape()) > FOLD_ELEMENT_LIMIT and _splat(a) is None for a in attrs)


def _same_type(a: SSAValue, b: SSAValue) -> bool:
    return a.type == b.type


# ---------------------------------------------------------------------------
# elementwise


BinFn = Callable[[Scalar, Scalar, Attribute], Scalar | None]


def _float_max(a: float, b: float) -> float:
    """IEEE maximum (`arith.maximumf`, what the generated code computes): NaN
    propagates and -0.0 < +0.0 (Python's `max(-0.0, 0.0)` is -0.0)."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:
        return a if math.copysign(1.0, a) > 0 else b
    return max(a, b)


def _float_min(a: float, b: float) -> float:
    """IEEE minimum (`arith.minimumf`): NaN propagates and -0.0 < +0.0."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:
        return a if math.copysign(1.0, a) < 0 else b
    return min(a, b)


def _div(a: Scalar, b: Scalar, et: Attribute) -> Scalar | None:
    if isinstance(a, float) or isinstance(b, float):
        return ieee_div(float(a), float(b))
    if b == 0:
        return None
    return trunc_div(int(a), int(b))


def _rem(a: Scalar, b: Scalar, et: Attribute) -> Scalar | None:
    if isinstance(a, float) or isinstance(b, float):
        if b == 0.0 or math.isinf(a) or math.isnan(a) or math.isnan(b):
            return math.nan
        return math.fmod(a, b)
    if b == 0:
        return None
    return trunc_rem(int(a), int(b))


def _int_only(fn: Callable[[int, int], int]) -> BinFn:
    def apply(a: Scalar, b: Scalar, et: Attribute) -> Scalar | None:
        if isinstance(a, float) or isinstance(b, float):
            return None
        return fn(a, b)

    return apply


_BINARY: dict[str, BinFn] = {
    "mhlo.add": lambda a, b, et: a + b,
    "mhlo.subtract": lambda a, b, et: a - b,
    "mhlo.multiply": lambda a, b, et: a * b,
    "mhlo.divide": _div,
    "mhlo.remainder": _rem,
    "mhlo.maximum": lambda a, b, et: _float_max(a, b) if isinstance(a, float) else max(a, b),
    "mhlo.minimum": lambda a, b, et: _float_min(a, b) if isinstance(a, float) else min(a, b),
    "mhlo.and": _int_only(lambda a, b: a & b),
    "mhlo.or": _int_only(lambda a, b: a | b),
    "mhlo.xor": _int_only(lambda a, b: a ^ b),
}


def _elementwise(
    op: Operation, attrs: Sequence[DenseIntOrFPElementsAttr], fn: Callable[..., Scalar | None]
) -> FoldResult | None:
    """Apply `fn` elementwise to constant operands of the same shape."""
    rtype = _result_type(op)
    if rtype is None or _too_big(*attrs):
        return None
    splats = [_splat(a) for a in attrs]
    et = attrs[0].get_element_type()
    if all(s is not None for s in splats):
        value = fn(*splats, et)
        if value is None:
            return None
        out = _make(rtype, [value])
        return (out,) if out is not None else None
    lists = [_values(a) for a in attrs]
    n = _numel(rtype.get_shape())
    if any(len(v) != n for v in lists):
        return None
    out_values: list[Scalar] = []
    for items in zip(*lists, strict=True):
        value = fn(*items, et)
        if value is None:
            return None
        out_values.append(value)
    out = _make(rtype, out_values)
    return (out,) if out is not None else None


def _splat_is(attr: Attribute | None, predicate: Callable[[Scalar, Attribute], bool]) -> bool:
    dense = _dense(attr)
    if dense is None:
        return False
    value = _splat(dense)
    return value is not None and predicate(value, dense.get_element_type())


def _is_zero(v: Scalar, et: Attribute) -> bool:
    return v == 0 and not (isinstance(v, float) and math.copysign(1.0, v) < 0)


def _is_additive_identity(v: Scalar, et: Attribute) -> bool:
    """`x + v == x` for every x: integer 0, float -0.0 (`-0.0 + 0.0` is +0.0)."""
    if isinstance(v, float):
        return v == 0 and math.copysign(1.0, v) < 0
    return v == 0


def _is_one(v: Scalar, et: Attribute) -> bool:
    if isinstance(et, IntegerType) and et.width.data == 1:
        return False
    return v == 1


def _is_all_ones(v: Scalar, et: Attribute) -> bool:
    width = int_width(et)
    return width is not None and isinstance(v, int) and to_unsigned(v, width) == (1 << width) - 1


def _identity_folds(op: Operation, consts: Consts) -> FoldResult | None:
    """`x + 0`, `x - 0`, `x * 1`, `and`/`or` with all-ones / zero splats (mlir-hlo's special cases).

    For floats `x + c` folds only for c = -0.0 and `x - c` only for c = +0.0:
    mlir-hlo's `x + 0.0 -> x` would turn `-0.0 + 0.0` (+0.0) into -0.0.
    """
    lhs, rhs = op.operands
    result = op.results[0]
    name = op.name
    if name == "mhlo.add":
        if _splat_is(consts[0], _is_additive_identity) and _same_type(rhs, result):
            return (rhs,)
        if _splat_is(consts[1], _is_additive_identity) and _same_type(lhs, result):
            return (lhs,)
    elif name == "mhlo.subtract":
        if _splat_is(consts[1], _is_zero) and _same_type(lhs, result):
            return (lhs,)
    elif name == "mhlo.multiply":
        if _splat_is(consts[0], _is_one) and _same_type(rhs, result):
            return (rhs,)
        if _splat_is(consts[1], _is_one) and _same_type(lhs, result):
            return (lhs,)
    elif name in ("mhlo.and", "mhlo.or"):
        # and(x, ones) = x, and(x, 0) = 0; or(x, 0) = x, or(x, ones) = ones
        keep, absorb = (_is_all_ones, _is_zero) if name == "mhlo.and" else (_is_zero, _is_all_ones)
        for this, other in ((1, 0), (0, 1)):
            if _splat_is(consts[this], keep) and _same_type(op.operands[other], result):
                return (op.operands[other],)
            if _splat_is(consts[this], absorb) and _same_type(op.operands[this], result):
                return (op.operands[this],)
    return None


def _fold_binary(op: Operation, consts: Consts) -> FoldResult | None:
    if (identity := _identity_folds(op, consts)) is not None:
        return identity
    lhs, rhs = _dense(consts[0]), _dense(consts[1])
    if lhs is None or rhs is None:
        return None
    fn = _BINARY[op.name]
    return _elementwise(op, [lhs, rhs], fn)


register_folder(*_BINARY)(_fold_binary)


def _negate(a: Scalar, et: Attribute) -> Scalar | None:
    return -a


def _abs(a: Scalar, et: Attribute) -> Scalar | None:
    return abs(a)


def _not(a: Scalar, et: Attribute) -> Scalar | None:
    if isinstance(a, float):
        return None
    return ~a


_UNARY: dict[str, Callable[[Scalar, Attribute], Scalar | None]] = {
    "mhlo.negate": _negate,
    "mhlo.abs": _abs,
    "mhlo.not": _not,
}


@register_folder(*_UNARY)
def fold_unary(op: Operation, consts: Consts) -> FoldResult | None:
    operand = _dense(consts[0])
    if operand is None or op.operands[0].type != op.results[0].type:
        return None
    return _elementwise(op, [operand], _UNARY[op.name])


# ---------------------------------------------------------------------------
# compare / select / convert


def _compare(direction: str, unordered_ne: bool) -> Callable[[Scalar, Scalar], bool]:
    def cmp(a: Scalar, b: Scalar) -> bool:
        if isinstance(a, float) and (math.isnan(a) or math.isnan(b)):
            return direction == "NE" and unordered_ne
        return {
            "EQ": a == b,
            "NE": a != b,
            "LT": a < b,
            "LE": a <= b,
            "GT": a > b,
            "GE": a >= b,
        }[direction]

    return cmp


def _enum_value(attr: Attribute | None) -> str | None:
    data = getattr(attr, "data", None)
    return getattr(data, "value", None) if data is not None else None


@register_folder("mhlo.compare")
def fold_compare(op: Operation, consts: Consts) -> FoldResult | None:
    direction = _enum_value(op.attributes.get("comparison_direction"))
    if direction is None:
        return None
    rtype = _result_type(op)
    lhs_v, rhs_v = op.operands
    elem = getattr(lhs_v.type, "get_element_type", lambda: None)()
    if rtype is None:
        return None
    if lhs_v is rhs_v and elem is not None and _is_int_elem(elem):
        value = direction in ("EQ", "LE", "GE")
        out = _make(rtype, [1 if value else 0])
        return (out,) if out is not None else None
    lhs, rhs = _dense(consts[0]), _dense(consts[1])
    if lhs is None or rhs is None:
        return None
    cmp = _compare(direction, unordered_ne=True)
    compare_type = _enum_value(op.attributes.get("compare_type"))
    if compare_type == "TOTALORDER":
        return None  # -0.0 < +0.0 and NaNs ordered by bits: not the IEEE compare below
    et = lhs.get_element_type()
    if compare_type in ("SIGNED", "UNSIGNED") and _is_int_elem(et):
        width = int_width(et)
        assert width is not None
        conv = to_unsigned if compare_type == "UNSIGNED" else to_signed

        def typed(a: Scalar, b: Scalar, _et: Attribute) -> Scalar:
            return int(cmp(conv(int(a), width), conv(int(b), width)))

        return _elementwise(op, [lhs, rhs], typed)
    return _elementwise(op, [lhs, rhs], lambda a, b, _et: int(cmp(a, b)))


@register_folder("mhlo.select")
def fold_select(op: Operation, consts: Consts) -> FoldResult | None:
    pred_v, on_true, on_false = op.operands
    result = op.results[0]
    if on_true is on_false and _same_type(on_true, result):
        return (on_true,)
    pred = _dense(consts[0])
    if pred is None:
        return None
    value = _splat(pred)
    if value is not None:
        chosen = on_true if value else on_false
        if _same_type(chosen, result):
            return (chosen,)
        return None
    tv, fv = _dense(consts[1]), _dense(consts[2])
    rtype = _result_type(op)
    if tv is None or fv is None or rtype is None or _too_big(tv, fv):
        return None
    preds, trues, falses = _values(pred), _values(tv), _values(fv)
    n = _numel(rtype.get_shape())
    if not len(preds) == len(trues) == len(falses) == n:
        return None
    out = _make(rtype, [t if p else f for p, t, f in zip(preds, trues, falses, strict=True)])
    return (out,) if out is not None else None


def _convert_value(v: Scalar, src: Attribute, dst: Attribute) -> Scalar | None:
    if _is_int_elem(dst):
        if isinstance(v, float):
            if isinstance(dst, IntegerType) and dst.width.data == 1:
                return None
            if math.isnan(v) or math.isinf(v):
                return None
            truncated = int(v)  # toward zero
            width = int_width(dst)
            assert width is not None
            lo, hi = (
                (0, (1 << width) - 1)
                if _is_unsigned(dst)
                else (-(1 << (width - 1)), (1 << (width - 1)) - 1)
            )
            return truncated if lo <= truncated <= hi else None
        if isinstance(dst, IntegerType) and dst.width.data == 1:
            return int(v != 0)
        return v
    if is_supported_float(dst):
        # an integer rounds once from its exact value (float(v) first would
        # round an i64 twice on its way to f32/bf16)
        return round_int_to(v, dst) if isinstance(v, int) else float(v)
    return None


@register_folder("mhlo.convert")
def fold_convert(op: Operation, consts: Consts) -> FoldResult | None:
    operand = op.operands[0]
    if operand.type == op.results[0].type:
        return (operand,)
    attr = _dense(consts[0])
    rtype = _result_type(op)
    if attr is None or rtype is None or _too_big(attr):
        return None
    src, dst = attr.get_element_type(), rtype.get_element_type()
    if not (_is_int_elem(dst) or is_supported_float(dst)):
        return None
    return _elementwise(op, [attr], lambda v, _et: _convert_value(v, src, dst))


# ---------------------------------------------------------------------------
# shape manipulation of constants


def _array(attr: DenseIntOrFPElementsAttr) -> np.ndarray:
    """The elements of `attr` (computing view) as an object array of its shape."""
    arr = np.empty(len(_values(attr)), dtype=object)
    arr[:] = _values(attr)
    return arr.reshape(tuple(attr.get_shape()))


def _from_array(rtype: TensorType, arr: np.ndarray) -> FoldResult | None:
    if tuple(arr.shape) != tuple(rtype.get_shape()):
        return None
    flat = list(arr.reshape(-1))
    if flat and all(v == flat[0] for v in flat) and not isinstance(flat[0], float):
        flat = [flat[0]]
    out = _make(rtype, flat)
    return (out,) if out is not None else None


def _splat_result(rtype: TensorType, attr: DenseIntOrFPElementsAttr) -> FoldResult | None:
    value = _splat(attr)
    if value is None:
        return None
    out = _make(rtype, [value])
    return (out,) if out is not None else None


@register_folder("mhlo.reshape")
def fold_reshape(op: Operation, consts: Consts) -> FoldResult | None:
    operand = op.operands[0]
    if operand.type == op.results[0].type:
        return (operand,)
    attr, rtype = _dense(consts[0]), _result_type(op)
    if attr is None or rtype is None:
        return None
    if (splat := _splat_result(rtype, attr)) is not None:
        return splat
    if _too_big(attr):
        return None
    out = _make(rtype, _values(attr))
    return (out,) if out is not None else None


@register_folder("mhlo.broadcast_in_dim")
def fold_broadcast_in_dim(op: Operation, consts: Consts) -> FoldResult | None:
    operand = op.operands[0]
    dims = ints(op.attributes.get("broadcast_dimensions"))
    if operand.type == op.results[0].type and list(dims) == list(range(len(dims))):
        return (operand,)
    attr, rtype = _dense(consts[0]), _result_type(op)
    if attr is None or rtype is None:
        return None
    if (splat := _splat_result(rtype, attr)) is not None:
        return splat
    out_shape = tuple(rtype.get_shape())
    if _numel(out_shape) > FOLD_ELEMENT_LIMIT or len(dims) != len(attr.get_shape()):
        return None
    src = _array(attr)
    # place the operand dims at `dims`, size-1 elsewhere, then broadcast
    view_shape = [1] * len(out_shape)
    order = sorted(range(len(dims)), key=lambda i: dims[i])
    src = np.transpose(src, order) if len(order) > 1 else src
    for i in order:
        view_shape[dims[i]] = attr.get_shape()[i]
    try:
        result = np.broadcast_to(src.reshape(view_shape), out_shape)
    except ValueError:
        return None
    return _from_array(rtype, result)


@register_folder("mhlo.transpose")
def fold_transpose(op: Operation, consts: Consts) -> FoldResult | None:
    operand = op.operands[0]
    perm = ints(op.attributes.get("permutation"))
    if list(perm) == list(range(len(perm))) and operand.type == op.results[0].type:
        return (operand,)
    attr, rtype = _dense(consts[0]), _result_type(op)
    if attr is None or rtype is None:
        return None
    if (splat := _splat_result(rtype, attr)) is not None:
        return splat
    if _too_big(attr) or len(perm) != len(attr.get_shape()):
        return None
    return _from_array(rtype, np.transpose(_array(attr), perm))


@register_folder("mhlo.slice")
def fold_slice(op: Operation, consts: Consts) -> FoldResult | None:
    operand = op.operands[0]
    if operand.type == op.results[0].type and _static_tensor(operand.type) is not None:
        return (operand,)
    attr, rtype = _dense(consts[0]), _result_type(op)
    if attr is None or rtype is None:
        return None
    if (splat := _splat_result(rtype, attr)) is not None:
        return splat
    starts = ints(op.attributes.get("start_indices"))
    limits = ints(op.attributes.get("limit_indices"))
    strides = ints(op.attributes.get("strides"))
    rank = len(attr.get_shape())
    if _too_big(attr) or not len(starts) == len(limits) == len(strides) == rank:
        return None
    index = tuple(slice(s, e, st) for s, e, st in zip(starts, limits, strides, strict=True))
    return _from_array(rtype, _array(attr)[index])


@register_folder("mhlo.concatenate")
def fold_concatenate(op: Operation, consts: Consts) -> FoldResult | None:
    if len(op.operands) == 1 and op.operands[0].type == op.results[0].type:
        return (op.operands[0],)
    rtype = _result_type(op)
    attrs = [_dense(c) for c in consts]
    if rtype is None or not attrs or any(a is None for a in attrs):
        return None
    dense = [a for a in attrs if a is not None]
    if _numel(rtype.get_shape()) > FOLD_ELEMENT_LIMIT:
        return None
    dim_attr = op.attributes.get("dimension")
    if not isinstance(dim_attr, IntegerAttr):
        return None
    try:
        joined = np.concatenate([_array(a) for a in dense], axis=dim_attr.value.data)
    except ValueError:
        return None
    return _from_array(rtype, joined)


@register_folder("mhlo.pad")
def fold_pad(op: Operation, consts: Consts) -> FoldResult | None:
    operand = op.operands[0]
    low = ints(op.attributes.get("edge_padding_low"))
    high = ints(op.attributes.get("edge_padding_high"))
    interior = ints(op.attributes.get("interior_padding"))
    if (
        operand.type == op.results[0].type
        and all(p == 0 for p in (*low, *high, *interior))
        and _static_tensor(operand.type) is not None
    ):
        return (operand,)
    attr, pad_attr, rtype = _dense(consts[0]), _dense(consts[1]), _result_type(op)
    if attr is None or pad_attr is None or rtype is None:
        return None
    pad_value = _splat(pad_attr)
    in_shape = tuple(attr.get_shape())
    out_shape = tuple(rtype.get_shape())
    rank = len(in_shape)
    if pad_value is None or not len(low) == len(high) == len(interior) == rank:
        return None
    if _numel(out_shape) > FOLD_ELEMENT_LIMIT:
        value = _splat(attr)
        if value is not None and value == pad_value:
            return _splat_result(rtype, attr)
        return None
    result = np.empty(out_shape, dtype=object)
    result.fill(pad_value)
    src = _array(attr)
    for index in np.ndindex(*in_shape):
        target = []
        for d, i in enumerate(index):
            pos = low[d] + i * (interior[d] + 1)
            if not 0 <= pos < out_shape[d]:
                break
            target.append(pos)
        else:
            result[tuple(target)] = src[index]
    return _from_array(rtype, result)


@register_folder("mhlo.get_dimension_size")
def fold_get_dimension_size(op: Operation, consts: Consts) -> FoldResult | None:
    source = op.operands[0].type
    dim_attr = op.attributes.get("dimension")
    rtype = _result_type(op)
    if not isinstance(source, TensorType) or not isinstance(dim_attr, IntegerAttr):
        return None
    dim = dim_attr.value.data
    shape = source.get_shape()
    if rtype is None or not 0 <= dim < len(shape) or shape[dim] < 0:
        return None
    out = _make(rtype, [shape[dim]])
    return (out,) if out is not None else None


@register_folder("mhlo.iota")
def fold_iota(op: Operation, consts: Consts) -> FoldResult | None:
    rtype = _result_type(op)
    dim_attr = op.attributes.get("iota_dimension")
    if rtype is None or not isinstance(dim_attr, IntegerAttr):
        return None
    dim = dim_attr.value.data
    shape = rtype.get_shape()
    if not 0 <= dim < len(shape) or shape[dim] != 1:
        return None
    et = rtype.get_element_type()
    out = _make(rtype, [0.0 if is_supported_float(et) else 0])
    return (out,) if out is not None else None


@register_folder("mhlo.dynamic_reshape")
def fold_dynamic_reshape(op: Operation, consts: Consts) -> FoldResult | None:
    operand = op.operands[0]
    if operand.type == op.results[0].type and _static_tensor(operand.type) is not None:
        return (operand,)
    return None


@register_folder("mhlo.dynamic_broadcast_in_dim")
def fold_dynamic_broadcast_in_dim(op: Operation, consts: Consts) -> FoldResult | None:
    operand = op.operands[0]
    dims = ints(op.attributes.get("broadcast_dimensions"))
    if (
        operand.type == op.results[0].type
        and _static_tensor(operand.type) is not None
        and list(dims) == list(range(len(dims)))
    ):
        return (operand,)
    return None


__all__ = ["FOLD_ELEMENT_LIMIT"]
