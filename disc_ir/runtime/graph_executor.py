"""Loading a `model.disc` artifact and running it: a graph executor as TVM's.

    from disc_ir.runtime import load

    m = load("model.disc")               # device="cpu" (or "cuda:0" for a cuda artifact)
    m.set_input("x", x)                  # by name or index; DLPack producers accepted
    m.run()
    y = m.get_output(0)
    (y,) = m(x)                          # or in one call (thread-safe)

`load` reads the artifact (:mod:`disc_ir.runtime.artifact`), checks that this
machine can run its code (the target triple's architecture, the CPU features
the code was generated with, the GPU arch of a cuda artifact: a mismatch is an
:class:`~disc_ir.runtime.artifact.ArtifactError` naming both sides), links its
relocatable objects with LLVM's ORC JIT linker (no optimization, no code
generation) and creates the RAL context whose constants are read in place from
the mapped file. Nothing here imports xDSL or the compiler.

Calls are checked as `disc_ir.Executable` checks them: count, element type,
rank, static dimensions and the equalities between dynamic dimensions the
compiler relied on (:class:`~disc_ir.runtime.context.RalInputError`).
`__call__` keeps no state between calls: several threads may call one module
at once. `set_input` / `run` / `get_output` keep their state in the
`GraphModule` object: give each thread its own (`fork()` shares the code).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from disc_ir.runtime.abi import SCALAR_TYPES
from disc_ir.runtime.artifact import ArtifactContents, ArtifactError, read_artifact
from disc_ir.runtime.context import (
    InputSpec,
    RalContext,
    RalContextOptions,
    RalInputError,
    as_input_array,
    check_input,
    input_label,
    is_host_input,
)
from disc_ir.runtime.memory_plan import MemoryPlan

_LINK_LOCK = threading.Lock()
_LLJIT: Any = None
_LIBRARY_COUNT = 0


@dataclass(frozen=True)
class TensorSpec:
    """One input or output of the entry: name, element type code, static dims
    (None where dynamic), the symbol of each dynamic dim, its placement."""

    name: str | None
    element: str
    shape: tuple[int | None, ...]
    symbols: tuple[str | None, ...]
    placement: str = "cpu"

    @property
    def rank(self) -> int:
        return len(self.shape)

    def type_text(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"tensor<{dims + 'x' if dims else ''}{self.element}>"


@dataclass(frozen=True)
class EntrySignature:
    """The entry function's inputs and outputs and the dimension facts of its inputs.

    ``dim_groups``: groups of input dimensions ``(arg, dim)`` that must be
    equal, each with its required value or None.
    """

    inputs: tuple[TensorSpec, ...]
    outputs: tuple[TensorSpec, ...]
    dim_groups: tuple[tuple[tuple[tuple[int, int], ...], int | None], ...]

    @staticmethod
    def from_json(data: dict[str, Any]) -> EntrySignature:
        def spec(d: dict[str, Any]) -> TensorSpec:
            if d["dtype"] not in SCALAR_TYPES:
                raise ValueError(f"unknown element type {d['dtype']!r}")
            shape = tuple(None if s is None else int(s) for s in d["shape"])
            symbols = tuple(d.get("symbols") or [None] * len(shape))
            return TensorSpec(
                d.get("name"), str(d["dtype"]), shape, symbols, d.get("placement", "cpu")
            )

        groups = tuple(
            (tuple((int(a), int(b)) for a, b in g["dims"]), g.get("value"))
            for g in data.get("dim_groups", [])
        )
        return EntrySignature(
            tuple(spec(d) for d in data["inputs"]), tuple(spec(d) for d in data["outputs"]), groups
        )

    def _dim_text(self, arg: int, dim: int) -> str:
        return f"{input_label(arg, self.inputs[arg].name)} dimension {dim}"

    def check(self, arrays: Sequence[Any]) -> None:
        """Raises RalInputError unless ``arrays`` fit the signature (the messages
        of `disc_ir.Executable.check_inputs`)."""
        if len(arrays) != len(self.inputs):
            raise RalInputError(f"expected {len(self.inputs)} inputs, got {len(arrays)}")
        for i, (array, spec) in enumerate(zip(arrays, self.inputs, strict=True)):
            if isinstance(array, np.ndarray):
                check_input(i, array, spec.element, spec.rank, spec.name)
            for d, (want, got) in enumerate(zip(spec.shape, array.shape, strict=True)):
                if want is not None and want != got:
                    raise RalInputError(
                        f"{input_label(i, spec.name)}: dimension {d} is {got}, expected {want} "
                        f"(static in {spec.type_text()}); got shape {tuple(array.shape)}"
                    )
        shapes = [tuple(a.shape) for a in arrays]
        for refs, value in self.dim_groups:
            present = [(a, d) for a, d in refs if a < len(shapes) and d < len(shapes[a])]
            if value is not None:
                for a, d in present:
                    if shapes[a][d] != value:
                        self._violation((a, d), shapes[a][d], None, value, arrays)
                continue
            if not present:
                continue
            fa, fd = present[0]
            expected = shapes[fa][fd]
            for a, d in present[1:]:
                if shapes[a][d] != expected:
                    self._violation((a, d), shapes[a][d], (fa, fd), expected, arrays)

    def _violation(
        self,
        ref: tuple[int, int],
        actual: int,
        other: tuple[int, int] | None,
        expected: int,
        arrays: Sequence[Any],
    ) -> None:
        why = "a constant of the compiled graph" if other is None else self._dim_text(*other)
        raise RalInputError(
            f"{self._dim_text(*ref)} is {actual}, expected {expected} (must equal {why}); "
            f"input shapes: {', '.join(str(tuple(a.shape)) for a in arrays)}"
        )


# ---------------------------------------------------------------------------
# Machine checks
# ---------------------------------------------------------------------------


def _arch(triple: str) -> str:
    return triple.split("-", 1)[0]


def host_cpu_facts() -> tuple[str, str, set[str]]:
    """(triple, CPU name, enabled features) of this machine, as LLVM sees them."""
    import llvmlite.binding as llvm

    features = {name for name, on in llvm.get_host_cpu_features().items() if on}
    return llvm.get_process_triple(), llvm.get_host_cpu_name(), features


def check_cpu(manifest: dict[str, Any], path: str) -> None:
    """Raises ArtifactError unless this CPU can run the artifact's machine code."""
    triple, cpu, features = host_cpu_facts()
    want_triple = str(manifest.get("triple", ""))
    if _arch(want_triple) != _arch(triple):
        raise ArtifactError(
            f"{path}: the artifact's code is for target '{want_triple}' "
            f"(cpu '{manifest.get('cpu')}'), this machine is '{triple}' (cpu '{cpu}')"
        )
    used = [f[1:] for f in str(manifest.get("cpu_features", "")).split(",") if f.startswith("+")]
    missing = sorted(f for f in used if f not in features)
    if missing:
        raise ArtifactError(
            f"{path}: the artifact's code uses CPU features this CPU lacks: "
            f"{', '.join('+' + f for f in missing)} (compiled for cpu '{manifest.get('cpu')}' "
            f"on {want_triple}; this CPU is '{cpu}' on {triple})"
        )


