"""Unit tests of disc_ir.rewriting.folding: MLIR's fold semantics for arith ops."""

from __future__ import annotations

import math

import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.dialects.test import TestOp as _TestOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def

from disc_ir.ir.context import make_context
from disc_ir.rewriting.folding import constant_value, fold_op
from disc_ir.rewriting.folding.core import _FOLDERS, clear_folder_memos, register_folder
from disc_ir.rewriting.folding.ints import INDEX_WIDTH, make_int_attr
from disc_ir.transforms.canonicalize import CanonicalizePass

i1, i8, i32, i64 = IntegerType(1), IntegerType(8), IntegerType(32), IntegerType(64)
index = IndexType()
f32 = Float32Type()


def const(value: int | float, type_: Attribute) -> SSAValue:
    if isinstance(value, float):
        return arith.ConstantOp(FloatAttr(value, type_)).result  # type: ignore[arg-type]
    return arith.ConstantOp(make_int_attr(value, type_)).result


def var(type_: Attribute) -> SSAValue:
    return _TestOp(result_types=[type_]).results[0]


def fold_value(op: Operation) -> int | float | None:
    """The folded constant of a single-result op (signed ints / floats), None if no fold."""
    folded = fold_op(op)
    if folded is None:
        return None
    (attr,) = folded
    assert isinstance(attr, IntegerAttr | FloatAttr), f"expected a constant, got {attr}"
    return attr.value.data


BINARY_CASES = [
    (arith.AddiOp, 7, 3, i32, 10),
    (arith.AddiOp, 127, 1, i8, -128),  # wraps around
    (arith.AddiOp, 2**63 - 1, 1, index, -(2**63)),  # index is 64 bits wide
    (arith.SubiOp, 3, 7, i32, -4),
    (arith.SubiOp, -128, 1, i8, 127),
    (arith.MuliOp, 127, 127, i8, 1),
    (arith.MuliOp, 1 << 40, 1 << 30, index, 0),
    (arith.DivSIOp, -7, 2, i32, -3),  # rounds toward zero
    (arith.DivUIOp, -2, 2, i8, 127),  # 254 / 2
    (arith.CeilDivSIOp, -7, 2, i32, -3),
    (arith.CeilDivSIOp, 7, 2, i32, 4),
    (arith.CeilDivUIOp, 7, 2, i32, 4),
    (arith.FloorDivSIOp, -7, 2, i32, -4),
    (arith.FloorDivSIOp, 7, -2, index, -4),
    (arith.RemSIOp, -7, 2, i32, -1),  # sign of the dividend
    (arith.RemSIOp, -128, -1, i8, 0),
    (arith.RemUIOp, -1, 10, i8, 5),  # 255 % 10
    (arith.AndIOp, 0b1100, 0b1010, i32, 0b1000),
    (arith.OrIOp, 0b1100, 0b1010, i32, 0b1110),
    (arith.XOrIOp, 0b1100, 0b1010, i32, 0b0110),
    (arith.ShLIOp, 1, 7, i8, -128),
    (arith.ShRUIOp, -128, 7, i8, 1),
    (arith.ShRSIOp, -128, 7, i8, -1),
    (arith.MaxSIOp, -1, 1, i8, 1),
    (arith.MinSIOp, -1, 1, i8, -1),
    (arith.MaxUIOp, -1, 1, i8, -1),  # 255 unsigned
    (arith.MinUIOp, -1, 1, i8, 1),
]


@pytest.mark.parametrize("cls, a, b, type_, expected", BINARY_CASES)
def test_int_binary_fold(cls: type[Operation], a: int, b: int, type_: Attribute, expected: int):
    op = cls(const(a, type_), const(b, type_))
    assert fold_value(op) == expected


@pytest.mark.parametrize(
    "cls, a, b, type_",
    [
        (arith.DivSIOp, 7, 0, i32),
        (arith.DivUIOp, 7, 0, i32),
        (arith.RemSIOp, 7, 0, i32),
        (arith.RemUIOp, 7, 0, index),
        (arith.CeilDivSIOp, 7, 0, i32),
        (arith.CeilDivUIOp, 7, 0, i32),
        (arith.FloorDivSIOp, 7, 0, i32),
        (arith.DivSIOp, -128, -1, i8),  # signed overflow
        (arith.FloorDivSIOp, -(2**63), -1, index),
        (arith.ShLIOp, 1, 8, i8),  # shift by the width or more
        (arith.ShRSIOp, 1, 9, i8),
    ],
)
def test_not_folded(cls: type[Operation], a: int, b: int, type_: Attribute):
    assert fold_op(cls(const(a, type_), const(b, type_))) is None


