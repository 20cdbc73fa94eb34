"""The upstream `tensor` dialect as disc-ir registers it.

xDSL's ops are kept; added is what xDSL 0.74 lacks:

* `tensor.generate %d0, ... { ^bb0(%i: index, ...): ... tensor.yield %v : T } : tensor<?x..xT>`
  -- a tensor whose elements the body computes from their indices (mhlo's
  dynamic-shape lowering builds shapes with it). One index operand per
  dynamic dimension; the body takes one index per dimension and yields one
  element.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, TensorType
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class GenerateOp(IRDLOperation):
    """`%t = tensor.generate %d { ^bb0(%i: index): ... tensor.yield %v : f32 } : tensor<?xf32>`."""

    name = "tensor.generate"

    dynamicExtents = var_operand_def(IndexType)
    result = result_def(TensorType)
    body = region_def("single_block")

    traits = traits_def(RecursiveMemoryEffect())

    def __init__(
        self,
        dynamic_extents: Sequence[SSAValue | Operation],
        result_type: Attribute,
        body: Region,
    ):
        super().__init__(operands=[dynamic_extents], result_types=[result_type], regions=[body])

    def verify_(self) -> None:
        result_type = self.result.type
        assert isinstance(result_type, TensorType)
        shape = result_type.get_shape()
        num_dynamic = sum(1 for d in shape if d == DYNAMIC_INDEX)
        if num_dynamic != len(self.dynamicExtents):
            raise VerifyException(
                "'tensor.generate' op must have as many index operands as dynamic extents "
                f"in the result type ({num_dynamic}), got {len(self.dynamicExtents)}"
            )
        args = self.body.block.args
        if len(args) != len(shape) or not all(isinstance(a.type, IndexType) for a in args):
            raise VerifyException(
                f"'tensor.generate' op must have one body argument per input dimension "
                f"({len(shape)} index arguments)"
            )
        yield_op = self.body.block.last_op
        if not isinstance(yield_op, xtensor.YieldOp) or len(yield_op.arguments) != 1:
            raise VerifyException(
                "'tensor.generate' op body must end with a single-value tensor.yield"
            )
        if yield_op.arguments[0].type != result_type.element_type:
            raise VerifyException(
                "'tensor.generate' op body must be terminated with a `yield` operation of the "
                f"tensor element type ({result_type.element_type}), got "
                f"{yield_op.arguments[0].type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        extents = parser.parse_optional_undelimited_comma_separated_list(
            lambda: parser.parse_optional_operand(IndexType()),
            lambda: parser.parse_operand(IndexType()),
        )
        body = parser.parse_region()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        result_type = parser.parse_type()
        op = cls(extents or [], result_type, body)
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        if self.dynamicExtents:
            printer.print_string(" ")
            printer.print_list(self.dynamicExtents, printer.print_operand)
        printer.print_string(" ")
        printer.print_region(self.body)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)


TENSOR = Dialect(
    "tensor",
    [*xtensor.Tensor.operations, GenerateOp],
    list(xtensor.Tensor.attributes),
)