def _parse_device(device: str) -> tuple[str, int]:
    kind, _, ordinal = device.partition(":")
    if kind not in ("cpu", "cuda") or (ordinal and not ordinal.isdigit()):
        raise ValueError(f"unknown device '{device}' (expected 'cpu', 'cuda' or 'cuda:N')")
    return kind, int(ordinal or 0)


def check_gpu(manifest: dict[str, Any], ordinal: int, path: str) -> None:
    """Raises ArtifactError unless CUDA device ``ordinal`` has the artifact's GPU arch."""
    from disc_ir.runtime.cuda_libs import device_compute_capability

    found = device_compute_capability(ordinal)
    want = manifest.get("gpu_arch")
    if found is None:
        raise ArtifactError(f"{path}: the artifact needs a CUDA device ({want}); none found")
    have = f"sm_{found[0]}{found[1]}"
    if want != have:
        raise ArtifactError(
            f"{path}: the artifact's GPU kernels are for {want}, CUDA device {ordinal} is {have}"
        )


# ---------------------------------------------------------------------------
# Linking
# ---------------------------------------------------------------------------


def prepare_native_runtime(contents: ArtifactContents) -> None:
    """Builds the process's native RAL dispatcher from the artifact's object
    when it holds one for this runtime's dispatcher IR (no LLVM compile);
    otherwise it is compiled on first use as usual."""
    from disc_ir.runtime.native import native_enabled, native_ir_digest, native_runtime

    if (
        contents.native_object is not None
        and native_enabled()
        and contents.manifest.get("ral_native_ir_sha256") == native_ir_digest()
        and contents.manifest.get("triple") == host_cpu_facts()[0]
    ):
        from disc_ir.runtime.dispatch import DISC_RAL_CALL_ADDRESS

        native_runtime(DISC_RAL_CALL_ADDRESS, contents.native_object)


