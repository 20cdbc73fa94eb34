"""The upstream `bufferization` dialect as disc-ir registers it.

The tensor <-> buffer casts changed spelling across MLIR versions:

* BladeDISC's MLIR: `%m = bufferization.to_memref %t : memref<2xindex>` and
  `%t = bufferization.to_tensor %m : memref<2xindex>` (the tensor type is the
  memref's shape and element type);
* later MLIR: `bufferization.to_memref %t : tensor<2xindex> to memref<2xindex>`;
* today's MLIR: `bufferization.to_buffer %t : tensor<..> to memref<..>` and
  `bufferization.to_tensor %m : memref<..> to tensor<..>`.

All are read. `to_memref` and `to_tensor` print BladeDISC's short form when
the tensor type is the one implied by the memref type, and the `to` form
otherwise; `to_buffer` keeps today's form. The memref may carry a layout or a
memory space (`#gpu.address_space<global>`); only shape and element type must
agree, as in MLIR. `clone`, `alloc_tensor` and `materialize_in_destination`
are xDSL's.
"""

from __future__ import annotations

from typing import Self

from xdsl.dialects import bufferization as xbuf
from xdsl.dialects.builtin import (
    MemRefType,
    TensorType,
    UnitAttr,
    UnrankedMemRefType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from disc_ir.ir.builders import init_op


def tensor_type_of(memref_type: Attribute) -> Attribute:
    """The tensor type with the shape and element type of `memref_type`."""
    if isinstance(memref_type, MemRefType):
        return TensorType(memref_type.element_type, memref_type.shape)
    if isinstance(memref_type, UnrankedMemRefType):
        return UnrankedTensorType(memref_type.element_type)
    raise ValueError(f"expected a memref type, got {memref_type}")


def verify_tensor_matches_memref(op: Operation, tensor: Attribute, memref: Attribute) -> None:
    """Raise unless `tensor` and `memref` have the same shape and element type."""
    if not isinstance(memref, MemRefType | UnrankedMemRefType):
        raise VerifyException(f"'{op.name}' op expected a memref type, got {memref}")
    if not isinstance(tensor, TensorType | UnrankedTensorType):
        raise VerifyException(f"'{op.name}' op expected a tensor type, got {tensor}")
    if tensor_type_of(memref) != tensor:
        raise VerifyException(
            f"'{op.name}' op tensor type {tensor} does not match the shape and element "
            f"type of memref type {memref}"
        )


def _parse_short_or_long_types(
    parser: Parser, first_is_memref: bool
) -> tuple[Attribute, Attribute]:
    """Parse `: T` (the memref type) or `: T1 to T2`; return (tensor, memref) types."""
    first = parser.parse_type()
    if parser.parse_optional_keyword("to") is not None:
        second = parser.parse_type()
        return (second, first) if first_is_memref else (first, second)
    if first_is_memref or isinstance(first, MemRefType | UnrankedMemRefType):
        return tensor_type_of(first), first
    parser.raise_error(f"expected a memref type, got {first}")


@irdl_op_definition
class ToMemrefOp(IRDLOperation):
    """`%m = bufferization.to_memref %t [read_only] : memref<..>` (or `: tensor<..> to memref<..>`).

    The buffer holding a tensor's data (renamed `to_buffer` in today's MLIR).
    """

    name = "bufferization.to_memref"

    tensor = operand_def(base(TensorType) | base(UnrankedTensorType))
    memref = result_def(base(MemRefType) | base(UnrankedMemRefType))
    read_only = opt_attr_def(UnitAttr)

    traits = traits_def(Pure())

    def __init__(
        self, tensor: SSAValue | Operation, memref_type: Attribute, read_only: bool = False
    ):
        init_op(
            self,
            operands=[tensor],
            result_types=[memref_type],
            attributes={"read_only": UnitAttr() if read_only else None},
        )

    def verify_(self) -> None:
        verify_tensor_matches_memref(self, self.tensor.type, self.memref.type)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        tensor = parser.parse_unresolved_operand()
        read_only = parser.parse_optional_keyword("read_only") is not None
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        tensor_type, memref_type = _parse_short_or_long_types(parser, first_is_memref=False)
        op = cls(parser.resolve_operand(tensor, tensor_type), memref_type, read_only)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tensor)
        if self.read_only is not None:
            printer.print_string(" read_only")
        printer.print_op_attributes({k: v for k, v in self.attributes.items() if k != "read_only"})
        printer.print_string(" : ")
        if tensor_type_of(self.memref.type) != self.tensor.type:
            printer.print_attribute(self.tensor.type)
            printer.print_string(" to ")
        printer.print_attribute(self.memref.type)


class ToTensorOp(xbuf.ToTensorOp):
    """`%t = bufferization.to_tensor %m [restrict] [writable] : memref<..> [to tensor<..>]`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        memref = parser.parse_unresolved_operand()
        restrict = parser.parse_optional_keyword("restrict") is not None
        writable = parser.parse_optional_keyword("writable") is not None
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        tensor_type, memref_type = _parse_short_or_long_types(parser, first_is_memref=True)
        op = cls.build(
            operands=[parser.resolve_operand(memref, memref_type)],
            result_types=[tensor_type],
            properties={
                "restrict": UnitAttr() if restrict else None,
                "writable": UnitAttr() if writable else None,
            },
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.memref)
        if self.restrict is not None:
            printer.print_string(" restrict")
        if self.writable is not None:
            printer.print_string(" writable")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.memref.type)
        if tensor_type_of(self.memref.type) != self.tensor.type:
            printer.print_string(" to ")
            printer.print_attribute(self.tensor.type)

    def verify_(self) -> None:
        verify_tensor_matches_memref(self, self.tensor.type, self.memref.type)


class ToBufferOp(xbuf.ToBufferOp):
    """`%m = bufferization.to_buffer %t [read_only] : tensor<..> to memref<..>`.

    Unlike xDSL's, the memref may have a layout or memory space.
    """

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        tensor = parser.parse_unresolved_operand()
        read_only = parser.parse_optional_keyword("read_only") is not None
        parser.parse_punctuation(":")
        attrs = parser.parse_optional_attr_dict()
        tensor_type = parser.parse_type()
        parser.parse_keyword("to")
        memref_type = parser.parse_type()
        op = cls.build(
            operands=[parser.resolve_operand(tensor, tensor_type)],
            result_types=[memref_type],
            properties={"read_only": UnitAttr() if read_only else None},
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.tensor)
        if self.read_only is not None:
            printer.print_string(" read_only")
        printer.print_string(" :")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.tensor.type)
        printer.print_string(" to ")
        printer.print_attribute(self.memref.type)

    def verify_(self) -> None:
        verify_tensor_matches_memref(self, self.tensor.type, self.memref.type)


_REPLACED: dict[str, type[Operation]] = {op.name: op for op in (ToTensorOp, ToBufferOp)}

BUFFERIZATION = Dialect(
    "bufferization",
    [_REPLACED.get(op.name, op) for op in xbuf.Bufferization.operations] + [ToMemrefOp],
    list(xbuf.Bufferization.attributes),
)
