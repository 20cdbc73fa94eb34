"""`python -m bench.artifact`: deployable artifacts against compiling, the warm compile cache, call cost.

    python -m bench.artifact                 # every zoo model, BERT-12, 32-shape workload
    python -m bench.artifact --quick         # a subset, fewer repeats
    python -m bench.artifact --out bench/results/artifact.json

Sections:

- `load`: each zoo model's shape-polymorphic export (and the 12-layer BERT
  encoder when jax can export it) is compiled and saved; a fresh process then
  imports `disc_ir.runtime` (timed apart), loads the artifact and makes the
  first call (`load_first_call_ms`, the median of `--repeats` processes; the
  zoo models at their first test sizes, BERT-12 at batch 1, 16 tokens),
  against the compile time of `disc_ir.compile`. Also the artifact's size
  against its constants' size, and the resident memory (VmRSS after the first
  call) of a process that loaded the artifact against one that compiled it.
- `cache`: layernorm+gelu at 32 row counts (`bench.run.dynamic_rows`), one
  call each, with a warm persistent cache (`compile(cache_dir=...)` loads the
  artifact) against jax.jit compiling each shape (caches cleared).
- `call`: the per-call cost of `tanh(x) + 1` on 16 floats: an `Executable`, the
  loaded module and jax.jit's dispatch (median of many calls).

Prints a table and writes JSON (schema `disc-ir-bench-artifact/1`; default
bench/results/artifact/<date>-cpu-<cores>core.json).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MODELS_DIR = ROOT / "test" / "models"
TINY = """
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %t = mhlo.tanh %x : tensor<16xf32>
  %one = mhlo.constant dense<1.0> : tensor<16xf32>
  %r = mhlo.add %t, %one : tensor<16xf32>
  return %r : tensor<16xf32>
}
"""

_CHILD_LOAD = """
import sys, time, json
t0 = time.perf_counter()
import numpy as np
from disc_ir.runtime import load
t1 = time.perf_counter()
data = np.load(sys.argv[2])
args = [data[f"arr_{i}"] for i in range(len(data.files))]
t2 = time.perf_counter()
m = load(sys.argv[1])
t3 = time.perf_counter()
m(*args)
t4 = time.perf_counter()
rss = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS")][0]
print(json.dumps({"import_ms": (t1 - t0) * 1e3, "load_ms": (t3 - t2) * 1e3,
                  "first_call_ms": (t4 - t3) * 1e3, "rss_mb": rss / 1024}))