class LoadedLibrary:
    """The artifact's relocatable objects linked into this process by ORC's LLJIT
    with JITLink (the linker `disc_ir.backend.jit.HostJit` uses), `disc_ral_call`
    bound to the RAL dispatcher. Keep it alive while its code may run."""

    def __init__(self, objects: Sequence[bytes], exported: Sequence[str], name: str = "model"):
        import llvmlite.binding as llvm

        from disc_ir.runtime.dispatch import DISC_RAL_CALL, register_symbols, symbol_address

        global _LLJIT, _LIBRARY_COUNT
        register_symbols()
        with _LINK_LOCK:
            if _LLJIT is None:
                llvm.initialize_native_target()
                llvm.initialize_native_asmprinter()
                machine = llvm.Target.from_default_triple().create_target_machine(
                    jit=True, reloc="pic", codemodel="default"
                )
                _LLJIT = llvm.create_lljit_compiler(machine, use_jit_link=True)
            builder = llvm.JITLibraryBuilder()
            for obj in objects:
                builder.add_object_img(obj)
            builder.import_symbol(DISC_RAL_CALL, symbol_address())
            builder.add_current_process()
            for symbol in exported:
                builder.export_symbol(symbol)
            _LIBRARY_COUNT += 1
            try:
                self._tracker = builder.link(_LLJIT, f"{name}.artifact.{_LIBRARY_COUNT}")
            except RuntimeError as exc:
                raise ArtifactError(f"linking the artifact's code failed: {exc}") from None
        self.objects = list(objects)
        self._exported = list(exported)

    @property
    def exported(self) -> list[str]:
        return list(self._exported)

    def function_address(self, name: str) -> int:
        """The address of function ``name``; KeyError if it is not defined."""
        if name not in self._exported:
            raise KeyError(f"no function '{name}' in the artifact")
        address = self._tracker[name]
        if not address:
            raise KeyError(f"no function '{name}' in the artifact")
        return address


def parse_entry(manifest: dict[str, Any], path: str) -> tuple[EntrySignature, list[str]]:
    """The manifest's entry signature and exported symbols (ArtifactError when malformed)."""
    try:
        signature = EntrySignature.from_json(manifest["signature"])
        exported = [str(name) for name in manifest["exported"]]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ArtifactError(
            f"{path}: corrupted manifest: bad entry description ({exc!r})"
        ) from None
    if "main" not in exported:
        raise ArtifactError(f"{path}: corrupted manifest: the entry 'main' is not exported")
    return signature, exported


def install_memory_plan(
    ral: RalContext, contents: ArtifactContents, path: str
) -> MemoryPlan | None:
    """Gives the CPU driver of `ral` the artifact's static memory plan (if it has one)."""
    if contents.memory_plan is None or contents.manifest.get("target") != "cpu":
        return None
    try:
        plan = MemoryPlan.from_json(contents.memory_plan)
    except (KeyError, TypeError, ValueError) as exc:
        raise ArtifactError(f"{path}: corrupted memory plan: {exc}") from None
    ral.get_driver("cpu").set_memory_plan(plan)  # type: ignore[attr-defined]  # the CPU driver's
    return plan


# ---------------------------------------------------------------------------
# The loaded module
# ---------------------------------------------------------------------------


