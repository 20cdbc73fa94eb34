"""The `chlo` dialect ("client HLO"): ops JAX / TF emit that mhlo lacks.

Two families, each generated from a table:

* implicitly broadcasting binary ops with an optional `broadcast_dimensions`:
  `chlo.broadcast_add %a, %b {broadcast_dimensions = dense<1> : tensor<1xi64>}
  : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>` (also subtract,
  multiply, divide, maximum, minimum, power, remainder, atan2, shifts, and,
  or, xor, complex, next_after, polygamma, zeta, and `broadcast_compare`
  with `#chlo<comparison_direction GT>`);
* elementwise unary math ops decomposed later: `chlo.erf %x : tensor<4xf32>
  -> tensor<4xf32>` (erf, erfc, tan, lgamma, digamma, is_inf, ...).

Plus `chlo.broadcast_select`, `chlo.constant`, `chlo.constant_like`
(generic form), `chlo.next_after` / `polygamma` / `zeta` (non-broadcasting,
`%x, %y : T, T -> T`). Syntax is that of the mlir-hlo BladeDISC pinned.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import FunctionType, IntegerAttr, IntegerType
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation, SpacedOpaqueSyntaxAttribute
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Commutative, Pure
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects import hlo_ops_common as common
from disc_ir.dialects.hlo_attrs import (
    ComparisonDirection,
    ComparisonType,
    HloTensor,
    check_dims_in_range,
    element_type_of,
    format_type,
    ints,
    is_bool,
    shape_of,
    verify_compatible_shapes,
    verify_same_element_types,
)
from disc_ir.dialects.hlo_ops_common import (
    FunctionalSyntaxOp,
    check_element_kind,
    make_op_class,
    parse_op_attrs,
    parse_unresolved_list,
    print_op_attrs,
    resolve,
)

_MODULE = __name__


@irdl_attr_definition
class ChloComparisonDirectionAttr(EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute):
    """`#chlo<comparison_direction EQ>`."""

    name = "chlo.comparison_direction"


@irdl_attr_definition
class ChloComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    """`#chlo<comparison_type FLOAT>`."""

    name = "chlo.comparison_type"


# ---------------------------------------------------------------------------
# Broadcasting binary ops
# ---------------------------------------------------------------------------


def _verify_broadcastable(op: Operation, lhs: Attribute, rhs: Attribute) -> None:
    """numpy-style (or broadcast_dimensions-mapped) broadcast compatibility."""
    a, b = shape_of(lhs), shape_of(rhs)
    dims_attr = op.attributes.get("broadcast_dimensions")
    if a is None or b is None:
        return
    if dims_attr is not None:
        dims = ints(dims_attr)
        small, large = (a, b) if len(a) <= len(b) else (b, a)
        if len(dims) != len(small):
            raise VerifyException(
                f"broadcast_dimensions size ({len(dims)}) does not match the rank "
                f"of the lower-rank operand ({len(small)})"
            )
        check_dims_in_range(op, "broadcast_dimensions", dims, len(large))
        pairs = [(small[i], large[d]) for i, d in enumerate(dims)]
    else:
        pairs = list(zip(reversed(a), reversed(b), strict=False))
    for x, y in pairs:
        if x >= 0 and y >= 0 and x != 1 and y != 1 and x != y:
            raise VerifyException(
                f"operand shapes {format_type(lhs)} and {format_type(rhs)} are not "
                "broadcast compatible"
            )


class BroadcastBinaryOp(FunctionalSyntaxOp):
    """Base of `chlo.broadcast_*`: `%a, %b {..} : (A, B) -> R`."""

    KIND: ClassVar[str] = common.ANY
    RESULT: ClassVar[str] = common.SAME

    lhs = operand_def(HloTensor)
    rhs = operand_def(HloTensor)
    broadcast_dimensions = opt_attr_def(Attribute)
    result = result_def(HloTensor)

    def verify_(self) -> None:
        for i, t in enumerate((self.lhs.type, self.rhs.type)):
            check_element_kind(self, f"operand #{i}", t, self.KIND)
        verify_same_element_types(self, [self.lhs.type, self.rhs.type])
        _verify_broadcastable(self, self.lhs.type, self.rhs.type)
        elem = element_type_of(self.lhs.type)
        expected = {
            common.SAME: elem,
            common.PRED: IntegerType(1),
            common.COMPLEX: None,
        }[self.RESULT]
        got = element_type_of(self.result.type)
        if expected is not None and got != expected:
            raise VerifyException(
                f"result element type {format_type(got)} does not match the "
                f"expected {format_type(expected)}"
            )


# (mnemonic, class name, element kind, commutative, summary)
_BROADCAST_BINARY: tuple[tuple[str, str, str, bool, str], ...] = (
    ("broadcast_add", "BroadcastAddOp", common.ANY, True, "lhs + rhs"),
    ("broadcast_atan2", "BroadcastAtan2Op", common.FP_OR_COMPLEX, False, "atan2"),
    ("broadcast_divide", "BroadcastDivOp", common.ANY, False, "lhs / rhs"),
    ("broadcast_maximum", "BroadcastMaxOp", common.ANY, True, "max"),
    ("broadcast_minimum", "BroadcastMinOp", common.ANY, True, "min"),
    ("broadcast_multiply", "BroadcastMulOp", common.ANY, True, "lhs * rhs"),
    ("broadcast_next_after", "BroadcastNextAfterOp", common.FP, False, "nextafter"),
    ("broadcast_polygamma", "BroadcastPolygammaOp", common.FP, False, "polygamma"),
    ("broadcast_power", "BroadcastPowOp", common.ANY, False, "lhs ^ rhs"),
    ("broadcast_remainder", "BroadcastRemOp", common.INT_OR_FP, False, "lhs % rhs"),
    ("broadcast_shift_left", "BroadcastShiftLeftOp", common.INT, False, "<<"),
    (
        "broadcast_shift_right_arithmetic",
        "BroadcastShiftRightArithmeticOp",
        common.INT,
        False,
        ">> (sign)",
    ),
    (
        "broadcast_shift_right_logical",
        "BroadcastShiftRightLogicalOp",
        common.INT,
        False,
        ">> (zero)",
    ),
    ("broadcast_subtract", "BroadcastSubOp", common.ANY, False, "lhs - rhs"),
    ("broadcast_zeta", "BroadcastZetaOp", common.FP, False, "Hurwitz zeta"),
    ("broadcast_and", "BroadcastAndOp", common.PRED_OR_INT, True, "lhs & rhs"),
    ("broadcast_or", "BroadcastOrOp", common.PRED_OR_INT, True, "lhs | rhs"),
    ("broadcast_xor", "BroadcastXorOp", common.PRED_OR_INT, True, "lhs ^ rhs"),
)

BROADCAST_OPS: list[type[IRDLOperation]] = [
    make_op_class(
        BroadcastBinaryOp,
        f"chlo.{mnemonic}",
        cls_name,
        f"Broadcasting {summary}.",
        _MODULE,
        KIND=kind,
        traits=traits_def(Pure(), Commutative()) if comm else traits_def(Pure()),
    )
    for mnemonic, cls_name, kind, comm, summary in _BROADCAST_BINARY
]
BROADCAST_OPS.append(
    make_op_class(
        BroadcastBinaryOp,
        "chlo.broadcast_complex",
        "BroadcastComplexOp",
        "Broadcasting lhs + i * rhs.",
        _MODULE,
        KIND=common.FP,
        RESULT=common.COMPLEX,
        traits=traits_def(Pure()),
    )
)
common.export(_MODULE, BROADCAST_OPS)


@irdl_op_definition
class BroadcastCompareOp(BroadcastBinaryOp):
    """Broadcasting comparison into i1, with `#chlo<comparison_direction ..>`."""

    name = "chlo.broadcast_compare"
    RESULT: ClassVar[str] = common.PRED
    comparison_direction = attr_def(ChloComparisonDirectionAttr)
    compare_type = opt_attr_def(ChloComparisonTypeAttr)
    traits = traits_def(Pure())


@irdl_op_definition
class BroadcastSelectOp(FunctionalSyntaxOp):
    """Broadcasting `pred ? on_true : on_false`."""

    name = "chlo.broadcast_select"
    pred = operand_def(HloTensor)
    on_true = operand_def(HloTensor)
    on_false = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if not is_bool(self.pred.type):
            raise VerifyException(f"pred must be a tensor of i1, got {format_type(self.pred.type)}")
        verify_same_element_types(self, [self.on_true.type, self.on_false.type, self.result.type])


# ---------------------------------------------------------------------------
# Unary ops: `chlo.erf %x : T -> T`
# ---------------------------------------------------------------------------


class UnaryOp(IRDLOperation):
    """Base of chlo's elementwise unary ops."""

    KIND: ClassVar[str] = common.FP_OR_COMPLEX
    RESULT: ClassVar[str] = common.SAME

    operand = operand_def(HloTensor)
    result = result_def(HloTensor)

    @classmethod
    def parse(cls, parser: Parser) -> UnaryOp:
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        attrs = parse_op_attrs(parser)
        parser.parse_punctuation(":")
        t = parser.parse_type()
        if isinstance(t, FunctionType):
            ins, outs = list(t.inputs.data), list(t.outputs.data)
        else:
            parser.parse_punctuation("->")
            ins, outs = [t], [parser.parse_type()]
        values = resolve(parser, [operand], ins, pos)
        return cls.create(operands=values, result_types=outs, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operand)
        print_op_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        check_element_kind(self, "operand", self.operand.type, self.KIND)
        verify_compatible_shapes(self, [self.operand.type, self.result.type])
        elem = element_type_of(self.operand.type)
        expected = {
            common.SAME: elem,
            common.PRED: IntegerType(1),
            common.REAL: common.real_element(elem),
        }[self.RESULT]
        if element_type_of(self.result.type) != expected:
            raise VerifyException(
                f"result element type must be {format_type(expected)}, got "
                f"{format_type(self.result.type)}"
            )


