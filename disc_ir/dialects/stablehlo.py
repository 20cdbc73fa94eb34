"""The `stablehlo` dialect: StableHLO as JAX prints it, read by the frontend.

Every op that has an mhlo twin is built from the twin's IRDL definition
(`disc_ir.dialects.mhlo`): same operands, results, regions, traits and
verifier, renamed `stablehlo.*`, with the `#stablehlo...` attributes in place
of the `#mhlo...` ones. The frontend (`disc_ir.frontends.stablehlo`) turns
each op into its twin; `stablehlo.composite` (no twin) is inlined there.

Syntax: the generic form (inherent attributes as properties `<{...}>` or in
the attribute dictionary) and StableHLO's pretty forms, as `stablehlo-opt`
and JAX print them:

* `stablehlo.add %a, %b : tensor<4xf32>`, `stablehlo.convert %x : (..) -> ..`,
  `stablehlo.constant dense<1.0> : tensor<f32>`,
  `stablehlo.compare GE, %a, %b, SIGNED : (..) -> tensor<i1>`, `select`, `clamp`;
* keyword forms: `stablehlo.broadcast_in_dim %x, dims = [1] : (..) -> ..`,
  `dynamic_broadcast_in_dim %x, %s, dims = [0, 1]`, `transpose %x, dims = [..]`,
  `reverse %x, dims = [..] : tensor<..>`, `iota dim = 0 : tensor<..>`,
  `dynamic_iota %s, dim = 0`, `concatenate %a, %b, dim = 0`,
  `get_dimension_size %x, dim = 0`, `dynamic_slice %x, %i, sizes = [..]`,
  `pad %x, %v, low = [..], high = [..], interior = [..]`,
  `broadcast %x, sizes = [..]`;
* `stablehlo.slice %x [0:4, 1:6:2]`;
* `stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims
  = [2] x [1], precision = [DEFAULT, DEFAULT] : (..) -> ..`;
* `stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions =
  [1]` and the region form `... reducer(%a: tensor<f32>, %b: tensor<f32>) {..}`;
* `stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b,
  0, 1, f], window = {stride = [..], pad = [[..]], ...} {..} : (..) -> ..`;
* `stablehlo.custom_call @target(%a) {..} : (..) -> ..`,
  `stablehlo.composite "name" %a {decomposition = @f} : (..) -> ..`,
  `stablehlo.while`, `stablehlo.return`;
* attributes `#stablehlo<comparison_direction GT>`, `#stablehlo<precision
  DEFAULT>`, `#stablehlo.dot<...>`, `#stablehlo.gather<...>` (with the
  batching dimensions of StableHLO 1.x), `#stablehlo.scatter<...>`,
  `#stablehlo.conv<...>`, `#stablehlo.type_extensions<bounds = [..]>`.

Dimension lists parsed from the pretty forms are stored as `array<i64: ..>`,
as StableHLO does.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Self, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntAttr,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i1,
    i64,
)
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import (
    AttributeDef,
    BaseAttr,
    IRDLOperation,
    OpDef,
    attr_def,
    irdl_attr_definition,
    irdl_op_definition,
    opt_attr_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.irdl.operations import get_accessors_from_op_def
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Commutative, Pure
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects import hlo_attrs as ha
from disc_ir.dialects import hlo_ops_common as common
from disc_ir.dialects import mhlo
from disc_ir.dialects.hlo_attrs import element_type_of, ints
from disc_ir.dialects.hlo_ops_common import (
    parse_functional_type,
    parse_op_attrs,
    parse_unresolved_list,
    print_op_attrs,
    resolve,
)
from disc_ir.ir.walk import preorder_ops

_MODULE = __name__

# ---------------------------------------------------------------------------
# Attributes: `#stablehlo...` clones of the `#mhlo...` ones
# ---------------------------------------------------------------------------

_IRDL_GENERATED = {
    "__module__",
    "__dict__",
    "__weakref__",
    "__doc__",
    "__abstractmethods__",
    "_abc_impl",
    "get_irdl_definition",
    "__dataclass_params__",
    "__dataclass_fields__",
    "__repr__",
    "__eq__",
    "__setattr__",
    "__delattr__",
    "__hash__",
    "__match_args__",
    "__init_subclass__",
    "__final__",
    "__parameters__",
    "__orig_bases__",
    "name",
}


def _clone_attr(cls: type[Attribute], name: str) -> type[Attribute]:
    """Attribute `name` with the parameters, syntax and helpers of `cls`
    (IRDL attributes are final, so the class body is copied)."""
    ns: dict[str, Any] = {k: v for k, v in vars(cls).items() if k not in _IRDL_GENERATED}
    # The module stays `cls`'s, where the parameter annotations resolve.
    ns |= {"name": name, "__module__": cls.__module__, "__doc__": f"`#{name}` (as `#{cls.name}`)."}
    bases = getattr(cls, "__orig_bases__", cls.__bases__)
    new = types.new_class(cls.__name__, tuple(bases), exec_body=lambda body: body.update(ns))
    return irdl_attr_definition(new)


def _enum(cls: type[Attribute]) -> type[Attribute]:
    return _clone_attr(cls, "stablehlo." + cls.name.split(".", 1)[1])


ComparisonDirectionAttr = _enum(ha.ComparisonDirectionAttr)
ComparisonTypeAttr = _enum(ha.ComparisonTypeAttr)
PrecisionAttr = _enum(ha.PrecisionAttr)
FftTypeAttr = _enum(ha.FftTypeAttr)
RngDistributionAttr = _enum(ha.RngDistributionAttr)
RngAlgorithmAttr = _enum(ha.RngAlgorithmAttr)
TransposeAttr = _enum(ha.TransposeAttr)
CustomCallScheduleAttr = _enum(ha.CustomCallScheduleAttr)
DotDimensionNumbersAttr = _clone_attr(ha.DotDimensionNumbersAttr, "stablehlo.dot")
ConvDimensionNumbersAttr = _clone_attr(ha.ConvDimensionNumbersAttr, "stablehlo.conv")
ChannelHandleAttr = _clone_attr(ha.ChannelHandleAttr, "stablehlo.channel_handle")
TypeExtensionsAttr = _clone_attr(ha.TypeExtensionsAttr, "stablehlo.type_extensions")

_DIMS, _INT = "dims", "int"


@irdl_attr_definition
class GatherDimensionNumbersAttr(ha._StructAttr):  # noqa: SLF001
    """`#stablehlo.gather<offset_dims = [..], collapsed_slice_dims = [..],
    operand_batching_dims = [..], start_indices_batching_dims = [..],
    start_index_map = [..], index_vector_dim = N>`."""

    name = "stablehlo.gather"
    FIELDS = (
        ("offset_dims", _DIMS),
        ("collapsed_slice_dims", _DIMS),
        ("operand_batching_dims", _DIMS),
        ("start_indices_batching_dims", _DIMS),
        ("start_index_map", _DIMS),
        ("index_vector_dim", _INT),
    )
    offset_dims: ha.DimsAttr
    collapsed_slice_dims: ha.DimsAttr
    operand_batching_dims: ha.DimsAttr
    start_indices_batching_dims: ha.DimsAttr
    start_index_map: ha.DimsAttr
    index_vector_dim: IntAttr


@irdl_attr_definition
class ScatterDimensionNumbersAttr(ha._StructAttr):  # noqa: SLF001
    """`#stablehlo.scatter<update_window_dims = [..], inserted_window_dims =
    [..], input_batching_dims = [..], scatter_indices_batching_dims = [..],
    scatter_dims_to_operand_dims = [..], index_vector_dim = N>`."""

    name = "stablehlo.scatter"
    FIELDS = (
        ("update_window_dims", _DIMS),
        ("inserted_window_dims", _DIMS),
        ("input_batching_dims", _DIMS),
        ("scatter_indices_batching_dims", _DIMS),
        ("scatter_dims_to_operand_dims", _DIMS),
        ("index_vector_dim", _INT),
    )
    update_window_dims: ha.DimsAttr
    inserted_window_dims: ha.DimsAttr
    input_batching_dims: ha.DimsAttr
    scatter_indices_batching_dims: ha.DimsAttr
    scatter_dims_to_operand_dims: ha.DimsAttr
    index_vector_dim: IntAttr


#: mhlo attribute class -> its stablehlo twin (and back in `TO_MHLO_ATTR`).
TO_STABLEHLO_ATTR: dict[type[Attribute], type[Attribute]] = {
    ha.ComparisonDirectionAttr: ComparisonDirectionAttr,
    ha.ComparisonTypeAttr: ComparisonTypeAttr,
    ha.PrecisionAttr: PrecisionAttr,
    ha.FftTypeAttr: FftTypeAttr,
    ha.RngDistributionAttr: RngDistributionAttr,
    ha.RngAlgorithmAttr: RngAlgorithmAttr,
    ha.TransposeAttr: TransposeAttr,
    ha.CustomCallScheduleAttr: CustomCallScheduleAttr,
    ha.DotDimensionNumbersAttr: DotDimensionNumbersAttr,
    ha.ConvDimensionNumbersAttr: ConvDimensionNumbersAttr,
    ha.ChannelHandleAttr: ChannelHandleAttr,
    ha.TypeExtensionsAttr: TypeExtensionsAttr,
    ha.GatherDimensionNumbersAttr: GatherDimensionNumbersAttr,
    ha.ScatterDimensionNumbersAttr: ScatterDimensionNumbersAttr,
}
TO_MHLO_ATTR: dict[type[Attribute], type[Attribute]] = {v: k for k, v in TO_STABLEHLO_ATTR.items()}

STABLEHLO_ATTRIBUTES: list[type[Attribute]] = list(TO_STABLEHLO_ATTR.values())


def map_attr(attr: Attribute, table: dict[type[Attribute], type[Attribute]]) -> Attribute:
    """`attr` with every attribute whose class is in `table` (also inside
    arrays and dictionaries) rebuilt as the mapped class. Struct attributes
    map field by field: fields the target lacks must be empty (else
    ValueError names them)."""
    target = table.get(type(attr))
    if target is not None:
        if isinstance(attr, EnumAttribute):
            return target(attr.data)  # type: ignore[call-arg]  # an EnumAttribute's twin class is built from the enum value
        if isinstance(attr, ha._StructAttr) and attr.FIELDS != target.FIELDS:  # type: ignore[attr-defined]  # noqa: SLF001
            values = dict(attr.field_items())
            names = {n for n, _ in target.FIELDS}  # type: ignore[attr-defined]  # the twin of a struct attribute is a struct attribute class
            dropped = [n for n, v in values.items() if n not in names and v]
            if dropped:
                raise ValueError(
                    f"#{attr.name} fields {', '.join(dropped)} have no #{target.name} form"
                )
            return target.from_fields(**{k: v for k, v in values.items() if k in names})  # type: ignore[attr-defined]  # the twin of a struct attribute is a struct attribute class
        return target.new(attr.parameters)  # type: ignore[attr-defined]  # the other twins are ParametrizedAttribute classes
    if isinstance(attr, ArrayAttr):
        return ArrayAttr([map_attr(a, table) for a in attr.data])
    if isinstance(attr, DictionaryAttr):
        return DictionaryAttr({k: map_attr(v, table) for k, v in attr.data.items()})
    return attr


def _retag(op: Operation) -> Operation:
    """Map the `#mhlo` attributes a borrowed mhlo parser made to `#stablehlo`."""
    for key, value in list(op.attributes.items()):
        op.attributes[key] = map_attr(value, TO_STABLEHLO_ATTR)
    for region in op.regions:
        for inner in preorder_ops(region):
            if inner.name.startswith("mhlo."):
                raise VerifyException(f"'{inner.name}' inside a stablehlo op")
    return op


# ---------------------------------------------------------------------------
# Syntax helpers
# ---------------------------------------------------------------------------


def _dims(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _bools(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i1, [int(bool(v)) for v in values])


def _parse_int_list(parser: Parser) -> list[int]:
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def _parse_bool_list(parser: Parser) -> list[int]:
    def item() -> int:
        if parser._current_token.text in ("true", "false"):  # noqa: SLF001
            return int(parser.parse_boolean())
        return parser.parse_integer()

    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, item)


def _list_text(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


# keyword -> (attribute name, kind); kinds: "dims" (array<i64>), "int" (i64)
_Keywords = tuple[tuple[str, str, str], ...]


class KeywordSyntax(IRDLOperation):
    """`op %a, %b, kw = [..], kw2 = N attr-dict : functional-type` (StableHLO's
    DenseI64Array keyword forms). `KEYWORDS` lists (keyword, attribute,
    kind); a keyword is optional when its attribute is."""

    KEYWORDS: ClassVar[_Keywords] = ()
    RESULT_TYPE_ONLY: ClassVar[bool] = False
    #: `: type` stands for every operand and the result (StableHLO prints ops
    #: with SameOperandsAndResultType so); a functional type is read too
    SAME_TYPE: ClassVar[bool] = False

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        operands: list[UnresolvedOperand] = []
        attrs: dict[str, Attribute] = {}
        table = {k: (a, kind) for k, a, kind in cls.KEYWORDS}
        first = True
        while True:
            if not first and parser.parse_optional_punctuation(",") is None:
                break
            first = False
            operand = parser.parse_optional_unresolved_operand()
            if operand is not None:
                operands.append(operand)
                continue
            kw_pos = parser.pos
            key = parser.parse_optional_identifier()
            if key is None:
                if not operands and not attrs:
                    break
                parser.raise_error("expected an operand or a keyword", kw_pos, parser.pos)
            if key not in table:
                known = ", ".join(k for k, _, _ in cls.KEYWORDS)
                parser.raise_error(f"unexpected keyword '{key}' (expected {known})", kw_pos)
            parser.parse_punctuation("=")
            name, kind = table[key]
            if kind == "int":
                attrs[name] = IntegerAttr(parser.parse_integer(), i64)
            else:
                attrs[name] = _dims(_parse_int_list(parser))
        attrs |= parse_op_attrs(parser)
        parser.parse_punctuation(":")
        ins: list[Attribute]
        outs: list[Attribute]
        if cls.RESULT_TYPE_ONLY:
            ins, outs = [], [parser.parse_type()]
        elif cls.SAME_TYPE and parser._current_token.text != "(":  # noqa: SLF001
            # `: tensor<..>`: operands and result of one type (SameOperandsAndResultType)
            same = parser.parse_type()
            ins, outs = [same] * len(operands), [same]
        else:
            ins, outs = parse_functional_type(parser, len(operands))
        values = resolve(parser, operands, ins, pos)
        return cls.create(operands=values, result_types=outs, attributes=attrs)

    def print(self, printer: Printer) -> None:
        parts: list[str] = []
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        for key, name, kind in self.KEYWORDS:
            attr = self.attributes.get(name)
            if attr is None:
                continue
            if kind == "int":
                assert isinstance(attr, IntegerAttr)
                parts.append(f"{key} = {attr.value.data}")
            else:
                parts.append(f"{key} = {_list_text(ints(attr))}")
        if self.operands and parts:
            printer.print_string(", ")
        printer.print_string(", ".join(parts))
        print_op_attrs(printer, self, [n for _, n, _ in self.KEYWORDS])
        printer.print_string(" : ")
        types = {v.type for v in (*self.operands, *self.results)}
        if self.RESULT_TYPE_ONLY or (self.SAME_TYPE and len(types) == 1):
            printer.print_attribute(self.results[0].type)
        else:
            printer.print_operation_type(self)


class CompareSyntax(IRDLOperation):
    """`stablehlo.compare GE, %a, %b, SIGNED : (..) -> ..`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        return cast(
            Self, _retag(_MHLO_PARSE[mhlo.CompareOp](cls, parser))
        )  # mhlo's parser builds `cls`

    def print(self, printer: Printer) -> None:
        direction = self.attributes["comparison_direction"]
        printer.print_string(f" {direction.data.value}, ")  # type: ignore[attr-defined]  # the op's attribute constraint: a comparison direction enum attribute
        printer.print_list(self.operands, printer.print_operand)
        kind = self.attributes.get("compare_type")
        if kind is not None:
            printer.print_string(f", {kind.data.value}")  # type: ignore[attr-defined]  # the op's attribute constraint: a comparison type enum attribute
        print_op_attrs(printer, self, ("comparison_direction", "compare_type"))
        printer.print_string(" : ")
        printer.print_operation_type(self)


