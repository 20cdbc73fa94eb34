"""Block dominance and post-dominance across nested regions (MLIR's DominanceInfo).

Within one region, dominance follows the CFG of its blocks (entry block
first; a block with no successors exits the region). Across regions, a block
is compared through its ancestor in the other block's region: block `a`
dominates block `b` when `b` lies in `a` (nested) or `b`'s ancestor in `a`'s
region is dominated by `a`. Single-block regions (SCF) make this the
nesting relation.
"""

from __future__ import annotations

from xdsl.ir import Block, Region


def successors(block: Block) -> list[Block]:
    term = block.last_op
    return list(term.successors) if term is not None else []


def predecessors(region: Region) -> dict[Block, list[Block]]:
    preds: dict[Block, list[Block]] = {b: [] for b in region.blocks}
    for block in region.blocks:
        for succ in successors(block):
            if succ in preds:
                preds[succ].append(block)
    return preds


def ancestor_block_in_region(region: Region, block: Block) -> Block | None:
    """The block of `region` that is `block` or holds it (nested), None if none."""
    current: Block | None = block
    while current is not None:
        if current.parent is region:
            return current
        parent_op = current.parent_op()
        current = parent_op.parent_block() if parent_op is not None else None
    return None


class _RegionDominators:
    """Dominator sets of the blocks of one region (forward or reverse CFG)."""

    def __init__(self, region: Region, post: bool):
        blocks = list(region.blocks)
        preds = predecessors(region)
        if post:
            edges_in = {b: [s for s in successors(b) if s.parent is region] for b in blocks}
            entries = [b for b in blocks if not edges_in[b]]
        else:
            edges_in = preds
            entries = blocks[:1]
        universe = set(blocks)
        dom: dict[Block, set[Block]] = {b: ({b} if b in entries else set(universe)) for b in blocks}
        changed = True
        while changed:
            changed = False
            for b in blocks:
                if b in entries:
                    continue
                ins = [dom[p] for p in edges_in[b]]
                new = set.intersection(*ins) if ins else set()
                new = new | {b}
                if new != dom[b]:
                    dom[b] = new
                    changed = True
        self.dom = dom

    def dominates(self, a: Block, b: Block) -> bool:
        return a in self.dom.get(b, set())

    def nearest_common(self, a: Block, b: Block) -> Block | None:
        common = self.dom.get(a, set()) & self.dom.get(b, set())
        # the nearest is the one dominated by all the others
        for c in common:
            if all(other in self.dom[c] for other in common):
                return c
        return None


class DominanceInfo:
    """Dominance (or post-dominance, `post=True`) between blocks, nested regions included."""

    def __init__(self, post: bool = False):
        self.post = post
        self._cache: dict[Region, _RegionDominators] = {}

    def _info(self, region: Region) -> _RegionDominators:
        info = self._cache.get(region)
        if info is None:
            info = self._cache[region] = _RegionDominators(region, self.post)
        return info

    def dominates(self, a: Block, b: Block) -> bool:
        """`a` (post-)dominates `b`: equal, `b` nested in `a`, or via the CFG of `a`'s region."""
        if a is b:
            return True
        region = a.parent
        if region is None:
            return False
        anc = ancestor_block_in_region(region, b)
        if anc is None:
            return False
        if anc is a:
            return True
        if len(region.blocks) == 1:
            return False
        return self._info(region).dominates(a, anc)

    def nearest_common_dominator(self, a: Block | None, b: Block | None) -> Block | None:
        """The nearest block (post-)dominating both, looked for in their common region."""
        if a is None or b is None:
            return None
        if a is b:
            return a
        # bring both blocks to a common region
        a_chain: list[Block] = []
        current: Block | None = a
        while current is not None:
            a_chain.append(current)
            op = current.parent_op()
            current = op.parent_block() if op is not None else None
        current = b
        while current is not None:
            for cand in a_chain:
                if cand.parent is current.parent:
                    if cand is current:
                        return cand
                    region = cand.parent
                    assert region is not None
                    return self._info(region).nearest_common(cand, current)
            op = current.parent_op()
            current = op.parent_block() if op is not None else None
        return None
