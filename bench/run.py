"""Benchmark disc-ir's CPU code against numpy and XLA (jax.jit) on the same machine.

    python -m bench                       # softmax and layernorm+gelu at 4096x768
    python -m bench --shape 1024x768 --repeats 50 --out bench/results/mine.json

For each workload (bench/graphs/*.mlir, dynamic-shape MHLO) the graph is
compiled once with `disc_ir.compile`, checked against numpy, then every
implementation is timed: `repeats` calls after `warmup` calls, reporting the
median wall time per call. disc-ir is called through `Executable(...)` (input
checks, RAL execution context, output collection included); jax through a
`jax.jit` function on device arrays with `block_until_ready()`; numpy is the
plain float32 expression. GB/s counts the bytes each call must move at least
(inputs read once, outputs written once). The ratio is time / XLA's time
(below 1: faster than XLA). Results are printed as a table and written as
JSON (default bench/results/<host>-<time>.json).

Requires the `bench` extra (`pip install -e .[bench]`: jax[cpu]); without jax
the XLA column is left out.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
GRAPHS = HERE / "graphs"
RESULTS = HERE / "results"
EPS = 1e-5
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


# ---------------------------------------------------------------------------
# Workloads: inputs, numpy reference, jax function, bytes moved
# ---------------------------------------------------------------------------


def np_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_layernorm_gelu(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    c = x - mean
    var = (c * c).mean(-1, keepdims=True)
    y = c / np.sqrt(var + np.float32(EPS)) * gamma + beta
    inner = np.float32(SQRT_2_OVER_PI) * (y + np.float32(0.044715) * y * y * y)
    return np.float32(0.5) * y * (np.float32(1.0) + np.tanh(inner))


def jax_functions() -> dict[str, Callable[..., Any]] | None:
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def softmax(x):
        e = jnp.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    def layernorm_gelu(x, gamma, beta):
        mean = x.mean(-1, keepdims=True)
        c = x - mean
        var = (c * c).mean(-1, keepdims=True)
        y = c * jax.lax.rsqrt(var + EPS) * gamma + beta
        inner = SQRT_2_OVER_PI * (y + 0.044715 * y * y * y)
        return 0.5 * y * (1.0 + jnp.tanh(inner))

    return {"softmax": jax.jit(softmax), "layernorm_gelu": jax.jit(layernorm_gelu)}


@dataclass(frozen=True)
class Workload:
    name: str
    graph: Path
    inputs: Callable[[np.random.Generator, int, int], list[np.ndarray]]
    reference: Callable[..., np.ndarray]
    rtol: float


WORKLOADS = [
    Workload(
        "softmax",
        GRAPHS / "softmax.mlir",
        lambda g, m, n: [g.uniform(-4, 4, (m, n)).astype(np.float32)],
        np_softmax,
        1e-4,
    ),
    Workload(
        "layernorm_gelu",
        GRAPHS / "layernorm_gelu.mlir",
        lambda g, m, n: [
            g.uniform(-3, 3, (m, n)).astype(np.float32),
            g.uniform(0.5, 1.5, (n,)).astype(np.float32),
            g.uniform(-1, 1, (n,)).astype(np.float32),
        ],
        np_layernorm_gelu,
        1e-4,
    ),
]


# ---------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------


def median_ms(fn: Callable[[], Any], warmup: int, repeats: int) -> tuple[float, float]:
    """Median and minimum wall time of `fn()` in milliseconds."""
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(samples), min(samples)


@dataclass
class Row:
    workload: str
    shape: list[int]
    impl: str
    median_ms: float
    min_ms: float
    ratio_to_xla: float | None
    gb_per_s: float


def bench_workload(
    w: Workload,
    m: int,
    n: int,
    warmup: int,
    repeats: int,
    jax_fns: dict | None,
    threads: int | None,
) -> tuple[list[Row], dict[str, Any]]:
    import disc_ir

    gen = np.random.default_rng(0)
    inputs = w.inputs(gen, m, n)
    t0 = time.perf_counter()
    exe = disc_ir.compile(w.graph, target="cpu", keep_ir=False, num_threads=threads)
    compile_s = time.perf_counter() - t0
    (out,) = exe(*inputs)
    ref = w.reference(*(x.astype(np.float64) for x in inputs))
    np.testing.assert_allclose(out, ref.astype(np.float32), rtol=w.rtol, atol=1e-5)
    nbytes = sum(x.nbytes for x in inputs) + out.nbytes

    timings: dict[str, tuple[float, float]] = {}
    timings["disc-ir"] = median_ms(lambda: exe(*inputs), warmup, repeats)
    timings["numpy"] = median_ms(lambda: w.reference(*inputs), warmup, repeats)
    if jax_fns is not None:
        import jax

        fn = jax_fns[w.name]
        dev = [jax.device_put(x) for x in inputs]
        np.testing.assert_allclose(
            np.asarray(fn(*dev)), ref.astype(np.float32), rtol=w.rtol, atol=1e-5
        )
        timings["xla (jax.jit)"] = median_ms(lambda: fn(*dev).block_until_ready(), warmup, repeats)
    exe.close()

    xla = timings.get("xla (jax.jit)")
    rows = [
        Row(
            w.name,
            [m, n],
            impl,
            med,
            best,
            (med / xla[0]) if xla else None,
            nbytes / (med * 1e-3) / 1e9,
        )
        for impl, (med, best) in timings.items()
    ]
    return rows, {"compile_seconds": compile_s, "bytes_per_call": nbytes}


def format_table(rows: list[Row]) -> str:
    header = f"{'workload':<16} {'shape':<10} {'impl':<14} {'median ms':>10} {'min ms':>8} {'vs XLA':>7} {'GB/s':>7}"
    lines = [header, "-" * len(header)]
    for r in rows:
        ratio = f"{r.ratio_to_xla:.2f}x" if r.ratio_to_xla is not None else "-"
        shape = "x".join(map(str, r.shape))
        lines.append(
            f"{r.workload:<16} {shape:<10} {r.impl:<14} {r.median_ms:>10.3f} {r.min_ms:>8.3f} {ratio:>7} {r.gb_per_s:>7.2f}"
        )
    return "\n".join(lines)


def machine_info(threads: int | None) -> dict[str, Any]:
    info: dict[str, Any] = {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_count": os.cpu_count(),
        "disc_threads": threads or int(os.environ.get("OMP_NUM_THREADS", 0)) or os.cpu_count(),
        "numpy": np.__version__,
    }
    try:
        import llvmlite.binding as llvm

        info["llvm_host_cpu"] = llvm.get_host_cpu_name()
    except Exception:  # pragma: no cover - informational only
        pass
    try:
        import jax

        info["jax"] = jax.__version__
    except ImportError:
        info["jax"] = None
    return info


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    ap.add_argument("--shape", default="4096x768", help="rows x columns (default 4096x768)")
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--threads", type=int, default=None, help="disc-ir CPU threads (default: all)")
    ap.add_argument("--only", choices=[w.name for w in WORKLOADS], action="append")
    ap.add_argument("--no-jax", action="store_true", help="leave XLA out")
    ap.add_argument("--out", type=Path, default=None, help="JSON file (default bench/results/...)")
    args = ap.parse_args(argv)
    m, n = (int(v) for v in args.shape.lower().split("x"))
    jax_fns = None if args.no_jax else jax_functions()
    if jax_fns is None and not args.no_jax:
        print("jax is not installed: XLA left out (pip install -e .[bench])")

    rows: list[Row] = []
    extra: dict[str, Any] = {}
    for w in WORKLOADS:
        if args.only and w.name not in args.only:
            continue
        r, info = bench_workload(w, m, n, args.warmup, args.repeats, jax_fns, args.threads)
        rows += r
        extra[w.name] = info
    print(format_table(rows))
    for name, info in extra.items():
        print(f"{name}: compiled in {info['compile_seconds']:.2f} s")

    out = args.out
    if out is None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        out = RESULTS / f"{platform.node() or 'host'}-{stamp}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "machine": machine_info(args.threads),
        "settings": {"shape": [m, n], "warmup": args.warmup, "repeats": args.repeats},
        "workloads": extra,
        "rows": [asdict(r) for r in rows],
    }
    out.write_text(json.dumps(payload, indent=2) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
