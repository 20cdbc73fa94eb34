"""GraphCycles: the DAG the fusion planner contracts."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from disc_ir.analysis import graph_cycles
from disc_ir.analysis.graph_cycles import GraphCycles


def test_refuses_cycles_and_reorders() -> None:
    g = GraphCycles(4)
    assert g.insert_edge(2, 1)  # against the initial rank order: reorders
    assert g.insert_edge(1, 0)
    assert not g.insert_edge(0, 2)  # would close 2 -> 1 -> 0 -> 2
    assert g.is_reachable(2, 0) and not g.is_reachable(0, 2)
    assert g.all_nodes_in_post_order()[-1] == 2  # producers last


def test_contract_edge_keeps_acyclic() -> None:
    g = GraphCycles(3)
    for a, b in [(0, 1), (1, 2), (0, 2)]:
        g.insert_edge(a, b)
    assert not g.can_contract_edge(0, 2)  # 0 -> 1 -> 2 would become a cycle
    merged = g.contract_edge(0, 1)
    assert merged in (0, 1)
    other = 1 if merged == 0 else 0
    assert not g.is_active(other)
    assert g.successors(merged) == [2]
    assert g.can_contract_edge(merged, 2)


def _reference_reach(g: GraphCycles, x: int) -> set[int]:
    seen: set[int] = set()
    stack = list(g.successors(x))
    while stack:
        n = stack.pop()
        if n not in seen:
            seen.add(n)
            stack.extend(g.successors(n))
    return seen


@pytest.mark.parametrize(("n", "steps"), [(40, 300), (150, 60)])
def test_closure_cache_follows_every_edge_change(n: int, steps: int) -> None:
    """`reachability`, `is_reachable` and `can_contract_edge` answered from the
    cached closure agree with a plain search after inserts, trial edges
    (insert then remove), removals and contractions (on closures of one and of
    several 64-bit words a row); the edge order side effect of
    `can_contract_edge` (the edge moves last) is kept."""
    import random

    rng = random.Random(7)
    g = GraphCycles(n)
    for _ in range(2 * n):
        a, b = rng.randrange(n), rng.randrange(n)
        g.insert_edge(a, b)
    for step in range(steps):
        nodes = g.all_nodes_in_post_order()
        for x in nodes:
            expected = _reference_reach(g, x)
            assert {y for y in nodes if g.reaches(x, y)} == expected
            others = np.array([y for y in nodes if y != x], dtype=np.int64)
            connected = g.connected_to(x, others)
            assert [bool(c) for c in connected] == [
                y in expected or x in _reference_reach(g, y) for y in others.tolist()
            ]
            y = rng.choice(nodes)
            assert g.is_reachable(x, y) == (x == y or y in expected)
        a, b = rng.choice(nodes), rng.choice(nodes)
        kind = step % 4
        if kind == 0 and a != b and not g.is_reachable(a, b) and not g.is_reachable(b, a):
            g.reachability()
            g.insert_edge(a, b)  # a trial edge, removed again ...
            if step % 8 == 0:
                g.contract_edge(a, b)  # ... or contracted (a horizontal merge)
            else:
                g.remove_edge(a, b)
        elif kind == 1 and g.successors(a):
            b = g.successors(a)[0]
            others = [s for s in g.successors(a) if s != b]
            assert g.can_contract_edge(a, b) == (
                not any(b in _reference_reach(g, s) or s == b for s in others)
            )
            assert g.successors(a)[-1] == b
            if g.can_contract_edge(a, b):
                g.contract_edge(a, b)
        elif kind == 2 and g.successors(a):
            g.remove_edge(a, g.successors(a)[-1])
        else:
            g.insert_edge(a, b)


def _twin_graphs(rng: Any, n: int, edges: int) -> tuple[GraphCycles, GraphCycles]:
    """Two graphs of `n` nodes given the same `edges` random edge insertions."""
    g1, g2 = GraphCycles(n), GraphCycles(n)
    for _ in range(edges):
        a, b = rng.randrange(n), rng.randrange(n)
        assert g1.insert_edge(a, b) == g2.insert_edge(a, b)
    return g1, g2


def _unconnected_sample(rng: Any, g: GraphCycles, n: int, x: int, k: int) -> list[int]:
    """Up to `k` random nodes other than `x` that no path joins to it in `g`."""
    ys = [y for y in rng.sample(range(n), k) if y != x]
    return [y for y in ys if not g.is_reachable(x, y) and not g.is_reachable(y, x)]


def _trial_edges(g: GraphCycles, x: int, ys: list[int]) -> None:
    """What the replay stands for: each virtual edge x -> y inserted and
    removed in turn, where `y` is ranked before `x` by then."""
    for y in ys:
        if g.rank(x) > g.rank(y):
            g.insert_edge(x, y)
            g.remove_edge(x, y)


@pytest.mark.parametrize("budget", [64, 1])
def test_reorder_as_if_edge_matches_a_trial_edge(
    budget: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fusion planner's refused horizontal pairs only replay the rank
    change of a virtual edge: same post order, edges and closure as
    `insert_edge` then `remove_edge`, whether the ancestors to move are
    searched one by one or (past the search budget) read off the closure."""
    import random

    monkeypatch.setattr(graph_cycles, "_DFS_BUDGET", budget)
    rng = random.Random(11)
    n = 30
    g1, g2 = _twin_graphs(rng, n, 45)
    tried = 0
    for _ in range(200):
        a, b = rng.randrange(n), rng.randrange(n)
        if a == b or g1.is_reachable(a, b) or g1.is_reachable(b, a):
            continue
        if g1.rank(a) < g1.rank(b):
            a, b = b, a
        g1.insert_edge(a, b)
        g1.remove_edge(a, b)
        g2.reachability()  # the closure the bulk path reads
        g2.reorder_as_if_edge(a, b)
        tried += 1
        assert g1.all_nodes_in_post_order() == g2.all_nodes_in_post_order()
        assert all(g1.successors(x) == g2.successors(x) for x in range(n))
        assert np.array_equal(g1.reachability(), g2.reachability())
    assert tried > 10


