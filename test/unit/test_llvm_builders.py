"""The cheap `llvm` op constructors (`disc_ir.conversion.llvm_builders`)
make exactly the ops xDSL's constructors make: same operands, result types,
properties and attributes, so the lowering's output does not depend on which
one built an op."""

from __future__ import annotations

import pytest
from xdsl.dialects import llvm
from xdsl.dialects.builtin import f32, i32, i64
from xdsl.ir import Block, Operation

from disc_ir.conversion import llvm_builders as builders


def _same(built: Operation, reference: Operation) -> None:
    assert type(built) is type(reference)
    assert list(built.operands) == list(reference.operands)
    assert [r.type for r in built.results] == [r.type for r in reference.results]
    assert dict(built.properties) == dict(reference.properties)
    assert dict(built.attributes) == dict(reference.attributes)
    if not isinstance(built, llvm.CallOp):  # a call verifies against its module's symbols
        built.verify()


@pytest.fixture
def args() -> tuple:
    return Block(arg_types=[i64, f32, llvm.LLVMPointerType()]).args


@pytest.mark.parametrize("result", [None, i32])
def test_call(args: tuple, result: object) -> None:
    _same(builders.call("f", args, result), llvm.CallOp("f", *args, return_type=result))
    _same(builders.call("g", []), llvm.CallOp("g"))


def test_alloca(args: tuple) -> None:
    _same(builders.alloca(args[0], f32, 16), llvm.AllocaOp(args[0], f32, alignment=16))
    plain = llvm.AllocaOp(args[0], f32)
    plain.properties.pop("alignment")  # MLIR's default: no alignment
    _same(builders.alloca(args[0], f32), plain)


def test_load_and_store(args: tuple) -> None:
    _same(builders.load(args[2], f32), llvm.LoadOp(args[2], f32))
    _same(builders.store(args[1], args[2]), llvm.StoreOp(args[1], args[2]))


@pytest.mark.parametrize("value", [0, 1, -3, 1 << 40])
def test_index_constant(value: int) -> None:
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType, IntegerAttr

    from disc_ir.ir.builders import index_constant

    _same(index_constant(value), arith.ConstantOp(IntegerAttr(value, IndexType())))
