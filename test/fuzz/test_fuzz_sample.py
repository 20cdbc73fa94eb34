"""A seeded sample of the differential fuzzer inside pytest: 20 random graphs, disc-ir vs XLA.

Each graph runs in the fuzzer's worker process (a segfault fails the test,
it does not kill pytest) and must match XLA or be refused by disc-ir with a
`CompileError`; any mismatch or crash fails, naming the graph.
"""

from __future__ import annotations

import pytest

pytest.importorskip("jax")

from .graph import generate  # noqa: E402
from .runner import Worker  # noqa: E402

SEEDS = range(1000, 1020)


@pytest.fixture(scope="module")
def worker():  # noqa: ANN201
    w = Worker()
    yield w
    w.close()


@pytest.mark.parametrize("seed", SEEDS)
def test_random_graph_matches_xla(worker: Worker, seed: int) -> None:
    graph = generate(seed)
    result = worker.run(graph, "cpu", 60.0)
    assert result["outcome"] in ("match", "refused"), (
        f"seed {seed}: {result['outcome']}: {result.get('detail')}\n{graph.describe()}"
    )
