"""Measurements: call timing, copy bandwidth, relative error, peak RSS in a subprocess.

- `time_call(call, warmup, repeats, budget_s)`: `warmup` calls, then up to
  `repeats` timed calls (at least 3, fewer than `repeats` once `budget_s`
  seconds are spent); median and minimum in milliseconds.
- `copy_bandwidth()`: numpy copies of a large float32 array (256 MiB by
  default); GB/s = 2 x bytes / time (read + write), best and median.
- `python_loop_ms()`: the best time of a fixed pure-Python loop, the
  interpreter speed the machine gives at that moment (disc-ir's compile
  time follows it; on a shared VM it drifts within a run).
- `relative_error(got, want)`: max |got - want| / max |want| over every
  output (normwise, so values near zero do not dominate); inf on a shape
  mismatch or a non-finite result.
- `peak_rss(system, model, sizes, ...)`: runs `python -m bench.rss` in its own
  process (compile + one call of one model on one system) and returns its
  peak RSS before compiling (imports and inputs) and at the end, in MiB
  (VmHWM; see bench/rss.py).
"""

from __future__ import annotations

import json
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def time_call(
    call: Callable[[], Any], warmup: int, repeats: int, budget_s: float
) -> dict[str, float | int]:
    """Median / min wall time of `call()` in ms and the number of samples:
    `warmup` calls, then up to `repeats` timed ones (at least 3) within
    `budget_s` seconds of timed calls."""
    return time_calls_interleaved({"call": call}, warmup, repeats, budget_s, burst=max(repeats, 1))[
        "call"
    ]


def time_calls_interleaved(
    calls: dict[str, Callable[[], Any]],
    warmup: int,
    repeats: int,
    budget_s: float,
    burst: int = 10,
) -> dict[str, dict[str, float | int]]:
    """`time_call` for several systems at once, in rounds: after each one's
    warmup, every round gives each system (in an order rotating every round)
    one untimed call, which absorbs what the previous system left behind (its
    spinning worker threads, evicted caches), then up to `burst` timed calls.
    So each system's samples are steady-state calls spread over the whole
    measurement, and a drift of the machine's speed hits every system alike.
    A system stops at `repeats` samples, or at 3 once its timed calls took
    `budget_s` in all."""
    for call in calls.values():
        for _ in range(warmup):
            call()
    samples: dict[str, list[float]] = {name: [] for name in calls}
    spent = dict.fromkeys(calls, 0.0)

    def running(name: str) -> bool:
        n = len(samples[name])
        return n < repeats and (n < 3 or spent[name] < budget_s)

    names = list(calls)
    turn = 0
    while any(running(n) for n in names):
        for name in names[turn:] + names[:turn]:
            if not running(name):
                continue
            calls[name]()
            for _ in range(burst):
                if not running(name):
                    break
                t0 = time.perf_counter()
                calls[name]()
                dt = time.perf_counter() - t0
                spent[name] += dt
                samples[name].append(dt * 1e3)
        turn = (turn + 1) % len(names)
    return {
        name: {
            "median_ms": statistics.median(s),
            "min_ms": min(s),
            "samples": len(s),
        }
        for name, s in samples.items()
    }


def copy_bandwidth(nbytes: int = 256 << 20, repeats: int = 10) -> dict[str, float]:
    """The machine's copy bandwidth measured with numpy (single thread), GB/s."""
    n = nbytes // 4
    src = np.arange(n, dtype=np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # fault the pages in
    rates = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        rates.append(2 * src.nbytes / (time.perf_counter() - t0) / 1e9)
    return {"best_gb_s": max(rates), "median_gb_s": statistics.median(rates), "bytes": src.nbytes}


def python_loop_ms(iterations: int = 2_000_000, repeats: int = 3) -> float:
    """Best of `repeats` timings of a fixed pure-Python loop, in milliseconds."""
    best = math.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        total = 0
        for i in range(iterations):
            total += i
        best = min(best, time.perf_counter() - t0)
    return best * 1e3


def relative_error(got: Sequence[np.ndarray], want: Sequence[np.ndarray]) -> float:
    """max |got - want| / max |want| over all outputs (inf on mismatch)."""
    if len(got) != len(want):
        return math.inf
    worst = 0.0
    for g, w in zip(got, want, strict=True):
        g64 = np.asarray(g, dtype=np.float64)
        w64 = np.asarray(w, dtype=np.float64)
        if g64.shape != w64.shape or not np.all(np.isfinite(g64)):
            return math.inf
        scale = float(np.max(np.abs(w64))) if w64.size else 0.0
        diff = float(np.max(np.abs(g64 - w64))) if w64.size else 0.0
        worst = max(worst, diff / scale if scale > 0 else diff)
    return worst


def peak_rss(
    system: str,
    model: str,
    sizes: dict[str, int],
    *,
    source: Path | None = None,
    threads: int | None = None,
    timeout_s: float = 600.0,
) -> dict[str, Any]:
    """Peak RSS of compiling and running `model` once on `system`, in its own process.

    Returns {"baseline_mb", "peak_mb"} or {"error"}.
    """
    spec = {"system": system, "model": model, "sizes": sizes, "threads": threads}
    if source is not None:
        spec["source"] = str(source)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH", "")]))
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "bench.rss", json.dumps(spec)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=timeout_s,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout_s:.0f} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"error": f"exit {proc.returncode}: {tail[0][:300]}"}
    return json.loads(lines[-1])
