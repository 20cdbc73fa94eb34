"""oneDNN Graph partitions through disc-ir: the C API against the Python API, PyTorch eager and numpy.

    python -m bench.onednn_graph [--quick] [--graphs mha,conv] [--out PATH]

For every JSON graph of test/unit/data/onednn_graph (benchdnn's format):

- `capi`: test/unit/capi/run_graphs.c (compiled with `cc`) dlopens
  libdisc_graph_compiler.so, compiles the graph and times
  `dnnl_graph_compiler_execute` on buffers laid out by the JSON's strides;
- `py-buffers`: `GraphExecutable.execute_buffers` on the same kind of
  buffers (what the C entry calls: the difference is the C entry's cost);
- `py`: `GraphExecutable.execute` on numpy arrays by tensor id;
- `numpy`: the tests' numpy reference of oneDNN's op semantics (float64);
- `torch`: PyTorch eager (oneDNN-backed on CPU) where the graph is a chain
  of ops with a direct torch twin; reported as unavailable without torch.

Median milliseconds per call (`--repeats`, after one warm-up call), the C
entry's overhead (capi - py-buffers) and the compile time through the C API.
Prints a table and writes JSON (default
bench/results/onednn_graph/<date>-cpu-<cores>core.json: a folder of its own,
as `bench.report` reads the suite's results from bench/results/*.json).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "test" / "unit" / "data" / "onednn_graph"
TESTS = ROOT / "test" / "unit"
sys.path[:0] = [str(TESTS / "capi"), str(TESTS / "onednn_graph")]

from capi_manifest import Manifest, as_laid_out, strided_bytes  # noqa: E402
from onednn_inputs import make_inputs  # noqa: E402
from onednn_reference import run_reference  # noqa: E402

import disc_ir.onednn_graph as og  # noqa: E402
from disc_ir.capi.build import build  # noqa: E402


def _median_ms(call: Callable[[], Any], repeats: int) -> float:
    call()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


_TORCH_UNARY = {
    "ReLU": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Log": "log",
    "Sqrt": "sqrt", "Abs": "abs", "Round": "round", "Reciprocal": "reciprocal",
    "Square": "square",
}  # fmt: skip
_TORCH_BINARY = {
    "Add": "add", "Subtract": "sub", "Multiply": "mul", "Divide": "div",
    "Maximum": "maximum", "Minimum": "minimum",
}  # fmt: skip


def torch_twin(raw: dict[str, Any]) -> Callable[[dict[int, Any]], dict[int, Any]] | None:
    """A PyTorch eager function of the graph when every op has a direct twin, else None."""
    try:
        import torch
    except ImportError:
        return None
    ops = raw["graph"]
    for o in ops:
        if (
            o["kind"] not in _TORCH_UNARY
            and o["kind"] not in _TORCH_BINARY
            and o["kind"] != "MatMul"
        ):
            return None

    def run(env: dict[int, Any]) -> dict[int, Any]:
        env = dict(env)
        for o in ops:
            ins = [env[t["id"]] for t in o["inputs"]]
            attrs = {k: v["value"] for k, v in o["attrs"].items()}
            if o["kind"] == "MatMul":
                a, b = ins[0], ins[1]
                if attrs.get("transpose_a"):
                    a = a.transpose(-1, -2)
                if attrs.get("transpose_b"):
                    b = b.transpose(-1, -2)
                y = torch.matmul(a, b)
                if len(ins) == 3:
                    y = y + ins[2]
            elif o["kind"] in _TORCH_UNARY:
                y = getattr(torch, _TORCH_UNARY[o["kind"]])(ins[0])
            else:
                y = getattr(torch, _TORCH_BINARY[o["kind"]])(ins[0], ins[1])
            env[o["outputs"][0]["id"]] = y
        return env

    return run


def bench_graph(path: Path, lib: Path, driver: Path, repeats: int, tmp: Path) -> dict[str, Any]:
    raw = json.loads(path.read_text())
    ins = as_laid_out(raw, make_inputs(raw, seed=0))
    ref = run_reference(raw, ins)
    row: dict[str, Any] = {"graph": f"{path.parent.name}/{path.stem}", "ops": len(raw["graph"])}
    m = Manifest(tmp)
    m.compile(raw, path.stem)
    m.case(raw, ins, ref)
    m.lines.append(f"time {repeats}")
    m.destroy()
    t0 = time.perf_counter()
    r = subprocess.run([str(driver), str(lib), str(m.write())], capture_output=True, text=True)
    row["capi_process_s"] = round(time.perf_counter() - t0, 3)
    timing = [ln for ln in r.stdout.splitlines() if ln.startswith("time ")]
    row["capi_ok"] = r.returncode == 0
    row["capi_ms"] = float(timing[0].split()[1]) if timing else None
    if r.returncode != 0:
        row["capi_error"] = (r.stdout + r.stderr)[-500:]

    t0 = time.perf_counter()
    exe = og.compile(path.read_text())
    row["compile_s"] = round(time.perf_counter() - t0, 3)
    row["py_ms"] = _median_ms(lambda: exe.execute(ins), repeats)
    # buffers laid out by the JSON's strides, as the C program passes them
    keep = []
    in_args = []
    for t in exe.inputs:
        a = np.array(ins[t.id], order="C")
        raw_bytes = np.frombuffer(
            strided_bytes(a, og.buffer_strides(t, a.shape)) or b"\0", np.uint8
        )
        buf = raw_bytes.copy()
        keep.append(buf)
        in_args.append(og.TensorArg(t.id, a.shape, buf.ctypes.data))
    out_args = []
    for t in exe.outputs:
        dims = tuple(ref[t.id].shape)
        strides = og.buffer_strides(t, dims)
        extent = 1 + sum((d - 1) * st for d, st in zip(dims, strides, strict=True))
        buf = np.empty(max(extent, 1), np.dtype(t.numpy_dtype))
        keep.append(buf)
        out_args.append(og.TensorArg(t.id, dims, buf.ctypes.data))
    row["py_buffers_ms"] = _median_ms(lambda: exe.execute_buffers(in_args, out_args), repeats)
    row["numpy_ms"] = _median_ms(lambda: run_reference(raw, ins), max(1, repeats // 4))
    twin = torch_twin(raw)
    if twin is None:
        row["torch_ms"] = None
    else:
        import torch

        tins = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in ins.items()}
        with torch.no_grad():
            row["torch_ms"] = _median_ms(lambda: twin(tins), repeats)
    if row["capi_ms"] is not None and row.get("py_buffers_ms") is not None:
        row["c_entry_overhead_ms"] = row["capi_ms"] - row["py_buffers_ms"]
    exe.close()
    return row


def _fmt(v: Any) -> str:
    return "-" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.onednn_graph", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--quick", action="store_true", help="6 graphs, 5 repeats")
    parser.add_argument("--graphs", default="", help="comma-separated substrings of graph names")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--out", default="")
    args = parser.parse_args(argv)
    paths = sorted(DATA.glob("*/*.json"))
    if args.graphs:
        keys = args.graphs.split(",")
        paths = [p for p in paths if any(k in p.stem for k in keys)]
    repeats = args.repeats
    if args.quick:
        paths = paths[:: max(1, len(paths) // 6)][:6]
        repeats = 5
    if not paths:
        print(f"no graphs under {DATA}", file=sys.stderr)
        return 1
    cc = shutil.which("cc")
    if cc is None:
        print("the C API bench needs the system C compiler `cc`", file=sys.stderr)
        return 1
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_onednn_") as tmp_s:
        tmp = Path(tmp_s)
        lib = build(tmp / "lib")
        driver = tmp / "run_graphs"
        subprocess.run(
            [cc, "-O2", f"-I{tmp / 'lib'}", str(TESTS / "capi" / "run_graphs.c"), "-o", str(driver),
             "-ldl", "-lpthread", "-lm"],
            check=True,
        )  # fmt: skip
        for i, path in enumerate(paths):
            work = tmp / f"g{i}"
            work.mkdir()
            rows.append(bench_graph(path, lib, driver, repeats, work))
            r = rows[-1]
            print(
                f"{r['graph']:<58} capi {_fmt(r['capi_ms']):>9}  py-buf {_fmt(r.get('py_buffers_ms')):>9}"
                f"  py {_fmt(r['py_ms']):>9}  numpy {_fmt(r['numpy_ms']):>9}  torch {_fmt(r['torch_ms']):>7}"
                f"  compile {r['compile_s']:.2f}s",
                flush=True,
            )
    over = [r["c_entry_overhead_ms"] for r in rows if r.get("c_entry_overhead_ms") is not None]
    summary = {
        "graphs": len(rows),
        "capi_all_ok": all(r["capi_ok"] for r in rows),
        "c_entry_overhead_ms_median": statistics.median(over) if over else None,
        "capi_vs_numpy_speedup_median": statistics.median(
            [r["numpy_ms"] / r["capi_ms"] for r in rows if r["capi_ms"]]
        )
        if rows
        else None,
    }
    print(json.dumps(summary, indent=1))
    out = (
        Path(args.out)
        if args.out
        else ROOT
        / "bench"
        / "results"
        / "onednn_graph"
        / f"{datetime.date.today().isoformat()}-cpu-{os.cpu_count()}core.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps({"schema": "disc-ir-bench-onednn-graph/1", "repeats": repeats, "summary": summary,
                    "rows": rows}, indent=1)
    )  # fmt: skip
    print(f"wrote {out}")
    return 0 if summary["capi_all_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
