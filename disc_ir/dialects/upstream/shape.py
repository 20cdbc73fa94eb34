"""The upstream `shape` dialect (xDSL 0.74 has none), in MLIR's syntax.

Shapes are `!shape.shape` values or *extent tensors* (`tensor<?xindex>`,
`tensor<Nxindex>`); sizes are `!shape.size` or `index`; constraints produce
`!shape.witness` values consumed by `shape.assuming`. mhlo's dynamic-shape
lowering and BladeDISC's shape passes use these ops:

    %s = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
    %c = shape.const_shape [1, 2, 3] : tensor<3xindex>
    %t = shape.to_extent_tensor %s : !shape.shape -> tensor<3xindex>
    %b = shape.broadcast %s0, %s1 : tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>
    %w = shape.cstr_broadcastable %s0, %s1 : tensor<?xindex>, tensor<?xindex>
    %r = shape.assuming %w -> (tensor<?xf32>) { ... shape.assuming_yield %v : tensor<?xf32> }

Verifiers follow MLIR's: shape/extent-tensor operand and result kinds, the
`!shape.shape` result required when a `!shape.shape` operand may carry an
error, const_shape's extent count, and the assuming region's yield types.
Inherent attributes are declared with `attr_def` (see disc_ir.ir.parser).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects.builtin import (
    BoolAttr,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ShapedType,
    StringAttr,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
    i1,
)
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    attr_def,
    irdl_attr_definition,
    irdl_op_definition,
    lazy_traits_def,
    operand_def,
    opt_attr_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    NoMemoryEffect,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
)
from xdsl.utils.exceptions import VerifyException

# --------------------------------------------------------------------------
# Types
# --------------------------------------------------------------------------


@irdl_attr_definition
class ShapeType(ParametrizedAttribute, TypeAttribute):
    """`!shape.shape`: a shape, possibly invalid (an error value)."""

    name = "shape.shape"


@irdl_attr_definition
class SizeType(ParametrizedAttribute, TypeAttribute):
    """`!shape.size`: a non-negative size, possibly invalid."""

    name = "shape.size"


@irdl_attr_definition
class WitnessType(ParametrizedAttribute, TypeAttribute):
    """`!shape.witness`: the result of a constraint check."""

    name = "shape.witness"


@irdl_attr_definition
class ValueShapeType(ParametrizedAttribute, TypeAttribute):
    """`!shape.value_shape`: a value paired with its shape."""

    name = "shape.value_shape"


def is_extent_tensor(typ: Attribute) -> bool:
    """A 1-D tensor of index (`tensor<?xindex>`, `tensor<3xindex>`)."""
    return (
        isinstance(typ, TensorType)
        and len(typ.get_shape()) == 1
        and isinstance(typ.element_type, IndexType)
    )


def is_shape_or_extent_tensor(typ: Attribute) -> bool:
    return isinstance(typ, ShapeType) or is_extent_tensor(typ)


def is_size_or_index(typ: Attribute) -> bool:
    return isinstance(typ, SizeType | IndexType)


def _check(op: Operation, ok: bool, message: str) -> None:
    if not ok:
        raise VerifyException(message)


def _verify_shapes_in(op: Operation, values: Sequence[SSAValue], what: str = "operand") -> None:
    for i, value in enumerate(values):
        _check(
            op,
            is_shape_or_extent_tensor(value.type),
            f"{what} #{i} must be shape or extent tensor, but got {value.type}",
        )


def _verify_shape_result(op: Operation, inputs: Sequence[SSAValue], result: SSAValue) -> None:
    """MLIR's verifyShapeOrExtentTensorOp: error-carrying inputs need a shape result."""
    _check(
        op,
        is_shape_or_extent_tensor(result.type),
        f"result #0 must be shape or extent tensor, but got {result.type}",
    )
    if any(isinstance(v.type, ShapeType) for v in inputs) and not isinstance(
        result.type, ShapeType
    ):
        raise VerifyException(
            f"'{op.name}' op if at least one of the operands can hold error values then "
            "the result must be of type `shape` to propagate them"
        )


