"""`disc-parallel-loop-collapsing`: collapse innermost `scf.parallel` loops to 1-D.

BladeDISC's ParallelLoopCollapsing. Every innermost `scf.parallel` with more
than one induction variable becomes a one-dimensional loop
`(%c0) to (%n0 * %n1 * ...) step (%c1)` where `%nK` is the normalized trip
count of dimension K (`ceildivsi(ub - lb, step)`, simplified when the lower
bound is the constant 0 or the step the constant 1); the original induction
variables are recovered with `arith.remsi` / `arith.divsi` (the last
dimension varying fastest) and mapped back through `iv * step + lb`. See
`disc_ir.codegen.loop_utils.collapse_parallel_loop`. With
`DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL` set, loops of `kStitch` / `kTransform`
fusions are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import StringAttr
from xdsl.passes import ModulePass

from disc_ir import config
from disc_ir.codegen.loop_utils import (
    collapse_parallel_loop,
    innermost_parallel_loops,
    parent_of_name,
)
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

FUSION_TYPE_ATTR = "disc.fusion_type"


@register_pass
@dataclass(frozen=True)
class ParallelLoopCollapsingPass(ModulePass):
    """Collapse parallel loops"""

    name = "disc-parallel-loop-collapsing"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        stitch_opt = config.flag("DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL")
        for func in [o for o in preorder_ops(op) if o.name == "func.func"]:
            for ploop in innermost_parallel_loops(func):
                if stitch_opt:
                    fusion = parent_of_name(ploop, "lmhlo.fusion")
                    kind = fusion.attributes.get(FUSION_TYPE_ATTR) if fusion else None
                    if isinstance(kind, StringAttr) and kind.data in ("kStitch", "kTransform"):
                        continue
                if len(ploop.body.block.args) > 1:
                    collapse_parallel_loop(ploop)
