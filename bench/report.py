"""docs/benchmarks.md from stored results: the machine, the figures, the plots.

    python -m bench.report bench/results/*.json -o docs/benchmarks.md

Takes any mix of `python -m bench` payloads (schema `disc-ir-bench/2`, see
`bench.run.check_schema`) and `tools/gpu_check.py` reports (a `device`
section, or one report per configuration under `configs`). The page opens
with a summary (each system's figures from the newest CPU run that measured
it), then one section per CPU run, newest first: the machine, the
memory-bound graphs and the rest of the model zoo against XLA and the other
systems, the dynamic-shape workload against jax.jit, the BERT encoder's
compile scaling, peak RSS, the target checks, and the run's plot
(`bench.plot`, written to `--img-dir`, default `img/` beside the page; without
matplotlib the page says so and has no plot); then one section per GPU run, then the newest run of each suite kept in a folder
of bench/results/ (`bench.suites`: artifacts, the oneDNN Graph C API, the PyTorch zoo).
`test/unit/test_bench_report.py` checks that docs/benchmarks.md is current.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import suites
from bench.compile_profile import format_profile

ROOT = Path(__file__).resolve().parent.parent
SYSTEM_ORDER = ("disc-ir", "xla", "torch.compile", "iree", "numpy")
SYSTEM_NAMES = {
    "disc-ir": "disc-ir",
    "xla": "XLA (jax.jit)",
    "torch.compile": "torch.compile",
    "iree": "IREE",
    "numpy": "numpy",
}
NO_MATPLOTLIB = "matplotlib is not installed (pip install -e .[bench])"
#: what the configurations of a gpu_check report with several (`configs`) changed
GPU_CONFIGS = {
    "stitch": "the default: BladeDISC's stitch fusion strategy",
    "base": "`DISC_ENABLE_STITCH=0`: the base fusion strategy",
    "nolimits": "speculation without the device's core counts",
}

Run = tuple[str, dict[str, Any]]


def is_gpu_report(payload: dict[str, Any]) -> bool:
    """A tools/gpu_check.py report (not a `python -m bench` payload)."""
    return "schema" not in payload and ("device" in payload or "configs" in payload)


def display_path(path: Path) -> str:
    """`path` relative to the repository root when inside it, else as given."""
    try:
        return path.resolve().relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def _f(value: float | None, spec: str, suffix: str = "") -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:{spec}}{suffix}"


def _geomean(values: Sequence[float]) -> float | None:
    good = [v for v in values if v and v > 0]
    return math.exp(sum(math.log(v) for v in good) / len(good)) if good else None


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + " --- |" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def _short_error(error: str) -> str:
    """The gist of a peer's failure: the op a compiler refused, else the first words."""
    m = re.search(r"failed to legalize operation '([^']+)'", error)
    if m:
        return f"refuses `{m.group(1)}`"
    first = error.splitlines()[0] if error else "failed"
    return first if len(first) <= 80 else first[:77] + "..."


def _systems(payload: dict[str, Any]) -> list[str]:
    used = {n for r in payload.get("results", []) for n in r["systems"]}
    used |= set(payload.get("dynamic_workload", {}).get("systems", {}))
    return [n for n in SYSTEM_ORDER if n in used]


def _stem(name: str) -> str:
    return Path(name).stem


# ---------------------------------------------------------------------------
# Summary
# ---------------------------------------------------------------------------


def _runtime_ratios(payload: dict[str, Any], system: str, memory_bound: bool) -> list[float]:
    return [
        r["systems"][system]["ratio_to_xla"]
        for r in payload.get("results", [])
        if r["memory_bound"] == memory_bound
        and r["systems"].get(system, {}).get("status") == "ok"
        and r["systems"][system].get("ratio_to_xla")
    ]


def _summary_cell(payload: dict[str, Any], system: str, row: str) -> str | None:
    """One summary figure of `system` in `payload`, or None when not measured there."""
    if row in ("memory", "zoo"):
        ratios = _runtime_ratios(payload, system, row == "memory")
        g = _geomean(ratios)
        return None if g is None else f"{g:.2f}x"
    if row == "dynamic":
        e = payload.get("dynamic_workload", {}).get("systems", {}).get(system, {})
        return f"{e['total_s']:.2f} s" if e.get("status") == "ok" else None
    if row == "encoder":
        run12 = next(
            (r for r in payload.get("encoder", {}).get("runs", []) if r["layers"] == 12), None
        )
        if run12 is None:
            return None
        key = {"disc-ir": "disc_compile_s", "xla": "xla_compile_s"}.get(system)
        return f"{run12[key]:.1f} s" if key and run12.get(key) is not None else None
    if row == "rss":
        e = payload.get("peak_rss", {}).get("systems", {}).get(system, {})
        return f"{e['peak_mb']:.0f} MiB" if "peak_mb" in e else None
    raise ValueError(row)


