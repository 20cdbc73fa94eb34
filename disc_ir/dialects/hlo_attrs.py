"""Attributes, type constraints and shape helpers shared by the HLO dialects.

The attributes here belong to the `mhlo` dialect (they print as `#mhlo...`)
and are registered by `disc_ir.dialects.mhlo.MHLO`; `lmhlo`, `mhlo_disc` and
`lmhlo_disc` ops use them too, so they live in this module rather than in
`mhlo.py`. Syntax follows BladeDISC's pinned mlir-hlo:

* struct-like attributes: `#mhlo.dot<lhs_batching_dimensions = [0], ...>`,
  `#mhlo.gather<...>`, `#mhlo.scatter<...>`, `#mhlo.channel_handle<...>`,
  `#mhlo.type_extensions<bounds = [?, 4]>`; fields may come in any order and
  print in mlir-hlo's order, zero / empty fields omitted;
* `#mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>` (compact, the printed
  form) and `#mhlo.conv<raw input_batch_dimension = 0, ...>` (parsed too);
* enums: `#mhlo<comparison_direction EQ>`, `#mhlo<comparison_type FLOAT>`,
  `#mhlo<precision DEFAULT>`, `#mhlo<fft_type FFT>`,
  `#mhlo<rng_distribution UNIFORM>`, `#mhlo<rng_algorithm DEFAULT>`, ...

The helpers at the end compare shapes the way MLIR's verifiers do: a dynamic
dimension is compatible with any size, and tensor encodings (BladeDISC's
`[@S0, @S1]` shape-constraint symbols) are ignored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ArrayAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
    TupleType,
    UnrankedMemRefType,
    UnrankedTensorType,
    i64,
)
from xdsl.dialects.utils.enum_attribute import EnumAttribute
from xdsl.ir import (
    Attribute,
    Operation,
    ParametrizedAttribute,
    SpacedOpaqueSyntaxAttribute,
)
from xdsl.irdl import AnyOf, BaseAttr, irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from disc_ir.ir.memo import IdentityMemo

# ---------------------------------------------------------------------------
# Enumerations: `#mhlo<mnemonic CASE>`
# ---------------------------------------------------------------------------


class ComparisonDirection(StrEnum):
    """Direction of `mhlo.compare`."""

    EQ = "EQ"
    NE = "NE"
    GE = "GE"
    GT = "GT"
    LE = "LE"
    LT = "LT"


class ComparisonType(StrEnum):
    """How `mhlo.compare` compares its elements."""

    NOTYPE = "NOTYPE"
    FLOAT = "FLOAT"
    TOTALORDER = "TOTALORDER"
    SIGNED = "SIGNED"
    UNSIGNED = "UNSIGNED"


class Precision(StrEnum):
    """Operand precision of dot / convolution (`precision_config`)."""

    DEFAULT = "DEFAULT"
    HIGH = "HIGH"
    HIGHEST = "HIGHEST"
    PACKED_NIBBLE = "PACKED_NIBBLE"


class FftType(StrEnum):
    """Kind of `mhlo.fft`."""

    FFT = "FFT"
    IFFT = "IFFT"
    RFFT = "RFFT"
    IRFFT = "IRFFT"


class RngDistribution(StrEnum):
    """Distribution of `mhlo.rng`."""

    UNIFORM = "UNIFORM"
    NORMAL = "NORMAL"


class RngAlgorithm(StrEnum):
    """Algorithm of `mhlo.rng_bit_generator`."""

    DEFAULT = "DEFAULT"
    THREE_FRY = "THREE_FRY"
    PHILOX = "PHILOX"


class TransposeKind(StrEnum):
    """Operand transposition of `mhlo.triangular_solve`."""

    TRANSPOSE_INVALID = "TRANSPOSE_INVALID"
    NO_TRANSPOSE = "NO_TRANSPOSE"
    TRANSPOSE = "TRANSPOSE"
    ADJOINT = "ADJOINT"


class FusionKind(StrEnum):
    """XLA fusion kind of `mhlo.fusion`."""

    kLoop = "kLoop"
    kInput = "kInput"
    kOutput = "kOutput"
    kCustom = "kCustom"


class CustomCallSchedule(StrEnum):
    """Scheduling hint of `mhlo.custom_call`."""

    NONE = "NONE"
    LATEST = "LATEST"
    EARLIEST = "EARLIEST"


class DomainKind(StrEnum):
    """Kind of `mhlo.domain`."""

    sharding = "sharding"


class DequantizeMode(StrEnum):
    """Mode of `mhlo.dequantize`."""

    MIN_COMBINED = "MIN_COMBINED"


@irdl_attr_definition
class ComparisonDirectionAttr(EnumAttribute[ComparisonDirection], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<comparison_direction EQ>`."""

    name = "mhlo.comparison_direction"


