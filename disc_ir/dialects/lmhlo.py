"""The `lmhlo` dialect: HLO ops on buffers (memrefs), after bufferization.

Each op takes its inputs, then the buffer(s) it writes, and has no results:
`"lmhlo.add"(%a, %b, %out) {disc.device = "gpu"} : (memref<..>, memref<..>,
memref<..>) -> ()`. As in BladeDISC's mlir-hlo, lmhlo has no custom assembly:
every op prints in the generic form. Inherent attributes are the mhlo ones
(`#mhlo.dot<..>`, `#mhlo.conv<..>`, `dense<..> : tensor<Nxi64>` dims...).

`lmhlo.fusion` groups ops into one kernel: a single-block region ended by
`lmhlo.terminator`, with BladeDISC's `disc.*` attributes (fusion name, type,
device) in its attribute dictionary. `lmhlo.reduce` carries a reducer region
of lmhlo ops on 0-d memrefs.

Elementwise ops are generated from the tables in `hlo_ops_common`, so they
match mhlo's op for op.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from xdsl.dialects.builtin import ArrayAttr, BoolAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Dialect, Operation
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    SameVariadicOperandSize,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    region_def,
    traits_def,
    var_operand_def,
    var_region_def,
)
from xdsl.traits import (
    EffectInstance,
    IsTerminator,
    MemoryEffectKind,
    RecursiveMemoryEffect,
)
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects import hlo_ops_common as common
from disc_ir.dialects.hlo_attrs import (
    ComparisonDirectionAttr,
    ComparisonTypeAttr,
    DotDimensionNumbersAttr,
    FftTypeAttr,
    GatherDimensionNumbersAttr,
    LhloBuffer,
    ScatterDimensionNumbersAttr,
    check_dims_in_range,
    element_type_of,
    format_type,
    ints,
    is_bool,
    rank_of,
    shape_of,
    verify_compatible_shapes,
    verify_same_element_types,
)
from disc_ir.dialects.hlo_ops_common import (
    BINARY_ELEMENTWISE,
    UNARY_ELEMENTWISE,
    ConvolutionAttributes,
    ElementwiseSpec,
    check_element_kind,
    expected_result_element,
    make_op_class,
)

_MODULE = __name__


def _err(op: Operation, msg: str) -> VerifyException:
    return VerifyException(msg)


# ---------------------------------------------------------------------------
# Elementwise ops
# ---------------------------------------------------------------------------


def _verify_elementwise(op: Operation, spec: ElementwiseSpec) -> None:
    *inputs, output = [o.type for o in op.operands]
    for i, t in enumerate(inputs):
        check_element_kind(op, f"operand #{i}", t, spec.kind)
    verify_compatible_shapes(op, [*inputs, output])
    verify_same_element_types(op, inputs)
    expected = expected_result_element(spec, element_type_of(inputs[0]))
    got = element_type_of(output)
    if expected is not None and got != expected:
        raise _err(
            op,
            f"output element type {format_type(got)} does not match the expected "
            f"{format_type(expected)}",
        )


class UnaryElementwiseOp(IRDLOperation):
    """Base of unary elementwise ops: `(input, output)`."""

    SPEC: ClassVar[ElementwiseSpec]
    input = operand_def(LhloBuffer)
    output = operand_def(LhloBuffer)

    def verify_(self) -> None:
        _verify_elementwise(self, self.SPEC)


class BinaryElementwiseOp(IRDLOperation):
    """Base of binary elementwise ops: `(lhs, rhs, out)`."""

    SPEC: ClassVar[ElementwiseSpec]
    lhs = operand_def(LhloBuffer)
    rhs = operand_def(LhloBuffer)
    out = operand_def(LhloBuffer)

    def verify_(self) -> None:
        _verify_elementwise(self, self.SPEC)


ELEMENTWISE_OPS: list[type[IRDLOperation]] = [
    make_op_class(
        UnaryElementwiseOp if spec in UNARY_ELEMENTWISE else BinaryElementwiseOp,
        f"lmhlo.{spec.mnemonic}",
        spec.class_name,
        f"Elementwise {spec.summary}, written to the last operand.",
        _MODULE,
        SPEC=spec,
    )
    for spec in (*UNARY_ELEMENTWISE, *BINARY_ELEMENTWISE)
]
common.export(_MODULE, ELEMENTWISE_OPS)


# ---------------------------------------------------------------------------
# Other ops, from a table: operands (inputs then outputs), attributes, checks
# ---------------------------------------------------------------------------

_Verifier = Callable[[Operation], None]


class BufferOpWithBodyEffects(RecursiveMemoryEffect):
    """The effects of an lmhlo op computing through a body region (`reduce`,
    `reduce_window`, `sort`, `scatter`...): it reads and writes its buffer
    operands (as lmhlo's `MemoryEffects<[MemRead, MemWrite]>` says), plus what
    its body does. A body of pure ops (a sort comparator) must not make the op
    look dead."""

    @classmethod
    def get_effects(cls, op: Operation) -> set[EffectInstance] | None:
        nested = RecursiveMemoryEffect.get_effects(op)
        if nested is None:
            return None
        own = {
            EffectInstance(kind, v)
            for v in op.operands
            for kind in (MemoryEffectKind.READ, MemoryEffectKind.WRITE)
        }
        return set(nested) | own


def _buffer_op(
    mnemonic: str,
    class_name: str,
    doc: str,
    operands: Sequence[str],
    attrs: dict[str, tuple[bool, Any]] | None = None,
    regions: Sequence[str] = (),
    verify: _Verifier | None = None,
    base: type[IRDLOperation] = IRDLOperation,
    options: tuple[Any, ...] = (),
) -> type[IRDLOperation]:
    """An lmhlo op with buffer operands `operands` (a leading `*` marks a
    variadic one), attributes name -> (required, constraint), regions, and
    an extra verifier."""
    ns: dict[str, Any] = {}
    for name in operands:
        if name.startswith("*"):
            ns[name[1:]] = var_operand_def(LhloBuffer)
        else:
            ns[name] = operand_def(LhloBuffer)
    for name, (required, constraint) in (attrs or {}).items():
        ns[name] = attr_def(constraint) if required else opt_attr_def(constraint)
    for name in regions:
        ns[name] = region_def()
    if regions:
        ns["traits"] = traits_def(BufferOpWithBodyEffects())
    if options:
        ns["irdl_options"] = options
    if verify is not None:
        ns["verify_"] = verify
    return make_op_class(base, f"lmhlo.{mnemonic}", class_name, doc, _MODULE, **ns)


_DIMS = (True, Attribute)  # a required dims attribute (dense i64 / array)
_OPT_DIMS = (False, Attribute)


def _same_elements(*names: str) -> _Verifier:
    def verify(op: Operation) -> None:
        verify_same_element_types(op, [getattr(op, n).type for n in names])

    return verify


def _verify_compare(op: Operation) -> None:
    verify_compatible_shapes(op, list(op.operand_types))
    verify_same_element_types(op, list(op.operand_types[:2]))
    if not is_bool(op.operand_types[2]):
        raise _err(op, "out must be a memref of i1")


def _verify_select(op: Operation) -> None:
    if not is_bool(op.operand_types[0]):
        raise _err(op, "pred must be a memref of i1")
    verify_same_element_types(op, list(op.operand_types[1:]))
    verify_compatible_shapes(op, list(op.operand_types[1:]))


def _verify_broadcast_in_dim(op: Operation) -> None:
    dims = ints(op.attributes["broadcast_dimensions"])
    in_rank, out_rank = rank_of(op.operand_types[0]), rank_of(op.operand_types[-1])
    if in_rank is not None and len(dims) != in_rank:
        raise _err(
            op,
            f"broadcast_dimensions size ({len(dims)}) does not match operand rank ({in_rank})",
        )
    check_dims_in_range(op, "broadcast_dimensions", dims, out_rank)
    verify_same_element_types(op, [op.operand_types[0], op.operand_types[-1]])


def _verify_transpose(op: Operation) -> None:
    perm = ints(op.attributes["permutation"])
    if sorted(perm) != list(range(len(perm))):
        raise _err(op, f"permutation {list(perm)} is not a permutation")
    rank = rank_of(op.operand_types[0])
    if rank is not None and rank != len(perm):
        raise _err(op, f"permutation size ({len(perm)}) does not match operand rank ({rank})")


def _verify_concatenate(op: Operation) -> None:
    attr = op.attributes["dimension"]
    assert isinstance(attr, IntegerAttr)
    rank = rank_of(op.operand_types[0])
    if rank is not None and not 0 <= attr.value.data < rank:
        raise _err(op, f"dimension {attr.value.data} is out of range [0, {rank})")
    verify_same_element_types(op, list(op.operand_types))


def _verify_dot_general(op: Operation) -> None:
    from disc_ir.dialects.mhlo import verify_dot_dimension_numbers

    dnums = op.attributes["dot_dimension_numbers"]
    assert isinstance(dnums, DotDimensionNumbersAttr)
    lhs, rhs, out = op.operand_types
    verify_dot_dimension_numbers(op, dnums, lhs, rhs, out)


def _verify_reduce(op: Operation) -> None:
    n = len(op.operands) // 3
    if n == 0:
        raise _err(op, "expects at least one input")
    inputs, inits, outs = (
        op.operand_types[:n],
        op.operand_types[n : 2 * n],
        op.operand_types[2 * n :],
    )
    dims = ints(op.attributes["dimensions"])
    check_dims_in_range(op, "dimensions", dims, rank_of(inputs[0]))
    for x, init in zip(inputs, inits, strict=False):
        if rank_of(init) not in (0, None):
            raise _err(op, f"init value must be a 0-d memref, got {format_type(init)}")
        if element_type_of(x) != element_type_of(init):
            raise _err(op, "input and init value element types differ")
    for x, out in zip(inputs, outs, strict=False):
        xr, r = rank_of(x), rank_of(out)
        if xr is not None and r is not None and r != xr - len(dims):
            raise _err(
                op,
                f"output rank ({r}) should be the input rank ({xr}) minus the "
                f"number of reduced dimensions ({len(dims)})",
            )
    body = op.regions[0]
    if not body.blocks:
        raise _err(op, "expects a non-empty reducer region")
    args = body.blocks[0].args
    if len(args) != 3 * n:
        raise _err(
            op,
            f"reducer region expects {3 * n} arguments (elements, accumulators, "
            f"results), got {len(args)}",
        )
    for arg in args:
        if rank_of(arg.type) not in (0, None):
            raise _err(
                op,
                f"reducer region arguments must be 0-d memrefs, got {format_type(arg.type)}",
            )


def _verify_shape_operand(index: int, what: str) -> _Verifier:
    """Operand #index is a 1-d buffer (of dimension sizes). Its length is not
    checked against a rank: lmhlo, like mlir-hlo's, accepts a mismatch that
    the code generator resolves."""

    def verify(op: Operation) -> None:
        t = op.operand_types[index]
        shape = shape_of(t)
        if shape is not None and len(shape) != 1:
            raise _err(op, f"{what} must be a 1-d memref, got {format_type(t)}")

    return verify


def _all(*verifiers: _Verifier) -> _Verifier:
    def verify(op: Operation) -> None:
        for v in verifiers:
            v(op)

    return verify


def _verify_dynamic_broadcast_in_dim(op: Operation) -> None:
    _verify_broadcast_in_dim(op)
    _verify_shape_operand(1, "output_dimensions")(op)


def _verify_fusion(op: Operation) -> None:
    region = op.regions[0]
    if len(region.blocks) != 1:
        raise _err(op, "expects a single-block region")
    last = region.blocks[0].last_op
    if last is None or not last.has_trait(IsTerminator):
        raise _err(op, "region must end with lmhlo.terminator")


_CONV = (True, Attribute)

OTHER_OPS: list[type[IRDLOperation]] = [
    _buffer_op(
        "constant",
        "ConstantOp",
        "Write the constant `value` into `output`.",
        ["output"],
        {"value": (True, Attribute)},
    ),
    _buffer_op(
        "iota",
        "IotaOp",
        "Write 0, 1, 2, ... along `iota_dimension`.",
        ["output"],
        {"iota_dimension": (True, IntegerAttr)},
    ),
    _buffer_op(
        "dynamic_iota",
        "DynamicIotaOp",
        "iota of the shape given by a 1-d buffer.",
        ["shape", "output"],
        {"iota_dimension": (True, IntegerAttr)},
        verify=_verify_shape_operand(0, "shape"),
    ),
    _buffer_op(
        "bitcast_convert",
        "BitcastConvertOp",
        "Reinterpret element bits as another type.",
        ["input", "output"],
    ),
    _buffer_op(
        "compare",
        "CompareOp",
        "Elementwise comparison into an i1 buffer.",
        ["lhs", "rhs", "out"],
        {
            "comparison_direction": (True, ComparisonDirectionAttr),
            "compare_type": (False, ComparisonTypeAttr),
        },
        verify=_verify_compare,
    ),
    _buffer_op(
        "select",
        "SelectOp",
        "pred ? on_true : on_false, elementwise.",
        ["pred", "on_true", "on_false", "output"],
        verify=_verify_select,
    ),
    _buffer_op(
        "clamp",
        "ClampOp",
        "min(max(operand, min), max).",
        ["min", "operand", "max", "output"],
        verify=_same_elements("min", "operand", "max", "output"),
    ),
    _buffer_op(
        "copy",
        "CopyOp",
        "Copy `operand` into `output`.",
        ["operand", "output"],
        verify=_same_elements("operand", "output"),
    ),
    _buffer_op(
        "reshape",
        "ReshapeOp",
        "Static reshape.",
        ["operand", "output"],
        verify=_same_elements("operand", "output"),
    ),
    _buffer_op(
        "dynamic_reshape",
        "DynamicReshapeOp",
        "Reshape to the shape held by a 1-d buffer.",
        ["operand", "shape", "output"],
        verify=_all(
            _same_elements("operand", "output"),
            _verify_shape_operand(1, "shape"),
        ),
    ),
    _buffer_op(
        "broadcast",
        "BroadcastOp",
        "Prepend `broadcast_sizes` dimensions.",
        ["operand", "output"],
        {"broadcast_sizes": _DIMS},
    ),
    _buffer_op(
        "broadcast_in_dim",
        "BroadcastInDimOp",
        "Broadcast operand dim i to output dim broadcast_dimensions[i].",
        ["operand", "output"],
        {"broadcast_dimensions": _DIMS},
        verify=_verify_broadcast_in_dim,
    ),
    _buffer_op(
        "dynamic_broadcast_in_dim",
        "DynamicBroadcastInDimOp",
        "broadcast_in_dim to the shape held by a 1-d buffer.",
        ["operand", "output_dimensions", "output"],
        {
            "broadcast_dimensions": _DIMS,
            "known_expanding_dimensions": _OPT_DIMS,
            "known_nonexpanding_dimensions": _OPT_DIMS,
        },
        verify=_verify_dynamic_broadcast_in_dim,
    ),
    _buffer_op(
        "transpose",
        "TransposeOp",
        "Permute dimensions.",
        ["operand", "output"],
        {"permutation": _DIMS},
        verify=_verify_transpose,
    ),
    _buffer_op(
        "reverse",
        "ReverseOp",
        "Reverse along `dimensions`.",
        ["operand", "output"],
        {"dimensions": _DIMS},
    ),
    _buffer_op(
        "slice",
        "SliceOp",
        "Static strided slice.",
        ["operand", "output"],
        {"start_indices": _DIMS, "limit_indices": _DIMS, "strides": _DIMS},
    ),
    _buffer_op(
        "dynamic_slice",
        "DynamicSliceOp",
        "Slice of static sizes at start indices held in 0-d buffers.",
        ["operand", "*start_indices", "output"],
        {"slice_sizes": _DIMS},
    ),
    _buffer_op(
        "dynamic_update_slice",
        "DynamicUpdateSliceOp",
        "The operand with `update` written at start indices held in 0-d buffers "
        "(clamped so the update fits).",
        ["operand", "update", "*start_indices", "output"],
    ),
    _buffer_op(
        "real_dynamic_slice",
        "RealDynamicSliceOp",
        "Slice with start/limit/strides held in 1-d buffers.",
        ["operand", "start_indices", "limit_indices", "strides", "output"],
        verify=_all(
            _same_elements("operand", "output"),
            _verify_shape_operand(1, "start_indices"),
            _verify_shape_operand(2, "limit_indices"),
            _verify_shape_operand(3, "strides"),
        ),
    ),
    _buffer_op(
        "concatenate",
        "ConcatenateOp",
        "Concatenate along `dimension`.",
        ["*val", "output"],
        {"dimension": (True, IntegerAttr)},
        verify=_verify_concatenate,
    ),
    _buffer_op(
        "pad",
        "PadOp",
        "Pad with static paddings.",
        ["operand", "padding_value", "output"],
        {
            "edge_padding_low": _DIMS,
            "edge_padding_high": _DIMS,
            "interior_padding": _DIMS,
        },
        verify=_same_elements("operand", "padding_value", "output"),
    ),
    _buffer_op(
        "dynamic_pad",
        "DynamicPadOp",
        "Pad with paddings held in 1-d buffers.",
        [
            "operand",
            "padding_value",
            "edge_padding_low",
            "edge_padding_high",
            "interior_padding",
            "output",
        ],
        verify=_all(
            _same_elements("operand", "padding_value", "output"),
            _verify_shape_operand(2, "edge_padding_low"),
            _verify_shape_operand(3, "edge_padding_high"),
            _verify_shape_operand(4, "interior_padding"),
        ),
    ),
    _buffer_op(
        "dot",
        "DotOp",
        "Dot product (rank 1/2 operands).",
        ["lhs", "rhs", "output"],
        {
            "dot_dimension_numbers": (False, DotDimensionNumbersAttr),
            "precision_config": (False, ArrayAttr),
        },
    ),
    _buffer_op(
        "dot_general",
        "DotGeneralOp",
        "General dot product.",
        ["lhs", "rhs", "output"],
        {
            "dot_dimension_numbers": (True, DotDimensionNumbersAttr),
            "precision_config": (False, ArrayAttr),
        },
        verify=_verify_dot_general,
    ),
    _buffer_op(
        "convolution",
        "ConvolutionOp",
        "Convolution.",
        ["lhs", "rhs", "output"],
        base=ConvolutionAttributes,
    ),
    _buffer_op(
        "dynamic_conv",
        "DynamicConvOp",
        "Convolution with padding held in the `d_padding` buffer.",
        ["input", "filter", "padding", "output"],
        base=ConvolutionAttributes,
    ),
    _buffer_op(
        "gather",
        "GatherOp",
        "XLA gather with static slice sizes.",
        ["operand", "start_indices", "output"],
        {
            "dimension_numbers": (True, GatherDimensionNumbersAttr),
            "slice_sizes": _DIMS,
            "indices_are_sorted": (False, BoolAttr),
        },
    ),
    _buffer_op(
        "dynamic_gather",
        "DynamicGatherOp",
        "gather with slice sizes held in a 1-d buffer.",
        ["operand", "start_indices", "slice_sizes", "output"],
        {
            "dimension_numbers": (True, GatherDimensionNumbersAttr),
            "indices_are_sorted": (False, BoolAttr),
        },
    ),
    _buffer_op(
        "scatter",
        "ScatterOp",
        "XLA scatter with an update region.",
        ["operand", "scatter_indices", "updates", "output"],
        {
            "scatter_dimension_numbers": (True, ScatterDimensionNumbersAttr),
            "indices_are_sorted": (False, BoolAttr),
            "unique_indices": (False, BoolAttr),
        },
        regions=["update_computation"],
    ),
    _buffer_op(
        "reduce",
        "ReduceOp",
        "Reduce inputs over `dimensions` into `out` with a region of lmhlo "
        "ops on 0-d buffers (element, accumulator, result).",
        ["*inputs", "*init_values", "*out"],
        {"dimensions": _DIMS},
        regions=["body"],
        verify=_verify_reduce,
        options=(SameVariadicOperandSize(),),
    ),
    _buffer_op(
        "reduce_window",
        "ReduceWindowOp",
        "Windowed reduction.",
        ["*inputs", "*init_values", "*out"],
        {
            "window_dimensions": _DIMS,
            "window_strides": _OPT_DIMS,
            "base_dilations": _OPT_DIMS,
            "window_dilations": _OPT_DIMS,
            "padding": _OPT_DIMS,
        },
        regions=["body"],
        options=(SameVariadicOperandSize(),),
    ),
    _buffer_op(
        "sort",
        "SortOp",
        "Sort along `dimension` with the comparator region.",
        ["*inputs", "*output"],
        {"dimension": (False, IntegerAttr), "is_stable": (False, BoolAttr)},
        regions=["comparator"],
        options=(SameVariadicOperandSize(),),
    ),
    _buffer_op(
        "fft",
        "FftOp",
        "FFT.",
        ["operand", "output"],
        {"fft_type": (True, FftTypeAttr), "fft_length": _DIMS},
    ),
    _buffer_op(
        "custom_call",
        "CustomCallOp",
        "Call external code on argument and output buffers.",
        ["*args", "*output"],
        {
            "call_target_name": (True, StringAttr),
            "has_side_effect": (False, BoolAttr),
            "backend_config": (False, Attribute),
            "api_version": (False, IntegerAttr),
        },
        regions=[],
        options=(AttrSizedOperandSegments(),),
    ),
]
common.export(_MODULE, OTHER_OPS)


# ---------------------------------------------------------------------------
# Region ops
# ---------------------------------------------------------------------------


@irdl_op_definition
class TerminatorOp(IRDLOperation):
    """Ends the regions of lmhlo.fusion (and other lmhlo region ops)."""

    name = "lmhlo.terminator"
    operands_ = var_operand_def()
    traits = traits_def(IsTerminator())


@irdl_op_definition
class FusionOp(IRDLOperation):
    """A group of lmhlo ops emitted as one kernel. Its single-block region
    ends with `lmhlo.terminator`; BladeDISC's `disc.fusion.name`,
    `disc.fusion_type`, `disc.device`... live in the attribute dictionary."""

    name = "lmhlo.fusion"
    backend_config = opt_attr_def(Attribute)
    region = region_def()
    traits = traits_def(RecursiveMemoryEffect())

    def verify_(self) -> None:
        _verify_fusion(self)


@irdl_op_definition
class WhileOp(IRDLOperation):
    """Loop: `cond` writes cond_val, `body` runs while it holds."""

    name = "lmhlo.while"
    cond_val = var_operand_def(LhloBuffer)
    trip_count = opt_attr_def(IntegerAttr)
    cond = region_def()
    body = region_def()
    traits = traits_def(RecursiveMemoryEffect())


@irdl_op_definition
class CaseOp(IRDLOperation):
    """Run the branch selected by `index`."""

    name = "lmhlo.case"
    index = operand_def(LhloBuffer)
    branches = var_region_def()
    traits = traits_def(RecursiveMemoryEffect())


LMHLO_OPS: list[type[IRDLOperation]] = [
    *ELEMENTWISE_OPS,
    *OTHER_OPS,
    TerminatorOp,
    FusionOp,
    WhileOp,
    CaseOp,
]

LMHLO = Dialect("lmhlo", [*LMHLO_OPS], [])
"""The lmhlo dialect (its attributes are mhlo's, see hlo_attrs)."""
