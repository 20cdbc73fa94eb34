"""The upstream `llvm` dialect as disc-ir registers it: xDSL's ops plus what the
host lowering (disc-to-llvm) emits and xDSL lacks.

Added (MLIR's names and syntax):

* casts `llvm.fptosi`, `llvm.fptoui`, `llvm.uitofp`, `llvm.addrspacecast`:
  `%r = llvm.fptosi %x : f32 to i32`;
* `%e = llvm.extractelement %v[%i : i64] : vector<4xf32>`;
* `llvm.switch %flag : i32, ^default(%a : i64) [1: ^b1, 7: ^b2(%c : i64)]`
  (printed generically: `"llvm.switch"(%flag, ...) <{case_values = dense<...>,
  case_operand_segments = array<i32: ...>, ...}>[^default, ^b1, ^b2]`);
* `%old = llvm.atomicrmw fadd %ptr, %v monotonic : !llvm.ptr, f32`;
* `%pair = llvm.cmpxchg %ptr, %cmp, %new acq_rel monotonic : !llvm.ptr, i32`
  (result `!llvm.struct<(i32, i1)>`);
* typed pointers, the syntax of the MLIR BladeDISC is built on:
  `!llvm.ptr<i8>`, `!llvm.ptr<ptr<i8>>`, `!llvm.ptr<array<32 x i8>>`,
  `!llvm.ptr<f32, 3>` (`LLVMTypedPointerType`; `!llvm.ptr` and
  `!llvm.ptr<3>` stay xDSL's opaque `LLVMPointerType`), as the result of
  `llvm.inttoptr` (`IntToPtrOp`, xDSL's op with that result type allowed).
  The RAL passes make BladeDISC's default stream handle with it
  (`llvm.inttoptr %0 : i32 to !llvm.ptr<i8>`); `disc-to-llvm` makes every
  such pointer opaque.

Atomic orderings are stored as MLIR's `AtomicOrdering` integers
(not_atomic=0, unordered=1, monotonic=2, acquire=4, release=5, acq_rel=6,
seq_cst=7); atomicrmw kinds as MLIR's `AtomicBinOp` integers (see
`ATOMIC_BIN_OPS`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects import llvm as xllvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntAttr,
    IntegerAttr,
    IntegerType,
    NoneAttr,
    VectorType,
    i1,
    i32,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    RangeOf,
    VarConstraint,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
    successor_def,
    traits_def,
    var_operand_def,
    var_successor_def,
)
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.traits import IsTerminator, NoMemoryEffect
from xdsl.utils.exceptions import VerifyException


@irdl_attr_definition
class LLVMTypedPointerType(ParametrizedAttribute, TypeAttribute):
    """`!llvm.ptr<i8>`, `!llvm.ptr<f32, 3>`: a pointer to `pointee` (in address
    space `addr_space`), MLIR's typed LLVM pointer (LLVM 15 and before).

    Registered as `llvm.ptr` in place of xDSL's opaque `LLVMPointerType`: the
    forms without a pointee (`!llvm.ptr`, `!llvm.ptr<3>`) parse to that type
    (`new`). A pointee of the `llvm` dialect is written without its `!llvm.`
    prefix, as MLIR printed it (`!llvm.ptr<ptr<i8>>`, `!llvm.ptr<array<32 x i8>>`).
    """

    name = "llvm.ptr"

    pointee: Attribute
    addr_space: IntAttr | NoneAttr

    def __init__(self, pointee: Attribute, addr_space: int | None = None) -> None:
        super().__init__(pointee, NoneAttr() if addr_space is None else IntAttr(addr_space))

    @classmethod
    def new(cls, params: Sequence[Attribute]) -> Attribute:  # type: ignore[override]  # returns the opaque-pointer type for an opaque spelling, as MLIR parses it
        pointee, addr_space = params
        if isinstance(pointee, NoneAttr):
            assert isinstance(addr_space, IntAttr | NoneAttr)
            return xllvm.LLVMPointerType(addr_space)
        return super().new(params)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        if parser.parse_optional_characters("<") is None:
            return (NoneAttr(), NoneAttr())
        space = parser.parse_optional_integer()
        if space is not None:
            parser.parse_characters(">", " to end llvm.ptr parameters")
            return (NoneAttr(), IntAttr(space))
        pointee = _parse_pointee(parser)
        addr_space: IntAttr | NoneAttr = NoneAttr()
        if parser.parse_optional_characters(",") is not None:
            addr_space = IntAttr(parser.parse_integer(allow_negative=False))
        parser.parse_characters(">", " to end llvm.ptr parameters")
        return (pointee, addr_space)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            _print_pointee(printer, self.pointee)
            if isinstance(self.addr_space, IntAttr):
                printer.print_string(f", {self.addr_space.data}")


def _parse_pointee(parser: AttrParser) -> Attribute:
    """A typed pointer's pointee: `ptr<...>` / `ptr` and `array<N x T>` without
    the `!llvm.` prefix, or any type."""
    if parser.parse_optional_keyword("ptr") is not None:
        return LLVMTypedPointerType.new(LLVMTypedPointerType.parse_parameters(parser))
    if parser.parse_optional_keyword("array") is not None:
        parser.parse_characters("<", " to start llvm.array parameters")
        size = parser.parse_integer(allow_negative=False)
        parser.parse_keyword("x")
        element = _parse_pointee(parser)
        parser.parse_characters(">", " to end llvm.array parameters")
        return xllvm.LLVMArrayType(IntAttr(size), element)
    return parser.parse_type()


def _print_pointee(printer: Printer, pointee: Attribute) -> None:
    if isinstance(pointee, LLVMTypedPointerType | xllvm.LLVMPointerType):
        printer.print_string("ptr")
        pointee.print_parameters(printer)
    elif isinstance(pointee, xllvm.LLVMArrayType):
        printer.print_string(f"array<{pointee.size.data} x ")
        _print_pointee(printer, pointee.type)
        printer.print_string(">")
    else:
        printer.print_attribute(pointee)


@irdl_op_definition
class IntToPtrOp(IRDLOperation):
    """`%p = llvm.inttoptr %i : i32 to !llvm.ptr<i8>`: xDSL's op, its result
    also a typed pointer (opaque unless `ptr_type` says otherwise)."""

    name = "llvm.inttoptr"

    assembly_format = "$input attr-dict `:` type($input) `to` type($output)"

    input = operand_def(IntegerType)
    output = result_def(base(xllvm.LLVMPointerType) | base(LLVMTypedPointerType))

    traits = traits_def(NoMemoryEffect())

    def __init__(self, input: SSAValue | Operation, ptr_type: Attribute | None = None) -> None:
        super().__init__(operands=[input], result_types=[ptr_type or xllvm.LLVMPointerType()])


@irdl_op_definition
class FPToSIOp(xllvm.GenericCastOp):
    """`llvm.fptosi`: float to signed integer."""

    name = "llvm.fptosi"


@irdl_op_definition
class FPToUIOp(xllvm.GenericCastOp):
    """`llvm.fptoui`: float to unsigned integer."""

    name = "llvm.fptoui"


@irdl_op_definition
class UIToFPOp(xllvm.GenericCastOp):
    """`llvm.uitofp`: unsigned integer to float."""

    name = "llvm.uitofp"


@irdl_op_definition
class AddrSpaceCastOp(xllvm.GenericCastOp):
    """`%p = llvm.addrspacecast %q : !llvm.ptr<3> to !llvm.ptr`: a pointer in
    another address space (a workgroup global seen through a generic pointer)."""

    name = "llvm.addrspacecast"


@irdl_op_definition
class ExtractElementOp(IRDLOperation):
    """`%e = llvm.extractelement %v[%i : i64] : vector<4xf32>`."""

    name = "llvm.extractelement"

    ELEMENT: ClassVar = VarConstraint("ELEMENT", AnyAttr())
    VECTOR: ClassVar = VarConstraint(
        "VECTOR_T",
        VectorType.constr(ELEMENT, shape=ArrayAttr.constr(RangeOf(IntAttr).of_length(1))),
    )

    vector = operand_def(VECTOR)
    position = operand_def(IntegerType)
    res = result_def(ELEMENT)

    assembly_format = "$vector `[` $position `:` type($position) `]` attr-dict `:` type($vector)"

    traits = traits_def(NoMemoryEffect())

    def __init__(self, vector: Operation | SSAValue, position: Operation | SSAValue):
        vector_type = SSAValue.get(vector).type
        assert isinstance(vector_type, VectorType)
        super().__init__(operands=[vector, position], result_types=[vector_type.get_element_type()])


@irdl_op_definition
class SwitchOp(IRDLOperation):
    """`llvm.switch`: multi-way branch on an integer `value`.

    `case_values` (a dense vector of the flag's type) pairs with successors
    `1..N`; successor 0 is the default. `case_operand_segments` holds how many
    of `case_operands` each case passes.
    """

    name = "llvm.switch"

    value = operand_def(IntegerType)
    default_operands = var_operand_def()
    case_operands = var_operand_def()
    case_values = opt_prop_def(DenseIntOrFPElementsAttr)
    case_operand_segments = prop_def(DenseArrayBase)
    default_destination = successor_def()
    case_destinations = var_successor_def()

    irdl_options = (xllvm.AttrSizedOperandSegments(as_property=True),)

    traits = traits_def(IsTerminator())

    def __init__(
        self,
        value: SSAValue | Operation,
        default: Block,
        default_operands: Sequence[SSAValue | Operation],
        case_values: Sequence[int],
        case_blocks: Sequence[Block],
        case_operands: Sequence[Sequence[SSAValue | Operation]],
    ):
        flag_type = SSAValue.get(value).type
        assert isinstance(flag_type, IntegerType)
        props: dict[str, Attribute] = {
            "case_operand_segments": DenseArrayBase.from_list(
                i32, [len(ops) for ops in case_operands]
            )
        }
        if case_values:
            props["case_values"] = DenseIntOrFPElementsAttr.from_list(
                VectorType(flag_type, [len(case_values)]), list(case_values)
            )
        super().__init__(
            operands=[value, list(default_operands), [v for ops in case_operands for v in ops]],
            successors=[default, list(case_blocks)],
            properties=props,
        )

    def case_values_list(self) -> list[int]:
        """The case values, in successor order."""
        if self.case_values is None:
            return []
        return [int(v) for v in self.case_values.get_values()]

    def operands_of_case(self, i: int) -> tuple[SSAValue, ...]:
        """The operands passed to case `i`'s successor."""
        sizes = list(self.case_operand_segments.get_values())
        start = sum(sizes[:i])
        return tuple(self.case_operands[start : start + sizes[i]])

    def verify_(self) -> None:
        sizes = list(self.case_operand_segments.get_values())
        if len(sizes) != len(self.case_destinations):
            raise VerifyException("'llvm.switch' op expects one operand segment per case")
        if len(self.case_values_list()) != len(self.case_destinations):
            raise VerifyException("'llvm.switch' op expects one case value per case")
        if sum(sizes) != len(self.case_operands):
            raise VerifyException("'llvm.switch' op case operand segments do not add up")


ATOMIC_ORDERINGS = (
    "not_atomic",
    "unordered",
    "monotonic",
    "consume",
    "acquire",
    "release",
    "acq_rel",
    "seq_cst",
)
"""MLIR's `LLVM::AtomicOrdering` names, by integer value."""

ATOMIC_BIN_OPS = (
    "xchg",
    "add",
    "sub",
    "_and",
    "nand",
    "_or",
    "_xor",
    "max",
    "min",
    "umax",
    "umin",
    "fadd",
    "fsub",
    "fmax",
    "fmin",
    "uinc_wrap",
    "udec_wrap",
    "fmaximum",
    "fminimum",
)
"""MLIR's `LLVM::AtomicBinOp` names, by integer value (`_and` prints as `and`)."""


def _ordering(value: str | int) -> IntegerAttr:
    index = ATOMIC_ORDERINGS.index(value) if isinstance(value, str) else value
    return IntegerAttr(index, i64)


def _keyword(name: str) -> str:
    return name.lstrip("_")


@irdl_op_definition
class AtomicRMWOp(IRDLOperation):
    """`%old = llvm.atomicrmw fadd %ptr, %v monotonic : !llvm.ptr, f32`."""

    name = "llvm.atomicrmw"

    ptr = operand_def(xllvm.LLVMPointerType)
    val = operand_def()
    res = result_def()
    bin_op = prop_def(IntegerAttr)
    ordering = prop_def(IntegerAttr)

    def __init__(
        self,
        bin_op: str,
        ptr: SSAValue | Operation,
        val: SSAValue | Operation,
        ordering: str = "monotonic",
    ):
        super().__init__(
            operands=[ptr, val],
            result_types=[SSAValue.get(val).type],
            properties={
                "bin_op": IntegerAttr(ATOMIC_BIN_OPS.index(bin_op), i64),
                "ordering": _ordering(ordering),
            },
        )

    @property
    def bin_op_name(self) -> str:
        return _keyword(ATOMIC_BIN_OPS[self.bin_op.value.data])

    @property
    def ordering_name(self) -> str:
        return ATOMIC_ORDERINGS[self.ordering.value.data]

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.bin_op_name} ")
        printer.print_ssa_value(self.ptr)
        printer.print_string(", ")
        printer.print_ssa_value(self.val)
        printer.print_string(f" {self.ordering_name}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)
        printer.print_string(", ")
        printer.print_attribute(self.val.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicRMWOp:
        names = [_keyword(n) for n in ATOMIC_BIN_OPS]
        pos = parser.pos
        kind = parser.parse_identifier()
        if kind not in names:
            parser.raise_error(f"unknown atomicrmw operation '{kind}'", at_position=pos)
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        pos = parser.pos
        ordering = parser.parse_identifier()
        if ordering not in ATOMIC_ORDERINGS:
            parser.raise_error(f"unknown atomic ordering '{ordering}'", at_position=pos)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        parser.parse_punctuation(",")
        val_type = parser.parse_type()
        op = cls.create(
            operands=[
                parser.resolve_operand(ptr, ptr_type),
                parser.resolve_operand(val, val_type),
            ],
            result_types=[val_type],
            properties={
                "bin_op": IntegerAttr(names.index(kind), i64),
                "ordering": _ordering(ordering),
            },
            attributes=attrs,
        )
        return op


@irdl_op_definition
class AtomicCmpXchgOp(IRDLOperation):
    """`%r = llvm.cmpxchg %ptr, %cmp, %new acq_rel monotonic : !llvm.ptr, i32`.

    The result is `!llvm.struct<(T, i1)>`: the loaded value and whether it was
    replaced.
    """

    name = "llvm.cmpxchg"

    ptr = operand_def(xllvm.LLVMPointerType)
    cmp = operand_def()
    val = operand_def()
    res = result_def(xllvm.LLVMStructType)
    success_ordering = prop_def(IntegerAttr)
    failure_ordering = prop_def(IntegerAttr)

    def __init__(
        self,
        ptr: SSAValue | Operation,
        cmp: SSAValue | Operation,
        val: SSAValue | Operation,
        success_ordering: str = "acq_rel",
        failure_ordering: str = "monotonic",
    ):
        value_type = SSAValue.get(val).type
        super().__init__(
            operands=[ptr, cmp, val],
            result_types=[xllvm.LLVMStructType.from_type_list([value_type, i1])],
            properties={
                "success_ordering": _ordering(success_ordering),
                "failure_ordering": _ordering(failure_ordering),
            },
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.ptr, self.cmp, self.val], printer.print_ssa_value)
        printer.print_string(
            f" {ATOMIC_ORDERINGS[self.success_ordering.value.data]}"
            f" {ATOMIC_ORDERINGS[self.failure_ordering.value.data]}"
        )
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.ptr.type)
        printer.print_string(", ")
        printer.print_attribute(self.val.type)

    @classmethod
    def parse(cls, parser: Parser) -> AtomicCmpXchgOp:
        ptr = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        cmp = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        val = parser.parse_unresolved_operand()
        orderings = []
        for _ in range(2):
            pos = parser.pos
            ordering = parser.parse_identifier()
            if ordering not in ATOMIC_ORDERINGS:
                parser.raise_error(f"unknown atomic ordering '{ordering}'", at_position=pos)
            orderings.append(ordering)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        ptr_type = parser.parse_type()
        parser.parse_punctuation(",")
        val_type = parser.parse_type()
        return cls.create(
            operands=[
                parser.resolve_operand(ptr, ptr_type),
                parser.resolve_operand(cmp, val_type),
                parser.resolve_operand(val, val_type),
            ],
            result_types=[xllvm.LLVMStructType.from_type_list([val_type, i1])],
            properties={
                "success_ordering": _ordering(orderings[0]),
                "failure_ordering": _ordering(orderings[1]),
            },
            attributes=attrs,
        )


