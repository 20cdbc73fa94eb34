"""Canonicalization patterns of `scf` (MLIR's SCF.cpp).

scf.if:
- a constant condition inlines the taken branch (or erases the op);
- unused results are dropped;
- an empty else branch of an op without results is dropped;
- results yielding values defined outside the op become `arith.select`s (or
  the value itself when both branches yield it).
scf.for:
- loops that run zero times are replaced by their init values, loops that run
  once are inlined, empty loops that run at least once and yield outside
  values are replaced by those values;
- iteration arguments that are passed through unchanged, or unused, are removed.
scf.parallel:
- a loop with a dimension whose bounds are the same value is replaced by its
  init values;
- single-iteration dimensions are removed (the whole loop is inlined when all
  are, for loops without reductions).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import DenseArrayBase, i32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.rewriting.patterns import register_canonicalization
from disc_ir.rewriting.patterns.utils import const_int, create_op, inline_single_block


def _set_terminator_operands(block: Block, operands: Sequence[SSAValue]) -> None:
    terminator = block.last_op
    assert terminator is not None
    terminator.operands = list(operands)


def _defined_in(value: SSAValue, region: Region) -> bool:
    owner = value.owner
    owner_region = owner.parent if isinstance(owner, Block) else owner.parent_region()
    while owner_region is not None:
        if owner_region is region:
            return True
        parent = owner_region.parent
        owner_region = parent.parent_region() if parent is not None else None
    return False


def _segments(op: Operation, sizes: Sequence[int]) -> tuple[dict, dict]:
    """(properties, attributes) carrying the operand segment sizes like `op` does."""
    props = {k: v for k, v in op.properties.items() if k != "operandSegmentSizes"}
    attrs = {k: v for k, v in op.attributes.items() if k != "operandSegmentSizes"}
    segments = DenseArrayBase.from_list(i32, list(sizes))
    if "operandSegmentSizes" in op.attributes:
        attrs["operandSegmentSizes"] = segments
    else:
        props["operandSegmentSizes"] = segments
    return props, attrs


# --------------------------------------------------------------------------
# scf.if


def _if_regions(op: Operation) -> tuple[Region, Region]:
    return op.regions[0], op.regions[1]


class IfRemoveStaticCondition(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        cond = const_int(op.operands[0])
        if cond is None:
            return
        then_region, else_region = _if_regions(op)
        if cond != 0:
            inline_single_block(rewriter, op, then_region.block)
        elif else_region.blocks:
            inline_single_block(rewriter, op, else_region.block)
        else:
            rewriter.erase(op)


class IfRemoveUnusedResults(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        used = [i for i, r in enumerate(op.results) if r.uses]
        if len(used) == len(op.results):
            return
        regions = [op.detach_region(r) for r in list(op.regions)]
        for region in regions:
            for block in region.blocks:
                term = block.last_op
                assert term is not None
                _set_terminator_operands(block, [term.operands[i] for i in used])
        new = create_op(
            type(op),
            [op.operands[0]],
            [op.results[i].type for i in used],
            op.properties,
            op.attributes,
            regions,
        )
        replacements: list[SSAValue | None] = [None] * len(op.results)
        for k, i in enumerate(used):
            replacements[i] = new.results[k]
        rewriter.replace(op, new, replacements)


class IfRemoveEmptyElse(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.results:
            return
        _, else_region = _if_regions(op)
        if len(else_region.blocks) != 1:
            return
        block = else_region.block
        if block.first_op is not block.last_op or block.args:
            return
        else_region.detach_block(block)
        block.erase(safe_erase=False)
        rewriter.notify_op_modified(op)


class IfConvertTrivialToSelect(RewritePattern):
    """Results yielding values from outside the if become selects (or the value itself)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not op.results:
            return
        then_region, else_region = _if_regions(op)
        if not then_region.blocks or not else_region.blocks:
            return
        then_yield = then_region.block.last_op
        else_yield = else_region.block.last_op
        assert then_yield is not None and else_yield is not None
        if not len(then_yield.operands) == len(else_yield.operands) == len(op.results):
            return  # a yield that does not match the results (xDSL's verifier lets it by)
        pairs = list(zip(then_yield.operands, else_yield.operands, strict=True))
        non_hoistable = [
            i
            for i, (t, f) in enumerate(pairs)
            if _defined_in(t, then_region) or _defined_in(f, else_region)
        ]
        if len(non_hoistable) == len(op.results):
            return
        cond = op.operands[0]
        regions = [op.detach_region(r) for r in list(op.regions)]
        _set_terminator_operands(regions[0].block, [pairs[i][0] for i in non_hoistable])
        _set_terminator_operands(regions[1].block, [pairs[i][1] for i in non_hoistable])
        replacement = create_op(
            type(op),
            [cond],
            [op.results[i].type for i in non_hoistable],
            op.properties,
            op.attributes,
            regions,
        )
        rewriter.insert(replacement, InsertPoint.before(op))
        results: list[SSAValue] = []
        for i, (t, f) in enumerate(pairs):
            if i in non_hoistable:
                results.append(replacement.results[non_hoistable.index(i)])
            elif t is f:
                results.append(t)
            else:
                select = arith.SelectOp(cond, t, f)
                rewriter.insert(select, InsertPoint.before(replacement))
                results.append(select.result)
        rewriter.replace(op, [], results)