def _verify_size_result(op: Operation, inputs: Sequence[SSAValue], result: SSAValue) -> None:
    """MLIR's verifySizeOrIndexOp."""
    _check(op, is_size_or_index(result.type), f"result must be size or index, got {result.type}")
    if any(isinstance(v.type, SizeType) for v in inputs) and not isinstance(result.type, SizeType):
        raise VerifyException(
            f"'{op.name}' op if at least one of the operands can hold error values then "
            "the result must be of type `size` to propagate them"
        )


# --------------------------------------------------------------------------
# Shape construction and conversion
# --------------------------------------------------------------------------


@irdl_op_definition
class ShapeOfOp(IRDLOperation):
    """`shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>`.

    The shape of a shaped value (tensor or memref), or of a `!shape.value_shape`.
    """

    name = "shape.shape_of"

    arg = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    traits = traits_def(Pure())
    assembly_format = "$arg attr-dict `:` type($arg) `->` type($result)"

    def __init__(self, arg: SSAValue | Operation, result_type: Attribute):
        super().__init__(operands=[arg], result_types=[result_type])

    def verify_(self) -> None:
        arg_type = self.arg.type
        _check(
            self,
            isinstance(arg_type, ShapedType | ValueShapeType),
            f"operand must be shaped or value_shape, but got {arg_type}",
        )
        _verify_shape_result(self, [self.arg], self.result)
        if isinstance(arg_type, ValueShapeType) and not isinstance(self.result.type, ShapeType):
            raise VerifyException(
                "if at least one of the operands can hold error values "
                "then the result must be of type `shape` to propagate them"
            )
        result_type = self.result.type
        if isinstance(result_type, TensorType) and isinstance(arg_type, ShapedType):
            extents = result_type.get_shape()[0]
            rank = len(arg_type.get_shape()) if _is_ranked(arg_type) else -1
            if extents >= 0 and rank >= 0 and extents != rank:
                raise VerifyException(
                    f"result type {result_type} does not match the "
                    f"rank {rank} of operand type {arg_type}"
                )


def _is_ranked(typ: Attribute) -> bool:
    return not isinstance(typ, UnrankedTensorType | UnrankedMemRefType)