class SliceSyntax(IRDLOperation):
    """`stablehlo.slice %x [0:4, 1:6:2] : (..) -> ..`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        operand = parser.parse_unresolved_operand()
        starts: list[int] = []
        limits: list[int] = []
        strides: list[int] = []

        def one() -> None:
            starts.append(parser.parse_integer())
            parser.parse_punctuation(":")
            limits.append(parser.parse_integer())
            strides.append(parser.parse_integer() if parser.parse_optional_punctuation(":") else 1)

        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one)
        attrs: dict[str, Attribute] = {
            "start_indices": _dims(starts),
            "limit_indices": _dims(limits),
            "strides": _dims(strides),
        }
        attrs |= parse_op_attrs(parser)
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser, 1)
        values = resolve(parser, [operand], ins, pos)
        return cls.create(operands=values, result_types=outs, attributes=attrs)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.operands[0])
        starts = ints(self.attributes["start_indices"])
        limits = ints(self.attributes["limit_indices"])
        strides = ints(self.attributes["strides"])
        ranges = [
            f"{s}:{e}" + (f":{st}" if st != 1 else "")
            for s, e, st in zip(starts, limits, strides, strict=False)
        ]
        printer.print_string(" [" + ", ".join(ranges) + "]")
        print_op_attrs(printer, self, ("start_indices", "limit_indices", "strides"))
        printer.print_string(" : ")
        printer.print_operation_type(self)


def _parse_dim_pair(parser: Parser) -> tuple[list[int], list[int]]:
    lhs = _parse_int_list(parser)
    parser.parse_characters("x", " between dimension lists")
    return lhs, _parse_int_list(parser)


def _precision_list(parser: Parser) -> ArrayAttr:
    def one() -> Attribute:
        pos = parser.pos
        word = parser.parse_identifier()
        try:
            return PrecisionAttr(ha.Precision(word))  # type: ignore[call-arg]  # an EnumAttribute is built from its enum value
        except ValueError:
            parser.raise_error(f"unknown precision '{word}'", pos, parser.pos)

    return ArrayAttr(parser.parse_comma_separated_list(parser.Delimiter.SQUARE, one))


class DotGeneralSyntax(IRDLOperation):
    """`stablehlo.dot_general %a, %b, batching_dims = [0] x [0],
    contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : ..`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        lhs = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        rhs = parser.parse_unresolved_operand()
        fields: dict[str, list[int]] = {}
        attrs: dict[str, Attribute] = {}
        while parser.parse_optional_punctuation(",") is not None:
            kw_pos = parser.pos
            key = parser.parse_identifier()
            parser.parse_punctuation("=")
            if key in ("batching_dims", "contracting_dims"):
                a, b = _parse_dim_pair(parser)
                kind = key.split("_")[0]
                fields[f"lhs_{kind}_dimensions"] = a
                fields[f"rhs_{kind}_dimensions"] = b
            elif key == "precision":
                attrs["precision_config"] = _precision_list(parser)
            elif key == "algorithm":
                attrs["algorithm"] = parser.parse_attribute()
            else:
                parser.raise_error(f"unexpected keyword '{key}'", kw_pos, parser.pos)
        attrs["dot_dimension_numbers"] = DotDimensionNumbersAttr.from_fields(**fields)  # type: ignore[attr-defined]  # a struct attribute class (hlo_attrs._StructAttr)
        attrs |= parse_op_attrs(parser)
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser, 2)
        values = resolve(parser, [lhs, rhs], ins, pos)
        return cls.create(operands=values, result_types=outs, attributes=attrs)

    def print(self, printer: Printer) -> None:
        dn = self.attributes["dot_dimension_numbers"]
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        lb, rb = dn.field("lhs_batching_dimensions"), dn.field("rhs_batching_dimensions")  # type: ignore[attr-defined]  # the op's constraint: a DotDimensionNumbersAttr
        lc = dn.field("lhs_contracting_dimensions")  # type: ignore[attr-defined]  # the op's constraint: a DotDimensionNumbersAttr
        rc = dn.field("rhs_contracting_dimensions")  # type: ignore[attr-defined]  # the op's constraint: a DotDimensionNumbersAttr
        if lb or rb:
            printer.print_string(f", batching_dims = {_list_text(lb)} x {_list_text(rb)}")
        printer.print_string(f", contracting_dims = {_list_text(lc)} x {_list_text(rc)}")
        precision = self.attributes.get("precision_config")
        if isinstance(precision, ArrayAttr) and precision.data:
            names = ", ".join(p.data.value for p in precision.data)
            printer.print_string(f", precision = [{names}]")
        if "algorithm" in self.attributes:
            printer.print_string(", algorithm = ")
            printer.print_attribute(self.attributes["algorithm"])
        print_op_attrs(printer, self, ("dot_dimension_numbers", "precision_config", "algorithm"))
        printer.print_string(" : ")
        printer.print_operation_type(self)


