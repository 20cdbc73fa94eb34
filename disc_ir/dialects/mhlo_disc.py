"""The `mhlo_disc` dialect: BladeDISC's tensor-level extensions of mhlo.

Ops (as BladeDISC's `hlo_disc_ops.td` defines them; all print generically,
e.g. `%0 = "mhlo_disc.h2d"(%arg0) : (tensor<?xf32>) -> tensor<?xf32>`):

* `h2d`, `d2h`: copy a tensor host->device / device->host (same type in/out);
* `custom_call` (`call_target_name`, `backend_config`, `has_side_effect`) and
  `custom_call_v2` (`call_target_name`, `custom_attrs`, `has_side_effect`,
  `device`, `input_placements`, `output_placements`, `input_layouts`,
  `output_layouts`, `expected_input_layouts`, `expected_output_layouts`);
* quantization: `fake_quant`, `quantize`, `dequantize`,
  `quantized_dot_general` (`#mhlo.dot<...>`), `quantized_dynamic_conv`
  (`#mhlo.conv<...>`);
* TF sparse ops: `sparse_reshape`, `sparse_fill_empty_rows`,
  `sparse_segment_reduction`, `sparse_segment_reduction_with_empty_rows`;
* `where`, `args_mutation`.

Inherent attributes are attributes (not properties): BladeDISC's MLIR printed
them in the attribute dictionary; `<{...}>` is accepted on input too.
Attributes with a default value (`DefaultValuedAttr` in ODS) are optional and
read through the `get_*` accessors, which return the default when absent.
Verifiers check what BladeDISC's C++ verifiers check, with their messages.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BoolAttr,
    DictionaryAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects.disc_common import (
    BoolElementsAttr,
    HloFpTensor,
    HloI32OrI64Tensor,
    HloI32Tensor,
    HloI64Tensor,
    HloIntTensor,
    HloPredTensor,
    HloTensor,
    HloTensorOrIndexTensor,
    I64Attr,
    I64ElementsAttr,
    TypeConstraint,
    bool_attr,
    bool_value,
    check_ranks,
    elements_count,
    has_static_shape,
    int_value,
    rank,
    require_ranked,
    shape,
    str_value,
)
from disc_ir.dialects.hlo_attrs import (
    ConvDimensionNumbersAttr,
    DotDimensionNumbersAttr,
    shapes_compatible,
)
from disc_ir.ir.naming import register_result_namer

# ---------------------------------------------------------------------------
# Enumerations (stored as i64 integer attributes, as ODS' I64EnumAttr)
# ---------------------------------------------------------------------------

#: `round_mode` of the quantization ops.
ROUND_HALF_AWAY_FROM_ZERO = 0
ROUND_HALF_TO_EVEN = 1
ROUND_MODES = {
    ROUND_HALF_AWAY_FROM_ZERO: "RoundHalfAwayFromZero",
    ROUND_HALF_TO_EVEN: "RoundHalfToEven",
}

#: `reduction_mode` of the sparse segment reductions.
REDUCTION_MEAN = 0
REDUCTION_SUM = 1
REDUCTION_SQRTN = 2
REDUCTION_MODES = {REDUCTION_MEAN: "Mean", REDUCTION_SUM: "Sum", REDUCTION_SQRTN: "Sqrtn"}


def _i64_enum(cases: dict[int, str], what: str) -> TypeConstraint:
    names = ", ".join(f"{v} ({k})" for v, k in cases.items())
    return TypeConstraint(
        lambda a: isinstance(a, IntegerAttr) and a.value.data in cases,
        f"{what} whose value is one of {names}",
    )


RoundModeAttr = _i64_enum(ROUND_MODES, "round mode")
ReductionModeAttr = _i64_enum(REDUCTION_MODES, "reduction mode")


# ---------------------------------------------------------------------------
# Copies between host and device
# ---------------------------------------------------------------------------


class _CopyOp(IRDLOperation):
    operand = operand_def(HloTensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def __init__(
        self, operand: SSAValue | Operation, attributes: dict[str, Attribute] | None = None
    ):
        value = SSAValue.get(operand)
        super().__init__(operands=[value], result_types=[value.type], attributes=attributes)

    def verify_(self) -> None:
        verify_same_operands_and_result_type(self)


def verify_same_operands_and_result_type(op: Operation) -> None:
    """MLIR's SameOperandsAndResultType: one element type, compatible shapes."""
    types = [*op.operand_types, *op.result_types]
    first = types[0]
    for t in types[1:]:
        if t.get_element_type() != first.get_element_type() or not shapes_compatible(first, t):  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
            raise VerifyException("requires the same type for all operands and results")