def test_index_width():
    assert INDEX_WIDTH == 64
    op = arith.AddiOp(const(-1, index), const(1, index))
    assert fold_value(op) == 0
    big = arith.MuliOp(const(1 << 32, index), const(1 << 32, index))
    assert fold_value(big) == 0


@pytest.mark.parametrize(
    "pred, a, b, expected",
    [
        ("eq", 3, 3, True),
        ("ne", 3, 3, False),
        ("slt", -1, 1, True),
        ("ult", -1, 1, False),  # -1 is the largest unsigned value
        ("sge", -1, 1, False),
        ("uge", -1, 1, True),
        ("sle", 5, 5, True),
        ("ugt", 0, -1, False),
    ],
)
def test_cmpi(pred: str, a: int, b: int, expected: bool):
    op = arith.CmpiOp(const(a, i8), const(b, i8), pred)
    folded = fold_op(op)
    assert folded is not None
    assert folded[0] == make_int_attr(1 if expected else 0, i1)


@pytest.mark.parametrize(
    "pred, expected",
    [("eq", True), ("ne", False), ("slt", False), ("sle", True), ("ugt", False), ("uge", True)],
)
def test_cmpi_identical_operands(pred: str, expected: bool):
    x = var(i32)
    folded = fold_op(arith.CmpiOp(x, x, pred))
    assert folded == [make_int_attr(1 if expected else 0, i1)]


def test_integer_identities():
    x, zero, one, ones = var(i32), const(0, i32), const(1, i32), const(-1, i32)
    assert fold_op(arith.AddiOp(x, zero)) == [x]
    assert fold_op(arith.SubiOp(x, zero)) == [x]
    assert fold_op(arith.MuliOp(x, one)) == [x]
    assert fold_op(arith.MuliOp(x, zero)) == [zero]
    assert fold_op(arith.DivSIOp(x, one)) == [x]
    assert fold_op(arith.AndIOp(x, ones)) == [x]
    assert fold_op(arith.AndIOp(x, zero)) == [zero]
    assert fold_op(arith.OrIOp(x, ones)) == [ones]
    assert fold_op(arith.XOrIOp(x, zero)) == [x]
    assert fold_value(arith.SubiOp(x, x)) == 0
    assert fold_value(arith.XOrIOp(x, x)) == 0
    assert fold_value(arith.RemUIOp(x, one)) == 0
    assert fold_op(arith.ShLIOp(x, zero)) == [x]
    # a constant on the left is not an identity without reordering first
    assert fold_op(arith.SubiOp(zero, x)) is None
    y = var(i32)
    sub = arith.SubiOp(x, y)
    assert fold_op(arith.AddiOp(sub.result, y)) == [x]


def test_select():
    a, b, c = var(i32), var(i32), var(i1)
    assert fold_op(arith.SelectOp(const(1, i1), a, b)) == [a]
    assert fold_op(arith.SelectOp(const(0, i1), a, b)) == [b]
    assert fold_op(arith.SelectOp(c, a, a)) == [a]
    assert fold_op(arith.SelectOp(c, const(1, i1), const(0, i1))) == [c]
    assert fold_op(arith.SelectOp(c, a, b)) is None


def test_casts():
    assert fold_value(arith.IndexCastOp(const(-3, i32), index)) == -3
    assert fold_value(arith.IndexCastOp(const(-1, index), i8)) == -1
    assert fold_value(arith.ExtSIOp(const(-1, i8), i32)) == -1
    assert fold_value(arith.ExtUIOp(const(-1, i8), i32)) == 255
    assert fold_value(arith.TruncIOp(const(300, i32), i8)) == 44
    assert fold_value(arith.SIToFPOp(const(-3, i32), f32)) == -3.0
    x = var(i16 := IntegerType(16))
    ext = arith.ExtSIOp(x, i32)
    assert fold_op(arith.TruncIOp(ext.result, i16)) == [x]


def test_float_folds():
    third = fold_value(arith.DivfOp(const(1.0, f32), const(3.0, f32)))
    assert third == FloatAttr(1.0 / 3.0, f32).value.data  # rounded to f32
    assert third != 1.0 / 3.0
    assert fold_value(arith.AddfOp(const(0.5, f32), const(0.25, f32))) == 0.75
    assert fold_value(arith.SubfOp(const(0.5, f32), const(0.25, f32))) == 0.25
    assert fold_value(arith.MulfOp(const(1e30, f32), const(1e30, f32))) == math.inf
    assert (
        fold_value(arith.DivfOp(const(1.0, Float64Type()), const(0.0, Float64Type()))) == math.inf
    )
    assert fold_value(arith.NegfOp(const(2.0, f32))) == -2.0
    x = var(f32)
    assert fold_op(arith.MulfOp(x, const(1.0, f32))) == [x]
    assert fold_op(arith.AddfOp(x, const(-0.0, f32))) == [x]
    assert fold_op(arith.AddfOp(x, const(0.0, f32))) is None  # -0 + 0 is +0
    neg = arith.NegfOp(x)
    assert fold_op(arith.NegfOp(neg.result)) == [x]


