"""The upstream `memref` dialect as disc-ir registers it.

xDSL's ops are kept where their syntax and checks match MLIR's. Replaced here
(same op names, subclasses of xDSL's classes):

* `memref.cast %m : memref<?x?xf32> to memref<4x?xf32>` -- custom syntax and
  MLIR's cast-compatibility check;
* `memref.copy %a, %b : memref<...> to memref<...>` -- custom syntax; shapes
  need only be compatible (`?` matches any size), as MLIR's
  `SameOperandsShape`;
* `memref.rank %m : memref<?x?xf32>` -- custom syntax (xDSL has only the
  generic form); ranked and unranked memrefs;
* `memref.atomic_rmw addf %v, %m[%i] : (f32, memref<?xf32>) -> f32` -- custom
  syntax; the `kind` is MLIR's `arith::AtomicRMWKind` stored as an i64
  (`maxf`/`minf`, the names of BladeDISC's MLIR, are read as
  `maximumf`/`minimumf`).

Added (xDSL lacks them):

* `%old = memref.generic_atomic_rmw %m[%i] : memref<?xf32> { ^bb0(%cur: f32):
  ... memref.atomic_yield %new : f32 }` -- an atomic read-modify-write whose
  update is the (side-effect free) body; the result is the value read;
* `memref.atomic_yield %new : f32`, its terminator.

`alloc`/`alloca` (dynamic sizes, symbols, `alignment`), `dim`, `load`,
`store`, `dealloc`, `reinterpret_cast`, `subview` and `assume_alignment`
already print as MLIR does; memory spaces such as
`#gpu.address_space<global>` come from the gpu dialect.
"""

from __future__ import annotations

from typing import Self

from xdsl.dialects import memref as xmemref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    MemRefType,
    UnrankedMemRefType,
    i64,
)
from xdsl.ir import Block, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    MemoryReadEffect,
    MemoryWriteEffect,
    SameOperandsAndResultType,
    is_side_effect_free,
)
from xdsl.utils.exceptions import VerifyException


def shapes_compatible(lhs: tuple[int, ...], rhs: tuple[int, ...]) -> bool:
    """Equal ranks, and each pair of sizes equal or one of them dynamic."""
    return len(lhs) == len(rhs) and all(
        a == b or DYNAMIC_INDEX in (a, b) for a, b in zip(lhs, rhs, strict=True)
    )


class CastOp(xmemref.CastOp):
    """`memref.cast %src : T1 to T2`: a change of static shape information."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        source = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("to")
        dest_type = parser.parse_type()
        op = cls.build(
            operands=[parser.resolve_operand(source, source_type)], result_types=[dest_type]
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.source)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" to ")
        printer.print_attribute(self.dest.type)

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)
        src, dst = self.source.type, self.dest.type
        if isinstance(src, UnrankedMemRefType) and isinstance(dst, UnrankedMemRefType):
            raise VerifyException(
                f"'memref.cast' op operand type {src} and result type {dst} are cast incompatible"
            )
        if src.element_type != dst.element_type or src.memory_space != dst.memory_space:  # type: ignore[attr-defined]  # xDSL types the operands as Attribute; the operand constraints make both memref types
            raise VerifyException(
                f"'memref.cast' op operand type {src} and result type {dst} are cast "
                "incompatible (element type or memory space differ)"
            )
        if (
            isinstance(src, MemRefType)
            and isinstance(dst, MemRefType)
            and not shapes_compatible(src.get_shape(), dst.get_shape())
        ):
            raise VerifyException(
                f"'memref.cast' op operand type {src} and result type {dst} are cast "
                "incompatible (shapes differ)"
            )


class CopyOp(xmemref.CopyOp):
    """`memref.copy %src, %dst : T1 to T2`: copies all elements of `src` to `dst`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        source = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        target = parser.parse_unresolved_operand()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        source_type = parser.parse_type()
        parser.parse_keyword("to")
        target_type = parser.parse_type()
        op = cls(
            parser.resolve_operand(source, source_type),
            parser.resolve_operand(target, target_type),
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list((self.source, self.destination), printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.source.type)
        printer.print_string(" to ")
        printer.print_attribute(self.destination.type)

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)
        src, dst = self.source.type, self.destination.type
        assert isinstance(src, MemRefType) and isinstance(dst, MemRefType)
        if not shapes_compatible(src.get_shape(), dst.get_shape()):
            raise VerifyException(
                f"'memref.copy' op requires the same shape for all operands ({src} vs {dst})"
            )
        if src.element_type != dst.element_type:
            raise VerifyException(
                f"'memref.copy' op requires the same element type for all operands "
                f"({src.element_type} vs {dst.element_type})"
            )