@irdl_attr_definition
class ComparisonTypeAttr(EnumAttribute[ComparisonType], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<comparison_type FLOAT>`."""

    name = "mhlo.comparison_type"


@irdl_attr_definition
class PrecisionAttr(EnumAttribute[Precision], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<precision DEFAULT>`."""

    name = "mhlo.precision"


@irdl_attr_definition
class FftTypeAttr(EnumAttribute[FftType], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<fft_type FFT>`."""

    name = "mhlo.fft_type"


@irdl_attr_definition
class RngDistributionAttr(EnumAttribute[RngDistribution], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<rng_distribution UNIFORM>`."""

    name = "mhlo.rng_distribution"


@irdl_attr_definition
class RngAlgorithmAttr(EnumAttribute[RngAlgorithm], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<rng_algorithm DEFAULT>`."""

    name = "mhlo.rng_algorithm"


@irdl_attr_definition
class TransposeAttr(EnumAttribute[TransposeKind], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<transpose NO_TRANSPOSE>`."""

    name = "mhlo.transpose"


@irdl_attr_definition
class FusionKindAttr(EnumAttribute[FusionKind], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<fusion_kind kLoop>`."""

    name = "mhlo.fusion_kind"


@irdl_attr_definition
class CustomCallScheduleAttr(EnumAttribute[CustomCallSchedule], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<custom_call_schedule NONE>`."""

    name = "mhlo.custom_call_schedule"


@irdl_attr_definition
class DomainKindAttr(EnumAttribute[DomainKind], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<kind sharding>`."""

    name = "mhlo.kind"


@irdl_attr_definition
class DequantizeModeAttr(EnumAttribute[DequantizeMode], SpacedOpaqueSyntaxAttribute):
    """`#mhlo<dequantize_mode MIN_COMBINED>`."""

    name = "mhlo.dequantize_mode"


# ---------------------------------------------------------------------------
# Struct-like attributes: `#mhlo.name<field = value, ...>`
# ---------------------------------------------------------------------------

# A field is either a list of dimensions (`[0, 1]`) or a single integer.
_DIMS = "dims"
_INT = "int"

DimsAttr = ArrayAttr[IntAttr]


def dims_attr(values: Iterable[int]) -> ArrayAttr[IntAttr]:
    """The parameter form of a list of dimensions."""
    return ArrayAttr(tuple(IntAttr(v) for v in values))


def _parse_dims(parser: AttrParser) -> list[int]:
    return parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parser.parse_integer)


def _parse_struct_fields(
    parser: AttrParser, fields: Sequence[tuple[str, str]], what: str
) -> dict[str, int | list[int]]:
    """Parse `field = value, ...` up to and including the closing `>`.

    Fields come in any order, each at most once; a trailing comma is allowed.
    """
    kinds = dict(fields)
    values: dict[str, int | list[int]] = {}
    while parser.parse_optional_punctuation(">") is None:
        pos = parser.pos
        key = parser.parse_optional_identifier()
        if key is None or key not in kinds:
            expected = ", ".join(f"`{name}`" for name, _ in fields)
            parser.raise_error(f"expected one of: {expected} in {what}", pos, parser.pos)
        if key in values:
            parser.raise_error(f"duplicated `{key}` entry", pos, parser.pos)
        parser.parse_punctuation("=")
        values[key] = _parse_dims(parser) if kinds[key] == _DIMS else parser.parse_integer()
        if parser.parse_optional_punctuation(",") is None:
            parser.parse_punctuation(">")
            break
    return values


def _print_struct_fields(
    printer: Printer, items: Sequence[tuple[str, int | Sequence[int]]]
) -> None:
    """Print `<f = v, ...>` omitting zero integers and empty lists, as mlir-hlo."""
    parts: list[str] = []
    for name, value in items:
        if isinstance(value, int):
            if value != 0:
                parts.append(f"{name} = {value}")
        elif len(value):
            parts.append(f"{name} = [{', '.join(str(v) for v in value)}]")
    printer.print_string("<" + ", ".join(parts) + ">")


class _StructAttr(ParametrizedAttribute):
    """Base of struct-like attributes whose parameters are ints / dim lists.

    Subclasses list their fields in `FIELDS` (printing order) and declare one
    parameter per field, `IntAttr` for integers and `ArrayAttr[IntAttr]` for
    dimension lists, in the same order.
    """

    FIELDS: ClassVar[tuple[tuple[str, str], ...]] = ()
    MNEMONIC: ClassVar[str] = ""

    @classmethod
    def from_fields(cls, **kwargs: int | Sequence[int]):
        """Build from python ints / int lists; missing fields are 0 / []."""
        params: list[Attribute] = []
        for name, kind in cls.FIELDS:
            value = kwargs.pop(name, [] if kind == _DIMS else 0)
            if kind == _DIMS:
                assert not isinstance(value, int)
                params.append(dims_attr(value))
            else:
                assert isinstance(value, int)
                params.append(IntAttr(value))
        if kwargs:
            raise TypeError(f"unknown fields for #{cls.name}: {sorted(kwargs)}")
        return cls.new(params)

    def field(self, name: str) -> int | tuple[int, ...]:
        """The python value of field `name`."""
        index = [n for n, _ in self.FIELDS].index(name)
        value = self.parameters[index]
        if isinstance(value, IntAttr):
            return value.data
        assert isinstance(value, ArrayAttr)
        return tuple(v.data for v in value.data)

    def field_items(self) -> list[tuple[str, int | tuple[int, ...]]]:
        return [(name, self.field(name)) for name, _ in self.FIELDS]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        values = _parse_struct_fields(parser, cls.FIELDS, f"#{cls.name}")
        params: list[Attribute] = []
        for name, kind in cls.FIELDS:
            if kind == _DIMS:
                v = values.get(name, [])
                assert isinstance(v, list)
                params.append(dims_attr(v))
            else:
                v = values.get(name, 0)
                assert isinstance(v, int)
                params.append(IntAttr(v))
        return params

    def print_parameters(self, printer: Printer) -> None:
        _print_struct_fields(printer, self.field_items())


@irdl_attr_definition
class DotDimensionNumbersAttr(_StructAttr):
    """`#mhlo.dot<lhs_batching_dimensions = [..], rhs_batching_dimensions = [..],
    lhs_contracting_dimensions = [..], rhs_contracting_dimensions = [..]>`."""

    name = "mhlo.dot"
    FIELDS = (
        ("lhs_batching_dimensions", _DIMS),
        ("rhs_batching_dimensions", _DIMS),
        ("lhs_contracting_dimensions", _DIMS),
        ("rhs_contracting_dimensions", _DIMS),
    )
    lhs_batching_dimensions: DimsAttr
    rhs_batching_dimensions: DimsAttr
    lhs_contracting_dimensions: DimsAttr
    rhs_contracting_dimensions: DimsAttr

    @property
    def lhs_batching(self) -> tuple[int, ...]:
        return ints(self.lhs_batching_dimensions)

    @property
    def rhs_batching(self) -> tuple[int, ...]:
        return ints(self.rhs_batching_dimensions)

    @property
    def lhs_contracting(self) -> tuple[int, ...]:
        return ints(self.lhs_contracting_dimensions)

    @property
    def rhs_contracting(self) -> tuple[int, ...]:
        return ints(self.rhs_contracting_dimensions)


@irdl_attr_definition
class GatherDimensionNumbersAttr(_StructAttr):
    """`#mhlo.gather<offset_dims = [..], collapsed_slice_dims = [..],
    start_index_map = [..], index_vector_dim = N>`."""

    name = "mhlo.gather"
    FIELDS = (
        ("offset_dims", _DIMS),
        ("collapsed_slice_dims", _DIMS),
        ("start_index_map", _DIMS),
        ("index_vector_dim", _INT),
    )
    offset_dims: DimsAttr
    collapsed_slice_dims: DimsAttr
    start_index_map: DimsAttr
    index_vector_dim: IntAttr


@irdl_attr_definition
class ScatterDimensionNumbersAttr(_StructAttr):
    """`#mhlo.scatter<update_window_dims = [..], inserted_window_dims = [..],
    scatter_dims_to_operand_dims = [..], index_vector_dim = N>`."""

    name = "mhlo.scatter"
    FIELDS = (
        ("update_window_dims", _DIMS),
        ("inserted_window_dims", _DIMS),
        ("scatter_dims_to_operand_dims", _DIMS),
        ("index_vector_dim", _INT),
    )
    update_window_dims: DimsAttr
    inserted_window_dims: DimsAttr
    scatter_dims_to_operand_dims: DimsAttr
    index_vector_dim: IntAttr


@irdl_attr_definition
class ChannelHandleAttr(_StructAttr):
    """`#mhlo.channel_handle<handle = 1, type = 2>`."""

    name = "mhlo.channel_handle"
    FIELDS = (("handle", _INT), ("type", _INT))
    handle: IntAttr
    type: IntAttr

    def print_parameters(self, printer: Printer) -> None:
        # mlir-hlo prints both fields, zero or not.
        printer.print_string(f"<handle = {self.handle.data}, type = {self.type.data}>")


@irdl_attr_definition
class TypeExtensionsAttr(ParametrizedAttribute):
    """`#mhlo.type_extensions<bounds = [?, 4]>`: bounds of dynamic dimensions
    (a tensor encoding)."""

    name = "mhlo.type_extensions"
    bounds: ArrayAttr[IntAttr]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        parser.parse_keyword("bounds")
        parser.parse_punctuation("=")

        def bound() -> int:
            if parser.parse_optional_punctuation("?") is not None:
                return DYNAMIC_INDEX
            return parser.parse_integer()

        values = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, bound)
        parser.parse_punctuation(">")
        return (dims_attr(values),)

    def print_parameters(self, printer: Printer) -> None:
        text = ", ".join("?" if b.data == DYNAMIC_INDEX else str(b.data) for b in self.bounds.data)
        printer.print_string(f"<bounds = [{text}]>")


# Letters of the compact convolution layout for the non-spatial dimensions.
_CONV_LETTERS = {
    "input": ("b", "f"),
    "kernel": ("i", "o"),
    "output": ("b", "f"),
}


@irdl_attr_definition
class ConvDimensionNumbersAttr(_StructAttr):
    """Convolution layout, `#mhlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>`.

    Also parses the `raw` form, `#mhlo.conv<raw input_batch_dimension = 0,
    ...>`, which prints compactly unless its fields do not make a layout (then
    it prints raw, so that it still round-trips).
    """

    name = "mhlo.conv"
    FIELDS = (
        ("input_batch_dimension", _INT),
        ("input_feature_dimension", _INT),
        ("input_spatial_dimensions", _DIMS),
        ("kernel_input_feature_dimension", _INT),
        ("kernel_output_feature_dimension", _INT),
        ("kernel_spatial_dimensions", _DIMS),
        ("output_batch_dimension", _INT),
        ("output_feature_dimension", _INT),
        ("output_spatial_dimensions", _DIMS),
    )
    input_batch_dimension: IntAttr
    input_feature_dimension: IntAttr
    input_spatial_dimensions: DimsAttr
    kernel_input_feature_dimension: IntAttr
    kernel_output_feature_dimension: IntAttr
    kernel_spatial_dimensions: DimsAttr
    output_batch_dimension: IntAttr
    output_feature_dimension: IntAttr
    output_spatial_dimensions: DimsAttr

    # -- compact form ----------------------------------------------------------
    @staticmethod
    def _parse_layout(parser: AttrParser, letters: tuple[str, str]) -> tuple[int, int, list[int]]:
        """Parse `[b, 0, 1, f]`: positions of the two letters and of each
        spatial dimension (in spatial order)."""
        found: dict[str, int] = {}
        spatial: dict[int, int] = {}
        index = 0

        def entry() -> None:
            nonlocal index
            pos = parser.pos
            if (value := parser.parse_optional_integer()) is not None:
                if value < 0:
                    parser.raise_error(f"Unexpected dimension {value}", pos, parser.pos)
                if value in spatial:
                    parser.raise_error(
                        f"Duplicate entries for spatial dimension {value}",
                        pos,
                        parser.pos,
                    )
                spatial[value] = index
            elif parser.parse_optional_punctuation("?") is None:
                word = parser.parse_identifier()
                if word not in letters or word in found:
                    parser.raise_error(f"Unexpected keyword {word}", pos, parser.pos)
                found[word] = index
            index += 1

        pos = parser.pos
        parser.parse_comma_separated_list(parser.Delimiter.SQUARE, entry)
        missing = [letter for letter in letters if letter not in found]
        if missing:
            parser.raise_error(
                f"Expected dimensions {', '.join(letters)} not specified",
                pos,
                parser.pos,
            )
        if sorted(spatial) != list(range(len(spatial))):
            parser.raise_error(
                f"Expected spatial dimensions 0..{len(spatial) - 1} not specified",
                pos,
                parser.pos,
            )
        return (
            found[letters[0]],
            found[letters[1]],
            [spatial[i] for i in range(len(spatial))],
        )

    @classmethod
    def parse_layouts(cls, parser: AttrParser) -> list[Attribute]:
        """Parse the compact form without angle brackets,
        `[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]`, into parameters (also used
        by mhlo.convolution's `dim_numbers = ...`)."""
        ib, if_, isp = cls._parse_layout(parser, _CONV_LETTERS["input"])
        parser.parse_characters("x", " between convolution layouts")
        ki, ko, ksp = cls._parse_layout(parser, _CONV_LETTERS["kernel"])
        parser.parse_punctuation("->")
        ob, of, osp = cls._parse_layout(parser, _CONV_LETTERS["output"])
        return [
            IntAttr(ib),
            IntAttr(if_),
            dims_attr(isp),
            IntAttr(ki),
            IntAttr(ko),
            dims_attr(ksp),
            IntAttr(ob),
            IntAttr(of),
            dims_attr(osp),
        ]

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        parser.parse_punctuation("<")
        if parser.parse_optional_keyword("raw") is not None:
            values = _parse_struct_fields(parser, cls.FIELDS, "#mhlo.conv")
            params: list[Attribute] = []
            for name, kind in cls.FIELDS:
                v = values.get(name, [] if kind == _DIMS else 0)
                params.append(dims_attr(v) if isinstance(v, list) else IntAttr(v))
            return params
        params = cls.parse_layouts(parser)
        parser.parse_punctuation(">")
        return params

    @staticmethod
    def _layout_text(spatial: Sequence[int], non_spatial: Sequence[tuple[int, str]]) -> str | None:
        positions = list(spatial) + [p for p, _ in non_spatial]
        # a position past any real rank (the compact form would list that many
        # slots) is left to the raw form, like a negative or duplicate one
        if any(p < 0 or p >= 1 << 16 for p in positions) or len(set(positions)) != len(positions):
            return None
        rank = max(positions, default=-1) + 1
        slots = ["?"] * rank
        for pos, letter in non_spatial:
            slots[pos] = letter
        for i, pos in enumerate(spatial):
            slots[pos] = str(i)
        return "[" + ", ".join(slots) + "]"

    def _ints(self, name: str) -> tuple[int, ...]:
        value = self.field(name)
        return (value,) if isinstance(value, int) else value

    def _int(self, name: str) -> int:
        value = self.field(name)
        assert isinstance(value, int)
        return value

    def layout_text(self) -> str | None:
        """The compact form without angle brackets, or None when the fields
        do not describe a layout (duplicate or negative positions)."""
        parts = [
            self._layout_text(
                self._ints(f"{side}_spatial_dimensions"),
                [(self._int(f"{side}_{a}"), la), (self._int(f"{side}_{b}"), lb)],
            )
            for side, (a, la), (b, lb) in (
                ("input", ("batch_dimension", "b"), ("feature_dimension", "f")),
                (
                    "kernel",
                    ("input_feature_dimension", "i"),
                    ("output_feature_dimension", "o"),
                ),
                ("output", ("batch_dimension", "b"), ("feature_dimension", "f")),
            )
        ]
        if any(p is None for p in parts):
            return None
        return f"{parts[0]}x{parts[1]}->{parts[2]}"

    def print_parameters(self, printer: Printer) -> None:
        text = self.layout_text()
        if text is not None:
            printer.print_string(f"<{text}>")
            return
        items = []
        for name, value in self.field_items():
            if isinstance(value, int):
                items.append(f"{name} = {value}")
            else:
                items.append(f"{name} = [{', '.join(str(v) for v in value)}]")
        printer.print_string("<raw " + ", ".join(items) + ">")


#: Every attribute the MHLO dialect registers from this module.
HLO_ATTRIBUTES: tuple[type[Attribute], ...] = (
    ComparisonDirectionAttr,
    ComparisonTypeAttr,
    PrecisionAttr,
    FftTypeAttr,
    RngDistributionAttr,
    RngAlgorithmAttr,
    TransposeAttr,
    FusionKindAttr,
    CustomCallScheduleAttr,
    DomainKindAttr,
    DequantizeModeAttr,
    DotDimensionNumbersAttr,
    GatherDimensionNumbersAttr,
    ScatterDimensionNumbersAttr,
    ConvDimensionNumbersAttr,
    ChannelHandleAttr,
    TypeExtensionsAttr,
)

# ---------------------------------------------------------------------------
# Type constraints
# ---------------------------------------------------------------------------

#: A (ranked or unranked) tensor, the value type of mhlo ops.
HloTensor = AnyOf((BaseAttr(TensorType), BaseAttr(UnrankedTensorType)))
#: A tensor or a tuple (mhlo.tuple, custom_call, while...).
HloTensorOrTuple = AnyOf((BaseAttr(TensorType), BaseAttr(UnrankedTensorType), BaseAttr(TupleType)))
#: A (ranked or unranked) memref, the buffer type of lmhlo ops.
LhloBuffer = AnyOf((BaseAttr(MemRefType), BaseAttr(UnrankedMemRefType)))

# ---------------------------------------------------------------------------
# Helpers on attributes
# ---------------------------------------------------------------------------


def ints(attr: Attribute | None) -> tuple[int, ...]:
    """The integers of a dims-like attribute.

    Accepts `dense<[..]> : tensor<Nxi64>` (the pinned mlir-hlo's form),
    `array<i64: ..>` (today's), `[1, 2]` (an ArrayAttr of IntegerAttr or
    IntAttr) and a single IntegerAttr; None gives (). Remembered per
    attribute object: analyses ask for one op's dims many times, and
    unpacking a dense attribute costs far more than the lookup.
    """
    if attr is None:
        return ()
    return _INTS(attr)


def _ints(attr: Attribute) -> tuple[int, ...]:
    if isinstance(attr, DenseIntOrFPElementsAttr):
        values = attr.get_values()
        shape = attr.get_shape()
        count = 1
        for d in shape:
            count *= d
        if len(values) == 1 and count != 1:
            values = values * count
        return tuple(int(v) for v in values)
    if isinstance(attr, DenseArrayBase):
        return tuple(int(v) for v in attr.get_values())
    if isinstance(attr, ArrayAttr):
        out: list[int] = []
        for v in attr.data:
            if isinstance(v, IntAttr):
                out.append(v.data)
            elif isinstance(v, IntegerAttr):
                out.append(v.value.data)
            else:
                raise VerifyException(f"expected an integer, got {v}")
        return tuple(out)
    if isinstance(attr, IntegerAttr):
        return (attr.value.data,)
    raise VerifyException(f"expected a list of integers, got {attr}")


_INTS: IdentityMemo[Attribute, tuple[int, ...]] = IdentityMemo(_ints)


def i64_elements(values: Sequence[int]) -> DenseIntOrFPElementsAttr:
    """`dense<[..]> : tensor<Nxi64>`, the pinned mlir-hlo's dims attribute."""
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), values)


