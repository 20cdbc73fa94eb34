"""`gpu-map-parallel-loops`: greedily map `scf.parallel` loops to GPU hardware ids.

MLIR's GpuMapParallelLoopsPass (mlir/lib/Dialect/GPU/Transforms/
ParallelLoopMapper.cpp), the version BladeDISC pins. Every outermost
`scf.parallel` without a `mapping` attribute gets one: its dimensions map to
`block_x`, `block_y`, `block_z` (dimensions past the third: `sequential`);
the `scf.parallel` ops directly in its body map to `thread_x/y/z`; deeper
levels are `sequential`. Each entry is
`#gpu.loop_dim_map<processor = P, map = (d0) -> (d0), bound = (d0) -> (d0)>`.
Loops already carrying a `mapping` attribute are left alone, as are
`scf.parallel` ops nested in another one when the walk reaches them (they are
mapped from their outermost loop).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.gpu import ProcessorEnum
from xdsl.dialects.scf import ParallelOp
from xdsl.passes import ModulePass

from disc_ir.codegen.gpu_mapping import MAPPING_ATTR, set_mapping
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

MAP_GRID, MAP_BLOCK, SEQUENTIAL = 0, 1, 2
_LEVELS = (
    (ProcessorEnum.Block_X, ProcessorEnum.Block_Y, ProcessorEnum.Block_Z),
    (ProcessorEnum.Thread_X, ProcessorEnum.Thread_Y, ProcessorEnum.Thread_Z),
)


def hardware_id_for(level: int, dimension: int) -> ProcessorEnum:
    """The processor of `dimension` of a loop at mapping `level` (MLIR's getHardwareIdForMapping)."""
    if level >= SEQUENTIAL or dimension >= 3:
        return ProcessorEnum.Sequential
    return _LEVELS[level][dimension]


def _is_nested_in_parallel(op: ParallelOp) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, ParallelOp):
            return True
        parent = parent.parent_op()
    return False


def map_parallel_op(op: ParallelOp, level: int = MAP_GRID) -> None:
    """Adds the `mapping` attribute to `op` and to the parallel loops directly in its body."""
    if MAPPING_ATTR in op.attributes or (level == MAP_GRID and _is_nested_in_parallel(op)):
        return
    set_mapping(op, [hardware_id_for(level, i) for i in range(len(op.lowerBound))])
    for inner in op.body.block.ops:
        if isinstance(inner, ParallelOp):
            map_parallel_op(inner, level + 1)


@register_pass
@dataclass(frozen=True)
class GpuMapParallelLoopsPass(ModulePass):
    """Greedily maps loops to GPU hardware dimensions."""

    name = "gpu-map-parallel-loops"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for func in [o for o in preorder_ops(op) if o.name == "func.func"]:
            for loop in [o for o in preorder_ops(func) if isinstance(o, ParallelOp)]:
                map_parallel_op(loop)


__all__ = [
    "MAPPING_ATTR",
    "GpuMapParallelLoopsPass",
    "hardware_id_for",
    "map_parallel_op",
    "set_mapping",
]
