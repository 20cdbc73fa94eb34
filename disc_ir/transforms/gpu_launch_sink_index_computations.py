"""`gpu-launch-sink-index-computations`: clone cheap producers into `gpu.launch` bodies.

MLIR's GpuLaunchSinkIndexComputationsPass (mlir/lib/Dialect/GPU/Transforms/
KernelOutlining.cpp, `sinkOperationsIntoLaunchOp`). For every value a
`gpu.launch` body uses but that is defined above it, if its defining op is a
"sinking beneficiary" -- `arith.constant`, `memref.dim`, `arith.select`,
`arith.cmpi` (MLIR's `isSinkingBeneficiaryDefault`) -- and every operand of
that op is itself available in the body (defined above and sunk too, or a
value the kernel receives anyway), the op is cloned at the start of the body
and the body's uses are redirected to the clone. The originals stay for
their other users (canonicalize removes dead ones). Sunk constants are no
longer kernel arguments after `gpu-kernel-outlining`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from disc_ir.dialects.upstream.gpu import LaunchOp
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.gpu_launch_sinking import (
    SINKABLE,
    is_defined_in,
    sink_operations_into_launch,
    used_values_defined_above,
)

"""Ops MLIR's default policy sinks into launch bodies."""


@register_pass
@dataclass(frozen=True)
class GpuLaunchSinkIndexComputationsPass(ModulePass):
    """Sink index computations into gpu.launch body"""

    name = "gpu-launch-sink-index-computations"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for launch in [o for o in preorder_ops(op) if isinstance(o, LaunchOp)]:
            sink_operations_into_launch(launch)


__all__ = [
    "SINKABLE",
    "GpuLaunchSinkIndexComputationsPass",
    "is_defined_in",
    "sink_operations_into_launch",
    "used_values_defined_above",
]