# (mnemonic, class name, element kind, result rule)
_UNARY: tuple[tuple[str, str, str, str], ...] = (
    ("acos", "AcosOp", common.FP_OR_COMPLEX, common.SAME),
    ("acosh", "AcoshOp", common.FP_OR_COMPLEX, common.SAME),
    ("asin", "AsinOp", common.FP_OR_COMPLEX, common.SAME),
    ("asinh", "AsinhOp", common.FP_OR_COMPLEX, common.SAME),
    ("atan", "AtanOp", common.FP_OR_COMPLEX, common.SAME),
    ("atanh", "AtanhOp", common.FP_OR_COMPLEX, common.SAME),
    ("bessel_i1e", "BesselI1eOp", common.FP, common.SAME),
    ("conj", "ConjOp", common.FP_OR_COMPLEX, common.SAME),
    ("cosh", "CoshOp", common.FP_OR_COMPLEX, common.SAME),
    ("sinh", "SinhOp", common.FP_OR_COMPLEX, common.SAME),
    ("tan", "TanOp", common.FP_OR_COMPLEX, common.SAME),
    ("digamma", "DigammaOp", common.FP, common.SAME),
    ("erf", "ErfOp", common.FP, common.SAME),
    ("erfc", "ErfcOp", common.FP, common.SAME),
    ("erf_inv", "ErfInvOp", common.FP, common.SAME),
    ("lgamma", "LgammaOp", common.FP, common.SAME),
    ("is_inf", "IsInfOp", common.FP, common.PRED),
    ("is_neg_inf", "IsNegInfOp", common.FP, common.PRED),
    ("is_pos_inf", "IsPosInfOp", common.FP, common.PRED),
    ("square", "SquareOp", common.ANY, common.SAME),
)