SUMMARY_ROWS = (
    ("memory", "memory-bound graphs, 4096x768 f32: time / XLA's (geomean of 4)"),
    ("zoo", "model zoo (MLP, BERT layer, GPT-2 block, ...): time / XLA's (geomean)"),
    ("dynamic", "layernorm+gelu at 32 shapes, compiles included: wall time"),
    ("encoder", "BERT-base encoder, 12 layers: compile time"),
    ("rss", "peak RSS running layernorm+gelu 4096x768"),
)


def summary(cpu: list[Run], gpu: list[Run]) -> list[str]:
    """The headline table: per system, the newest CPU run that measured each figure.

    Cells taken from an older run than the newest name its date; one row per
    GPU run gives disc-ir's call time over XLA's on the memory-bound graphs.
    """
    newest = _stem(cpu[0][0]) if cpu else ""
    systems = [s for s in SYSTEM_ORDER if any(s in _systems(p) for _, p in cpu)]
    rows = []
    for key, label in SUMMARY_ROWS:
        cells = []
        for system in systems:
            cell = "-"
            for name, payload in cpu:
                value = _summary_cell(payload, system, key)
                if value is not None:
                    date = _stem(name)[:10]
                    cell = value if _stem(name) == newest else f"{value} ({date})"
                    break
            cells.append(cell)
        if any(c != "-" for c in cells):
            rows.append([label, *cells])
    for _, payload in gpu:
        graphs = _gpu_memory_bound(payload)
        ratios = [g["ratio_to_xla"] for g in graphs.values() if g.get("ratio_to_xla")]
        g = _geomean(ratios)
        if g is None:
            continue
        device = payload.get("device", {}).get("name", "GPU")
        cells = [f"{g:.2f}x" if s == "disc-ir" else "1.00x" if s == "xla" else "-" for s in systems]
        rows.append([f"{device}: memory-bound graphs 8192x4096, call time / XLA's", *cells])
    lines = _table(["", *(SYSTEM_NAMES[s] for s in systems)], rows)
    if cpu:
        lines.insert(0, "")
        lines.insert(
            0,
            f"From the newest CPU run (`{newest}`) where it measured the system, else the "
            "newest run that did (its date in brackets). Lower is better everywhere.",
        )
    return lines


# ---------------------------------------------------------------------------
# CPU runs
# ---------------------------------------------------------------------------


def _machine(payload: dict[str, Any]) -> list[str]:
    m = payload.get("machine", {})
    versions = ", ".join(
        f"{k} {m[k]}"
        for k in ("python", "numpy", "xdsl", "llvmlite", "jax", "torch", "iree-base-compiler")
        if m.get(k)
    )
    lines = [
        f"- Machine: {m.get('cpu_count', '?')} cores ({m.get('llvm_host_cpu', '?')}, "
        f"{m.get('machine', '?')}), `{m.get('platform', '?')}`; disc-ir on "
        f"{m.get('disc_threads', '?')} threads.",
        f"- Software: {versions}.",
    ]
    bw = payload.get("copy_bandwidth", {}).get("best_gb_s")
    if bw:
        lines.append(f"- Copy bandwidth (numpy, one thread): {bw:.1f} GB/s.")
    loop = (payload.get("python_loop_ms_start"), payload.get("python_loop_ms_end"))
    if all(v is not None for v in loop):
        lines.append(
            f"- Machine speed: a fixed pure-Python loop took {loop[0]:.0f} ms at the start and "
            f"{loop[1]:.0f} ms at the end; load average {payload.get('load_average_start')} -> "
            f"{payload.get('load_average_end')}; the run took {payload.get('wall_s', 0):.0f} s."
        )
    s = payload.get("settings", {})
    lines.append(
        f"- Settings: sections {', '.join(s.get('sections', []))}; warmup {s.get('warmup')}, up to "
        f"{s.get('repeats')} timed calls or {s.get('budget_s')} s per system, interleaved."
    )
    return lines + [""]


