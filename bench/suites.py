"""docs/benchmarks.md sections for the suites whose runs live in folders of bench/results/.

`python -m bench` runs (bench/results/*.json) are rendered by `bench.report`;
the other benchmark commands keep their runs in a folder each, named after the
suite, and `sections(root)` renders the newest run of each as Markdown:

- `bench/results/artifact/`: `python -m bench.artifact` (load + first call of
  saved artifacts against a compile, the warm compile cache, per-call cost);
- `bench/results/onednn_graph/`: `python -m bench.onednn_graph` (oneDNN Graph
  JSON graphs through the C API, the Python API and numpy);
- `bench/results/torch_zoo/`: `python -m bench.torch_zoo --out ...` (the
  PyTorch zoo: eager, disc-ir and torch.compile's inductor);
- `bench/results/fuzz/`: `python -m test.fuzz ... --record FILE` (a differential
  fuzzing campaign against XLA: outcomes, families, the failing seeds).

Only the standard library is imported: the page is generated without torch.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _num(value: Any, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def artifact(run: dict[str, Any]) -> list[str]:
    """Saved artifacts: load + first call in a fresh process, sizes, memory, cache, per call."""
    rows = []
    for r in run.get("load", []):
        if "error" in r:
            rows.append([r["model"], "error: " + str(r["error"])[:60]] + ["-"] * 7)
            continue
        rows.append([
            r["model"], _num(r["compile_s"], ".2f"), _num(r["load_first_call_ms"], ".1f"),
            _num(r["artifact_bytes"] / 1024, ".0f"), _num(r["constants_bytes"] / 1024, ".0f"),
            _num(r["rss_mb"], ".0f"), _num(r["compile_rss_mb"], ".0f"),
            _num(r.get("plan_arena_bytes", 0) / 1024, ".0f"),
            _num(r.get("plan_unplanned_bytes", 0) / 1024, ".0f"),
        ])  # fmt: skip
    lines = ["Each model compiled, saved, then loaded and called once in a fresh process that "
             "imports neither xDSL nor the compiler.", ""]  # fmt: skip
    lines += _table(
        ["model", "compile s", "load + 1st call ms", "artifact KB", "constants KB",
         "RSS loaded MB", "RSS compiled MB", "planned KB", "one buffer each KB"], rows,
    )  # fmt: skip
    cache, call = run.get("cache", {}), run.get("call", {})
    if cache:
        lines += [
            f"{cache['shapes']} shapes of {cache['model']} with a warm compile cache: disc-ir "
            f"{cache['disc_total_s'] * 1e3:.1f} ms in all (cache load {cache['disc_load_s'] * 1e3:.1f}"
            f" ms), jax.jit {_num(cache.get('jax_total_s', None) and cache['jax_total_s'] * 1e3, '.0f')}"
            f" ms: {_num(cache.get('ratio'), '.1f')}x.",
            "",
        ]
    if call:
        lines += [
            f"Per call of `tanh(x) + 1` on 16 floats: Executable {call['executable_us']:.1f} us, "
            f"loaded module {call['loaded_us']:.1f} us, jax.jit {_num(call.get('jax_us'), '.1f')} us.",
            "",
        ]
    return lines


def onednn_graph(run: dict[str, Any]) -> list[str]:
    """oneDNN Graph JSON graphs: C API, Python API (arrays and raw buffers), numpy, torch."""
    s = run.get("summary", {})
    lines = [
        f"{s.get('graphs', 0)} graphs, median of {run.get('repeats', '?')} calls each "
        f"(ms); every graph ran through the C API: {s.get('capi_all_ok')}. Median C entry "
        f"overhead {_num(s.get('c_entry_overhead_ms_median'), '.2f')} ms; median speedup of the "
        f"C API over numpy {_num(s.get('capi_vs_numpy_speedup_median'), '.2f')}x.",
        "",
    ]
    rows = [
        [r["graph"], str(r.get("ops", "-")), _num(r.get("compile_s"), ".2f"),
         _num(r.get("capi_ms"), ".3f"), _num(r.get("py_buffers_ms"), ".3f"),
         _num(r.get("py_ms"), ".3f"), _num(r.get("numpy_ms"), ".3f"), _num(r.get("torch_ms"), ".3f")]
        for r in run.get("rows", [])
    ]  # fmt: skip
    return lines + _table(
        ["graph", "ops", "compile s", "C API", "Python, buffers", "Python, arrays", "numpy",
         "torch"], rows,
    )  # fmt: skip


def torch_zoo(run: dict[str, Any]) -> list[str]:
    """The PyTorch zoo: fastest call (ms) per system and batch, disc-ir's one compile."""
    systems = [s for s in ("eager", "disc-ir", "inductor") if any(s in r for r in run["rows"])]
    rows = [
        [r["model"], str(r["batch"])] + [_num(r.get(s), ".3f") for s in systems]
        + [_num(r.get("disc_compile_s"), ".1f")]
        for r in run["rows"]
    ]  # fmt: skip
    load = run.get("load_average", {}).get("before", [None])[0]
    lines = [
        f"torch {run.get('torch', '?')}, {run.get('threads', '?')} threads; load average "
        f"{_num(load, '.1f')} at the start. Fastest call in ms, systems interleaved call by call.",
        "",
    ]
    ratios = [r["disc-ir"] / r["eager"] for r in run["rows"] if r.get("disc-ir") and r.get("eager")]
    if ratios:
        lines += [f"disc-ir / eager, median over the rows: {statistics.median(ratios):.2f}x.", ""]
    return lines + _table(
        ["model", "batch", *(f"{s} ms" for s in systems), "disc-ir compile s"], rows
    )


