"""The order of ops in their blocks, answered in O(1) instead of a walk.

xDSL's `Operation.is_before_in_block` walks the block from one op to the
other: asked once per use, per buffer or per value, as analyses and rewrites
do, it makes them quadratic in the size of the block. `BlockOrder` keys the
ops of a block once, with wide gaps between keys; an op inserted since gets
keys between its keyed neighbours (the run of new ops around it is keyed at
once), and the block is keyed anew only when a gap runs out. Erasing ops
needs nothing; an op *moved* within its block must be reported with
`moved(op)` (its old key would be wrong).
"""

from __future__ import annotations

from xdsl.ir import Block, Operation

#: the distance between the keys of consecutive ops when a block is keyed
_GAP = 1 << 40


class BlockOrder:
    """The order of the ops of `block`."""

    __slots__ = ("block", "keys")

    def __init__(self, block: Block) -> None:
        self.block = block
        self.keys: dict[Operation, int] = {}
        self._rekey()

    def _rekey(self) -> None:
        self.keys = {op: i * _GAP for i, op in enumerate(self.block.ops)}

    def __getitem__(self, op: Operation) -> int:
        """The key of `op`, an op of the block (keys grow along the block)."""
        key = self.keys.get(op)
        if key is None:
            key = self._key_new_run(op)
        return key

    def _key_new_run(self, op: Operation) -> int:
        keys = self.keys
        run = [op]
        prev = op.prev_op
        while prev is not None and prev not in keys:
            run.insert(0, prev)
            prev = prev.prev_op
        nxt = op.next_op
        while nxt is not None and nxt not in keys:
            run.append(nxt)
            nxt = nxt.next_op
        lo = keys[prev] if prev is not None else None
        hi = keys[nxt] if nxt is not None else None
        if lo is None and hi is None:
            self._rekey()
            return self.keys[op]
        if lo is None:
            lo = hi - _GAP * (len(run) + 1)  # type: ignore[operator]  # not both None: handled above
        if hi is None:
            hi = lo + _GAP * (len(run) + 1)
        step = (hi - lo) // (len(run) + 1)
        if step < 1:
            self._rekey()
            return self.keys[op]
        for i, o in enumerate(run, 1):
            keys[o] = lo + i * step
        return keys[op]

    def moved(self, op: Operation) -> None:
        """Forget the key of `op`, moved within the block since it was keyed."""
        self.keys.pop(op, None)

    def is_before(self, op: Operation, other: Operation) -> bool:
        """Whether `op` is strictly before `other` (False unless both are in the block)."""
        if op.parent is not self.block or other.parent is not self.block:
            return False
        return self[op] < self[other]


class OpOrder:
    """`BlockOrder`s of any blocks, made on first use."""

    __slots__ = ("blocks",)

    def __init__(self) -> None:
        self.blocks: dict[Block, BlockOrder] = {}

    def is_before(self, op: Operation, other: Operation) -> bool:
        """`op.is_before_in_block(other)`: strictly before, in the same block."""
        block = op.parent
        if block is None or other.parent is not block:
            return False
        order = self.blocks.get(block)
        if order is None:
            order = self.blocks[block] = BlockOrder(block)
        return order[op] < order[other]


__all__ = ["BlockOrder", "OpOrder"]
