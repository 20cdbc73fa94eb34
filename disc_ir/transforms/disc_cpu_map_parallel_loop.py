"""`disc-cpu-map-parallel-loop`: choose a parallel schedule for each CPU `scf.parallel`.

BladeDISC's DiscCpuMapParallelLoop. Each outermost `scf.parallel` (one not
nested in another) that is a *small CPU kernel* gets the unit attribute
`disc.cpu.small_kernel`; `disc-outline-cpu-kernel` then leaves it inline on
the calling thread instead of launching it on the thread pool. A loop is
small when

* its own iteration space and that of every `scf.parallel` nested in it has
  constant bounds and steps and fewer than 64 iterations, and
* every `scf.for` nested in it has constant bounds and step and fewer than
  8 iterations.

Everything else (any dynamic bound) is left as it is, to be outlined. A loop
already carrying the attribute is skipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, scf
from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from disc_ir.codegen.loop_utils import (
    SMALL_CPU_KERNEL_ATTR,
    constant_index_value,
    parent_of_name,
)
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

MAX_ITERATIONS_SMALL_PARALLEL = 64
MAX_ITERATIONS_SMALL_FOR = 8


def _trip_count(lb: SSAValue, ub: SSAValue, step: SSAValue) -> int | None:
    lo, hi, st = (constant_index_value(v) for v in (lb, ub, step))
    if lo is None or hi is None or st is None or st == 0:
        return None
    return (hi - lo + st - 1) // st


def _num_iterations(
    lbs: Sequence[SSAValue], ubs: Sequence[SSAValue], steps: Sequence[SSAValue]
) -> int | None:
    total = 1
    for lb, ub, st in zip(lbs, ubs, steps, strict=True):
        n = _trip_count(lb, ub, st)
        if n is None:
            return None
        total *= n
    return total


def is_small_parallel_op(op: Operation) -> bool:
    assert isinstance(op, scf.ParallelOp)
    n = _num_iterations(list(op.lowerBound), list(op.upperBound), list(op.step))
    return n is not None and n < MAX_ITERATIONS_SMALL_PARALLEL


def is_small_for_op(op: scf.ForOp) -> bool:
    n = _trip_count(op.lb, op.ub, op.step)
    return n is not None and n < MAX_ITERATIONS_SMALL_FOR


def is_small_cpu_kernel(op: scf.ParallelOp) -> bool:
    """`op` and every loop nested in it run only a few iterations."""
    for inner in preorder_ops(op):
        if isinstance(inner, scf.ForOp) and not is_small_for_op(inner):
            return False
        if isinstance(inner, scf.ParallelOp) and not is_small_parallel_op(inner):
            return False
    return True


@register_pass
@dataclass(frozen=True)
class DiscCpuMapParallelLoopPass(ModulePass):
    """assign a parallel schedule for each parallel op on cpu."""

    name = "disc-cpu-map-parallel-loop"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        candidates = [
            o
            for o in preorder_ops(op)
            if isinstance(o, scf.ParallelOp) and parent_of_name(o, "scf.parallel") is None
        ]
        for ploop in candidates:
            if SMALL_CPU_KERNEL_ATTR in ploop.attributes:
                continue
            if is_small_cpu_kernel(ploop):
                ploop.attributes[SMALL_CPU_KERNEL_ATTR] = UnitAttr()
