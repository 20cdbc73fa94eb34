"""`disc-parallel-loop-tiling`: tile the innermost `scf.parallel` loops.

BladeDISC's ParallelLoopTiling (MLIR's pass with an in-bound-check mode).
Every innermost `scf.parallel` without reductions is split into an outer
loop stepping by `step * tile` and an inner loop over one tile (see
`disc_ir.codegen.loop_utils.tile_parallel_loop`):

    scf.parallel (%i) = (%lb) to (%ub) step (%s * T) {
      scf.parallel (%j) = (%c0) to (%s * T) step (%s) {
        %idx = arith.addi %j, %i
        ...                       // under `scf.if %inbound` when needed
      }
    }

Options: `parallel-loop-tile-sizes` (one per dimension, missing ones are 1)
and `with-inbound-check` (guard the body with
`%j * %s + %i < %ub` instead of bounding the inner loop with `affine.min`;
dimensions whose constant trip count the tile divides need neither).
A loop inside an `lmhlo.fusion` carrying `disc_cta_size_hint = N` is tiled by
`[N]` instead; with `DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL` set, loops of
`kStitch` fusions are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import IntegerAttr, StringAttr
from xdsl.passes import ModulePass

from disc_ir import config
from disc_ir.codegen.loop_utils import (
    CTA_SIZE_HINT_ATTR,
    innermost_parallel_loops,
    parent_of_name,
    tile_parallel_loop,
)
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

FUSION_TYPE_ATTR = "disc.fusion_type"


@register_pass
@dataclass(frozen=True)
class ParallelLoopTilingPass(ModulePass):
    """Tile parallel loops"""

    name = "disc-parallel-loop-tiling"

    parallel_loop_tile_sizes: tuple[int, ...] = ()
    with_inbound_check: bool = False

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "parallel-loop-tile-sizes": "Factors to tile parallel loops by",
        "with-inbound-check": "Perform tiling with fixed upperbound with inbound check "
        "for internal loops",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        stitch_opt = config.flag("DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL")
        for func in [o for o in preorder_ops(op) if o.name == "func.func"]:
            for ploop in innermost_parallel_loops(func):
                if ploop.initVals:
                    continue  # reductions are not tiled
                sizes = list(self.parallel_loop_tile_sizes)
                fusion = parent_of_name(ploop, "lmhlo.fusion")
                if fusion is not None:
                    kind = fusion.attributes.get(FUSION_TYPE_ATTR)
                    if stitch_opt and isinstance(kind, StringAttr) and kind.data == "kStitch":
                        continue
                    hint = fusion.attributes.get(CTA_SIZE_HINT_ATTR)
                    if isinstance(hint, IntegerAttr):
                        sizes = [hint.value.data]
                tile_parallel_loop(ploop, sizes, self.with_inbound_check)