class ReduceSyntax(IRDLOperation):
    """`stablehlo.reduce(%x init: %c) applies stablehlo.add across dimensions
    = [1] : ..` or the region form with `reducer(%a: T, %b: T) {..}`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        pos = parser.pos
        operands, inits = common.parse_reduce_operands(parser)
        inner_name: str | None = None
        name_pos = parser.pos
        if parser.parse_optional_keyword("applies") is not None:
            name_pos = parser.pos
            inner_name = parser.parse_identifier_or_str_literal()
        attrs: dict[str, Attribute] = {"dimensions": _dims(common.parse_across_dimensions(parser))}
        attrs |= parse_op_attrs(parser)
        parser.parse_punctuation(":")
        ins, outs = parse_functional_type(parser, len(operands) * 2)
        values = resolve(parser, operands + inits, ins, pos)
        if inner_name is not None:
            inner_cls = parser.ctx.get_optional_op(inner_name)
            if (
                inner_cls is None
                or not inner_name.startswith("stablehlo.")
                or not inner_cls.has_trait(Commutative)
                or len(operands) != 1
            ):
                parser.raise_error(
                    "expected the inner-op to be a commutative binary-op from the "
                    "stablehlo dialect, zero region, producing single result",
                    name_pos,
                    parser.pos,
                )
            region = common.compact_reducer_region(inner_cls, element_type_of(ins[0]), ReturnOp)
        else:
            region = common.parse_reducer_region(parser)
        return cls.create(operands=values, result_types=outs, attributes=attrs, regions=[region])

    def _compact_inner(self) -> Operation | None:
        if set(self.attributes) != {"dimensions"} or len(self.operands) != 2:
            return None
        block = self.regions[0].blocks.first
        if block is None or block.next_block is not None:
            return None
        ops = list(block.ops)
        if len(ops) != 2:
            return None
        inner, ret = ops
        if (
            not inner.name.startswith("stablehlo.")
            or not inner.has_trait(Commutative)
            or inner.regions
            or list(inner.operands) != list(block.args)
            or not isinstance(ret, ReturnOp)
            or list(ret.operands) != list(inner.results)
            or inner.attributes
        ):
            return None
        scalar = TensorType(element_type_of(self.operands[0].type), [])
        return inner if inner.results[0].type == scalar else None

    def print(self, printer: Printer) -> None:
        n = len(self.operands) // 2
        common.print_reduce_operands(printer, self.operands[:n], self.operands[n:])
        dims = _list_text(ints(self.attributes["dimensions"]))
        inner = self._compact_inner()
        if inner is not None:
            printer.print_string(f" applies {inner.name} across dimensions = {dims} : ")
            printer.print_operation_type(self)
            return
        printer.print_string(f" across dimensions = {dims}")
        print_op_attrs(printer, self, ("dimensions",))
        printer.print_string(" : ")
        printer.print_operation_type(self)
        common.print_reducer_region(printer, self.regions[0], n)


class BorrowedSyntax(IRDLOperation):
    """The custom form of the mhlo twin (convolution, custom_call, while, ...),
    its `#mhlo` attributes mapped to `#stablehlo`."""

    TWIN: ClassVar[type[IRDLOperation]]

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        return cast(Self, _retag(_MHLO_PARSE[cls.TWIN](cls, parser)))  # mhlo's parser builds `cls`

    def print(self, printer: Printer) -> None:
        _MHLO_PRINT[self.TWIN](self, printer)


class ReturnSyntax(common.ReturnSyntaxOp):
    """`stablehlo.return %a, %b : tensor<f32>, tensor<i32>`."""


# ---------------------------------------------------------------------------
# Twin ops
# ---------------------------------------------------------------------------

_MHLO_PARSE: dict[type, Callable[..., Operation]] = {}
_MHLO_PRINT: dict[type, Callable[..., None]] = {}


def _custom_verify(cls: type[IRDLOperation]) -> Callable[..., None] | None:
    """The op's own `verify_` (IRDL wraps it together with the definition checks)."""
    fn = cls.verify_
    names = fn.__code__.co_freevars
    if "custom_verify" not in names or fn.__closure__ is None:
        return None
    return fn.__closure__[names.index("custom_verify")].cell_contents