"""

_CHILD_COMPILE = """
import sys, json
import numpy as np
import disc_ir
data = np.load(sys.argv[2])
args = [data[f"arr_{i}"] for i in range(len(data.files))]
exe = disc_ir.compile(open(sys.argv[1]).read(), keep_ir=False)
exe(*args)
rss = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS")][0]
print(json.dumps({"rss_mb": rss / 1024}))
"""


def _child(code: str, *argv: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=900
    )
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _sources(quick: bool, log: Any) -> list[tuple[str, str, Any, dict[str, int]]]:
    """(name, MHLO/StableHLO text, model, sizes) of the graphs the load section measures."""
    from bench import models as M

    zoo = M.load_zoo()
    names = ["mlp", "softmax", "bert_layer"] if quick else list(zoo.MODELS)
    out = []
    for name in names:
        model = zoo.get(name)
        dyn = MODELS_DIR / f"{name}{'_dyn' if model.dynamic else ''}.mlir"
        out.append((name, dyn.read_text(), model, model.sizes_with(**model.test_sizes[0])))
    try:
        encoder = M.bench_model(f"{M.ENCODER_PREFIX}12")
        text = M.stablehlo_text(encoder, encoder.sizes_with(batch=1, seq=128), dynamic=True)
        # the first call: one short request (batch 1, 16 tokens)
        out.append(("bert_encoder_12", text, encoder, encoder.sizes_with(batch=1, seq=16)))
    except ImportError as exc:
        log(f"  bert_encoder_12 skipped: {exc}")
    return out


def load_section(quick: bool, repeats: int, log: Any) -> list[dict[str, Any]]:
    import disc_ir

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, text, model, sizes in _sources(quick, log):
            log(f"  load: {name} ...")
            row: dict[str, Any] = {"model": name}
            try:
                t0 = time.perf_counter()
                exe = disc_ir.compile(text, keep_ir=False)
                row["compile_s"] = time.perf_counter() - t0
                path = Path(tmp) / f"{name}.disc"
                exe.save(path)
                row["artifact_bytes"] = path.stat().st_size
                row["constants_bytes"] = sum(len(v[2]) for v in exe.constants.values())
                static = (
                    disc_ir.compile((MODELS_DIR / f"{name}.mlir").read_text(), keep_ir=False)
                    if (MODELS_DIR / f"{name}.mlir").is_file()
                    else None
                )
                plan = static.plan_memory() if static is not None else None
                if plan is not None:
                    row["plan_arena_bytes"] = plan.arena_bytes
                    row["plan_unplanned_bytes"] = plan.unplanned_bytes
                inputs = Path(tmp) / f"{name}.npz"
                np.savez(inputs, *model.make_args(sizes))
                src = Path(tmp) / f"{name}.mlir"
                src.write_text(text)
                runs = [_child(_CHILD_LOAD, str(path), str(inputs)) for _ in range(repeats)]
                for key in ("import_ms", "load_ms", "first_call_ms", "rss_mb"):
                    row[key] = statistics.median(r[key] for r in runs)
                row["load_first_call_ms"] = statistics.median(
                    r["load_ms"] + r["first_call_ms"] for r in runs
                )
                row["compile_rss_mb"] = _child(_CHILD_COMPILE, str(src), str(inputs))["rss_mb"]
                exe.close()
            except Exception as exc:  # noqa: BLE001 - a failure is a result
                row["error"] = f"{type(exc).__name__}: {exc}"
            rows.append(row)
    return rows


def cache_section(count: int, log: Any) -> dict[str, Any]:
    import disc_ir
    from bench import models as M
    from bench.run import DYNAMIC_MODEL, dynamic_rows

    model = M.bench_model(DYNAMIC_MODEL)
    text = (MODELS_DIR / f"{DYNAMIC_MODEL}_dyn.mlir").read_text()
    hidden = model.sizes["hidden"]
    rows = dynamic_rows(count, 1, 4096)
    all_args = [model.make_args(model.sizes_with(rows=r, hidden=hidden)) for r in rows]
    out: dict[str, Any] = {"model": DYNAMIC_MODEL, "shapes": len(rows)}
    with tempfile.TemporaryDirectory() as cache:
        disc_ir.compile(text, cache_dir=cache, keep_ir=False).close()  # warm the cache
        log("  cache: disc-ir with a warm cache ...")
        t0 = time.perf_counter()
        exe = disc_ir.compile(text, cache_dir=cache, keep_ir=False)
        t1 = time.perf_counter()
        disc_outs = [exe(*a) for a in all_args]
        t2 = time.perf_counter()
        out["disc_cached"] = exe.cached
        out["disc_load_s"] = t1 - t0
        out["disc_total_s"] = t2 - t0
    try:
        import jax

        jax.config.update("jax_platforms", "cpu")
        log("  cache: jax.jit per shape ...")
        jax.clear_caches()
        fn = jax.jit(model.fn)
        t0 = time.perf_counter()
        jax_outs = [np.asarray(fn(*a)) for a in all_args]
        out["jax_total_s"] = time.perf_counter() - t0
        out["ratio"] = out["jax_total_s"] / out["disc_total_s"]
        out["max_abs_diff"] = max(
            float(np.max(np.abs(d[0] - j))) for d, j in zip(disc_outs, jax_outs, strict=True)
        )
    except ImportError as exc:
        out["jax_error"] = str(exc)
    return out


def _per_call_us(fn: Any, x: Any, calls: int) -> float:
    for _ in range(200):
        fn(x)
    samples = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(x)
        samples.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(samples)


def call_section(calls: int) -> dict[str, Any]:
    import disc_ir
    from disc_ir.runtime import load

    x = np.linspace(-2, 2, 16, dtype=np.float32)
    exe = disc_ir.compile(TINY)
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        exe.save(Path(tmp) / "tiny.disc")
        loaded = load(Path(tmp) / "tiny.disc")
        out["executable_us"] = _per_call_us(exe, x, calls)
        out["loaded_us"] = _per_call_us(loaded, x, calls)
    try:
        import jax
        import jax.numpy as jnp

        jax.config.update("jax_platforms", "cpu")
        jf = jax.jit(lambda a: jnp.tanh(a) + 1)
        out["jax_us"] = _per_call_us(lambda a: jf(a).block_until_ready(), x, calls)
        out["executable_vs_jax"] = out["executable_us"] / out["jax_us"]
        out["loaded_vs_jax"] = out["loaded_us"] / out["jax_us"]
    except ImportError as exc:
        out["jax_error"] = str(exc)
    return out


def _table(result: dict[str, Any]) -> str:
    lines = [
        f"{'model':<20}{'compile s':>10}{'load+1st ms':>12}{'import ms':>10}"
        f"{'artifact KB':>12}{'consts KB':>10}{'RSS load MB':>12}{'RSS compile MB':>15}"
        f"{'plan KB':>9}{'1 each KB':>10}"
    ]
    for r in result["load"]:
        if "error" in r:
            lines.append(f"{r['model']:<20}error: {r['error']}")
            continue
        lines.append(
            f"{r['model']:<20}{r['compile_s']:>10.2f}{r['load_first_call_ms']:>12.1f}"
            f"{r['import_ms']:>10.1f}{r['artifact_bytes'] / 1024:>12.1f}"
            f"{r['constants_bytes'] / 1024:>10.1f}{r['rss_mb']:>12.1f}{r['compile_rss_mb']:>15.1f}"
            f"{r.get('plan_arena_bytes', 0) / 1024:>9.0f}{r.get('plan_unplanned_bytes', 0) / 1024:>10.0f}"
        )
    c = result["cache"]
    lines.append(
        f"\n{c['shapes']}-shape {c['model']}: disc-ir (warm cache) {c['disc_total_s'] * 1e3:.1f} ms "
        f"(load {c['disc_load_s'] * 1e3:.1f} ms)"
        + (
            f", jax.jit {c['jax_total_s'] * 1e3:.0f} ms: {c['ratio']:.1f}x"
            if "jax_total_s" in c
            else ""
        )
    )
    k = result["call"]
    lines.append(
        f"per call, tanh(x)+1 on 16 floats: Executable {k['executable_us']:.1f} us, loaded "
        f"{k['loaded_us']:.1f} us" + (f", jax.jit {k['jax_us']:.1f} us" if "jax_us" in k else "")
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m bench.artifact", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="a subset of models, fewer repeats")
    p.add_argument("--repeats", type=int, default=None, help="load processes per model")
    p.add_argument("--out", default=None, help="JSON output path")
    args = p.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 3)
    log = lambda msg: print(msg, file=sys.stderr, flush=True)  # noqa: E731
    result: dict[str, Any] = {
        "schema": "disc-ir-bench-artifact/1",
        "cores": os.cpu_count(),
        "load": load_section(args.quick, repeats, log),
        "cache": cache_section(8 if args.quick else 32, log),
        "call": call_section(2000 if args.quick else 20000),
    }
    print(_table(result))
    # not bench/results/*.json: those are `python -m bench` runs that bench.report renders
    stamp = time.strftime("%Y-%m-%d") + f"-cpu-{os.cpu_count()}core.json"
    out = Path(args.out) if args.out else ROOT / "bench" / "results" / "artifact" / stamp
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1))
    print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