@irdl_op_definition
class ConstShapeOp(IRDLOperation):
    """`shape.const_shape [1, 2, 3] : tensor<3xindex>` (or `: !shape.shape`)."""

    name = "shape.const_shape"

    shape = attr_def(DenseIntOrFPElementsAttr)
    result = result_def(AnyAttr())

    traits = traits_def(Pure())

    def __init__(self, extents: Sequence[int], result_type: Attribute | None = None):
        shape = DenseIntOrFPElementsAttr.from_list(
            TensorType(IndexType(), [len(extents)]), list(extents)
        )
        if result_type is None:
            result_type = TensorType(IndexType(), [len(extents)])
        super().__init__(result_types=[result_type], attributes={"shape": shape})

    @property
    def extents(self) -> tuple[int, ...]:
        return tuple(int(v) for v in self.shape.get_values())

    def verify_(self) -> None:
        shape_type = self.shape.get_type()
        _check(
            self,
            is_extent_tensor(shape_type),
            f"attribute 'shape' must be an index elements attribute, got {shape_type}",
        )
        result_type = self.result.type
        _check(
            self,
            is_shape_or_extent_tensor(result_type),
            f"result #0 must be shape or extent tensor, but got {result_type}",
        )
        if isinstance(result_type, TensorType):
            count = result_type.get_shape()[0]
            if count not in (-1, len(self.extents)):
                raise VerifyException(
                    f"'shape.const_shape' op inferred type(s) 'tensor<{len(self.extents)}xindex>' "
                    f"are incompatible with return type(s) of operation '{result_type}'"
                )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        attrs = parser.parse_optional_attr_dict()
        extents = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)
        parser.parse_punctuation(":")
        op = cls(extents, parser.parse_type())
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_op_attributes({k: v for k, v in self.attributes.items() if k != "shape"})
        printer.print_string("[")
        printer.print_list(self.extents, lambda v: printer.print_string(str(v)))
        printer.print_string("] : ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class ToExtentTensorOp(IRDLOperation):
    """`shape.to_extent_tensor %s : !shape.shape -> tensor<3xindex>`."""

    name = "shape.to_extent_tensor"

    input = operand_def(AnyAttr())
    result = result_def(TensorType)

    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def verify_(self) -> None:
        _verify_shapes_in(self, [self.input])
        _check(
            self,
            is_extent_tensor(self.result.type),
            f"result must be an extent tensor, got {self.result.type}",
        )


@irdl_op_definition
class FromExtentsOp(IRDLOperation):
    """`shape.from_extents %a, %b : index, index` -> `!shape.shape`."""

    name = "shape.from_extents"

    extents = var_operand_def(AnyAttr())
    shape = result_def(ShapeType)

    traits = traits_def(Pure())
    assembly_format = "$extents attr-dict `:` type($extents)"

    def verify_(self) -> None:
        for i, v in enumerate(self.extents):
            _check(self, is_size_or_index(v.type), f"operand #{i} must be size or index")


@irdl_op_definition
class FromExtentTensorOp(IRDLOperation):
    """`shape.from_extent_tensor %t : tensor<?xindex>` -> `!shape.shape`."""

    name = "shape.from_extent_tensor"

    input = operand_def(TensorType)
    result = result_def(ShapeType)

    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"


@irdl_op_definition
class ValueOfOp(IRDLOperation):
    """`shape.value_of %vs : tensor<?xf32>`: the value of a value_shape."""

    name = "shape.value_of"

    arg = operand_def(ValueShapeType)
    result = result_def(ShapedType)

    traits = traits_def(Pure())
    assembly_format = "$arg attr-dict `:` type($result)"


@irdl_op_definition
class WithOp(IRDLOperation):
    """`shape.with_shape %v, %s : tensor<?xf32>, !shape.shape` -> value_shape."""

    name = "shape.with_shape"

    operand = operand_def(AnyAttr())
    shape = operand_def(AnyAttr())
    result = result_def(ValueShapeType)

    traits = traits_def(Pure())
    assembly_format = "operands attr-dict `:` type($operand) `,` type($shape)"

    def verify_(self) -> None:
        _verify_shapes_in(self, [self.shape])


# --------------------------------------------------------------------------
# Shape computations
# --------------------------------------------------------------------------


class _NaryShapeOp(IRDLOperation):
    """Shared verification for ops over many shapes producing a shape."""

    def verify_(self) -> None:
        shapes = self.operands
        _verify_shapes_in(self, shapes)
        _verify_shape_result(self, shapes, self.results[0])


@irdl_op_definition
class BroadcastOp(_NaryShapeOp):
    """`shape.broadcast %a, %b : tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>`."""

    name = "shape.broadcast"

    shapes = var_operand_def(AnyAttr())
    result = result_def(AnyAttr())
    error = opt_attr_def(StringAttr)

    traits = traits_def(Pure())
    assembly_format = "$shapes attr-dict `:` type($shapes) `->` type($result)"

    def __init__(self, shapes: Sequence[SSAValue | Operation], result_type: Attribute):
        super().__init__(operands=[shapes], result_types=[result_type])

    def verify_(self) -> None:
        _check(self, len(self.shapes) >= 1, "requires at least one shape operand")
        super().verify_()


@irdl_op_definition
class AnyOp(_NaryShapeOp):
    """`shape.any %a, %b : tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>`."""

    name = "shape.any"

    inputs = var_operand_def(AnyAttr())
    result = result_def(AnyAttr())

    traits = traits_def(Pure())
    assembly_format = "$inputs attr-dict `:` type($inputs) `->` type($result)"


@irdl_op_definition
class ConcatOp(_NaryShapeOp):
    """`shape.concat %a, %b : tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>`."""

    name = "shape.concat"

    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"


@irdl_op_definition
class SplitAtOp(IRDLOperation):
    """`%h, %t = shape.split_at %s, %i : tensor<?xindex>, index -> tensor<?xindex>, tensor<?xindex>`."""

    name = "shape.split_at"

    operand = operand_def(AnyAttr())
    index = operand_def(AnyAttr())
    head = result_def(AnyAttr())
    tail = result_def(AnyAttr())

    traits = traits_def(Pure())
    assembly_format = (
        "$operand `,` $index attr-dict `:` type($operand) `,` type($index) `->` "
        "type($head) `,` type($tail)"
    )

    def verify_(self) -> None:
        _verify_shapes_in(self, [self.operand])
        _check(self, is_size_or_index(self.index.type), "index must be size or index")
        _verify_shapes_in(self, [self.head, self.tail], "result")


@irdl_op_definition
class GetExtentOp(IRDLOperation):
    """`shape.get_extent %s, %d : tensor<?xindex>, index -> index`."""

    name = "shape.get_extent"

    shape = operand_def(AnyAttr())
    dim = operand_def(AnyAttr())
    extent = result_def(AnyAttr())

    traits = traits_def(Pure())
    assembly_format = "$shape `,` $dim attr-dict `:` type($shape) `,` type($dim) `->` type($extent)"

    def verify_(self) -> None:
        _verify_shapes_in(self, [self.shape])
        _check(self, is_size_or_index(self.dim.type), "dim must be size or index")
        _verify_size_result(self, [self.shape, self.dim], self.extent)
        if isinstance(self.shape.type, ShapeType) and not isinstance(self.extent.type, SizeType):
            raise VerifyException(
                "'shape.get_extent' op if at least one of the operands can hold error "
                "values then the result must be of type `size` to propagate them"
            )


@irdl_op_definition
class NumElementsOp(IRDLOperation):
    """`shape.num_elements %s : tensor<?xindex> -> index`."""

    name = "shape.num_elements"

    shape = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    traits = traits_def(Pure())
    assembly_format = "$shape attr-dict `:` type($shape) `->` type($result)"

    def verify_(self) -> None:
        _verify_shapes_in(self, [self.shape])
        _verify_size_result(self, [], self.result)
        if isinstance(self.shape.type, ShapeType) and not isinstance(self.result.type, SizeType):
            raise VerifyException(
                "'shape.num_elements' op if at least one of the operands can hold error "
                "values then the result must be of type `size` to propagate them"
            )


@irdl_op_definition
class RankOp(IRDLOperation):
    """`shape.rank %s : tensor<?xindex> -> index`."""

    name = "shape.rank"

    shape = operand_def(AnyAttr())
    rank = result_def(AnyAttr())

    traits = traits_def(Pure())
    assembly_format = "$shape attr-dict `:` type($shape) `->` type($rank)"

    def verify_(self) -> None:
        _verify_shapes_in(self, [self.shape])
        _verify_size_result(self, [], self.rank)


@irdl_op_definition
class ShapeEqOp(IRDLOperation):
    """`shape.shape_eq %a, %b : tensor<?xindex>, tensor<?xindex>` -> i1."""

    name = "shape.shape_eq"

    shapes = var_operand_def(AnyAttr())
    result = result_def(i1)

    traits = traits_def(Pure())
    assembly_format = "$shapes attr-dict `:` type($shapes)"

    def verify_(self) -> None:
        _verify_shapes_in(self, self.shapes)


@irdl_op_definition
class IsBroadcastableOp(IRDLOperation):
    """`shape.is_broadcastable %a, %b : tensor<?xindex>, tensor<?xindex>` -> i1."""

    name = "shape.is_broadcastable"

    shapes = var_operand_def(AnyAttr())
    result = result_def(i1)

    traits = traits_def(NoMemoryEffect())
    assembly_format = "$shapes attr-dict `:` type($shapes)"

    def verify_(self) -> None:
        _verify_shapes_in(self, self.shapes)


# --------------------------------------------------------------------------
# Sizes
# --------------------------------------------------------------------------


@irdl_op_definition
class ConstSizeOp(IRDLOperation):
    """`%c3 = shape.const_size 3` -> `!shape.size`."""

    name = "shape.const_size"

    value = attr_def(IntegerAttr)
    result = result_def(SizeType)

    traits = traits_def(Pure())

    def __init__(self, value: int):
        super().__init__(
            result_types=[SizeType()], attributes={"value": IntegerAttr(value, IndexType())}
        )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls(parser.parse_integer())
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.value.value.data}")
        printer.print_op_attributes({k: v for k, v in self.attributes.items() if k != "value"})