def _retarget(definition: AttributeDef) -> AttributeDef:
    constr = definition.constr
    if isinstance(constr, BaseAttr) and constr.attr in TO_STABLEHLO_ATTR:
        return dataclasses.replace(definition, constr=BaseAttr(TO_STABLEHLO_ATTR[constr.attr]))
    return definition


def twin_of(
    cls: type[IRDLOperation],
    syntax: type[IRDLOperation] | None = None,
    **namespace: Any,
) -> type[IRDLOperation]:
    """The stablehlo op with `cls`'s definition and verifier, renamed
    `stablehlo.<mnemonic>`; `syntax` gives its parse/print (None: the
    twin's own, when it is StableHLO's too)."""
    mnemonic = cls.name.split(".", 1)[1]
    _MHLO_PARSE[cls] = cls.parse.__func__  # type: ignore[attr-defined]  # parse is a classmethod: bound, it has __func__
    _MHLO_PRINT[cls] = cls.print
    op_def: OpDef = cls.get_irdl_definition()
    name = f"stablehlo.{mnemonic}"
    new_def = dataclasses.replace(
        op_def,
        name=name,
        attributes={k: _retarget(v) for k, v in op_def.attributes.items()},
    )
    ns: dict[str, Any] = {
        "name": name,
        "__module__": _MODULE,
        "__doc__": f"`{name}`: the StableHLO form of `{cls.name}`.",
        "TWIN": cls,
        **namespace,
    }
    for key in ("SPEC", "FUNCTIONAL_SYNTAX"):
        if hasattr(cls, key):
            ns[key] = getattr(cls, key)
    bases: tuple[type, ...] = (syntax, cls.__bases__[0]) if syntax else cls.__bases__
    if syntax is None:
        ns["parse"] = classmethod(lambda c, p: _retag(_MHLO_PARSE[c.TWIN](c, p)))
        ns["print"] = cls.print
    new = type(cls.__name__, bases, ns)
    for key, value in get_accessors_from_op_def(new_def, _custom_verify(cls)).items():
        setattr(new, key, value)
    new.get_irdl_definition = classmethod(lambda c: new_def)  # type: ignore[attr-defined]  # `new` is an IRDLOperation subclass made by type()
    return new