def i64_elements_2d(rows: Sequence[Sequence[int]]) -> DenseIntOrFPElementsAttr:
    """`dense<[[..], ..]> : tensor<NxMxi64>` (padding / window attributes)."""
    flat = [v for row in rows for v in row]
    width = len(rows[0]) if rows else 0
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(rows), width]), flat)


# ---------------------------------------------------------------------------
# Helpers on types (encodings ignored)
# ---------------------------------------------------------------------------


def is_ranked(t: Attribute) -> bool:
    """Whether `t` is a ranked tensor or memref."""
    return isinstance(t, TensorType | MemRefType)


def shape_of(t: Attribute) -> tuple[int, ...] | None:
    """Shape of a ranked tensor/memref (DYNAMIC_INDEX for `?`), None if unranked."""
    if isinstance(t, TensorType | MemRefType):
        return tuple(t.get_shape())
    return None


def rank_of(t: Attribute) -> int | None:
    """Rank of a ranked tensor/memref, None if unranked."""
    shape = shape_of(t)
    return None if shape is None else len(shape)


def element_type_of(t: Attribute) -> Attribute:
    """Element type of a shaped type; any other type is its own element."""
    if isinstance(t, TensorType | UnrankedTensorType | MemRefType | UnrankedMemRefType):
        return t.get_element_type()
    return t