@irdl_op_definition
class IndexToSizeOp(IRDLOperation):
    """`shape.index_to_size %i` -> `!shape.size`."""

    name = "shape.index_to_size"

    arg = operand_def(IndexType)
    result = result_def(SizeType)

    traits = traits_def(Pure())
    assembly_format = "$arg attr-dict"


@irdl_op_definition
class SizeToIndexOp(IRDLOperation):
    """`shape.size_to_index %s : !shape.size` -> index."""

    name = "shape.size_to_index"

    arg = operand_def(AnyAttr())
    result = result_def(IndexType)

    traits = traits_def(Pure())
    assembly_format = "$arg attr-dict `:` type($arg)"

    def verify_(self) -> None:
        _check(self, is_size_or_index(self.arg.type), "operand must be size or index")


class _SizeBinaryOp(IRDLOperation):
    """Base of shape.add/mul/div: `%a, %b : index, index -> index` (sizes or
    indices)."""

    lhs = operand_def(AnyAttr())
    rhs = operand_def(AnyAttr())
    result = result_def(AnyAttr())
    traits = traits_def(Pure())
    assembly_format = "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)"

    def verify_(self) -> None:
        for v in self.operands:
            _check(self, is_size_or_index(v.type), f"operand must be size or index, got {v.type}")
        _verify_size_result(self, self.operands, self.results[0])