#: folder under bench/results -> (title, renderer)
def fuzz(run: dict[str, Any]) -> list[str]:
    """A differential fuzzing campaign against XLA: outcomes, op families, the tie-break's calls."""
    ran = max(1, run["ran"])
    last = run["seed"] + run["count"] - 1
    lines = [
        f"{run['ran']} random JAX graphs (seeds {run['seed']}..{last}, target {run['target']}, "
        f"{run.get('jobs', 1)} worker(s)) in {run['seconds'] / 60:.0f} min "
        f"({run['seconds'] * run.get('jobs', 1) / ran:.2f} s a graph per worker)"
        + (f", disc-ir at commit {run['commit']}." if run.get("commit") else "."),
        "",
    ]
    rows = [[o, str(n), f"{100.0 * n / ran:.2f}%"] for o, n in sorted(run["outcomes"].items())]
    lines += _table(["outcome", "graphs", "share"], rows)
    rows = [
        [fam, str(sum(c.values())), str(sum(v for o, v in c.items() if o not in ("match", "refused"))),
         str(c.get("refused", 0))]
        for fam, c in run["families"].items()
    ]  # fmt: skip
    lines += _table(["op family", "graphs", "not match", "refused"], rows)
    for key, what in (
        ("failed_seeds", None),
        ("xla_deviation_seeds", "disagreed with XLA where disc-ir matched the float64 evaluation"),
        ("redrawn_seeds", "had inputs redrawn (ill-conditioned: rounding decides the answer)"),
        ("unstable_seeds", "had a binding ill-conditioned at every draw"),
    ):
        value = run.get(key) or {}
        groups = value.items() if isinstance(value, dict) else [(what, value)]
        for label, seeds in groups:
            if seeds:
                shown = " ".join(map(str, seeds[:30])) + (" ..." if len(seeds) > 30 else "")
                lines += [f"- {len(seeds)} graphs {label}: {shown}"]
    return lines + [""]


SUITES: dict[str, tuple[str, Callable[[dict[str, Any]], list[str]]]] = {
    "artifact": ("Deployable artifacts", artifact),
    "onednn_graph": ("oneDNN Graph JSON through the C API", onednn_graph),
    "torch_zoo": ("PyTorch zoo", torch_zoo),
    "fuzz": ("Differential fuzzing against XLA", fuzz),
}


def sections(results: Path, display: Callable[[Path], str]) -> list[str]:
    """Markdown of the newest run in each suite folder of `results` (file names start with the date)."""
    lines: list[str] = []
    for folder, (title, render) in SUITES.items():
        runs = sorted((results / folder).glob("*.json"), key=lambda p: p.name)
        if not runs:
            continue
        newest = runs[-1]
        lines += [f"## {title}", "", f"From `{display(newest)}`.", ""]
        lines += render(json.loads(newest.read_text()))
    return lines
