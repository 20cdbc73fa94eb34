"""One command for a GPU machine: the CUDA driver's tests, the e2e suite on target "cuda",
and memory-bound graphs against jax on the GPU with the device's copy bandwidth.

    python tools/gpu_check.py [--out DIR] [--quick]

Writes ``<date>-<machine>.json`` and ``.txt`` (e.g. ``2026-11-26-h100.json``, the
machine named from the GPU, see `machine_tag`) under ``--out`` (default ``$OUT``,
else ``./gpu_check_out``); ``python -m bench.report`` renders the JSON. Each section records its own failure and the others
still run; the exit status is non-zero when a section failed.

Sections:

1. ``device``: name, compute capability, memory (CUDA driver API).
2. ``driver_tests``: ``pytest test/unit/test_cuda_driver.py`` (the GPU tests run here).
3. ``bandwidth``: device-to-device copy bandwidth (``cuMemcpyDtoDAsync``, 256 MiB).
4. ``memory_bound``: ``bench/graphs/*.mlir`` on disc-ir cuda (inputs and outputs placed
   on the GPU) vs ``jax.jit`` on the GPU (when jax sees a GPU): median synchronized time
   per call, effective bandwidth (bytes in + out / time), its fraction of the copy
   bandwidth, the ratio to XLA's time.
5. ``shapes``: the same graphs at edge-case shapes (one row, ragged sizes), cuda vs cpu.
6. ``e2e_cuda``: every graph of the CPU e2e suite (``test/e2e/cuda_graphs.py``)
   compiled for ``cuda`` and ``cpu``, run on the same random inputs, compared; each
   graph in a child process that is restarted after a graph that crashes it.

7. ``profile``: the same graphs' kernels timed by CUPTI (torch.profiler), one table each.
8. ``host_profile``: cProfile of 200 calls (where the host time of a call goes).

``--sections`` picks some of them (comma-separated names).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import traceback
import zlib
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from disc_ir.runtime.abi import SCALAR_TYPES  # noqa: E402

DYNAMIC_DIM = 16


def _inputs(exe: Any, rng: np.random.Generator, dim: int = DYNAMIC_DIM) -> list[np.ndarray]:
    """Random inputs for an Executable's ArgSpecs (dynamic dims = ``dim``)."""
    arrays = []
    for spec in exe.inputs:
        shape = tuple(dim if s is None else s for s in spec.shape)
        dtype = np.dtype(SCALAR_TYPES[spec.element][0])
        if dtype.kind == "f":
            arrays.append(rng.standard_normal(shape).astype(dtype))
        elif dtype.kind == "b":
            arrays.append(rng.random(shape) > 0.5)
        else:
            arrays.append(rng.integers(1, 8, shape).astype(dtype))
    return arrays


def _host(x: Any) -> np.ndarray:
    return x.numpy() if hasattr(x, "numpy") and not isinstance(x, np.ndarray) else np.asarray(x)


def section_device() -> dict[str, Any]:
    from disc_ir.runtime.cuda_backend import CudaBackend

    backend = CudaBackend(0)
    free, total = backend.mem_info()
    return {
        "name": backend.name,
        "compute_capability": backend.compute_capability(),
        "memory_free_gib": round(free / 2**30, 2),
        "memory_total_gib": round(total / 2**30, 2),
    }


def section_driver_tests() -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "test/unit/test_cuda_driver.py", "-q", "-rs"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    tail = (proc.stdout + proc.stderr).strip().splitlines()[-15:]
    return {"ok": proc.returncode == 0, "returncode": proc.returncode, "tail": tail}


def _e2e_child(names: list[str]) -> None:
    """Check `names` in order, printing one ``E2E <name>\t<result>`` line each."""
    import disc_ir

    # `test` would be the standard library's package: import the suite as `e2e`.
    sys.path.insert(0, str(ROOT / "test"))
    from e2e.cuda_graphs import e2e_graphs

    graphs = e2e_graphs()
    for name in names:
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        print(f"E2E {name}\t{_e2e_one(disc_ir, graphs[name], rng)}", flush=True)


