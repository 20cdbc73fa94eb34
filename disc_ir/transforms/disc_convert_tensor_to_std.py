"""`disc-convert-tensor-to-std`: unroll `tensor.generate` of a static 1-d extent tensor.

`%t = tensor.generate { ^bb0(%i: index): ... tensor.yield %v : index } :
tensor<3xindex>` becomes the body cloned once per element with `%i` bound to
`arith.constant 0, 1, 2 : index` and `tensor.from_elements` of the yielded
values: shape tensors are then built from scalars only, which later
bufferization turns into stores. A `tensor.generate` with a dynamic or
non-1-d result, or a body of more than one block, is an error (as in
BladeDISC); `tensor.extract`, `tensor.dim` and `tensor.from_elements` stay.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.ir.builders import index_constant
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.walker import PatternRewriteWalker


class UnrollGenerate(RewritePattern):
    """`tensor.generate` (static 1-d) -> cloned bodies + `tensor.from_elements`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "tensor.generate":
            return
        result_type = op.results[0].type
        if not isinstance(result_type, TensorType) or DYNAMIC_INDEX in result_type.get_shape():
            raise DiagnosticException(
                "'tensor.generate' op: only static shape ranked tensor result type is supported"
            )
        if len(result_type.get_shape()) != 1:
            raise DiagnosticException(
                "'tensor.generate' op: only rank-1 result tensor is supported"
            )
        if len(op.regions[0].blocks) != 1:
            raise DiagnosticException(
                "'tensor.generate' op: only single block region inside generate op is supported"
            )
        block = op.regions[0].blocks[0]
        terminator = block.last_op
        assert terminator is not None
        point = InsertPoint.before(op)
        values: list[SSAValue] = []
        for i in range(result_type.get_shape()[0]):
            index = index_constant(i)
            rewriter.insert(index, point)
            mapping: dict[SSAValue, SSAValue] = {block.args[0]: index.results[0]}
            for inner in block.ops:
                if inner is terminator:
                    break
                rewriter.insert(inner.clone(value_mapper=mapping), point)
            yielded = terminator.operands[0]
            values.append(mapping.get(yielded, yielded))
        elements = xtensor.FromElementsOp.build(operands=[values], result_types=[result_type])
        rewriter.replace(op, elements)


@register_pass
@dataclass(frozen=True)
class DiscConvertTensorToStandardPass(ModulePass):
    """Pass to convert tensor ops to std dialect"""

    name = "disc-convert-tensor-to-std"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(UnrollGenerate(), apply_recursively=False).rewrite_module(op)
