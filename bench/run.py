"""The benchmark suite: disc-ir against XLA, torch.compile, IREE and numpy on the zoo models.

    python -m bench                 # the full suite (several minutes on 2 cores)
    python -m bench --quick         # small sizes, few repeats, a subset (< 60 s)
    python -m bench --sections runtime,dynamic --models softmax,bert_layer
    python -m bench --systems disc-ir,xla --out bench/results/mine.json

Sections (all by default):

- `runtime`: each zoo model at representative sizes (4096x768 memory-bound
  graphs, BERT layer at seq 128 / 512, ...). Every system is prepared
  (compiled) in this one process, then all are timed together: `warmup`
  calls each, then rounds in which each system makes one untimed call and a
  burst of 10 timed ones (`measure.time_calls_interleaved`: steady-state
  samples spread over the whole measurement, so a drift of the machine's
  speed hits every system alike), each system up to `repeats` timed calls
  within `budget` seconds of its own; the median is reported with its
  ratio to XLA and to the best *other* system, the compile time (disc-ir per
  pipeline phase), and the relative error of the outputs against XLA
  (against the numpy twin when XLA is unavailable). Memory-bound graphs get
  their achieved GB/s (the zoo's bytes moved / median) as a fraction of the
  machine's copy bandwidth, measured with numpy first. IREE also compiles
  each model's shape-polymorphic export; its failures are results.
- `dynamic`: layernorm+gelu at 32 distinct row counts (8 with --quick),
  one call each; total
  wall time including every compile: disc-ir compiles once (export included),
  jax.jit compiles per shape (caches cleared first); torch.compile
  (dynamic=True) and IREE (static export per shape) when available. The
  workload runs 3 times (`--dynamic-repeats`; once with --quick), the
  systems interleaved in each round; each system's median total counts.
- `encoder`: a BERT-base encoder of 6, 12 and 24 layers (seq 128) through
  the whole disc-ir CPU pipeline: compile time per phase (linearity in the
  layer count) and over XLA's compile time of the same graph in the same run,
  correctness and runtime against XLA; then the 12-layer compile once more,
  profiled (`bench.compile_profile`: seconds per pass, per rewrite pattern,
  LLVM's work, garbage collection).
- `rss`: peak RSS of each system compiling and running one model, each in
  its own subprocess (bench/rss.py).

Compile times are measured with IR verification off, as `disc_ir.compile`
compiles by default (the tests verify after every pass). torch.compile runs
with inductor's caches off (`--torch-cache` keeps them), jax without its
persistent cache, so every compile is cold. A peer that is not installed or
fails is reported (table and JSON) with its error; it never stops the run.

Output: a table on stdout, the target checks (PASS / MISS with the figures),
JSON (default bench/results/<date>-cpu-<cores>core.json, schema `disc-ir-bench/2`)
and a PNG plot next to it (matplotlib, when installed).

Peers: `pip install -e .[bench]` (jax[cpu], torch, iree-base-compiler,
iree-base-runtime, matplotlib). torch from PyPI is the CUDA build (about 3 GB
of wheels with its nvidia-* dependencies); torch.compile on the CPU also
needs a C++ compiler.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import math
import os
import platform
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench import models as M
from bench.compile_profile import compile_profile, format_profile
from bench.measure import (
    copy_bandwidth,
    peak_rss,
    python_loop_ms,
    relative_error,
    time_call,
    time_calls_interleaved,
)
from bench.systems import (
    PEERS,
    SYSTEMS,
    DiscIR,
    Iree,
    Prepared,
    System,
    configure_jax,
    error_text,
    make_system,
)

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
SCHEMA = "disc-ir-bench/2"
SECTIONS = ("runtime", "dynamic", "encoder", "rss")
RTOL = 1e-4

#: (model, sizes) of the runtime section
FULL_PLAN: list[tuple[str, dict[str, int]]] = [
    ("softmax", {"rows": 4096, "cols": 768}),
    ("layernorm_gelu", {"rows": 4096, "hidden": 768}),
    ("bias_gelu", {"rows": 4096, "hidden": 768}),
    ("residual_layernorm", {"rows": 4096, "hidden": 768}),
    ("mlp", {"batch": 256}),
    ("rmsnorm_swiglu", {"tokens": 128}),
    ("bert_layer", {"batch": 1, "seq": 128}),
    ("bert_layer", {"batch": 1, "seq": 512}),
    ("gpt2_block", {"batch": 1, "seq": 128}),
    ("convnet", {"batch": 8, "size": 32}),
]
QUICK_PLAN: list[tuple[str, dict[str, int]]] = [
    ("softmax", {"rows": 256, "cols": 256}),
    ("layernorm_gelu", {"rows": 256, "hidden": 256}),
]
DYNAMIC_MODEL = "layernorm_gelu"
DYNAMIC_SHAPES = 32
QUICK_DYNAMIC_SHAPES = 8
#: rounds of the dynamic workload (each system's median total is reported)
DYNAMIC_REPEATS = 3
ENCODER_LAYERS = (6, 12, 24)
ENCODER_SIZES = {"batch": 1, "seq": 128}
#: the encoder whose compile the encoder section profiles
PROFILE_LAYERS = 12
#: compile-time targets: the 12-layer encoder (s), the encoder over XLA's compile of
#: the same graph, each memory-bound graph (s)
ENCODER12_COMPILE_TARGET_S = 5.0
COMPILE_VS_XLA_TARGET = 3.0
MEMORY_BOUND_COMPILE_TARGET_S = 0.15
RSS_PLAN = ("layernorm_gelu", {"rows": 4096, "hidden": 768})
QUICK_RSS_PLAN = ("layernorm_gelu", {"rows": 256, "hidden": 256})


def size_tag(sizes: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in sizes.items())


def _load() -> list[float]:
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except OSError:  # pragma: no cover - platform without getloadavg
        return []


# ---------------------------------------------------------------------------
# Runtime section
# ---------------------------------------------------------------------------


def bench_one(
    model_name: str,
    sizes: dict[str, int],
    systems: dict[str, System | str],
    *,
    warmup: int,
    repeats: int,
    budget_s: float,
    bandwidth_gb_s: float | None,
    log: Any = print,
) -> dict[str, Any]:
    """Prepares, checks and times `model_name` at `sizes` on every system.

    `systems`: name -> System, or name -> the reason it is unavailable.
    Returns the result record of the JSON (see the module docstring).
    """
    model = M.bench_model(model_name)
    full = model.sizes_with(**sizes)
    args = model.make_args(full)
    record: dict[str, Any] = {
        "model": model_name,
        "sizes": full,
        "tag": size_tag(sizes),
        "memory_bound": bool(model.memory_bound),
        "bytes_moved": model.bytes_moved(full),
        "flops": model.flops(full),
        "systems": {},
    }
    outputs: dict[str, list[np.ndarray]] = {}
    ready: dict[str, Prepared] = {}
    for name, system in systems.items():
        if isinstance(system, str):
            record["systems"][name] = {"status": "unavailable", "error": system}
            continue
        log(f"  {model_name} [{record['tag']}] {name} ...")
        try:
            prepared = system.prepare(model, full, args)
            outputs[name] = prepared.call()
        except Exception as exc:  # noqa: BLE001 - a failing system is a result
            record["systems"][name] = {"status": "error", "error": error_text(exc)}
            continue
        ready[name] = prepared
    timings: dict[str, dict[str, float | int]] = {}
    try:
        timings = time_calls_interleaved(
            {n: p.call for n, p in ready.items()}, warmup, repeats, budget_s
        )
    except Exception:  # noqa: BLE001 - find the failing system: time each alone
        for name, prepared in ready.items():
            try:
                timings[name] = time_call(prepared.call, warmup, repeats, budget_s)
            except Exception as exc:  # noqa: BLE001 - a failing system is a result
                record["systems"][name] = {"status": "error", "error": error_text(exc)}
    for name, prepared in ready.items():
        if name not in timings:
            continue
        entry: dict[str, Any] = {
            "status": "ok",
            **timings[name],
            "compile_s": prepared.compile_s,
            "compile_phases": prepared.phases,
            "compiled_now": prepared.compiled_now,
        }
        if prepared.info:
            entry["info"] = prepared.info
        record["systems"][name] = entry
    record["systems"] = {n: record["systems"][n] for n in systems if n in record["systems"]}
    ref_name = "xla" if "xla" in outputs else ("numpy" if "numpy" in outputs else None)
    record["reference"] = ref_name
    if ref_name is None:
        ref = M.numpy_fn(model_name)
        if ref is not None:
            outputs["numpy(reference)"] = M.as_list(ref(*args))
            ref_name = "numpy(reference)"
            record["reference"] = "numpy"
    ok = {n: e for n, e in record["systems"].items() if e["status"] == "ok"}
    xla_ms = ok["xla"]["median_ms"] if "xla" in ok else None
    nbytes = record["bytes_moved"]
    for name, entry in ok.items():
        if ref_name is not None:
            err = relative_error(outputs[name], outputs[ref_name])
            entry["rel_err"] = err if math.isfinite(err) else None
            entry["correct"] = bool(err <= RTOL)
        entry["ratio_to_xla"] = entry["median_ms"] / xla_ms if xla_ms else None
        others = {n: e["median_ms"] for n, e in ok.items() if n != name}
        if others:
            best = min(others, key=others.__getitem__)
            entry["best_peer"] = best
            entry["ratio_to_best_peer"] = entry["median_ms"] / others[best]
        if nbytes:
            gbs = nbytes / (entry["median_ms"] * 1e-3) / 1e9
            entry["gb_per_s"] = gbs
            if bandwidth_gb_s:
                entry["bandwidth_fraction"] = gbs / bandwidth_gb_s
    return record


# ---------------------------------------------------------------------------
# Dynamic-shape workload
# ---------------------------------------------------------------------------


def dynamic_rows(count: int, lo: int, hi: int) -> list[int]:
    """`count` distinct row counts spread over [lo, hi]."""
    rows = sorted({int(round(v)) for v in np.linspace(lo, hi, count)})
    extra = hi + 1
    while len(rows) < count:
        rows.append(extra)
        extra += 1
    return rows


def dynamic_workload(
    systems: Sequence[str],
    rows: Sequence[int],
    hidden: int,
    *,
    threads: int | None = None,
    repeats: int = 1,
    log: Any = print,
) -> dict[str, Any]:
    """layernorm+gelu at every row count in `rows`, one call each, per system.

    Total wall time includes every compile: disc-ir compiles once (jax export
    included; its modules are imported before the timer starts, as jax is),
    jax.jit per shape (after `jax.clear_caches()`), torch.compile
    with dynamic=True, IREE per shape (static exports).

    The whole workload runs `repeats` times, the systems interleaved in each
    round (a drift of the machine's speed hits every system alike); each
    system reports its median total (`total_s`, every round's in `totals_s`)
    and that round's compile and per-call times; every round's outputs are
    checked. A system failing in any round is reported with its error.
    """
    model = M.bench_model(DYNAMIC_MODEL)
    all_sizes = [model.sizes_with(rows=r, hidden=hidden) for r in rows]
    all_args = [model.make_args(s) for s in all_sizes]
    out: dict[str, Any] = {
        "model": DYNAMIC_MODEL,
        "hidden": hidden,
        "rows": list(rows),
        "repeats": repeats,
        "systems": {},
    }
    rounds: dict[str, list[tuple[list[float], float, float | None, Any]]] = {}
    # the first round's outputs; a later round's are compared on arrival with
    # the reference's first ones (keeping every round's would take GBs)
    first: dict[str, list[list[np.ndarray]]] = {}
    errors: dict[str, list[float]] = {}
    failed: dict[str, str] = {}
    ref: str | None = None
    for round_index in range(repeats):
        for name in systems:
            if name in failed:
                continue
            log(f"  dynamic workload: {name} (round {round_index + 1} of {repeats}) ...")
            try:
                per_call, total, compile_s, phases, outs = _dynamic_run(
                    name, model, all_sizes, all_args, threads
                )
            except Exception as exc:  # noqa: BLE001 - a failing system is a result
                failed[name] = error_text(exc)
                continue
            rounds.setdefault(name, []).append((per_call, total, compile_s, phases))
            if round_index == 0:
                first[name] = outs
            elif ref is not None:
                errors.setdefault(name, []).extend(
                    relative_error(o, r) for o, r in zip(outs, first[ref], strict=True)
                )
        if round_index == 0:
            ref = "xla" if "xla" in first else ("numpy" if "numpy" in first else None)
    for name in systems:
        if name in failed:
            out["systems"][name] = {"status": "error", "error": failed[name]}
            continue
        runs = rounds[name]
        # the median round (the lower middle one for an even count)
        per_call, total, compile_s, phases = sorted(runs, key=lambda r: r[1])[(len(runs) - 1) // 2]
        out["systems"][name] = {
            "status": "ok",
            "total_s": total,
            "totals_s": [r[1] for r in runs],
            "compile_s": compile_s,
            "per_call_s": per_call,
        }
        if phases:
            out["systems"][name]["compile_phases_s"] = phases
    out["reference"] = ref
    for name, outs in first.items():
        if ref is None or name in failed:
            continue
        errs = [relative_error(o, r) for o, r in zip(outs, first[ref], strict=True)]
        worst = max(errs + errors.get(name, []))
        out["systems"][name]["max_rel_err"] = worst if math.isfinite(worst) else None
    disc = out["systems"].get("disc-ir", {})
    xla = out["systems"].get("xla", {})
    if disc.get("status") == "ok" and xla.get("status") == "ok":
        out["speedup_vs_xla"] = xla["total_s"] / disc["total_s"]
    return out


def _dynamic_run(
    name: str,
    model: Any,
    all_sizes: list[dict[str, int]],
    all_args: list[list[np.ndarray]],
    threads: int | None,
) -> tuple[list[float], float, float | None, dict[str, float] | None, list[list[np.ndarray]]]:
    """(seconds per call incl. compiles, total seconds, compile seconds or None,
    compile seconds per phase or None, outputs)."""
    per_call: list[float] = []
    outs: list[list[np.ndarray]] = []
    compile_s: float | None = None
    if name == "disc-ir":
        # Module loading happens before the timer, as jax's (imported for the
        # export) does: disc-ir's passes and dialects load lazily otherwise.
        importlib.import_module("disc_ir.api").preload("cpu")
        system = DiscIR(threads=threads)
        t_start = time.perf_counter()
        exe, phases, _ = system.build(model, all_sizes[0])
        compile_s = time.perf_counter() - t_start
        for args in all_args:
            t0 = time.perf_counter()
            outs.append(list(exe(*args)))
            per_call.append(time.perf_counter() - t0)
        total = time.perf_counter() - t_start
        exe.close()
        return per_call, total, compile_s, phases, outs
    if name == "xla":
        import jax

        jax.clear_caches()
        fn = jax.jit(model.fn)
        t_start = time.perf_counter()
        for args in all_args:
            t0 = time.perf_counter()
            res = fn(*args)
            jax.block_until_ready(res)
            outs.append(M.as_list(res))
            per_call.append(time.perf_counter() - t0)
        return per_call, time.perf_counter() - t_start, None, None, outs
    if name == "torch.compile":
        import torch
        import torch._inductor.config as inductor_config

        inductor_config.force_disable_caches = True
        torch._dynamo.reset()
        fn = torch.compile(model.torch_fn, dynamic=True)
        tensors = [[torch.from_numpy(a) for a in args] for args in all_args]
        t_start = time.perf_counter()
        with torch.inference_mode():
            for targs in tensors:
                t0 = time.perf_counter()
                outs.append([fn(*targs).numpy()])
                per_call.append(time.perf_counter() - t0)
        return per_call, time.perf_counter() - t_start, None, None, outs
    if name == "iree":
        system = Iree()
        t_start = time.perf_counter()
        compile_s = 0.0
        for sizes, args in zip(all_sizes, all_args, strict=True):
            t0 = time.perf_counter()
            prepared = system.prepare(model, sizes, args)
            compile_s += prepared.compile_s
            outs.append(prepared.call())
            per_call.append(time.perf_counter() - t0)
        return per_call, time.perf_counter() - t_start, compile_s, None, outs
    if name == "numpy":
        fn = M.numpy_fn(model.name)
        t_start = time.perf_counter()
        for args in all_args:
            t0 = time.perf_counter()
            outs.append(M.as_list(fn(*args)))
            per_call.append(time.perf_counter() - t0)
        return per_call, time.perf_counter() - t_start, None, None, outs
    raise KeyError(f"unknown system '{name}'")


# ---------------------------------------------------------------------------
# BERT encoder compile scaling
# ---------------------------------------------------------------------------


def encoder_scaling(
    layer_counts: Sequence[int],
    sizes: dict[str, int],
    *,
    with_xla: bool,
    threads: int | None = None,
    log: Any = print,
    profile_layers: int | None = PROFILE_LAYERS,
) -> dict[str, Any]:
    """disc-ir compile time (per phase, and over XLA's), correctness and runtime of
    N-layer BERT encoders; `profile_layers`: the encoder whose compile is profiled
    (`bench.compile_profile`: per pass, per pattern, LLVM, GC) in a compile of its own."""
    out: dict[str, Any] = {"sizes": sizes, "runs": []}
    for layers in layer_counts:
        model = M.bench_model(f"{M.ENCODER_PREFIX}{layers}")
        full = model.sizes_with(**sizes)
        args = model.make_args(full)
        run: dict[str, Any] = {"layers": layers}
        disc = DiscIR(threads=threads)
        log(f"  encoder {layers} layers: disc-ir ...")
        disc_out = None
        exe = None
        try:
            exe, phases, info = disc.build(model, full)
            run["disc_export_s"] = phases.get("export", 0.0)
            run["disc_compile_s"] = sum(v for k, v in phases.items() if k != "export")
            run["disc_phases"] = phases
            run["disc_source"] = info.get("source")
            disc_out = list(exe(*args))
            run["disc_ms"] = time_call(functools.partial(exe, *args), 0, 3, 0.0)["median_ms"]
        except Exception as exc:  # noqa: BLE001 - reported as a result
            run["disc_error"] = error_text(exc)
        finally:
            if exe is not None:
                exe.close()
        if layers == profile_layers and "disc_compile_s" in run:
            log(f"  encoder {layers} layers: disc-ir compile profile ...")
            try:
                out["profile"] = {
                    "layers": layers,
                    **compile_profile(disc.source_text[model.name]),
                }
            except Exception as exc:  # noqa: BLE001 - reported as a result
                out["profile"] = {"layers": layers, "error": error_text(exc)}
        if with_xla:
            log(f"  encoder {layers} layers: xla ...")
            try:
                prepared = make_system("xla").prepare(model, full, args)
                xla_out = prepared.call()
                run["xla_compile_s"] = prepared.compile_s
                if "disc_compile_s" in run and prepared.compile_s > 0:
                    run["compile_vs_xla"] = run["disc_compile_s"] / prepared.compile_s
                run["xla_ms"] = time_call(prepared.call, 0, 3, 0.0)["median_ms"]
                if disc_out is not None:
                    err = relative_error(disc_out, xla_out)
                    run["rel_err"] = err if math.isfinite(err) else None
            except Exception as exc:  # noqa: BLE001 - reported as a result
                run["xla_error"] = error_text(exc)
        out["runs"].append(run)
    ok = [(r["layers"], r["disc_compile_s"]) for r in out["runs"] if "disc_compile_s" in r]
    if len(ok) >= 2:
        xs = np.array([x for x, _ in ok], dtype=float)
        ys = np.array([y for _, y in ok], dtype=float)
        slope, intercept = np.polyfit(xs, ys, 1)
        pred = slope * xs + intercept
        ss_res = float(np.sum((ys - pred) ** 2))
        ss_tot = float(np.sum((ys - ys.mean()) ** 2)) or 1.0
        out["seconds_per_layer"] = float(slope)
        out["intercept_s"] = float(intercept)
        out["r_squared"] = 1.0 - ss_res / ss_tot
    return out


# ---------------------------------------------------------------------------
# Peak RSS
# ---------------------------------------------------------------------------


def rss_section(
    model_name: str,
    sizes: dict[str, int],
    systems: dict[str, System | str],
    sources: dict[str, Path],
    *,
    threads: int | None,
    log: Any = print,
) -> dict[str, Any]:
    """Peak RSS per system, each in its own subprocess (`sources`: per-system source files)."""
    out: dict[str, Any] = {"model": model_name, "sizes": sizes, "systems": {}}
    for name, system in systems.items():
        if isinstance(system, str):
            out["systems"][name] = {"error": system}
            continue
        log(f"  peak RSS: {name} ...")
        out["systems"][name] = peak_rss(
            name, model_name, sizes, source=sources.get(name), threads=threads
        )
    return out


def rss_sources(
    model_name: str, sizes: dict[str, int], tmp: Path, have_jax: bool
) -> dict[str, Path]:
    """Source files for the RSS subprocesses, so disc-ir and IREE children need no jax."""
    model = M.bench_model(model_name)
    sources: dict[str, Path] = {}
    if have_jax:
        try:
            text = M.stablehlo_text(model, model.sizes_with(**sizes), dynamic=True)
            (tmp / "dynamic.mlir").write_text(text)
            static = M.stablehlo_text(model, model.sizes_with(**sizes), dynamic=False)
            (tmp / "static.mlir").write_text(static)
            sources["iree"] = tmp / "static.mlir"
            sources["disc-ir"] = tmp / "dynamic.mlir"
        except Exception:  # noqa: BLE001 - the children report their own failure
            pass
    return sources


# ---------------------------------------------------------------------------
# Targets
# ---------------------------------------------------------------------------


def _err(value: float | None) -> float:
    """A stored relative error (None: a shape mismatch or non-finite output)."""
    return math.inf if value is None else value


def _scaling_check(enc: dict[str, Any] | None, add: Callable[[str, str, str], None]) -> None:
    """Doubling the encoder at most doubles its compile time: every measured
    pair N, 2N layers (N/A with no such pair)."""
    name = "BERT encoder compile scaling: doubling the layers at most doubles the time"
    times = {
        r["layers"]: r["disc_compile_s"]
        for r in (enc or {}).get("runs", [])
        if "disc_compile_s" in r
    }
    pairs = [(n, 2 * n) for n in sorted(times) if 2 * n in times]
    if not pairs:
        add(name, "N/A", "no N and 2N layers both measured")
        return
    ratios = [(n, m, times[m] / times[n]) for n, m in pairs]
    add(
        name,
        "PASS" if all(r <= 2.0 for _, _, r in ratios) else "MISS",
        ", ".join(f"{n} -> {m}: {r:.2f}x" for n, m, r in ratios),
    )


def _compile_vs_xla_check(enc: dict[str, Any] | None, add: Callable[[str, str, str], None]) -> None:
    """disc-ir's encoder compile within `COMPILE_VS_XLA_TARGET` times XLA's (same run)."""
    name = f"BERT encoder compile: disc-ir within {COMPILE_VS_XLA_TARGET:g}x of XLA's"
    runs = [r for r in (enc or {}).get("runs", []) if "compile_vs_xla" in r]
    if not runs:
        add(name, "N/A", "no disc-ir and XLA encoder compile times")
        return
    add(
        name,
        "PASS" if all(r["compile_vs_xla"] <= COMPILE_VS_XLA_TARGET for r in runs) else "MISS",
        ", ".join(
            f"{r['layers']} layers {r['compile_vs_xla']:.1f}x "
            f"({r['disc_compile_s']:.2f} s / {r['xla_compile_s']:.2f} s)"
            for r in runs
        ),
    )


def _disc_compile_s(entry: dict[str, Any]) -> float | None:
    """disc-ir's compile seconds of a runtime entry, the jax export left out (None: not recorded)."""
    phases = entry.get("compile_phases") or {}
    if phases:
        return float(sum(v for k, v in phases.items() if k != "export"))
    return entry.get("compile_s")


def _memory_bound_compile_check(
    results: list[dict[str, Any]], add: Callable[[str, str, str], None]
) -> None:
    """Every memory-bound graph compiles within `MEMORY_BOUND_COMPILE_TARGET_S`."""
    name = f"memory-bound graphs' compile: disc-ir <= {MEMORY_BOUND_COMPILE_TARGET_S:g} s each"
    rows = [
        (r["model"], t)
        for r in results
        if r["memory_bound"]
        and r["systems"].get("disc-ir", {}).get("status") == "ok"
        and r["systems"]["disc-ir"].get("compiled_now", True)
        and (t := _disc_compile_s(r["systems"]["disc-ir"])) is not None
    ]
    if not rows:
        add(name, "N/A", "no disc-ir compile of a memory-bound graph")
        return
    add(
        name,
        "PASS" if all(t <= MEMORY_BOUND_COMPILE_TARGET_S for _, t in rows) else "MISS",
        ", ".join(f"{m} {t:.2f} s" for m, t in rows),
    )


def target_checks(payload: dict[str, Any]) -> list[dict[str, str]]:
    """The benchmark's targets: PASS / MISS / N/A with the figures."""
    checks: list[dict[str, str]] = []

    def add(name: str, status: str, detail: str) -> None:
        checks.append({"target": name, "status": status, "detail": detail})

    results = payload.get("results", [])
    mem = [
        (r, r["systems"].get("disc-ir", {}))
        for r in results
        if r["memory_bound"] and r["systems"].get("xla", {}).get("status") == "ok"
    ]
    mem = [(r, d) for r, d in mem if d.get("status") == "ok"]
    if mem:
        worst = max(d["ratio_to_xla"] for _, d in mem)
        figures = ", ".join(f"{r['model']} {d['ratio_to_xla']:.2f}x" for r, d in mem)
        add("memory-bound graphs: disc-ir <= 1.0x XLA", "PASS" if worst <= 1.0 else "MISS", figures)
    else:
        add("memory-bound graphs: disc-ir <= 1.0x XLA", "N/A", "no disc-ir and XLA timings")

    dyn = payload.get("dynamic_workload")
    count = len(dyn["rows"]) if dyn else DYNAMIC_SHAPES
    name = (
        f"dynamic shapes ({count} row counts of layernorm+gelu): disc-ir >= 5x faster than jax.jit"
    )
    if dyn and "speedup_vs_xla" in dyn:
        d, x = dyn["systems"]["disc-ir"], dyn["systems"]["xla"]
        add(
            name,
            "PASS" if dyn["speedup_vs_xla"] >= 5.0 else "MISS",
            f"{dyn['speedup_vs_xla']:.2f}x (disc-ir {d['total_s']:.2f} s incl. "
            f"{d['compile_s']:.2f} s compile; jax.jit {x['total_s']:.2f} s"
            + (f"; medians of {dyn['repeats']} rounds)" if dyn.get("repeats", 1) > 1 else ")"),
        )
    else:
        add(name, "N/A", "not measured (section off, or disc-ir / jax unavailable)")

    enc = payload.get("encoder")
    name = f"BERT-base encoder, 12 layers: disc-ir compile <= {ENCODER12_COMPILE_TARGET_S:g} s"
    run12 = next((r for r in (enc or {}).get("runs", []) if r["layers"] == 12), None)
    if run12 is not None and "disc_compile_s" in run12:
        lin = ""
        if "seconds_per_layer" in enc:
            lin = (
                f"; {enc['seconds_per_layer']:.2f} s/layer, R^2 {enc['r_squared']:.3f} over "
                + ", ".join(
                    f"{r['layers']}: {r['disc_compile_s']:.1f} s"
                    for r in enc["runs"]
                    if "disc_compile_s" in r
                )
            )
        add(
            name,
            "PASS" if run12["disc_compile_s"] <= ENCODER12_COMPILE_TARGET_S else "MISS",
            f"{run12['disc_compile_s']:.2f} s (+ {run12['disc_export_s']:.2f} s jax export){lin}",
        )
    elif run12 is not None:
        add(name, "MISS", run12.get("disc_error", "failed"))
    elif enc and "seconds_per_layer" in enc:
        # 12 layers not measured (--encoder-layers): extrapolate the linear fit; a
        # projection never passes, but one far above the target is a miss
        est = enc["seconds_per_layer"] * 12 + enc["intercept_s"]
        measured = ", ".join(
            f"{r['layers']}: {r['disc_compile_s']:.1f} s"
            for r in enc["runs"]
            if "disc_compile_s" in r
        )
        status = "MISS" if est > ENCODER12_COMPILE_TARGET_S else "N/A"
        add(
            name,
            status,
            f"12 layers not measured; extrapolated {est:.0f} s from {enc['seconds_per_layer']:.1f} s/layer "
            f"(measured {measured})",
        )
    else:
        add(name, "N/A", "not measured (encoder section off)")
    _scaling_check(enc, add)
    _compile_vs_xla_check(enc, add)
    _memory_bound_compile_check(results, add)

    errs: list[tuple[str, float]] = []
    failures: list[str] = []
    for r in results:
        d = r["systems"].get("disc-ir", {})
        label = f"{r['model']}[{r['tag']}]"
        if d.get("status") == "ok" and "rel_err" in d:
            errs.append((label, _err(d["rel_err"])))
        elif d.get("status") == "error":
            failures.append(f"{label}: {d['error']}")
    if dyn and "max_rel_err" in dyn.get("systems", {}).get("disc-ir", {}):
        errs.append(("dynamic workload", _err(dyn["systems"]["disc-ir"]["max_rel_err"])))
    for run in (enc or {}).get("runs", []):
        if "rel_err" in run:
            errs.append((f"encoder{run['layers']}", _err(run["rel_err"])))
        elif "disc_error" in run:
            failures.append(f"encoder{run['layers']}: {run['disc_error']}")
    refs = {r.get("reference") for r in results if r.get("reference")}
    name = f"correctness: every model at every benchmarked shape, rel err <= {RTOL:g} vs XLA"
    if errs or failures:
        worst_label, worst = max(errs, key=lambda e: e[1]) if errs else ("-", 0.0)
        bad = [f"{lbl} {e:.1e}" for lbl, e in errs if e > RTOL] + failures
        status = "PASS" if not bad else "MISS"
        detail = f"{len(errs)} checked, worst {worst_label} {worst:.1e}"
        if refs - {"xla"}:
            detail += " (reference: " + ", ".join(sorted(refs)) + ")"
        if bad:
            detail += "; failing: " + "; ".join(bad)
        add(name, status, detail)
    else:
        add(name, "N/A", "no disc-ir results")
    return checks


# ---------------------------------------------------------------------------
# Schema
# ---------------------------------------------------------------------------

_SYSTEM_OK_KEYS = {"median_ms": float, "min_ms": float, "samples": int, "compile_s": float}


def check_schema(payload: dict[str, Any]) -> list[str]:
    """Problems with `payload` against the `disc-ir-bench/2` layout (empty: valid).

    Top level: schema, machine, settings, copy_bandwidth, systems, targets;
    `results[]`: model, sizes, tag, memory_bound, reference, systems{name:
    status ok (median_ms, min_ms, samples, compile_s, compile_phases,
    rel_err, ratio_to_xla ...) | error | unavailable (error)}; the optional
    sections dynamic_workload, encoder, peak_rss, iree_dynamic.
    """
    problems: list[str] = []

    def need(obj: Any, key: str, kind: Any, where: str) -> None:
        if not isinstance(obj, dict) or key not in obj:
            problems.append(f"{where}: missing '{key}'")
        elif not isinstance(obj[key], kind):
            problems.append(f"{where}.{key}: {type(obj[key]).__name__}, expected {kind}")

    need(payload, "schema", str, "payload")
    if payload.get("schema") != SCHEMA:
        problems.append(f"payload.schema: {payload.get('schema')!r}, expected {SCHEMA!r}")
    for key in ("machine", "settings", "copy_bandwidth", "systems"):
        need(payload, key, dict, "payload")
    need(payload, "targets", list, "payload")
    for i, r in enumerate(payload.get("results", [])):
        where = f"results[{i}]"
        for key, kind in (
            ("model", str),
            ("sizes", dict),
            ("tag", str),
            ("memory_bound", bool),
            ("systems", dict),
        ):
            need(r, key, kind, where)
        if "reference" not in r:
            problems.append(f"{where}: missing 'reference'")
        for name, e in r.get("systems", {}).items():
            w = f"{where}.systems[{name}]"
            status = e.get("status")
            if status == "ok":
                for key, kind in _SYSTEM_OK_KEYS.items():
                    need(e, key, (int, float) if kind is float else kind, w)
                need(e, "compile_phases", dict, w)
                if r.get("reference") is not None and "rel_err" not in e:
                    problems.append(f"{w}: missing 'rel_err'")
            elif status in ("error", "unavailable"):
                need(e, "error", str, w)
            else:
                problems.append(f"{w}.status: {status!r}")
    dyn = payload.get("dynamic_workload")
    if dyn is not None:
        for key, kind in (("model", str), ("rows", list), ("hidden", int), ("systems", dict)):
            need(dyn, key, kind, "dynamic_workload")
        for name, e in dyn.get("systems", {}).items():
            if e.get("status") == "ok":
                need(e, "total_s", float, f"dynamic_workload.systems[{name}]")
                need(e, "per_call_s", list, f"dynamic_workload.systems[{name}]")
    for t in payload.get("targets", []):
        if t.get("status") not in ("PASS", "MISS", "N/A") or not isinstance(t.get("detail"), str):
            problems.append(f"targets: bad entry {t!r}")
    try:
        json.dumps(payload, allow_nan=False, default=_json_default)
    except (TypeError, ValueError) as exc:
        problems.append(f"not strict JSON: {exc}")
    return problems


# ---------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------


def _fmt(v: float | None, spec: str, suffix: str = "") -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:{spec}}{suffix}"


def format_report(payload: dict[str, Any]) -> str:
    """The human-readable report: runtime table, compile phases, sections, targets."""
    lines: list[str] = []
    bw = payload.get("copy_bandwidth", {}).get("best_gb_s")
    if bw:
        lines.append(f"copy bandwidth (numpy, 1 thread): {bw:.1f} GB/s")
    results = payload.get("results", [])
    if results:
        hdr = (
            f"{'model':<19} {'sizes':<21} {'system':<14} {'median ms':>10} {'vs XLA':>7} "
            f"{'vs best':>16} {'GB/s':>6} {'%copy':>6} {'compile s':>9} {'rel err':>8}"
        )
        lines += ["", hdr, "-" * len(hdr)]
        for r in results:
            for name, e in r["systems"].items():
                head = f"{r['model']:<19} {r['tag']:<21} {name:<14}"
                if e["status"] != "ok":
                    lines.append(f"{head} {e['status'].upper()}: {e['error']}")
                    continue
                best = "-"
                if e.get("best_peer"):
                    best = f"{e['ratio_to_best_peer']:.2f}x {e['best_peer'][:7]}"
                compile_s = "-" if name == "numpy" else f"{e['compile_s']:.2f}"
                if name == "disc-ir" and not e.get("compiled_now", True):
                    compile_s = "(shared)"
                frac = e.get("bandwidth_fraction")
                lines.append(
                    f"{head} {e['median_ms']:>10.3f} {_fmt(e.get('ratio_to_xla'), '.2f', 'x'):>7} "
                    f"{best:>16} {_fmt(e.get('gb_per_s'), '.2f'):>6} "
                    f"{_fmt(frac * 100 if frac else None, '.0f', '%'):>6} {compile_s:>9} "
                    f"{_fmt(e.get('rel_err'), '.1e'):>8}"
                )
        phase_rows = [
            (r["model"], r["systems"]["disc-ir"])
            for r in results
            if r["systems"].get("disc-ir", {}).get("status") == "ok"
            and r["systems"]["disc-ir"].get("compiled_now")
        ]
        if phase_rows:
            phases = list(phase_rows[0][1]["compile_phases"])
            lines += ["", "disc-ir compile seconds per phase (verification off):"]
            lines.append(
                f"{'model':<19} " + " ".join(f"{p[:9]:>9}" for p in phases) + f" {'total':>7}"
            )
            for model, e in phase_rows:
                ph = e["compile_phases"]
                lines.append(
                    f"{model:<19} "
                    + " ".join(f"{ph.get(p, 0.0):>9.2f}" for p in phases)
                    + f" {e['compile_s']:>7.2f}"
                )
        probes = payload.get("iree_dynamic", {})
        if probes:
            lines += ["", "IREE on the shape-polymorphic export:"]
            for model, p in probes.items():
                lines.append(
                    f"  {model:<19} {'compiles' if p['status'] == 'ok' else 'FAILS: ' + p['error']}"
                )
    dyn = payload.get("dynamic_workload")
    if dyn:
        lines += [
            "",
            f"dynamic-shape workload: {dyn['model']} at {len(dyn['rows'])} row counts "
            f"({dyn['rows'][0]}..{dyn['rows'][-1]}) x {dyn['hidden']}, one call each"
            + (f"; median of {dyn['repeats']} rounds" if dyn.get("repeats", 1) > 1 else ""),
        ]
        for name, e in dyn["systems"].items():
            if e["status"] != "ok":
                lines.append(f"  {name:<14} ERROR: {e['error']}")
                continue
            comp = f", compile {e['compile_s']:.2f} s" if e.get("compile_s") is not None else ""
            rounds = e.get("totals_s", [])
            spread = (
                " (rounds " + ", ".join(f"{t:.2f}" for t in rounds) + ")" if len(rounds) > 1 else ""
            )
            lines.append(
                f"  {name:<14} total {e['total_s']:>7.2f} s{spread}{comp}, "
                f"rel err {_fmt(e.get('max_rel_err'), '.1e')}"
            )
            if e.get("compile_phases_s"):
                phases = ", ".join(f"{k} {v:.2f}" for k, v in e["compile_phases_s"].items())
                lines.append(f"  {'':<14} compile phases (s): {phases}")
        if "speedup_vs_xla" in dyn:
            lines.append(f"  disc-ir vs jax.jit: {dyn['speedup_vs_xla']:.2f}x faster")
    enc = payload.get("encoder")
    if enc:
        lines += ["", f"BERT-base encoder ({size_tag(enc['sizes'])}):"]
        for r in enc["runs"]:
            if "disc_compile_s" not in r:
                lines.append(f"  {r['layers']:>2} layers: disc-ir ERROR: {r.get('disc_error')}")
                continue
            lines.append(
                f"  {r['layers']:>2} layers: disc-ir compile {r['disc_compile_s']:.2f} s "
                f"(+ export {r['disc_export_s']:.2f} s), run {_fmt(r.get('disc_ms'), '.1f')} ms; "
                f"xla compile {_fmt(r.get('xla_compile_s'), '.2f')} s, run {_fmt(r.get('xla_ms'), '.1f')} ms; "
                f"compile vs xla {_fmt(r.get('compile_vs_xla'), '.1f')}x; "
                f"rel err {_fmt(r.get('rel_err'), '.1e')}"
            )
            if "disc_error" in r:
                lines.append(f"     disc-ir run ERROR: {r['disc_error']}")
        if "seconds_per_layer" in enc:
            lines.append(
                f"  linear fit: {enc['seconds_per_layer']:.2f} s/layer + {enc['intercept_s']:.2f} s, "
                f"R^2 {enc['r_squared']:.3f}"
            )
        prof = enc.get("profile")
        if prof is not None and "error" in prof:
            lines.append(f"  compile profile, {prof['layers']} layers: ERROR: {prof['error']}")
        elif prof is not None:
            lines += ["  " + ln for ln in format_profile(prof, f"{prof['layers']} layers")]
    rss = payload.get("peak_rss")
    if rss:
        lines += ["", f"peak RSS, own subprocess each ({rss['model']} {size_tag(rss['sizes'])}):"]
        for name, e in rss["systems"].items():
            if "error" in e:
                lines.append(f"  {name:<14} ERROR: {e['error']}")
            else:
                lines.append(
                    f"  {name:<14} peak {e['peak_mb']:>7.0f} MiB (after imports + inputs {e['baseline_mb']:.0f} MiB)"
                )
    targets = payload.get("targets", [])
    if targets:
        lines += ["", "targets:"]
        for t in targets:
            lines.append(f"  [{t['status']}] {t['target']}: {t['detail']}")
    return "\n".join(lines)


def machine_info(threads: int | None) -> dict[str, Any]:
    """Host, library versions and thread settings."""
    info: dict[str, Any] = {
        "host": platform.node(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "disc_threads": threads or int(os.environ.get("OMP_NUM_THREADS", 0)) or os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
    }
    try:
        import llvmlite.binding as llvm

        info["llvm_host_cpu"] = llvm.get_host_cpu_name()
    except Exception:  # noqa: BLE001 - informational only
        pass
    from importlib import metadata

    for dist in (
        "jax",
        "jaxlib",
        "torch",
        "iree-base-compiler",
        "iree-base-runtime",
        "xdsl",
        "llvmlite",
    ):
        try:
            info[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            info[dist] = None
    return info


def resolve_systems(
    names: Sequence[str], threads: int | None, torch_cache: bool = False, disc_source: str = "auto"
) -> dict[str, System | str]:
    """name -> System, or name -> why it is unavailable.

    `disc_source`: `auto` (jax export, else bench/graphs), `export` (the jax
    export only) or `graphs` (bench/graphs MHLO only).
    """
    out: dict[str, System | str] = {}
    for name in names:
        system = make_system(
            name,
            threads=threads,
            torch_cache=torch_cache,
            use_jax=disc_source != "graphs",
            use_graphs=disc_source != "export",
        )
        why = system.available()
        out[name] = why if why is not None else system
    return out


def default_out() -> Path:
    """bench/results/<date>-cpu-<cores>core.json, with -2, -3 ... when that run exists."""
    stem = f"{time.strftime('%Y-%m-%d')}-cpu-{os.cpu_count() or 1}core"
    path, n = RESULTS / f"{stem}.json", 1
    while path.exists():
        n += 1
        path = RESULTS / f"{stem}-{n}.json"
    return path


def parse_plan(models: str | None, quick: bool) -> list[tuple[str, dict[str, int]]]:
    """The runtime plan, filtered by `--models` (comma-separated names)."""
    plan = QUICK_PLAN if quick else FULL_PLAN
    if models:
        wanted = [m.strip() for m in models.split(",") if m.strip()]
        for w in wanted:
            M.bench_model(w)  # KeyError for unknown names
        known = {m for m, _ in plan}
        plan = [p for p in plan if p[0] in wanted]
        plan += [(w, {}) for w in wanted if w not in known]
    return plan


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m bench", description=(__doc__ or "").split("\n\n")[0]
    )
    ap.add_argument(
        "--quick", action="store_true", help="small sizes, few repeats, a subset (< 60 s)"
    )
    ap.add_argument(
        "--sections", default=",".join(SECTIONS), help=f"comma-separated: {','.join(SECTIONS)}"
    )
    ap.add_argument(
        "--systems", default=None, help=f"comma-separated subset of {','.join(SYSTEMS)}"
    )
    ap.add_argument("--models", default=None, help="comma-separated zoo models (default: the plan)")
    ap.add_argument("--warmup", type=int, default=None)
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--budget", type=float, default=None, help="seconds of timed calls per system")
    ap.add_argument(
        "--dynamic-repeats",
        type=int,
        default=None,
        help=f"rounds of the dynamic workload, median reported (default {DYNAMIC_REPEATS}; "
        "1 with --quick)",
    )
    ap.add_argument("--threads", type=int, default=None, help="disc-ir CPU threads (default: all)")
    ap.add_argument("--torch-cache", action="store_true", help="keep inductor's on-disk caches")
    ap.add_argument(
        "--disc-source",
        choices=("auto", "export", "graphs"),
        default="auto",
        help="what disc-ir compiles: the jax export, falling back to bench/graphs MHLO (auto), "
        "only the export, or only bench/graphs",
    )
    ap.add_argument("--out", type=Path, default=None, help="JSON file (default bench/results/...)")
    ap.add_argument(
        "--encoder-layers",
        default=None,
        help="comma-separated layer counts of the encoder section (default 6,12,24)",
    )
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args(argv)

    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    for s in sections:
        if s not in SECTIONS:
            ap.error(f"unknown section '{s}' (sections: {', '.join(SECTIONS)})")
    if args.systems:
        names = [s.strip() for s in args.systems.split(",") if s.strip()]
        for s in names:
            if s not in SYSTEMS:
                ap.error(f"unknown system '{s}' (systems: {', '.join(SYSTEMS)})")
    else:
        # torch.compile's cold compiles (tens of seconds each) do not fit the quick budget
        names = [s for s in SYSTEMS if not (args.quick and s == "torch.compile")]
    if args.quick and args.sections == ",".join(SECTIONS):
        # the encoder's compiles do not fit the quick budget either
        sections = [s for s in sections if s != "encoder"]
    warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)
    repeats = args.repeats if args.repeats is not None else (5 if args.quick else 100)
    budget = args.budget if args.budget is not None else (0.2 if args.quick else 2.0)
    try:
        plan = parse_plan(args.models, args.quick)
    except KeyError as exc:
        ap.error(str(exc.args[0]))

    configure_jax()
    t_start = time.perf_counter()
    payload: dict[str, Any] = {
        "schema": SCHEMA,
        "machine": machine_info(args.threads),
        "load_average_start": _load(),
        "python_loop_ms_start": python_loop_ms(),
        "settings": {
            "quick": args.quick,
            "sections": sections,
            "systems": names,
            "warmup": warmup,
            "repeats": repeats,
            "budget_s": budget,
            "rtol": RTOL,
            "verify": False,
            "torch_cache": args.torch_cache,
            "disc_source": args.disc_source,
        },
    }
    print("measuring copy bandwidth ...", flush=True)
    payload["copy_bandwidth"] = copy_bandwidth(64 << 20 if args.quick else 256 << 20)
    systems = resolve_systems(names, args.threads, args.torch_cache, args.disc_source)
    payload["systems"] = {
        n: {"available": not isinstance(s, str), "error": s if isinstance(s, str) else None}
        for n, s in systems.items()
    }
    have_jax = not isinstance(systems.get("xla", "absent"), str)

    def log(msg: str) -> None:
        print(msg, flush=True)

    if "runtime" in sections:
        log("runtime section:")
        payload["results"] = []
        bw = payload["copy_bandwidth"]["best_gb_s"]
        for model_name, sizes in plan:
            payload["results"].append(
                bench_one(
                    model_name,
                    sizes,
                    systems,
                    warmup=warmup,
                    repeats=repeats,
                    budget_s=budget,
                    bandwidth_gb_s=bw,
                    log=log,
                )
            )
        if isinstance(systems.get("iree"), Iree) and have_jax:
            payload["iree_dynamic"] = {}
            for model_name in dict.fromkeys(m for m, _ in plan):
                log(f"  iree: shape-polymorphic export of {model_name} ...")
                err = Iree.dynamic_probe(M.bench_model(model_name))
                payload["iree_dynamic"][model_name] = (
                    {"status": "ok"} if err is None else {"status": "error", "error": err}
                )
        disc = systems.get("disc-ir")
        if isinstance(disc, DiscIR):
            disc.close()

    if "dynamic" in sections:
        log("dynamic-shape workload:")
        hidden = 256 if args.quick else 768
        count = QUICK_DYNAMIC_SHAPES if args.quick else DYNAMIC_SHAPES
        rows = dynamic_rows(count, 16 if args.quick else 64, 512 if args.quick else 4096)
        dyn_systems = [n for n in names if not isinstance(systems[n], str)]
        if args.quick:
            dyn_systems = [n for n in dyn_systems if n in ("disc-ir", "xla", "numpy")]
        dyn_repeats = args.dynamic_repeats
        if dyn_repeats is None:
            dyn_repeats = 1 if args.quick else DYNAMIC_REPEATS
        payload["dynamic_workload"] = dynamic_workload(
            dyn_systems, rows, hidden, threads=args.threads, repeats=dyn_repeats, log=log
        )

    if "encoder" in sections:
        log("BERT encoder compile scaling:")
        layers = (1, 2) if args.quick else ENCODER_LAYERS
        if args.encoder_layers:
            layers = tuple(int(v) for v in args.encoder_layers.split(",") if v.strip())
        sizes = {"batch": 1, "seq": 16, "hidden": 128, "ffn": 256} if args.quick else ENCODER_SIZES
        payload["encoder"] = encoder_scaling(
            layers, sizes, with_xla=have_jax, threads=args.threads, log=log
        )

    if "rss" in sections:
        import tempfile

        log("peak RSS:")
        model_name, sizes = QUICK_RSS_PLAN if args.quick else RSS_PLAN
        with tempfile.TemporaryDirectory(prefix="disc_bench_") as tmp:
            sources = rss_sources(model_name, sizes, Path(tmp), have_jax)
            payload["peak_rss"] = rss_section(
                model_name, sizes, systems, sources, threads=args.threads, log=log
            )

    payload["targets"] = target_checks(payload)
    payload["load_average_end"] = _load()
    payload["python_loop_ms_end"] = python_loop_ms()
    payload["wall_s"] = time.perf_counter() - t_start
    print()
    print(format_report(payload))
    print(
        f"\nwall {payload['wall_s']:.0f} s; load average {payload['load_average_start']} -> "
        f"{payload['load_average_end']} on {os.cpu_count()} cores; pure-Python loop "
        f"{payload['python_loop_ms_start']:.0f} -> {payload['python_loop_ms_end']:.0f} ms"
    )

    out = args.out or default_out()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(payload, indent=2, default=_json_default) + "\n")
    print(f"wrote {out}")
    if not args.no_plot:
        from bench.plot import write_plot

        png = out.with_suffix(".png")
        err = write_plot(payload, png)
        print(f"wrote {png}" if err is None else f"no plot: {err}")
    return 0


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


__all__ = [
    "PEERS",
    "SCHEMA",
    "bench_one",
    "check_schema",
    "dynamic_rows",
    "dynamic_workload",
    "encoder_scaling",
    "format_report",
    "main",
    "target_checks",
]