@irdl_op_definition
class H2DOp(_CopyOp):
    """Copy `operand` from host to device (`mhlo_disc.h2d`)."""

    name = "mhlo_disc.h2d"


@irdl_op_definition
class D2HOp(_CopyOp):
    """Copy `operand` from device to host (`mhlo_disc.d2h`)."""

    name = "mhlo_disc.d2h"


# ---------------------------------------------------------------------------
# Custom calls
# ---------------------------------------------------------------------------


@irdl_op_definition
class CustomCallOp(IRDLOperation):
    """`mhlo_disc.custom_call`: call external code `call_target_name` (e.g.
    `topk`, `rng_uniform`) configured by `backend_config` (any attribute,
    default `""`)."""

    name = "mhlo_disc.custom_call"

    args = var_operand_def(HloTensorOrIndexTensor)
    call_target_name = attr_def(StringAttr)
    has_side_effect = opt_attr_def(BoolAttr)
    backend_config = opt_attr_def(AnyAttr())
    res = var_result_def(HloTensorOrIndexTensor)

    def __init__(
        self,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        call_target_name: str,
        backend_config: Attribute | str = "",
        has_side_effect: bool = False,
    ):
        if isinstance(backend_config, str):
            backend_config = StringAttr(backend_config)
        super().__init__(
            operands=[list(args)],
            result_types=[list(result_types)],
            attributes={
                "call_target_name": StringAttr(call_target_name),
                "backend_config": backend_config,
                "has_side_effect": bool_attr(has_side_effect),
            },
        )

    def get_has_side_effect(self) -> bool:
        """`has_side_effect`, false when absent."""
        return bool_value(self, "has_side_effect", False)

    def get_backend_config(self) -> Attribute:
        """`backend_config`, `""` when absent."""
        return self.attributes.get("backend_config", StringAttr(""))


_CUSTOM_CALL_V2_STRINGS = (
    "device",
    "input_placements",
    "output_placements",
    "input_layouts",
    "output_layouts",
    "expected_input_layouts",
    "expected_output_layouts",
)


def parse_layouts(layouts: str, ranks: Sequence[int | None]) -> list[str]:
    """Split a comma separated layout list; `*` at position i (i < len(ranks))
    becomes the default layout `ABC...` of rank `ranks[i]` (BladeDISC's
    `CustomCallV2Op::parseStringRef`). The empty string means no layouts."""
    if not layouts:
        return []
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out: list[str] = []
    for i, layout in enumerate(layouts.split(",")):
        if layout == "*" and i < len(ranks):
            r = ranks[i]
            if r is not None and r <= len(letters):
                layout = letters[:r]
        out.append(layout)
    return out


def verify_custom_call_v2_layouts(op: Operation) -> None:
    """BladeDISC's CustomCallV2Op verifier: input/output layout lists agree in
    length with their expected counterparts and, when given, with the number of
    operands/results; each layout has as many letters as its expected layout
    and as its value's rank (when ranked).

    Unlike BladeDISC, an empty layout string counts as no layouts (BladeDISC
    splits it into one empty layout, which only matches a single operand)."""

    def check(kind: str, values: Sequence[SSAValue], noun: str) -> None:
        ranks = [rank(v.type) for v in values]
        given = parse_layouts(str_value(op, f"{kind}_layouts"), ranks)
        expected = parse_layouts(str_value(op, f"expected_{kind}_layouts"), ranks)
        if len(given) != len(expected):
            raise VerifyException(
                f"mismatch number of layouts for {kind}_layouts and expected_{kind}_layouts"
            )
        if given and len(given) != len(values):
            raise VerifyException(f"mismatch number of {kind} layouts and number of {noun}")
        for a, b, r in zip(given, expected, ranks, strict=False):
            if len(a) != len(b) or (r is not None and r != len(a)):
                raise VerifyException(f"mismatch {kind} layout or expected {kind} layout setting")

    check("input", op.operands, "inputs")
    check("output", op.results, "outputs")


