"""Run one graph through disc-ir and XLA, compare, classify; and the subprocess worker that does it.

`evaluate(graph, target)` exports the graph once with symbolic dims,
compiles the StableHLO with `disc_ir.compile` once, then for every binding
of the symbols (`BINDINGS`: all 1, odd sizes, mixed, one larger) draws seeded
inputs and compares each output with `jax.jit` of the same function:

- `match`; `mismatch` (a wrong answer: dtype, shape, values); `crash` (an
  exception other than `CompileError` at compile time, or any disc-ir
  exception at run time where XLA ran fine; a dead worker process);
  `refused` (`CompileError`); `slow` (the compile took over the time limit);
  `invalid` (jax itself could not export the graph: a generator bug).

Where disc-ir and XLA disagree, a third answer decides (`judge`): the graph
evaluated op by op in float64, each result rounded to its type
(`reference.py`). disc-ir matching it is an `xla_deviations` entry of a
`match` (e.g. XLA's convolution skipping padding taps with an infinite
weight); disc-ir not matching it at well-conditioned inputs is a `mismatch`;
inputs where a few-ulp move changes that answer beyond tolerance (a
`remainder` of a sum two correct orders round differently) are redrawn, up to
`REDRAWS` times (`unstable_bindings` when every draw was).

Comparison: integers and booleans exactly; floats with NaN where NaN, the
same infinities, and `|got - want| <= rtol*|want| + atol` elsewhere, where
rtol is a small multiple of the dtype's epsilon and atol the same multiple of
eps times the output's largest finite magnitude (cancellation in sums, dots,
`x - y` of close values loses absolute, not relative, precision).

`Worker` runs `evaluate` in a child process (`python -m test.fuzz.runner`),
one JSON job per line, so a segfault or a hang is caught: it is restarted
and the job reported as `crash` (or `slow` on timeout).
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from .graph import Graph, input_specs, to_function
from .reference import is_ill_conditioned, precise_outputs

#: symbol values each compiled graph runs at
BINDINGS: list[dict[str, int]] = [
    {"a": 1, "b": 1},
    {"a": 3, "b": 5},
    {"a": 7, "b": 1},
    {"a": 1, "b": 6},
    {"a": 33, "b": 17},
]

#: new input draws for a binding whose inputs were ill-conditioned (see `judge`)
REDRAWS = 3

#: rtol/atol factor on the dtype's epsilon
_EPS_FACTOR = {"float32": 128.0, "float16": 8.0, "bfloat16": 8.0}


def make_inputs(graph: Graph, binding: dict[str, int], seed: int) -> list[np.ndarray]:
    """Seeded inputs of the graph at a binding: normals for floats (a few specials), small ints."""
    import jax.numpy as jnp

    rng = np.random.default_rng(seed)
    specials = rng.random() < 0.2
    arrays = []
    for i in graph.input_indices():
        spec = graph.values[i]["input"]
        shape = tuple(binding[d] if isinstance(d, str) else d for d in spec["shape"])
        dtype = spec["dtype"]
        if dtype == "bool":
            arr: np.ndarray = rng.random(shape) < 0.5
        elif dtype in ("int32", "int8"):
            arr = rng.integers(-8, 9, shape).astype(dtype)
        elif dtype == "uint8":
            arr = rng.integers(0, 20, shape).astype(dtype)
        else:
            arr = (rng.standard_normal(shape) * 2.0).astype(np.float32)
            if specials and arr.size:
                flat = arr.reshape(-1)
                picks = rng.integers(0, flat.size, max(1, flat.size // 8))
                flat[picks] = rng.choice([np.nan, np.inf, -np.inf, 0.0, -0.0], picks.size)
            arr = np.asarray(jnp.asarray(arr, dtype=jnp.dtype(dtype)))
        arrays.append(arr)
    return arrays


def lowest_precision(graph: Graph) -> str | None:
    """The float dtype with the largest epsilon among the graph's values, if any is f16/bf16.

    XLA's CPU backend may compute a chain of f16/bf16 ops in f32 without
    rounding in between (it removes convert pairs), disc-ir rounds after each
    op: an f32 output downstream of such a chain is compared at the low
    precision's tolerance.
    """
    names = {v["input"]["dtype"] if "input" in v else v["dtype"] for v in graph.values}
    for name in ("bfloat16", "float16"):
        if name in names:
            return name
    return None


def compare(got: Any, want: Any, low_precision: str | None = None) -> str | None:
    """None when `got` (disc-ir) matches `want` (XLA), else what differs.

    `low_precision` (a float dtype name) loosens a wider float output's
    tolerance to that dtype's.
    """
    import jax.numpy as jnp

    want = np.asarray(want)
    got = np.asarray(got)
    if got.dtype != want.dtype:
        return f"dtype {got.dtype} vs {want.dtype}"
    if got.shape != want.shape:
        return f"shape {got.shape} vs {want.shape}"
    name = jnp.dtype(want.dtype).name
    if name not in _EPS_FACTOR:
        bad = got != want
        if bad.any():
            pos = tuple(int(i) for i in np.argwhere(bad)[0])
            return f"{int(bad.sum())} of {bad.size} differ, e.g. at {pos}: {got[pos]!r} vs {want[pos]!r}"
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        if low_precision is not None:
            name = low_precision
        return _compare_floats(got.astype(np.float64), want.astype(np.float64), name)


def _compare_floats(g: np.ndarray, w: np.ndarray, name: str) -> str | None:
    import jax.numpy as jnp

    nan_g, nan_w = np.isnan(g), np.isnan(w)
    if (nan_g != nan_w).any():
        pos = tuple(int(i) for i in np.argwhere(nan_g != nan_w)[0])
        return f"NaN positions differ, e.g. at {pos}: {g[pos]} vs {w[pos]}"
    inf_g, inf_w = np.isinf(g), np.isinf(w)
    if (inf_g != inf_w).any() or (np.sign(g[inf_g]) != np.sign(w[inf_w])).any():
        pos = tuple(int(i) for i in np.argwhere((inf_g != inf_w) | (inf_w & (g != w)))[0])
        return f"inf differs, e.g. at {pos}: {g[pos]} vs {w[pos]}"
    finite = ~(nan_w | inf_w)
    if not finite.any():
        return None
    eps = float(jnp.finfo(jnp.dtype(name)).eps) * _EPS_FACTOR[name]
    scale = max(1.0, float(np.abs(w[finite]).max()))
    err = np.abs(g - w)
    bad = finite & (err > eps * np.abs(w) + eps * scale)
    if bad.any():
        pos = tuple(int(i) for i in np.argwhere(bad)[0])
        return (
            f"{int(bad.sum())} of {bad.size} beyond rtol=atol/scale={eps:.2g} (scale {scale:.3g}), "
            f"e.g. at {pos}: {g[pos]!r} vs {w[pos]!r}"
        )
    return None


def _refused_op(message: str) -> str:
    """The op a CompileError names (first `mhlo.x`/`stablehlo.x`/`lmhlo.x` in the message)."""
    import re

    m = re.search(r"\b((?:mhlo|stablehlo|lmhlo|disc_ral|chlo|disc)\.[a-z_]+)", message)
    return m.group(1) if m else message.splitlines()[0][:80] if message else "?"


def evaluate(
    graph: Graph,
    target: str = "cpu",
    time_limit: float = 60.0,
    bindings: list[dict[str, int]] | None = None,
    save_dir: str | None = None,
    stage: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Outcome of one graph (see the module doc): `{"outcome", "detail", "compile_s", ...}`.

    With `save_dir`, a failing run writes `module.mlir` (the StableHLO) and
    `inputs.npz` (the failing binding's inputs) there. `stage`, when given, is
    told each step as it starts: `export`, `compile` (disc-ir), `reference`
    (XLA), `run` (disc-ir's executable), so a hang can be placed.
    """
    stage = stage or (lambda _name: None)
    import jax

    import disc_ir
    import disc_ir.jax as dj
    from disc_ir.api import CompileError

    fn = to_function(graph)
    stage("export")
    try:
        exported = jax.export.export(jax.jit(fn), platforms=("cpu",))(*input_specs(graph))
        text = exported.mlir_module()
    except Exception as exc:  # noqa: BLE001 - the generator built something jax cannot export
        return {"outcome": "invalid", "detail": f"{type(exc).__name__}: {exc}"[:500]}
    start = time.monotonic()
    stage("compile")
    try:
        executable = disc_ir.compile(text, target=target)
    except CompileError as exc:
        return {
            "outcome": "refused",
            "detail": str(exc)[:500],
            "op": _refused_op(str(exc)),
            "compile_s": time.monotonic() - start,
        }
    except Exception as exc:  # noqa: BLE001 - any other compile failure is a crash
        _save(save_dir, text, None)
        return {
            "outcome": "crash",
            "stage": "compile",
            "kind": type(exc).__name__,
            "detail": f"{type(exc).__name__}: {exc}"[:500] + "\n" + traceback.format_exc()[-1500:],
            "compile_s": time.monotonic() - start,
        }
    compile_s = time.monotonic() - start
    exe = dj.JaxExecutable(exported, text, executable)
    reference = jax.jit(fn)
    result: dict[str, Any] = {"outcome": "match", "compile_s": compile_s}
    low = lowest_precision(graph)
    try:
        for binding in bindings or BINDINGS:
            binding = {k: v for k, v in binding.items() if k in graph.symbols()}
            base_seed = graph.seed * 7919 + sum(binding.values())
            for attempt in range(REDRAWS + 1):
                inputs = make_inputs(graph, binding, base_seed + 1_000_003 * attempt)
                stage("reference")
                try:
                    want = reference(*inputs)
                except Exception:  # noqa: BLE001 - XLA rejects these inputs too: nothing to compare
                    break
                stage("run")
                try:
                    got = exe(*inputs)
                except Exception as exc:  # noqa: BLE001 - disc-ir failed where XLA ran
                    if not _export_runs(exported, inputs):
                        break  # the binding is outside the exported module's domain
                    _save(save_dir, text, inputs)
                    return {
                        "outcome": "crash",
                        "stage": "run",
                        "kind": type(exc).__name__,
                        "binding": binding,
                        "compile_s": compile_s,
                        "detail": f"{type(exc).__name__}: {exc}"[:500],
                    }
                stage("tie-break")
                verdict = judge(graph, inputs, got, want, low, base_seed + attempt)
                if verdict["verdict"] == "ill-conditioned":
                    result.setdefault("redrawn", []).append({"binding": binding, **verdict})
                    continue
                if verdict["verdict"] == "xla-deviation":
                    result.setdefault("xla_deviations", []).append({"binding": binding, **verdict})
                elif verdict["verdict"] == "mismatch":
                    _save(save_dir, text, inputs)
                    k = verdict["output"]
                    return {
                        "outcome": "mismatch",
                        "output": k,
                        "binding": binding,
                        "compile_s": compile_s,
                        "detail": verdict["detail"],
                        "precise": verdict.get("precise"),
                        "dtype": str(np.asarray(want[k]).dtype),
                        "shape": list(np.shape(want[k])),
                    }
                break
            else:
                # every draw was ill-conditioned: this binding compared nothing
                result.setdefault("unstable_bindings", []).append(binding)
    finally:
        exe.close()
    if compile_s > time_limit:
        result["outcome"] = "slow"
        result["detail"] = f"compile took {compile_s:.1f} s"
    return result