# --------------------------------------------------------------------------
# scf.for


class ForSimplifyTrivialLoops(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        lb_v, ub_v, step_v, *inits = op.operands
        if lb_v is ub_v:
            rewriter.replace(op, [], inits)
            return
        lb, ub = const_int(lb_v), const_int(ub_v)
        if lb is None or ub is None:
            return
        if lb >= ub:
            rewriter.replace(op, [], inits)
            return
        step = const_int(step_v)
        if step is None:
            return
        body = op.regions[0].block
        if lb + step >= ub:
            inline_single_block(rewriter, op, body, [lb_v, *inits])
            return
        if body.first_op is not body.last_op:
            return
        yielded = list(body.last_op.operands) if body.last_op is not None else []
        if all(not _defined_in(v, op.regions[0]) for v in yielded):
            rewriter.replace(op, [], yielded)


class ForIterArgsFolder(RewritePattern):
    """Remove iter args that are yielded unchanged, or unused with an unused/invariant result."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        lb, ub, step, *inits = op.operands
        body = op.regions[0].block
        iter_args = list(body.args[1:])
        terminator = body.last_op
        assert terminator is not None
        yielded = list(terminator.operands)
        keep: list[int] = []
        for i, (init, arg, res, y) in enumerate(
            zip(inits, iter_args, op.results, yielded, strict=True)
        ):
            forwarded = y is arg or (not arg.uses and (init is y or not res.uses))
            if not forwarded:
                keep.append(i)
        if len(keep) == len(inits):
            return
        for i in reversed(range(len(inits))):
            if i in keep:
                continue
            arg = iter_args[i]
            arg.replace_all_uses_with(inits[i])
            body.erase_arg(arg)
        terminator.operands = [yielded[i] for i in keep]
        region = op.detach_region(op.regions[0])
        new = create_op(
            type(op),
            [lb, ub, step, *(inits[i] for i in keep)],
            [op.results[i].type for i in keep],
            op.properties,
            op.attributes,
            [region],
        )
        replacements: list[SSAValue] = list(inits)
        for k, i in enumerate(keep):
            replacements[i] = new.results[k]
        rewriter.replace(op, new, replacements)


# --------------------------------------------------------------------------
# scf.parallel


def _parallel_parts(op: Operation) -> tuple[list, list, list, list]:
    # lower bounds, upper bounds and steps: one per induction variable (the
    # body's arguments), then the init values (as the verifier requires; read
    # from the operand list rather than through the segment accessors)
    n = len(op.regions[0].block.args)
    ops = list(op.operands)
    return ops[:n], ops[n : 2 * n], ops[2 * n : 3 * n], ops[3 * n :]


class ParallelRemoveEmpty(RewritePattern):
    """An scf.parallel with an empty dimension (lb == ub) -> its init values."""

    #: MLIR's labels: BladeDISC's LLVM and today's (which folds both cases in one)
    debug_names = ("RemoveEmptyParallelLoops", "ParallelOpSingleOrZeroIterationDimsFolder")

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        lbs, ubs, _, inits = _parallel_parts(op)
        if any(lb is ub for lb, ub in zip(lbs, ubs, strict=True)):
            rewriter.replace(op, [], inits)


class ParallelCollapseSingleIteration(RewritePattern):
    """Single-iteration dimensions of an scf.parallel dropped (all of them: the body inlined)."""

    debug_names = ("CollapseSingleIterationLoops", "ParallelOpSingleOrZeroIterationDimsFolder")

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        lbs, ubs, steps, inits = _parallel_parts(op)
        if inits or op.results:
            return  # loops with reductions are left alone
        body = op.regions[0].block
        single: list[int] = []
        for i, (lb, ub, step) in enumerate(zip(lbs, ubs, steps, strict=True)):
            lo, hi, st = const_int(lb), const_int(ub), const_int(step)
            if lo is not None and hi is not None and st is not None and 0 < hi - lo <= st:
                single.append(i)
        if not single:
            return
        if len(single) == len(lbs):
            terminator = body.last_op
            if terminator is None or terminator.operands:
                return
            inline_single_block(rewriter, op, body, lbs)
            return
        for i in reversed(single):
            arg = body.args[i]
            arg.replace_all_uses_with(lbs[i])
            body.erase_arg(arg)
        keep = [i for i in range(len(lbs)) if i not in single]
        region = op.detach_region(op.regions[0])
        props, attrs = _segments(op, [len(keep)] * 3 + [0])
        new = create_op(
            type(op),
            [*(lbs[i] for i in keep), *(ubs[i] for i in keep), *(steps[i] for i in keep)],
            [],
            props,
            attrs,
            [region],
        )
        rewriter.replace(op, new, [])


register_canonicalization("scf.if")(
    lambda ctx: (
        IfRemoveStaticCondition(),
        IfRemoveUnusedResults(),
        IfRemoveEmptyElse(),
        IfConvertTrivialToSelect(),
    )
)
register_canonicalization("scf.for")(lambda ctx: (ForSimplifyTrivialLoops(), ForIterArgsFolder()))
register_canonicalization("scf.parallel")(
    lambda ctx: (ParallelRemoveEmpty(), ParallelCollapseSingleIteration())
)
