"""`loop-invariant-code-motion`: MLIR's LICM for scf.for, scf.parallel and scf.while.

Every loop is visited in post-order (inner loops before the loops holding
them). In each loop region (the body of `scf.for` / `scf.parallel`, both
regions of `scf.while`) the top-level ops are examined in order with a
worklist; an op moves right before the loop when

- it is not a terminator,
- it has no memory effect (nested ops included) and is speculatable (an
  `scf.for` is when its step is a non-zero constant and its body is),
- every value it or its nested ops use is defined outside the loop or inside
  the op itself.

After a move, the op's users in the loop region are examined again, so chains
of invariant ops leave together, in their original order.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, scf
from xdsl.ir import Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator, RecursivelySpeculatable, is_side_effect_free
from xdsl.traits import is_speculatable as xdsl_is_speculatable

from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.folding import constant_value
from disc_ir.rewriting.folding.ints import int_value


def loop_regions(op: Operation) -> list[Region]:
    """The regions of a loop-like op whose ops may be hoisted; [] for other ops."""
    if isinstance(op, scf.ForOp | scf.ParallelOp):
        return [op.regions[0]]
    if isinstance(op, scf.WhileOp):
        return list(op.regions)
    return []


def is_speculatable(op: Operation) -> bool:
    """Whether `op` may run where it would not have (MLIR's isSpeculatable)."""
    if isinstance(op, scf.ForOp):
        step = constant_value(op.step)
        if step is None or (iv := int_value(step)) is None or iv[0] == 0:
            return False
        return _nested_speculatable(op)
    if op.has_trait(RecursivelySpeculatable):
        return _nested_speculatable(op)
    return xdsl_is_speculatable(op)


def _nested_speculatable(op: Operation) -> bool:
    return all(is_speculatable(o) for r in op.regions for b in r.blocks for o in b.ops)


def _defined_outside(value: SSAValue, loop: Operation) -> bool:
    owner = value.owner
    return not loop.is_ancestor(owner)


def can_be_hoisted(op: Operation, loop: Operation) -> bool:
    """`op` is no terminator and uses only values from outside `loop` or from inside `op`."""
    if op.has_trait(IsTerminator, value_if_unregistered=True):
        return False
    for child in preorder_ops(op):
        for operand in child.operands:
            if op.is_ancestor(operand.owner):
                continue
            if not _defined_outside(operand, loop):
                return False
    return True


def move_loop_invariant_code(loop: Operation) -> int:
    """Hoist the invariant ops of `loop` right before it; returns how many moved."""
    moved = 0
    for region in loop_regions(loop):
        worklist = deque(op for block in region.blocks for op in block.ops)
        while worklist:
            op = worklist.popleft()
            if op.parent_region() is not region:
                continue  # already moved
            if not (is_side_effect_free(op) and is_speculatable(op) and can_be_hoisted(op, loop)):
                continue
            op.detach()
            Rewriter.insert_op(op, InsertPoint.before(loop))
            moved += 1
            for result in op.results:
                for use in result.uses:
                    if use.operation.parent_region() is region:
                        worklist.append(use.operation)
    return moved


def _post_order_loops(root: Operation) -> list[Operation]:
    return [op for op in root.walk(region_first=True) if loop_regions(op)]


@register_pass
@dataclass(frozen=True)
class LoopInvariantCodeMotionPass(ModulePass):
    """Hoist loop invariant instructions outside of the loop."""

    name = "loop-invariant-code-motion"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for loop in _post_order_loops(op):
            move_loop_invariant_code(loop)