@pytest.mark.parametrize(
    "pred, a, b, expected",
    [
        ("oeq", 1.0, 1.0, True),
        ("olt", 1.0, 2.0, True),
        ("ogt", math.nan, 1.0, False),
        ("ugt", math.nan, 1.0, True),
        ("une", 1.0, 1.0, False),
        ("ord", 1.0, math.nan, False),
        ("uno", 1.0, math.nan, True),
        ("true", 0.0, 1.0, True),
        ("false", 0.0, 0.0, False),
    ],
)
def test_cmpf(pred: str, a: float, b: float, expected: bool):
    folded = fold_op(arith.CmpfOp(const(a, f32), const(b, f32), pred))
    assert folded == [make_int_attr(1 if expected else 0, i1)]


def test_constant_value_and_no_fold_of_constants():
    c = arith.ConstantOp(make_int_attr(5, i32))
    assert constant_value(c.result) == IntegerAttr(5, i32)
    assert constant_value(var(i32)) is None
    assert fold_op(c) is None


def test_in_place_commutative_reorder():
    x, c = var(i32), const(3, i32)
    op = arith.AddiOp(c, x)
    assert fold_op(op) is None  # no in-place change without asking
    assert list(op.operands) == [c, x]
    assert fold_op(op, in_place=True) == []
    assert list(op.operands) == [x, c]


def test_int_to_float_rounds_once():
    """An integer rounds to f32 / bf16 from its exact value, as `sitofp` does:
    through f64 (or f32 for bf16) first it would round twice."""
    from xdsl.dialects.builtin import BFloat16Type

    assert fold_value(arith.SIToFPOp(const(2**60 + 2**36 + 1, i64), f32)) == 2.0**60 + 2.0**37
    assert fold_value(arith.SIToFPOp(const(2**24 + 2**16 + 1, i32), BFloat16Type())) == float(
        2**24 + 2**17
    )
    assert fold_value(arith.UIToFPOp(const(-1, i64), f32)) == 2.0**64


def test_round_to_single_rounding_and_signed_zero():
    from xdsl.dialects.builtin import BFloat16Type, Float16Type

    from disc_ir.rewriting.folding.floats import round_int_to, round_to

    bf16, f16 = BFloat16Type(), Float16Type()
    # 1 + 2^-8 + 2^-30: above the bf16 midpoint; through f32 it lands on the
    # midpoint and ties to even (1.0)
    assert round_to(1.0 + 2.0**-8 + 2.0**-30, bf16) == 1.0 + 2.0**-7
    assert round_to(1.0 + 2.0**-8, bf16) == 1.0  # a tie: to even
    assert math.copysign(1.0, round_to(-0.0, bf16)) == -1.0  # type: ignore[arg-type]
    assert round_to(65520.0, f16) == math.inf  # rounds past the largest f16
    assert round_to(65519.0, f16) == 65504.0
    assert round_to(2.0**-25 * 1.5, f16) == 2.0**-24  # a subnormal
    assert round_to(math.nan, bf16) != round_to(math.nan, bf16)  # NaN stays NaN
    assert round_int_to(2**70, f32) == 2.0**70
    assert round_int_to(-(2**63), Float64Type()) == -(2.0**63)


def test_bitwise_splat():
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, TensorType

    from disc_ir.ir.dense_splat import is_bitwise_splat

    t = TensorType(f32, [2])
    mixed = DenseIntOrFPElementsAttr.from_list(t, [-0.0, 0.0])
    assert not mixed.is_splat() and not is_bitwise_splat(mixed)  # splats by stored bits
    nans = DenseIntOrFPElementsAttr.from_list(t, [math.nan, math.nan])
    assert nans.is_splat()  # the same bits
    assert is_bitwise_splat(DenseIntOrFPElementsAttr.from_list(t, [1.5, 1.5]))
    # tensor.extract of [-0.0, 0.0] at index 1 is +0.0, not the "splat" -0.0
    from xdsl.dialects import tensor

    cst = arith.ConstantOp(mixed).result
    extract = tensor.ExtractOp(cst, [const(1, index)], f32)
    (folded,) = fold_op(extract) or [None]
    assert isinstance(folded, FloatAttr)
    assert math.copysign(1.0, folded.value.data) == 1.0