class LoadedModel:
    """The shared part of a loaded artifact: linked code, RAL context, signature.

    ``call`` is thread-safe (each call has its own RAL execution context).
    """

    def __init__(
        self,
        contents: ArtifactContents,
        device: str = "cpu",
        num_threads: int | None = None,
        path: str = "<artifact>",
    ):
        manifest = contents.manifest
        kind, ordinal = _parse_device(device)
        target = manifest.get("target")
        if kind == "cpu" and target != "cpu":
            raise ArtifactError(f"{path}: a '{target}' artifact cannot run on device 'cpu'")
        if kind == "cuda" and target != "cuda":
            raise ArtifactError(f"{path}: a '{target}' artifact cannot run on device '{device}'")
        check_cpu(manifest, path)
        if kind == "cuda":
            check_gpu(manifest, ordinal, path)
        self.manifest = manifest
        self.contents = contents
        self.device = device
        self.signature, exported = parse_entry(manifest, path)
        t0 = time.perf_counter()
        prepare_native_runtime(contents)
        self.library = LoadedLibrary(contents.objects, exported, "model")
        self.link_seconds = time.perf_counter() - t0
        self._address = self.library.function_address("main")
        options = RalContextOptions(num_threads=num_threads)
        specs = [InputSpec(s.element, s.rank, s.name) for s in self.signature.inputs]
        if kind == "cuda":
            from disc_ir.runtime.drivers.cuda import CudaRalContext

            self.ral: RalContext = CudaRalContext(
                options,
                constants=contents.constants,
                input_specs=specs,
                input_placements=[s.placement for s in self.signature.inputs],
                output_placements=[s.placement for s in self.signature.outputs],
            )
        else:
            self.ral = RalContext(options, constants=contents.constants, input_specs=specs)
        self.memory_plan = install_memory_plan(self.ral, contents, path)

    def prepare(self, arrays: Sequence[Any]) -> list[Any]:
        """``arrays`` as the values compiled code reads, checked (RalInputError)."""
        sig = self.signature
        if len(arrays) != len(sig.inputs):
            raise RalInputError(f"expected {len(sig.inputs)} inputs, got {len(arrays)}")
        adapt = getattr(self.ral, "adapt_input", None)
        values: list[Any] = []
        for i, (value, spec) in enumerate(zip(arrays, sig.inputs, strict=True)):
            if not is_host_input(value):
                if adapt is not None:
                    value = adapt(i, value)
                    if not isinstance(value, np.ndarray):
                        values.append(value)
                        continue
                elif hasattr(value, "__dlpack__"):
                    try:
                        value = np.from_dlpack(value)
                    except (TypeError, RuntimeError, BufferError) as exc:
                        raise RalInputError(
                            f"{input_label(i, spec.name)}: cannot read the DLPack tensor on "
                            f"the host: {exc}"
                        ) from None
            values.append(as_input_array(i, value, spec.element, spec.rank, spec.name))
        sig.check(values)
        return values

    def call(self, arrays: Sequence[Any]) -> tuple[Any, ...]:
        """Runs the graph on ``arrays``; new output arrays."""
        values = self.prepare(arrays)
        return tuple(self.ral.execute(self._address, values, prepared=True))

    def close(self) -> None:
        self.ral.close()