def dim_compatible(a: int, b: int) -> bool:
    """Two sizes are compatible when equal or when either is dynamic."""
    return a == b or a == DYNAMIC_INDEX or b == DYNAMIC_INDEX or a < 0 or b < 0


def shapes_compatible(a: Attribute, b: Attribute) -> bool:
    """Shapes compatible: unranked matches anything, else same rank and
    pairwise compatible dimensions. Encodings are ignored."""
    sa, sb = shape_of(a), shape_of(b)
    if sa is None or sb is None:
        return True
    return len(sa) == len(sb) and all(dim_compatible(x, y) for x, y in zip(sa, sb, strict=False))


def format_type(t: Attribute) -> str:
    """MLIR text of a type, for error messages."""
    from io import StringIO

    stream = StringIO()
    Printer(stream=stream).print_attribute(t)
    return stream.getvalue()


def verify_compatible_shapes(op: Operation, types: Sequence[Attribute]) -> None:
    """All of `types` have compatible shapes (MLIR's
    SameOperandsAndResultShape with dynamic dimensions allowed)."""
    ranked = [t for t in types if is_ranked(t)]
    for t in ranked[1:]:
        if not shapes_compatible(ranked[0], t):
            raise VerifyException(
                f"requires compatible shapes for all operands and "
                f"results, got {format_type(ranked[0])} and {format_type(t)}"
            )


