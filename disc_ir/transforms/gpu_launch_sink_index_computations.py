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
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from disc_ir.dialects.upstream.gpu import LaunchOp
from disc_ir.transforms.registry import register_pass

SINKABLE = frozenset({"arith.constant", "memref.dim", "arith.select", "arith.cmpi"})
"""Ops MLIR's default policy sinks into launch bodies."""


def is_defined_in(value: SSAValue, op: Operation) -> bool:
    """True if `value` is defined inside a region of `op`."""
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    while block is not None:
        parent = block.parent_op()
        if parent is op:
            return True
        if parent is None:
            return False
        block = parent.parent_block()
    return False


def used_values_defined_above(op: Operation) -> list[SSAValue]:
    """Values used in `op`'s regions and defined outside them, in first-use order
    (MLIR's `getUsedValuesDefinedAbove` with a SetVector)."""
    seen: dict[SSAValue, None] = {}
    for inner in op.walk():
        if inner is op:
            continue
        for operand in inner.operands:
            if operand not in seen and not is_defined_in(operand, op):
                seen[operand] = None
    return list(seen)


def _extract_beneficiary(
    value: SSAValue, sunk: dict[Operation, None], available: set[SSAValue]
) -> bool:
    """Collects the producers of `value` to sink (operands first); False if not sinkable."""
    owner = value.owner
    if not isinstance(owner, Operation) or owner.name not in SINKABLE:
        return False
    if owner in sunk:
        return True
    for operand in owner.operands:
        if operand in available:
            continue
        if not _extract_beneficiary(operand, sunk, available):
            return False
    sunk[owner] = None
    return True


def sink_operations_into_launch(launch: LaunchOp) -> None:
    """Clones the beneficiary producers of `launch`'s captured values into its body."""
    captured = used_values_defined_above(launch)
    available = set(captured)
    sunk: dict[Operation, None] = {}
    for value in captured:
        _extract_beneficiary(value, sunk, available)
    if not sunk:
        return
    body = launch.body.blocks[0]
    first = body.first_op
    mapping: dict[SSAValue, SSAValue] = {}
    for op in sunk:
        clone = op.clone(value_mapper=dict(mapping))
        if first is None:
            body.add_op(clone)
        else:
            body.insert_op_before(clone, first)
        for old, new in zip(op.results, clone.results, strict=True):
            mapping[old] = new
    for outer_value, replacement in mapping.items():
        outer_value.replace_uses_with_if(replacement, lambda use: launch.body.is_ancestor(use.operation))


@register_pass
@dataclass(frozen=True)
class GpuLaunchSinkIndexComputationsPass(ModulePass):
    """Sink index computations into gpu.launch body"""

    name = "gpu-launch-sink-index-computations"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for launch in [o for o in op.walk() if isinstance(o, LaunchOp)]:
            sink_operations_into_launch(launch)


__all__ = [
    "SINKABLE",
    "GpuLaunchSinkIndexComputationsPass",
    "is_defined_in",
    "sink_operations_into_launch",
    "used_values_defined_above",
]
