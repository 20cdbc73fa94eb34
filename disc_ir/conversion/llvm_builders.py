"""Cheap constructors for the `llvm` ops the `*-to-llvm` lowerings emit most.

The lowerings create tens of thousands of ops on a large graph; the ops'
IRDL `__init__` (argument-list building, attribute checks per op) costs
several times what `Operation.create` does. These helpers build the same ops
(same operands, result types and properties as the xDSL constructors give)
with `create` and precomputed, shared attributes (attributes are immutable, so
one `IntegerAttr(0, 32)` or `array<i64: 3, 1>` can back every op that needs it).

`folded_extract` gives the field that an `llvm.insertvalue` chain set (what
canonicalize would do afterwards): most extracts then never exist. Memref
descriptors are not built as chains at all while lowering: one
`descriptor_from_fields` op stands for each, its fields are read straight off
its operands, and the few that something reads as a struct become chains at
the end (`expand_descriptor`), so the chains of all the others are never made
and erased again.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TypeGuard, cast

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    SymbolRefAttr,
    UnitAttr,
    UnrealizedConversionCastOp,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from disc_ir.ir.builders import segment_sizes

PTR = llvm.LLVMPointerType()
"""The opaque pointer `!llvm.ptr`."""

_I32_ZERO = IntegerAttr(0, 32)
_I64_ZERO = IntegerAttr(0, i64)
_UNIT = UnitAttr()
_INSERTS = (llvm.InsertValueOp,)


@lru_cache(maxsize=4096)
def int_attr(value: int, type_: IntegerType) -> IntegerAttr:
    """`IntegerAttr(value, type_)`, shared."""
    return IntegerAttr(value, type_)


@lru_cache(maxsize=1024)
def position_attr(position: tuple[int, ...]) -> DenseArrayBase:
    """The `array<i64: ...>` position of an extract/insertvalue, shared."""
    return DenseArrayBase.from_list(i64, list(position))


@lru_cache(maxsize=1024)
def _position_tuple(attr: DenseArrayBase[IntegerType]) -> tuple[int, ...]:
    return tuple(int(v) for v in attr.get_values())


@lru_cache(maxsize=1024)
def _gep_indices_attr(indices: tuple[int, ...]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i32, list(indices))


def wrap_i64(value: int) -> int:
    """`value` wrapped to a signed 64-bit integer (LLVM's i64 arithmetic)."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >= 1 << 63 else value


def constant(value: int | float, type_: Attribute) -> llvm.ConstantOp:
    """`llvm.mlir.constant(value) : type_` (an integer or float scalar type)."""
    if isinstance(type_, IntegerType):
        attr: Attribute = int_attr(int(value), type_)
    else:
        attr = FloatAttr(float(value), cast(AnyFloat, type_))  # not an integer: a float type
    return llvm.ConstantOp.create(properties={"value": attr}, result_types=[type_])


def constant_attr(attr: Attribute, type_: Attribute) -> llvm.ConstantOp:
    """`llvm.mlir.constant(attr) : type_`."""
    return llvm.ConstantOp.create(properties={"value": attr}, result_types=[type_])


def insert_value(
    aggregate: SSAValue, value: SSAValue, position: Sequence[int]
) -> llvm.InsertValueOp:
    """`llvm.insertvalue value, aggregate[position]`."""
    return llvm.InsertValueOp.create(
        operands=[aggregate, value],
        properties={"position": position_attr(tuple(position))},
        result_types=[aggregate.type],
    )


#: The attribute marking an `unrealized_conversion_cast` from a memref
#: descriptor's fields (allocated, aligned, offset, sizes..., strides...) to
#: the descriptor struct (`descriptor_from_fields`).
DESCRIPTOR_FIELDS = "disc.descriptor_fields"


def descriptor_from_fields(
    struct_type: Attribute, fields: Sequence[SSAValue]
) -> UnrealizedConversionCastOp:
    """One op standing for the descriptor struct `struct_type` with `fields` in
    calling-convention order, where `llvm.undef` and an `llvm.insertvalue` per
    field would be: the lowering reads descriptors back field by field
    (`folded_extract`), so most of them are never needed as structs;
    `expand_descriptor` makes the insertvalue chain of one that is."""
    return UnrealizedConversionCastOp.create(
        operands=list(fields), result_types=[struct_type], attributes={DESCRIPTOR_FIELDS: _UNIT}
    )


def is_descriptor_from_fields(op: object) -> TypeGuard[UnrealizedConversionCastOp]:
    # (the exact class: cheaper than isinstance's ABC check; it has no subclasses)
    return op.__class__ is UnrealizedConversionCastOp and DESCRIPTOR_FIELDS in op.attributes


def _field_positions(num_fields: int) -> list[tuple[int, ...]]:
    """The struct positions of a descriptor's fields, in calling-convention order."""
    rank = (num_fields - 3) // 2
    return [(0,), (1,), (2,), *((3, i) for i in range(rank)), *((4, i) for i in range(rank))]


def expand_descriptor(op: UnrealizedConversionCastOp) -> list[Operation]:
    """The `llvm.undef` + `llvm.insertvalue` chain building `op`'s descriptor,
    inserted before `op`, which is then erased (its uses read the chain)."""
    block = op.parent_block()
    assert block is not None
    chain: list[Operation] = [undef(op.results[0].type)]
    for field, pos in zip(op.operands, _field_positions(len(op.operands)), strict=True):
        chain.append(insert_value(chain[-1].results[0], field, pos))
    block.insert_ops_before(chain, op)
    op.results[0].replace_all_uses_with(chain[-1].results[0])
    op.detach()
    op.erase()
    return chain


def folded_extract(aggregate: SSAValue, position: Sequence[int]) -> SSAValue | None:
    """The value an `llvm.insertvalue` chain (or a `descriptor_from_fields`)
    ending in `aggregate` put at exactly `position`, or None (an undef start,
    a block argument, a partial overlap)."""
    key = tuple(position)
    current = aggregate
    while True:
        owner = current.owner
        if not isinstance(owner, _INSERTS):
            if is_descriptor_from_fields(owner):
                positions = _field_positions(len(owner.operands))
                if key in positions:
                    return owner.operands[positions.index(key)]
            return None
        pos = _position_tuple(owner.position)
        if pos == key:
            return owner.operands[1]
        n = min(len(pos), len(key))
        if pos[:n] == key[:n]:  # one is a prefix of the other: no exact field
            return None
        current = owner.operands[0]


def extract_value(
    aggregate: SSAValue, position: Sequence[int], type_: Attribute
) -> llvm.ExtractValueOp:
    """`llvm.extractvalue aggregate[position] : type_` (not folded; see `folded_extract`)."""
    return llvm.ExtractValueOp.create(
        operands=[aggregate],
        properties={"position": position_attr(tuple(position))},
        result_types=[type_],
    )


def gep(
    ptr: SSAValue,
    elem_type: Attribute,
    indices: Sequence[int | SSAValue],
    inbounds: bool = False,
) -> llvm.GEPOp:
    """`llvm.getelementptr [inbounds] ptr[indices] : elem_type` (ints are constant indices)."""
    raw: list[int] = []
    dynamic: list[SSAValue] = []
    for idx in indices:
        if isinstance(idx, int):
            raw.append(idx)
        else:
            raw.append(llvm.GEP_USE_SSA_VAL)
            dynamic.append(idx)
    props: dict[str, Attribute] = {
        "rawConstantIndices": _gep_indices_attr(tuple(raw)),
        "elem_type": elem_type,
        "noWrapFlags": _I32_ZERO,
    }
    if inbounds:
        props["inbounds"] = _UNIT
    return llvm.GEPOp.create(operands=[ptr, *dynamic], result_types=[PTR], properties=props)


def load(ptr: SSAValue, type_: Attribute) -> llvm.LoadOp:
    """`llvm.load ptr : type_` (no alignment, not atomic)."""
    return llvm.LoadOp.create(
        operands=[ptr], result_types=[type_], properties={"ordering": _I64_ZERO}
    )


def store(value: SSAValue, ptr: SSAValue) -> llvm.StoreOp:
    """`llvm.store value, ptr` (no alignment, not atomic)."""
    return llvm.StoreOp.create(operands=[value, ptr], properties={"ordering": _I64_ZERO})


def int_binary(cls: type[llvm.ArithmeticBinOpOverflow], lhs: SSAValue, rhs: SSAValue):
    """`cls(lhs, rhs)` with no overflow flags (add, sub, mul, shl)."""
    return cls.create(
        operands=[lhs, rhs], result_types=[lhs.type], properties={"overflowFlags": _I32_ZERO}
    )


_FASTMATH_NONE = llvm.FastMathAttr(None)
_CCONV_C = llvm.CallingConventionAttr("ccc")
_NO_BUNDLES = DenseArrayBase.from_list(i32, ())
_TAIL_CALL_NONE = llvm.TailCallKindAttr(llvm.TailCallKind.NONE)


@lru_cache(maxsize=1024)
def _symbol_ref(name: str) -> SymbolRefAttr:
    return SymbolRefAttr(name)


def call(
    callee: str, args: Sequence[SSAValue], return_type: Attribute | None = None
) -> llvm.CallOp:
    """`llvm.call @callee(args) : return_type` (None: void), the op
    `llvm.CallOp(callee, *args, return_type=...)` makes: C calling convention,
    no fastmath flags, operand bundles or tail call kind."""
    return llvm.CallOp.create(
        operands=list(args),
        result_types=[] if return_type is None else [return_type],
        properties={
            "callee": _symbol_ref(callee),
            "fastmathFlags": _FASTMATH_NONE,
            "CConv": _CCONV_C,
            "op_bundle_sizes": _NO_BUNDLES,
            "operandSegmentSizes": segment_sizes((len(args), 0)),
            "TailCallKind": _TAIL_CALL_NONE,
        },
    )


def alloca(size: SSAValue, elem_type: Attribute, alignment: int | None = None) -> llvm.AllocaOp:
    """`llvm.alloca size x elem_type` (with `alignment` when given)."""
    props: dict[str, Attribute] = {"elem_type": elem_type}
    if alignment is not None:
        props["alignment"] = int_attr(alignment, i64)
    return llvm.AllocaOp.create(operands=[size], result_types=[PTR], properties=props)


def undef(type_: Attribute) -> llvm.UndefOp:
    """`llvm.mlir.undef : type_`."""
    return llvm.UndefOp.create(result_types=[type_])


__all__ = [
    "PTR",
    "alloca",
    "call",
    "constant",
    "constant_attr",
    "extract_value",
    "folded_extract",
    "DESCRIPTOR_FIELDS",
    "descriptor_from_fields",
    "expand_descriptor",
    "is_descriptor_from_fields",
    "gep",
    "insert_value",
    "int_attr",
    "int_binary",
    "load",
    "position_attr",
    "store",
    "undef",
    "wrap_i64",
]
