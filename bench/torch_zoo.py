"""`python -m bench.torch_zoo`: the PyTorch zoo on disc-ir vs eager vs torch.compile (inductor).

Each model of test/models/torch_zoo.py is compiled once per system with a
dynamic batch (disc-ir: `disc_ir.torch.compile`; inductor:
`torch.compile(dynamic=True)`) and timed at each batch size under
`torch.no_grad()`: after a warm-up the systems take turns call by call
(`--repeat` calls each), and the fastest call is reported (the least
disturbed by other load; the JSON also holds the median). Prints a table
(milliseconds, and disc-ir's compile seconds) and writes JSON to `--out`
(default `bench/results/torch_zoo/<date>-cpu-<cores>core.json`, which
`bench.report` renders into docs/benchmarks.md).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "test" / "models"))
import torch_zoo  # noqa: E402

import disc_ir.torch as disc_torch  # noqa: E402

#: calls before timing (the first ones may compile: inductor, dynamo's guards)
WARMUP = 3


def _time_interleaved(
    systems: dict[str, Any], inputs: tuple[Any, ...], repeat: int
) -> dict[str, tuple[float, float] | str]:
    """Per system, (min, median) milliseconds of `repeat` calls, or the error of a system
    that failed. The systems take turns call by call, so a load spike hits them alike."""
    working: dict[str, Any] = {}
    out: dict[str, tuple[float, float] | str] = {}
    for name, fn in systems.items():
        try:
            for _ in range(WARMUP):
                fn(*inputs)
            working[name] = fn
        except Exception as exc:  # noqa: BLE001 - a peer failing is reported
            out[name] = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
    times: dict[str, list[float]] = {name: [] for name in working}
    for _ in range(repeat):
        for name, fn in working.items():
            t0 = time.perf_counter()
            fn(*inputs)
            times[name].append(time.perf_counter() - t0)
    for name, ts in times.items():
        out[name] = (min(ts) * 1e3, statistics.median(ts) * 1e3)
    return out


def run(models: list[str], batches: list[int], repeat: int, inductor: bool) -> list[dict[str, Any]]:
    rows = []
    for name in models:
        spec = torch_zoo.MODELS[name]
        model = spec.build()
        t0 = time.perf_counter()
        exe = disc_torch.compile(model, spec.inputs(2), dynamic_shapes=spec.dynamic_shapes())
        compile_s = time.perf_counter() - t0
        systems: dict[str, Any] = {"eager": model, "disc-ir": exe}
        if inductor:
            torch._dynamo.reset()
            systems["inductor"] = torch.compile(model, dynamic=True)
        with torch.no_grad():
            for batch in batches:
                inputs = spec.inputs(batch)
                row: dict[str, Any] = {"model": name, "batch": batch, "disc_compile_s": compile_s}
                for system, result in _time_interleaved(systems, inputs, repeat).items():
                    if isinstance(result, str):
                        row[system] = None
                        row[f"{system}_error"] = result
                    else:
                        row[system], row[f"{system}_median"] = result
                rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="*", default=sorted(torch_zoo.MODELS))
    parser.add_argument("--batches", nargs="*", type=int, default=[1, 8, 64])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--no-inductor", action="store_true", help="skip torch.compile (inductor)")
    parser.add_argument("--out", type=Path, default=None, help="the JSON file to write")
    args = parser.parse_args(argv)
    unknown = set(args.models) - set(torch_zoo.MODELS)
    if unknown:
        parser.error(f"unknown models {sorted(unknown)}; known: {sorted(torch_zoo.MODELS)}")
    load_before = os.getloadavg()
    rows = run(args.models, args.batches, args.repeat, not args.no_inductor)
    load_after = os.getloadavg()
    systems = ["eager", "disc-ir"] + ([] if args.no_inductor else ["inductor"])
    print(
        f"{'model':<14}{'batch':>6}"
        + "".join(f"{s + ' ms':>14}" for s in systems)
        + f"{'disc compile s':>16}"
    )
    for row in rows:
        cells = "".join(
            f"{row[s]:>14.3f}" if row.get(s) is not None else f"{'failed':>14}" for s in systems
        )
        print(f"{row['model']:<14}{row['batch']:>6}{cells}{row['disc_compile_s']:>16.1f}")
    out = args.out or (
        Path(__file__).resolve().parent / "results" / "torch_zoo"
        / f"{time.strftime('%Y-%m-%d')}-cpu-{os.cpu_count()}core.json"
    )  # fmt: skip
    record = {
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        # torch's OpenMP threads stall when other processes hold the cores: the load
        # average tells how far to trust a run
        "load_average": {"before": load_before, "after": load_after},
        "rows": rows,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