def _keywords(
    keywords: _Keywords, result_type_only: bool = False, same_type: bool = False
) -> type[IRDLOperation]:
    return type(
        "KeywordSyntaxOf",
        (KeywordSyntax,),
        {
            "KEYWORDS": keywords,
            "RESULT_TYPE_ONLY": result_type_only,
            "SAME_TYPE": same_type,
            "__annotations__": {
                "KEYWORDS": ClassVar[Any],
                "RESULT_TYPE_ONLY": ClassVar[Any],
                "SAME_TYPE": ClassVar[Any],
            },
            "__module__": _MODULE,
        },
    )


_DIMS_KW = (("dims", "broadcast_dimensions", "dims"),)
_SYNTAX: dict[type[IRDLOperation], type[IRDLOperation] | None] = {
    mhlo.BroadcastInDimOp: _keywords(_DIMS_KW),
    mhlo.DynamicBroadcastInDimOp: _keywords(
        (
            *_DIMS_KW,
            ("known_expanding_dimensions", "known_expanding_dimensions", "dims"),
            ("known_nonexpanding_dimensions", "known_nonexpanding_dimensions", "dims"),
        )
    ),
    mhlo.BroadcastOp: _keywords((("sizes", "broadcast_sizes", "dims"),)),
    mhlo.TransposeOp: _keywords((("dims", "permutation", "dims"),)),
    mhlo.ReverseOp: _keywords((("dims", "dimensions", "dims"),), same_type=True),
    mhlo.IotaOp: _keywords((("dim", "iota_dimension", "int"),), result_type_only=True),
    mhlo.DynamicIotaOp: _keywords((("dim", "iota_dimension", "int"),)),
    mhlo.ConcatenateOp: _keywords((("dim", "dimension", "int"),)),
    mhlo.GetDimensionSizeOp: _keywords((("dim", "dimension", "int"),)),
    mhlo.DynamicSliceOp: _keywords((("sizes", "slice_sizes", "dims"),)),
    mhlo.PadOp: _keywords(
        (
            ("low", "edge_padding_low", "dims"),
            ("high", "edge_padding_high", "dims"),
            ("interior", "interior_padding", "dims"),
        )
    ),
    mhlo.SliceOp: SliceSyntax,
    mhlo.CompareOp: CompareSyntax,
    mhlo.DotGeneralOp: DotGeneralSyntax,
    mhlo.ReduceOp: ReduceSyntax,
    mhlo.ReturnOp: ReturnSyntax,
}