def custom_call_v2_attributes(
    call_target_name: str,
    custom_attrs: DictionaryAttr | dict[str, Attribute] | None = None,
    has_side_effect: bool = False,
    **strings: str,
) -> dict[str, Attribute]:
    """The full attribute dictionary of a custom_call_v2 (all defaults
    materialized, as BladeDISC's builders do); `strings` are the string
    attributes (`device`, `input_placements`, ...)."""
    unknown = set(strings) - set(_CUSTOM_CALL_V2_STRINGS)
    if unknown:
        raise ValueError(f"unknown custom_call_v2 attributes: {sorted(unknown)}")
    if not isinstance(custom_attrs, DictionaryAttr):
        custom_attrs = DictionaryAttr(dict(custom_attrs or {}))
    attrs: dict[str, Attribute] = {
        "call_target_name": StringAttr(call_target_name),
        "custom_attrs": custom_attrs,
        "has_side_effect": bool_attr(has_side_effect),
    }
    for name in _CUSTOM_CALL_V2_STRINGS:
        attrs[name] = StringAttr(strings.get(name, ""))
    return attrs


class CustomCallV2Base(IRDLOperation):
    """The attributes, builder, verifier and accessors shared by
    `mhlo_disc.custom_call_v2` and `lmhlo_disc.custom_call_v2`; subclasses
    declare `args` (operands) and `res` (results)."""

    call_target_name = attr_def(StringAttr)
    custom_attrs = attr_def(DictionaryAttr)
    has_side_effect = opt_attr_def(BoolAttr)
    device = opt_attr_def(StringAttr)
    input_placements = opt_attr_def(StringAttr)
    output_placements = opt_attr_def(StringAttr)
    input_layouts = opt_attr_def(StringAttr)
    output_layouts = opt_attr_def(StringAttr)
    expected_input_layouts = opt_attr_def(StringAttr)
    expected_output_layouts = opt_attr_def(StringAttr)

    def __init__(
        self,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        call_target_name: str,
        custom_attrs: DictionaryAttr | dict[str, Attribute] | None = None,
        has_side_effect: bool = False,
        **strings: str,
    ):
        super().__init__(
            operands=[list(args)],
            result_types=[list(result_types)],
            attributes=custom_call_v2_attributes(
                call_target_name, custom_attrs, has_side_effect, **strings
            ),
        )

    def verify_(self) -> None:
        verify_custom_call_v2_layouts(self)

    def get_has_side_effect(self) -> bool:
        """`has_side_effect`, false when absent."""
        return bool_value(self, "has_side_effect", False)

    def get_string(self, name: str) -> str:
        """One of the string attributes (`device`, `input_placements`, ...),
        `""` when absent."""
        return str_value(self, name)

    def get_custom_attrs(self) -> DictionaryAttr:
        """The `custom_attrs` dictionary."""
        attr = self.attributes.get("custom_attrs")
        return attr if isinstance(attr, DictionaryAttr) else DictionaryAttr({})


@irdl_op_definition
class CustomCallV2Op(CustomCallV2Base):
    """`mhlo_disc.custom_call_v2`: BladeDISC's second custom call, with
    per-operand placements (`h`ost, `d`evice, `s`calar-on-host, `x` any) and
    layouts (`AB`, `*` = default of the rank)."""

    name = "mhlo_disc.custom_call_v2"

    args = var_operand_def(HloTensorOrIndexTensor)
    res = var_result_def(HloTensorOrIndexTensor)


# ---------------------------------------------------------------------------
# Quantization
# ---------------------------------------------------------------------------


def verify_quant(op: Operation, input: SSAValue, scale: SSAValue, zero_point: SSAValue) -> None:
    """BladeDISC's QuantVerify: ranked types, result shaped as input, scale and
    zero_point of one rank, `len(axis)` equal to that rank."""
    result = op.results[0]
    if any(shape(v.type) is None for v in (input, scale, zero_point, result)):
        raise VerifyException("only support ranked input.")
    if shape(input.type) != shape(result.type):
        raise VerifyException("input and result have mismatch shape.")
    if rank(scale.type) != rank(zero_point.type):
        raise VerifyException("scale and zero_point have mismatch rank.")
    if elements_count(op.attributes.get("axis")) != rank(scale.type):
        raise VerifyException(
            "num of quantized axes (len(axis)) is not equal to the rank of scale tensor"
        )