EXTRA_OPS: list[type[Operation]] = [
    AddrSpaceCastOp,
    FPToSIOp,
    FPToUIOp,
    UIToFPOp,
    ExtractElementOp,
    SwitchOp,
    AtomicRMWOp,
    AtomicCmpXchgOp,
]

LLVM = Dialect(
    "llvm",
    [*(op for op in xllvm.LLVM.operations if op is not xllvm.IntToPtrOp), IntToPtrOp, *EXTRA_OPS],
    [
        *(a for a in xllvm.LLVM.attributes if a is not xllvm.LLVMPointerType),
        LLVMTypedPointerType,
    ],
)


def _accept_typed_pointers_in_function_types() -> None:
    """Typed pointers are LLVM-compatible types, as in the MLIR BladeDISC (and
    OneFlow's OKL) is built on: `llvm.func @f(!llvm.ptr<i8>, i64)` verifies.
    xDSL's `LLVMFunctionType.verify` asks its module's `is_compatible_type`,
    which knows only the opaque pointer; it is extended by this one type."""
    opaque_only = xllvm.is_compatible_type
    if getattr(opaque_only, "accepts_typed_pointers", False):
        return

    def is_compatible_type(type_attr: Attribute) -> bool:
        return isinstance(type_attr, LLVMTypedPointerType) or opaque_only(type_attr)

    is_compatible_type.accepts_typed_pointers = True  # type: ignore[attr-defined]  # a marker on the patched function, so the patch is applied once
    xllvm.is_compatible_type = is_compatible_type


_accept_typed_pointers_in_function_types()