@irdl_op_definition
class AddOp(_SizeBinaryOp):
    """`shape.add %a, %b : index, index -> index`."""

    name = "shape.add"


@irdl_op_definition
class MulOp(_SizeBinaryOp):
    """`shape.mul %a, %b : index, index -> index`."""

    name = "shape.mul"


@irdl_op_definition
class DivOp(_SizeBinaryOp):
    """`shape.div %a, %b : index, index -> index` (floor division)."""

    name = "shape.div"


# --------------------------------------------------------------------------
# Witnesses and assuming regions
# --------------------------------------------------------------------------


@irdl_op_definition
class CstrBroadcastableOp(IRDLOperation):
    """`%w = shape.cstr_broadcastable %a, %b : tensor<?xindex>, tensor<?xindex>`."""

    name = "shape.cstr_broadcastable"

    shapes = var_operand_def(AnyAttr())
    result = result_def(WitnessType)

    assembly_format = "$shapes attr-dict `:` type($shapes)"

    def __init__(self, shapes: Sequence[SSAValue | Operation]):
        super().__init__(operands=[shapes], result_types=[WitnessType()])

    def verify_(self) -> None:
        _check(self, len(self.shapes) >= 2, "required at least 2 input shapes")
        _verify_shapes_in(self, self.shapes)


@irdl_op_definition
class CstrEqOp(IRDLOperation):
    """`%w = shape.cstr_eq %a, %b : tensor<?xindex>, tensor<?xindex>`."""

    name = "shape.cstr_eq"

    shapes = var_operand_def(AnyAttr())
    result = result_def(WitnessType)

    assembly_format = "$shapes attr-dict `:` type($shapes)"

    def verify_(self) -> None:
        _verify_shapes_in(self, self.shapes)


@irdl_op_definition
class CstrRequireOp(IRDLOperation):
    """`%w = shape.cstr_require %pred, "message"`."""

    name = "shape.cstr_require"

    pred = operand_def(i1)
    msg = attr_def(StringAttr)
    result = result_def(WitnessType)

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pred = parser.parse_operand(i1)
        parser.parse_punctuation(",")
        msg = parser.parse_str_literal()
        op = cls.build(
            operands=[pred], result_types=[WitnessType()], attributes={"msg": StringAttr(msg)}
        )
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.pred)
        printer.print_string(", ")
        printer.print_string_literal(self.msg.data)
        printer.print_op_attributes({k: v for k, v in self.attributes.items() if k != "msg"})


