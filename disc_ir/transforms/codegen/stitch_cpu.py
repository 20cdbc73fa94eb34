"""The kStitch schedule on CPU: materialise every sub-root, inline the rest.

A CPU stitch fusion (a row softmax, a layer norm: row reductions feeding
elementwise ops feeding row reductions) is emitted as a sequence of loop
nests, one per *sub-root* in program order, each writing its buffer in full:

* results of the fusion (its roots) and every `lmhlo.reduce` -- a value that
  is reduced once and read many times (broadcast back over the row) must not
  be recomputed per element;
* the sub-roots the CPU stitch fusion strategy marks on the pattern
  (`FusionPattern.sub_root_ops`: reduction inputs, `exp` / `sqrt` / `rsqrt`
  outputs, broadcast sources), when present.

A reduce gets the row-reduction loop (or the kInput nest for a column
reduction), anything else the kLoop nest over its own output; each nest
replaces its op. The remaining lmhlo ops are inlined into these loops by
`disc-input-inline-fusion` (which, unlike BladeDISC's, also processes CPU
kStitch fusions). BladeDISC leaves CPU kStitch fusions to its separate
`disc-stitch-fusion` pass (tile buffers per parallel row); this schedule
computes the same values through the intermediate buffers the fusion already
has.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation

from disc_ir.analysis.fusion_pattern import FusionPattern, is_row_reduction
from disc_ir.transforms.codegen.col_reduction import lower_kinput_reduce_cpu
from disc_ir.transforms.codegen.common import erase_ops
from disc_ir.transforms.codegen.loop_schedule import lower_loop_cpu


def stitch_sub_roots(pattern: FusionPattern) -> list[Operation]:
    """The ops of `pattern` materialised by the CPU stitch schedule, in program order."""
    chosen: set[Operation] = set(pattern.root_ops) | set(pattern.sub_root_ops)
    chosen |= {op for op in pattern.op_list if op.name == "lmhlo.reduce"}
    return [op for op in pattern.op_list if op in chosen]


def lower_stitch_cpu(pattern: FusionPattern, sub_roots: Sequence[Operation] | None = None) -> None:
    """Emit a CPU kStitch fusion: one loop nest per sub-root, replacing it."""
    for op in sub_roots if sub_roots is not None else stitch_sub_roots(pattern):
        if op.name == "lmhlo.reduce" and len(op.operands) == 3 and not is_row_reduction(op):
            lower_kinput_reduce_cpu(op)
        else:
            lower_loop_cpu([op], op)
            erase_ops([op])


__all__ = ["lower_stitch_cpu", "stitch_sub_roots"]