def judge(
    graph: Graph, inputs: list[np.ndarray], got: Any, want: Any, low: str | None, seed: int
) -> dict[str, Any]:
    """The verdict on one run: `agree`, or where disc-ir and XLA differ, the tie-break's.

    `xla-deviation`: disc-ir matches the precise evaluation (`reference.py`)
    and XLA does not; `ill-conditioned`: disc-ir does not match it, but a
    few-ulp move of the inputs moves it beyond tolerance (an answer there
    depends on rounding any correct implementation may do differently, even
    where XLA happens to round like the precise evaluation: new inputs are
    drawn); `mismatch` otherwise.
    """
    diffs = [(k, compare(g, w, low)) for k, (g, w) in enumerate(zip(got, want, strict=True))]
    diffs = [(k, d) for k, d in diffs if d is not None]
    if not diffs:
        return {"verdict": "agree"}
    try:
        precise = precise_outputs(graph, inputs)
    except Exception as exc:  # noqa: BLE001 - no tie-break: the XLA comparison stands
        k, detail = diffs[0]
        return {
            "verdict": "mismatch",
            "output": k,
            "detail": f"{detail} (no precise evaluation: {type(exc).__name__}: {exc})"[:700],
        }
    deviations = []
    for k, detail in diffs:
        against_precise = compare(got[k], precise[k], low)
        if against_precise is None:
            deviations.append({"output": k, "detail": detail})
            continue
        if is_ill_conditioned(graph, inputs, precise, compare, low, seed):
            return {"verdict": "ill-conditioned", "output": k, "detail": detail}
        return {
            "verdict": "mismatch",
            "output": k,
            "detail": detail,
            "precise": f"disc-ir against the precise evaluation: {against_precise}",
        }
    return {"verdict": "xla-deviation", "outputs": deviations}


