"""Ops nested in an op, region or block, listed in one call.

`preorder_ops(root)` is `list(root.walk())`: the ops in xDSL's default walk
order (an op, then the ops of its regions, blocks and ops in order);
`preorder_ops(root, reverse=True)` is `list(root.walk(reverse=True))` (an op,
then its regions, blocks and ops each from the last). Both are read off
xDSL's private links by one recursive function per op with regions. xDSL's
`walk` is a generator per op, region and block, each yielded op passing up
through every enclosing one; the passes list the module's ops many times, and
the list costs about a tenth of that.

The list is a snapshot: unlike a running `walk()`, it does not see ops
inserted or erased while the caller goes over it.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, Region


def preorder_ops(root: Operation | Region | Block, *, reverse: bool = False) -> list[Operation]:
    """`list(root.walk(reverse=reverse))`: `root` itself first when it is an op."""
    out: list[Operation] = []
    # dispatched on the exact class: xDSL's IR classes are ABCs, whose
    # isinstance checks cost more than a short walk
    if type(root) is Region:
        (_collect_region_reversed if reverse else _collect_region)(root, out)
    elif type(root) is Block:
        (_collect_block_reversed if reverse else _collect_block)(root, out)
    else:
        (_collect_op_reversed if reverse else _collect_op)(root, out)  # type: ignore[arg-type]  # an op: neither a region nor a block
    return out


def _collect_op(op: Operation, out: list[Operation]) -> None:
    out.append(op)
    for region in op.regions:
        _collect_region(region, out)


def _collect_region(region: Region, out: list[Operation]) -> None:
    block = region._first_block  # pyright: ignore[reportPrivateUsage]
    while block is not None:
        _collect_block(block, out)
        block = block._next_block  # pyright: ignore[reportPrivateUsage]


def _collect_block(block: Block, out: list[Operation]) -> None:
    append = out.append
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        if op.regions:
            _collect_op(op, out)
        else:
            append(op)
        op = op._next_op  # pyright: ignore[reportPrivateUsage]


def _collect_op_reversed(op: Operation, out: list[Operation]) -> None:
    out.append(op)
    for region in reversed(op.regions):
        _collect_region_reversed(region, out)


def _collect_region_reversed(region: Region, out: list[Operation]) -> None:
    block = region._last_block  # pyright: ignore[reportPrivateUsage]
    while block is not None:
        _collect_block_reversed(block, out)
        block = block._prev_block  # pyright: ignore[reportPrivateUsage]


def _collect_block_reversed(block: Block, out: list[Operation]) -> None:
    append = out.append
    op = block._last_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        if op.regions:
            _collect_op_reversed(op, out)
        else:
            append(op)
        op = op._prev_op  # pyright: ignore[reportPrivateUsage]


__all__ = ["preorder_ops"]
