"""The GPU processor mapping of `scf.parallel` loops (MLIR's `gpu.loop_dim_map` attributes).

`MAPPING_ATTR` names the attribute holding one `#gpu.loop_dim_map` per loop
dimension; `set_mapping(op, processors)` maps each dimension of a parallel
loop to a processor. Written by `gpu-map-parallel-loops` and the GPU loop
schedules, read by `convert-parallel-loops-to-gpu`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import AffineMapAttr, ArrayAttr
from xdsl.dialects.gpu import LoopDimMapAttr, ProcessorAttr, ProcessorEnum
from xdsl.dialects.scf import ParallelOp
from xdsl.ir.affine import AffineMap

MAPPING_ATTR = "mapping"
"""The attribute holding one `#gpu.loop_dim_map` per loop dimension (MLIR's `getMappingAttrName`)."""


def set_mapping(op: ParallelOp, processors: list[ProcessorEnum]) -> None:
    """Map dimension `i` of `op` to `processors[i]` (identity map and bound)."""
    identity = AffineMapAttr(AffineMap.identity(1))
    op.attributes[MAPPING_ATTR] = ArrayAttr(
        [LoopDimMapAttr(ProcessorAttr(p), identity, identity) for p in processors]
    )