def _export_runs(exported: Any, inputs: list[np.ndarray]) -> bool:
    """Whether XLA runs the exported (symbolic-shape) module itself at these inputs.

    `jax.jit` at concrete shapes may accept a binding where the exported
    module computes a negative size (a VALID convolution narrower than its
    window): such a binding is outside what the export promises.
    """
    import jax

    try:
        jax.block_until_ready(exported.call(*inputs))
    except Exception:  # noqa: BLE001 - any failure means "not in the domain"
        return False
    return True


def _save(save_dir: str | None, text: str, inputs: list[np.ndarray] | None) -> None:
    if save_dir is None:
        return
    path = Path(save_dir)
    path.mkdir(parents=True, exist_ok=True)
    (path / "module.mlir").write_text(text)
    if inputs is not None:
        np.savez(path / "inputs.npz", *[np.asarray(a) for a in inputs])


class Worker:
    """A child process running `evaluate` on JSON jobs; restarted when it dies or hangs."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._lines = queue.Queue()
            root = Path(__file__).resolve().parents[2]
            env = dict(os.environ, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "test.fuzz.runner"],
                cwd=root,
                env=env,
                text=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
            lines = self._lines
            stdout = self._proc.stdout
            assert stdout is not None

            def pump() -> None:
                for line in stdout:
                    lines.put(line)
                lines.put(None)

            threading.Thread(target=pump, daemon=True).start()
        return self._proc

    def run(
        self,
        graph: Graph,
        target: str,
        time_limit: float,
        bindings: list[dict[str, int]] | None = None,
        save_dir: str | None = None,
    ) -> dict[str, Any]:
        """`run_once`; a hang inside XLA (stage `reference`) is retried once in a fresh child.

        Such a hang is the reference's, not disc-ir's (XLA's compile blocked in
        its own thread pool); a second one is reported as `slow`.
        """
        result = self.run_once(graph, target, time_limit, bindings, save_dir)
        if result["outcome"] == "slow" and result.get("stage") == "reference":
            result = self.run_once(graph, target, time_limit, bindings, save_dir)
        return result

    def run_once(
        self,
        graph: Graph,
        target: str,
        time_limit: float,
        bindings: list[dict[str, int]] | None = None,
        save_dir: str | None = None,
    ) -> dict[str, Any]:
        """`evaluate` in the child; `crash` if it dies, `slow` if no answer within 2*limit+60 s.

        A `slow` result names the `stage` the child was in (see `evaluate`);
        `reference` means XLA's own compile or run of the graph never returned.
        """
        proc = self._start()
        job = {
            "graph": graph.to_json(),
            "target": target,
            "time_limit": time_limit,
            "bindings": bindings,
            "save_dir": save_dir,
        }
        assert proc.stdin is not None
        try:
            proc.stdin.write(json.dumps(job) + "\n")
            proc.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = time.monotonic() + 2 * time_limit + 60
        current = "start"
        while True:
            try:
                line = self._lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                self.close()
                return {
                    "outcome": "slow",
                    "stage": current,
                    "detail": f"no answer in {2 * time_limit + 60:.0f} s (in stage {current})",
                }
            if line is None:
                code = proc.wait()
                self._proc = None
                return {
                    "outcome": "crash",
                    "stage": "process",
                    "kind": f"exit {code}",
                    "detail": f"worker process died with exit status {code}",
                }
            start = line.find('{"stage"')
            if start >= 0:
                current = json.loads(line[start:])["stage"]
                continue
            start = line.find('{"outcome"')
            if start >= 0:
                return json.loads(line[start:])

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None


def _serve() -> None:
    """The child's loop: one JSON job per stdin line, one JSON result per stdout line."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    # The protocol gets a private copy of fd 1; fd 1 itself (C-level writes from
    # XLA, LLVM or the runtime, which may lack a newline) and sys.stdout go to stderr.
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def report_stage(name: str) -> None:
        out.write(json.dumps({"stage": name}) + "\n")
        out.flush()

    for line in sys.stdin:
        job = json.loads(line)
        try:
            result = evaluate(
                Graph.from_json(job["graph"]),
                job["target"],
                job["time_limit"],
                job["bindings"],
                job["save_dir"],
                report_stage,
            )
        except Exception as exc:  # noqa: BLE001 - a fuzzer bug must not look like a dead worker
            result = {
                "outcome": "crash",
                "stage": "harness",
                "kind": type(exc).__name__,
                "detail": traceback.format_exc()[-1500:],
            }
        out.write(json.dumps(result) + "\n")
        out.flush()


if __name__ == "__main__":
    _serve()