# mhlo ops that StableHLO does not have.
_NOT_IN_STABLEHLO = {
    "mhlo.compute_reshape_shape",
    "mhlo.cstr_reshapable",
    "mhlo.torch_index_select",
    "mhlo.copy",
    # today's mhlo only (StableHLO has them in chlo)
    "mhlo.erf",
    "mhlo.acos",
    "mhlo.acosh",
    "mhlo.asin",
    "mhlo.asinh",
    "mhlo.atanh",
    "mhlo.cosh",
    "mhlo.sinh",
}


def _build_twins() -> list[type[IRDLOperation]]:
    out: list[type[IRDLOperation]] = []
    for cls in mhlo.MHLO_OPS:
        if cls.name in _NOT_IN_STABLEHLO or not cls.name.startswith("mhlo."):
            continue
        syntax = _SYNTAX.get(cls)
        if syntax is None and "parse" in vars(cls):
            syntax = BorrowedSyntax
        out.append(twin_of(cls, syntax))
    return out


TWIN_OPS = _build_twins()
#: stablehlo op name -> the mhlo op class it converts to.
MHLO_TWIN: dict[str, type[IRDLOperation]] = {c.name: c.TWIN for c in TWIN_OPS}  # type: ignore[attr-defined]  # every twin op class sets TWIN
_BY_NAME = {c.name: c for c in TWIN_OPS}
ReturnOp = _BY_NAME["stablehlo.return"]
for _cls in TWIN_OPS:
    globals()[_cls.__name__] = _cls


