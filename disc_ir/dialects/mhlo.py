"""The `mhlo` dialect: XLA's HLO ops on tensors, as BladeDISC's mlir-hlo had them.

Every op parses in the generic form (inherent attributes in the attribute
dictionary or as properties `<{...}>`). Ops that had a custom assembly form in
the pinned mlir-hlo print and parse it:

* elementwise: `mhlo.add %a, %b : tensor<?xf32>`, `mhlo.abs %a : tensor<4xf32>`
  (and `mhlo.erf`, which only mhlo has),
  `mhlo.convert %a : (tensor<4xf32>) -> tensor<4xi32>` (a function type when
  operand and result types differ), `mhlo.is_finite %a : (..) -> ..`;
* `mhlo.constant dense<1.0> : tensor<f32>`;
* `mhlo.compare  GT, %a, %b,  FLOAT : (..) -> tensor<..xi1>`;
* `mhlo.select %p, %a, %b : tensor<..xi1>, tensor<..>`, `mhlo.clamp`;
* `mhlo.reduce(%x init: %y) applies mhlo.add across dimensions = [1] : ...`
  and the region form `... across dimensions = [1] : (..) -> ..
  reducer(%a: tensor<f32>, %b: tensor<f32>) { ... }`;
* `mhlo.get_tuple_element %t[1] : (tuple<..>) -> ..`, `mhlo.tuple`,
  `mhlo.custom_call @target(%a) {..} : (..) -> ..`, `mhlo.return`,
  `mhlo.while(%i = %init) : .. cond {..} do {..}`, `mhlo.convolution(...)`
  and the `operands attr-dict : functional-type` ops (reshape,
  dynamic_reshape, bitcast_convert, real_dynamic_slice, dynamic_pad,
  dynamic_update_slice, compute_reshape_shape, cstr_reshapable).

Verifiers check what mlir-hlo checks: compatible shapes (dynamic dimensions
match any size; encodings such as `[@S0, @S1]` are ignored), element types,
and the shape of attributes (broadcast dimensions, permutations, dimension
numbers).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar, cast

from xdsl.dialect_interfaces.constant_materialization import ConstantMaterializationInterface
from xdsl.dialects.builtin import (
    ArrayAttr,
    BoolAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    TupleType,
    UnrankedTensorType,
    i32,
)
from xdsl.ir import Attribute, Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    SameVariadicOperandSize,
    attr_def,
    base,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_region_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Commutative, ConstantLike, IsTerminator, Pure, RecursiveMemoryEffect
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects import hlo_ops_common as common
from disc_ir.dialects.hlo_attrs import (
    HLO_ATTRIBUTES,
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
    ConvDimensionNumbersAttr,
    DotDimensionNumbersAttr,
    FftTypeAttr,
    GatherDimensionNumbersAttr,
    HloTensor,
    HloTensorOrTuple,
    RngDistributionAttr,
    ScatterDimensionNumbersAttr,
    check_dims_in_range,
    dim_compatible,
    element_type_of,
    format_type,
    i64_elements,
    i64_elements_2d,
    ints,
    is_bool,
    rank_of,
    shape_of,
    shapes_compatible,
    verify_compatible_shapes,
    verify_same_element_types,
)
from disc_ir.dialects.hlo_ops_common import (
    BINARY_ELEMENTWISE,
    UNARY_ELEMENTWISE,
    ConvolutionAttributes,
    ElementwiseSpec,
    FunctionalSyntaxOp,
    ReturnSyntaxOp,
    check_element_kind,
    expected_result_element,
    make_op_class,
    parse_functional_tail,
    parse_functional_type,
    parse_op_attrs,
    parse_same_operands_and_result_type,
    parse_unresolved_list,
    print_functional_tail,
    print_op_attrs,
    print_same_operands_and_result_type,
    resolve,
)

_MODULE = __name__


def _err(op: Operation, msg: str) -> VerifyException:
    return VerifyException(msg)


def _types_same_ignoring_encoding(a: Attribute, b: Attribute) -> bool:
    """Same shape and element type (tensor encodings ignored)."""
    if element_type_of(a) != element_type_of(b):
        return False
    return shape_of(a) == shape_of(b)


# ---------------------------------------------------------------------------
# constant / iota
# ---------------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """A tensor constant: `mhlo.constant dense<[1, 2]> : tensor<2xi32>`."""

    name = "mhlo.constant"
    value = attr_def(Attribute)
    output = result_def(HloTensor)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(attributes={"value": value}, result_types=[value.type])

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        if parser.parse_optional_punctuation("(") is not None:
            # `mhlo.constant() {value = ...} : () -> tensor<..>`
            parser.parse_punctuation(")")
            attrs = parse_op_attrs(parser)
            parser.parse_punctuation(":")
            _, outputs = parse_functional_type(parser, 0)
            return cls.create(attributes=attrs, result_types=outputs)
        return common.parse_constant(cls, parser)  # type: ignore[return-value]  # parse_constant builds `cls`

    def print(self, printer: Printer) -> None:
        value_type = getattr(self.value, "type", None)
        if value_type != self.output.type:
            # Same fallback as mlir-hlo: generic form without the name.
            printer.print_string("() ")
            printer.print_attr_dict(dict(self.attributes))
            printer.print_string(" : ")
            printer.print_operation_type(self)
            return
        common.print_constant(printer, self)

    def verify_(self) -> None:
        value_type = getattr(self.value, "type", None)
        if value_type is None:
            raise _err(self, "value must be an elements attribute")
        if not _types_same_ignoring_encoding(value_type, self.output.type):
            raise _err(
                self,
                f"value type {format_type(value_type)} does not match result "
                f"type {format_type(self.output.type)}",
            )


@irdl_op_definition
class IotaOp(IRDLOperation):
    """0, 1, 2, ... along `iota_dimension` of a static-shape result."""

    name = "mhlo.iota"
    iota_dimension = attr_def(IntegerAttr)
    output = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        rank = rank_of(self.output.type)
        dim = self.iota_dimension.value.data
        if rank is not None and not 0 <= dim < max(rank, 1):
            raise _err(self, f"iota dimension {dim} is out of range [0, {rank})")


@irdl_op_definition
class DynamicIotaOp(IRDLOperation):
    """iota with the result shape given by a 1-d tensor operand."""

    name = "mhlo.dynamic_iota"
    output_shape = operand_def(HloTensor)
    iota_dimension = attr_def(IntegerAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        rank = rank_of(self.result.type)
        dim = self.iota_dimension.value.data
        if rank is not None and not 0 <= dim < max(rank, 1):
            raise _err(self, f"iota dimension {dim} is out of range [0, {rank})")
        _check_shape_operand(self, "output_shape", self.output_shape.type, rank)


def _check_shape_operand(op: Operation, what: str, t: Attribute, rank: int | None) -> None:
    """A 1-d integer/index tensor with `rank` entries (when both known)."""
    shape = shape_of(t)
    if shape is None:
        return
    if len(shape) != 1:
        raise _err(op, f"{what} must be a 1-d tensor, got {format_type(t)}")
    check_element_kind(op, what, t, common.INT)
    if rank is not None and shape[0] >= 0 and shape[0] != rank:
        raise _err(op, f"{what} has {shape[0]} elements but the result has rank {rank}")


# ---------------------------------------------------------------------------
# Elementwise ops (generated from hlo_ops_common's tables)
# ---------------------------------------------------------------------------


def _verify_elementwise(
    op: Operation, spec: ElementwiseSpec, operands: Sequence[SSAValue], result
) -> None:
    types = [o.type for o in operands]
    for i, t in enumerate(types):
        check_element_kind(op, f"operand #{i}", t, spec.kind)
    verify_compatible_shapes(op, [*types, result.type])
    verify_same_element_types(op, types)
    expected = expected_result_element(spec, element_type_of(types[0]))
    got = element_type_of(result.type)
    if expected is not None and got != expected:
        raise _err(
            op,
            f"result element type {format_type(got)} does not match the "
            f"expected {format_type(expected)}",
        )


class UnaryElementwiseOp(IRDLOperation):
    """Base of the unary elementwise ops: `mhlo.abs %a : tensor<..>`."""

    SPEC: ClassVar[ElementwiseSpec]
    FUNCTIONAL_SYNTAX: ClassVar[bool] = False

    operand = operand_def(HloTensor)
    result = result_def(HloTensor)

    @classmethod
    def parse(cls, parser: Parser) -> UnaryElementwiseOp:
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        attrs = parse_op_attrs(parser)
        parser.parse_punctuation(":")
        in_types, out_type = parse_same_operands_and_result_type(parser, 1)
        (value,) = resolve(parser, [operand], in_types, pos)
        return cls.create(operands=[value], result_types=[out_type], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        print_op_attrs(printer, self)
        printer.print_string(" : ")
        if self.FUNCTIONAL_SYNTAX:
            printer.print_operation_type(self)
        else:
            print_same_operands_and_result_type(printer, [self.operand.type], self.result.type)

    def verify_(self) -> None:
        _verify_elementwise(self, self.SPEC, [self.operand], self.result)


class BinaryElementwiseOp(IRDLOperation):
    """Base of the binary elementwise ops: `mhlo.add %a, %b : tensor<..>`."""

    SPEC: ClassVar[ElementwiseSpec]

    lhs = operand_def(HloTensor)
    rhs = operand_def(HloTensor)
    result = result_def(HloTensor)

    @classmethod
    def parse(cls, parser: Parser) -> BinaryElementwiseOp:
        pos = parser.pos
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        attrs = parse_op_attrs(parser)
        parser.parse_punctuation(":")
        if cls.SPEC.result == common.COMPLEX:
            in_types, out_type = _parse_complex_op_type(parser)
        else:
            in_types, out_type = parse_same_operands_and_result_type(parser, 2)
        values = resolve(parser, [lhs, rhs], in_types, pos)
        return cls.create(operands=values, result_types=[out_type], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        print_op_attrs(printer, self)
        printer.print_string(" : ")
        in_types = [self.lhs.type, self.rhs.type]
        if self.SPEC.result == common.COMPLEX:
            real = _with_element(self.result.type, common.real_element)
            if all(t == real for t in in_types):
                printer.print_attribute(self.result.type)
            else:
                printer.print_operation_type(self)
            return
        print_same_operands_and_result_type(printer, in_types, self.result.type)

    def verify_(self) -> None:
        _verify_elementwise(self, self.SPEC, [self.lhs, self.rhs], self.result)


def _with_element(t: Attribute, fn) -> Attribute:
    """`t` with its element type mapped by `fn`."""
    if isinstance(t, TensorType):
        return TensorType(fn(t.get_element_type()), t.get_shape(), t.encoding)
    if isinstance(t, UnrankedTensorType):
        return UnrankedTensorType(fn(t.get_element_type()))
    return t


def _parse_complex_op_type(parser: Parser) -> tuple[list[Attribute], Attribute]:
    """`: tensor<..xcomplex<T>>` (operands of the real type) or a function type."""
    t = parser.parse_type()
    if isinstance(t, FunctionType):
        return list(t.inputs.data), t.outputs.data[0]
    real = _with_element(t, common.real_element)
    return [real, real], t


def _elementwise_classes() -> list[type[IRDLOperation]]:
    classes: list[type[IRDLOperation]] = []
    for spec in UNARY_ELEMENTWISE:
        classes.append(
            make_op_class(
                UnaryElementwiseOp,
                f"mhlo.{spec.mnemonic}",
                spec.class_name,
                f"Elementwise {spec.summary}.",
                _MODULE,
                SPEC=spec,
                FUNCTIONAL_SYNTAX=spec.mnemonic == "is_finite",
                traits=traits_def(Pure()),
            )
        )
    for spec in BINARY_ELEMENTWISE:
        traits = (Pure(), Commutative()) if spec.commutative else (Pure(),)
        classes.append(
            make_op_class(
                BinaryElementwiseOp,
                f"mhlo.{spec.mnemonic}",
                spec.class_name,
                f"Elementwise {spec.summary}.",
                _MODULE,
                SPEC=spec,
                traits=traits_def(*traits),
            )
        )
    return classes


ELEMENTWISE_OPS = _elementwise_classes()
common.export(_MODULE, ELEMENTWISE_OPS)

#: `mhlo.erf %x : tensor<..>` (today's mhlo; no lmhlo counterpart): the
#: Gauss error function, expanded by `chlo-legalize-to-hlo` as `chlo.erf` is.
ErfOp = make_op_class(
    UnaryElementwiseOp,
    "mhlo.erf",
    "ErfOp",
    "Elementwise erf(x), the Gauss error function.",
    _MODULE,
    SPEC=common.ElementwiseSpec("erf", "ErfOp", common.FP, common.SAME, False, "erf(x)"),
    traits=traits_def(Pure()),
)


#: today's mhlo's elementwise inverse-trigonometric and hyperbolic ops (no
#: lmhlo counterpart): expanded by `chlo-legalize-to-hlo` as their chlo twins.
NEWER_UNARY_OPS: list[type[IRDLOperation]] = [
    make_op_class(
        UnaryElementwiseOp,
        f"mhlo.{mnemonic}",
        cls_name,
        f"Elementwise {mnemonic}(x).",
        _MODULE,
        SPEC=common.ElementwiseSpec(mnemonic, cls_name, common.FP, common.SAME, False, mnemonic),
        traits=traits_def(Pure()),
    )
    for mnemonic, cls_name in (
        ("acos", "AcosOp"),
        ("acosh", "AcoshOp"),
        ("asin", "AsinOp"),
        ("asinh", "AsinhOp"),
        ("atanh", "AtanhOp"),
        ("cosh", "CoshOp"),
        ("sinh", "SinhOp"),
    )
]
common.export(_MODULE, NEWER_UNARY_OPS)


@irdl_op_definition
class ReducePrecisionOp(IRDLOperation):
    """`mhlo.reduce_precision %x, format = e5m10 : tensor<..>`: `x` rounded
    to a float with `exponent_bits` / `mantissa_bits` (nearest, ties to
    even; out-of-range exponents to +-inf / +-0), kept in its own type."""

    name = "mhlo.reduce_precision"
    operand = operand_def(HloTensor)
    exponent_bits = attr_def(IntegerAttr)
    mantissa_bits = attr_def(IntegerAttr)
    output = result_def(HloTensor)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> ReducePrecisionOp:
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("format")
        parser.parse_punctuation("=")
        at = parser.pos
        fmt = parser.parse_identifier()
        match = re.fullmatch(r"e(\d+)m(\d+)", fmt)
        if match is None:
            parser.raise_error(f"expected a format eXmY, got '{fmt}'", at, parser.pos)
        attrs = parse_op_attrs(parser)
        attrs["exponent_bits"] = IntegerAttr(int(match.group(1)), 32)
        attrs["mantissa_bits"] = IntegerAttr(int(match.group(2)), 32)
        parser.parse_punctuation(":")
        in_types, out_type = parse_same_operands_and_result_type(parser, 1)
        (value,) = resolve(parser, [operand], in_types, pos)
        return cls.create(operands=[value], result_types=[out_type], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        e, m = self.exponent_bits.value.data, self.mantissa_bits.value.data
        printer.print_string(f", format = e{e}m{m}")
        print_op_attrs(printer, self, ("exponent_bits", "mantissa_bits"))
        printer.print_string(" : ")
        print_same_operands_and_result_type(printer, [self.operand.type], self.output.type)

    def verify_(self) -> None:
        check_element_kind(self, "operand", self.operand.type, common.FP)
        verify_compatible_shapes(self, [self.operand.type, self.output.type])
        verify_same_element_types(self, [self.operand.type, self.output.type])
        if self.exponent_bits.value.data < 1:
            raise VerifyException("exponent_bits must be at least 1")
        if self.mantissa_bits.value.data < 0:
            raise VerifyException("mantissa_bits must be non-negative")


def _verify_batch_norm(op: IRDLOperation, operand: SSAValue, features: Sequence[SSAValue]) -> None:
    """feature_index within the operand's rank; every per-feature operand 1-d
    of the feature dimension's size; one element type throughout."""
    index = op.attributes["feature_index"]
    assert isinstance(index, IntegerAttr)
    rank = rank_of(operand.type)
    d = index.value.data
    if rank is not None and not 0 <= d < rank:
        raise _err(op, f"feature_index {d} is out of range for an operand of rank {rank}")
    shape = shape_of(operand.type)
    size = shape[d] if shape is not None and 0 <= d < len(shape) else -1
    for value in features:
        vs = shape_of(value.type)
        if vs is None:
            continue
        if len(vs) != 1 or (size >= 0 and vs[0] >= 0 and vs[0] != size):
            raise _err(
                op,
                f"per-feature operands must be 1-d of the feature dimension's size "
                f"({size}), got {format_type(value.type)}",
            )
    verify_same_element_types(op, [operand.type, *(v.type for v in features)])
    check_element_kind(op, "operand", operand.type, common.FP)


