"""The bench's PNG: one figure of six panels drawn from the results JSON payload.

Panels: runtime relative to XLA per model (log scale; below 1 is faster),
achieved GB/s of the memory-bound graphs against the measured copy
bandwidth, compile time per model (disc-ir stacked by pipeline phase beside
XLA, IREE and torch.compile), the dynamic-shape workload's cumulative wall
time over its 32 shapes, the BERT encoder's disc-ir compile time against
its layer count, and peak RSS per system. Panels without data say so.

    python -m bench.plot bench/results/<file>.json    # re-draw a stored run
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from bench.run import ENCODER12_COMPILE_TARGET_S

COLORS = {
    "disc-ir": "#d62728",
    "xla": "#1f77b4",
    "torch.compile": "#ff7f0e",
    "iree": "#2ca02c",
    "numpy": "#7f7f7f",
}


def _empty(ax: Any, title: str, why: str) -> None:
    ax.set_title(title)
    ax.text(0.5, 0.5, why, ha="center", va="center", transform=ax.transAxes, color="#666")
    ax.set_xticks([])
    ax.set_yticks([])


def _label(r: dict[str, Any]) -> str:
    return f"{r['model']}\n{r['tag'].replace(',', ' ')}"


def _runtime(ax: Any, payload: dict[str, Any]) -> None:
    results = [
        r for r in payload.get("results", []) if r["systems"].get("xla", {}).get("status") == "ok"
    ]
    title = "runtime / XLA (median; lower is faster)"
    if not results:
        _empty(ax, title, "no XLA timings")
        return
    names = [
        n for n in COLORS if any(r["systems"].get(n, {}).get("status") == "ok" for r in results)
    ]
    width = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        xs, ys = [], []
        for j, r in enumerate(results):
            e = r["systems"].get(name, {})
            if e.get("status") == "ok" and e.get("ratio_to_xla"):
                xs.append(j + (i - (len(names) - 1) / 2) * width)
                ys.append(e["ratio_to_xla"])
        ax.bar(xs, ys, width, label=name, color=COLORS[name])
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_yscale("log")
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels([_label(r) for r in results], rotation=60, ha="right", fontsize=7)
    ax.set_title(title)
    ax.legend(fontsize=7)


def _bandwidth(ax: Any, payload: dict[str, Any]) -> None:
    results = [r for r in payload.get("results", []) if r["memory_bound"]]
    title = "memory-bound graphs: achieved GB/s"
    if not results:
        _empty(ax, title, "no memory-bound results")
        return
    names = [n for n in COLORS if any(r["systems"].get(n, {}).get("gb_per_s") for r in results)]
    width = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        xs, ys = [], []
        for j, r in enumerate(results):
            v = r["systems"].get(name, {}).get("gb_per_s")
            if v:
                xs.append(j + (i - (len(names) - 1) / 2) * width)
                ys.append(v)
        ax.bar(xs, ys, width, label=name, color=COLORS[name])
    bw = payload.get("copy_bandwidth", {}).get("best_gb_s")
    if bw:
        ax.axhline(bw, color="black", ls="--", lw=0.8, label=f"numpy copy {bw:.1f} GB/s")
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels([_label(r) for r in results], rotation=60, ha="right", fontsize=7)
    ax.set_title(title)
    ax.legend(fontsize=7)


def _compile(ax: Any, payload: dict[str, Any]) -> None:
    results = [
        r for r in payload.get("results", []) if r["systems"].get("disc-ir", {}).get("compiled_now")
    ]
    title = "compile time (s); disc-ir by phase"
    if not results:
        _empty(ax, title, "no disc-ir compiles")
        return
    phases = list(results[0]["systems"]["disc-ir"]["compile_phases"])
    cmap = __import__("matplotlib").colormaps["Reds"]
    peers = [
        n
        for n in ("xla", "iree", "torch.compile")
        if any(r["systems"].get(n, {}).get("status") == "ok" for r in results)
    ]
    width = 0.8 / (1 + len(peers))
    for j, r in enumerate(results):
        ph = r["systems"]["disc-ir"]["compile_phases"]
        bottom = 0.0
        x = j - 0.4 + width / 2
        for k, p in enumerate(phases):
            v = ph.get(p, 0.0)
            ax.bar(
                x,
                v,
                width,
                bottom=bottom,
                color=cmap(0.25 + 0.7 * k / max(len(phases) - 1, 1)),
                label=p if j == 0 else None,
            )
            bottom += v
        for i, name in enumerate(peers):
            e = r["systems"].get(name, {})
            if e.get("status") == "ok":
                ax.bar(
                    x + (i + 1) * width,
                    e["compile_s"],
                    width,
                    color=COLORS[name],
                    label=name if j == 0 else None,
                )
    ax.set_xticks(range(len(results)))
    ax.set_xticklabels([r["model"] for r in results], rotation=60, ha="right", fontsize=7)
    ax.set_title(title)
    ax.legend(fontsize=6, ncol=2)


def _dynamic(ax: Any, payload: dict[str, Any]) -> None:
    dyn = payload.get("dynamic_workload")
    title = "dynamic shapes: cumulative wall time (s)"
    if not dyn:
        _empty(ax, title, "not measured")
        return
    for name, e in dyn["systems"].items():
        if e.get("status") != "ok":
            continue
        start = (e.get("compile_s") or 0.0) if name == "disc-ir" else 0.0
        total = start
        ys = []
        for v in e["per_call_s"]:
            total += v
            ys.append(total)
        ax.plot(
            range(1, len(ys) + 1),
            ys,
            marker=".",
            label=f"{name} ({e['total_s']:.1f} s)",
            color=COLORS.get(name),
        )
    ax.set_xlabel(f"shape # ({dyn['model']}, {len(dyn['rows'])} row counts x {dyn['hidden']})")
    ax.set_title(title)
    ax.legend(fontsize=7)


def _encoder(ax: Any, payload: dict[str, Any]) -> None:
    enc = payload.get("encoder")
    title = "BERT encoder compile time vs layers"
    runs = [r for r in (enc or {}).get("runs", []) if "disc_compile_s" in r]
    if not runs:
        _empty(ax, title, "not measured")
        return
    xs = [r["layers"] for r in runs]
    ax.plot(
        xs,
        [r["disc_compile_s"] for r in runs],
        marker="o",
        color=COLORS["disc-ir"],
        label="disc-ir",
    )
    xla = [
        (r["layers"], r["xla_compile_s"])
        for r in (enc or {}).get("runs", [])
        if "xla_compile_s" in r
    ]
    if xla:
        ax.plot(
            [x for x, _ in xla], [y for _, y in xla], marker="o", color=COLORS["xla"], label="xla"
        )
    ax.axhline(
        ENCODER12_COMPILE_TARGET_S,
        color="black",
        ls="--",
        lw=0.8,
        label=f"target {ENCODER12_COMPILE_TARGET_S:g} s @ 12 layers",
    )
    ax.set_xlabel("layers")
    ax.set_ylabel("s")
    ax.set_title(title)
    ax.legend(fontsize=7)


def _rss(ax: Any, payload: dict[str, Any]) -> None:
    rss = payload.get("peak_rss")
    title = "peak RSS (MiB), own process each"
    ok = {n: e for n, e in (rss or {}).get("systems", {}).items() if "peak_mb" in e}
    if not ok:
        _empty(ax, title, "not measured")
        return
    names = list(ok)
    ax.bar(
        names,
        [ok[n]["peak_mb"] for n in names],
        color=[COLORS.get(n, "#333") for n in names],
        label="peak",
    )
    ax.bar(
        names,
        [ok[n]["baseline_mb"] for n in names],
        color="white",
        alpha=0.5,
        hatch="//",
        label="after imports + inputs",
    )
    ax.set_title(
        f"{title}\n{rss['model']} {','.join(f'{k}={v}' for k, v in rss['sizes'].items())}",
        fontsize=9,
    )
    ax.tick_params(axis="x", labelsize=7)
    ax.legend(fontsize=7)


def write_plot(payload: dict[str, Any], path: Path, dpi: int = 90) -> str | None:
    """Draws the figure to `path` at `dpi`; returns None, or why no plot was written."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "matplotlib is not installed (pip install -e .[bench])"
    fig, axes = plt.subplots(2, 3, figsize=(18, 10))
    for draw, ax in zip(
        (_runtime, _bandwidth, _compile, _dynamic, _encoder, _rss), axes.flat, strict=True
    ):
        draw(ax, payload)
    host = payload.get("machine", {})
    fig.suptitle(
        f"disc-ir bench: {host.get('llvm_host_cpu', '')} x{host.get('cpu_count', '?')} cores, "
        f"load {payload.get('load_average_start', [])}"
    )
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m bench.plot RESULTS.json", file=sys.stderr)
        return 2
    src = Path(argv[0])
    payload = json.loads(src.read_text())
    err = write_plot(payload, src.with_suffix(".png"))
    print(f"wrote {src.with_suffix('.png')}" if err is None else err)
    return 0 if err is None else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
