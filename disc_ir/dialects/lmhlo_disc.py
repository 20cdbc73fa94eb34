"""The `lmhlo_disc` dialect: BladeDISC's buffer-level extensions of lmhlo.

Ops (as BladeDISC's `lhlo_disc_ops.td` defines them; all print generically,
e.g. `"lmhlo_disc.h2d"(%0, %1) : (memref<?xf32>, memref<?xf32>) -> ()`).
Like lmhlo, most ops write their results into output buffer operands:

* `h2d`, `d2h`: copy `input` into `output` across host and device;
* `custom_call` (`args` then `output` buffers, `operand_segment_sizes`;
  `call_target_name`, `backend_config`, `has_side_effect`,
  `target_arg_mapping`) and `custom_call_v2` (buffers in, buffers returned as
  results; the attributes of `mhlo_disc.custom_call_v2`);
* `printf` (`format`), `source_code` (`code`, `call_target_name`),
  `concatenate` (`dimension`), `args_mutation`, `optimization_barrier`;
* quantization: `quantized_dot_general`, `quantized_dynamic_conv`;
* TF sparse ops and `where`, as in `mhlo_disc`, with output buffers.

Inherent attributes are attributes (BladeDISC printed them in the attribute
dictionary); operand segments are the `operand_segment_sizes` attribute
(today's `operandSegmentSizes` is accepted and renamed). Verifiers follow
BladeDISC's (custom_call's target_arg_mapping checks) and, where BladeDISC has
none for the buffer form, apply the checks of the `mhlo_disc` tensor form.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

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
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import MemoryReadEffect, MemoryWriteEffect
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects.disc_common import (
    I64Attr,
    LegacyOperandSegments,
    LhloBuffer,
    LhloBufferOrIndexBuffer,
    LhloDimensionValue,
    LhloFpBuffer,
    LhloI32Buffer,
    LhloIntBuffer,
    LhloPredBuffer,
    OperandSegmentsMixin,
    bool_attr,
    bool_value,
    check_ranks,
    has_static_shape,
    int_value,
    rank,
    require_ranked,
)
from disc_ir.dialects.hlo_attrs import (
    DotDimensionNumbersAttr,
    format_type,
    ints,
    shapes_compatible,
)
from disc_ir.dialects.mhlo_disc import (
    FILL_EMPTY_ROWS_INPUT_RANKS,
    REDUCTION_MEAN,
    SEGMENT_REDUCTION_RANKS,
    SEGMENT_REDUCTION_WITH_EMPTY_ROWS_RANKS,
    CustomCallV2Base,
    QuantizedComputeBase,
    QuantizedConvBase,
    ReductionModeAttr,
    verify_conv_attributes,
    verify_dot_dimension_numbers,
    verify_quantized_compute,
)


def _read_write():
    return traits_def(MemoryReadEffect(), MemoryWriteEffect())


# ---------------------------------------------------------------------------
# Copies between host and device
# ---------------------------------------------------------------------------


class _CopyOp(IRDLOperation):
    input = operand_def(LhloBuffer)
    output = operand_def(LhloBuffer)
    traits = _read_write()

    def __init__(
        self,
        input: SSAValue | Operation,
        output: SSAValue | Operation,
        attributes: dict[str, Attribute] | None = None,
    ):
        super().__init__(operands=[input, output], attributes=attributes)

    def verify_(self) -> None:
        it, ot = self.input.type, self.output.type
        if it.get_element_type() != ot.get_element_type():  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
            raise VerifyException(
                f"input and output must have the same element type, got "
                f"{format_type(it)} and {format_type(ot)}"
            )
        if not shapes_compatible(it, ot):
            raise VerifyException(
                f"input and output must have compatible shapes, got "
                f"{format_type(it)} and {format_type(ot)}"
            )


@irdl_op_definition
class H2DOp(_CopyOp):
    """`lmhlo_disc.h2d`: copy host buffer `input` into device buffer `output`."""

    name = "lmhlo_disc.h2d"


@irdl_op_definition
class D2HOp(_CopyOp):
    """`lmhlo_disc.d2h`: copy device buffer `input` into host buffer `output`."""

    name = "lmhlo_disc.d2h"


# ---------------------------------------------------------------------------
# Custom calls
# ---------------------------------------------------------------------------


def _verify_target_arg_mapping(op: CustomCallOp) -> None:
    """BladeDISC's check of `target_arg_mapping` (an
    `#lmhlo.custom_call_target_arg_mapping<...>`): the mappings of args and
    results have one entry per operand of the kind, unique, in range."""
    mapping = op.attributes.get("target_arg_mapping")
    if mapping is None:
        return
    fields = ("num_args", "num_results", "args_to_target_args", "results_to_target_results")
    if not all(hasattr(mapping, f) for f in fields):
        raise VerifyException(
            f"target_arg_mapping must be a custom call target arg mapping, got "
            f"{format_type(mapping)}"
        )

    def count(value: object) -> int:
        if isinstance(value, int):
            return value
        (n,) = ints(value)  # type: ignore[arg-type]  # an attribute here (ints of it)
        return n

    for kind, target_num, entries, op_num in (
        (
            "args",
            count(mapping.num_args),  # type: ignore[attr-defined]  # the op's constraint: a custom-call target-arg-mapping attribute
            ints(mapping.args_to_target_args),  # type: ignore[attr-defined]  # the op's constraint: a custom-call target-arg-mapping attribute
            len(op.args),
        ),
        (
            "results",
            count(mapping.num_results),  # type: ignore[attr-defined]  # the op's constraint: a custom-call target-arg-mapping attribute
            ints(mapping.results_to_target_results),  # type: ignore[attr-defined]  # the op's constraint: a custom-call target-arg-mapping attribute
            len(op.output),
        ),
    ):
        if target_num < op_num:
            raise VerifyException(
                f"number of target {kind} ({target_num}) cannot be less than the "
                f"number of {kind}({op_num}) for the operation"
            )
        if len(entries) != op_num:
            raise VerifyException(
                f"number of entries in the mapping for {kind} ({len(entries)}) should "
                f"match the number of {kind} for the operation ({op_num})"
            )
        seen: set[int] = set()
        for e in entries:
            if e in seen:
                raise VerifyException(
                    f"entry {e} cannot appear more than once in the mapping for {kind}"
                )
            if e < 0 or e >= target_num:
                raise VerifyException(
                    f"entries in mapping for {kind} must be >= 0 and less than "
                    f"target's number of {kind} ({target_num})"
                )
            seen.add(e)


@irdl_op_definition
class CustomCallOp(OperandSegmentsMixin):
    """`lmhlo_disc.custom_call`: external code reading `args` and writing
    `output` buffers (e.g. `topk`); `backend_config` defaults to `{}`."""

    name = "lmhlo_disc.custom_call"

    args = var_operand_def(LhloBufferOrIndexBuffer)
    output = var_operand_def(LhloBufferOrIndexBuffer)
    call_target_name = attr_def(StringAttr)
    has_side_effect = opt_attr_def(BoolAttr)
    backend_config = opt_attr_def(AnyAttr())
    target_arg_mapping = opt_attr_def(AnyAttr())
    irdl_options = (LegacyOperandSegments(),)
    traits = _read_write()

    def __init__(
        self,
        args: Sequence[SSAValue | Operation],
        outputs: Sequence[SSAValue | Operation],
        call_target_name: str,
        backend_config: Attribute | str = "",
        has_side_effect: bool = False,
        attributes: dict[str, Attribute] | None = None,
    ):
        if isinstance(backend_config, str):
            backend_config = StringAttr(backend_config)
        super().__init__(
            operands=[list(args), list(outputs)],
            attributes={
                "call_target_name": StringAttr(call_target_name),
                "backend_config": backend_config,
                "has_side_effect": bool_attr(has_side_effect),
                **(attributes or {}),
            },
        )

    def get_has_side_effect(self) -> bool:
        """`has_side_effect`, false when absent."""
        return bool_value(self, "has_side_effect", False)

    def get_backend_config(self) -> Attribute:
        """`backend_config`, `{}` when absent."""
        return self.attributes.get("backend_config", DictionaryAttr({}))

    def verify_(self) -> None:
        _verify_target_arg_mapping(self)


@irdl_op_definition
class CustomCallV2Op(CustomCallV2Base):
    """`lmhlo_disc.custom_call_v2`: the buffer form of
    `mhlo_disc.custom_call_v2`; inputs are operands, outputs are results
    (buffers allocated by the callee)."""

    name = "lmhlo_disc.custom_call_v2"

    args = var_operand_def(LhloBufferOrIndexBuffer)
    res = var_result_def(LhloBufferOrIndexBuffer)
    traits = _read_write()


# ---------------------------------------------------------------------------
# Misc ops
# ---------------------------------------------------------------------------


@irdl_op_definition
class PrintfOp(IRDLOperation):
    """`lmhlo_disc.printf`: print index / integer values with `format`."""

    name = "lmhlo_disc.printf"

    args = var_operand_def(LhloDimensionValue)
    format = attr_def(StringAttr)
    traits = _read_write()


@irdl_op_definition
class SourceCodeOp(OperandSegmentsMixin):
    """`lmhlo_disc.source_code`: `code` (a kernel's source) applied to `args`,
    writing `output`, in the order of the source's parameters."""

    name = "lmhlo_disc.source_code"

    args = var_operand_def(LhloBufferOrIndexBuffer)
    output = var_operand_def(LhloBufferOrIndexBuffer)
    code = attr_def(StringAttr)
    call_target_name = attr_def(StringAttr)
    irdl_options = (LegacyOperandSegments(),)
    traits = _read_write()

    def __init__(
        self,
        args: Sequence[SSAValue | Operation],
        outputs: Sequence[SSAValue | Operation],
        code: str,
        call_target_name: str,
    ):
        super().__init__(
            operands=[list(args), list(outputs)],
            attributes={
                "code": StringAttr(code),
                "call_target_name": StringAttr(call_target_name),
            },
        )


@irdl_op_definition
class ConcatenateOp(IRDLOperation):
    """`lmhlo_disc.concatenate`: concatenate `val` along `dimension` into
    `output` (static shapes), `input_ptrs` a scratch buffer of pointers."""

    name = "lmhlo_disc.concatenate"

    val = var_operand_def(LhloBuffer)
    input_ptrs = operand_def(LhloBuffer)
    output = operand_def(LhloBuffer)
    dimension = attr_def(I64Attr)
    traits = _read_write()

    def verify_(self) -> None:
        r = rank(self.output.type)
        d = cast(IntegerAttr, self.dimension).value.data
        if r is not None and not 0 <= d < r:
            raise VerifyException(f"dimension {d} is out of range [0, {r})")
        for v in self.val:
            if rank(v.type) is not None and r is not None and rank(v.type) != r:
                raise VerifyException(
                    f"operands must have the rank of the output ({r}), got {format_type(v.type)}"
                )


@irdl_op_definition
class ArgsMutationOp(IRDLOperation):
    """`lmhlo_disc.args_mutation`: `input` (an argument) is mutated to hold
    `output`."""

    name = "lmhlo_disc.args_mutation"

    input = operand_def(LhloBuffer)
    output = operand_def(LhloBuffer)
    traits = _read_write()


@irdl_op_definition
class OptimizationBarrierOp(IRDLOperation):
    """`lmhlo_disc.optimization_barrier`: identity that keeps ops from moving
    across it; results equal `args`."""

    name = "lmhlo_disc.optimization_barrier"

    args = var_operand_def(LhloBufferOrIndexBuffer)
    res = var_result_def(LhloBufferOrIndexBuffer)
    traits = _read_write()


# ---------------------------------------------------------------------------
# Quantization
# ---------------------------------------------------------------------------


@irdl_op_definition
class QuantizedDotGeneralOp(QuantizedComputeBase):
    """`lmhlo_disc.quantized_dot_general`: buffer form of
    `mhlo_disc.quantized_dot_general`; the last operand is the result."""

    name = "lmhlo_disc.quantized_dot_general"

    input = operand_def(LhloIntBuffer)
    weight = operand_def(LhloIntBuffer)
    input_scale = operand_def(LhloFpBuffer)
    input_zero_point = operand_def(LhloI32Buffer)
    weight_scale = operand_def(LhloFpBuffer)
    weight_zero_point = operand_def(LhloI32Buffer)
    result_scale = operand_def(LhloFpBuffer)
    result_zero_point = operand_def(LhloI32Buffer)
    result = operand_def(LhloIntBuffer)
    dot_dimension_numbers = attr_def(DotDimensionNumbersAttr)
    traits = _read_write()

    def verify_(self) -> None:
        verify_quantized_compute(self, *self.operands)
        verify_dot_dimension_numbers(
            self.dot_dimension_numbers, rank(self.input.type), rank(self.weight.type)
        )


@irdl_op_definition
class QuantizedDynamicConvOp(QuantizedConvBase):
    """`lmhlo_disc.quantized_dynamic_conv`: buffer form of
    `mhlo_disc.quantized_dynamic_conv`; the last operand is the result."""

    name = "lmhlo_disc.quantized_dynamic_conv"

    input = operand_def(LhloIntBuffer)
    weight = operand_def(LhloIntBuffer)
    d_padding = operand_def(LhloIntBuffer)
    input_scale = operand_def(LhloFpBuffer)
    input_zero_point = operand_def(LhloI32Buffer)
    weight_scale = operand_def(LhloFpBuffer)
    weight_zero_point = operand_def(LhloI32Buffer)
    result_scale = operand_def(LhloFpBuffer)
    result_zero_point = operand_def(LhloI32Buffer)
    result = operand_def(LhloIntBuffer)
    traits = _read_write()

    def verify_(self) -> None:
        o = self.operands
        verify_quantized_compute(self, o[0], o[1], *o[3:])
        verify_conv_attributes(self, rank(self.input.type))


# ---------------------------------------------------------------------------
# TF sparse ops and where
# ---------------------------------------------------------------------------


@irdl_op_definition
class SparseReshapeOp(IRDLOperation):
    """`lmhlo_disc.sparse_reshape`: TF's SparseReshape into output buffers."""

    name = "lmhlo_disc.sparse_reshape"

    input_indices = operand_def(LhloIntBuffer)
    input_shape = operand_def(LhloIntBuffer)
    new_shape = operand_def(LhloIntBuffer)
    output_indices = operand_def(LhloIntBuffer)
    output_shape = operand_def(LhloIntBuffer)
    traits = _read_write()

    def verify_(self) -> None:
        require_ranked(*self.operands)
        if rank(self.input_indices.type) != 2 or rank(self.output_indices.type) != 2:
            raise VerifyException("Input/Output indices must be a matrix.")
        if any(rank(v.type) != 1 for v in (self.input_shape, self.new_shape, self.output_shape)):
            raise VerifyException("Input/Output shape and new shape must be a vector.")


@irdl_op_definition
class SparseFillEmptyRowsOp(IRDLOperation):
    """`lmhlo_disc.sparse_fill_empty_rows`: TF's SparseFillEmptyRows into
    output buffers."""

    name = "lmhlo_disc.sparse_fill_empty_rows"

    indices = operand_def(LhloIntBuffer)
    values = operand_def(LhloBuffer)
    dense_shape = operand_def(LhloIntBuffer)
    default_value = operand_def(LhloBuffer)
    output_indices = operand_def(LhloIntBuffer)
    output_values = operand_def(LhloBuffer)
    empty_row_indicator = operand_def(LhloPredBuffer)
    reverse_index_map = operand_def(LhloIntBuffer)
    output_elements = operand_def(LhloIntBuffer)
    traits = _read_write()

    def verify_(self) -> None:
        require_ranked(*self.operands)
        check_ranks(self, *FILL_EMPTY_ROWS_INPUT_RANKS)
        if not has_static_shape(self.dense_shape.type) or rank(self.dense_shape.type) != 1:
            raise VerifyException("dense_shape must be a vector of static shape")
        if rank(self.output_indices.type) != 2:
            raise VerifyException("output_indices must be a matrix")
        if any(rank(v.type) != 1 for v in self.operands[5:]):
            raise VerifyException(
                "outputs 1-4 for lmhlo_disc::sparse_fill_empty_rows must be a vector"
            )


@irdl_op_definition
class SparseSegmentReductionOp(IRDLOperation):
    """`lmhlo_disc.sparse_segment_reduction`: TF's SparseSegmentMean/Sum into
    `output` (`reduction_mode`: 0 Mean, 1 Sum, 2 Sqrtn)."""

    name = "lmhlo_disc.sparse_segment_reduction"

    data = operand_def(LhloFpBuffer)
    indices = operand_def(LhloIntBuffer)
    segment_ids = operand_def(LhloIntBuffer)
    output = operand_def(LhloFpBuffer)
    reduction_mode = opt_attr_def(ReductionModeAttr)
    traits = _read_write()

    def get_reduction_mode(self) -> int:
        """`reduction_mode`, Mean (0) when absent."""
        return int_value(self, "reduction_mode", REDUCTION_MEAN)

    def verify_(self) -> None:
        require_ranked(*self.operands)
        check_ranks(self, *SEGMENT_REDUCTION_RANKS)
        if rank(self.output.type) != rank(self.data.type):
            raise VerifyException("output must have the same rank as input")


@irdl_op_definition
class SparseSegmentReductionWithEmptyRowsOp(IRDLOperation):
    """`lmhlo_disc.sparse_segment_reduction_with_empty_rows`: fused
    sparse_fill_empty_rows + sparse segment reduction into output buffers."""

    name = "lmhlo_disc.sparse_segment_reduction_with_empty_rows"

    data = operand_def(LhloFpBuffer)
    indices = operand_def(LhloIntBuffer)
    unfilled_segment_ids = operand_def(LhloIntBuffer)
    dense_shape = operand_def(LhloIntBuffer)
    output = operand_def(LhloFpBuffer)
    empty_row_indicator = operand_def(LhloPredBuffer)
    reduction_mode = opt_attr_def(ReductionModeAttr)
    traits = _read_write()

    def get_reduction_mode(self) -> int:
        """`reduction_mode`, Mean (0) when absent."""
        return int_value(self, "reduction_mode", REDUCTION_MEAN)

    def verify_(self) -> None:
        require_ranked(*self.operands)
        check_ranks(self, *SEGMENT_REDUCTION_WITH_EMPTY_ROWS_RANKS)
        if rank(self.output.type) != rank(self.data.type):
            raise VerifyException("output must have the same rank as input")
        check_ranks(self, ("empty_row_indicator", 1, "empty_row_indicator must be a vector"))


@irdl_op_definition
class WhereOp(IRDLOperation):
    """`lmhlo_disc.where`: TF's Where into `index` ([num_true, rank]) and
    `num_output_elements`."""

    name = "lmhlo_disc.where"

    input = operand_def(LhloBuffer)
    index = operand_def(LhloIntBuffer)
    num_output_elements = operand_def(LhloIntBuffer)
    traits = _read_write()

    def verify_(self) -> None:
        r = rank(self.index.type)
        if r is not None and r != 2:
            raise VerifyException("output must be a matrix")


LMHLO_DISC = Dialect(
    "lmhlo_disc",
    [
        H2DOp,
        D2HOp,
        CustomCallOp,
        CustomCallV2Op,
        PrintfOp,
        SourceCodeOp,
        ConcatenateOp,
        ArgsMutationOp,
        OptimizationBarrierOp,
        QuantizedDotGeneralOp,
        QuantizedDynamicConvOp,
        SparseReshapeOp,
        SparseFillEmptyRowsOp,
        SparseSegmentReductionOp,
        SparseSegmentReductionWithEmptyRowsOp,
        WhereOp,
    ],
    [],
)