class QuantizedComputeBase(IRDLOperation):
    """The quantization attributes (`use_symmetric`, `axis`, `use_dynamic`)
    and their accessors, shared by the quantize ops and the quantized dot/conv
    ops of both dialects."""

    use_symmetric = opt_attr_def(BoolAttr)
    axis = opt_attr_def(I64ElementsAttr)
    use_dynamic = opt_attr_def(BoolAttr)

    def get_use_symmetric(self) -> bool:
        """`use_symmetric`, true when absent."""
        return bool_value(self, "use_symmetric", True)

    def get_use_dynamic(self) -> bool:
        """`use_dynamic`, false when absent."""
        return bool_value(self, "use_dynamic", False)


class _QuantBase(QuantizedComputeBase):
    input = operand_def(HloFpTensor)
    scale = operand_def(HloFpTensor)
    zero_point = operand_def(HloI32Tensor)
    round_mode = opt_attr_def(RoundModeAttr)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_quant(self, self.input, self.scale, self.zero_point)

    def get_round_mode(self) -> int:
        """`round_mode`, RoundHalfAwayFromZero (0) when absent."""
        return int_value(self, "round_mode", ROUND_HALF_AWAY_FROM_ZERO)


@irdl_op_definition
class FakeQuantOp(_QuantBase):
    """`mhlo_disc.fake_quant`: quantize then dequantize a float tensor."""

    name = "mhlo_disc.fake_quant"

    use_signed = opt_attr_def(BoolAttr)
    num_bits = opt_attr_def(I64Attr)
    quant_min = opt_attr_def(I64Attr)
    quant_max = opt_attr_def(I64Attr)
    result = result_def(HloFpTensor)


@irdl_op_definition
class QuantizeOp(_QuantBase):
    """`mhlo_disc.quantize`: float tensor to integer tensor."""

    name = "mhlo_disc.quantize"

    quant_min = opt_attr_def(I64Attr)
    quant_max = opt_attr_def(I64Attr)
    result = result_def(HloIntTensor)


@irdl_op_definition
class DequantizeOp(_QuantBase):
    """`mhlo_disc.dequantize`: integer tensor to float tensor."""

    name = "mhlo_disc.dequantize"

    input = operand_def(HloIntTensor)
    result = result_def(HloFpTensor)


def verify_quantized_compute(
    op: Operation,
    input: SSAValue,
    weight: SSAValue,
    input_scale: SSAValue,
    input_zero_point: SSAValue,
    weight_scale: SSAValue,
    weight_zero_point: SSAValue,
    result_scale: SSAValue,
    result_zero_point: SSAValue,
    result: SSAValue,
) -> None:
    """BladeDISC's CommonVerifyForQuantizedComputeIntensiveOp (for the tensor
    and the buffer forms): input, weight and result of one rank; per-tensor
    input/result quantization; weight scale and zero point of one shape whose
    rank is `len(axis)`."""
    ri, rw, rr = rank(input.type), rank(weight.type), rank(result.type)
    if ri is None or rw is None or rr is None or ri != rw or ri != rr:
        raise VerifyException("input, weight and result should have the same rank.")
    if rank(input_scale.type) != 0 or rank(input_zero_point.type) != 0:
        raise VerifyException(
            "input_scale and input_zero_point only support per-tensor quantization"
        )
    if rank(result_scale.type) != 0 or rank(result_zero_point.type) != 0:
        raise VerifyException(
            "result_scale and result_zero_point only support per-tensor quantization"
        )
    ws, wz = shape(weight_scale.type), shape(weight_zero_point.type)
    if ws is None or wz is None or ws != wz:
        raise VerifyException("weight_scale and weight_zero_point have mismatch shape")
    if elements_count(op.attributes.get("axis")) != len(ws):
        raise VerifyException(
            "num of quantized axes (len(axis)) is not equal to the rank of weight_scale tensor"
        )


