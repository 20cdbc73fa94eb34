"""Ops nested in an op, region or block, listed in one call.

`preorder_ops(root)` is `list(root.walk())`: the ops in xDSL's default walk
order (an op, then the ops of its regions, blocks and ops in order);
`preorder_ops(root, reverse=True)` is `list(root.walk(reverse=True))` (an op,
then its regions, blocks and ops each from the last: the forward post-order
reversed). Both are read off xDSL's private links by one recursive function
per op with regions. xDSL's `walk` is a generator per op, region and block,
each yielded op passing up through every enclosing one; the passes list the
module's ops many times, and the list costs about a tenth of that.

The list is a snapshot: unlike a running `walk()`, it does not see ops
inserted or erased while the caller goes over it.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, Region


def preorder_ops(root: Operation | Region | Block, *, reverse: bool = False) -> list[Operation]:
    """`list(root.walk(reverse=reverse))`: `root` itself first when it is an op."""
    out: list[Operation] = []
    # the reverse walk (each op, then its regions, blocks and ops from the
    # last) is the forward post-order reversed
    post = reverse
    # dispatched on the exact class: xDSL's IR classes are ABCs, whose
    # isinstance checks cost more than a short walk
    if type(root) is Region:
        _collect_region(root, out, post)
    elif type(root) is Block:
        _collect_block(root, out, post)
    else:
        _collect_op(root, out, post)  # type: ignore[arg-type]  # an op: neither a region nor a block
    if reverse:
        out.reverse()
    return out


def _collect_op(op: Operation, out: list[Operation], post: bool) -> None:
    if not post:
        out.append(op)
    for region in op.regions:
        _collect_region(region, out, post)
    if post:
        out.append(op)


def _collect_region(region: Region, out: list[Operation], post: bool) -> None:
    block = region._first_block  # pyright: ignore[reportPrivateUsage]
    while block is not None:
        _collect_block(block, out, post)
        block = block._next_block  # pyright: ignore[reportPrivateUsage]


def _collect_block(block: Block, out: list[Operation], post: bool) -> None:
    append = out.append
    op = block._first_op  # pyright: ignore[reportPrivateUsage]
    while op is not None:
        if op.regions:
            _collect_op(op, out, post)
        else:
            append(op)
        op = op._next_op  # pyright: ignore[reportPrivateUsage]


__all__ = ["preorder_ops"]