class GraphModule:
    """A loaded artifact with TVM's graph-executor API.

    ``set_input`` / ``run`` / ``get_output`` keep their inputs and outputs in
    this object; ``fork()`` gives another executor over the same code and
    constants (one per thread). ``__call__`` is stateless and thread-safe.
    """

    def __init__(self, model: LoadedModel):
        self._model = model
        n = len(model.signature.inputs)
        self._inputs: list[Any] = [None] * n
        self._outputs: tuple[Any, ...] | None = None
        self._index = {s.name: i for i, s in enumerate(model.signature.inputs) if s.name}

    # -- description ------------------------------------------------------

    @property
    def manifest(self) -> dict[str, Any]:
        """The artifact's manifest (target, signature, versions, constants table)."""
        return self._model.manifest

    @property
    def signature(self) -> EntrySignature:
        return self._model.signature

    @property
    def memory_plan(self) -> MemoryPlan | None:
        """The static memory plan the calls follow (None: a dynamic graph)."""
        return self._model.memory_plan

    @property
    def load_seconds(self) -> dict[str, float]:
        """Time spent linking the code at load."""
        return {"link": self._model.link_seconds}

    def get_num_inputs(self) -> int:
        return len(self._model.signature.inputs)

    def get_num_outputs(self) -> int:
        return len(self._model.signature.outputs)

    def get_input_info(self) -> tuple[dict[str, tuple[int | str, ...]], dict[str, str]]:
        """``(shape_dict, dtype_dict)`` by input name, as TVM's: a dynamic dimension
        is its symbol (equal symbols must be equal sizes), a static one its size."""
        shapes: dict[str, tuple[int | str, ...]] = {}
        dtypes: dict[str, str] = {}
        for i, s in enumerate(self._model.signature.inputs):
            key = s.name or f"input{i}"
            shapes[key] = tuple(
                d if d is not None else (sym or "?")
                for d, sym in zip(s.shape, s.symbols, strict=True)
            )
            dtypes[key] = str(np.dtype(SCALAR_TYPES[s.element][0]))
        return shapes, dtypes

    def _input_index(self, key: int | str) -> int:
        if isinstance(key, int) and not isinstance(key, bool):
            if not 0 <= key < self.get_num_inputs():
                raise IndexError(f"input index {key} out of range ({self.get_num_inputs()} inputs)")
            return key
        if isinstance(key, str) and key in self._index:
            return self._index[key]
        names = ", ".join(self._index) or "none"
        raise KeyError(f"no input named {key!r} (inputs: {names})")

    # -- graph-executor API -------------------------------------------------

    def set_input(self, key: int | str | None = None, value: Any = None, **params: Any) -> None:
        """Sets input ``key`` (name or index) to ``value``; keyword arguments set inputs by name."""
        if key is not None:
            self._inputs[self._input_index(key)] = value
        for name, item in params.items():
            self._inputs[self._input_index(name)] = item

    def get_input(self, key: int | str) -> Any:
        """The value last set for input ``key``."""
        return self._inputs[self._input_index(key)]

    def run(self, **inputs: Any) -> None:
        """Runs the graph on the inputs set (``inputs`` are set first, by name)."""
        if inputs:
            self.set_input(**inputs)
        unset = [i for i, v in enumerate(self._inputs) if v is None]
        if unset:
            spec = self._model.signature.inputs[unset[0]]
            raise RalInputError(f"{input_label(unset[0], spec.name)} was not set (set_input)")
        self._outputs = self._model.call(self._inputs)

    def get_output(self, index: int, out: Any = None) -> Any:
        """Output ``index`` of the last ``run`` (copied into ``out`` when given)."""
        if self._outputs is None:
            raise RuntimeError("get_output before run()")
        if not 0 <= index < len(self._outputs):
            raise IndexError(f"output index {index} out of range ({len(self._outputs)} outputs)")
        value = self._outputs[index]
        if out is not None:
            np.copyto(out, value)
            return out
        return value

    def __call__(self, *arrays: Any) -> tuple[Any, ...]:
        """Runs the graph on ``arrays`` (numpy, Python numbers, DLPack producers);
        returns new arrays. Keeps no state: safe from several threads."""
        return self._model.call(arrays)

    def fork(self) -> GraphModule:
        """Another executor (its own inputs and outputs) over the same loaded code."""
        return GraphModule(self._model)

    def close(self) -> None:
        """Releases the RAL context (every fork of this module stops working)."""
        self._model.close()

    def __enter__(self) -> GraphModule:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        sig = self._model.signature
        ins = ", ".join(f"{s.name or '_'}: {s.type_text()}" for s in sig.inputs)
        outs = ", ".join(s.type_text() for s in sig.outputs)
        return f"<disc_ir.runtime.GraphModule ({ins}) -> ({outs}) on {self._model.device}>"


def load(
    path: str | os.PathLike[str], device: str = "cpu", num_threads: int | None = None
) -> GraphModule:
    """Loads the artifact at ``path`` for ``device`` (``cpu``, ``cuda``, ``cuda:N``).

    Raises ArtifactError when the file is missing, truncated, corrupted, of
    another format version, or made for a CPU or GPU this machine is not;
    ValueError for an unknown device.
    """
    name = os.fspath(path)
    _parse_device(device)
    contents = read_artifact(name)
    return GraphModule(LoadedModel(contents, device, num_threads, name))


__all__ = [
    "EntrySignature",
    "GraphModule",
    "LoadedLibrary",
    "LoadedModel",
    "TensorSpec",
    "check_cpu",
    "load",
    "parse_entry",
]