def verify_dot_dimension_numbers(
    dims: DotDimensionNumbersAttr, lhs_rank: int | None, rhs_rank: int | None
) -> None:
    """Dimension numbers index existing dimensions; batching and contracting
    lists of lhs and rhs pair up (mhlo's dot_general checks)."""
    if len(dims.lhs_batching) != len(dims.rhs_batching):
        raise VerifyException("lhs and rhs should have the same number of batching dimensions")
    if len(dims.lhs_contracting) != len(dims.rhs_contracting):
        raise VerifyException("lhs and rhs should have the same number of contracting dimensions")
    for side, r, lists in (
        ("lhs", lhs_rank, (dims.lhs_batching, dims.lhs_contracting)),
        ("rhs", rhs_rank, (dims.rhs_batching, dims.rhs_contracting)),
    ):
        seen: set[int] = set()
        for d in (*lists[0], *lists[1]):
            if d < 0 or (r is not None and d >= r):
                raise VerifyException(
                    f"{side}_batching_dimensions and {side}_contracting_dimensions "
                    f"value {d} is out of range [0, {r})"
                )
            if d in seen:
                raise VerifyException(
                    f"has duplicated dimension from {side}_batching_dimensions and "
                    f"{side}_contracting_dimensions: {d}"
                )
            seen.add(d)


@irdl_op_definition
class QuantizedDotGeneralOp(QuantizedComputeBase):
    """`mhlo_disc.quantized_dot_general`: dot_general of quantized inputs."""

    name = "mhlo_disc.quantized_dot_general"

    input = operand_def(HloIntTensor)
    weight = operand_def(HloIntTensor)
    input_scale = operand_def(HloFpTensor)
    input_zero_point = operand_def(HloI32Tensor)
    weight_scale = operand_def(HloFpTensor)
    weight_zero_point = operand_def(HloI32Tensor)
    result_scale = operand_def(HloFpTensor)
    result_zero_point = operand_def(HloI32Tensor)
    dot_dimension_numbers = attr_def(DotDimensionNumbersAttr)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        verify_quantized_compute(self, *self.operands, self.result)  # type: ignore[call-arg]  # the op defines exactly the eight operands it takes
        verify_dot_dimension_numbers(
            self.dot_dimension_numbers, rank(self.input.type), rank(self.weight.type)
        )


def verify_conv_attributes(op: Operation, input_rank: int | None) -> None:
    """Window attributes have one entry per spatial dimension, `padding` two;
    the group counts are positive."""
    dims = op.attributes.get("dimension_numbers")
    spatial = (
        len(dims.input_spatial_dimensions.data)
        if isinstance(dims, ConvDimensionNumbersAttr)
        else None
    )
    if spatial is not None and input_rank is not None and spatial + 2 != input_rank:
        raise VerifyException(
            f"expects convolution arguments to have {spatial + 2} dimensions. Got: {input_rank}"
        )
    for name in ("window_strides", "lhs_dilation", "rhs_dilation", "window_reversal"):
        attr = op.attributes.get(name)
        if attr is not None and spatial is not None and elements_count(attr) != spatial:
            raise VerifyException(
                f"expects {name} to have {spatial} elements (one per spatial "
                f"dimension), but got {elements_count(attr)}"
            )
    padding = op.attributes.get("padding")
    if padding is not None and spatial is not None and elements_count(padding) != 2 * spatial:
        raise VerifyException(
            f"expects padding to have {2 * spatial} elements, but got {elements_count(padding)}"
        )
    for name in ("feature_group_count", "batch_group_count"):
        if int_value(op, name, 1) <= 0:
            raise VerifyException(f"{name} must be positive, got {int_value(op, name, 1)}")


class QuantizedConvBase(QuantizedComputeBase):
    """The convolution attributes of `quantized_dynamic_conv` (both
    dialects): window, padding, dilations, reversal, dimension numbers and
    group counts, on top of the quantization attributes."""

    window_strides = opt_attr_def(I64ElementsAttr)
    padding = opt_attr_def(I64ElementsAttr)
    lhs_dilation = opt_attr_def(I64ElementsAttr)
    rhs_dilation = opt_attr_def(I64ElementsAttr)
    window_reversal = opt_attr_def(BoolElementsAttr)
    dimension_numbers = attr_def(ConvDimensionNumbersAttr)
    feature_group_count = attr_def(I64Attr)
    batch_group_count = attr_def(I64Attr)


