"""`python -m test.fuzz`: differential fuzzing of disc-ir against XLA on random JAX graphs.

    python -m test.fuzz --seed S --count N --out DIR [--target cpu|cuda] [--jobs J]
                        [--time-limit SEC] [--compile-limit SEC] [--no-minimize]

Graphs `S .. S+N-1` are generated here and evaluated in `J` worker processes
(`runner.Worker`); `--time-limit` stops starting new graphs after SEC seconds
(the summary says how many ran), `--compile-limit` is the per-graph compile
time above which a graph is `slow` (default 60). Every mismatch, crash and
slow graph is minimized (`minimize.py`) into `DIR/repro_seed<S>_<outcome>/`.
Prints a table (outcomes, op families, failing seeds, refused ops) and writes
`DIR/summary.json` with every graph's result. Exit status 1 when any graph
was a mismatch, crash or invalid.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from .graph import Graph, generate
from .minimize import minimize, write_repro
from .ops import OPS
from .runner import Worker

FAILURES = ("mismatch", "crash", "slow", "invalid")


def _families(graph: Graph) -> set[str]:
    return {OPS[v["op"]].family for v in graph.values if "op" in v}


def run_campaign(
    seed: int,
    count: int,
    out: Path,
    target: str = "cpu",
    jobs: int = 1,
    time_limit: float | None = None,
    compile_limit: float = 60.0,
    do_minimize: bool = True,
) -> dict[str, Any]:
    """Evaluates graphs `seed..seed+count-1`, minimizes failures, returns the summary dict."""
    out.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    seeds = iter(range(seed, seed + count))
    lock = threading.Lock()
    records: list[dict[str, Any]] = []

    def work() -> None:
        worker = Worker()
        try:
            while True:
                with lock:
                    if time_limit is not None and time.monotonic() - start > time_limit:
                        return
                    s = next(seeds, None)
                if s is None:
                    return
                graph = generate(s)
                result = worker.run(graph, target, compile_limit)
                record = {
                    "seed": s,
                    "ops": graph.ops_used(),
                    "families": sorted(_families(graph)),
                    **result,
                }
                if result["outcome"] in FAILURES and result["outcome"] != "invalid" and do_minimize:

                    def run(
                        g: Graph, b: list[dict[str, int]] | None, d: str | None
                    ) -> dict[str, Any]:
                        return worker.run(g, target, compile_limit, b, d)

                    small, bindings, small_result = minimize(graph, result, run)
                    record["repro"] = str(write_repro(out, small, bindings, small_result, run))
                    record["minimized"] = small.describe()
                with lock:
                    records.append(record)
                    print(
                        f"seed {s}: {result['outcome']}"
                        + (
                            f" ({(result.get('detail') or '').splitlines()[0][:120]})"
                            if result["outcome"] != "match"
                            else ""
                        ),
                        flush=True,
                    )
        finally:
            worker.close()

    threads = [threading.Thread(target=work) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    records.sort(key=lambda r: r["seed"])
    outcomes = collections.Counter(r["outcome"] for r in records)
    families: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for r in records:
        for fam in r["families"]:
            families[fam][r["outcome"]] += 1
    summary = {
        "seed": seed,
        "count": count,
        "ran": len(records),
        "target": target,
        "seconds": round(time.monotonic() - start, 1),
        "outcomes": dict(outcomes),
        "families": {f: dict(c) for f, c in sorted(families.items())},
        "failed_seeds": {o: [r["seed"] for r in records if r["outcome"] == o] for o in FAILURES},
        # where the tie-break decided (see runner.judge): graphs whose disagreements with
        # XLA were XLA's, graphs with ill-conditioned draws redrawn, graphs with a binding
        # ill-conditioned at every draw
        "xla_deviation_seeds": [r["seed"] for r in records if r.get("xla_deviations")],
        "redrawn_seeds": [r["seed"] for r in records if r.get("redrawn")],
        "unstable_seeds": [r["seed"] for r in records if r.get("unstable_bindings")],
        "refused_ops": dict(
            collections.Counter(r.get("op", "?") for r in records if r["outcome"] == "refused")
        ),
        "graphs": records,
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def print_summary(summary: dict[str, Any]) -> None:
    ran = summary["ran"]
    print(
        f"\n{ran} graphs (seeds {summary['seed']}..{summary['seed'] + summary['count'] - 1}, "
        f"target {summary['target']}) in {summary['seconds']} s"
    )
    print(f"{'outcome':<10}{'graphs':>8}{'share':>9}")
    for outcome in ("match", "mismatch", "crash", "refused", "slow", "invalid"):
        n = summary["outcomes"].get(outcome, 0)
        print(f"{outcome:<10}{n:>8}{100.0 * n / max(ran, 1):>8.1f}%")
    print(f"\n{'op family':<16}{'graphs':>8}{'failing':>9}{'refused':>9}")
    for fam, counts in summary["families"].items():
        failing = sum(counts.get(o, 0) for o in FAILURES)
        print(f"{fam:<16}{sum(counts.values()):>8}{failing:>9}{counts.get('refused', 0):>9}")
    for outcome, seeds in summary["failed_seeds"].items():
        if seeds:
            print(f"{outcome} seeds: {' '.join(map(str, seeds))}")
    for key, what in (
        ("xla_deviation_seeds", "disagreed with XLA, agreed with the precise evaluation"),
        ("redrawn_seeds", "had ill-conditioned inputs, redrawn"),
        ("unstable_seeds", "had a binding ill-conditioned at every draw"),
    ):
        seeds = summary.get(key, [])
        if seeds:
            print(
                f"{len(seeds)} graphs {what}: {' '.join(map(str, seeds[:40]))}"
                + (" ..." if len(seeds) > 40 else "")
            )
    if summary["refused_ops"]:
        print("refused ops: " + ", ".join(f"{k} x{v}" for k, v in summary["refused_ops"].items()))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m test.fuzz", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--target", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--time-limit", type=float, default=None, help="start no new graph after this many seconds"
    )
    parser.add_argument(
        "--compile-limit", type=float, default=60.0, help="a compile slower than this is 'slow'"
    )
    parser.add_argument("--no-minimize", action="store_true")
    parser.add_argument(
        "--record",
        type=Path,
        default=None,
        help="also write the summary without per-graph records here "
        "(bench/results/fuzz/<date>-<machine>.json)",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    summary = run_campaign(
        args.seed,
        args.count,
        args.out,
        args.target,
        args.jobs,
        args.time_limit,
        args.compile_limit,
        not args.no_minimize,
    )
    print_summary(summary)
    if args.record is not None:
        args.record.parent.mkdir(parents=True, exist_ok=True)
        compact = {k: v for k, v in summary.items() if k != "graphs"}
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            cwd=Path(__file__).resolve().parents[2],
        )
        if head.returncode == 0:
            compact["commit"] = head.stdout.strip()
        args.record.write_text(json.dumps({**compact, "jobs": args.jobs}, indent=1) + "\n")
    failed = sum(summary["outcomes"].get(o, 0) for o in ("mismatch", "crash", "invalid"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
