"""The systems the bench compares: disc-ir and its peers, behind one interface.

Every system turns (model, sizes, numpy arguments) into a `Prepared`: a
zero-argument `call` that runs the model once on inputs already placed where
the system wants them and returns the outputs as numpy arrays, plus the
compile time it took to get there (`compile_s`, with a per-phase breakdown in
`phases`). `prepare` raises on failure; the harness records the message as
the result (a failing or missing peer never stops the bench).

- `disc-ir`: the model's shape-polymorphic `jax.export` (StableHLO) compiled
  once per model by `disc_ir.compile` (IR verification off, as the API
  compiles); the same Executable serves every size. Phases: `export` (jax
  tracing and lowering) then the Executable's `compile_times` (parse, the
  pipeline phases tensor ... llvm, translate, jit, and `other`: the rest of
  `disc_ir.compile`'s wall time, e.g. its final garbage collection); the
  modules and LLVM are loaded first (`disc_ir.preload`, once per process,
  untimed, as jax is imported before XLA is timed). Without jax, or when the
  export does not compile, the hand-written MHLO of bench/graphs/ is used and
  the reason recorded in `info`.
- `xla`: `jax.jit` on the host CPU, compiled per shape (`trace+lower`,
  `compile`); inputs are device arrays, the call waits for the result.
- `torch.compile`: the zoo's torch twin, compiled per shape (`dynamic=False`,
  inductor's on-disk caches off unless `torch_cache`); compile time is the
  first call minus one steady call.
- `iree`: the static StableHLO export compiled by `iree.compiler.compile_str`
  for `llvm-cpu` (host CPU) and run by `iree.runtime` (local-task driver);
  `dynamic_probe` compiles the shape-polymorphic export and reports its
  failure, if any, as a result.
- `numpy`: the eager numpy twin (bench/models.py), no compilation.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from bench import models as M

SYSTEMS = ("disc-ir", "xla", "torch.compile", "iree", "numpy")
PEERS = SYSTEMS[1:]


@dataclass
class Prepared:
    """A compiled model ready to run (see the module docstring)."""

    call: Callable[[], list[np.ndarray]]
    compile_s: float
    phases: dict[str, float] = field(default_factory=dict)
    #: whether this prepare compiled (False: reused a shape-polymorphic build)
    compiled_now: bool = True
    info: dict[str, Any] = field(default_factory=dict)


def error_text(exc: BaseException, limit: int = 400) -> str:
    """A one-paragraph description of `exc` (the first error line of tool output)."""
    text = str(exc).strip() or type(exc).__name__
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    picked = next((ln for ln in lines if "error:" in ln), lines[0] if lines else text)
    if len(picked) > limit:
        picked = picked[: limit - 3] + "..."
    return f"{type(exc).__name__}: {picked}"


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


class System:
    """Base class: `name`, `available()` and `prepare(model, sizes, args)`."""

    name = ""

    def available(self) -> str | None:
        """None when usable here, else why not (e.g. the package is missing)."""
        return None

    def prepare(self, model: Any, sizes: dict[str, int], args: list[np.ndarray]) -> Prepared:
        raise NotImplementedError


def _missing(module: str) -> str | None:
    import importlib.util

    try:
        found = importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        found = False
    return None if found else f"not installed ({module}; pip install -e .[bench])"


def static_key(model: Any, sizes: dict[str, int]) -> tuple[Any, ...]:
    """(model name, its static sizes): one shape-polymorphic build serves every such key."""
    full = {**model.sizes, **sizes}
    return (model.name, *sorted((k, v) for k, v in full.items() if k not in model.dynamic))


# ---------------------------------------------------------------------------
# disc-ir
# ---------------------------------------------------------------------------


class DiscIR(System):
    """disc-ir: one shape-polymorphic compile per model, reused for every size.

    `sources`: model name -> a file with the source to compile instead of
    exporting (the peak-RSS subprocess uses it so it never imports jax).
    `use_jax`: export with jax when it is installed (else only bench/graphs).
    """

    name = "disc-ir"

    def __init__(
        self,
        sources: dict[str, Path] | None = None,
        use_jax: bool = True,
        threads: int | None = None,
        use_graphs: bool = True,
    ):
        self.sources = dict(sources or {})
        self.use_jax = use_jax and _missing("jax") is None
        self.use_graphs = use_graphs
        self.threads = threads
        self._built: dict[tuple[Any, ...], tuple[Any, dict[str, float], dict[str, Any]]] = {}
        #: model name -> the source text compiled (for the RSS subprocess)
        self.source_text: dict[str, str] = {}

    def build(
        self, model: Any, sizes: dict[str, int] | None = None
    ) -> tuple[Any, dict[str, float], dict[str, Any]]:
        """Compiles `model` once: (Executable, phase seconds, info).

        The export is shape-polymorphic over the model's dynamic sizes; its
        other (static) sizes are taken from `sizes` (default: the model's).
        """
        import disc_ir

        # Module loading and LLVM's initialization happen before any timer,
        # as jax's do (imported for the export): once per process.
        disc_ir.preload("cpu")
        info: dict[str, Any] = {}
        attempts: list[tuple[str, Callable[[], str]]] = []
        if model.name in self.sources:
            path = self.sources[model.name]
            attempts.append((str(path), lambda: Path(path).read_text()))
        else:
            if self.use_jax:
                attempts.append(
                    (
                        "jax.export (shape-polymorphic)",
                        lambda: M.stablehlo_text(model, sizes, dynamic=True),
                    )
                )
            graph = M.fallback_graph(model.name) if self.use_graphs else None
            if graph is not None:
                attempts.append((f"bench/graphs/{graph.name}", graph.read_text))
        if not attempts:
            raise RuntimeError(
                "no source: no jax export (jax missing or not asked for) and no bench/graphs MHLO"
            )
        failures: list[str] = []
        for label, get_text in attempts:
            t0 = time.perf_counter()
            try:
                text = get_text()
            except Exception as exc:  # noqa: BLE001 - reported as a result
                failures.append(f"{label}: {error_text(exc)}")
                continue
            export_s = time.perf_counter() - t0 if label.startswith("jax") else 0.0
            try:
                exe = disc_ir.compile(text, target="cpu", keep_ir=False, num_threads=self.threads)
            except Exception as exc:  # noqa: BLE001 - reported as a result
                failures.append(f"{label}: {error_text(exc)}")
                continue
            info["source"] = label
            if failures:
                info["fallback_because"] = failures
            self.source_text[model.name] = text
            phases = {"export": export_s, **exe.compile_times}
            return exe, phases, info
        raise RuntimeError("; ".join(failures))

    def prepare(self, model: Any, sizes: dict[str, int], args: list[np.ndarray]) -> Prepared:
        key = static_key(model, sizes)
        cached = self._built.get(key)
        compiled_now = cached is None
        if cached is None:
            cached = self._built[key] = self.build(model, sizes)
        exe, phases, info = cached

        def call() -> list[np.ndarray]:
            return list(exe(*args))

        return Prepared(call, sum(phases.values()), phases, compiled_now, info)

    def close(self) -> None:
        """Releases every Executable built so far."""
        for exe, _, _ in self._built.values():
            exe.close()
        self._built.clear()


# ---------------------------------------------------------------------------
# XLA (jax.jit)
# ---------------------------------------------------------------------------


class Xla(System):
    """XLA CPU through `jax.jit`, compiled per shape (ahead of time, timed)."""

    name = "xla"

    def available(self) -> str | None:
        return _missing("jax")

    def prepare(self, model: Any, sizes: dict[str, int], args: list[np.ndarray]) -> Prepared:
        import jax

        dev = [jax.device_put(a) for a in args]
        jax.block_until_ready(dev)
        lowered, lower_s = _timed(lambda: jax.jit(model.fn).lower(*dev))
        compiled, compile_s = _timed(lowered.compile)

        def call() -> list[np.ndarray]:
            out = compiled(*dev)
            jax.block_until_ready(out)
            return M.as_list(out)

        phases = {"trace+lower": lower_s, "compile": compile_s}
        return Prepared(call, lower_s + compile_s, phases)


# ---------------------------------------------------------------------------
# torch.compile
# ---------------------------------------------------------------------------


class TorchCompile(System):
    """The zoo's torch twin under `torch.compile` (inductor, CPU), per shape."""

    name = "torch.compile"

    def __init__(self, cache: bool = False):
        self.cache = cache

    def available(self) -> str | None:
        return _missing("torch")

    def prepare(self, model: Any, sizes: dict[str, int], args: list[np.ndarray]) -> Prepared:
        if model.torch_fn is None:
            raise RuntimeError(f"model '{model.name}' has no torch twin")
        import torch

        if not self.cache:
            import torch._inductor.config as inductor_config

            inductor_config.force_disable_caches = True
        torch._dynamo.reset()
        fn = torch.compile(model.torch_fn, dynamic=False)
        tensors = [torch.from_numpy(a) for a in args]

        def call() -> list[np.ndarray]:
            with torch.inference_mode():
                out = fn(*tensors)
            outs = out if isinstance(out, (tuple, list)) else (out,)
            return [o.numpy() for o in outs]

        _, first = _timed(call)
        _, steady = _timed(call)
        compile_s = max(first - steady, 0.0)
        return Prepared(call, compile_s, {"first call - steady call": compile_s})


# ---------------------------------------------------------------------------
# IREE
# ---------------------------------------------------------------------------

IREE_FLAGS = ["--iree-llvmcpu-target-cpu=host"]


def iree_compile(text: str) -> bytes:
    """StableHLO text -> an IREE VM flatbuffer for llvm-cpu on this host."""
    import iree.compiler as ic

    return ic.compile_str(
        text, input_type="stablehlo", target_backends=["llvm-cpu"], extra_args=IREE_FLAGS
    )


class Iree(System):
    """IREE llvm-cpu on the static export of each shape (local-task runtime).

    `sources`: (model name, size tag) -> a file with the static export to
    compile instead of exporting (used by the peak-RSS subprocess).
    """

    name = "iree"

    def __init__(self, sources: dict[str, Path] | None = None):
        self.sources = dict(sources or {})
        self.source_text: dict[str, str] = {}

    def available(self) -> str | None:
        return _missing("iree.compiler") or _missing("iree.runtime")

    def prepare(self, model: Any, sizes: dict[str, int], args: list[np.ndarray]) -> Prepared:
        import iree.runtime as ireert

        key = model.name
        t0 = time.perf_counter()
        if key in self.sources:
            text = Path(self.sources[key]).read_text()
            export_s = 0.0
        else:
            if _missing("jax") is not None:
                raise RuntimeError("the IREE source is a jax export: jax is not installed")
            text = M.stablehlo_text(model, sizes, dynamic=False)
            export_s = time.perf_counter() - t0
        self.source_text[key] = text
        vmfb, compile_s = _timed(lambda: iree_compile(text))
        config = ireert.Config("local-task")
        ctx = ireert.SystemContext(config=config)
        vm_module = ireert.VmModule.copy_buffer(ctx.instance, vmfb)
        ctx.add_vm_module(vm_module)
        main = ctx.modules[vm_module.name]["main"]
        dev = [ireert.asdevicearray(config.device, a) for a in args]

        def call() -> list[np.ndarray]:
            out = main(*dev)
            outs = out if isinstance(out, (tuple, list)) else (out,)
            return [np.asarray(o.to_host()) for o in outs]

        phases = {"export": export_s, "iree-compile": compile_s}
        return Prepared(call, export_s + compile_s, phases)

    @staticmethod
    def dynamic_probe(model: Any) -> str | None:
        """Compiles the shape-polymorphic export with IREE: None if it compiles, else the error."""
        try:
            iree_compile(M.stablehlo_text(model, None, dynamic=True))
        except Exception as exc:  # noqa: BLE001 - reported as a result
            return error_text(exc)
        return None


# ---------------------------------------------------------------------------
# numpy
# ---------------------------------------------------------------------------


class NumpyEager(System):
    """The numpy-eager twin of the model (bench/models.py)."""

    name = "numpy"

    def prepare(self, model: Any, sizes: dict[str, int], args: list[np.ndarray]) -> Prepared:
        fn = M.numpy_fn(model.name)
        if fn is None:
            raise RuntimeError(f"model '{model.name}' has no numpy twin")
        return Prepared(lambda: M.as_list(fn(*args)), 0.0)


def make_system(name: str, **options: Any) -> System:
    """The system `name` (one of SYSTEMS).

    Options: threads, sources (disc-ir / iree), use_jax and use_graphs
    (disc-ir), torch_cache (torch.compile).
    """
    if name == "disc-ir":
        return DiscIR(
            options.get("sources"),
            options.get("use_jax", True),
            options.get("threads"),
            options.get("use_graphs", True),
        )
    if name == "xla":
        return Xla()
    if name == "torch.compile":
        return TorchCompile(options.get("torch_cache", False))
    if name == "iree":
        return Iree(options.get("sources"))
    if name == "numpy":
        return NumpyEager()
    raise KeyError(f"unknown system '{name}' (systems: {', '.join(SYSTEMS)})")


def configure_jax() -> None:
    """jax on the host CPU, no persistent compilation cache (cold compiles are measured)."""
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    if _missing("jax") is None:
        import jax

        jax.config.update("jax_platforms", "cpu")
        jax.config.update("jax_enable_compilation_cache", False)
