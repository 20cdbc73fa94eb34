"""`disc_ir.ir.builders` makes exactly the ops xDSL's IRDL constructors make:
same class, operands, result types, properties and attributes (the printed
generic form included), and the ops verify."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from xdsl.dialects import arith, llvm, memref, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    TensorType,
    UnitAttr,
    f32,
    i1,
    i64,
)
from xdsl.ir import Block, Operation
from xdsl.irdl import IRDLOperation

from disc_ir.dialects.disc_common import bool_attr
from disc_ir.dialects.disc_ral import DispatchOp, RalExecutionContextType
from disc_ir.dialects.disc_shape import DelinearizeOp, LinearizeOp, TieShapeOp
from disc_ir.dialects.upstream.bufferization import ToMemrefOp
from disc_ir.ir import builders

INDEX = IndexType()
MEMREF = MemRefType(f32, [DYNAMIC_INDEX, 768])
TENSOR = TensorType(f32, [DYNAMIC_INDEX, 768])
BLOCK = Block(arg_types=[INDEX, INDEX, MEMREF, TENSOR, i64, f32, RalExecutionContextType(), i1])
A, B, M, T, X, F, CTX, C = BLOCK.args


def _irdl(cls: type[IRDLOperation], **kwargs: object) -> Operation:
    """What the IRDL constructor itself makes of `kwargs` (bypassing a class's
    own `__init__`)."""
    op = cls.__new__(cls)
    IRDLOperation.__init__(op, **kwargs)  # type: ignore[arg-type]
    return op


def _same(fast: Operation, slow: Operation, verify: bool = True) -> None:
    assert type(fast) is type(slow)
    assert list(fast.operands) == list(slow.operands)
    assert [r.type for r in fast.results] == [r.type for r in slow.results]
    assert fast.properties == slow.properties
    assert fast.attributes == slow.attributes
    assert list(fast.successors) == list(slow.successors)
    if verify:  # (a branch verifies inside a block only)
        fast.verify()
    assert str(fast) == str(slow)


CASES: dict[str, tuple[Callable[[], Operation], Callable[[], Operation]]] = {
    "load": (lambda: builders.load(M, [A, B]), lambda: memref.LoadOp.get(M, [A, B])),
    "alloc": (
        lambda: builders.alloc(MEMREF, [A]),
        lambda: memref.AllocOp([A], [], MEMREF),
    ),
    "alloc-static": (
        lambda: builders.alloc(MemRefType(f32, [4])),
        lambda: memref.AllocOp([], [], MemRefType(f32, [4])),
    ),
    "dealloc": (lambda: builders.dealloc(M), lambda: memref.DeallocOp.get(M)),
    "memref.dim": (
        lambda: builders.dim(memref.DimOp, M, A),
        lambda: memref.DimOp(M, A),
    ),
    "tensor.dim": (
        lambda: builders.dim(tensor.DimOp, T, A),
        lambda: tensor.DimOp(T, A),
    ),
    "reinterpret_cast": (
        lambda: builders.reinterpret_cast(M, [0], [A, 768], [768, 1], MEMREF),
        lambda: memref.ReinterpretCastOp.from_dynamic(M, [0], [A, 768], [768, 1], MEMREF),
    ),
    "reinterpret_cast-static": (
        lambda: builders.reinterpret_cast(M, [0], [64], [1], MemRefType(f32, [64])),
        lambda: memref.ReinterpretCastOp(M, [], [], [], [0], [64], [1], MemRefType(f32, [64])),
    ),
    "store": (lambda: builders.store(F, M, [A, B]), lambda: memref.StoreOp.get(F, M, [A, B])),
    "cmpi-slt": (lambda: builders.cmpi(A, B, "slt"), lambda: arith.CmpiOp(A, B, "slt")),
    "cmpi-eq": (lambda: builders.cmpi(A, B, "eq"), lambda: arith.CmpiOp(A, B, "eq")),
    "cmpi-uge": (lambda: builders.cmpi(A, B, "uge"), lambda: arith.CmpiOp(A, B, "uge")),
    "andi": (lambda: builders.binary(arith.AndIOp, A, B), lambda: arith.AndIOp(A, B)),
    "constant-i1": (
        lambda: builders.constant(IntegerAttr(1, i1)),
        lambda: arith.ConstantOp(IntegerAttr(1, i1)),
    ),
    "constant-f32": (
        lambda: builders.constant(FloatAttr(1.5, f32)),
        lambda: arith.ConstantOp(FloatAttr(1.5, f32)),
    ),
    "select": (
        lambda: builders.select(C, F, F),
        lambda: arith.SelectOp(C, F, F),
    ),
    "muli": (lambda: builders.binary(arith.MuliOp, A, B), lambda: arith.MuliOp(A, B)),
    "addi": (lambda: builders.binary(arith.AddiOp, A, B), lambda: arith.AddiOp(A, B)),
    "mulf": (lambda: builders.binary(arith.MulfOp, F, F), lambda: arith.MulfOp(F, F)),
    "index_cast": (
        lambda: builders.make(arith.IndexCastOp, [X], [INDEX]),
        lambda: arith.IndexCastOp(X, INDEX),
    ),
    "linearize": (
        lambda: LinearizeOp([A, B], [A, B]),
        lambda: _irdl(LinearizeOp, operands=[[A, B], [A, B]], result_types=[INDEX]),
    ),
    "delinearize": (
        lambda: DelinearizeOp(A, [A, B]),
        lambda: _irdl(DelinearizeOp, operands=[A, [A, B]], result_types=[[INDEX, INDEX]]),
    ),
    "tie_shape": (
        lambda: TieShapeOp(T, [A, B]),
        lambda: _irdl(TieShapeOp, operands=[T, [A, B]], result_types=[TENSOR]),
    ),
    "to_memref": (
        lambda: ToMemrefOp(T, MEMREF),
        lambda: _irdl(
            ToMemrefOp, operands=[T], result_types=[MEMREF], attributes={"read_only": None}
        ),
    ),
    "to_memref-read-only": (
        lambda: ToMemrefOp(T, MEMREF, read_only=True),
        lambda: _irdl(
            ToMemrefOp, operands=[T], result_types=[MEMREF], attributes={"read_only": UnitAttr()}
        ),
    ),
    "dispatch": (
        lambda: DispatchOp(CTX, [M, A], [MEMREF], "ral_test", device="cpu"),
        lambda: _irdl(
            DispatchOp,
            operands=[CTX, [M, A]],
            result_types=[[MEMREF]],
            attributes={
                "call_target_name": StringAttr("ral_test"),
                "device": StringAttr("cpu"),
                "has_side_effect": bool_attr(False),
                "backend_config": StringAttr(""),
            },
        ),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_builder_makes_the_irdl_op(name: str) -> None:
    fast, slow = CASES[name]
    _same(fast(), slow())


def test_make_adds_the_operand_segments_its_definition_asks_for() -> None:
    op = builders.make(memref.AllocOp, [[A], []], [MEMREF])
    _same(op, memref.AllocOp([A], [], MEMREF))
    # an absent optional operand counts as an empty segment; None attributes are left out
    op = builders.make(memref.AllocOp, [[], None], [MemRefType(f32, [4])], attributes={"x": None})
    _same(op, memref.AllocOp([], [], MemRefType(f32, [4])))


def test_llvm_branches_and_constants() -> None:
    blk = Block(arg_types=[i64, i64, i1])
    x, y, c = blk.args
    _same(builders.make(llvm.BrOp, [[x, y]], successors=[blk]), llvm.BrOp(blk, x, y), verify=False)
    _same(
        builders.make(llvm.CondBrOp, [c, [x], [y, x]], successors=[blk, blk]),
        llvm.CondBrOp(c, blk, [x], blk, [y, x]),
        verify=False,
    )
    _same(
        builders.make(llvm.ConstantOp, [], [i64], {"value": IntegerAttr(3, i64)}),
        llvm.ConstantOp(IntegerAttr(3, i64), i64),
    )


@pytest.mark.parametrize("cls", [llvm.AddOp, llvm.MulOp, llvm.AndOp, llvm.ShlOp, llvm.SDivOp])
def test_templates_build_later_ops_as_the_first(cls: type[Operation]) -> None:
    templates = builders.Templates()
    blk = Block(arg_types=[i64, i64])
    x, y = blk.args
    first = templates.make(cls, lambda: cls(x, y), [x, y], [i64])  # type: ignore[call-arg]
    later = templates.make(cls, lambda: pytest.fail("built again"), [y, x], [i64])
    _same(first, cls(x, y))  # type: ignore[call-arg]
    _same(later, cls(y, x))  # type: ignore[call-arg]


def test_templates_key_the_float_flags() -> None:
    templates = builders.Templates()
    blk = Block(arg_types=[f32, f32])
    a, b = blk.args
    for flags in (llvm.FastMathAttr("fast"), llvm.FastMathAttr(None), llvm.FastMathAttr("fast")):
        op = templates.make(
            (llvm.FMulOp, flags), lambda f=flags: llvm.FMulOp(a, b, f), [a, b], [f32]
        )
        _same(op, llvm.FMulOp(a, b, flags))
