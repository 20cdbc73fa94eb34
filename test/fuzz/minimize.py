"""Delta-debugging of a failing graph: smaller graphs and shapes that still fail the same way.

`signature(result)` is what "the same way" means: the outcome plus, for a
crash, its stage and exception type. `minimize` greedily applies reductions,
keeping each one whose graph still has the signature, until none applies or
the step budget is spent:

1. keep only the failing output (a mismatch names it), then each output alone;
2. replace an op node by a fresh graph input of its shape and dtype (cuts its
   whole producer subgraph; only when its dims are ints or plain symbols);
3. bypass an op node: its users read its first operand instead (same aval);
4. run only the failing binding, then shrink its symbol values towards 1.

`write_repro` stores the result: `graph.json`, `module.mlir` (StableHLO),
`inputs.npz` (the failing binding's inputs) and `description.txt`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .graph import SYMBOLS, Graph, prune
from .runner import BINDINGS

Run = Callable[[Graph, list[dict[str, int]] | None, str | None], dict[str, Any]]


def signature(result: dict[str, Any]) -> tuple[str, ...]:
    outcome = result["outcome"]
    if outcome == "crash":
        return (outcome, str(result.get("stage")), str(result.get("kind")))
    return (outcome,)


def _plain_dims(shape: list[Any]) -> bool:
    return all(isinstance(d, int) or d in SYMBOLS for d in shape)


def _as_input(graph: Graph, index: int) -> Graph | None:
    v = graph.values[index]
    if "op" not in v or not _plain_dims(v["shape"]) or index in graph.outputs:
        return None
    out = graph.copy()
    out.values[index] = {"input": {"shape": list(v["shape"]), "dtype": v["dtype"]}}
    return prune(out)


def _bypass(graph: Graph, index: int) -> Graph | None:
    v = graph.values[index]
    if "op" not in v:
        return None
    src = graph.values[v["args"][0]]
    shape, dtype = (
        (src["input"]["shape"], src["input"]["dtype"])
        if "input" in src
        else (src["shape"], src["dtype"])
    )
    if [str(d) for d in shape] != [str(d) for d in v["shape"]] or dtype != v["dtype"]:
        return None
    out = graph.copy()
    for w in out.values:
        if "args" in w:
            w["args"] = [v["args"][0] if a == index else a for a in w["args"]]
    out.outputs = [v["args"][0] if o == index else o for o in out.outputs]
    if any("input" in out.values[o] for o in out.outputs):
        return None
    return prune(out)


def _graph_candidates(graph: Graph, failing_output: int | None) -> Iterator[Graph]:
    if len(graph.outputs) > 1:
        order = ([failing_output] if failing_output is not None else []) + list(
            range(len(graph.outputs))
        )
        for k in order:
            yield prune(Graph(graph.seed, graph.values, [graph.outputs[k]]))
    for i in range(len(graph.values)):
        for make in (_as_input, _bypass):
            candidate = make(graph, i)
            if candidate is not None:
                yield candidate


def minimize(
    graph: Graph, result: dict[str, Any], run: Run, max_steps: int = 60
) -> tuple[Graph, list[dict[str, int]] | None, dict[str, Any]]:
    """The smallest graph and bindings found that fail with `result`'s signature, and its result."""
    want = signature(result)
    steps = 0
    bindings: list[dict[str, int]] | None = None
    graph = prune(graph)
    progress = True
    while progress and steps < max_steps:
        progress = False
        for candidate in _graph_candidates(graph, result.get("output")):
            if steps >= max_steps:
                break
            steps += 1
            got = run(candidate, bindings, None)
            if signature(got) == want:
                graph, result, progress = candidate, got, True
                break
    if "binding" in result and steps < max_steps:
        binding = dict(result["binding"])
        got = run(graph, [binding], None)
        if signature(got) == want:
            bindings, result = [binding], got
            for sym in list(binding):
                for smaller in range(1, binding[sym]):
                    if steps >= max_steps:
                        break
                    steps += 1
                    trial = dict(binding, **{sym: smaller})
                    got = run(graph, [trial], None)
                    if signature(got) == want:
                        binding, bindings, result = trial, [trial], got
                        break
    return graph, bindings, result


def write_repro(
    out_dir: Path,
    graph: Graph,
    bindings: list[dict[str, int]] | None,
    result: dict[str, Any],
    run: Run,
) -> Path:
    """Re-runs the minimized graph with `save_dir` set and writes the repro folder."""
    folder = out_dir / f"repro_seed{graph.seed}_{result['outcome']}"
    folder.mkdir(parents=True, exist_ok=True)
    final = run(graph, bindings or BINDINGS, str(folder))
    (folder / "graph.json").write_text(graph.to_json())
    detail = (final.get("detail") or result.get("detail") or "").splitlines()
    line = (
        f"seed {graph.seed}: {final['outcome']} at {final.get('binding', bindings)}: "
        f"{detail[0] if detail else ''} | {graph.describe()}"
    )
    (folder / "description.txt").write_text(line + "\n")
    (folder / "result.json").write_text(json.dumps(final, indent=1))
    return folder