@pytest.mark.parametrize(
    "source, middle, exact",
    [
        ("i8", "i32", True),
        ("ui8", "i16", True),
        ("ui8", "ui16", True),
        ("i1", "i8", True),
        ("i1", "ui8", True),
        ("i8", "ui16", False),  # negative values
        ("ui8", "i8", False),
        ("i32", "i8", False),
        ("f16", "f32", True),
        ("bf16", "f32", True),
        ("bf16", "f64", True),
        ("f32", "f64", True),
        ("f16", "bf16", False),
        ("bf16", "f16", False),
        ("f32", "f16", False),
        ("f32", "bf16", False),
        ("f32", "i32", False),
        ("i8", "f16", True),
        ("i8", "bf16", True),
        ("ui8", "bf16", True),
        ("i16", "f32", True),
        ("i32", "f64", True),
        ("i16", "f16", False),
        ("i32", "f32", False),
        ("i64", "f64", False),
    ],
)
def test_exact_conversion(source: str, middle: str, exact: bool):
    """Which `convert(convert(x : A) : B) : A` round trips are exact (folded)."""
    from xdsl.dialects.builtin import BFloat16Type, Float16Type, Signedness

    from disc_ir.transforms.disc_algebraic_simplifier import is_exact_conversion

    def parse(name: str) -> Attribute:
        floats = {"f16": Float16Type(), "bf16": BFloat16Type(), "f32": f32, "f64": Float64Type()}
        if name in floats:
            return floats[name]
        if name.startswith("ui"):
            return IntegerType(int(name[2:]), Signedness.UNSIGNED)
        return IntegerType(int(name[1:]))

    assert is_exact_conversion(parse(source), parse(middle)) is exact


def _canonicalized_results(text: str) -> list[tuple[float, ...]]:
    """The folded constants `func.return` returns after `canonicalize` (values, in order)."""
    from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

    from disc_ir.api import load_module
    from disc_ir.ir.context import make_context
    from disc_ir.passes.registry import get_pass

    ctx = make_context()
    module = load_module(ctx, text)
    canonicalize = get_pass("canonicalize")
    assert canonicalize is not None
    canonicalize().apply(ctx, module)
    (ret,) = [op for op in module.walk() if op.name == "func.return"]
    out: list[tuple[float, ...]] = []
    for value in ret.operands:
        attr = constant_value(value)
        assert isinstance(attr, DenseIntOrFPElementsAttr), f"not folded: {value}"
        out.append(tuple(attr.get_values()))  # type: ignore[arg-type]
    return out


def test_mhlo_signed_zero_folds():
    """[-0.0, 0.0] is no splat; max/min order -0.0 below +0.0 (arith.maximumf)."""
    negated, maxed, mined = _canonicalized_results(
        """
func.func @f() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = mhlo.constant dense<[-0.0, 0.0]> : tensor<2xf32>
  %b = mhlo.constant dense<[0.0, -0.0]> : tensor<2xf32>
  %0 = mhlo.negate %a : tensor<2xf32>
  %1 = mhlo.maximum %a, %b : tensor<2xf32>
  %2 = mhlo.minimum %a, %b : tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
"""
    )
    signs = [[math.copysign(1.0, v) for v in values] for values in (negated, maxed, mined)]
    assert signs == [[1.0, -1.0], [1.0, 1.0], [-1.0, -1.0]]


@irdl_op_definition
class _TwiceOp(IRDLOperation):
    """An op with no folder until the test below registers one."""

    name = "test.twice_with_late_folder"
    x = operand_def(i64)
    r = result_def(i64)


def _canonicalized_twice_of_three() -> list[str]:
    three = arith.ConstantOp(IntegerAttr(3, i64))
    twice = _TwiceOp.create(operands=[three.result], result_types=[i64])
    body = Block([three, twice, func.ReturnOp(twice.results[0])])
    module = ModuleOp([func.FuncOp("f", ((), (i64,)), Region(body))])
    CanonicalizePass().apply(make_context(), module)
    return [op.name for op in body.ops]


def test_folder_registered_after_a_run_is_used() -> None:
    """The per-class answers (has a folder, nothing to fold) are forgotten when
    a folder is registered: ops the canonicalizer met before fold afterwards."""
    assert _canonicalized_twice_of_three() == [
        "arith.constant",
        "test.twice_with_late_folder",
        "func.return",
    ]

    def fold_twice(op: Operation, operands: list[Attribute | None]) -> list[Attribute] | None:
        (x,) = operands
        return [IntegerAttr(2 * x.value.data, i64)] if isinstance(x, IntegerAttr) else None

    register_folder(_TwiceOp.name)(fold_twice)
    try:
        assert _canonicalized_twice_of_three() == ["arith.constant", "func.return"]
    finally:
        del _FOLDERS[_TwiceOp.name]
        clear_folder_memos()