def _e2e_one(disc_ir: Any, text: str, rng: np.random.Generator) -> str:
    """One graph compiled for cpu and cuda, run on the same random inputs, compared."""
    try:
        cpu = disc_ir.compile(text, target="cpu", keep_ir=False)
    except Exception as err:  # noqa: BLE001
        return f"skip (cpu compile: {type(err).__name__})"
    try:
        arrays = _inputs(cpu, rng)
        cpu.check_inputs(arrays)
        want = cpu(*arrays)
    except Exception as err:  # noqa: BLE001 - random inputs a graph rejects (a shape operand)
        return f"skip (random inputs rejected on cpu: {type(err).__name__}: {str(err)[:120]})"
    try:
        gpu = disc_ir.compile(text, target="cuda", keep_ir=False)
        got = [_host(x) for x in gpu(*arrays)]
    except Exception as err:  # noqa: BLE001
        return f"FAIL (cuda: {type(err).__name__}: {str(err)[:300]})"
    try:
        for g, w in zip(got, want, strict=True):
            if w.dtype.kind == "f":
                np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-5)
            else:
                np.testing.assert_array_equal(g, w)
    except AssertionError as err:
        return f"FAIL (mismatch: {str(err).strip().splitlines()[0][:200]})"
    return "ok"


def section_e2e_cuda(quick: bool) -> dict[str, Any]:
    """Every e2e graph on cuda vs cpu, in a child process restarted after a graph that crashes it."""
    sys.path.insert(0, str(ROOT / "test"))
    from e2e.cuda_graphs import e2e_graphs

    graphs = sorted(e2e_graphs())
    todo = graphs[:20] if quick else graphs
    results: dict[str, str] = {}
    while todo:
        proc = subprocess.Popen(
            [sys.executable, "-X", "faulthandler", __file__, "--e2e-child", ",".join(todo)],
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("E2E "):
                name, _, result = line[4:].rstrip("\n").partition("\t")
                results[name] = result
                print(f"   e2e {name}: {result}", flush=True)
        code = proc.wait()
        todo = [n for n in todo if n not in results]
        if todo:
            results[todo[0]] = f"FAIL (crashed the process: exit {code})"
            print(f"   e2e {todo[0]}: {results[todo[0]]}", flush=True)
            todo = todo[1:]
    counts = {
        "ok": sum(v == "ok" for v in results.values()),
        "fail": sum(v.startswith("FAIL") for v in results.values()),
        "skip": sum(v.startswith("skip") for v in results.values()),
    }
    return {"ok": counts["fail"] == 0 and counts["ok"] > 0, "counts": counts, "graphs": results}


def _time(fn: Any, sync: Any, repeat: int = 20) -> float:
    fn()
    sync()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def section_bandwidth() -> dict[str, Any]:
    from disc_ir.runtime.cuda_backend import CudaBackend

    backend = CudaBackend(0)
    nbytes = 256 << 20
    stream = backend.create_stream()
    src, dst = backend.mem_alloc(nbytes), backend.mem_alloc(nbytes)
    try:
        seconds = _time(
            lambda: backend.memcpy_dtod(dst, src, nbytes, stream),
            lambda: backend.stream_synchronize(stream),
        )
    finally:
        backend.mem_free(src)
        backend.mem_free(dst)
        backend.destroy_stream(stream)
    # A copy reads and writes every byte.
    return {"bytes": nbytes, "seconds": seconds, "gb_per_s": 2 * nbytes / seconds / 1e9}


#: interleaved timing rounds of the memory-bound section (each a median of 20 calls)
ROUNDS = 5


def section_memory_bound(rows: int, cols: int, copy_gb_per_s: float | None) -> dict[str, Any]:
    """`bench/graphs/*.mlir` on disc-ir (inputs and outputs on the GPU) against jax.jit on
    the GPU: time per call (each synchronized; the best median of `ROUNDS` interleaved
    rounds), bytes in + out over that time, its fraction of the device-to-device copy
    bandwidth, and the ratio to XLA's time."""

    out: dict[str, Any] = {"rows": rows, "cols": cols, "graphs": {}}
    out["copy_gb_per_s"] = copy_gb_per_s
    jax = None
    try:
        import jax as _jax

        if any(d.platform == "gpu" for d in _jax.devices()):
            jax = _jax
        else:
            out["jax"] = "jax sees no GPU"
    except Exception as err:  # noqa: BLE001
        out["jax"] = f"unavailable: {err}"
    rng = np.random.default_rng(0)
    for path in sorted((ROOT / "bench" / "graphs").glob("*.mlir")):
        name = path.stem
        entry: dict[str, Any] = {}
        out["graphs"][name] = entry
        try:
            run = _BenchRun(path, rows, cols, rng)
            exe, device_inputs, sync = run.exe, run.device_inputs, run.sync
            nbytes = run.nbytes
            disc_call = (lambda exe=exe, d=device_inputs: exe(*d), sync)
            calls = {"disc": disc_call}
            jax_call = _jax_call(name, run.arrays) if jax is not None else None
            result = None
            if jax_call is not None:
                result = jax_call()
                calls["jax"] = (jax_call, lambda: None)
            # Interleaved rounds, the best median of each: one system's slow
            # phase (clocks, another process) does not land on it alone.
            best: dict[str, float] = {}
            for _ in range(ROUNDS):
                for key, (call, wait) in calls.items():
                    t = _time(call, wait, repeat=20)
                    best[key] = min(best.get(key, t), t)
            seconds = best["disc"]
            entry.update(disc_s=seconds, bytes=nbytes, disc_gb_per_s=nbytes / seconds / 1e9)
            if copy_gb_per_s:
                entry["disc_fraction_of_copy"] = entry["disc_gb_per_s"] / copy_gb_per_s
            if jax_call is not None:
                jax_s = best["jax"]
                entry.update(jax_s=jax_s, jax_gb_per_s=nbytes / jax_s / 1e9)
                entry["ratio_to_xla"] = seconds / jax_s
                got = _host(run.outputs[0])
                want = np.asarray(result[0] if isinstance(result, tuple | list) else result)
                entry["max_abs_diff_vs_jax"] = float(np.max(np.abs(got - want)))
        except Exception as err:  # noqa: BLE001
            entry["error"] = f"{type(err).__name__}: {str(err)[:300]}"
    out["ok"] = all("error" not in e for e in out["graphs"].values())
    return out


#: (rows, cols) the `shapes` section runs each memory-bound graph at: edge cases of
#: the row schedules (one row, one column, fewer columns than a warp, ragged sizes)
SHAPES = ((1, 1), (1, 4096), (3, 1000), (127, 33), (257, 768), (2048, 1024), (4096, 3072))


def section_shapes() -> dict[str, Any]:
    """`bench/graphs/*.mlir` compiled once per target, run at each of `SHAPES` on the
    same random inputs, cuda against cpu (one executable each: dynamic shapes)."""
    import disc_ir

    out: dict[str, Any] = {"shapes": [list(s) for s in SHAPES], "graphs": {}}
    rng = np.random.default_rng(1)
    for path in sorted((ROOT / "bench" / "graphs").glob("*.mlir")):
        results: dict[str, str] = {}
        out["graphs"][path.stem] = results
        try:
            cpu = disc_ir.compile(path.read_text(), target="cpu", keep_ir=False)
            gpu = disc_ir.compile(path.read_text(), target="cuda", keep_ir=False)
        except Exception as err:  # noqa: BLE001
            results["compile"] = f"FAIL ({type(err).__name__}: {str(err)[:300]})"
            continue
        for rows, cols in SHAPES:
            key = f"{rows}x{cols}"
            try:
                arrays = _bench_inputs(cpu, rows, cols, rng)
                want = cpu(*arrays)
                got = [_host(x) for x in gpu(*arrays)]
                for g, w in zip(got, want, strict=True):
                    np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-5)
                results[key] = "ok"
            except AssertionError as err:
                results[key] = f"FAIL (mismatch: {str(err).strip().splitlines()[0][:200]})"
            except Exception as err:  # noqa: BLE001
                results[key] = f"FAIL ({type(err).__name__}: {str(err)[:300]})"
    out["ok"] = all(v == "ok" for g in out["graphs"].values() for v in g.values())
    return out