# MLIR's arith::AtomicRMWKind, in enum order (the stored i64 is the index).
ATOMIC_RMW_KINDS = (
    "addf",
    "addi",
    "assign",
    "maximumf",
    "maxs",
    "maxu",
    "minimumf",
    "mins",
    "minu",
    "mulf",
    "muli",
    "ori",
    "andi",
    "maxnumf",
    "minnumf",
)
_ATOMIC_RMW_ALIASES = {"maxf": "maximumf", "minf": "minimumf"}


class AtomicRMWOp(xmemref.AtomicRMWOp):
    """`%old = memref.atomic_rmw addf %v, %m[%i] : (f32, memref<?xf32>) -> f32`."""

    @property
    def kind_name(self) -> str:
        index = self.kind.value.data
        return ATOMIC_RMW_KINDS[index] if 0 <= index < len(ATOMIC_RMW_KINDS) else str(index)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        kind = parser.parse_identifier()
        kind = _ATOMIC_RMW_ALIASES.get(kind, kind)
        if kind not in ATOMIC_RMW_KINDS:
            parser.raise_error(f"unknown atomic_rmw kind '{kind}'", at_position=pos)
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        memref = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())
        )
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_punctuation("(")
        value_type = parser.parse_type()
        parser.parse_punctuation(",")
        memref_type = parser.parse_type()
        parser.parse_punctuation(")")
        parser.parse_punctuation("->")
        result_type = parser.parse_type()
        op = cls.build(
            operands=[
                parser.resolve_operand(value, value_type),
                parser.resolve_operand(memref, memref_type),
                indices,
            ],
            result_types=[result_type],
            properties={"kind": IntegerAttr(ATOMIC_RMW_KINDS.index(kind), i64)},
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind_name} ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        printer.print_operand(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("]")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : (")
        printer.print_attribute(self.value.type)
        printer.print_string(", ")
        printer.print_attribute(self.memref.type)
        printer.print_string(") -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)
        memref_type = self.memref.type
        assert isinstance(memref_type, MemRefType)
        if memref_type.get_num_dims() != len(self.indices):
            raise VerifyException(
                "'memref.atomic_rmw' op expects the number of subscripts to be equal to "
                f"memref rank ({memref_type.get_num_dims()}), got {len(self.indices)}"
            )


@irdl_op_definition
class RankOp(xmemref.RankOp):
    """`memref.rank %m : memref<?x?xf32>`: the rank of a ranked or unranked memref, as index."""

    name = "memref.rank"
    source = operand_def(base(MemRefType) | base(UnrankedMemRefType))
    rank = result_def(IndexType)

    assembly_format = "$source attr-dict `:` type($source)"

    def verify_(self) -> None:
        """Nothing beyond the operand/result constraints (xDSL's checks ranked memrefs only)."""


class AssumeAlignmentOp(xmemref.AssumeAlignmentOp):
    """`memref.assume_alignment %m, 16 : memref<?xf32>`.

    Not `Pure`, as in BladeDISC's MLIR where the op had no result and unknown
    effects: the hint stays even when its result is unused (the codegen
    schedules emit it before adjacent stores to the operand itself)."""

    traits = traits_def(SameOperandsAndResultType())


@irdl_op_definition
class GenericAtomicRMWOp(IRDLOperation):
    """`%old = memref.generic_atomic_rmw %m[%i] : memref<?xf32> {...}`.

    Atomically replaces `m[i]` by what the body yields for its current value
    (the body's single argument) and returns the value it replaced. Lowered
    to a compare-and-swap loop (the body may run several times, so it must
    be free of side effects)."""

    name = "memref.generic_atomic_rmw"

    memref = operand_def(MemRefType)
    indices = var_operand_def(IndexType)
    result = result_def()
    atomic_body = region_def("single_block")

    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, memref: SSAValue, indices: list[SSAValue], body: Region | None = None):
        memref_type = memref.type
        assert isinstance(memref_type, MemRefType)
        elem = memref_type.get_element_type()
        super().__init__(
            operands=[memref, indices],
            result_types=[elem],
            regions=[body if body is not None else Region(Block(arg_types=[elem]))],
        )

    @property
    def current_value(self) -> SSAValue:
        """The body's argument: the value of `memref[indices]` the update starts from."""
        return self.atomic_body.block.args[0]

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        memref = parser.parse_unresolved_operand()
        indices = parser.parse_comma_separated_list(
            parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())
        )
        parser.parse_punctuation(":")
        pos = parser.pos
        memref_type = parser.parse_type()
        if not isinstance(memref_type, MemRefType):
            parser.raise_error(f"expected a memref type, got {memref_type}", at_position=pos)
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        op = cls.create(
            operands=[parser.resolve_operand(memref, memref_type), *indices],
            result_types=[memref_type.get_element_type()],
            regions=[body],
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.memref)
        printer.print_string("[")
        printer.print_list(self.indices, printer.print_operand)
        printer.print_string("] : ")
        printer.print_attribute(self.memref.type)
        printer.print_string(" ")
        printer.print_region(self.atomic_body)
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        memref_type = self.memref.type
        assert isinstance(memref_type, MemRefType)
        elem = memref_type.get_element_type()
        if self.result.type != elem:
            raise VerifyException(
                f"'memref.generic_atomic_rmw' op result type {self.result.type} must be the "
                f"memref's element type {elem}"
            )
        if memref_type.get_num_dims() != len(self.indices):
            raise VerifyException(
                "'memref.generic_atomic_rmw' op expects the number of subscripts to be equal "
                f"to memref rank ({memref_type.get_num_dims()}), got {len(self.indices)}"
            )
        block = self.atomic_body.block
        if len(block.args) != 1:
            raise VerifyException(
                "'memref.generic_atomic_rmw' op expected single number of entry block arguments"
            )
        if block.args[0].type != self.result.type:
            raise VerifyException(
                "'memref.generic_atomic_rmw' op expected block argument of the same type "
                "result type"
            )
        for op in block.ops:
            if not isinstance(op, AtomicYieldOp) and not is_side_effect_free(op):
                raise VerifyException(
                    "'memref.generic_atomic_rmw' op body of 'memref.generic_atomic_rmw' "
                    f"should contain only operations with no side effects ('{op.name}')"
                )
        if not isinstance(block.last_op, AtomicYieldOp):
            raise VerifyException(
                "'memref.generic_atomic_rmw' op expects its body to end with 'memref.atomic_yield'"
            )


@irdl_op_definition
class AtomicYieldOp(IRDLOperation):
    """`memref.atomic_yield %new : f32`: the new value of a `generic_atomic_rmw`."""

    name = "memref.atomic_yield"

    result = operand_def(AnyAttr())

    traits = traits_def(IsTerminator(), HasParent(GenericAtomicRMWOp))

    assembly_format = "$result attr-dict `:` type($result)"

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value])

    def verify_(self) -> None:
        parent = self.parent_op()
        if isinstance(parent, GenericAtomicRMWOp) and parent.result.type != self.result.type:
            raise VerifyException(
                f"'memref.atomic_yield' op types mismatch between yield op: {self.result.type} "
                f"and its parent: {parent.result.type}"
            )


_REPLACED: dict[str, type[Operation]] = {
    op.name: op for op in (CastOp, CopyOp, AtomicRMWOp, RankOp, AssumeAlignmentOp)
}

MEMREF = Dialect(
    "memref",
    [
        *(_REPLACED.get(op.name, op) for op in xmemref.MemRef.operations),
        GenericAtomicRMWOp,
        AtomicYieldOp,
    ],
    list(xmemref.MemRef.attributes),
)
