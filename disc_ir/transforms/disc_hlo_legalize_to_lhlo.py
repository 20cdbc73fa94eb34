"""`disc-hlo-legalize-to-lhlo`: BladeDISC's ops on tensors to their buffer forms.

Run before the upstream `hlo-legalize-to-lhlo` (BladeDISC's pipeline and
tests run `-disc-hlo-legalize-to-lhlo -hlo-legalize-to-lhlo`). Converted:

* `mhlo_disc.h2d`, `d2h`, `quantized_dot_general`, `quantized_dynamic_conv`,
  `sparse_reshape`, `sparse_fill_empty_rows`, `sparse_segment_reduction`,
  `sparse_segment_reduction_with_empty_rows`, `where` -> the `lmhlo_disc` op of
  the same name on the operand buffers plus one `memref.alloc` per result,
  sized by the op's shape function (`disc_ir.rewriting.shape_reification`);
* `mhlo_disc.custom_call` -> `lmhlo_disc.custom_call` (outputs allocated the
  same way, `operand_segment_sizes` = [#args, #results]);
* `mhlo_disc.custom_call_v2` -> `lmhlo_disc.custom_call_v2` whose results are
  memrefs (the callee allocates them);
* `mhlo.custom_call` -> `lmhlo_disc.custom_call_v2` with BladeDISC's defaults:
  device `x`, every input/output placed on device (`d`) with default layouts
  (`*`), `custom_attrs = {backend_config = ...}`; a tuple result is flattened
  and its `mhlo.get_tuple_element` users take the matching result;
* `mhlo_disc.args_mutation` -> `lmhlo_disc.args_mutation`;
* `mhlo.optimization_barrier` -> `lmhlo_disc.optimization_barrier`;
* `disc_shape.tie_shape %t, %d0, ...` -> `memref.reinterpret_cast` of the
  buffer to sizes `%d0, ...` (row-major strides), keeping the attributes.

Operands not yet buffers are materialized with `bufferization.to_memref`,
results used as tensors read the buffers through `bufferization.to_tensor`;
function signatures are left to `hlo-legalize-to-lhlo`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BoolAttr,
    DenseArrayBase,
    DictionaryAttr,
    IntegerAttr,
    MemRefType,
    StringAttr,
    TupleType,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.conversion.bufferization import (
    allocate_results,
    cleanup_materializations,
    is_tensor_type,
    memref_type_for,
    replace_with_buffers,
    to_buffer,
)
from disc_ir.dialects import lmhlo_disc
from disc_ir.ir import builders
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.shape_reification import DimValue, ShapeBuilder, op_attr
from disc_ir.rewriting.walker import PatternRewriteWalker

LMHLO_DISC_OPS: dict[str, type[Operation]] = {
    op.name: op for op in lmhlo_disc.LMHLO_DISC.operations
}

ALLOCATING_OPS = frozenset(
    {
        "mhlo_disc.h2d",
        "mhlo_disc.d2h",
        "mhlo_disc.quantized_dot_general",
        "mhlo_disc.quantized_dynamic_conv",
        "mhlo_disc.sparse_reshape",
        "mhlo_disc.sparse_fill_empty_rows",
        "mhlo_disc.sparse_segment_reduction",
        "mhlo_disc.sparse_segment_reduction_with_empty_rows",
        "mhlo_disc.where",
    }
)


def _convert_allocating(op: Operation, rewriter: PatternRewriter) -> None:
    """`mhlo_disc.X(args) -> results` => allocs + `lmhlo_disc.X(args, allocs)`."""
    buffers = [to_buffer(v, op, rewriter) for v in op.operands]
    outs = allocate_results(op, buffers, rewriter)
    if outs is None:
        return
    attributes = dict(op.attributes)
    if op.name == "mhlo_disc.custom_call":
        attributes["operand_segment_sizes"] = DenseArrayBase.from_list(
            i32, [len(buffers), len(outs)]
        )
        target = "lmhlo_disc.custom_call"
    else:
        target = "lmhlo_disc." + op.name.removeprefix("mhlo_disc.")
    new = LMHLO_DISC_OPS[target].create(operands=[*buffers, *outs], attributes=attributes)
    rewriter.insert(new, InsertPoint.before(op))
    replace_with_buffers(op, outs, rewriter)


def _convert_custom_call_v2(op: Operation, rewriter: PatternRewriter) -> None:
    buffers = [to_buffer(v, op, rewriter) for v in op.operands]
    new = lmhlo_disc.CustomCallV2Op.create(
        operands=buffers,
        result_types=[memref_type_for(r.type) for r in op.results],
        attributes=dict(op.attributes),
    )
    rewriter.insert(new, InsertPoint.before(op))
    replace_with_buffers(op, new.results, rewriter)


def _convert_mhlo_custom_call(op: Operation, rewriter: PatternRewriter) -> None:
    """`mhlo.custom_call` => `lmhlo_disc.custom_call_v2` (BladeDISC's defaults)."""
    tuple_result = len(op.results) == 1 and isinstance(op.results[0].type, TupleType)
    if tuple_result:
        result_types = list(op.results[0].type.types.data)  # type: ignore[attr-defined]  # a tuple-typed result (checked above)
    else:
        result_types = [r.type for r in op.results]
    if not all(is_tensor_type(t) for t in result_types):
        return
    n_in, n_out = len(op.operands), len(result_types)
    attributes: dict[str, Attribute] = dict(op.attributes)
    target = attributes.get("call_target_name")
    if isinstance(target, builtin.SymbolRefAttr):
        attributes["call_target_name"] = target.root_reference
    custom: dict[str, Attribute] = {}
    if "backend_config" in attributes:
        custom["backend_config"] = attributes["backend_config"]
    attributes.setdefault("has_side_effect", BoolAttr.from_bool(False))
    attributes |= {
        "device": StringAttr("x"),
        "custom_attrs": DictionaryAttr(custom),
        "input_placements": StringAttr(",".join(["d"] * n_in)),
        "output_placements": StringAttr(",".join(["d"] * n_out)),
        "input_layouts": StringAttr(",".join(["*"] * n_in)),
        "output_layouts": StringAttr(",".join(["*"] * n_out)),
        "expected_input_layouts": StringAttr(",".join(["*"] * n_in)),
        "expected_output_layouts": StringAttr(",".join(["*"] * n_out)),
    }
    buffers = [to_buffer(v, op, rewriter) for v in op.operands]
    new = lmhlo_disc.CustomCallV2Op.create(
        operands=buffers,
        result_types=[memref_type_for(t) for t in result_types],
        attributes=attributes,
    )
    rewriter.insert(new, InsertPoint.before(op))
    if not tuple_result:
        replace_with_buffers(op, new.results, rewriter)
        return
    for use in list(op.results[0].uses):
        user = use.operation
        if user.name != "mhlo.get_tuple_element":
            continue
        index_attr = op_attr(user, "index")
        if isinstance(index_attr, IntegerAttr) and index_attr.value.data < n_out:
            replace_with_buffers(user, [new.results[index_attr.value.data]], rewriter)
    if not op.results[0].uses:
        rewriter.erase(op)


def _convert_args_mutation(op: Operation, rewriter: PatternRewriter) -> None:
    buffers = [to_buffer(v, op, rewriter) for v in op.operands]
    new = lmhlo_disc.ArgsMutationOp.create(operands=buffers, attributes=dict(op.attributes))
    rewriter.insert(new, InsertPoint.before(op))
    rewriter.erase(op)


def _convert_optimization_barrier(op: Operation, rewriter: PatternRewriter) -> None:
    buffers = [to_buffer(v, op, rewriter) for v in op.operands]
    new = lmhlo_disc.OptimizationBarrierOp.create(
        operands=buffers,
        result_types=[memref_type_for(r.type) for r in op.results],
        attributes=dict(op.attributes),
    )
    rewriter.insert(new, InsertPoint.before(op))
    replace_with_buffers(op, new.results, rewriter)


def cast_memref_to(
    buffer: SSAValue, dims: list[SSAValue], anchor: Operation, rewriter: PatternRewriter
) -> Operation:
    """`memref.reinterpret_cast` of `buffer` to sizes `dims` with row-major
    strides (BladeDISC's CastMemRefTo), inserted before `anchor`."""
    mtype = buffer.type
    assert isinstance(mtype, MemRefType)
    shape = mtype.get_shape()
    builder = ShapeBuilder(anchor, rewriter)
    sizes: list[DimValue] = [
        s if s != DYNAMIC_INDEX else d for s, d in zip(shape, dims, strict=True)
    ]
    strides: list[DimValue] = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = builder.mul(strides[i + 1], sizes[i + 1])

    cast = builders.reinterpret_cast(buffer, [0], sizes, strides, mtype)
    rewriter.insert(cast, InsertPoint.before(anchor))
    return cast


def _convert_tie_shape(op: Operation, rewriter: PatternRewriter) -> None:
    value, *dims = op.operands
    buffer = to_buffer(value, op, rewriter)
    if not isinstance(buffer.type, MemRefType) or len(dims) != len(buffer.type.get_shape()):
        return
    cast = cast_memref_to(buffer, list(dims), op, rewriter)
    cast.attributes |= dict(op.attributes)
    replace_with_buffers(op, cast.results, rewriter)


_CONVERTERS = {
    "mhlo_disc.custom_call": _convert_allocating,
    "mhlo_disc.custom_call_v2": _convert_custom_call_v2,
    "mhlo.custom_call": _convert_mhlo_custom_call,
    "mhlo_disc.args_mutation": _convert_args_mutation,
    "mhlo.optimization_barrier": _convert_optimization_barrier,
    "disc_shape.tie_shape": _convert_tie_shape,
    **{name: _convert_allocating for name in ALLOCATING_OPS},
}


class LegalizeDiscHloToLhlo(RewritePattern):
    """One BladeDISC tensor op -> its buffer form."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        converter = _CONVERTERS.get(op.name)
        if converter is not None:
            converter(op, rewriter)


@register_pass
@dataclass(frozen=True)
class DiscHloLegalizeToLhloPass(ModulePass):
    """convert mhlo_disc ops to lmhlo_disc ops."""

    name = "disc-hlo-legalize-to-lhlo"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(LegalizeDiscHloToLhlo(), apply_recursively=False).rewrite_module(op)
        cleanup_materializations(op)
