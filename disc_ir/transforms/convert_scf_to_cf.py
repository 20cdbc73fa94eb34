"""convert-scf-to-cf: lower `scf` to unstructured control flow (`cf`).

MLIR's SCFToControlFlow: `scf.for` and `scf.if` as MLIR lowers them (with
the cheap constructors of `disc_ir.ir.builders`), `scf.index_switch` by
xDSL's pattern, and what the DISC pipeline also produces:

* `scf.parallel` -> a nest of `scf.for` (outermost induction variable first);
  reductions become loop-carried values combined with the `scf.reduce`
  regions, inlined; the nest is then lowered like any `scf.for`;
* `scf.while` -> a `before` block list ending in `cf.cond_br` to the `after`
  blocks or the continuation, and `after` branching back to `before`;
* `scf.execute_region` -> its blocks inlined, `scf.yield` -> `cf.br` to the
  continuation block carrying the results.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, scf
from xdsl.dialects.arith import AddiOp, CmpiOp
from xdsl.dialects.builtin import IndexType, IntegerAttr, i1, i64
from xdsl.dialects.cf import BranchOp, ConditionalBranchOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import BlockInsertPoint, InsertPoint
from xdsl.transforms.convert_scf_to_cf import SwitchLowering

from disc_ir.ir import builders
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.greedy import greedy_applier
from disc_ir.rewriting.walker import PatternRewriteWalker


def _inline_reduction(
    region: Region, lhs: SSAValue, rhs: SSAValue, rewriter: PatternRewriter, before: Operation
) -> SSAValue:
    """Clones a `scf.reduce` region's body before `before` with (lhs, rhs) as its
    arguments; returns the value its `scf.reduce.return` yields."""
    block = region.block
    value_map: dict[SSAValue, SSAValue] = {block.args[0]: lhs, block.args[1]: rhs}
    result: SSAValue | None = None
    for op in block.ops:
        if op.name == "scf.reduce.return":
            result = value_map.get(op.operands[0], op.operands[0])
            break
        clone = op.clone(value_mapper=value_map)
        rewriter.insert(clone, InsertPoint.before(before))
        for old, new in zip(op.results, clone.results, strict=True):
            value_map[old] = new
    if result is None:
        raise ValueError("scf.reduce region without scf.reduce.return")
    return result


class ParallelLowering(RewritePattern):
    """`scf.parallel` -> nested `scf.for` (reductions as iteration arguments)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        # the name first: isinstance against xDSL's op classes (ABCs) costs more on a miss
        if op.name != "scf.parallel" or not isinstance(op, scf.ParallelOp):
            return
        body = op.body.block
        inits = list(op.initVals)
        loops: list[scf.ForOp] = []
        ip = InsertPoint.before(op)
        iter_values: list[SSAValue] = inits
        for d in range(len(op.lowerBound)):
            block = Block(arg_types=[IndexType(), *[v.type for v in inits]])
            loop = builders.make(
                scf.ForOp,
                [op.lowerBound[d], op.upperBound[d], op.step[d], iter_values],
                [v.type for v in iter_values],
                regions=[Region(block)],
            )
            rewriter.insert(loop, ip)
            if loops:
                rewriter.insert(
                    scf.YieldOp.create(operands=list(loop.results)), InsertPoint.after(loop)
                )
            loops.append(loop)
            ip = InsertPoint.at_end(block)
            iter_values = list(block.args[1:])
        inner = loops[-1].body.block
        terminator = body.last_op
        assert terminator is not None
        rewriter.inline_block(
            body, InsertPoint.at_end(inner), [loop.body.block.args[0] for loop in loops]
        )
        results: list[SSAValue] = []
        if terminator.name == "scf.reduce":
            for i, region in enumerate(terminator.regions):
                results.append(
                    _inline_reduction(
                        region, iter_values[i], terminator.operands[i], rewriter, terminator
                    )
                )
        rewriter.replace(terminator, scf.YieldOp.create(operands=results))
        rewriter.replace(op, [], list(loops[0].results))


class WhileLowering(RewritePattern):
    """`scf.while` -> `cf` blocks (MLIR's WhileLowering)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "scf.while" or not isinstance(op, scf.WhileOp):
            return
        current = op.parent_block()
        assert current is not None
        continuation = current.split_before(op)
        for arg_type in op.result_types:
            continuation.insert_arg(arg_type, len(continuation.args))
        before_first = op.before_region.first_block
        after_first = op.after_region.first_block
        assert before_first is not None and after_first is not None
        before_last = op.before_region.last_block
        after_last = op.after_region.last_block
        assert before_last is not None and after_last is not None
        rewriter.inline_region(op.before_region, BlockInsertPoint.before(continuation))
        rewriter.inline_region(op.after_region, BlockInsertPoint.before(continuation))
        rewriter.insert(BranchOp(before_first, *op.arguments), InsertPoint.at_end(current))
        condition = before_last.last_op
        assert condition is not None and condition.name == "scf.condition"
        cond, *args = condition.operands
        rewriter.replace(
            condition, ConditionalBranchOp(cond, after_first, args, continuation, args)
        )
        yield_op = after_last.last_op
        assert yield_op is not None
        rewriter.replace(yield_op, BranchOp(before_first, *yield_op.operands))
        rewriter.replace(op, [], list(continuation.args))


class ExecuteRegionLowering(RewritePattern):
    """`scf.execute_region` -> its blocks inlined, yields branching to the continuation."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "scf.execute_region":
            return
        current = op.parent_block()
        assert current is not None
        continuation = current.split_before(op)
        for arg_type in op.result_types:
            continuation.insert_arg(arg_type, len(continuation.args))
        region = op.regions[0]
        first = region.first_block
        assert first is not None
        blocks = list(region.blocks)
        rewriter.inline_region(region, BlockInsertPoint.before(continuation))
        rewriter.insert(BranchOp(first), InsertPoint.at_end(current))
        for block in blocks:
            term = block.last_op
            if term is not None and term.name == "scf.yield":
                rewriter.replace(term, BranchOp(continuation, *term.operands))
        rewriter.replace(op, [], list(continuation.args))