@irdl_op_definition
class BatchNormInferenceOp(IRDLOperation):
    """`(operand - mean) / sqrt(variance + epsilon) * scale + offset`, the
    per-feature vectors broadcast along `feature_index`."""

    name = "mhlo.batch_norm_inference"
    operand = operand_def(HloTensor)
    scale = operand_def(HloTensor)
    offset = operand_def(HloTensor)
    mean = operand_def(HloTensor)
    variance = operand_def(HloTensor)
    epsilon = attr_def(FloatAttr)
    feature_index = attr_def(IntegerAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _verify_batch_norm(self, self.operand, [self.scale, self.offset, self.mean, self.variance])
        verify_compatible_shapes(self, [self.operand.type, self.result.type])


@irdl_op_definition
class BatchNormTrainingOp(IRDLOperation):
    """Normalize `operand` by its own per-feature mean and (biased) variance;
    results: the output, the batch mean and the batch variance."""

    name = "mhlo.batch_norm_training"
    operand = operand_def(HloTensor)
    scale = operand_def(HloTensor)
    offset = operand_def(HloTensor)
    epsilon = attr_def(FloatAttr)
    feature_index = attr_def(IntegerAttr)
    output = result_def(HloTensor)
    batch_mean = result_def(HloTensor)
    batch_var = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _verify_batch_norm(
            self, self.operand, [self.scale, self.offset, self.batch_mean, self.batch_var]
        )
        verify_compatible_shapes(self, [self.operand.type, self.output.type])


@irdl_op_definition
class BatchNormGradOp(IRDLOperation):
    """The gradients of batch normalization (training form) with respect to
    operand, scale and offset, given `mean`, `variance` and `grad_output`."""

    name = "mhlo.batch_norm_grad"
    operand = operand_def(HloTensor)
    scale = operand_def(HloTensor)
    mean = operand_def(HloTensor)
    variance = operand_def(HloTensor)
    grad_output = operand_def(HloTensor)
    epsilon = attr_def(FloatAttr)
    feature_index = attr_def(IntegerAttr)
    grad_operand = result_def(HloTensor)
    grad_scale = result_def(HloTensor)
    grad_offset = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _verify_batch_norm(
            self,
            self.operand,
            [self.scale, self.mean, self.variance, self.grad_scale, self.grad_offset],
        )
        verify_compatible_shapes(
            self, [self.operand.type, self.grad_output.type, self.grad_operand.type]
        )


# ---------------------------------------------------------------------------
# compare / select / clamp
# ---------------------------------------------------------------------------


@irdl_op_definition
class CompareOp(IRDLOperation):
    """`mhlo.compare  LT, %a, %b,  FLOAT : (..) -> tensor<..xi1>`."""

    name = "mhlo.compare"
    lhs = operand_def(HloTensor)
    rhs = operand_def(HloTensor)
    comparison_direction = attr_def(ComparisonDirectionAttr)
    compare_type = opt_attr_def(ComparisonTypeAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> CompareOp:
        pos = parser.pos
        attrs: dict[str, Attribute] = {}
        direction = parser.parse_optional_str_enum(ComparisonDirection)
        if direction is None:
            attr = parser.parse_attribute()
            if not isinstance(attr, ComparisonDirectionAttr):
                parser.raise_error("expected a comparison direction", pos, parser.pos)
            attrs["comparison_direction"] = attr
        else:
            attrs["comparison_direction"] = ComparisonDirectionAttr(direction)
        parser.parse_punctuation(",")
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        if parser.parse_optional_punctuation(",") is not None:
            kind = parser.parse_optional_str_enum(ComparisonType)
            if kind is None:
                attr = parser.parse_attribute()
                if not isinstance(attr, ComparisonTypeAttr):
                    parser.raise_error("expected a comparison type")
                attrs["compare_type"] = attr
            else:
                attrs["compare_type"] = ComparisonTypeAttr(kind)
        attrs.update(parse_op_attrs(parser))
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser, 2)
        values = resolve(parser, [lhs, rhs], ins, pos)
        return cls.create(operands=values, result_types=outs, attributes=attrs)

    def print(self, printer: Printer) -> None:
        # mlir-hlo prints enum attributes with a leading space of their own.
        printer.print_string(f"  {self.comparison_direction.data.value}, ")
        printer.print_operand(self.lhs)
        printer.print_string(", ")
        printer.print_operand(self.rhs)
        if self.compare_type is not None:
            printer.print_string(f",  {self.compare_type.data.value}")
        print_op_attrs(printer, self, ("comparison_direction", "compare_type"))
        printer.print_string(" : ")
        printer.print_operation_type(self)

    def verify_(self) -> None:
        types = [self.lhs.type, self.rhs.type]
        verify_compatible_shapes(self, [*types, self.result.type])
        verify_same_element_types(self, types)
        if not is_bool(self.result.type):
            raise _err(
                self,
                f"result must be a tensor of i1, got {format_type(self.result.type)}",
            )


@irdl_op_definition
class SelectOp(IRDLOperation):
    """`mhlo.select %pred, %a, %b : tensor<..xi1>, tensor<..>`; `pred` is a
    scalar or has the shape of the branches."""

    name = "mhlo.select"
    pred = operand_def(HloTensor)
    on_true = operand_def(HloTensor)
    on_false = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> SelectOp:
        pos = parser.pos
        operands = parse_unresolved_list(parser)
        attrs = parse_op_attrs(parser)
        parser.parse_punctuation(":")
        first = parser.parse_type()
        if isinstance(first, FunctionType):
            ins, outs = list(first.inputs.data), list(first.outputs.data)
        else:
            parser.parse_punctuation(",")
            second = parser.parse_type()
            ins, outs = [first, second, second], [second]
        values = resolve(parser, operands, ins, pos)
        return cls.create(operands=values, result_types=outs, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        print_op_attrs(printer, self)
        printer.print_string(" : ")
        r = self.result.type
        if self.on_true.type != r or self.on_false.type != r:
            printer.print_operation_type(self)
        else:
            printer.print_attribute(self.pred.type)
            printer.print_string(", ")
            printer.print_attribute(r)

    def verify_(self) -> None:
        if not is_bool(self.pred.type):
            raise _err(
                self,
                f"pred must be a tensor of i1, got {format_type(self.pred.type)}",
            )
        branches = [self.on_true.type, self.on_false.type, self.result.type]
        verify_compatible_shapes(self, branches)
        verify_same_element_types(self, branches)
        if rank_of(self.pred.type) not in (0, None) and not shapes_compatible(
            self.pred.type, self.on_true.type
        ):
            raise _err(
                self,
                "requires the same shape for all operands, got pred "
                f"{format_type(self.pred.type)} and "
                f"{format_type(self.on_true.type)}",
            )


@irdl_op_definition
class ClampOp(IRDLOperation):
    """`mhlo.clamp %min, %x, %max : tensor<..>`; min/max are scalars or
    shaped like x."""

    name = "mhlo.clamp"
    min = operand_def(HloTensor)
    operand = operand_def(HloTensor)
    max = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> ClampOp:
        pos = parser.pos
        operands = parse_unresolved_list(parser)
        attrs = parse_op_attrs(parser)
        parser.parse_punctuation(":")
        ins, out = parse_same_operands_and_result_type(parser, 3)
        values = resolve(parser, operands, ins, pos)
        return cls.create(operands=values, result_types=[out], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        print_op_attrs(printer, self)
        printer.print_string(" : ")
        print_same_operands_and_result_type(
            printer, [o.type for o in self.operands], self.result.type
        )

    def verify_(self) -> None:
        verify_same_element_types(self, [*self.operand_types, self.result.type])
        verify_compatible_shapes(self, [self.operand.type, self.result.type])
        for what, v in (("min", self.min), ("max", self.max)):
            if rank_of(v.type) not in (0, None) and not shapes_compatible(
                v.type, self.operand.type
            ):
                raise _err(
                    self,
                    f"{what} shape {format_type(v.type)} is neither a scalar nor "
                    f"the operand's {format_type(self.operand.type)}",
                )


# ---------------------------------------------------------------------------
# Ops printed as `operands attr-dict : functional-type(operands, results)`
# ---------------------------------------------------------------------------


# (the base: hlo_ops_common.FunctionalSyntaxOp)


@irdl_op_definition
class BitcastConvertOp(FunctionalSyntaxOp):
    """Reinterpret the bits of each element as another type of equal width."""

    name = "mhlo.bitcast_convert"
    operand = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())


@irdl_op_definition
class ReshapeOp(FunctionalSyntaxOp):
    """Static reshape: same element type and element count."""

    name = "mhlo.reshape"
    operand = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(self, [self.operand.type, self.result.type])
        a, b = shape_of(self.operand.type), shape_of(self.result.type)
        if a is None or b is None or any(d < 0 for d in (*a, *b)):
            return
        na = nb = 1
        for d in a:
            na *= d
        for d in b:
            nb *= d
        if na != nb:
            raise _err(
                self,
                f"number of output elements ({nb}) doesn't match expected number "
                f"of elements ({na})",
            )


@irdl_op_definition
class DynamicReshapeOp(FunctionalSyntaxOp):
    """Reshape to the shape given by a 1-d tensor operand."""

    name = "mhlo.dynamic_reshape"
    operand = operand_def(HloTensor)
    output_shape = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(self, [self.operand.type, self.result.type])
        _check_shape_operand(
            self, "output_shape", self.output_shape.type, rank_of(self.result.type)
        )


@irdl_op_definition
class RealDynamicSliceOp(FunctionalSyntaxOp):
    """Slice with start/limit/stride given as 1-d tensors."""

    name = "mhlo.real_dynamic_slice"
    operand = operand_def(HloTensor)
    start_indices = operand_def(HloTensor)
    limit_indices = operand_def(HloTensor)
    strides = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(self, [self.operand.type, self.result.type])
        rank = rank_of(self.operand.type)
        for what in ("start_indices", "limit_indices", "strides"):
            _check_shape_operand(self, what, getattr(self, what).type, rank)


@irdl_op_definition
class DynamicPadOp(FunctionalSyntaxOp):
    """Pad with low/high/interior paddings given as 1-d tensors."""

    name = "mhlo.dynamic_pad"
    operand = operand_def(HloTensor)
    padding_value = operand_def(HloTensor)
    edge_padding_low = operand_def(HloTensor)
    edge_padding_high = operand_def(HloTensor)
    interior_padding = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(
            self, [self.operand.type, self.padding_value.type, self.result.type]
        )
        if rank_of(self.padding_value.type) not in (0, None):
            raise _err(self, "padding value must be a 0-d tensor")
        rank = rank_of(self.operand.type)
        for what in ("edge_padding_low", "edge_padding_high", "interior_padding"):
            _check_shape_operand(self, what, getattr(self, what).type, rank)


@irdl_op_definition
class DynamicUpdateSliceOp(FunctionalSyntaxOp):
    """Overwrite a slice of `operand` at scalar start indices with `update`."""

    name = "mhlo.dynamic_update_slice"
    operand = operand_def(HloTensor)
    update = operand_def(HloTensor)
    start_indices = var_operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(self, [self.operand.type, self.update.type, self.result.type])
        rank = rank_of(self.operand.type)
        if rank is not None and len(self.start_indices) != rank:
            raise _err(
                self,
                f"has {len(self.start_indices)} start indices but the operand has rank {rank}",
            )


@irdl_op_definition
class ComputeReshapeShapeOp(FunctionalSyntaxOp):
    """Resolve a -1 in a reshape target shape given the element count."""

    name = "mhlo.compute_reshape_shape"
    num_elements = operand_def(AnyAttr())
    dynamic_shape = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())


@irdl_op_definition
class CstrReshapableOp(FunctionalSyntaxOp):
    """Witness that a reshape of `num_elements` to `dynamic_shape` is valid."""

    name = "mhlo.cstr_reshapable"
    num_elements = operand_def(AnyAttr())
    dynamic_shape = operand_def(HloTensor)
    result = result_def(AnyAttr())
    traits = traits_def(Pure())


# ---------------------------------------------------------------------------
# Shape manipulation (generic form)
# ---------------------------------------------------------------------------


def _check_broadcast_dims(
    op: Operation, dims: Sequence[int], operand: Attribute, result: Attribute
) -> None:
    """broadcast_dimensions: one entry per operand dim, each a result dim
    whose size is compatible (or the operand dim is 1)."""
    in_shape, out_shape = shape_of(operand), shape_of(result)
    if in_shape is not None and len(dims) != len(in_shape):
        raise _err(
            op,
            f"broadcast_dimensions size ({len(dims)}) does not match operand "
            f"rank ({len(in_shape)})",
        )
    if out_shape is None:
        return
    if in_shape is not None and len(in_shape) > len(out_shape):
        raise _err(
            op,
            f"result rank ({len(out_shape)}) is less than operand rank ({len(in_shape)})",
        )
    for i, d in enumerate(dims):
        if not 0 <= d < len(out_shape):
            raise _err(
                op,
                f"broadcast_dimensions contains invalid value {d} for result "
                f"with rank {len(out_shape)}",
            )
        if in_shape is not None:
            a, b = in_shape[i], out_shape[d]
            if a >= 0 and b >= 0 and a != 1 and a != b:
                raise _err(
                    op,
                    f"size of operand dimension {i} ({a}) is not equal to 1 or "
                    f"size of result dimension {d} ({b})",
                )
    if len(set(dims)) != len(dims):
        raise _err(op, "broadcast_dimensions should not have duplicates")


@irdl_op_definition
class BroadcastOp(IRDLOperation):
    """Prepend `broadcast_sizes` dimensions to the operand."""

    name = "mhlo.broadcast"
    operand = operand_def(HloTensor)
    broadcast_sizes = attr_def(Attribute)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        sizes = ints(self.broadcast_sizes)
        verify_same_element_types(self, [self.operand.type, self.result.type])
        a, r = shape_of(self.operand.type), shape_of(self.result.type)
        if a is not None and r is not None and len(r) != len(sizes) + len(a):
            raise _err(
                self,
                f"result rank ({len(r)}) does not match operand rank ({len(a)}) "
                f"plus the number of broadcast sizes ({len(sizes)})",
            )


@irdl_op_definition
class BroadcastInDimOp(IRDLOperation):
    """Broadcast mapping operand dim i to result dim broadcast_dimensions[i]."""

    name = "mhlo.broadcast_in_dim"
    operand = operand_def(HloTensor)
    broadcast_dimensions = attr_def(Attribute)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(self, [self.operand.type, self.result.type])
        _check_broadcast_dims(
            self, ints(self.broadcast_dimensions), self.operand.type, self.result.type
        )


@irdl_op_definition
class DynamicBroadcastInDimOp(IRDLOperation):
    """broadcast_in_dim to a shape given as a 1-d tensor; optional hints say
    which operand dims are known to expand / not to expand."""

    name = "mhlo.dynamic_broadcast_in_dim"
    operand = operand_def(HloTensor)
    output_dimensions = operand_def(HloTensor)
    broadcast_dimensions = attr_def(Attribute)
    known_expanding_dimensions = opt_attr_def(Attribute)
    known_nonexpanding_dimensions = opt_attr_def(Attribute)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(self, [self.operand.type, self.result.type])
        dims = ints(self.broadcast_dimensions)
        _check_broadcast_dims(self, dims, self.operand.type, self.result.type)
        _check_shape_operand(
            self,
            "output_dimensions",
            self.output_dimensions.type,
            rank_of(self.result.type),
        )
        rank = rank_of(self.operand.type)
        expanding = set(ints(self.known_expanding_dimensions))
        nonexpanding = set(ints(self.known_nonexpanding_dimensions))
        for what, values in (
            ("known_expanding_dimensions", expanding),
            ("known_nonexpanding_dimensions", nonexpanding),
        ):
            check_dims_in_range(self, what, sorted(values), rank)
        if expanding & nonexpanding:
            raise _err(
                self,
                "duplicate expansion hint for at least one operand dimension",
            )


@irdl_op_definition
class TransposeOp(IRDLOperation):
    """Permute dimensions: result dim i is operand dim permutation[i]."""

    name = "mhlo.transpose"
    operand = operand_def(HloTensor)
    permutation = attr_def(Attribute)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        perm = ints(self.permutation)
        verify_same_element_types(self, [self.operand.type, self.result.type])
        a, r = shape_of(self.operand.type), shape_of(self.result.type)
        if sorted(perm) != list(range(len(perm))):
            raise _err(self, f"permutation {list(perm)} is not a permutation")
        if a is not None and len(perm) != len(a):
            raise _err(
                self,
                f"permutation size ({len(perm)}) does not match operand rank ({len(a)})",
            )
        if a is not None and r is not None:
            if len(r) != len(a):
                raise _err(self, "result rank does not match operand rank")
            for i, p in enumerate(perm):
                if not dim_compatible(r[i], a[p]):
                    raise _err(
                        self,
                        f"result dimension {i} ({r[i]}) is incompatible with "
                        f"operand dimension {p} ({a[p]})",
                    )


@irdl_op_definition
class ReverseOp(IRDLOperation):
    """Reverse the order of elements along `dimensions`."""

    name = "mhlo.reverse"
    operand = operand_def(HloTensor)
    dimensions = attr_def(Attribute)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        check_dims_in_range(self, "dimensions", ints(self.dimensions), rank_of(self.operand.type))


@irdl_op_definition
class SliceOp(IRDLOperation):
    """Static slice [start, limit) with strides."""

    name = "mhlo.slice"
    operand = operand_def(HloTensor)
    start_indices = attr_def(Attribute)
    limit_indices = attr_def(Attribute)
    strides = attr_def(Attribute)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        start, limit, strides = (
            ints(self.start_indices),
            ints(self.limit_indices),
            ints(self.strides),
        )
        if not len(start) == len(limit) == len(strides):
            raise _err(self, "start_indices, limit_indices and strides must have one size")
        rank = rank_of(self.operand.type)
        if rank is not None and len(start) != rank:
            raise _err(
                self,
                f"the number of elements in start_indices ({len(start)}) does not "
                f"match the rank of the operand ({rank})",
            )
        if any(s <= 0 for s in strides):
            raise _err(self, "strides must be positive")
        verify_same_element_types(self, [self.operand.type, self.result.type])


@irdl_op_definition
class DynamicSliceOp(IRDLOperation):
    """Slice of static `slice_sizes` at scalar-tensor start indices."""

    name = "mhlo.dynamic_slice"
    operand = operand_def(HloTensor)
    start_indices = var_operand_def(HloTensor)
    slice_sizes = attr_def(Attribute)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        sizes = ints(self.slice_sizes)
        rank = rank_of(self.operand.type)
        if rank is not None and len(sizes) != rank:
            raise _err(
                self,
                f"has mismatched number of slice sizes ({len(sizes)}) and rank of operand ({rank})",
            )
        if rank is not None and len(self.start_indices) != rank:
            raise _err(
                self,
                f"has mismatched number of start indices "
                f"({len(self.start_indices)}) and rank of operand ({rank})",
            )


@irdl_op_definition
class ConcatenateOp(IRDLOperation):
    """Concatenate along `dimension`; all other dims must be compatible."""

    name = "mhlo.concatenate"
    val = var_operand_def(HloTensor)
    dimension = attr_def(IntegerAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if not self.val:
            raise _err(self, "expects at least one operand")
        types = [v.type for v in self.val]
        verify_same_element_types(self, [*types, self.result.type])
        dim = self.dimension.value.data
        ranked = [shape_of(t) for t in types if shape_of(t) is not None]
        for shape in ranked:
            assert shape is not None
            if len(shape) != len(ranked[0]):  # type: ignore[arg-type]  # None shapes are filtered out above
                raise _err(self, "operands must have the same rank")
        if ranked:
            rank = len(ranked[0])  # type: ignore[arg-type]  # None shapes are filtered out above
            if not 0 <= dim < rank:
                raise _err(self, f"dimension {dim} is out of range [0, {rank})")
            for shape in ranked:
                for i, (a, b) in enumerate(zip(shape, ranked[0], strict=False)):  # type: ignore[arg-type]  # None shapes are filtered out above
                    if i != dim and not dim_compatible(a, b):
                        raise _err(
                            self,
                            f"shapes of operands differ in non-concatenated "
                            f"dimension {i} ({a} vs {b})",
                        )


@irdl_op_definition
class PadOp(IRDLOperation):
    """Pad with static low/high/interior padding."""

    name = "mhlo.pad"
    operand = operand_def(HloTensor)
    padding_value = operand_def(HloTensor)
    edge_padding_low = attr_def(Attribute)
    edge_padding_high = attr_def(Attribute)
    interior_padding = attr_def(Attribute)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(
            self, [self.operand.type, self.padding_value.type, self.result.type]
        )
        if rank_of(self.padding_value.type) not in (0, None):
            raise _err(self, "padding value type should be a rank-0 tensor")
        rank = rank_of(self.operand.type)
        for what in ("edge_padding_low", "edge_padding_high", "interior_padding"):
            n = len(ints(getattr(self, what)))
            if rank is not None and n != rank:
                raise _err(
                    self,
                    f"{what} length ({n}) must match operand rank ({rank})",
                )
        if any(v < 0 for v in ints(self.interior_padding)):
            raise _err(self, "interior_padding must be non-negative")


@irdl_op_definition
class GetDimensionSizeOp(IRDLOperation):
    """The size of `dimension` as a tensor<i32>."""

    name = "mhlo.get_dimension_size"
    operand = operand_def(HloTensor)
    dimension = attr_def(IntegerAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        rank = rank_of(self.operand.type)
        dim = self.dimension.value.data
        if rank is not None and not 0 <= dim < rank:
            raise _err(self, f"requires dimension attribute in range [0, {rank})")


@irdl_op_definition
class TorchIndexSelectOp(IRDLOperation):
    """torch.index_select: gather slices of `operand` along `dim` at `index`."""

    name = "mhlo.torch_index_select"
    operand = operand_def(HloTensor)
    index = operand_def(HloTensor)
    dim = attr_def(IntegerAttr)
    batch_dims = attr_def(IntegerAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(self, [self.operand.type, self.result.type])
        check_element_kind(self, "index", self.index.type, common.INT)


# ---------------------------------------------------------------------------
# Linear algebra, convolution, gather / scatter
# ---------------------------------------------------------------------------


def _check_precision_config(op: Operation, config: Attribute | None) -> None:
    if config is None:
        return
    if not isinstance(config, ArrayAttr) or len(config.data) > 2:
        raise _err(op, "precision_config must be an array of at most 2 precisions")


@irdl_op_definition
class DotOp(IRDLOperation):
    """Vector/matrix dot product (rank 1 or 2 operands)."""

    name = "mhlo.dot"
    lhs = operand_def(HloTensor)
    rhs = operand_def(HloTensor)
    precision_config = opt_attr_def(ArrayAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_precision_config(self, self.precision_config)
        a, b = shape_of(self.lhs.type), shape_of(self.rhs.type)
        if a is None or b is None:
            return
        if len(a) not in (1, 2) or len(b) not in (1, 2):
            raise _err(self, "operands must be rank 1 or 2")
        if not dim_compatible(a[-1], b[0]):
            raise _err(
                self,
                f"contracting dimension sizes do not match ({a[-1]} vs {b[0]})",
            )


@irdl_op_definition
class DotGeneralOp(IRDLOperation):
    """General dot product with batching and contracting dimensions."""

    name = "mhlo.dot_general"
    lhs = operand_def(HloTensor)
    rhs = operand_def(HloTensor)
    dot_dimension_numbers = attr_def(DotDimensionNumbersAttr)
    precision_config = opt_attr_def(ArrayAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        _check_precision_config(self, self.precision_config)
        verify_dot_dimension_numbers(
            self,
            self.dot_dimension_numbers,
            self.lhs.type,
            self.rhs.type,
            self.result.type,
        )


def verify_dot_dimension_numbers(
    op: Operation,
    dnums: DotDimensionNumbersAttr,
    lhs: Attribute,
    rhs: Attribute,
    result: Attribute | None,
) -> None:
    """mlir-hlo's dot_general checks: batching/contracting lists of equal
    length, in range, disjoint, with compatible sizes; result rank."""
    lb, rb = dnums.lhs_batching, dnums.rhs_batching
    lc, rc = dnums.lhs_contracting, dnums.rhs_contracting
    if len(lb) != len(rb):
        raise _err(
            op,
            "lhs and rhs should have the same number of batching dimensions",
        )
    if len(lc) != len(rc):
        raise _err(
            op,
            "lhs and rhs should have the same number of contracting dimensions",
        )
    a, b = shape_of(lhs), shape_of(rhs)
    for side, batch, contract, shape in (("lhs", lb, lc, a), ("rhs", rb, rc, b)):
        if len(set(batch) | set(contract)) != len(batch) + len(contract):
            raise _err(
                op,
                f"has duplicated dimension from {side}_batching_dimensions and "
                f"{side}_contracting_dimensions",
            )
        rank = None if shape is None else len(shape)
        check_dims_in_range(op, f"{side}_batching_dimensions", batch, rank)
        check_dims_in_range(op, f"{side}_contracting_dimensions", contract, rank)
    if a is None or b is None:
        return
    for i, j in zip(lb, rb, strict=False):
        if not dim_compatible(a[i], b[j]):
            raise _err(
                op,
                f"batching dimension sizes must match for lhs/rhs (lhs dim {i}: "
                f"{a[i]}, rhs dim {j}: {b[j]})",
            )
    for i, j in zip(lc, rc, strict=False):
        if not dim_compatible(a[i], b[j]):
            raise _err(
                op,
                f"contracting dimension sizes must match for lhs/rhs (lhs dim "
                f"{i}: {a[i]}, rhs dim {j}: {b[j]})",
            )
    r = None if result is None else shape_of(result)
    expected = len(a) + len(b) - len(lb) - len(lc) - len(rc)
    if r is not None and len(r) != expected:
        raise _err(
            op,
            f"result rank ({len(r)}) does not match the expected rank ({expected})",
        )


def verify_conv(
    op: Operation,
    dnums: ConvDimensionNumbersAttr,
    lhs: Attribute,
    rhs: Attribute,
    feature_group_count: int,
    batch_group_count: int,
) -> None:
    """Dimension numbers consistent with the operand ranks; group counts > 0."""
    a, b = rank_of(lhs), rank_of(rhs)
    num_spatial = len(dnums.field("input_spatial_dimensions"))  # type: ignore[arg-type]  # a dims field: always a tuple
    for what, rank in (("input", a), ("kernel", b)):
        if rank is not None and rank != num_spatial + 2:
            raise _err(
                op,
                f"expects {what} dimension-numbers to be a permutation of "
                f"[0, {rank}) (got {num_spatial} spatial dimensions)",
            )
    if feature_group_count <= 0:
        raise _err(
            op, f"expects feature_group_count to be a positive number, got {feature_group_count}"
        )
    if batch_group_count <= 0:
        raise _err(
            op, f"expects batch_group_count to be a positive number, got {batch_group_count}"
        )


@irdl_op_definition
class ConvolutionOp(ConvolutionAttributes):
    """Convolution (`mhlo.convolution(%lhs, %rhs) dim_numbers = .., window = {..}`)."""

    name = "mhlo.convolution"
    lhs = operand_def(HloTensor)
    rhs = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> ConvolutionOp:
        pos = parser.pos
        parser.parse_punctuation("(")
        operands = parse_unresolved_list(parser)
        parser.parse_punctuation(")")
        attrs: dict[str, Attribute] = {}
        parser.parse_keyword("dim_numbers")
        parser.parse_punctuation("=")
        attrs["dimension_numbers"] = ConvDimensionNumbersAttr.new(
            ConvDimensionNumbersAttr.parse_layouts(parser)
        )
        parser.parse_punctuation(",")
        parser.parse_keyword("window")
        parser.parse_punctuation("=")
        attrs.update(_parse_window(parser))
        attrs.update(parse_op_attrs(parser))
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser, len(operands))
        values = resolve(parser, operands, ins, pos)
        return cls.create(operands=values, result_types=outs, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(") dim_numbers = ")
        printer.print_string(self.dimension_numbers.layout_text() or "?")
        printer.print_string(", window = {")
        printer.print_string(_window_text(self))
        printer.print_string("}")
        print_op_attrs(printer, self, _WINDOW_ATTRS + ("dimension_numbers",))
        printer.print_string(" : ")
        printer.print_operation_type(self)

    def verify_(self) -> None:
        verify_conv(
            self,
            self.dimension_numbers,
            self.lhs.type,
            self.rhs.type,
            self.feature_group_count.value.data,
            self.batch_group_count.value.data,
        )


_WINDOW_ATTRS = (
    "window_strides",
    "padding",
    "lhs_dilation",
    "rhs_dilation",
    "window_reversal",
)
_WINDOW_KEYS = {
    "stride": "window_strides",
    "pad": "padding",
    "lhs_dilate": "lhs_dilation",
    "rhs_dilate": "rhs_dilation",
    "reverse": "window_reversal",
}


def _parse_window(parser: Parser) -> dict[str, Attribute]:
    """`{stride = [..], pad = [[l, h], ..], lhs_dilate = [..], rhs_dilate = [..],
    reverse = [..]}` into dense attributes."""
    attrs: dict[str, Attribute] = {}
    parser.parse_punctuation("{")
    while parser.parse_optional_punctuation("}") is None:
        pos = parser.pos
        key = parser.parse_identifier()
        if key not in _WINDOW_KEYS:
            parser.raise_error(f"unknown window attribute {key}", pos, parser.pos)
        parser.parse_punctuation("=")
        if key == "pad":
            rows = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE,
                lambda: parser.parse_comma_separated_list(
                    parser.Delimiter.SQUARE, parser.parse_integer
                ),
            )
            attrs["padding"] = i64_elements_2d(rows)
        elif key == "reverse":
            values = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE,
                lambda: (
                    int(parser.parse_boolean())
                    if parser._current_token.text in ("true", "false")  # noqa: SLF001
                    else parser.parse_integer()
                ),
            )
            attrs["window_reversal"] = DenseIntOrFPElementsAttr.from_list(
                TensorType(IntegerType(1), [len(values)]), values
            )
        else:
            values = parser.parse_comma_separated_list(
                parser.Delimiter.SQUARE, parser.parse_integer
            )
            attrs[_WINDOW_KEYS[key]] = i64_elements(values)
        parser.parse_optional_punctuation(",")
    return attrs


def _window_text(op: Operation) -> str:
    parts: list[str] = []
    for key, attr_name in _WINDOW_KEYS.items():
        attr = op.attributes.get(attr_name)
        if attr is None:
            continue
        if key == "pad":
            values = ints(attr)
            rows = [values[i : i + 2] for i in range(0, len(values), 2)]
            text = ", ".join(f"[{r[0]}, {r[1]}]" for r in rows)
            parts.append(f"pad = [{text}]")
        elif key == "reverse":
            assert isinstance(attr, DenseIntOrFPElementsAttr)
            values = tuple(int(v) for v in attr.get_values())
            parts.append(f"reverse = [{', '.join(str(v) for v in values)}]")
        else:
            parts.append(f"{key} = [{', '.join(str(v) for v in ints(attr))}]")
    return ", ".join(parts)


@irdl_op_definition
class DynamicConvOp(ConvolutionAttributes):
    """Convolution whose padding comes from the `d_padding` tensor operand."""

    name = "mhlo.dynamic_conv"
    lhs = operand_def(HloTensor)
    rhs = operand_def(HloTensor)
    d_padding = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_conv(
            self,
            self.dimension_numbers,
            self.lhs.type,
            self.rhs.type,
            self.feature_group_count.value.data,
            self.batch_group_count.value.data,
        )


def verify_gather(
    op: Operation,
    dnums: GatherDimensionNumbersAttr,
    operand: Attribute,
    indices: Attribute,
    slice_sizes: Sequence[int] | None,
) -> None:
    """Gather dimension numbers in range for the operand / indices ranks."""
    rank = rank_of(operand)
    idx_rank = rank_of(indices)
    check_dims_in_range(
        op,
        "collapsed_slice_dims",
        dnums.field("collapsed_slice_dims"),  # type: ignore[arg-type]  # a dims field: always a tuple
        rank,
    )
    check_dims_in_range(op, "start_index_map", dnums.field("start_index_map"), rank)  # type: ignore[arg-type]  # a dims field: always a tuple
    ivd = dnums.field("index_vector_dim")
    assert isinstance(ivd, int)
    if idx_rank is not None and not 0 <= ivd <= idx_rank:
        raise _err(
            op,
            f"index_vector_dim {ivd} is out of bounds for start indices with rank {idx_rank}",
        )
    if slice_sizes is not None and rank is not None and len(slice_sizes) != rank:
        raise _err(
            op,
            f"slice_sizes size ({len(slice_sizes)}) not equal to operand rank ({rank})",
        )


@irdl_op_definition
class GatherOp(IRDLOperation):
    """XLA gather with static slice sizes."""

    name = "mhlo.gather"
    operand = operand_def(HloTensor)
    start_indices = operand_def(HloTensor)
    dimension_numbers = attr_def(GatherDimensionNumbersAttr)
    slice_sizes = attr_def(Attribute)
    indices_are_sorted = opt_attr_def(BoolAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(self, [self.operand.type, self.result.type])
        check_element_kind(self, "start_indices", self.start_indices.type, common.INT)
        verify_gather(
            self,
            self.dimension_numbers,
            self.operand.type,
            self.start_indices.type,
            ints(self.slice_sizes),
        )


@irdl_op_definition
class DynamicGatherOp(IRDLOperation):
    """gather with slice sizes given by a 1-d tensor operand."""

    name = "mhlo.dynamic_gather"
    operand = operand_def(HloTensor)
    start_indices = operand_def(HloTensor)
    slice_sizes = operand_def(HloTensor)
    dimension_numbers = attr_def(GatherDimensionNumbersAttr)
    indices_are_sorted = opt_attr_def(BoolAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_same_element_types(self, [self.operand.type, self.result.type])
        check_element_kind(self, "start_indices", self.start_indices.type, common.INT)
        verify_gather(
            self, self.dimension_numbers, self.operand.type, self.start_indices.type, None
        )
        _check_shape_operand(self, "slice_sizes", self.slice_sizes.type, rank_of(self.operand.type))


@irdl_op_definition
class ScatterOp(IRDLOperation):
    """XLA scatter: combine `updates` into `inputs` with the region."""

    name = "mhlo.scatter"
    inputs = var_operand_def(HloTensor)
    scatter_indices = operand_def(HloTensor)
    updates = var_operand_def(HloTensor)
    scatter_dimension_numbers = attr_def(ScatterDimensionNumbersAttr)
    indices_are_sorted = opt_attr_def(BoolAttr)
    unique_indices = opt_attr_def(BoolAttr)
    update_computation = region_def("single_block")
    results_ = var_result_def(HloTensor)
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        if len(self.inputs) != len(self.results_):
            raise _err(self, "expects one result per input")
        check_element_kind(self, "scatter_indices", self.scatter_indices.type, common.INT)
        _verify_reducer_block(self, self.update_computation, len(self.inputs))


# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------


def _verify_reducer_block(op: Operation, region: Region, num_inputs: int) -> None:
    """A reducer block takes 2 * num_inputs 0-d tensors (or memrefs)."""
    if not region.blocks:
        raise _err(op, "expects a non-empty region")
    block = region.blocks[0]
    if len(block.args) != 2 * num_inputs:
        raise _err(
            op,
            f"reducer region expects {2 * num_inputs} arguments, got {len(block.args)}",
        )
    for arg in block.args:
        if rank_of(arg.type) not in (0, None):
            raise _err(
                op,
                f"reducer region arguments must be 0-d, got {format_type(arg.type)}",
            )


@irdl_op_definition
class ReduceOp(IRDLOperation):
    """Reduce `inputs` over `dimensions` with the body region, starting from
    `init_values` (see the module docstring for the two custom forms)."""

    name = "mhlo.reduce"
    inputs = var_operand_def(HloTensor)
    init_values = var_operand_def(HloTensor)
    dimensions = attr_def(Attribute)
    body = region_def()
    results_ = var_result_def(HloTensor)
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    # -- compact form -------------------------------------------------------
    def _compact_inner_op(self) -> Operation | None:
        """The single commutative binary mhlo op of a reducer that qualifies
        for the `applies` form (mlir-hlo's isEligibleForCompactPrint)."""
        if set(self.attributes) != {"dimensions"} or not self.inputs:
            return None
        if len(self.body.blocks) != 1:
            return None
        block = self.body.blocks[0]
        ops = list(block.ops)
        if len(ops) != 2:
            return None
        inner, ret = ops
        if not inner.name.startswith("mhlo.") or not isinstance(ret, ReturnOp):
            return None
        if (
            len(inner.operands) != 2
            or len(inner.results) != 1
            or inner.regions
            or not inner.has_trait(Commutative)
        ):
            return None
        t = inner.results[0].type
        if any(o.type != t for o in inner.operands):
            return None
        elem = element_type_of(self.inputs[0].type)
        if t != TensorType(elem, []):
            return None
        if list(inner.operands) != list(block.args):
            return None
        return inner if list(ret.operands) == list(inner.results) else None

    def print(self, printer: Printer) -> None:
        common.print_reduce_operands(printer, self.inputs, self.init_values)
        dims = ", ".join(str(d) for d in ints(self.dimensions))
        inner = self._compact_inner_op()
        if inner is not None:
            printer.print_string(f" applies {inner.name} across dimensions = [{dims}]")
            printer.print_string(" : ")
            printer.print_operation_type(self)
            return
        printer.print_string(f" across dimensions = [{dims}]")
        print_op_attrs(printer, self, ("dimensions",))
        printer.print_string(" : ")
        printer.print_operation_type(self)
        common.print_reducer_region(printer, self.body, len(self.inputs))

    @classmethod
    def parse(cls, parser: Parser) -> ReduceOp:
        pos = parser.pos
        inputs, inits = common.parse_reduce_operands(parser)
        if parser.parse_optional_keyword("applies") is not None:
            return cls._parse_compact(parser, pos, inputs + inits)
        dims = common.parse_across_dimensions(parser)
        attrs = parse_op_attrs(parser)
        attrs["dimensions"] = i64_elements(dims)
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser, len(inputs) * 2)
        values = resolve(parser, inputs + inits, ins, pos)
        region = common.parse_reducer_region(parser)
        return cls.create(operands=values, result_types=outs, attributes=attrs, regions=[region])

    @classmethod
    def _parse_compact(
        cls, parser: Parser, pos: int, operands: list[UnresolvedOperand]
    ) -> ReduceOp:
        name_pos = parser.pos
        inner_name = parser.parse_identifier_or_str_literal()
        inner_cls = parser.ctx.get_optional_op(inner_name)
        if (
            inner_cls is None
            or not inner_name.startswith("mhlo.")
            or not issubclass(inner_cls, BinaryElementwiseOp)
            or not inner_cls.SPEC.commutative
        ):
            parser.raise_error(
                "expected the inner-op to be a commutative binary-op from mhlo "
                "dialect, zero region, producing single result",
                name_pos,
                parser.pos,
            )
        dims = common.parse_across_dimensions(parser)
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser, len(operands))
        if not ins:
            parser.raise_error("input types missing in reduce-op function type")
        values = resolve(parser, operands, ins, pos)
        region = common.compact_reducer_region(inner_cls, element_type_of(ins[0]), ReturnOp)
        return cls.create(
            operands=values,
            result_types=outs,
            attributes={"dimensions": i64_elements(dims)},
            regions=[region],
        )

    def verify_(self) -> None:
        n = len(self.inputs)
        if n == 0:
            raise _err(self, "expects at least one input")
        if len(self.results_) != n:
            raise _err(self, f"expects {n} results, got {len(self.results_)}")
        dims = ints(self.dimensions)
        rank = rank_of(self.inputs[0].type)
        check_dims_in_range(self, "dimensions", dims, rank)
        for x, init in zip(self.inputs, self.init_values, strict=False):
            if rank_of(init.type) not in (0, None):
                raise _err(
                    self,
                    f"init value must be a 0-d tensor, got {format_type(init.type)}",
                )
            if element_type_of(x.type) != element_type_of(init.type):
                raise _err(
                    self,
                    "input and init value element types differ: "
                    f"{format_type(x.type)} vs {format_type(init.type)}",
                )
        for x, r in zip(self.inputs, self.results_, strict=False):
            xr, rr = rank_of(x.type), rank_of(r.type)
            if xr is not None and rr is not None and rr != xr - len(dims):
                raise _err(
                    self,
                    f"result rank ({rr}) should be the input rank ({xr}) minus "
                    f"the number of reduced dimensions ({len(dims)})",
                )
        _verify_reducer_block(self, self.body, n)
        block = self.body.blocks[0]
        for i, x in enumerate(self.inputs):
            arg = block.args[i].type
            if element_type_of(arg) != element_type_of(x.type):
                raise _err(
                    self,
                    f"reducer argument #{i} has type {format_type(arg)}, expected "
                    f"element type of {format_type(x.type)}",
                )


@irdl_op_definition
class ReduceWindowOp(IRDLOperation):
    """Windowed reduction with the body region."""

    name = "mhlo.reduce_window"
    inputs = var_operand_def(HloTensor)
    init_values = var_operand_def(HloTensor)
    window_dimensions = attr_def(Attribute)
    window_strides = opt_attr_def(Attribute)
    base_dilations = opt_attr_def(Attribute)
    window_dilations = opt_attr_def(Attribute)
    padding = opt_attr_def(Attribute)
    body = region_def()
    results_ = var_result_def(HloTensor)
    irdl_options = (SameVariadicOperandSize(),)
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        n = len(self.inputs)
        if n == 0 or len(self.results_) != n:
            raise _err(self, "expects one result per input and at least one input")
        rank = rank_of(self.inputs[0].type)
        dims = ints(self.window_dimensions)
        if rank is not None and len(dims) != rank:
            raise _err(
                self,
                f"window_dimensions size ({len(dims)}) must match input rank ({rank})",
            )
        _verify_reducer_block(self, self.body, n)


@irdl_op_definition
class SortOp(IRDLOperation):
    """Sort `inputs` along `dimension` with the comparator region."""

    name = "mhlo.sort"
    inputs = var_operand_def(HloTensor)
    dimension = opt_attr_def(IntegerAttr)
    is_stable = opt_attr_def(BoolAttr)
    comparator = region_def()
    results_ = var_result_def(HloTensor)
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        if not self.inputs:
            raise _err(self, "requires at least one input")
        verify_compatible_shapes(self, [v.type for v in self.inputs])
        rank = rank_of(self.inputs[0].type)
        if self.dimension is not None and rank is not None:
            d = self.dimension.value.data
            if not -rank <= d < max(rank, 1):
                raise _err(self, f"dimension attribute value must be in range [-{rank}, {rank})")
        _verify_reducer_block(self, self.comparator, len(self.inputs))


# ---------------------------------------------------------------------------
# Tuples, control flow, calls
# ---------------------------------------------------------------------------


@irdl_op_definition
class TupleOp(IRDLOperation):
    """`mhlo.tuple %a, %b : tuple<..>`."""

    name = "mhlo.tuple"
    val = var_operand_def(HloTensorOrTuple)
    result = result_def(TupleType)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> TupleOp:
        pos = parser.pos
        operands = parse_unresolved_list(parser)
        attrs = parse_op_attrs(parser)
        parser.parse_punctuation(":")
        t_pos = parser.pos
        t = parser.parse_type()
        if isinstance(t, FunctionType):
            ins, outs = list(t.inputs.data), list(t.outputs.data)
        elif isinstance(t, TupleType):
            ins, outs = list(t.types.data), [t]
        else:
            parser.raise_error("expected tuple type", t_pos, parser.pos)
        values = resolve(parser, operands, ins, pos)
        return cls.create(operands=values, result_types=outs, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.val, printer.print_operand)
        print_op_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        types = list(self.result.type.types.data)
        if types != [v.type for v in self.val]:
            raise _err(self, "result tuple type does not match the operand types")


@irdl_op_definition
class GetTupleElementOp(IRDLOperation):
    """`mhlo.get_tuple_element %t[1] : (tuple<..>) -> ..`."""

    name = "mhlo.get_tuple_element"
    operand = operand_def(TupleType)
    index = attr_def(IntegerAttr)
    result = result_def(HloTensorOrTuple)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> GetTupleElementOp:
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation("[")
        index = parser.parse_integer()
        parser.parse_punctuation("]")
        attrs = parse_op_attrs(parser)
        attrs["index"] = IntegerAttr(index, i32)
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser, 1)
        values = resolve(parser, [operand], ins, pos)
        return cls.create(operands=values, result_types=outs, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        printer.print_string(f"[{self.index.value.data}]")
        print_op_attrs(printer, self, ("index",))
        printer.print_string(" : ")
        printer.print_operation_type(self)

    def verify_(self) -> None:
        types = cast(TupleType, self.operand.type).types.data
        i = self.index.value.data
        if not 0 <= i < len(types):
            raise _err(self, f"index {i} is out of bounds of operand with size {len(types)}")
        if types[i] != self.result.type:
            raise _err(
                self,
                f"has return type {format_type(self.result.type)}, but expected "
                f"{format_type(types[i])}",
            )


@irdl_op_definition
class CopyOp(IRDLOperation):
    """`mhlo.copy %a : tensor<..>`."""

    name = "mhlo.copy"
    operand = operand_def(HloTensorOrTuple)
    result = result_def(HloTensorOrTuple)
    traits = traits_def(Pure())

    parse = classmethod(UnaryElementwiseOp.parse.__func__)  # type: ignore[attr-defined, var-annotated]  # reuses the unary parser's function, bound to this class

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        print_op_attrs(printer, self)
        printer.print_string(" : ")
        print_same_operands_and_result_type(printer, [self.operand.type], self.result.type)


@irdl_op_definition
class ReturnOp(ReturnSyntaxOp):
    """Terminator of mhlo regions: `mhlo.return %a : tensor<f32>`."""

    name = "mhlo.return"
    results_ = var_operand_def(AnyAttr())
    traits = traits_def(IsTerminator(), Pure())


@irdl_op_definition
class CustomCallOp(IRDLOperation):
    """`mhlo.custom_call @target(%a, %b) {backend_config = ".."} : (..) -> ..`."""

    name = "mhlo.custom_call"
    inputs = var_operand_def(HloTensorOrTuple)
    call_target_name = attr_def(StringAttr)
    has_side_effect = opt_attr_def(BoolAttr)
    backend_config = opt_attr_def(base(StringAttr) | base(DictionaryAttr))
    api_version = opt_attr_def(IntegerAttr)
    called_computations = opt_attr_def(ArrayAttr)
    custom_call_schedule = opt_attr_def(Attribute)
    operand_layouts = opt_attr_def(ArrayAttr)
    result_layouts = opt_attr_def(ArrayAttr)
    output_operand_aliases = opt_attr_def(ArrayAttr)
    results_ = var_result_def(HloTensorOrTuple)

    @classmethod
    def parse(cls, parser: Parser) -> CustomCallOp:
        pos = parser.pos
        symbol = parser.parse_optional_symbol_name()
        if symbol is None:
            target = parser.parse_str_literal()
        else:
            target = symbol.data
        parser.parse_punctuation("(")
        operands = parse_unresolved_list(parser)
        parser.parse_punctuation(")")
        extra = {"call_target_name": StringAttr(target)}
        return parse_functional_tail(cls, parser, operands, pos, extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.call_target_name.data)
        printer.print_string("(")
        printer.print_list(self.inputs, printer.print_operand)
        printer.print_string(")")
        print_functional_tail(printer, self, ("call_target_name",))

    def verify_(self) -> None:
        if (self.operand_layouts is None) != (self.result_layouts is None):
            raise _err(
                self,
                "Layout attributes should be specified for either both operands "
                "and results or none.",
            )


@irdl_op_definition
class WhileOp(IRDLOperation):
    """`mhlo.while(%i = %init) : tensor<..> cond {..} do {..}`."""

    name = "mhlo.while"
    operand = var_operand_def(HloTensorOrTuple)
    cond = region_def()
    body = region_def()
    results_ = var_result_def(HloTensorOrTuple)
    traits = traits_def(RecursiveMemoryEffect())

    @classmethod
    def parse(cls, parser: Parser) -> WhileOp:
        pos = parser.pos
        parser.parse_punctuation("(")
        iter_args: list[UnresolvedOperand] = []
        operands: list[UnresolvedOperand] = []
        while parser.parse_optional_punctuation(")") is None:
            iter_args.append(parser.parse_unresolved_operand())
            parser.parse_punctuation("=")
            operands.append(parser.parse_unresolved_operand())
            if parser.parse_optional_punctuation(")") is not None:
                break
            parser.parse_punctuation(",")
        types: list[Attribute] = []
        if operands:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        values = resolve(parser, operands, types, pos)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        parser.parse_keyword("cond")
        cond = parser.parse_region(
            [Parser.Argument(a.span, t) for a, t in zip(iter_args, types, strict=False)]
        )
        parser.parse_keyword("do")
        body = parser.parse_region(
            [Parser.Argument(a.span, t) for a, t in zip(iter_args, types, strict=False)]
        )
        return cls.create(
            operands=values,
            result_types=types,
            attributes=dict(attrs.data) if attrs else {},
            regions=[cond, body],
        )

    def print(self, printer: Printer) -> None:
        args = self.cond.blocks[0].args if self.cond.blocks else ()
        printer.print_string("(")
        for i, (arg, value) in enumerate(zip(args, self.operand, strict=False)):
            printer.print_string(", " if i else "")
            printer.print_operand(arg)
            printer.print_string(" = ")
            printer.print_operand(value)
        printer.print_string(")")
        if self.operand:
            printer.print_string(" : ")
            printer.print_list(self.operand_types, printer.print_attribute)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer._print_new_line()  # noqa: SLF001
        printer.print_string(" cond ")
        printer.print_region(self.cond, print_entry_block_args=False)
        printer.print_string(" do ")
        printer.print_region(self.body, print_entry_block_args=False)

    def verify_(self) -> None:
        types = list(self.operand_types)
        if list(self.result_types) != types:
            raise _err(self, "result types must match the operand types")
        for region, what in ((self.cond, "cond"), (self.body, "body")):
            if region.blocks and [a.type for a in region.blocks[0].args] != types:
                raise _err(self, f"{what} region arguments must match the operands")


@irdl_op_definition
class IfOp(IRDLOperation):
    """Run true_branch or false_branch (regions ending in mhlo.return)."""

    name = "mhlo.if"
    pred = operand_def(HloTensor)
    true_branch = region_def()
    false_branch = region_def()
    results_ = var_result_def(HloTensorOrTuple)
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        if not is_bool(self.pred.type) or rank_of(self.pred.type) not in (0, None):
            raise _err(self, "pred must be a tensor<i1>")


@irdl_op_definition
class CaseOp(IRDLOperation):
    """Run branch `index` (the last one if out of range)."""

    name = "mhlo.case"
    index = operand_def(HloTensor)
    branches = var_region_def()
    results_ = var_result_def(HloTensorOrTuple)
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        if not self.branches:
            raise _err(self, "expect at least one branch")


# ---------------------------------------------------------------------------
# Random numbers, FFT
# ---------------------------------------------------------------------------


@irdl_op_definition
class RngOp(IRDLOperation):
    """Random numbers of distribution `rng_distribution` between/around a, b."""

    name = "mhlo.rng"
    a = operand_def(HloTensor)
    b = operand_def(HloTensor)
    shape = operand_def(HloTensor)
    rng_distribution = attr_def(RngDistributionAttr)
    result = result_def(HloTensor)

    def verify_(self) -> None:
        verify_same_element_types(self, [self.a.type, self.b.type, self.result.type])
        for what, v in (("a", self.a), ("b", self.b)):
            if rank_of(v.type) not in (0, None):
                raise _err(self, f"{what} must be a 0-d tensor")


@irdl_op_definition
class FftOp(IRDLOperation):
    """FFT of kind `fft_type` over the trailing `fft_length` dimensions."""

    name = "mhlo.fft"
    operand = operand_def(HloTensor)
    fft_type = attr_def(FftTypeAttr)
    fft_length = attr_def(Attribute)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        n = len(ints(self.fft_length))
        if not 1 <= n <= 3:
            raise _err(self, f"fft_length must have 1 to 3 elements, got {n}")


MHLO_OPS: list[type[IRDLOperation]] = [
    ConstantOp,
    IotaOp,
    DynamicIotaOp,
    *ELEMENTWISE_OPS,
    ErfOp,
    *NEWER_UNARY_OPS,
    ReducePrecisionOp,
    BatchNormInferenceOp,
    BatchNormTrainingOp,
    BatchNormGradOp,
    CompareOp,
    SelectOp,
    ClampOp,
    BitcastConvertOp,
    ReshapeOp,
    DynamicReshapeOp,
    RealDynamicSliceOp,
    DynamicPadOp,
    DynamicUpdateSliceOp,
    ComputeReshapeShapeOp,
    CstrReshapableOp,
    BroadcastOp,
    BroadcastInDimOp,
    DynamicBroadcastInDimOp,
    TransposeOp,
    ReverseOp,
    SliceOp,
    DynamicSliceOp,
    ConcatenateOp,
    PadOp,
    GetDimensionSizeOp,
    TorchIndexSelectOp,
    DotOp,
    DotGeneralOp,
    ConvolutionOp,
    DynamicConvOp,
    GatherOp,
    DynamicGatherOp,
    ScatterOp,
    ReduceOp,
    ReduceWindowOp,
    SortOp,
    TupleOp,
    GetTupleElementOp,
    CopyOp,
    ReturnOp,
    CustomCallOp,
    WhileOp,
    IfOp,
    CaseOp,
    RngOp,
    FftOp,
]


class MhloConstantMaterializer(ConstantMaterializationInterface):
    """mlir-hlo's `MhloDialect::materializeConstant`: elements attributes become `mhlo.constant`.

    The constant takes `type_` as its result type (a tensor of the value's
    shape and element type, possibly with an encoding); other values are not
    materialized by mhlo.
    """

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation | None:
        if not isinstance(value, DenseIntOrFPElementsAttr):
            return None
        if not _types_same_ignoring_encoding(value.get_type(), type):
            return None
        return ConstantOp.create(attributes={"value": value}, result_types=[type])


MHLO = Dialect("mhlo", [*MHLO_OPS], list(HLO_ATTRIBUTES), [MhloConstantMaterializer()])
"""The mhlo dialect: ops above plus the `#mhlo...` attributes of hlo_attrs."""