def test_reorder_as_if_edges_replays_each_in_turn() -> None:
    """The batched replay of refused virtual edges x -> y (each y in turn,
    only those ranked before x by then) leaves the ranks trial edges leave."""
    import random

    rng = random.Random(5)
    n = 40
    g1, g2 = _twin_graphs(rng, n, 50)
    batches = 0
    for _ in range(60):
        x = rng.randrange(n)
        ys = _unconnected_sample(rng, g1, n, x, 12)
        _trial_edges(g1, x, ys)
        g2.reorder_as_if_edges(x, ys)
        batches += len(ys) > 1
        assert g1.all_nodes_in_post_order() == g2.all_nodes_in_post_order()
    assert batches > 10


def test_reorder_as_if_edges_matches_trial_edges_on_random_graphs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every shortcut of the batched replay (a swap, the rotation of what `y`
    reaches below `x`, the moved direct inputs, the searches) leaves each
    node's rank where trial edges x -> y leave it, on graphs of several
    densities; the rotation is taken often."""
    import random

    rotations = [0]
    rotate = GraphCycles._rotate_after

    def counted(self: GraphCycles, x: int, y: int) -> None:
        rotations[0] += 1
        rotate(self, x, y)

    monkeypatch.setattr(GraphCycles, "_rotate_after", counted)
    for seed in range(60):
        rng = random.Random(seed)
        n = rng.choice([20, 40, 80])
        g1, g2 = _twin_graphs(rng, n, rng.randrange(n // 2, 3 * n))
        for _ in range(20):
            x = rng.randrange(n)
            ys = _unconnected_sample(rng, g1, n, x, 16)
            _trial_edges(g1, x, ys)
            if rng.random() < 0.5:
                g2.reachability()  # the closure the searches' bulk path reads
            g2.reorder_as_if_edges(x, ys)
            assert [g1.rank(i) for i in range(n)] == [g2.rank(i) for i in range(n)]
            assert g2.ranks_of(np.arange(n)).tolist() == [g2.rank(i) for i in range(n)]
    assert rotations[0] > 100
