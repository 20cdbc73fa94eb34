"""A directed acyclic graph that refuses edges closing a cycle and can contract edges.

This is the dynamic-topological-order structure (Pearce & Kelly) XLA and
BladeDISC use to grow fusion clusters (`GraphCycles` in BladeDISC's
`mlir/disc/utils/cycle_detector.cc`). Every node carries a *rank*; ranks are
a topological order kept up to date on each insertion, so reachability
queries only search between the two ranks.

The fusion planner depends on the exact visiting orders (`all_nodes_in_post_order`,
`successors`), which decide which of several legal fusions wins; they are
reproduced here: successor / predecessor sets keep insertion order and erase
by moving the last element into the hole, as BladeDISC's `OrderedSet` does.
"""

from __future__ import annotations

import numpy as np

_ONE = np.uint64(1)
#: ancestors `reorder_as_if_edge` collects one by one before it reads them
#: off the closure instead
_DFS_BUDGET = 64


def _bit(y: int) -> np.uint64:
    return _ONE << np.uint64(y & 63)


class _OrderedSet:
    """An insertion-ordered set of ints whose erase swaps in the last element."""

    __slots__ = ("_index", "_seq")

    def __init__(self) -> None:
        self._seq: list[int] = []
        self._index: dict[int, int] = {}

    def insert(self, x: int) -> bool:
        if x in self._index:
            return False
        self._index[x] = len(self._seq)
        self._seq.append(x)
        return True

    def erase(self, x: int) -> None:
        pos = self._index.pop(x, None)
        if pos is None:
            return
        last = self._seq.pop()
        if pos < len(self._seq):
            self._seq[pos] = last
            self._index[last] = pos

    def move_last(self, x: int) -> None:
        """`erase(x)` then `insert(x)` for a member `x`: it swaps places with
        the last element."""
        seq, index = self._seq, self._index
        last = len(seq) - 1
        pos = index[x]
        if pos != last:
            other = seq[last]
            seq[pos], seq[last] = other, x
            index[other], index[x] = pos, last

    def __contains__(self, x: object) -> bool:
        return x in self._index

    def __len__(self) -> int:
        return len(self._seq)

    def sequence(self) -> list[int]:
        return list(self._seq)


class _Node:
    __slots__ = ("inputs", "outputs", "rank", "visited")

    def __init__(self, rank: int) -> None:
        self.rank = rank
        self.visited = False
        self.inputs = _OrderedSet()
        self.outputs = _OrderedSet()