def _br(dest: Block, *args: SSAValue) -> BranchOp:
    return builders.make(BranchOp, [list(args)], successors=[dest])


def _cond_br(cond: SSAValue, then_block: Block, else_block: Block) -> ConditionalBranchOp:
    return builders.make(ConditionalBranchOp, [cond, [], []], successors=[then_block, else_block])


#: `arith.cmpi slt`'s predicate
_SLT = IntegerAttr(2, i64)


class ForLowering(RewritePattern):
    """`scf.for` -> a condition block (the body's first block, taking the
    induction variable and the carried values) branching to the body or past
    the loop; the body's end steps the variable and branches back (MLIR's
    ForLowering; the ops as xDSL's constructors make them)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "scf.for" or not isinstance(op, scf.ForOp):
            return
        init_block = op.parent_block()
        if init_block is None:
            return
        end_block = init_block.split_before(op)
        condition_block = op.body.first_block
        assert condition_block is not None and condition_block.first_op is not None
        first_body_block = condition_block.split_before(condition_block.first_op)
        last_body_block = op.body.last_block
        assert last_body_block is not None
        rewriter.inline_region(op.body, BlockInsertPoint.before(end_block))
        iv = condition_block.args[0]
        terminator = last_body_block.last_op
        assert terminator is not None
        stepped = builders.binary(AddiOp, iv, op.step)
        rewriter.insert(stepped, InsertPoint.before(terminator))
        rewriter.replace(terminator, _br(condition_block, stepped.result, *terminator.operands))
        rewriter.insert(_br(condition_block, op.lb, *op.iter_args), InsertPoint.at_end(init_block))
        comparison = CmpiOp.create(
            operands=[iv, op.ub], result_types=[i1], properties={"predicate": _SLT}
        )
        rewriter.insert(comparison, InsertPoint.at_end(condition_block))
        rewriter.insert(
            _cond_br(comparison.result, first_body_block, end_block),
            InsertPoint.at_end(condition_block),
        )
        rewriter.replace(op, [], list(condition_block.args[1:]))


class IfLowering(RewritePattern):
    """`scf.if` -> a conditional branch to the inlined regions, which branch
    to a continuation block taking the results (MLIR's IfLowering; the ops as
    xDSL's constructors make them)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "scf.if" or not isinstance(op, scf.IfOp):
            return
        condition_block = op.parent_block()
        assert condition_block is not None
        remaining = condition_block.split_before(op)
        if op.results:
            parent = condition_block.parent_region()
            assert parent is not None
            continue_block = Block(arg_types=op.result_types)
            parent.insert_block_before(continue_block, remaining)
            rewriter.insert(_br(remaining), InsertPoint.at_end(continue_block))
        else:
            continue_block = remaining
        targets: list[Block] = []
        for region in (op.true_region, op.false_region):
            first, last = region.first_block, region.last_block
            if first is None or last is None:
                targets.append(continue_block)
                continue
            terminator = last.last_op
            assert terminator is not None
            rewriter.insert(_br(continue_block, *terminator.operands), InsertPoint.at_end(last))
            rewriter.erase(terminator)
            rewriter.inline_region(region, BlockInsertPoint.before(continue_block))
            targets.append(first)
        rewriter.insert(
            _cond_br(op.cond, targets[0], targets[1]), InsertPoint.at_end(condition_block)
        )
        rewriter.replace(op, [], list(continue_block.args))


def scf_to_cf_patterns() -> list[RewritePattern]:
    """The scf.for / scf.if lowerings above, xDSL's scf.index_switch one and
    the DISC pipeline's own."""
    return [
        ParallelLowering(),
        WhileLowering(),
        ExecuteRegionLowering(),
        SwitchLowering(),
        IfLowering(),
        ForLowering(),
    ]


@register_pass
@dataclass(frozen=True)
class ConvertScfToCfPass(ModulePass):
    """Convert SCF dialect to ControlFlow dialect, replacing structured control flow with a CFG."""

    name = "convert-scf-to-cf"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(
            greedy_applier(scf_to_cf_patterns()), apply_recursively=True
        ).rewrite_module(op)
