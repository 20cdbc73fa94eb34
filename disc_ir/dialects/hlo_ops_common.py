"""Op tables, factories and syntax helpers shared by `mhlo`, `lmhlo` and `chlo`.

The elementwise ops of mhlo (tensor form) and lmhlo (buffer form) are
described once, in `UNARY_ELEMENTWISE` and `BINARY_ELEMENTWISE`; each dialect
module turns every entry into an IRDL op class with `make_op_class`, on a
base class that supplies the operands, syntax and verifier of that family.

Helpers here implement mlir-hlo's custom type directives
(`custom<SameOperandsAndResultType>`, `custom<SelectOpType>`, ...) and the
element-kind checks the verifiers use.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeVar

from xdsl.dialects.builtin import (
    AnyFloat,
    ArrayAttr,
    ComplexType,
    FunctionType,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation, attr_def, irdl_op_definition, opt_attr_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects.hlo_attrs import (
    ConvDimensionNumbersAttr,
    element_type_of,
    format_type,
)

_OpT = TypeVar("_OpT", bound=IRDLOperation)

# ---------------------------------------------------------------------------
# Element kinds
# ---------------------------------------------------------------------------

# Element-type families, as named in hlo_ops.td (HLO_FpTensor, ...).
ANY = "any"
FP = "fp"
FP_OR_COMPLEX = "fp_or_complex"
INT = "int"
PRED_OR_INT = "pred_or_int"
INT_OR_FP = "int_or_fp"
SIGNED_INT_FP_OR_COMPLEX = "signed_int_fp_or_complex"
INT_FP_OR_COMPLEX = "int_fp_or_complex"

_KIND_TEXT = {
    ANY: "values of any element type",
    FP: "floating-point values",
    FP_OR_COMPLEX: "floating-point or complex values",
    INT: "integer values",
    PRED_OR_INT: "pred (i1) or integer values",
    INT_OR_FP: "integer or floating-point values",
    SIGNED_INT_FP_OR_COMPLEX: "signed integer, floating-point or complex values",
    INT_FP_OR_COMPLEX: "integer, floating-point or complex values",
}


def is_float(e: Attribute) -> bool:
    """A floating-point scalar type (f16, bf16, f32, f64, ...)."""
    return isinstance(e, AnyFloat)


def element_has_kind(e: Attribute, kind: str) -> bool:
    """Whether scalar type `e` belongs to the element family `kind`."""
    is_int = isinstance(e, IntegerType | IndexType)
    if kind == ANY:
        return True
    if kind == FP:
        return is_float(e)
    if kind == FP_OR_COMPLEX:
        return is_float(e) or isinstance(e, ComplexType)
    if kind in (INT, PRED_OR_INT):
        return is_int
    if kind == INT_OR_FP:
        return is_int or is_float(e)
    if kind == INT_FP_OR_COMPLEX:
        return is_int or is_float(e) or isinstance(e, ComplexType)
    if kind == SIGNED_INT_FP_OR_COMPLEX:
        if isinstance(e, IntegerType):
            return e.signedness.data != Signedness.UNSIGNED
        return isinstance(e, IndexType | ComplexType) or is_float(e)
    raise ValueError(f"unknown element kind {kind}")


def check_element_kind(op: Operation, what: str, t: Attribute, kind: str) -> None:
    """Raise unless the element type of `t` belongs to `kind`."""
    if not element_has_kind(element_type_of(t), kind):
        raise VerifyException(
            f"{what} must be tensor/memref of {_KIND_TEXT[kind]}, got {format_type(t)}"
        )


def real_element(e: Attribute) -> Attribute:
    """The element type of complex<T> is T; any other type is itself."""
    return e.element_type if isinstance(e, ComplexType) else e


# ---------------------------------------------------------------------------
# Elementwise op tables
# ---------------------------------------------------------------------------

# How the result element type follows from the operand's.
SAME = "same"  # equal to the operand element type
ANY_RESULT = "any"  # unconstrained (convert, bitcast_convert)
PRED = "pred"  # i1 (is_finite)
REAL = "real"  # complex<T> -> T, else same (abs, real, imag)
COMPLEX = "complex"  # T -> complex<T> (complex)


@dataclass(frozen=True)
class ElementwiseSpec:
    """One elementwise op: its mnemonic (shared by mhlo and lmhlo), the Python
    class name, the operand element family, the result element rule, whether
    it is commutative, and a one-line summary."""

    mnemonic: str
    class_name: str
    kind: str
    result: str
    commutative: bool
    summary: str


def _u(mnemonic: str, cls: str, kind: str, summary: str, result: str = SAME):
    return ElementwiseSpec(mnemonic, cls, kind, result, False, summary)


def _b(
    mnemonic: str,
    cls: str,
    kind: str,
    summary: str,
    commutative: bool = False,
    result: str = SAME,
):
    return ElementwiseSpec(mnemonic, cls, kind, result, commutative, summary)


UNARY_ELEMENTWISE: tuple[ElementwiseSpec, ...] = (
    _u("abs", "AbsOp", SIGNED_INT_FP_OR_COMPLEX, "|x| (complex -> real)", REAL),
    _u("cbrt", "CbrtOp", FP, "cube root"),
    _u("ceil", "CeilOp", FP, "round up"),
    _u("convert", "ConvertOp", ANY, "element type conversion", ANY_RESULT),
    _u("count_leading_zeros", "ClzOp", INT, "leading zero bits"),
    _u("cosine", "CosineOp", FP_OR_COMPLEX, "cos(x)"),
    _u("exponential", "ExpOp", FP_OR_COMPLEX, "e^x"),
    _u("exponential_minus_one", "Expm1Op", FP_OR_COMPLEX, "e^x - 1"),
    _u("floor", "FloorOp", FP, "round down"),
    _u("imag", "ImagOp", FP_OR_COMPLEX, "imaginary part", REAL),
    _u("is_finite", "IsFiniteOp", FP, "x is neither inf nor nan (i1)", PRED),
    _u("log", "LogOp", FP_OR_COMPLEX, "natural logarithm"),
    _u("log_plus_one", "Log1pOp", FP_OR_COMPLEX, "log(1 + x)"),
    _u("logistic", "LogisticOp", FP_OR_COMPLEX, "1 / (1 + e^-x)"),
    _u("not", "NotOp", PRED_OR_INT, "bitwise / logical not"),
    _u("negate", "NegOp", INT_FP_OR_COMPLEX, "-x (unsigned: modulo 2^n, as StableHLO)"),
    _u("popcnt", "PopulationCountOp", INT, "number of set bits"),
    _u("real", "RealOp", FP_OR_COMPLEX, "real part", REAL),
    _u("round_nearest_afz", "RoundOp", FP, "round, ties away from zero"),
    _u("round_nearest_even", "RoundNearestEvenOp", FP, "round, ties to even"),
    _u("rsqrt", "RsqrtOp", FP_OR_COMPLEX, "1 / sqrt(x)"),
    _u("sign", "SignOp", SIGNED_INT_FP_OR_COMPLEX, "sign of x (-1, 0, 1)"),
    _u("sine", "SineOp", FP_OR_COMPLEX, "sin(x)"),
    _u("sqrt", "SqrtOp", FP_OR_COMPLEX, "square root"),
    _u("tan", "TanOp", FP_OR_COMPLEX, "tan(x)"),
    _u("tanh", "TanhOp", FP_OR_COMPLEX, "hyperbolic tangent"),
)

BINARY_ELEMENTWISE: tuple[ElementwiseSpec, ...] = (
    _b("add", "AddOp", ANY, "lhs + rhs", commutative=True),
    _b("atan2", "Atan2Op", FP_OR_COMPLEX, "atan2(lhs, rhs)"),
    _b("complex", "ComplexOp", FP, "lhs + i * rhs", result=COMPLEX),
    _b("divide", "DivOp", ANY, "lhs / rhs"),
    _b("maximum", "MaxOp", ANY, "max(lhs, rhs)", commutative=True),
    _b("minimum", "MinOp", ANY, "min(lhs, rhs)", commutative=True),
    _b("multiply", "MulOp", ANY, "lhs * rhs", commutative=True),
    _b("power", "PowOp", ANY, "lhs ^ rhs"),
    _b("remainder", "RemOp", INT_OR_FP, "lhs % rhs"),
    _b("shift_left", "ShiftLeftOp", INT, "lhs << rhs"),
    _b("shift_right_arithmetic", "ShiftRightArithmeticOp", INT, "lhs >> rhs (sign)"),
    _b("shift_right_logical", "ShiftRightLogicalOp", INT, "lhs >>> rhs (zero)"),
    _b("subtract", "SubtractOp", ANY, "lhs - rhs"),
    _b("and", "AndOp", PRED_OR_INT, "lhs & rhs", commutative=True),
    _b("or", "OrOp", PRED_OR_INT, "lhs | rhs", commutative=True),
    _b("xor", "XorOp", PRED_OR_INT, "lhs ^ rhs", commutative=True),
)


def expected_result_element(spec: ElementwiseSpec, operand_elem: Attribute):
    """The element type the result of `spec` must have, or None if free."""
    if spec.result == SAME:
        return operand_elem
    if spec.result == REAL:
        return real_element(operand_elem)
    if spec.result == PRED:
        return IntegerType(1)
    if spec.result == COMPLEX:
        return ComplexType(operand_elem)
    return None


# ---------------------------------------------------------------------------
# Attribute groups shared by several ops
# ---------------------------------------------------------------------------


class ConvolutionAttributes(IRDLOperation):
    """The attributes of mlir-hlo's MHLO_ConvolutionAttributes, for
    (dynamic) convolutions in mhlo, lmhlo, mhlo_disc and lmhlo_disc.

    Subclass it (before IRDLOperation) and add operands/results."""

    window_strides = opt_attr_def(Attribute)
    padding = opt_attr_def(Attribute)
    lhs_dilation = opt_attr_def(Attribute)
    rhs_dilation = opt_attr_def(Attribute)
    window_reversal = opt_attr_def(Attribute)
    dimension_numbers = attr_def(ConvDimensionNumbersAttr)
    feature_group_count = attr_def(IntegerAttr)
    batch_group_count = attr_def(IntegerAttr)
    precision_config = opt_attr_def(ArrayAttr)


# ---------------------------------------------------------------------------
# Class factory
# ---------------------------------------------------------------------------


def make_op_class(
    base: type[IRDLOperation],
    name: str,
    class_name: str,
    doc: str,
    module: str,
    **namespace: Any,
) -> type[IRDLOperation]:
    """Define IRDL op `name` as subclass `class_name` of `base`, with the
    extra class attributes `namespace` (constants, traits, fields)."""
    ns: dict[str, Any] = {"name": name, "__doc__": doc, "__module__": module}
    ns.update(namespace)
    # Upper-case constants must be declared ClassVar for IRDL.
    ns["__annotations__"] = {k: ClassVar[Any] for k in namespace if k.isupper()}
    cls = type(class_name, (base,), ns)
    return irdl_op_definition(cls)


def export(module: str, classes: Sequence[type]) -> None:
    """Make generated classes importable by name from `module`."""
    mod = sys.modules[module]
    for cls in classes:
        setattr(mod, cls.__name__, cls)


def traits_of(*traits: OpTrait | None) -> tuple[OpTrait, ...]:
    return tuple(t for t in traits if t is not None)


# ---------------------------------------------------------------------------
# Syntax helpers (mlir-hlo's custom type directives)
# ---------------------------------------------------------------------------


def parse_op_attrs(parser: Parser) -> dict[str, Attribute]:
    """Attributes of a custom-form op: an optional `<{...}>` (properties, as
    today's MLIR prints inherent attributes) and an optional `{...}`."""
    attrs = dict(parser.parse_optional_properties_dict())
    attrs.update(parser.parse_optional_attr_dict())
    return attrs


def print_op_attrs(printer: Printer, op: Operation, elided: Sequence[str] = ()) -> None:
    """` {a = .., b = ..}` (sorted), without the names in `elided`."""
    attrs = {k: v for k, v in op.attributes.items() if k not in elided}
    if attrs:
        printer.print_string(" ")
        printer.print_attr_dict(attrs)


def parse_same_operands_and_result_type(
    parser: Parser, num_operands: int
) -> tuple[list[Attribute], Attribute]:
    """`: T` (all operands and the result have type T) or `: (A, B) -> R`."""
    pos = parser.pos
    t = parser.parse_type()
    if isinstance(t, FunctionType):
        inputs, outputs = list(t.inputs.data), list(t.outputs.data)
        if len(inputs) != num_operands:
            parser.raise_error(
                f"{num_operands} operands present, but expected {len(inputs)}",
                pos,
                parser.pos,
            )
        if len(outputs) != 1:
            parser.raise_error("expected single output", pos, parser.pos)
        return inputs, outputs[0]
    return [t] * num_operands, t


def print_same_operands_and_result_type(
    printer: Printer, operand_types: Sequence[Attribute], result_type: Attribute
) -> None:
    """Print `T` when every type is T, else the functional type."""
    if all(t == result_type for t in operand_types):
        printer.print_attribute(result_type)
    else:
        printer.print_function_type(operand_types, [result_type])


def parse_functional_type(
    parser: Parser, num_operands: int | None = None
) -> tuple[list[Attribute], list[Attribute]]:
    """`(A, B) -> R` or `(A) -> (R, S)`; checks the operand count if given."""
    pos = parser.pos
    t = parser.parse_type()
    if not isinstance(t, FunctionType):
        parser.raise_error("expected a function type", pos, parser.pos)
    inputs, outputs = list(t.inputs.data), list(t.outputs.data)
    if num_operands is not None and len(inputs) != num_operands:
        parser.raise_error(
            f"{num_operands} operands present, but expected {len(inputs)}",
            pos,
            parser.pos,
        )
    return inputs, outputs


def parse_unresolved_list(parser: Parser) -> list[UnresolvedOperand]:
    """`%a, %b, ...` (possibly empty)."""
    first = parser.parse_optional_unresolved_operand()
    if first is None:
        return []
    operands = [first]
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    return operands


def resolve(
    parser: Parser,
    operands: Sequence[UnresolvedOperand],
    types: Sequence[Attribute],
    pos: int,
) -> list[SSAValue]:
    """Resolve operands against their types, with a located count error."""
    if len(operands) != len(types):
        parser.raise_error(f"{len(operands)} operands present, but expected {len(types)}", pos, pos)
    return list(parser.resolve_operands(operands, types, parser.pos))


def print_operand_list(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_list(values, printer.print_operand)


def is_tensor(t: Attribute) -> bool:
    return isinstance(t, TensorType | UnrankedTensorType)


# ---------------------------------------------------------------------------
# Shared custom forms
# ---------------------------------------------------------------------------


def parse_functional_tail(
    cls: type[_OpT],
    parser: Parser,
    operands: Sequence[UnresolvedOperand],
    pos: int,
    extra: Mapping[str, Attribute] | None = None,
) -> _OpT:
    """`attr-dict : functional-type` after the already parsed `operands`
    (parsed from `pos`): builds `cls` with the attributes plus `extra`."""
    attrs = parse_op_attrs(parser)
    attrs.update(extra or {})
    parser.parse_punctuation(":")
    ins, outs = parse_functional_type(parser, len(operands))
    values = resolve(parser, operands, ins, pos)
    return cls.create(operands=values, result_types=outs, attributes=attrs)


def print_functional_tail(printer: Printer, op: Operation, elided: Sequence[str] = ()) -> None:
    """` {attrs} : (A, B) -> R`, without the attributes in `elided`."""
    print_op_attrs(printer, op, elided)
    printer.print_string(" : ")
    printer.print_operation_type(op)


class FunctionalSyntaxOp(IRDLOperation):
    """Base of ops whose custom form is `dialect.op %a, %b {..} : (..) -> ..`
    (`operands attr-dict : functional-type(operands, results)`)."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        return parse_functional_tail(cls, parser, parse_unresolved_list(parser), pos)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        print_functional_tail(printer, self)


class ReturnSyntaxOp(IRDLOperation):
    """Base of region terminators printed `dialect.return %a, %b : T, U`
    (`attr-dict ($operands^ : type($operands))?`)."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        operands = parse_unresolved_list(parser)
        attrs = parse_op_attrs(parser)
        types: list[Attribute] = []
        if operands:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        values = resolve(parser, operands, types, pos)
        return cls.create(operands=values, attributes=attrs)

    def print(self, printer: Printer) -> None:
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        print_op_attrs(printer, self)
        if self.operands:
            printer.print_string(" : ")
            printer.print_list(self.operand_types, printer.print_attribute)


def parse_constant(cls: type[IRDLOperation], parser: Parser) -> IRDLOperation:
    """`attr-dict <typed elements attribute>` (`mhlo.constant dense<1.0> :
    tensor<f32>`): the attribute is `value`, its type the result type."""
    attrs = parse_op_attrs(parser)
    pos = parser.pos
    value = parser.parse_attribute()
    value_type = getattr(value, "type", None)
    if value_type is None:
        parser.raise_error("expected a typed elements attribute", pos, parser.pos)
    attrs["value"] = value
    return cls.create(attributes=attrs, result_types=[value_type])


def print_constant(printer: Printer, op: Operation) -> None:
    """The custom form parsed by `parse_constant`."""
    print_op_attrs(printer, op, ("value",))
    printer.print_string(" ")
    printer.print_attribute(op.attributes["value"])


# ---------------------------------------------------------------------------
# Pieces of the reduce syntax (mhlo.reduce, stablehlo.reduce)
# ---------------------------------------------------------------------------


def parse_reduce_operands(
    parser: Parser,
) -> tuple[list[UnresolvedOperand], list[UnresolvedOperand]]:
    """`(%x init: %a), (%y init: %b)` -> the inputs and the init values."""
    inputs: list[UnresolvedOperand] = []
    inits: list[UnresolvedOperand] = []
    while True:
        parser.parse_optional_punctuation(",")
        if parser.parse_optional_punctuation("(") is None:
            return inputs, inits
        inputs.append(parser.parse_unresolved_operand())
        parser.parse_keyword("init")
        parser.parse_punctuation(":")
        inits.append(parser.parse_unresolved_operand())
        parser.parse_punctuation(")")


def print_reduce_operands(
    printer: Printer, inputs: Sequence[SSAValue], inits: Sequence[SSAValue]
) -> None:
    """The form parsed by `parse_reduce_operands`."""
    for i, (x, init) in enumerate(zip(inputs, inits, strict=False)):
        printer.print_string(", " if i else "")
        printer.print_string("(")
        printer.print_operand(x)
        printer.print_string(" init: ")
        printer.print_operand(init)
        printer.print_string(")")


def parse_across_dimensions(parser: Parser) -> list[int]:
    """`across dimensions = [1, 2]`."""
    parser.parse_keyword("across")
    parser.parse_keyword("dimensions")
    parser.parse_punctuation("=")
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def parse_reducer_region(parser: Parser) -> Region:
    """`reducer(%a: T, %b: T) (%c: U, %d: U) {..}`: element/accumulator pairs
    (each argument may carry a location), then the body; the block arguments
    are all element arguments followed by all accumulators."""
    parser.parse_keyword("reducer")
    elems: list[Parser.Argument] = []
    accs: list[Parser.Argument] = []
    while parser.parse_optional_punctuation("(") is not None:
        elems.append(parser.parse_argument())
        parser.parse_optional_location()
        parser.parse_punctuation(",")
        accs.append(parser.parse_argument())
        parser.parse_optional_location()
        parser.parse_punctuation(")")
    return parser.parse_region(elems + accs)


def print_reducer_region(printer: Printer, region: Region, num_inputs: int) -> None:
    """The form parsed by `parse_reducer_region`, on a new line."""
    printer._print_new_line()  # noqa: SLF001
    printer.print_string(" reducer")
    block = region.blocks.first
    assert block is not None
    for i in range(num_inputs):
        printer.print_string("(")
        printer.print_block_argument(block.args[i])
        printer.print_string(", ")
        printer.print_block_argument(block.args[i + num_inputs])
        printer.print_string(") ")
    printer.print_string(" ")
    printer.print_region(region, print_entry_block_args=False)


def compact_reducer_region(
    inner_cls: type[Operation], element: Attribute, return_cls: type[Operation]
) -> Region:
    """The body a compact `applies <inner-op>` reduce stands for:
    `^bb(%a, %b: tensor<T>): %r = inner-op %a, %b; return %r`."""
    scalar = TensorType(element, [])
    block = Block(arg_types=[scalar, scalar])
    inner = inner_cls.create(operands=list(block.args), result_types=[scalar])
    block.add_ops([inner, return_cls.create(operands=[inner.results[0]])])
    return Region(block)