def _runtime_table(payload: dict[str, Any], memory_bound: bool) -> list[str]:
    results = [r for r in payload.get("results", []) if r["memory_bound"] == memory_bound]
    if not results:
        return []
    systems = [s for s in _systems(payload) if any(s in r["systems"] for r in results)]
    header = ["model", "sizes", *(f"{SYSTEM_NAMES[s]} ms" for s in systems)]
    if memory_bound:
        header += ["disc-ir GB/s (of copy)"]
    header += ["disc-ir compile s", "disc-ir rel err"]
    rows = []
    for r in results:
        row = [r["model"], r["tag"].replace(",", ", ")]
        for s in systems:
            e = r["systems"].get(s)
            if e is None:
                row.append("-")
            elif e["status"] != "ok":
                row.append(e["status"])
            elif s == "xla" or e.get("ratio_to_xla") is None:
                row.append(f"{e['median_ms']:.3f}")
            else:
                row.append(f"{e['median_ms']:.3f} ({e['ratio_to_xla']:.2f}x)")
        d = r["systems"].get("disc-ir", {})
        ok = d.get("status") == "ok"
        if memory_bound:
            frac = d.get("bandwidth_fraction")
            row.append(
                f"{d['gb_per_s']:.1f} ({frac * 100:.0f}%)"
                if ok and d.get("gb_per_s") and frac
                else "-"
            )
        compiled = ok and d.get("compiled_now", True)
        row.append(f"{d['compile_s']:.2f}" if compiled else "(shared)" if ok else "-")
        row.append(_f(d.get("rel_err") if ok else None, ".1e"))
        rows.append(row)
    title = (
        "Memory-bound graphs against XLA"
        if memory_bound
        else "Model zoo: compute-bound models against XLA"
    )
    lines = [
        f"#### {title}",
        "",
        "Median time per call (ms); in brackets, the time over XLA's (below 1.00x: faster "
        "than XLA). Relative error of disc-ir's outputs against XLA's."
        + (
            " GB/s: bytes in and out over the median time, against the copy bandwidth "
            "measured on one thread (disc-ir runs on all cores, so it can pass 100%)."
            if memory_bound
            else ""
        ),
        "",
    ]
    lines += _table(header, rows)
    probes = payload.get("iree_dynamic", {})
    models = {r["model"] for r in results}
    failing = {m: p for m, p in probes.items() if m in models and p.get("status") != "ok"}
    if probes and models & set(probes):
        ok = sorted(m for m, p in probes.items() if m in models and p.get("status") == "ok")
        parts = [f"{m} ({_short_error(p.get('error', ''))})" for m, p in sorted(failing.items())]
        lines.append(
            "IREE on the shape-polymorphic export: "
            + (f"compiles {', '.join(ok)}" if ok else "compiles none")
            + (f"; fails on {', '.join(parts)}" if parts else "")
            + ". Its timings above are of static exports."
        )
        lines.append("")
    return lines


def _dynamic(payload: dict[str, Any]) -> list[str]:
    dyn = payload.get("dynamic_workload")
    if not dyn:
        return []
    rows = []
    for s in [n for n in SYSTEM_ORDER if n in dyn["systems"]]:
        e = dyn["systems"][s]
        if e["status"] != "ok":
            rows.append([SYSTEM_NAMES[s], "error", "-", "-", "-"])
            continue
        totals = e.get("totals_s", [])
        rows.append(
            [
                SYSTEM_NAMES[s],
                f"{e['total_s']:.2f}",
                ", ".join(f"{t:.2f}" for t in totals) if len(totals) > 1 else "-",
                _f(e.get("compile_s"), ".2f"),
                _f(e.get("max_rel_err"), ".1e"),
            ]
        )
    rounds = dyn.get("repeats", 1)
    lines = [
        "#### Dynamic shapes against jax.jit",
        "",
        f"{dyn['model']} at {len(dyn['rows'])} row counts ({dyn['rows'][0]} to {dyn['rows'][-1]}) "
        f"x {dyn['hidden']}, one call each; the wall time includes every compile (disc-ir "
        "compiles once, jax.jit once per shape)"
        + (f"; median of {rounds} interleaved rounds." if rounds > 1 else "."),
        "",
    ]
    lines += _table(["system", "total s", "rounds s", "compile s", "rel err"], rows)
    if "speedup_vs_xla" in dyn:
        lines += [f"disc-ir is {dyn['speedup_vs_xla']:.2f}x faster than jax.jit here.", ""]
    return lines


