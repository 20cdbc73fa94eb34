"""GraphCycles: the DAG the fusion planner contracts."""

from __future__ import annotations

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