class _BenchRun:
    """A bench graph compiled for the GPU with its inputs on the device, called once."""

    def __init__(self, path: Path, rows: int, cols: int, rng: np.random.Generator) -> None:
        import disc_ir

        self.exe = disc_ir.compile(_gpu_placed(path.read_text()), target="cuda", keep_ir=False)
        self.ral = self.exe._ral  # noqa: SLF001 - the executable's context
        self.arrays = _bench_inputs(self.exe, rows, cols, rng)
        self.device_inputs = [self.ral.device_array(a) for a in self.arrays]
        self.outputs = self.exe(*self.device_inputs)
        self.nbytes = sum(a.nbytes for a in self.arrays) + sum(
            int(np.prod(o.shape)) * 4 for o in self.outputs
        )

    def sync(self) -> None:
        """Waits for the work queued on the executable's stream."""
        self.ral.cuda.backend.stream_synchronize(self.ral.cuda.stream)


def _bench_inputs(exe: Any, rows: int, cols: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Random f32 inputs of a bench graph: dynamic dims are `rows` (leading) or `cols`."""
    arrays = []
    for spec in exe.inputs:
        shape = tuple(
            (rows if i == 0 else cols) if s is None else s for i, s in enumerate(spec.shape)
        )
        if len(shape) == 1 and spec.shape[0] is None:
            shape = (cols,)
        arrays.append(rng.standard_normal(shape).astype(np.float32))
    return arrays


def _gpu_placed(text: str) -> Any:
    """The module of `text` with its `@main`'s inputs and outputs placed on the GPU
    (a `tf.entry_function` as TensorFlow writes for a GPU graph)."""
    from xdsl.dialects.builtin import DictionaryAttr, StringAttr
    from xdsl.dialects.func import FuncOp

    from disc_ir.api import entry_signature, load_module, make_context

    module = load_module(make_context(), text)
    main = next(o for o in module.ops if isinstance(o, FuncOp) and o.sym_name.data == "main")
    entry_signature(main)  # adds the default entry attribute
    attrs = dict(main.attributes["tf.entry_function"].data)  # type: ignore[union-attr]
    for key in ("input_placements", "output_placements"):
        n = len(attrs[key].data.split(","))  # type: ignore[union-attr]
        attrs[key] = StringAttr(",".join(["gpu"] * n))
    main.attributes["tf.entry_function"] = DictionaryAttr(attrs)
    return module


def section_profile(rows: int, cols: int, out_dir: Path) -> dict[str, Any]:
    """The memory-bound graphs with GPU-placed inputs and outputs: whole-call time, and the
    device time per kernel (CUPTI through torch.profiler) written to profile_<graph>.txt."""

    out: dict[str, Any] = {"rows": rows, "cols": cols, "graphs": {}}
    try:
        import torch
        from torch.profiler import ProfilerActivity, profile
    except Exception as err:  # noqa: BLE001
        torch = None
        out["torch"] = f"unavailable: {err}"
    rng = np.random.default_rng(1)
    for path in sorted((ROOT / "bench" / "graphs").glob("*.mlir")):
        name = path.stem
        entry: dict[str, Any] = {}
        out["graphs"][name] = entry
        try:
            run = _BenchRun(path, rows, cols, rng)
            exe, device_inputs, sync = run.exe, run.device_inputs, run.sync
            entry["outputs"] = [type(o).__name__ for o in run.outputs]
            entry["call_s"] = _time(lambda exe=exe, d=device_inputs: exe(*d), sync)
            nbytes = run.nbytes
            entry["gb_per_s"] = nbytes / entry["call_s"] / 1e9
            if torch is not None:
                jax_call = _jax_call(name, run.arrays)
                with profile(activities=[ProfilerActivity.CUDA, ProfilerActivity.CPU]) as prof:
                    for _ in range(5):
                        exe(*device_inputs)
                    sync()
                    if jax_call is not None:  # XLA's kernels in the same table
                        for _ in range(5):
                            jax_call()
                table = prof.key_averages().table(sort_by="cuda_time_total", row_limit=25)
                (out_dir / f"profile_{name}.txt").write_text(table)
                print(table[:4000], flush=True)
        except Exception as err:  # noqa: BLE001
            entry["error"] = f"{type(err).__name__}: {str(err)[:300]}"
            entry["traceback"] = traceback.format_exc()[-1500:]
    out["ok"] = all("error" not in e for e in out["graphs"].values())
    return out


def _jax_call(name: str, arrays: list[np.ndarray]) -> Any:
    """A synchronized call of the graph's jax twin on the GPU (compiled, its inputs
    on the device; it returns the outputs), or None without jax on a GPU."""
    try:
        import jax

        if not any(d.platform == "gpu" for d in jax.devices()):
            return None
        from bench.models import bench_model

        fn = jax.jit(bench_model(name).fn)
        jargs = [jax.device_put(a) for a in arrays]
        jax.block_until_ready(fn(*jargs))
        return lambda: jax.block_until_ready(fn(*jargs))
    except Exception:  # noqa: BLE001 - the profile runs without its XLA rows
        return None


def section_host_profile(rows: int, cols: int, out_dir: Path) -> dict[str, Any]:
    """Where the host time of a call goes: cProfile over 200 calls of softmax and
    bias+gelu with GPU-placed inputs and outputs (host_profile_<graph>.txt)."""
    import cProfile
    import io
    import pstats

    import disc_ir

    out: dict[str, Any] = {}
    rng = np.random.default_rng(2)
    for name in ("bias_gelu", "softmax"):
        path = ROOT / "bench" / "graphs" / f"{name}.mlir"
        exe = disc_ir.compile(_gpu_placed(path.read_text()), target="cuda", keep_ir=False)
        ral = exe._ral  # noqa: SLF001 - the executable's context
        arrays = [
            rng.standard_normal((rows, cols) if len(s.shape) == 2 else (cols,)).astype(np.float32)
            for s in exe.inputs
        ]
        dev = [ral.device_array(a) for a in arrays]
        exe(*dev)
        ral.cuda.backend.stream_synchronize(ral.cuda.stream)
        prof = cProfile.Profile()
        t0 = time.perf_counter()
        prof.enable()
        for _ in range(200):
            exe(*dev)
        prof.disable()
        ral.cuda.backend.stream_synchronize(ral.cuda.stream)
        per_call = (time.perf_counter() - t0) / 200
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(30)
        (out_dir / f"host_profile_{name}.txt").write_text(text.getvalue())
        print(text.getvalue()[:6000], flush=True)
        out[name] = {"per_call_s_profiled": per_call}
    out["ok"] = True
    return out


def machine_tag(device_name: str | None) -> str:
    """A short file-name tag for the GPU: ``NVIDIA H100 80GB HBM3`` -> ``h100``, ``gpu`` when unknown."""
    for word in (device_name or "").replace("-", " ").replace("_", " ").split():
        if any(c.isdigit() for c in word):
            return "".join(c for c in word.lower() if c.isalnum())
    return "gpu"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT") or "gpu_check_out")
    parser.add_argument("--quick", action="store_true", help="20 e2e graphs, smaller bench")
    parser.add_argument("--e2e-child", help=argparse.SUPPRESS)
    parser.add_argument("--sections", default="device,driver_tests,e2e_cuda,bandwidth,memory_bound")
    args = parser.parse_args(argv)
    if args.e2e_child:
        _e2e_child(args.e2e_child.split(","))
        return 0
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {}
    sections = [
        ("device", section_device),
        ("driver_tests", section_driver_tests),
        ("bandwidth", section_bandwidth),
        (
            "memory_bound",
            lambda: section_memory_bound(
                1024 if args.quick else 8192,
                1024 if args.quick else 4096,
                report.get("bandwidth", {}).get("gb_per_s"),
            ),
        ),
        ("shapes", section_shapes),
        ("e2e_cuda", lambda: section_e2e_cuda(args.quick)),
        ("profile", lambda: section_profile(8192, 4096, out_dir)),
        ("host_profile", lambda: section_host_profile(8192, 4096, out_dir)),
    ]
    failed = False
    wanted = set(args.sections.split(","))
    for name, fn in sections:
        if name not in wanted:
            continue
        t0 = time.perf_counter()
        try:
            report[name] = fn()
        except Exception as err:  # noqa: BLE001 - one section failing must not stop the rest
            report[name] = {
                "ok": False,
                "error": f"{type(err).__name__}: {err}",
                "traceback": traceback.format_exc()[-2000:],
            }
        report[name]["wall_s"] = round(time.perf_counter() - t0, 2)
        failed |= report[name].get("ok") is False
        print(f"== {name}: {json.dumps(report[name], default=str)[:2000]}", flush=True)
    stem = f"{time.strftime('%Y-%m-%d')}-{machine_tag(report.get('device', {}).get('name'))}"
    (out_dir / f"{stem}.json").write_text(json.dumps(report, indent=2, default=str))
    lines = [f"{k}: {json.dumps(v, default=str)}" for k, v in report.items()]
    (out_dir / f"{stem}.txt").write_text("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