def _ratio(num: float | None, den: float | None) -> str:
    return f"{num / den:.1f}x" if num is not None and den else "-"


def _encoder(payload: dict[str, Any]) -> list[str]:
    enc = payload.get("encoder")
    if not enc or not enc.get("runs"):
        return []
    rows = []
    prev: float | None = None
    for r in enc["runs"]:
        compile_s = r.get("disc_compile_s")
        growth = f"{compile_s / prev:.2f}x" if compile_s and prev else "-"
        prev = compile_s
        rows.append(
            [
                str(r["layers"]),
                _f(compile_s, ".2f"),
                growth,
                _f(r.get("disc_export_s"), ".2f"),
                _f(r.get("disc_ms"), ".1f"),
                _f(r.get("xla_compile_s"), ".2f"),
                _ratio(compile_s, r.get("xla_compile_s")),
                _f(r.get("xla_ms"), ".1f"),
                _f(r.get("rel_err"), ".1e"),
            ]
        )
    sizes = ", ".join(f"{k} {v}" for k, v in enc["sizes"].items())
    lines = [
        "#### BERT encoder compile scaling",
        "",
        f"A BERT-base encoder ({sizes}) through the whole CPU pipeline, IR verification off.",
        "",
    ]
    lines += _table(
        [
            "layers",
            "disc-ir compile s",
            "vs previous",
            "jax export s",
            "disc-ir run ms",
            "XLA compile s",
            "disc-ir / XLA compile",
            "XLA run ms",
            "rel err",
        ],
        rows,
    )
    if "seconds_per_layer" in enc:
        lines += [
            f"Linear fit: {enc['seconds_per_layer']:.2f} s per layer + {enc['intercept_s']:.2f} s "
            f"(R^2 {enc['r_squared']:.3f}).",
            "",
        ]
    prof = enc.get("profile")
    if prof and "error" not in prof:
        lines += [
            f"Where the {prof['layers']}-layer compile spends its time (`bench.compile_profile`):",
            "",
            "```",
            *format_profile(prof, f"{prof['layers']} layers"),
            "```",
            "",
        ]
    return lines


def _rss(payload: dict[str, Any]) -> list[str]:
    rss = payload.get("peak_rss")
    if not rss:
        return []
    rows = []
    for s in [n for n in SYSTEM_ORDER if n in rss["systems"]]:
        e = rss["systems"][s]
        if "error" in e:
            rows.append([SYSTEM_NAMES[s], "error", _short_error(e["error"])])
        else:
            rows.append([SYSTEM_NAMES[s], f"{e['peak_mb']:.0f}", f"{e['baseline_mb']:.0f}"])
    sizes = ", ".join(f"{k} {v}" for k, v in rss["sizes"].items())
    return [
        "#### Peak memory",
        "",
        f"Peak RSS compiling and running {rss['model']} ({sizes}), each system in its own process.",
        "",
        *_table(["system", "peak MiB", "after imports and inputs MiB"], rows),
    ]


def _targets(payload: dict[str, Any]) -> list[str]:
    targets = payload.get("targets", [])
    if not targets:
        return []
    rows = [[t["status"], t["target"], t["detail"].replace("|", "/")] for t in targets]
    return ["#### Target checks", "", *_table(["", "target", "figures"], rows)]


def cpu_section(
    name: str, payload: dict[str, Any], plot: str | None, no_plot: str = NO_MATPLOTLIB
) -> list[str]:
    """The section of one `python -m bench` run; `plot` is the PNG's link (None: none
    drawn, for the reason `no_plot`)."""
    lines = [f"### CPU run `{name}`", ""]
    lines += _machine(payload)
    lines += _runtime_table(payload, memory_bound=True)
    lines += _runtime_table(payload, memory_bound=False)
    lines += _dynamic(payload)
    lines += _encoder(payload)
    lines += _rss(payload)
    lines += _targets(payload)
    if plot is not None:
        lines += [f"![plots of {name}]({plot})", ""]
    else:
        lines += [f"No plot of this run: {no_plot}.", ""]
    return lines