UNARY_OPS: list[type[IRDLOperation]] = [
    make_op_class(
        UnaryOp,
        f"chlo.{mnemonic}",
        cls_name,
        f"Elementwise {mnemonic}.",
        _MODULE,
        KIND=kind,
        RESULT=result,
        traits=traits_def(Pure()),
    )
    for mnemonic, cls_name, kind, result in _UNARY
]
common.export(_MODULE, UNARY_OPS)


class _PairOp(IRDLOperation):
    """Non-broadcasting binary: `chlo.zeta %x, %q : T, T -> T`."""

    x = operand_def(HloTensor)
    y = operand_def(HloTensor)
    result = result_def(HloTensor)

    @classmethod
    def parse(cls, parser: Parser) -> _PairOp:
        pos = parser.pos
        operands = parse_unresolved_list(parser)
        attrs = parse_op_attrs(parser)
        parser.parse_punctuation(":")
        a = parser.parse_type()
        parser.parse_punctuation(",")
        b = parser.parse_type()
        parser.parse_punctuation("->")
        r = parser.parse_type()
        values = resolve(parser, operands, [a, b], pos)
        return cls.create(operands=values, result_types=[r], attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        print_op_attrs(printer, self)
        printer.print_string(" : ")
        printer.print_list(self.operand_types, printer.print_attribute)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)

    def verify_(self) -> None:
        verify_compatible_shapes(self, [*self.operand_types, self.result.type])
        verify_same_element_types(self, [*self.operand_types, self.result.type])


PAIR_OPS: list[type[IRDLOperation]] = [
    make_op_class(_PairOp, f"chlo.{m}", c, d, _MODULE, traits=traits_def(Pure()))
    for m, c, d in (
        ("next_after", "NextAfterOp", "nextafter(x, y), elementwise."),
        ("polygamma", "PolygammaOp", "polygamma(n, x), elementwise."),
        ("zeta", "ZetaOp", "Hurwitz zeta(x, q), elementwise."),
    )
]
common.export(_MODULE, PAIR_OPS)


