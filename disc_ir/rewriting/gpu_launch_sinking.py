"""Sinking cheap index computations into a `gpu.launch` body (MLIR's `sinkOperationsIntoLaunchOp`).

Shared by `gpu-launch-sink-index-computations` and `gpu-kernel-outlining`:
`used_values_defined_above(op)` lists the values `op`'s regions use but do
not define; `sink_operations_into_launch(launch)` clones into the launch body
the constants, `memref.dim`, `arith.select` and `arith.cmpi` ops it uses
from above.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, SSAValue

from disc_ir.dialects.upstream.gpu import LaunchOp
from disc_ir.ir.walk import preorder_ops

SINKABLE = frozenset({"arith.constant", "memref.dim", "arith.select", "arith.cmpi"})


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
    for inner in preorder_ops(op):
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
        outer_value.replace_uses_with_if(
            replacement, lambda use: launch.body.is_ancestor(use.operation)
        )
