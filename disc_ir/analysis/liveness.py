"""Block liveness (MLIR's Liveness analysis), nested regions included.

For every block of every region under the root op:

- the values *used* in the block are the operands of its ops and of the ops
  nested in them, minus the values defined in the block (its arguments, the
  results of its ops and of nested ops, the arguments of nested blocks);
- a value defined in the block is *live-out* when a user sits in another
  block of the same region (the ancestor of the user's block in that region);
- live-in / live-out sets are then propagated backwards over the CFG of the
  region: live-out(B) = union of live-in(S) for successors S, live-in(B) =
  used(B) + (live-out(B) - defined(B)).

In a single-block region (SCF) nothing is live-out. `BlockLiveness` answers
MLIR's LivenessBlockInfo queries: the first op a value is live at in the
block (`start_operation`) and the last one (`end_operation`), uses in nested
regions counting at their ancestor op in the block.
"""

from __future__ import annotations

from xdsl.ir import Block, Operation, Region, SSAValue

from disc_ir.analysis.block_order import BlockOrder
from disc_ir.analysis.dominance import ancestor_block_in_region, successors
from disc_ir.ir.walk import preorder_ops


class BlockLiveness:
    """Liveness of values in one block."""

    def __init__(self, block: Block):
        self.block = block
        self.live_in: set[SSAValue] = set()
        self.live_out: set[SSAValue] = set()
        self.defined: set[SSAValue] = set()
        self.used: set[SSAValue] = set()
        self.escaping: set[SSAValue] = set()
        #: the order of the block's ops, for `end_operation`
        self.order = BlockOrder(block)
        region = block.parent

        def gather_out(value: SSAValue) -> None:
            for use in value.uses:
                owner_block = use.operation.parent_block()
                if region is None or owner_block is None:
                    continue
                anc = ancestor_block_in_region(region, owner_block)
                if anc is not None and anc is not block:
                    self.escaping.add(value)
                    return

        for arg in block.args:
            self.defined.add(arg)
            gather_out(arg)
        for op in block.ops:
            for res in op.results:
                gather_out(res)
            for nested in preorder_ops(op):
                self.defined.update(nested.results)
                self.used.update(nested.operands)
                for r in nested.regions:
                    for b in r.blocks:
                        self.defined.update(b.args)
        self.used -= self.defined

    def is_live_in(self, value: SSAValue) -> bool:
        return value in self.live_in

    def is_live_out(self, value: SSAValue) -> bool:
        return value in self.live_out

    def start_operation(self, value: SSAValue) -> Operation:
        """The first op of the block at which `value` is live."""
        owner = value.owner
        if self.is_live_in(value) or not isinstance(owner, Operation):
            first = self.block.first_op
            assert first is not None
            return first
        return owner

    def end_operation(self, value: SSAValue, start: Operation) -> Operation:
        """The last op of the block at which `value` is live, at or after `start`."""
        if self.is_live_out(value):
            last = self.block.last_op
            assert last is not None
            return last
        end = start
        for use in value.uses:
            user = self.block.find_ancestor_op_in_block(use.operation)
            if user is not None and self.order.is_before(end, user):
                end = user
        return end


class Liveness:
    """Liveness of every block in the regions under `root` (root's own regions included)."""

    def __init__(self, root: Operation):
        self.blocks: dict[Block, BlockLiveness] = {}
        for op in preorder_ops(root):
            for region in op.regions:
                self._build_region(region)

    def _build_region(self, region: Region) -> None:
        infos = [BlockLiveness(b) for b in region.blocks]
        for info in infos:
            self.blocks[info.block] = info
            info.live_out = set(info.escaping)
            info.live_in = info.used | (info.live_out - info.defined)
        if len(infos) <= 1:
            return
        changed = True
        while changed:
            changed = False
            for info in reversed(infos):
                out = set(info.escaping)
                for succ in successors(info.block):
                    succ_info = self.blocks.get(succ)
                    if succ_info is not None:
                        out |= succ_info.live_in
                new_in = info.used | (out - info.defined)
                if out != info.live_out or new_in != info.live_in:
                    info.live_out = out
                    info.live_in = new_in
                    changed = True

    def block_info(self, block: Block) -> BlockLiveness:
        info = self.blocks.get(block)
        if info is None:
            region = block.parent
            if region is not None:
                self._build_region(region)
            info = self.blocks.get(block) or BlockLiveness(block)
        return info