@irdl_op_definition
class QuantizedDynamicConvOp(QuantizedConvBase):
    """`mhlo_disc.quantized_dynamic_conv`: convolution of quantized inputs with
    a runtime padding operand `d_padding`."""

    name = "mhlo_disc.quantized_dynamic_conv"

    input = operand_def(HloIntTensor)
    weight = operand_def(HloIntTensor)
    d_padding = operand_def(HloIntTensor)
    input_scale = operand_def(HloFpTensor)
    input_zero_point = operand_def(HloI32Tensor)
    weight_scale = operand_def(HloFpTensor)
    weight_zero_point = operand_def(HloI32Tensor)
    result_scale = operand_def(HloFpTensor)
    result_zero_point = operand_def(HloI32Tensor)
    result = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        o = self.operands
        verify_quantized_compute(self, o[0], o[1], *o[3:], self.result)  # type: ignore[call-arg]  # the op defines exactly the six operands after o[2]
        verify_conv_attributes(self, rank(self.input.type))


# ---------------------------------------------------------------------------
# TF sparse ops, where, args_mutation
# ---------------------------------------------------------------------------

_I64Tensor = HloI64Tensor


@irdl_op_definition
class SparseReshapeOp(IRDLOperation):
    """`mhlo_disc.sparse_reshape`: TF's SparseReshape."""

    name = "mhlo_disc.sparse_reshape"

    input_indices = operand_def(_I64Tensor)
    input_shape = operand_def(_I64Tensor)
    new_shape = operand_def(_I64Tensor)
    output_indices = result_def(_I64Tensor)
    output_shape = result_def(_I64Tensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        if any(
            rank(v.type) is None for v in (self.input_indices, self.input_shape, self.new_shape)
        ):
            raise VerifyException("only support ranked input.")
        if rank(self.input_indices.type) != 2 or rank(self.output_indices.type) != 2:
            raise VerifyException("Input/Output indices must be a matrix.")
        if (
            rank(self.input_shape.type) != 1
            or rank(self.new_shape.type) != 1
            or rank(self.output_shape.type) != 1
        ):
            raise VerifyException("Input/Output shape and new shape must be a vector.")


# Rank rules (field, rank, message) shared with lmhlo_disc's buffer forms.
FILL_EMPTY_ROWS_INPUT_RANKS = (
    ("indices", 2, "indices must be a matrix"),
    ("values", 1, "values must be a vector"),
    ("default_value", 0, "default_value must be a scalar"),
)
SEGMENT_REDUCTION_RANKS = (
    ("indices", 1, "indices should be a vector"),
    ("segment_ids", 1, "segment_ids should be a vector"),
)
SEGMENT_REDUCTION_WITH_EMPTY_ROWS_RANKS = (
    ("indices", 2, "indices should be a matrix"),
    ("unfilled_segment_ids", 1, "unfilled_segment_ids should be a vector"),
    ("data", 2, "input must be matrix since other rank is not supported"),
)


@irdl_op_definition
class SparseFillEmptyRowsOp(IRDLOperation):
    """`mhlo_disc.sparse_fill_empty_rows`: TF's SparseFillEmptyRows."""

    name = "mhlo_disc.sparse_fill_empty_rows"

    indices = operand_def(_I64Tensor)
    values = operand_def(HloTensor)
    dense_shape = operand_def(_I64Tensor)
    default_value = operand_def(HloTensor)
    output_indices = result_def(_I64Tensor)
    output_values = result_def(HloTensor)
    empty_row_indicator = result_def(HloPredTensor)
    reverse_index_map = result_def(_I64Tensor)
    output_elements = result_def(HloTensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        require_ranked(self.indices, self.values, self.default_value)
        check_ranks(self, *FILL_EMPTY_ROWS_INPUT_RANKS)
        if not has_static_shape(self.dense_shape.type):
            raise VerifyException(
                "DISC only support static-rank optimization, thus dense_shape "
                "should has static shape"
            )
        if rank(self.dense_shape.type) != 1:
            raise VerifyException("dense_shape must be a vector")
        require_ranked(*self.results)
        if rank(self.output_indices.type) != 2:
            raise VerifyException("output_indices must be a matrix")
        if any(rank(r.type) != 1 for r in self.results[1:]):
            raise VerifyException(
                "outputs 1-4 for mhlo_disc::sparse_fill_empty_rows must be a vector"
            )


@irdl_op_definition
class SparseSegmentReductionOp(IRDLOperation):
    """`mhlo_disc.sparse_segment_reduction`: TF's SparseSegmentMean/Sum
    (`reduction_mode`: 0 Mean, 1 Sum, 2 Sqrtn)."""

    name = "mhlo_disc.sparse_segment_reduction"

    data = operand_def(HloFpTensor)
    indices = operand_def(HloI32OrI64Tensor)
    segment_ids = operand_def(HloI32OrI64Tensor)
    reduction_mode = opt_attr_def(ReductionModeAttr)
    output = result_def(HloFpTensor)
    traits = traits_def(Pure())

    def get_reduction_mode(self) -> int:
        """`reduction_mode`, Mean (0) when absent."""
        return int_value(self, "reduction_mode", REDUCTION_MEAN)

    def verify_(self) -> None:
        require_ranked(self.data, self.indices, self.segment_ids, self.output)
        check_ranks(self, *SEGMENT_REDUCTION_RANKS)
        if has_static_shape(self.indices.type) and has_static_shape(self.segment_ids.type):
            if shape(self.indices.type) != shape(self.segment_ids.type):
                raise VerifyException("segment_ids and indices should have same size")
        if rank(self.data.type) < 1:  # type: ignore[operator]  # the operand constraint makes `data` ranked
            raise VerifyException("input must be at least rank 1")
        if rank(self.output.type) != rank(self.data.type):
            raise VerifyException("output must have the same rank as input")


@irdl_op_definition
class SparseSegmentReductionWithEmptyRowsOp(IRDLOperation):
    """`mhlo_disc.sparse_segment_reduction_with_empty_rows`:
    sparse_fill_empty_rows + sparse_segment_mean/sum, for inference."""

    name = "mhlo_disc.sparse_segment_reduction_with_empty_rows"

    data = operand_def(HloFpTensor)
    indices = operand_def(HloI32OrI64Tensor)
    unfilled_segment_ids = operand_def(HloI32OrI64Tensor)
    dense_shape = operand_def(_I64Tensor)
    reduction_mode = opt_attr_def(ReductionModeAttr)
    output = result_def(HloFpTensor)
    empty_row_indicator = result_def(HloPredTensor)
    traits = traits_def(Pure())

    def get_reduction_mode(self) -> int:
        """`reduction_mode`, Mean (0) when absent."""
        return int_value(self, "reduction_mode", REDUCTION_MEAN)

    def verify_(self) -> None:
        require_ranked(self.data, self.indices, self.unfilled_segment_ids, self.output)
        check_ranks(self, *SEGMENT_REDUCTION_WITH_EMPTY_ROWS_RANKS)
        if rank(self.output.type) != rank(self.data.type):
            raise VerifyException("output must have the same rank as input")
        require_ranked(self.empty_row_indicator)
        check_ranks(self, ("empty_row_indicator", 1, "empty_row_indicator must be a vector"))


@irdl_op_definition
class WhereOp(IRDLOperation):
    """`mhlo_disc.where`: TF's Where; `index` is [num_true, rank(input)] and
    `num_output_elements` holds num_true."""

    name = "mhlo_disc.where"

    input = operand_def(HloTensor)
    index = result_def(_I64Tensor)
    num_output_elements = result_def(_I64Tensor)
    traits = traits_def(Pure())

    def verify_(self) -> None:
        require_ranked(self.input, self.index)
        if rank(self.index.type) != 2:
            raise VerifyException("output must be a matrix")


@irdl_op_definition
class ArgsMutationOp(IRDLOperation):
    """`mhlo_disc.args_mutation`: marks that `input` (an argument) is mutated
    to hold `output`."""

    name = "mhlo_disc.args_mutation"

    input = operand_def(HloTensor)
    output = operand_def(HloTensor)


MHLO_DISC = Dialect(
    "mhlo_disc",
    [
        H2DOp,
        D2HOp,
        CustomCallOp,
        CustomCallV2Op,
        FakeQuantOp,
        QuantizeOp,
        DequantizeOp,
        QuantizedDotGeneralOp,
        QuantizedDynamicConvOp,
        SparseReshapeOp,
        SparseFillEmptyRowsOp,
        SparseSegmentReductionOp,
        SparseSegmentReductionWithEmptyRowsOp,
        WhereOp,
        ArgsMutationOp,
    ],
    [],
)


# BladeDISC's MLIR names the results of `mhlo_disc.where` after their ODS names
# (`%index, %num_output_elements = "mhlo_disc.where"(...)`).
register_result_namer("mhlo_disc.where", lambda op: ["index", "num_output_elements"])