@irdl_op_definition
class TopKOp(IRDLOperation):
    """`chlo.top_k(%x, k = 2) : tensor<3x5xf32> -> (tensor<3x2xf32>,
    tensor<3x2xi32>)`: the `k` largest entries along the last dimension,
    in descending order, and their indices (ties: the lower index first)."""

    name = "chlo.top_k"
    operand = operand_def(HloTensor)
    k = attr_def(IntegerAttr)
    values = result_def(HloTensor)
    indices = result_def(HloTensor)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> TopKOp:
        pos = parser.pos
        parser.parse_punctuation("(")
        operand = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        parser.parse_keyword("k")
        parser.parse_punctuation("=")
        k = parser.parse_integer()
        parser.parse_punctuation(")")
        attrs = parse_op_attrs(parser)
        parser.parse_punctuation(":")
        operand_type = parser.parse_type()
        parser.parse_punctuation("->")
        parser.parse_punctuation("(")
        values_type = parser.parse_type()
        parser.parse_punctuation(",")
        indices_type = parser.parse_type()
        parser.parse_punctuation(")")
        values = resolve(parser, [operand], [operand_type], pos)
        attrs["k"] = IntegerAttr(k, 64)
        return cls.create(
            operands=values, result_types=[values_type, indices_type], attributes=attrs
        )

    def print(self, printer: Printer) -> None:
        printer.print_string("(")
        printer.print_operand(self.operand)
        printer.print_string(f", k = {self.k.value.data})")
        print_op_attrs(printer, self, ("k",))
        printer.print_string(" : ")
        printer.print_attribute(self.operand.type)
        printer.print_string(" -> (")
        printer.print_attribute(self.values.type)
        printer.print_string(", ")
        printer.print_attribute(self.indices.type)
        printer.print_string(")")

    def verify_(self) -> None:
        k = self.k.value.data
        if k < 0:
            raise VerifyException(f"k must be non-negative, got {k}")
        shape = shape_of(self.operand.type)
        if shape is not None and not shape:
            raise VerifyException("operand must have rank >= 1")
        if shape is not None and shape[-1] >= 0 and shape[-1] < k:
            raise VerifyException(
                f"operand's last dimension ({shape[-1]}) must be at least k ({k})"
            )
        index = element_type_of(self.indices.type)
        if not (isinstance(index, IntegerType) and index.width.data == 32):
            raise VerifyException(f"indices must be i32, got {format_type(self.indices.type)}")
        verify_same_element_types(self, [self.operand.type, self.values.type])
        for result in (self.values.type, self.indices.type):
            got = shape_of(result)
            if shape is None or got is None:
                continue
            expected = [*shape[:-1], k]
            if len(got) != len(expected) or any(
                a >= 0 and b >= 0 and a != b for a, b in zip(got, expected, strict=True)
            ):
                raise VerifyException(
                    f"result {format_type(result)} must have the operand's shape with "
                    f"the last dimension k = {k}"
                )


# ---------------------------------------------------------------------------
# Constants
# ---------------------------------------------------------------------------


@irdl_op_definition
class ConstantOp(IRDLOperation):
    """`chlo.constant dense<..> : tensor<..>`."""

    name = "chlo.constant"
    value = attr_def(Attribute)
    output = result_def(HloTensor)
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        return common.parse_constant(cls, parser)  # type: ignore[return-value]  # parse_constant builds `cls`

    def print(self, printer: Printer) -> None:
        common.print_constant(printer, self)


@irdl_op_definition
class ConstantLikeOp(IRDLOperation):
    """A splat of `value` shaped like `operand` (generic form)."""

    name = "chlo.constant_like"
    value = attr_def(Attribute)
    operand = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_compatible_shapes(self, [self.operand.type, self.result.type])
        value_type = getattr(self.value, "type", None)
        if value_type is not None and element_type_of(self.result.type) != value_type:
            raise VerifyException(
                f"value type {format_type(value_type)} must match the result "
                f"element type {format_type(element_type_of(self.result.type))}"
            )


CHLO_OPS: list[type[IRDLOperation]] = [
    *BROADCAST_OPS,
    BroadcastCompareOp,
    BroadcastSelectOp,
    *UNARY_OPS,
    *PAIR_OPS,
    TopKOp,
    ConstantOp,
    ConstantLikeOp,
]

CHLO = Dialect("chlo", [*CHLO_OPS], [ChloComparisonDirectionAttr, ChloComparisonTypeAttr])
"""The chlo dialect."""