# ---------------------------------------------------------------------------
# Ops without an mhlo twin
# ---------------------------------------------------------------------------


@irdl_op_definition
class CompositeOp(IRDLOperation):
    """`stablehlo.composite "name" %a, %b {composite_attributes = {..},
    decomposition = @f, version = 1 : i32} : (..) -> ..`: a call of the
    private function `decomposition`, named for backends that know it."""

    name = "stablehlo.composite"
    inputs = var_operand_def()
    composite_name = attr_def(StringAttr, attr_name="name")
    composite_attributes = opt_attr_def(DictionaryAttr)
    decomposition = attr_def(SymbolRefAttr)
    version = opt_attr_def(IntegerAttr)
    results_ = var_result_def()

    @classmethod
    def parse(cls, parser: Parser) -> CompositeOp:
        pos = parser.pos
        name = parser.parse_str_literal()
        operands = parse_unresolved_list(parser)
        extra = {"name": StringAttr(name)}
        return common.parse_functional_tail(cls, parser, operands, pos, extra)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.composite_name.data)
        if self.operands:
            printer.print_string(" ")
            printer.print_list(self.operands, printer.print_operand)
        common.print_functional_tail(printer, self, ("name",))

    def verify_(self) -> None:
        if self.decomposition.nested_references.data:
            raise VerifyException("decomposition must be a flat symbol reference")