@irdl_op_definition
class ConstWitnessOp(IRDLOperation):
    """`%w = shape.const_witness true`."""

    name = "shape.const_witness"

    passing = attr_def(IntegerAttr)
    result = result_def(WitnessType)

    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        passing = parser.parse_boolean()
        op = cls.build(
            result_types=[WitnessType()], attributes={"passing": BoolAttr.from_bool(passing)}
        )
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" true" if self.passing.value.data else " false")
        printer.print_op_attributes({k: v for k, v in self.attributes.items() if k != "passing"})

    def verify_(self) -> None:
        _check(
            self,
            isinstance(self.passing.type, IntegerType) and self.passing.type.width.data == 1,
            "attribute 'passing' must be a bool attribute",
        )


@irdl_op_definition
class AssumingAllOp(IRDLOperation):
    """`%w = shape.assuming_all %w0, %w1`: all witnesses hold."""

    name = "shape.assuming_all"

    inputs = var_operand_def(WitnessType)
    result = result_def(WitnessType)

    traits = traits_def(Pure())
    assembly_format = "$inputs attr-dict"

    def verify_(self) -> None:
        _check(self, len(self.inputs) > 0, "no operands specified")


@irdl_op_definition
class AssumingYieldOp(IRDLOperation):
    """`shape.assuming_yield %v : tensor<?xf32>`: terminates `shape.assuming`."""

    name = "shape.assuming_yield"

    operands_ = var_operand_def(AnyAttr())

    traits = lazy_traits_def(lambda: (IsTerminator(), Pure(), HasParent(AssumingOp)))
    assembly_format = "attr-dict ($operands_^ `:` type($operands_))?"

    def __init__(self, values: Sequence[SSAValue | Operation] = ()):
        super().__init__(operands=[values])


@irdl_op_definition
class AssumingOp(IRDLOperation):
    """`%r = shape.assuming %w -> (tensor<?xf32>) { ... shape.assuming_yield %v : ... }`.

    Runs its region only if the witness holds; the region's yield gives the results.
    """

    name = "shape.assuming"

    witness = operand_def(WitnessType)
    outs = var_result_def(AnyAttr())
    doRegion = region_def("single_block")

    traits = traits_def(SingleBlockImplicitTerminator(AssumingYieldOp), RecursiveMemoryEffect())

    def __init__(
        self,
        witness: SSAValue | Operation,
        result_types: Sequence[Attribute],
        region: Region,
    ):
        super().__init__(operands=[witness], result_types=[result_types], regions=[region])

    def verify_(self) -> None:
        yield_op = self.doRegion.block.last_op
        if isinstance(yield_op, AssumingYieldOp):
            got = tuple(yield_op.operands_.types)
            want = tuple(self.outs.types)
            if got != want:
                raise VerifyException(
                    "'shape.assuming' op expected the yielded types "
                    f"({', '.join(map(str, got))}) to match the result types "
                    f"({', '.join(map(str, want))})"
                )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        witness = parser.parse_operand(WitnessType())
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            result_types = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        last = region.block.last_op
        if last is None or not last.has_trait(IsTerminator):
            region.block.add_op(AssumingYieldOp())
        op = cls(witness, result_types, region)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.witness)
        if self.outs:
            printer.print_string(" -> (")
            printer.print_list(self.outs.types, printer.print_attribute)
            printer.print_string(")")
        printer.print_string(" ")
        printer.print_region(
            self.doRegion, print_entry_block_args=False, print_block_terminators=bool(self.outs)
        )
        printer.print_op_attributes(self.attributes)


SHAPE = Dialect(
    "shape",
    [
        AddOp,
        AnyOp,
        AssumingAllOp,
        AssumingOp,
        AssumingYieldOp,
        BroadcastOp,
        ConcatOp,
        ConstShapeOp,
        ConstSizeOp,
        ConstWitnessOp,
        CstrBroadcastableOp,
        CstrEqOp,
        CstrRequireOp,
        DivOp,
        FromExtentTensorOp,
        FromExtentsOp,
        GetExtentOp,
        IndexToSizeOp,
        IsBroadcastableOp,
        MulOp,
        NumElementsOp,
        RankOp,
        ShapeEqOp,
        ShapeOfOp,
        SizeToIndexOp,
        SplitAtOp,
        ToExtentTensorOp,
        ValueOfOp,
        WithOp,
    ],
    [ShapeType, SizeType, WitnessType, ValueShapeType],
)