class GraphCycles:
    """A DAG over nodes `0..n-1` (initially edgeless, rank = node id)."""

    def __init__(self, num_nodes: int) -> None:
        self._nodes = [_Node(i) for i in range(num_nodes)]
        # the nodes' ranks again, for vectorized queries (`ranks_of`)
        self._ranks = np.arange(num_nodes, dtype=np.int64)
        self._free: list[int] = []
        self._deltaf: list[int] = []
        self._deltab: list[int] = []
        # Transitive closure cache (`reachability`), dropped on any edge change;
        # `_undo` keeps the closure from before the last new edge, restored when
        # that very edge is removed next (a trial edge: the edges are as before).
        self._reach: np.ndarray | None = None
        self._undo: tuple[int, int, np.ndarray] | None = None

    # -- queries --------------------------------------------------------------

    def has_edge(self, x: int, y: int) -> bool:
        return y in self._nodes[x].outputs

    def successors(self, node: int) -> list[int]:
        """A copy of `node`'s successors, in the structure's order."""
        return self._nodes[node].outputs.sequence()

    def rank(self, node: int) -> int:
        """`node`'s position in the current topological order."""
        return self._nodes[node].rank

    def ranks_of(self, nodes: np.ndarray) -> np.ndarray:
        """The ranks of `nodes` (an int64 array)."""
        return self._ranks[nodes]

    def is_active(self, node: int) -> bool:
        """False once `node` was merged away by `contract_edge`."""
        return node not in self._free

    def all_nodes_in_post_order(self) -> list[int]:
        """Active nodes, consumers before producers (decreasing rank)."""
        # the ranks of active nodes are distinct: sorting them orders the nodes
        order = np.argsort(self._ranks)[::-1]
        if self._free:
            active = np.ones(len(self._nodes), dtype=bool)
            active[self._free] = False
            order = order[active[order]]
        return order.tolist()

    def is_reachable(self, x: int, y: int) -> bool:
        """Whether a path leads from `x` to `y` (`x` reaches itself)."""
        if x == y:
            return True
        nx, ny = self._nodes[x], self._nodes[y]
        if nx.rank >= ny.rank:
            return False
        if self._reach is not None:
            return self.reaches(x, y)
        found = self._forward_dfs(x, ny.rank)
        self._clear_visited(self._deltaf)
        return found

    def reachability(self) -> np.ndarray:
        """The transitive closure as a bit matrix: row `x`, bit `y` (word
        `y >> 6`, bit `y & 63` of the uint64 row) set iff a path leads from
        active node `x` to `y` (a node's own bit is clear; rows of merged-away
        nodes are zero). A snapshot: valid until the next change of the edges
        (cached until then). Ask it with `reaches` / `connected_to`.
        """
        if self._reach is not None:
            return self._reach
        n = len(self._nodes)
        # column-major: the updates read and write a node's ancestors (a
        # column, n rows) far more than its descendants (a row, n / 64 words)
        reach = np.zeros((n, (n + 63) // 64), dtype=np.uint64, order="F")
        for x in self.all_nodes_in_post_order():  # successors before their producers
            row = reach[x]
            for w in self._nodes[x].outputs._seq:
                row |= reach[w]
                row[w >> 6] |= _bit(w)
        self._reach, self._undo = reach, None
        return reach

    def reaches(self, x: int, y: int) -> bool:
        """Whether a path of one edge or more leads from `x` to `y`, from the closure."""
        return bool((int(self.reachability()[x, y >> 6]) >> (y & 63)) & 1)

    def connected_to(self, x: int, nodes: np.ndarray) -> np.ndarray:
        """For each of `nodes` (an int64 array), whether a path leads from `x`
        to it or from it to `x` (a bool array)."""
        reach = self.reachability()
        shifts = (nodes & 63).astype(np.uint64)
        forward = (reach[x, nodes >> 6] >> shifts) & _ONE
        backward = (reach[nodes, x >> 6] >> np.uint64(x & 63)) & _ONE
        return (forward | backward).astype(bool)

    def _edges_changed(self) -> None:
        self._reach = self._undo = None

    def can_contract_edge(self, a: int, b: int) -> bool:
        """Whether edge a->b exists and merging its ends leaves the graph acyclic
        (no other path a -> b), answered from the transitive closure."""
        if not self.has_edge(a, b):
            return False
        reach = self.reachability()
        na, nb = self._nodes[a], self._nodes[b]
        # Another path a -> s -> ... -> b exists iff some other successor s of
        # `a` reaches `b`, iff `a` reaches some other predecessor p of `b`
        # (its last hop; p != a as the graph is acyclic): scan the shorter list.
        outs, ins = na.outputs._seq, nb.inputs._seq
        if len(outs) <= len(ins):
            word, shift = b >> 6, b & 63
            other_path = any(s != b and (int(reach[s, word]) >> shift) & 1 for s in outs)
        else:
            row = reach[a]
            other_path = any(p != a and (int(row[p >> 6]) >> (p & 63)) & 1 for p in ins)
        self._move_edge_last(a, b)
        return not other_path

    def _move_edge_last(self, a: int, b: int) -> None:
        # The edge's removal and re-insertion around BladeDISC's search moves it
        # last in both ordered sets; later visiting orders depend on that.
        self._nodes[a].outputs.move_last(b)
        self._nodes[b].inputs.move_last(a)

    def touch_edge(self, a: int, b: int) -> None:
        """What `can_contract_edge(a, b)` does to the graph, without its
        answer: an existing edge a->b moves last in both ordered sets (for a
        caller that already knows it will not contract the edge)."""
        if b in self._nodes[a].outputs._index:
            self._move_edge_last(a, b)

    # -- updates --------------------------------------------------------------

    def insert_edge(self, x: int, y: int) -> bool:
        """Add x->y; False (graph unchanged) if that would close a cycle."""
        if x == y:
            return False
        nx, ny = self._nodes[x], self._nodes[y]
        if not nx.outputs.insert(y):
            return True
        ny.inputs.insert(x)
        before = self._reach
        self._edges_changed()
        if before is not None:
            self._undo = (x, y, before)
        if nx.rank <= ny.rank:
            return True
        if self._forward_dfs(y, nx.rank):
            nx.outputs.erase(y)
            ny.inputs.erase(x)
            self._clear_visited(self._deltaf)
            self._reach, self._undo = before, None  # unchanged edges
            return False
        self._backward_dfs(x, ny.rank)
        self._reorder()
        return True

    def reorder_as_if_edge(self, x: int, y: int) -> None:
        """The ranks `insert_edge(x, y)` then `remove_edge(x, y)` leave, for
        unconnected `x` and `y` with `x` ranked after `y` (edges and closure
        unchanged): the Pearce-Kelly reordering alone."""
        assert self._nodes[x].rank > self._nodes[y].rank
        self.reorder_as_if_edges(x, [y])

    def _reorder_between(self, x: int, y: int) -> None:
        """`reorder_as_if_edge` by the Pearce-Kelly searches themselves."""
        low = self._nodes[y].rank
        found = self._forward_dfs(y, self._nodes[x].rank)
        assert not found, "reorder_as_if_edge on connected nodes"
        budget = _DFS_BUDGET if self._reach is not None else -1
        if not self._backward_dfs(x, low, budget):
            # many nodes above `x` lie between the two: read them off the
            # closure (every ancestor ranked after `y`) and reorder in bulk
            self._clear_visited(self._deltab)
            self._reorder_in_bulk(self._ancestors_ranked_after(x, low))
            return
        self._reorder()

    def reorder_as_if_edges(self, x: int, ys: list[int]) -> None:
        """`reorder_as_if_edge(x, y)` for each of `ys` in turn that is ranked
        before `x` by then (the others are already in order)."""
        nodes, ranks = self._nodes, self._ranks
        nx = nodes[x]
        inputs = nx.inputs._seq

        def highest_input() -> int:
            return max((nodes[w].rank for w in inputs), default=-1)

        # the highest rank among `x`'s inputs: a swap of `x` and a `y` ranked
        # above it leaves it as it is
        top_input = highest_input()
        for y in ys:
            ny = nodes[y]
            low, high = ny.rank, nx.rank
            if low > high:
                continue
            reaches_between = False
            for w in ny.outputs._seq:
                if nodes[w].rank < high:
                    reaches_between = True
                    break
            # the common cases without the searches' bookkeeping
            if top_input < low:
                # only `x` lies above `y` on its side: `x` takes `y`'s rank
                if reaches_between:
                    # and `y` with what it reaches below `x` moves up a slot each
                    self._rotate_after(x, y)
                else:
                    nx.rank, ny.rank = low, high
                    ranks[x], ranks[y] = low, high
                continue
            if not reaches_between:
                # what lies above `y` on `x`'s side may be direct inputs whose
                # own inputs lie before `y` (e.g. a constant's buffer)
                moved = [w for w in inputs if nodes[w].rank > low]
                if all(nodes[u].rank < low for w in moved for u in nodes[w].inputs._seq):
                    # they and `x` move before `y`, keeping their order; `y`
                    # takes `x`'s rank
                    moved.sort(key=lambda w: nodes[w].rank)
                    slots = [low] + [nodes[w].rank for w in moved]
                    moved.append(x)
                    for w, rank in zip(moved, slots, strict=True):
                        nodes[w].rank = rank
                    ny.rank = high
                    ranks[moved] = slots
                    ranks[y] = high
                    top_input = highest_input()
                    continue
            self._reorder_between(x, y)
            top_input = highest_input()

    def _rotate_after(self, x: int, y: int) -> None:
        """`_reorder_between(x, y)` when no input of `x` is ranked after `y`:
        the backward search would find `x` alone, so only the forward one runs."""
        nodes, ranks = self._nodes, self._ranks
        nx = nodes[x]
        top = nx.rank
        found = self._forward_dfs(y, top)
        assert not found, "reorder_as_if_edge on connected nodes"
        # `_reorder` with `x` alone behind: `y` is the lowest of the forward
        # nodes and `x` is above them all, so `x` takes `y`'s rank and each
        # forward node the next rank up among theirs and `x`'s
        fore = sorted([(nodes[n].rank, n) for n in self._deltaf])
        nx.rank = ranks[x] = fore[0][0]
        slots = [rank for rank, _ in fore[1:]]
        slots.append(top)
        for (_, n), rank in zip(fore, slots, strict=True):
            node = nodes[n]
            node.visited = False
            node.rank = ranks[n] = rank

    def _ancestors_ranked_after(self, x: int, low: int) -> np.ndarray:
        """`x` and the nodes reaching it ranked after `low`, from the closure:
        what `_backward_dfs(x, low)` visits (a path into `x` from such a node
        only passes nodes ranked after it)."""
        assert self._reach is not None
        column = (self._reach[:, x >> 6] >> np.uint64(x & 63)) & _ONE
        above = np.flatnonzero(column)
        return np.append(above[self._ranks[above] > low], x)

    def _reorder_in_bulk(self, deltab: np.ndarray) -> None:
        """`_reorder` with `deltab` given as an array (many nodes)."""
        deltaf = np.asarray(self._deltaf, dtype=np.int64)
        for n in self._deltaf:
            self._nodes[n].visited = False
        ranks_b, ranks_f = self._ranks[deltab], self._ranks[deltaf]
        order = np.concatenate((deltab[np.argsort(ranks_b)], deltaf[np.argsort(ranks_f)]))
        ranks = np.sort(np.concatenate((ranks_b, ranks_f)))
        self._ranks[order] = ranks
        nodes = self._nodes
        for n, rank in zip(order.tolist(), ranks.tolist(), strict=True):
            nodes[n].rank = rank

    def remove_edge(self, x: int, y: int) -> None:
        if y not in self._nodes[x].outputs:
            return
        undo = self._undo
        self._nodes[x].outputs.erase(y)
        self._nodes[y].inputs.erase(x)
        if undo is not None and undo[0] == x and undo[1] == y and self._reach is None:
            self._reach, self._undo = undo[2], None  # the edges before x->y was added
        else:
            self._edges_changed()

    def contract_edge(self, a: int, b: int) -> int | None:
        """Merge the ends of edge a->b into one node (returned), None if that
        would close a cycle. The surviving node is the one with more edges."""
        assert self.has_edge(a, b)
        with_edge = self._reach
        self.remove_edge(a, b)
        if self.is_reachable(a, b):
            self.insert_edge(a, b)
            return None
        # a closure of the graph with or without the edge (a trial edge's
        # removal restores the one from before it), updated below
        closure = with_edge if with_edge is not None else self._reach
        ends = (a, b)
        na, nb = self._nodes[a], self._nodes[b]
        if len(nb.inputs) + len(nb.outputs) > len(na.inputs) + len(na.outputs):
            a, b = b, a
        nb = self._nodes[b]
        outs, ins = nb.outputs.sequence(), nb.inputs.sequence()
        nb.outputs, nb.inputs = _OrderedSet(), _OrderedSet()
        for y in outs:
            self._nodes[y].inputs.erase(b)
        for y in ins:
            self._nodes[y].outputs.erase(b)
        self._free.append(b)
        self._edges_changed()
        for y in outs:
            self.insert_edge(a, y)
        for y in ins:
            self.insert_edge(y, a)
        if closure is not None:
            self._reach = _contracted_closure(closure, ends, a, b)
            self._undo = None
        return a

    # -- Pearce-Kelly internals ------------------------------------------------

    def _forward_dfs(self, n: int, upper_bound: int) -> bool:
        self._deltaf = []
        stack = [n]
        while stack:
            n = stack.pop()
            node = self._nodes[n]
            if node.visited:
                continue
            node.visited = True
            self._deltaf.append(n)
            # the DFS does not change edges: read the set's list in place (no copy)
            for w in node.outputs._seq:
                nw = self._nodes[w]
                if nw.rank == upper_bound:
                    return True
                if not nw.visited and nw.rank < upper_bound:
                    stack.append(w)
        return False

    def _backward_dfs(self, n: int, lower_bound: int, budget: int = -1) -> bool:
        """Visit `n` and its ancestors ranked after `lower_bound` (`_deltab`);
        False, stopping early, once more than `budget` (if not negative) are."""
        self._deltab = []
        stack = [n]
        while stack:
            n = stack.pop()
            node = self._nodes[n]
            if node.visited:
                continue
            if len(self._deltab) == budget:
                return False
            node.visited = True
            self._deltab.append(n)
            for w in node.inputs._seq:
                nw = self._nodes[w]
                if not nw.visited and lower_bound < nw.rank:
                    stack.append(w)
        return True

    def _reorder(self) -> None:
        # ranks are distinct: (rank, node) pairs sort by rank alone
        nodes = self._nodes
        back = sorted([(nodes[n].rank, n) for n in self._deltab])
        fore = sorted([(nodes[n].rank, n) for n in self._deltaf])
        order = [n for _, n in back] + [n for _, n in fore]
        ranks = sorted([r for r, _ in back] + [r for r, _ in fore])
        for n, rank in zip(order, ranks, strict=True):
            node = nodes[n]
            node.visited = False
            node.rank = rank
        self._ranks[order] = ranks

    def _clear_visited(self, nodes: list[int]) -> None:
        for n in nodes:
            self._nodes[n].visited = False


def _contracted_closure(
    closure: np.ndarray, ends: tuple[int, int], kept: int, removed: int
) -> np.ndarray:
    """The transitive closure after merging `ends` (no other path between
    them) into `kept`, updated in place from the closure before (with or
    without the edge between them): whatever reached either end reaches
    `kept` and all that either end reached.

    A node that reached end `e` already reaches `e` and all below it: it
    gains what lies below the other end alone, and trades `removed` for
    `kept`. Those gains are a few words of the row: only they are rewritten,
    for each node above either end.
    """
    e0, e1 = ends
    # per node, bit 0: it reaches e0, bit 1: it reaches e1; the few nonzero
    # rows are split by kind (each whole-column pass costs as much as the rest)
    reaching = ((closure[:, e0 >> 6] >> np.uint64(e0 & 63)) & _ONE) | (
        ((closure[:, e1 >> 6] >> np.uint64(e1 & 63)) & _ONE) << _ONE
    )
    above_any = np.flatnonzero(reaching)
    kinds = reaching[above_any]
    # each end and all below it
    below0, below1 = closure[e0].copy(), closure[e1].copy()
    below0[e0 >> 6] |= _bit(e0)
    below1[e1 >> 6] |= _bit(e1)
    kept_bit = np.zeros_like(below0)
    kept_bit[kept >> 6] = _bit(kept)
    for kind, gain in (
        (3, kept_bit),
        (1, (below1 & ~below0) | kept_bit),
        (2, (below0 & ~below1) | kept_bit),
    ):
        rows = above_any[kinds == kind]
        if not len(rows):
            continue
        # only the words `gain` touches change, and the one holding `removed`
        for word in np.flatnonzero(gain).tolist():
            column = closure[:, word]
            column[rows] |= gain[word]
        column = closure[:, removed >> 6]
        column[rows] &= ~_bit(removed)
    merged = below0 | below1
    for e in ends:
        merged[e >> 6] &= ~_bit(e)
    closure[kept] = merged
    closure[removed] = 0
    return closure


__all__ = ["GraphCycles"]
