"""`hlo-legalize-to-lhlo`: mlir-hlo's conversion of mhlo ops on tensors to lmhlo ops on buffers.

Each mhlo op with an lmhlo counterpart becomes that op writing into buffers
allocated before it: `%r = mhlo.abs %x : tensor<?x?xf32>` becomes

    %c0 = arith.constant 0 : index
    %d0 = memref.dim %x, %c0 : memref<?x?xf32>
    ...
    %r = memref.alloc(%d0, %d1) : memref<?x?xf32>
    "lmhlo.abs"(%x, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> ()

Dynamic sizes come from the shape functions of
`disc_ir.rewriting.shape_reification` (MLIR's `reifyReturnTypeShapes`);
attributes are kept. `mhlo.dot` gets explicit `dot_dimension_numbers`;
`mhlo.reduce` / `mhlo.reduce_window` bodies are converted too (0-d buffer
arguments, one extra output argument per result, results written with
`lmhlo.copy`, or directly when the value is computed into a fresh buffer,
then `lmhlo.terminator`); `mhlo.sort` and `mhlo.scatter` keep their region.

Function signatures, `func.return` and `func.call` switch to memrefs; values
still used as tensors (by tensor/shape ops, or by ops without an lmhlo
counterpart such as `mhlo.while` or `mhlo.custom_call`, which the
`disc-hlo-legalize-to-lhlo` pass handles) read the buffers through
`bufferization.to_tensor`, and `bufferization.to_memref` feeds tensors that
are not converted to buffer users. The casts are removed where both sides
end up as buffers; `shape.shape_of` and `tensor.dim` of a converted value read
the buffer.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.conversion.bufferization import (
    ConvertFuncBoundaries,
    allocate_results,
    cleanup_materializations,
    convert_block_args,
    is_tensor_type,
    memref_type_for,
    nested_in_region_op,
    replace_with_buffers,
    to_buffer,
)
from disc_ir.dialects import lmhlo
from disc_ir.dialects.hlo_attrs import DotDimensionNumbersAttr, rank_of
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.walker import PatternRewriteWalker

LMHLO_OPS: dict[str, type[Operation]] = {op.name: op for op in lmhlo.LMHLO.operations}

# mhlo ops with an lmhlo namesake that this pass does not convert: control flow
# with tensor regions, custom calls (see disc-hlo-legalize-to-lhlo), terminators.
_NOT_CONVERTED = frozenset(
    {"mhlo.while", "mhlo.case", "mhlo.if", "mhlo.custom_call", "mhlo.fusion", "mhlo.return"}
)
_REGION_CONVERTED = frozenset({"mhlo.reduce", "mhlo.reduce_window"})
_REGION_KEPT = frozenset({"mhlo.sort", "mhlo.scatter"})


def lmhlo_op_for(name: str) -> type[Operation] | None:
    """The lmhlo op class converting mhlo op `name`, if this pass converts it."""
    if not name.startswith("mhlo.") or name in _NOT_CONVERTED:
        return None
    return LMHLO_OPS.get("lmhlo." + name.removeprefix("mhlo."))


def convert_hlo_op(op: Operation, rewriter: PatternRewriter) -> bool:
    """Rewrite mhlo `op` to its lmhlo form; False (IR untouched) if it cannot."""
    cls = lmhlo_op_for(op.name)
    if cls is None:
        return False
    if any(not is_tensor_type(r.type) for r in op.results):
        return False
    if op.name == "mhlo.scatter" and len(op.results) != 1:
        return False
    buffers = [to_buffer(v, op, rewriter) for v in op.operands]
    outs = allocate_results(op, buffers, rewriter)
    if outs is None:
        _drop_unused_casts(buffers, rewriter)
        return False
    attributes = dict(op.attributes)
    if op.name == "mhlo.dot" and "dot_dimension_numbers" not in attributes:
        lhs_rank = rank_of(op.operands[0].type) or 1
        attributes["dot_dimension_numbers"] = DotDimensionNumbersAttr.from_fields(
            lhs_contracting_dimensions=[lhs_rank - 1], rhs_contracting_dimensions=[0]
        )
    regions: list[Region] = []
    if op.name in _REGION_CONVERTED:
        regions = [_convert_reducer(op, op.regions[0], rewriter)]
    elif op.name in _REGION_KEPT:
        regions = [op.detach_region(r) for r in list(op.regions)]
    new = cls.create(operands=[*buffers, *outs], attributes=attributes, regions=regions)
    rewriter.insert(new, InsertPoint.before(op))
    replace_with_buffers(op, outs, rewriter)
    return True


def _drop_unused_casts(values: list[SSAValue], rewriter: PatternRewriter) -> None:
    for v in values:
        owner = v.owner
        if isinstance(owner, Operation) and owner.name == "bufferization.to_memref":
            if not v.uses:
                rewriter.erase(owner)


def _convert_reducer(op: Operation, region: Region, rewriter: PatternRewriter) -> Region:
    """The lmhlo form of a reducer region: buffer arguments, one output
    argument per result, lmhlo ops, results copied out, `lmhlo.terminator`."""
    new_region = op.detach_region(region)
    block = new_region.blocks[0]
    convert_block_args(block, rewriter)
    terminator = block.last_op
    assert terminator is not None
    out_args = [
        block.insert_arg(memref_type_for(v.type), len(block.args)) for v in terminator.operands
    ]
    for inner in list(block.ops):
        if inner is terminator:
            continue
        convert_hlo_op(inner, rewriter)
    sources = [to_buffer(v, terminator, rewriter) for v in terminator.operands]
    end = lmhlo.TerminatorOp.create()
    rewriter.replace(terminator, end)
    for src, out in zip(sources, out_args, strict=True):
        if not _write_directly(src, out, block, rewriter):
            rewriter.insert(lmhlo.CopyOp.create(operands=[src, out]), InsertPoint.before(end))  # type: ignore[attr-defined]  # lmhlo builds its op classes from a table at import
    return new_region


def _write_directly(src: SSAValue, out: SSAValue, block: Block, rewriter: PatternRewriter) -> bool:
    """When `src` is a fresh buffer of `block` written by exactly one lmhlo op
    (its last operand) and read by nothing else, write `out` instead."""
    alloc = src.owner
    if not isinstance(alloc, Operation) or alloc.name != "memref.alloc":
        return False
    if alloc.parent_block() is not block or src.type != out.type:
        return False
    casts = [u.operation for u in src.uses if u.operation.name == "bufferization.to_tensor"]
    if any(c.results[0].uses for c in casts):
        return False
    users = [u for u in src.uses if u.operation not in casts]
    if len(users) != 1:
        return False
    (use,) = users
    writer = use.operation
    if not writer.name.startswith("lmhlo.") or use.index != len(writer.operands) - 1:
        return False
    for cast in casts:
        rewriter.erase(cast)
    writer.operands[use.index] = out
    rewriter.erase(alloc)
    return True


class LegalizeHloToLhlo(RewritePattern):
    """mhlo op -> lmhlo op on freshly allocated result buffers."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not op.name.startswith("mhlo."):
            return
        if nested_in_region_op(op, ("mhlo.", "lmhlo.")):
            return
        convert_hlo_op(op, rewriter)


@register_pass
@dataclass(frozen=True)
class HloLegalizeToLhloPass(ModulePass):
    """Legalize from HLO dialect to LHLO dialect."""

    name = "hlo-legalize-to-lhlo"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(ConvertFuncBoundaries(), apply_recursively=False).rewrite_module(op)
        PatternRewriteWalker(LegalizeHloToLhlo(), apply_recursively=False).rewrite_module(op)
        cleanup_materializations(op)