@irdl_op_definition
class OptimizationBarrierOp(IRDLOperation):
    """`stablehlo.optimization_barrier %a, %b : T, U`: returns its operands."""

    name = "stablehlo.optimization_barrier"
    operand = var_operand_def()
    result = var_result_def()
    traits = traits_def(Pure())

    @classmethod
    def parse(cls, parser: Parser) -> OptimizationBarrierOp:
        pos = parser.pos
        attrs = parse_op_attrs(parser)
        if parser.parse_optional_punctuation("(") is not None:
            parser.parse_punctuation(")")
            return cls.create(attributes=attrs)
        operands = parse_unresolved_list(parser)
        parser.parse_punctuation(":")
        types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
        values = resolve(parser, operands, types, pos)
        return cls.create(operands=values, result_types=types, attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_op_attrs(printer, self)
        if not self.operands:
            printer.print_string(" ()")
            return
        printer.print_string(" ")
        printer.print_list(self.operands, printer.print_operand)
        printer.print_string(" : ")
        printer.print_list(self.operand_types, printer.print_attribute)

    def verify_(self) -> None:
        if list(self.operand_types) != list(self.result_types):
            raise VerifyException("results must have the types of the operands")


STABLEHLO_OPS: list[type[IRDLOperation]] = [*TWIN_OPS, CompositeOp, OptimizationBarrierOp]

STABLEHLO = Dialect("stablehlo", [*STABLEHLO_OPS], STABLEHLO_ATTRIBUTES)
"""The stablehlo dialect."""

__all__ = [
    "MHLO_TWIN",
    "STABLEHLO",
    "TO_MHLO_ATTR",
    "TO_STABLEHLO_ATTR",
    "CompositeOp",
    "OptimizationBarrierOp",
    "map_attr",
    "twin_of",
]