# ---------------------------------------------------------------------------
# GPU runs
# ---------------------------------------------------------------------------


def _gpu_memory_bound(payload: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The default configuration's memory-bound graphs of a gpu_check report."""
    if "configs" in payload:
        configs = payload["configs"]
        conf = configs.get("stitch") or next(iter(configs.values()), {})
        return conf.get("memory_bound", {})
    return payload.get("memory_bound", {}).get("graphs", {})


def _gpu_table(graphs: dict[str, Any], kernels: dict[str, Any] | None) -> list[str]:
    rows = []
    for name, g in sorted(graphs.items()):
        row = [
            name,
            _f(g.get("disc_s", 0) * 1e3, ".3f"),
            _f(g.get("jax_s", 0) * 1e3, ".3f"),
            _f(g.get("ratio_to_xla"), ".2f", "x"),
            f"{g['disc_gb_per_s']:.0f} ({g['disc_fraction_of_copy'] * 100:.0f}%)"
            if g.get("disc_gb_per_s")
            else "-",
        ]
        if kernels is not None:
            disc_us, xla_us = _kernel_us(kernels.get(name, []))
            row += [_f(disc_us, ".0f"), _f(xla_us, ".0f")]
        rows.append(row)
    header = ["graph", "disc-ir ms", "XLA ms", "time / XLA's", "disc-ir GB/s (of copy)"]
    if kernels is not None:
        header += ["disc-ir kernels us", "XLA kernels us"]
    return _table(header, rows)


def _kernel_us(entries: list[dict[str, Any]]) -> tuple[float | None, float | None]:
    """Summed CUPTI kernel time (each kernel's average) of disc-ir's and of XLA's kernels."""
    sums: dict[str, float] = {}
    for e in entries:
        if e.get("system") and e.get("avg_us") is not None:
            sums[e["system"]] = sums.get(e["system"], 0.0) + float(e["avg_us"])
    return sums.get("disc-ir"), sums.get("xla")


def gpu_section(name: str, payload: dict[str, Any]) -> list[str]:
    """The section of one tools/gpu_check.py report."""
    dev = payload.get("device", {})
    cc = dev.get("compute_capability")
    cc_text = ".".join(str(c) for c in cc) if isinstance(cc, list) else str(cc)
    lines = [f"### GPU run `{name}`", ""]
    lines.append(
        f"- Device: {dev.get('name', '?')} (compute capability {cc_text}, "
        f"{dev.get('memory_total_gib', '?')} GiB)."
    )
    copy = payload.get("bandwidth", {}).get("gb_per_s")
    if copy is None and "configs" in payload:
        configs = payload["configs"]
        copy = (configs.get("stitch") or next(iter(configs.values()), {})).get("copy_gb_per_s")
    if copy:
        lines.append(f"- Device-to-device copy bandwidth: {copy:.0f} GB/s.")
    for conf_name in payload.get("configs", {}):
        lines.append(f"- Configuration `{conf_name}`: {GPU_CONFIGS.get(conf_name, conf_name)}.")
    tests = payload.get("driver_tests")
    if isinstance(tests, dict) and "summary" in tests:
        lines.append(f"- CUDA driver tests: {tests['summary']}.")
    lines.append("")
    configs = payload.get("configs") or {"": payload}
    sizes = payload.get("memory_bound", {})
    shape = f"{sizes.get('rows', 8192)}x{sizes.get('cols', 4096)}"
    for conf_name, conf in configs.items():
        graphs = conf.get("memory_bound", {})
        graphs = graphs.get("graphs", graphs) if isinstance(graphs, dict) else {}
        if not graphs:
            continue
        kernels = conf.get("cupti_kernels")
        what = f" (configuration `{conf_name}`)" if conf_name else ""
        lines += [
            f"#### Memory-bound graphs against XLA{what}",
            "",
            f"f32 at {shape}, inputs and outputs on the GPU; median time per synchronized call.",
            "",
        ]
        lines += _gpu_table(graphs, kernels if isinstance(kernels, dict) else None)
    for conf_name, conf in configs.items():
        shapes = conf.get("shapes")
        e2e = conf.get("e2e_cuda")
        what = f" (`{conf_name}`)" if conf_name else ""
        if isinstance(shapes, dict) and shapes.get("graphs"):
            results = [v for g in shapes["graphs"].values() for v in g.values()]
            ok = sum(v == "ok" for v in results)
            lines.append(
                f"- Edge-case shapes{what}: {ok} of {len(results)} (graph, shape) pairs match the "
                f"CPU ({len(shapes['graphs'])} graphs at {len(shapes.get('shapes', []))} shapes, "
                "1x1 to 4096x3072)."
            )
        if isinstance(e2e, dict) and e2e.get("counts"):
            c = e2e["counts"]
            lines.append(
                f'- Correctness suite on `target="cuda"`{what}: {c.get("ok", 0)} graphs match the '
                f"CPU, {c.get('fail', 0)} fail, {c.get('skip', 0)} skipped."
            )
    return lines + [""]


# ---------------------------------------------------------------------------
# Page
# ---------------------------------------------------------------------------


def split_runs(runs: Sequence[Run]) -> tuple[list[Run], list[Run]]:
    """(CPU runs, GPU runs), each newest first (file names start with the date)."""
    cpu = [r for r in runs if not is_gpu_report(r[1])]
    gpu = [r for r in runs if is_gpu_report(r[1])]
    key = lambda run: Path(run[0]).name  # noqa: E731 - a sort key
    return sorted(cpu, key=key, reverse=True), sorted(gpu, key=key, reverse=True)


def build_page(
    runs: Sequence[Run], plots: dict[str, str], command: str, no_plot: str = NO_MATPLOTLIB
) -> str:
    """The Markdown page. `runs`: (display path, payload); `plots`: display path -> PNG
    link; `no_plot`: why a CPU run without a link has no plot."""
    cpu, gpu = split_runs(runs)
    lines = [
        "# Benchmarks",
        "",
        "<!-- Generated by bench/report.py; do not edit. -->",
        f"Generated by `{command}` from the runs kept in `bench/results/` "
        "(`python -m bench` for the CPU, `tools/gpu_check.py` for the GPU; how the figures are "
        "measured: `bench/run.py`'s docstring). Each system is timed in bursts interleaved with the "
        "others', so a drift of the machine's speed hits all alike; on a shared VM, ratios move by "
        "about 0.1 from one run to the next.",
        "",
        "## Summary",
        "",
    ]
    lines += summary(cpu, gpu)
    lines += ["## CPU", ""]
    for name, payload in cpu:
        lines += cpu_section(name, payload, plots.get(name), no_plot)
    if gpu:
        lines += ["## GPU", ""]
        for name, payload in gpu:
            lines += gpu_section(name, payload)
    lines += suites.sections(ROOT / "bench" / "results", display_path)
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"


def command_line(runs: Sequence[Run], out: Path) -> str:
    """The command that regenerates the page, as the page quotes it."""
    return " ".join(
        ["python -m bench.report", *(name for name, _ in runs), "-o", display_path(out)]
    )


def load_runs(paths: Sequence[Path]) -> list[Run]:
    """(display path, payload) of each results file."""
    return [(display_path(p), json.loads(p.read_text())) for p in paths]


def write_plots(
    runs: Sequence[Run], img_dir: Path, page: Path
) -> tuple[dict[str, str], str | None]:
    """Draws each CPU run's figure to img_dir/<stem>.png; (display path -> link, why none)."""
    from bench.plot import write_plot

    links: dict[str, str] = {}
    for name, payload in split_runs(runs)[0]:
        png = img_dir / f"{_stem(name)}.png"
        err = write_plot(payload, png, dpi=60)
        if err is not None:
            return {}, err
        links[name] = Path(os.path.relpath(png, page.parent)).as_posix()
    return links, None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.report", description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", type=Path, help="bench or gpu_check JSON files")
    ap.add_argument("-o", "--out", type=Path, required=True, help="the Markdown page to write")
    ap.add_argument(
        "--img-dir", type=Path, default=None, help="PNG folder (default: img/ beside -o)"
    )
    ap.add_argument("--no-plots", action="store_true", help="write the page without plots")
    args = ap.parse_args(argv)
    runs = load_runs(args.results)
    plots: dict[str, str] = {}
    why: str | None = "the page was generated with --no-plots"
    if not args.no_plots:
        plots, why = write_plots(runs, args.img_dir or args.out.parent / "img", args.out)
        if why is not None:
            print(f"no plots: {why}", file=sys.stderr)
    command = command_line(runs, args.out)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(build_page(runs, plots, command, why or NO_MATPLOTLIB))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
