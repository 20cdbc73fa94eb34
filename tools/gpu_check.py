"""One command for a GPU machine: the CUDA driver's tests, the e2e suite on target "cuda",
and memory-bound graphs against jax on the GPU with the device's copy bandwidth.

    python tools/gpu_check.py [--out DIR] [--quick]

Writes ``gpu_check.json`` and ``gpu_check.txt`` under ``--out`` (default ``$OUT``,
else ``./gpu_check_out``). Each section records its own failure and the others
still run; the exit status is non-zero when a section failed.

Sections:

1. ``device``: name, compute capability, memory (CUDA driver API).
2. ``driver_tests``: ``pytest test/unit/test_cuda_driver.py`` (the GPU tests run here).
3. ``e2e_cuda``: every graph of the CPU e2e suite (``test/e2e/cuda_graphs.py``)
   compiled for ``cuda`` and ``cpu``, run on the same random inputs, compared.
4. ``bandwidth``: device-to-device copy bandwidth (``cuMemcpyDtoDAsync``, 256 MiB).
5. ``memory_bound``: ``bench/graphs/*.mlir`` on disc-ir cuda vs ``jax.jit`` on the GPU
   (when jax sees a GPU), median times and effective bandwidth (bytes in + out / time).
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


def section_e2e_cuda(quick: bool) -> dict[str, Any]:
    import disc_ir

    # `test` would be the standard library's package: import the suite as `e2e`.
    sys.path.insert(0, str(ROOT / "test"))
    from e2e.cuda_graphs import e2e_graphs

    rng = np.random.default_rng(0)
    results: dict[str, str] = {}
    graphs = e2e_graphs()
    names = sorted(graphs)[:20] if quick else sorted(graphs)
    for name in names:
        text = graphs[name]
        try:
            cpu = disc_ir.compile(text, target="cpu", keep_ir=False)
        except Exception as err:  # noqa: BLE001
            results[name] = f"skip (cpu compile: {type(err).__name__})"
            continue
        try:
            arrays = _inputs(cpu, rng)
            cpu.check_inputs(arrays)
        except Exception as err:  # noqa: BLE001
            results[name] = f"skip (inputs: {err})"
            continue
        try:
            gpu = disc_ir.compile(text, target="cuda", keep_ir=False)
            got = [_host(x) for x in gpu(*arrays)]
        except Exception as err:  # noqa: BLE001
            results[name] = f"FAIL (cuda: {type(err).__name__}: {str(err)[:300]})"
            continue
        want = cpu(*arrays)
        try:
            for g, w in zip(got, want, strict=True):
                if w.dtype.kind == "f":
                    np.testing.assert_allclose(g, w, rtol=2e-4, atol=2e-5)
                else:
                    np.testing.assert_array_equal(g, w)
            results[name] = "ok"
        except AssertionError as err:
            results[name] = f"FAIL (mismatch: {str(err).strip().splitlines()[0][:200]})"
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


def section_memory_bound(rows: int, cols: int) -> dict[str, Any]:
    import disc_ir
    from disc_ir.runtime.drivers.cuda import CudaRalContext

    out: dict[str, Any] = {"rows": rows, "cols": cols, "graphs": {}}
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
            exe = disc_ir.compile(path.read_text(), target="cuda", keep_ir=False)
            arrays = []
            for spec in exe.inputs:
                shape = tuple(
                    (rows if i == 0 else cols) if s is None else s for i, s in enumerate(spec.shape)
                )
                if len(shape) == 1 and spec.shape[0] is None:
                    shape = (cols,)
                arrays.append(rng.standard_normal(shape).astype(np.float32))
            ral: CudaRalContext = exe._ral  # noqa: SLF001 - the executable's context
            device_inputs = [ral.device_array(a) for a in arrays]
            outputs = exe(*device_inputs)
            nbytes = sum(a.nbytes for a in arrays) + sum(o.nbytes for o in outputs)
            seconds = _time(lambda exe=exe, d=device_inputs: exe(*d), lambda: None)
            entry.update(disc_s=seconds, bytes=nbytes, disc_gb_per_s=nbytes / seconds / 1e9)
            if jax is not None:
                from bench.models import bench_model

                fn = jax.jit(bench_model(name).fn)
                jargs = [jax.device_put(a) for a in arrays]
                result = fn(*jargs)
                jax_s = _time(lambda fn=fn, j=jargs: jax.block_until_ready(fn(*j)), lambda: None)
                entry.update(jax_s=jax_s, jax_gb_per_s=nbytes / jax_s / 1e9)
                got = _host(outputs[0])
                want = np.asarray(result[0] if isinstance(result, tuple | list) else result)
                entry["max_abs_diff_vs_jax"] = float(np.max(np.abs(got - want)))
        except Exception as err:  # noqa: BLE001
            entry["error"] = f"{type(err).__name__}: {str(err)[:300]}"
    out["ok"] = all("error" not in e for e in out["graphs"].values())
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=os.environ.get("OUT") or "gpu_check_out")
    parser.add_argument("--quick", action="store_true", help="20 e2e graphs, smaller bench")
    args = parser.parse_args(argv)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {}
    sections = [
        ("device", section_device),
        ("driver_tests", section_driver_tests),
        ("e2e_cuda", lambda: section_e2e_cuda(args.quick)),
        ("bandwidth", section_bandwidth),
        (
            "memory_bound",
            lambda: section_memory_bound(
                1024 if args.quick else 8192, 1024 if args.quick else 4096
            ),
        ),
    ]
    failed = False
    for name, fn in sections:
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
    (out_dir / "gpu_check.json").write_text(json.dumps(report, indent=2, default=str))
    lines = [f"{k}: {json.dumps(v, default=str)}" for k, v in report.items()]
    (out_dir / "gpu_check.txt").write_text("\n".join(lines) + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