def verify_same_element_types(op: Operation, types: Sequence[Attribute]) -> None:
    """All of `types` have the same element type."""
    elems = [element_type_of(t) for t in types]
    for e in elems[1:]:
        if e != elems[0]:
            raise VerifyException(
                f"requires the same element type for all operands "
                f"and results, got {format_type(elems[0])} and {format_type(e)}"
            )


def is_int_or_bool(t: Attribute) -> bool:
    """Integer (including i1) element type."""
    return isinstance(element_type_of(t), IntegerType)


def is_bool(t: Attribute) -> bool:
    """i1 element type."""
    e = element_type_of(t)
    return isinstance(e, IntegerType) and e.width.data == 1


def is_float_type(e: Attribute) -> bool:
    """A floating-point scalar type."""
    from xdsl.dialects.builtin import AnyFloat

    return isinstance(e, AnyFloat)


def is_complex(t: Attribute) -> bool:
    """Complex element type."""
    return isinstance(element_type_of(t), ComplexType)


def is_index(t: Attribute) -> bool:
    """index element type."""
    return isinstance(element_type_of(t), IndexType)


def check_dims_in_range(op: Operation, what: str, dims: Iterable[int], rank: int | None) -> None:
    """Every entry of `dims` (named `what`) lies in [0, rank) and is unique."""
    seen: set[int] = set()
    for d in dims:
        if d < 0 or (rank is not None and d >= rank):
            raise VerifyException(
                f"{what} {d} is out of range [0, {rank})"
                if rank is not None
                else f"{what} {d} is negative"
            )
        if d in seen:
            raise VerifyException(f"{what} has duplicate entry {d}")
        seen.add(d)
