"""The upstream `affine` dialect as disc-ir registers it.

xDSL's ops are kept; what differs from MLIR is fixed here:

* `affine.apply` / `affine.min` print MLIR's `affine.apply #map(%d)[%s]`
  (xDSL puts a space before the dimension list), and accept the optional
  attribute dictionary after the operands;
* `affine.max` (missing in xDSL) is added, mirroring `affine.min`.

Semi-affine maps (`d0 ceildiv s0`, `d0 * s0`) are supported by
`disc_ir.ir.affine_expr`, which the IR layer installs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects import affine as xaffine
from xdsl.dialects.builtin import AffineMapAttr, IndexType
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException


def parse_map_and_operands(parser: Parser) -> tuple[AffineMapAttr, list[SSAValue]]:
    """Parse `#map(%d0, ...)[%s0, ...]`: an affine map and its index operands."""
    pos = parser.pos
    amap = parser.parse_attribute()
    if not isinstance(amap, AffineMapAttr):
        parser.raise_error("expected an affine map", at_position=pos)
    dims = parser.parse_optional_comma_separated_list(
        parser.Delimiter.PAREN, lambda: parser.parse_operand(IndexType())
    )
    syms = parser.parse_optional_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_operand(IndexType())
    )
    dims = dims or []
    syms = syms or []
    if len(dims) != amap.data.num_dims:
        parser.raise_error(
            f"expected {amap.data.num_dims} dimension operands, got {len(dims)}",
            at_position=pos,
        )
    if len(syms) != amap.data.num_symbols:
        parser.raise_error(
            f"expected {amap.data.num_symbols} symbol operands, got {len(syms)}",
            at_position=pos,
        )
    return amap, [*dims, *syms]


def print_map_and_operands(
    printer: Printer, amap: AffineMapAttr, operands: Sequence[SSAValue]
) -> None:
    """Print ` #map(%d0, ...)[%s0, ...]` as MLIR's `printDimAndSymbolList`."""
    num_dims = amap.data.num_dims
    printer.print_string(" ")
    printer.print_attribute(amap)
    printer.print_string("(")
    printer.print_list(operands[:num_dims], printer.print_operand)
    printer.print_string(")")
    if len(operands) > num_dims:
        printer.print_string("[")
        printer.print_list(operands[num_dims:], printer.print_operand)
        printer.print_string("]")


class _MapSyntax:
    """`#map(%d0, ..)[%s0, ..] attr-dict`, the form of affine.apply/min/max
    (mixed in before the op class; the op is built as `cls(operands, map)`)."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        amap, operands = parse_map_and_operands(parser)
        op = cls(operands, amap)  # type: ignore[call-arg]  # a mixin: `cls` is the op class it is mixed into (built as cls(operands, map))
        op.attributes |= parser.parse_optional_attr_dict()  # type: ignore[attr-defined]  # a mixin: `cls` is the op class it is mixed into
        return op

    def print(self, printer: Printer) -> None:
        op: Operation = self  # type: ignore[assignment]  # a mixin: `self` is the op it is mixed into
        print_map_and_operands(printer, op.map, tuple(op.operands))  # type: ignore[attr-defined]  # the affine ops this is mixed into have a `map`
        printer.print_op_attributes(op.attributes)


class ApplyOp(_MapSyntax, xaffine.ApplyOp):
    """`affine.apply #map(%d)[%s]`, printed as MLIR prints it."""


class MinOp(_MapSyntax, xaffine.MinOp):
    """`affine.min #map(%d)[%s]`: the minimum of the map's results."""


@irdl_op_definition
class MaxOp(_MapSyntax, IRDLOperation):
    """`affine.max #map(%d)[%s]`: the maximum of the map's results."""

    name = "affine.max"
    arguments = var_operand_def(IndexType())
    result = result_def(IndexType())
    map = prop_def(AffineMapAttr)

    traits = traits_def(Pure())

    def __init__(self, map_operands: Sequence[SSAValue | Operation], affine_map: AffineMapAttr):
        super().__init__(
            operands=[map_operands],
            properties={"map": affine_map},
            result_types=[IndexType()],
        )

    def verify_(self) -> None:
        expected = self.map.data.num_dims + self.map.data.num_symbols
        if len(self.arguments) != expected:
            raise VerifyException(
                f"operand count and affine map dimension and symbol count must match "
                f"(expected {expected}, got {len(self.arguments)})"
            )
        if not self.map.data.results:
            raise VerifyException("affine map expect at least one result")


_REPLACED = {ApplyOp.name: ApplyOp, MinOp.name: MinOp}

AFFINE = Dialect(
    "affine",
    [_REPLACED.get(op.name, op) for op in xaffine.Affine.operations] + [MaxOp],
    list(xaffine.Affine.attributes),
)
