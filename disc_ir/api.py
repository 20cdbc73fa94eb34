"""Compile an MHLO graph for the host CPU and run it on numpy arrays.

    import numpy as np
    import disc_ir

    exe = disc_ir.compile("examples/tutorial.mlir")        # MHLO text, a path or a ModuleOp
    probs, out = exe(x, w, b, np.array([5, 4], np.int64))  # any shapes of the compiled rank

`compile` runs the documented pipeline (`disc_ir.pipeline`, phases input ...
llvm: exactly the passes of `disc-opt --disc-pipeline{target=...}`, so
`disc-opt '--disc-pipeline=target=T until=P' in.mlir` prints
`exe.mlir_after(P)`) on a private copy of the module, translates the resulting `llvm`-dialect
module to LLVM IR (`Executable.llvm_ir`; identical kernels translated once),
optimizes it for this host (kernels at O3, the host entry `main` with a cheap
pipeline) and JIT-compiles it once (`disc_ir.backend.jit.HostJit`). The constants
`disc-const-to-ral` takes out of the graph go through a per-compile temporary
metadata file and are kept in memory by the `Executable`'s RAL context.

Calling an `Executable` checks the inputs before any compiled code runs: their
count, element type and rank (the runtime's `input_specs`), the static
dimensions of the entry signature, and the equalities between dynamic
dimensions the compiler relied on (`disc_ir.analysis.entry_dims`: e.g. `x @ w`
needs `x.shape[1] == w.shape[0]`). A violation raises
`disc_ir.runtime.RalInputError` naming the argument, the expected and the
actual value.
"""

from __future__ import annotations

import functools
import gc
import importlib
import os
import tempfile
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar, overload

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    ComplexType,
    DictionaryAttr,
    ModuleOp,
    ShapedType,
    StringAttr,
    TensorType,
)
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from disc_ir import config
from disc_ir.analysis.entry_dims import DimConstraints, DimRef, entry_dim_constraints
from disc_ir.backend.jit import BackgroundObject, HostJit
from disc_ir.backend.target import host_target_machine, link_llvm_ir
from disc_ir.backend.translate import module_to_llvm_ir
from disc_ir.codegen import kernel_split
from disc_ir.codegen.shared_lowering import SharingFailed
from disc_ir.compile_cache import CompileCache, cache_key
from disc_ir.ir.context import make_context
from disc_ir.ir.diagnostics import RejectedInput
from disc_ir.ir.parser import Diagnostic, parse_module
from disc_ir.ir.printer import module_text
from disc_ir.ir.verify import VerifyEach, first_verify_failure
from disc_ir.ir.walk import preorder_ops
from disc_ir.pipeline import TARGETS, phase_names, phase_passes, with_sharing_fallback
from disc_ir.rewriting.patterns import load_canonicalization_patterns
from disc_ir.runtime import InputSpec, RalContext, RalContextOptions, RalInputError
from disc_ir.runtime.artifact import ArtifactError, disc_ir_version, read_artifact, write_artifact
from disc_ir.runtime.context import (
    RalError,
    as_input_array,
    check_input,
    input_label,
    is_host_input,
)
from disc_ir.runtime.graph_executor import (
    LoadedLibrary,
    check_cpu,
    check_gpu,
    install_memory_plan,
    parse_entry,
)
from disc_ir.runtime.memory_plan import AllocationTrace, MemoryPlan, plan_memory
from disc_ir.runtime.ral_metadata import element_type_code

if TYPE_CHECKING:
    from disc_ir.kernel_launch import KernelLaunchExecutable

METADATA_FILE_NAME = "constants.discmeta"


class CompileError(RuntimeError):
    """The source does not parse or verify, or a pass of the pipeline failed."""


@dataclass(frozen=True)
class ArgSpec:
    """One input or output of the compiled entry function.

    `element` is the RAL type code (`f32`, `i64`, ...), `shape` the static
    shape with None for a dynamic dimension.
    """

    name: str | None
    element: str
    shape: tuple[int | None, ...]

    @property
    def rank(self) -> int:
        return len(self.shape)

    def type_text(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"tensor<{dims + 'x' if dims else ''}{self.element}>"


# ---------------------------------------------------------------------------
# Source handling
# ---------------------------------------------------------------------------


def print_module(module: ModuleOp) -> str:
    """`module` as MLIR text, printed as disc-opt prints it (`module_text`)."""
    return module_text(module)


def _looks_like_path(source: str) -> bool:
    return "\n" not in source and (source.endswith(".mlir") or os.path.isfile(source))


def load_module(
    ctx: Context, source: str | PurePath | ModuleOp, *, import_stablehlo: bool = True
) -> ModuleOp:
    """A fresh module from MHLO text, a file path or an existing module (cloned).

    StableHLO text (JAX's `jax.jit(f).lower(...).as_text()`, `jax.export`'s
    `mlir_module()`) is imported to mhlo by `disc_ir.frontends.import_stablehlo`:
    the outputs then carry the `jax.result_info` names. `import_stablehlo=False`
    only parses it (the pipeline's `disc-import-stablehlo` imports it).
    """
    if isinstance(source, ModuleOp):
        return _reparse(ctx, source, import_stablehlo)
    filename = "<source>"
    if isinstance(source, PurePath) or _looks_like_path(source):
        filename = str(source)
        try:
            text = Path(source).read_text(encoding="utf-8")
        except OSError as exc:
            raise CompileError(f"cannot read '{filename}': {exc.strerror}") from None
    else:
        text = source
    from disc_ir.frontends.stablehlo import (
        StableHloImportError,
        looks_like_stablehlo,
    )
    from disc_ir.frontends.stablehlo import import_stablehlo as import_stablehlo_text

    try:
        if import_stablehlo and looks_like_stablehlo(text):
            # StableHLO (e.g. JAX's `lower(...).as_text()`): imported to mhlo.
            return import_stablehlo_text(text, file_name=filename, ctx=ctx)
        return parse_module(ctx, text, filename)
    except Diagnostic as diag:
        raise CompileError(str(diag)) from None
    except StableHloImportError as exc:
        raise CompileError(f"{filename}: {exc}") from None


def _reparse(ctx: Context, module: ModuleOp, import_stablehlo: bool) -> ModuleOp:
    # A module built in another context: print and re-parse it into ours, so
    # the caller's module is never changed and every op is one of ours.
    return load_module(ctx, print_module(module), import_stablehlo=import_stablehlo)


def entry_function(module: ModuleOp, entry: str) -> func.FuncOp:
    """The function `entry` of `module`, renamed `@main` (the pipeline's entry)."""
    funcs = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    if entry not in funcs:
        known = ", ".join("@" + n for n in funcs) or "none"
        raise CompileError(f"no entry function '@{entry}' in the module (functions: {known})")
    f = funcs[entry]
    if entry != "main":
        if "main" in funcs:
            raise CompileError(
                f"entry '@{entry}': the module also has a '@main'; the pipeline compiles "
                "'@main' as the entry function, rename one of them"
            )
        f.sym_name = StringAttr("main")
    return f


def _reject_complex_ops(module: ModuleOp) -> None:
    """Name the first op taking or producing complex numbers (not compiled)."""
    from disc_ir.ir.parser import source_location

    for op in preorder_ops(module):
        for value in (*op.operands, *op.results):
            t = value.type
            if isinstance(t, ShapedType) and isinstance(t.get_element_type(), ComplexType):  # type: ignore[attr-defined]  # xDSL's ShapedType omits it; tensors define it
                loc = source_location(op)
                where = f" (input line {loc[0]})" if loc else ""
                raise CompileError(
                    f"'{op.name}'{where} is not supported by disc-ir: it computes on "
                    f"{t.get_element_type()} values, and complex element types are not compiled"  # type: ignore[attr-defined]  # as above
                )


def _tensor_spec(t: Any, name: str | None, what: str) -> ArgSpec:
    if not isinstance(t, TensorType):
        raise CompileError(f"{what}: only ranked tensors are supported, got {t}")
    code = element_type_code(t.element_type)
    if code is None:
        raise CompileError(f"{what}: unsupported element type {t.element_type}")
    shape = tuple(None if d == DYNAMIC_INDEX else d for d in t.get_shape())
    return ArgSpec(name, code, shape)


def _names(entry: DictionaryAttr | None, key: str, count: int) -> list[str | None]:
    value = entry.data.get(key) if entry is not None else None
    if isinstance(value, StringAttr):
        items = [s.strip() for s in value.data.split(",")] if value.data else []
        if len(items) == count:
            return [s or None for s in items]
    return [None] * count


def entry_placements(f: func.FuncOp) -> tuple[list[str] | None, list[str] | None]:
    """The entry's `input_placements` / `output_placements` (None when absent)."""
    entry = f.attributes.get("tf.entry_function")
    out: list[list[str] | None] = []
    for key in ("input_placements", "output_placements"):
        value = entry.data.get(key) if isinstance(entry, DictionaryAttr) else None
        out.append(
            [s.strip() for s in value.data.split(",")]
            if isinstance(value, StringAttr) and value.data
            else None
        )
    return out[0], out[1]


def entry_signature(f: func.FuncOp) -> tuple[list[ArgSpec], list[ArgSpec]]:
    """The entry's input/output specs; adds a default `tf.entry_function` if it has none."""
    ft = f.function_type
    n_in, n_out = len(ft.inputs.data), len(ft.outputs.data)
    entry = f.attributes.get("tf.entry_function")
    if not isinstance(entry, DictionaryAttr):
        entry = DictionaryAttr(
            {
                "inputs": StringAttr(",".join(f"input{i}" for i in range(n_in))),
                "outputs": StringAttr(",".join(f"output{i}" for i in range(n_out))),
                "input_placements": StringAttr(",".join(["cpu"] * n_in)),
                "output_placements": StringAttr(",".join(["cpu"] * n_out)),
            }
        )
        f.attributes["tf.entry_function"] = entry
    in_names = _names(entry, "inputs", n_in)
    out_names = _names(entry, "outputs", n_out)
    inputs = [
        _tensor_spec(t, n, input_label(i, n))
        for i, (t, n) in enumerate(zip(ft.inputs.data, in_names, strict=True))
    ]
    outputs = [
        _tensor_spec(t, n, f"output #{i}" + (f" '{n}'" if n else ""))
        for i, (t, n) in enumerate(zip(ft.outputs.data, out_names, strict=True))
    ]
    return inputs, outputs


# ---------------------------------------------------------------------------
# Running the pipeline
# ---------------------------------------------------------------------------


def _run_pass(ctx: Context, module: ModuleOp, p: ModulePass, verify: VerifyEach | None) -> None:
    try:
        p.apply(ctx, module)
    except SharingFailed:
        raise  # `lower_to_llvm_ir` compiles again without sharing
    except RejectedInput as exc:
        raise CompileError(str(exc)) from None
    except (DiagnosticException, VerifyException) as exc:
        raise CompileError(f"pass '{p.name}' failed: {str(exc).strip()}") from None
    if verify is not None:
        failure = verify.first_failure(module)
        if failure is not None:
            raise CompileError(
                f"verification failed after pass '{p.name}': '{failure[0]}' op {failure[1]}"
            )


def run_pipeline(
    ctx: Context,
    module: ModuleOp,
    target: str = "cpu",
    *,
    metadata_file: str = "",
    verify: bool = False,
    until: str | None = None,
    after_phase: Callable[[str, ModuleOp], None] | None = None,
    after_pass: Callable[[ModulePass, ModuleOp, float], None] | None = None,
    share_fusion_lowering: bool | None = None,
    kernels_ahead: KernelsAhead | None = None,
) -> dict[str, float]:
    """Runs the pipeline on `module` in place; returns seconds spent per phase.

    The passes are those of `disc-opt --disc-pipeline{target=... until=...}`
    (`disc_ir.pipeline.phase_passes`). `after_phase(name, module)` /
    `after_pass(pass, module, seconds)` are called after each phase / pass
    (dumps, timing). Pass failures raise CompileError naming the pass; a
    `RejectedInput` (the program uses something the pipeline does not
    compile) raises CompileError with its message. `share_fusion_lowering`
    (CPU; None: `DISC_SHARE_FUSION_LOWERING`): the pipeline's
    `disc-mark-shared-fusion-lowering` / `disc-instantiate-shared-fusion-lowering`
    lower one fusion of each identical set (the latter may raise
    `SharingFailed`: then run again from the input with
    `share_fusion_lowering=False`, as `with_sharing_fallback` does).
    `kernels_ahead` (CPU): a compile-time optimization of the JIT, not a
    rewrite: the `llvm` phase lowers the kernels first, in a module of their
    own, and starts compiling their LLVM IR on a worker thread while it
    lowers the host code (`disc_ir.codegen.kernel_split`); the phase ends
    with the same module as without.
    """
    try:
        grouped = phase_passes(target, until, metadata_file, share_fusion_lowering)
    except ValueError as exc:
        raise CompileError(str(exc)) from None
    times: dict[str, float] = {}
    verifier = VerifyEach() if verify else None
    for name, passes in grouped:
        start = time.perf_counter()
        kernel_module = None
        if kernels_ahead is not None and target == "cpu" and name == "llvm":
            kernel_module = kernel_split.split_kernels(module)
        if kernel_module is not None:
            assert kernels_ahead is not None
            for p in passes:
                _run_pass(ctx, kernel_module, p, verifier)
            t0 = time.perf_counter()
            text = module_to_llvm_ir(kernel_module)
            kernels_ahead.translate_s = time.perf_counter() - t0
            kernels_ahead.compiled = BackgroundObject(text)
            kernels_ahead.names = kernel_split.kernel_names(kernel_module)
        for p in passes:
            t0 = time.perf_counter()
            _run_pass(ctx, module, p, verifier)
            if after_pass is not None:
                after_pass(p, module, time.perf_counter() - t0)
        if kernel_module is not None:
            kernel_split.merge_kernels(module, kernel_module)
        times[name] = time.perf_counter() - start
        if after_phase is not None:
            after_phase(name, module)
    return times


@dataclass
class LoweredModule:
    """The result of lowering a source to LLVM IR, before JIT compilation."""

    llvm_ir: str
    inputs: list[ArgSpec]
    outputs: list[ArgSpec]
    constraints: DimConstraints
    constants: dict[str, tuple[str, tuple[int, ...], bytes]]
    phase_ir: dict[str, ModuleOp]
    times: dict[str, float]
    #: target `cuda`: the PTX of each kernel module (`gpu.module` name -> PTX text)
    gpu_kernels: dict[str, str] = field(default_factory=dict)
    #: the target the module was lowered for (`cpu` or `cuda`)
    target: str = "cpu"
    #: the entry's `input_placements` / `output_placements` ("cpu"/"gpu" each)
    input_placements: list[str] | None = None
    output_placements: list[str] | None = None
    #: `compile_kernels_ahead`: the CPU kernels, compiling on a worker thread
    #: (then `llvm_ir` is the host part, declaring them); None otherwise
    kernels: BackgroundObject | None = None
    _whole_llvm_ir: str | None = field(default=None, repr=False)

    def whole_llvm_ir(self) -> str:
        """The LLVM IR of the whole module (the kernels' part linked in, once)."""
        if self.kernels is None:
            return self.llvm_ir
        if self._whole_llvm_ir is None:
            self._whole_llvm_ir = link_llvm_ir(self.kernels.text, self.llvm_ir)
        return self._whole_llvm_ir


@dataclass
class KernelsAhead:
    """`run_pipeline`'s CPU kernels lowered and translated before the host
    code, their compilation started on a worker thread (`kernel_split`)."""

    #: the kernels' LLVM IR, compiling
    compiled: BackgroundObject | None = None
    #: the kernel functions (declared only in the host part's LLVM IR)
    names: list[str] = field(default_factory=list)
    #: seconds spent translating the kernels' module
    translate_s: float = 0.0


_P = ParamSpec("_P")
_R = TypeVar("_R")


def _collect_once(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """Runs `fn` with the cyclic garbage collector off, then collects once.

    The passes allocate millions of small objects that live until their pass
    or the compile ends; with the collector on, each collection traverses
    the whole young IR again (and the survivors once more when they age), ~10%
    of a BERT compile. Off, one collection at the end frees the compile's
    cycles (erased ops, the lowered module) in a single traversal, inside the
    compile's time; peak memory grows by the cyclic garbage of one compile.
    A nested call (or a caller that turned the collector off) leaves it alone.
    """

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if not gc.isenabled():
            return fn(*args, **kwargs)
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.enable()
            gc.collect(0)  # everything allocated meanwhile is still generation 0

    return wrapper


@_collect_once
def lower_to_llvm_ir(
    source: str | PurePath | ModuleOp,
    target: str = "cpu",
    *,
    entry: str = "main",
    verify: bool = False,
    metadata_file: str | None = None,
    keep_ir: bool = True,
    after_pass: Callable[[ModulePass, ModuleOp, float], None] | None = None,
    dump_dir: Path | None = None,
    share_fusion_lowering: bool | None = None,
    compile_kernels_ahead: bool = False,
) -> LoweredModule:
    """Parses `source` and lowers it to LLVM IR text (no JIT).

    The driver parses the source, checks that it verifies, makes `entry`
    the `@main` the pipeline compiles, and runs the pipeline: every rewrite
    is one of its passes (the `input` phase imports StableHLO, unrolls static
    loops, adds the run-time shape checks, ...), so disc-opt reproduces each
    phase's IR (`phase_ir`).

    `compile_kernels_ahead` (CPU): the kernels are lowered before the host
    code and compiled to machine code on a worker thread meanwhile
    (`disc_ir.codegen.kernel_split`); the result's `llvm_ir` is then the
    host part and `kernels` the rest (`whole_llvm_ir()` links the two).

    `share_fusion_lowering`: lower one CPU fusion of each identical set
    (the pipeline's sharing passes, `disc_ir.codegen.shared_lowering`; None:
    `DISC_SHARE_FUSION_LOWERING`, default on); when a copy cannot be made,
    the module is compiled again without sharing (`with_sharing_fallback`,
    as disc-opt does).

    The constants go to `metadata_file` (a temporary file when None, removed
    afterwards) and are returned in memory as well. `keep_ir` keeps a copy of
    the module after each phase (`LoweredModule.phase_ir`). `dump_dir`: the
    IR after each phase is written there as the phase ends
    (`NN_<phase>.mlir`, so a failing pass leaves the IR it got), then
    `module.ll`.
    """
    config.warn_unknown_switches()
    args = (source, target, entry, verify, metadata_file, keep_ir, after_pass, dump_dir)

    def attempt(share: bool) -> LoweredModule:
        return _lower_to_llvm_ir(
            *args,
            share_fusion_lowering=share_fusion_lowering if share else False,
            compile_kernels_ahead=compile_kernels_ahead,
        )

    if share_fusion_lowering is False:
        return attempt(False)
    return with_sharing_fallback(attempt)


#: (inputs, outputs, input placements, output placements) of the entry
_EntryFacts = tuple[list[ArgSpec], list[ArgSpec], list[str] | None, list[str] | None]


def _lower_to_llvm_ir(
    source: str | PurePath | ModuleOp,
    target: str,
    entry: str,
    verify: bool,
    metadata_file: str | None,
    keep_ir: bool,
    after_pass: Callable[[ModulePass, ModuleOp, float], None] | None,
    dump_dir: Path | None,
    *,
    share_fusion_lowering: bool | None,
    compile_kernels_ahead: bool = False,
) -> LoweredModule:
    t0 = time.perf_counter()
    ctx = make_context()
    # StableHLO is only parsed: the pipeline's `disc-import-stablehlo` imports it
    module = load_module(ctx, source, import_stablehlo=False)
    failure = first_verify_failure(module)
    if failure is not None:
        raise CompileError(f"invalid input: '{failure[0]}' op {failure[1]}")
    _reject_complex_ops(module)
    entry_function(module, entry)
    times = {"parse": time.perf_counter() - t0}
    phase_ir: dict[str, ModuleOp] = {}
    constraints = DimConstraints()
    order = phase_names(target)
    gpu_kernels: dict[str, str] = {}
    #: the entry's input / output specs and placements, read after the input phase
    entry_facts: _EntryFacts | None = None

    def dump(name: str, m: ModuleOp) -> None:
        if dump_dir is not None:
            (dump_dir / f"{order.index(name):02d}_{name}.mlir").write_text(print_module(m))

    def after_phase(name: str, m: ModuleOp) -> None:
        nonlocal constraints, entry_facts
        if keep_ir:
            # The last phase's module is not changed afterwards: kept as is
            # (cloning the llvm-dialect module costs seconds on large graphs).
            phase_ir[name] = m if name == order[-1] else m.clone()
        dump(name, m)
        if name == "input":
            f = entry_function(m, "main")
            entry_facts = (*entry_signature(f), *entry_placements(f))
        if name == "device":
            gpu_kernels.update(_kernel_ptx(m))
        if name == "bufferize":
            main = next(
                (o for o in m.ops if isinstance(o, func.FuncOp) and o.sym_name.data == "main"),
                None,
            )
            if main is not None:
                constraints = entry_dim_constraints(main)

    with tempfile.TemporaryDirectory(prefix="disc_ir_") as tmp:
        meta = metadata_file or os.path.join(tmp, METADATA_FILE_NAME)
        ahead = KernelsAhead() if compile_kernels_ahead and target == "cpu" else None
        try:
            times |= run_pipeline(
                ctx,
                module,
                target,
                metadata_file=meta,
                verify=verify,
                after_phase=after_phase,
                after_pass=after_pass,
                share_fusion_lowering=share_fusion_lowering,
                kernels_ahead=ahead,
            )
        except BaseException:
            if ahead is not None and ahead.compiled is not None:
                ahead.compiled.wait()  # no LLVM work left running behind a failure
            raise
        constants: dict[str, tuple[str, tuple[int, ...], bytes]] = {}
        if os.path.exists(meta):
            from disc_ir.runtime.constants import load_metadata_file

            constants = load_metadata_file(meta)
    t1 = time.perf_counter()
    if ahead is None or ahead.compiled is None:
        ahead = KernelsAhead()  # nothing was split off
    llvm_ir = module_to_llvm_ir(module, merge_identical=("main",), declare_only=ahead.names)
    # the kernels' translation was timed in the `llvm` phase, where it ran
    times["translate"] = time.perf_counter() - t1 + ahead.translate_s
    if ahead.translate_s:
        times["llvm"] -= ahead.translate_s
    assert entry_facts is not None  # set when the input phase ended
    inputs, outputs, input_placements, output_placements = entry_facts
    lowered = LoweredModule(
        llvm_ir,
        inputs,
        outputs,
        constraints,
        constants,
        phase_ir,
        times,
        gpu_kernels,
        target,
        input_placements,
        output_placements,
        ahead.compiled,
    )
    if dump_dir is not None:
        (dump_dir / "module.ll").write_text(lowered.whole_llvm_ir())
        for kernel_name, ptx in gpu_kernels.items():
            (dump_dir / f"{kernel_name}.ptx").write_text(ptx)
    return lowered


def _kernel_ptx(module: ModuleOp) -> dict[str, str]:
    """`gpu.module` name -> the PTX `disc-gpu-kernel-to-blob` attached (`disc.ptx`)."""
    out: dict[str, str] = {}
    for op in module.ops:
        if op.name != "gpu.module":
            continue
        name = op.properties.get("sym_name") or op.attributes.get("sym_name")
        ptx = op.attributes.get("disc.ptx")
        if isinstance(name, StringAttr) and isinstance(ptx, StringAttr):
            out[name.data] = ptx.data
    return out


# ---------------------------------------------------------------------------
# Executable
# ---------------------------------------------------------------------------


class Executable:
    """A compiled graph: call it with numpy arrays, get a tuple of arrays back.

    One JIT module and one RAL context (constants loaded once) per
    Executable; calls may use any shapes of the compiled ranks. `close()` (or
    a `with` block) releases the RAL context.
    """

    def __init__(
        self,
        lowered: LoweredModule,
        jit: HostJit | LoadedLibrary,
        num_threads: int | None = None,
        target_facts: dict[str, Any] | None = None,
    ):
        self._lowered = lowered
        self._jit = jit
        #: the machine the code was generated for (triple, cpu, cpu_features, gpu_arch)
        self._target_facts = target_facts or _host_target_facts(lowered.target)
        #: the artifact an Executable was loaded from (its mapped constants stay alive)
        self._artifact: Any = None
        #: True when `compile` loaded it from the persistent compile cache
        self.cached = False
        self._address = jit.function_address("main")
        self.inputs: list[ArgSpec] = lowered.inputs
        self.outputs: list[ArgSpec] = lowered.outputs
        self.constraints = lowered.constraints
        self.compile_times: dict[str, float] = dict(lowered.times)
        options = RalContextOptions(num_threads=num_threads)
        specs = [InputSpec(a.element, a.rank, a.name) for a in lowered.inputs]
        if lowered.target == "cuda":
            # Imported here: the CUDA driver is optional (cuda extra) and
            # raises CudaUnavailableError ("no CUDA device: ...") without a GPU.
            from disc_ir.runtime.drivers.cuda import CudaRalContext

            self._ral: RalContext = CudaRalContext(
                options,
                constants=lowered.constants,
                input_specs=specs,
                input_placements=lowered.input_placements,
                output_placements=lowered.output_placements,
            )
        else:
            self._ral = RalContext(options, constants=lowered.constants, input_specs=specs)

    # -- inspection -------------------------------------------------------

    def _compiled_here(self, what: str) -> HostJit:
        if not isinstance(self._jit, HostJit):
            raise RuntimeError(
                f"{what} is not available: this Executable was loaded from a saved artifact "
                "(compile the source again to inspect it)"
            )
        return self._jit

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR the pipeline produced (before LLVM's optimizations)."""
        self._compiled_here("the LLVM IR")
        return self._lowered.whole_llvm_ir()

    @property
    def optimized_llvm_ir(self) -> str:
        """The LLVM IR after optimization for this host (what was JIT-compiled): the
        kernels at O3, the host entry `main` with a cheap function pipeline."""
        return self._compiled_here("the optimized LLVM IR").optimized_ir

    def assembly(self) -> str:
        """The host assembly of the compiled module."""
        return self._compiled_here("the assembly").assembly()

    # -- artifacts --------------------------------------------------------

    def artifact_manifest(self) -> dict[str, Any]:
        """The descriptive part of the manifest `save` writes: versions, target,
        the machine the code is for, and the entry signature."""
        import llvmlite

        from disc_ir.runtime.native import native_ir_digest

        return {
            "disc_ir_version": disc_ir_version(),
            "llvmlite_version": llvmlite.__version__,
            "ral_native_ir_sha256": native_ir_digest(),
            "target": self._lowered.target,
            **self._target_facts,
            "exported": self._jit.exported,
            "signature": signature_json(
                self.inputs,
                self.outputs,
                self.constraints,
                self._lowered.input_placements,
                self._lowered.output_placements,
            ),
        }

    def plan_memory(self, example_inputs: list[np.ndarray] | None = None) -> MemoryPlan | None:
        """The static memory plan (`disc_ir.runtime.memory_plan`) of a CPU graph whose
        inputs are all static: the graph runs once on `example_inputs` (default:
        arrays of ones) while the allocations are recorded. None for dynamic or
        cuda graphs, or when that run fails."""
        if self._lowered.target != "cpu" or any(None in a.shape for a in self.inputs):
            return None
        if example_inputs is None:
            example_inputs = [
                np.ones(tuple(d or 0 for d in a.shape), _numpy_dtype(a.element))
                for a in self.inputs
            ]
        driver = self._ral.get_driver("cpu")
        trace = AllocationTrace()
        driver.record_allocations(trace)  # type: ignore[attr-defined]  # the CPU driver's
        try:
            self(*example_inputs)
        except (RalError, ValueError):
            return None
        finally:
            driver.record_allocations(None)  # type: ignore[attr-defined]  # the CPU driver's
        return plan_memory(trace)

    def save(self, path: str | PurePath, example_inputs: list[np.ndarray] | None = None) -> None:
        """Writes the compiled graph to `path` as a `model.disc` artifact
        (`disc_ir.runtime.artifact`), atomically. `disc_ir.runtime.load(path)`
        runs it without the compiler; `Executable.load(path)` gives an Executable.
        A static CPU graph gets its memory plan (`plan_memory(example_inputs)`)."""
        plan = self.plan_memory(example_inputs)
        manifest = self.artifact_manifest()
        if plan is not None:
            manifest["memory_plan"] = {
                "arena_bytes": plan.arena_bytes,
                "unplanned_bytes": plan.unplanned_bytes,
                "storages": len(plan.storage_sizes),
                "allocations": len(plan.sizes),
            }
        write_artifact(
            path,
            manifest,
            self._jit.objects,
            self._lowered.constants,
            self._lowered.gpu_kernels,
            memory_plan=plan.to_json() if plan is not None else None,
            native_object=_native_object_or_none(),
        )

    @classmethod
    def load(cls, path: str | PurePath, num_threads: int | None = None) -> Executable:
        """The Executable of the artifact at `path` (no IR kept: `llvm_ir`,
        `mlir_after`, `assembly` are unavailable). Raises ArtifactError as
        `disc_ir.runtime.load` does."""
        name = os.fspath(path)
        contents = read_artifact(name)
        manifest = contents.manifest
        check_cpu(manifest, name)
        target = str(manifest.get("target"))
        if target == "cuda":
            check_gpu(manifest, 0, name)
        sig, exported = parse_entry(manifest, name)
        library = LoadedLibrary(contents.objects, exported)
        lowered = LoweredModule(
            "",
            [ArgSpec(s.name, s.element, s.shape) for s in sig.inputs],
            [ArgSpec(s.name, s.element, s.shape) for s in sig.outputs],
            DimConstraints(
                [([DimRef(a, d) for a, d in refs], value) for refs, value in sig.dim_groups]
            ),
            contents.constants,
            {},
            {},
            contents.gpu_kernels,
            target,
            [s.placement for s in sig.inputs] if target == "cuda" else None,
            [s.placement for s in sig.outputs] if target == "cuda" else None,
        )
        facts = {k: manifest.get(k) for k in ("triple", "cpu", "cpu_features", "gpu_arch")}
        exe = cls(lowered, library, num_threads=num_threads, target_facts=facts)
        exe._artifact = contents  # keeps the mapped constants alive
        install_memory_plan(exe._ral, contents, name)
        return exe

    @property
    def phases(self) -> list[str]:
        """The phases whose IR `mlir_after` can show (`disc_ir.pipeline.phase_names`)."""
        return list(self._lowered.phase_ir)

    def mlir_after(self, phase: str) -> str:
        """The MLIR text of the module after `phase` (see `phases`)."""
        module = self._lowered.phase_ir.get(phase)
        if module is None:
            known = ", ".join(self.phases) or "none kept (keep_ir=False)"
            raise KeyError(f"no IR kept for phase '{phase}' (phases: {known})")
        return print_module(module)

    @property
    def constants(self) -> dict[str, tuple[str, tuple[int, ...], bytes]]:
        """The constants the compiled code loads (md5 key -> dtype, shape, bytes)."""
        return dict(self._lowered.constants)

    @property
    def compile_seconds(self) -> float:
        """Total compile time: parsing, every phase, translation, JIT and the rest of
        `compile`'s wall time (`compile_times["other"]`: setup, garbage collection)."""
        return sum(self.compile_times.values())

    def __repr__(self) -> str:
        ins = ", ".join(f"{a.name or '_'}: {a.type_text()}" for a in self.inputs)
        outs = ", ".join(a.type_text() for a in self.outputs)
        return f"<disc_ir.Executable ({ins}) -> ({outs})>"

    # -- running ----------------------------------------------------------

    def check_inputs(self, arrays: list[np.ndarray]) -> None:
        """Raises RalInputError unless `arrays` fit the compiled signature."""
        if len(arrays) != len(self.inputs):
            raise RalInputError(f"expected {len(self.inputs)} inputs, got {len(arrays)}")
        for i, (array, spec) in enumerate(zip(arrays, self.inputs, strict=True)):
            check_input(i, array, spec.element, spec.rank, spec.name)
            for d, (want, got) in enumerate(zip(spec.shape, array.shape, strict=True)):
                if want is not None and want != got:
                    raise RalInputError(
                        f"{input_label(i, spec.name)}: dimension {d} is {got}, expected {want} "
                        f"(static in {spec.type_text()}); got shape {tuple(array.shape)}"
                    )
        violation = self.constraints.check([tuple(a.shape) for a in arrays])
        if violation is not None:
            ref, actual, other, expected = violation
            why = "a constant of the compiled graph" if other is None else self._dim_text(other)
            raise RalInputError(
                f"{self._dim_text(ref)} is {actual}, expected {expected} (must equal {why}); "
                f"input shapes: {', '.join(str(tuple(a.shape)) for a in arrays)}"
            )

    def _dim_text(self, ref: DimRef) -> str:
        return f"{input_label(ref.arg, self.inputs[ref.arg].name)} dimension {ref.dim}"

    def __call__(self, *arrays: Any) -> tuple[np.ndarray, ...]:
        """Runs the compiled graph on `arrays`; returns new arrays (never views of
        the inputs or of memory a later call reuses) and never writes the inputs.
        Inputs are read as `disc_ir.runtime.context.as_input_array` says (exact dtype
        and rank; copies only for layout or byte order) and checked by `check_inputs`."""
        if len(arrays) != len(self.inputs):
            raise RalInputError(f"expected {len(self.inputs)} inputs, got {len(arrays)}")
        adapt = getattr(self._ral, "adapt_input", None)
        if adapt is None:
            values: list[Any] = [
                as_input_array(i, value, spec.element, spec.rank, spec.name)
                for i, (value, spec) in enumerate(zip(arrays, self.inputs, strict=True))
            ]
        else:
            values = []
            for i, (value, spec) in enumerate(zip(arrays, self.inputs, strict=True)):
                if not is_host_input(value):
                    # CUDA: device arrays pass through without a host copy
                    value = adapt(i, value)
                    if not isinstance(value, np.ndarray):
                        values.append(value)
                        continue
                values.append(as_input_array(i, value, spec.element, spec.rank, spec.name))
        self.check_inputs(values)
        return tuple(self._ral.execute(self._address, values, prepared=True))

    def close(self) -> None:
        """Releases the RAL context; the Executable cannot run afterwards."""
        self._ral.close()

    def __enter__(self) -> Executable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _numpy_dtype(element: str) -> np.dtype:
    from disc_ir.runtime.abi import SCALAR_TYPES

    return np.dtype(SCALAR_TYPES[element][0])


def _native_object_or_none() -> bytes | None:
    """The RAL's native dispatcher as an object for this host (None when it
    cannot be built here: the loader compiles it then)."""
    from disc_ir.runtime.native import native_object

    try:
        return native_object()
    except (OSError, RuntimeError):
        return None


def _host_target_facts(target: str) -> dict[str, Any]:
    """The machine `HostJit` generates code for: this host's triple, CPU name and
    features, and (target `cuda`) the GPU arch the kernels were compiled for."""
    import llvmlite.binding as llvm_binding

    gpu_arch = None
    if target == "cuda":
        from disc_ir.pipeline import cuda_compute_capability

        major, minor = cuda_compute_capability()
        gpu_arch = f"sm_{major}{minor}"
    return {
        "triple": llvm_binding.get_process_triple(),
        "cpu": llvm_binding.get_host_cpu_name(),
        "cpu_features": llvm_binding.get_host_cpu_features().flatten(),
        "gpu_arch": gpu_arch,
    }


def signature_json(
    inputs: list[ArgSpec],
    outputs: list[ArgSpec],
    constraints: DimConstraints,
    input_placements: list[str] | None,
    output_placements: list[str] | None,
) -> dict[str, Any]:
    """The entry signature as the artifact's manifest stores it
    (`disc_ir.runtime.graph_executor.EntrySignature.from_json` reads it): every
    dynamic input dimension gets a symbol (`s0`, `s1`, ...), shared by the
    dimensions the compiler proved equal."""
    symbol_of: dict[tuple[int, int], str] = {}
    groups = []
    count = 0
    for refs, value in constraints.groups:
        dims = [(r.arg, r.dim) for r in refs]
        groups.append({"dims": [list(d) for d in dims], "value": value})
        if value is None:
            for d in dims:
                symbol_of[d] = f"s{count}"
            count += 1

    def specs(args: list[ArgSpec], placements: list[str] | None, is_input: bool) -> list[dict]:
        nonlocal count
        out = []
        for i, a in enumerate(args):
            symbols: list[str | None] = []
            for d, size in enumerate(a.shape):
                if size is not None or not is_input:
                    symbols.append(None)
                    continue
                if (i, d) not in symbol_of:
                    symbol_of[(i, d)] = f"s{count}"
                    count += 1
                symbols.append(symbol_of[(i, d)])
            out.append(
                {
                    "name": a.name,
                    "dtype": a.element,
                    "shape": list(a.shape),
                    "symbols": symbols,
                    "placement": placements[i] if placements and i < len(placements) else "cpu",
                }
            )
        return out

    return {
        "inputs": specs(inputs, input_placements, True),
        "outputs": specs(outputs, output_placements, False),
        "dim_groups": groups,
    }


def preload(target: str = "cpu") -> None:
    """Loads now what the first compile for `target` would load lazily.

    Imports the pipeline's pass modules, every registered dialect, the
    StableHLO frontend and the canonicalization patterns, initializes LLVM's
    native target and loads the RAL's native dispatcher
    (the symbol the host code calls), so a server (or a benchmark, as jax is
    imported before it is timed) pays that once at start-up instead of on
    its first `compile`. Idempotent; CompileError for an unknown target.
    """
    from disc_ir.runtime.dispatch import register_symbols

    if target not in TARGETS:
        raise CompileError(f"unknown target '{target}' (known: {', '.join(TARGETS)})")
    ctx = make_context()
    for name in list(ctx.registered_dialect_names):
        ctx.load_registered_dialect(name)
    phase_passes(target)
    for module in _LAZY_MODULES:
        importlib.import_module(module)
    load_canonicalization_patterns()
    host_target_machine()
    register_symbols()


#: modules a compile imports on first use beyond the pipeline's passes: the
#: StableHLO frontend (JAX exports), the run-time checks, passes that passes run, the upstream
#: canonicalization patterns of `cf`
_LAZY_MODULES = (
    "disc_ir.frontends.stablehlo",
    "disc_ir.frontends.cumulative_reduce_window",
    "disc_ir.frontends.padded_reduce_window",
    "disc_ir.frontends.runtime_checks",
    "disc_ir.frontends.control_flow",
    "disc_ir.frontends.conv_lhs_dilation",
    "disc_ir.transforms.stablehlo_legalize_to_hlo",
    "disc_ir.transforms.loop_invariant_code_motion",
    "xdsl.transforms.canonicalization_patterns.cf",
)


@overload
def compile(  # noqa: A001
    source: str | PurePath | ModuleOp,
    target: str = ...,
    *,
    entry: str = ...,
    verify: bool = ...,
    dump_dir: str | PurePath | None = ...,
    keep_ir: bool = ...,
    num_threads: int | None = ...,
    mode: Literal["fused"] = ...,
    keep_outputs: bool = ...,
    cache_dir: str | PurePath | None = ...,
) -> Executable: ...


@overload
def compile(  # noqa: A001
    source: str | PurePath | ModuleOp,
    target: str = ...,
    *,
    entry: str = ...,
    verify: bool = ...,
    dump_dir: str | PurePath | None = ...,
    keep_ir: bool = ...,
    num_threads: int | None = ...,
    mode: Literal["kernel-launch"],
    keep_outputs: bool = ...,
    cache_dir: str | PurePath | None = ...,
) -> KernelLaunchExecutable: ...


def compile(  # noqa: A001 - the public name, as torch.compile / jax's
    source: str | PurePath | ModuleOp,
    target: str = "cpu",
    *,
    entry: str = "main",
    verify: bool = False,
    dump_dir: str | PurePath | None = None,
    keep_ir: bool = True,
    num_threads: int | None = None,
    mode: Literal["fused", "kernel-launch"] = "fused",
    keep_outputs: bool = False,
    cache_dir: str | PurePath | None = None,
) -> Executable | KernelLaunchExecutable:
    """Compiles an MHLO graph for `target` (`cpu`; `cuda` compiles, see below) into an Executable.

    `source`: MHLO text, a path to a `.mlir` file, or a ModuleOp (copied,
    never changed). `entry`: the function to compile (it becomes `@main`).
    `verify`: verify the IR after every pass (slower; the pipeline's tests
    do). `dump_dir`: write the IR after each phase (`NN_<phase>.mlir`), the
    LLVM IR (`module.ll`, `module.opt.ll`) and the constants metadata file
    there. `keep_ir`: keep the IR after each phase for `mlir_after`.
    `num_threads`: CPU kernel-launch threads (None: OMP_NUM_THREADS or the
    number of cores). Raises CompileError when the source is invalid or a
    pass fails.

    Target `cuda` runs the whole GPU pipeline (host LLVM IR plus a PTX /
    cubin blob per kernel module, written to `dump_dir` when given) and runs
    it through the RAL's CUDA driver (`disc_ir.runtime.drivers.cuda`, the
    `cuda` extra); without a GPU, making the Executable raises
    `CudaUnavailableError` ("no CUDA device: ..."). `lower_to_llvm_ir(source,
    "cuda")` gives the host IR and the kernels' PTX on any machine.

    `mode`: `fused` (the pipeline above) or `kernel-launch`: the graph runs
    op by op through OKL, each op a kernel compiled alone and cached by its
    signature (`disc_ir.kernel_launch`; CPU only): the reference executor,
    a per-op profiler (`profile`) and debugger (`keep_outputs=True` keeps
    each op's outputs of the last run).

    `cache_dir` (fused mode; None: `DISC_CACHE_DIR`, unset: no cache): the
    persistent compile cache (`disc_ir.compile_cache`). A hit loads the saved
    artifact instead of compiling (`Executable.cached` is True, no IR is kept,
    `compile_times` holds `cache_load`); a miss compiles and saves it there.
    Not used with `dump_dir`.
    """
    if mode == "kernel-launch":
        from disc_ir.kernel_launch import compile_kernel_launch

        if cache_dir is not None:
            raise CompileError("cache_dir is for the fused mode (kernel-launch caches per op)")

        return compile_kernel_launch(
            source, target, entry=entry, verify=verify, keep_outputs=keep_outputs
        )
    if mode != "fused":
        raise CompileError(f"unknown mode '{mode}' (known: fused, kernel-launch)")
    if target not in TARGETS:
        raise CompileError(f"unknown target '{target}' (known: {', '.join(TARGETS)})")
    t_start = time.perf_counter()
    cache = CompileCache.from_option(cache_dir) if dump_dir is None else None
    key = None
    if cache is not None:
        text = _source_text(source)
        if text is not None:
            key = cache_key(text, target, entry)
            hit = cache.lookup(key, num_threads)
            if hit is not None:
                hit.compile_times = {"cache_load": time.perf_counter() - t_start}
                hit.cached = True
                return hit
    dump = Path(dump_dir) if dump_dir is not None else None
    if dump is not None:
        dump.mkdir(parents=True, exist_ok=True)
    lowered = lower_to_llvm_ir(
        source,
        target,
        entry=entry,
        verify=verify,
        metadata_file=str(dump / METADATA_FILE_NAME) if dump is not None else None,
        keep_ir=keep_ir,
        dump_dir=dump,
        compile_kernels_ahead=True,
    )
    t0 = time.perf_counter()
    jit = HostJit(lowered.llvm_ir, opt_level=3, host_functions=("main",), kernels=lowered.kernels)
    lowered.times["jit"] = time.perf_counter() - t0
    exe = Executable(lowered, jit, num_threads=num_threads)
    # The rest of the wall time: context setup, the garbage collection that
    # ends the lowering, the Executable's RAL context.
    exe.compile_times["other"] = max(
        0.0, time.perf_counter() - t_start - sum(exe.compile_times.values())
    )
    if dump is not None:
        (dump / "module.opt.ll").write_text(exe.optimized_llvm_ir)
    if cache is not None and key is not None:
        try:
            cache.store(key, exe)
        except OSError as exc:
            warnings.warn(
                f"disc-ir: cannot write the compile cache entry in {cache.directory}: {exc}",
                stacklevel=2,
            )
    return exe


def compile_to_artifact(
    source: str | PurePath | ModuleOp,
    path: str | PurePath,
    target: str = "cpu",
    *,
    entry: str = "main",
    target_triple: str | None = None,
    cpu: str | None = None,
    cpu_features: str | None = None,
) -> dict[str, Any]:
    """Compiles `source` and writes the `model.disc` artifact to `path`; returns its manifest.

    Without `target_triple` / `cpu` / `cpu_features` the code is for this host
    (`compile(...).save(path)`). With any of them (CPU target only) it is
    cross-compiled: the LLVM IR is optimized for and emitted as objects of
    that triple (default: this host's), CPU name (default `generic`) and
    feature string (LLVM's `+avx2,+fma` syntax; the loader refuses a CPU
    lacking a `+` feature), without loading it here.
    """
    if target_triple is None and cpu is None and cpu_features is None:
        exe = compile(source, target, entry=entry, keep_ir=False)
        exe.save(path)
        return exe.artifact_manifest()
    if target != "cpu":
        raise CompileError(f"cross compilation is for the cpu target only, not '{target}'")
    import llvmlite
    import llvmlite.binding as llvm_binding

    from disc_ir.backend.objects import emit_objects
    from disc_ir.backend.target import BackendError

    lowered = lower_to_llvm_ir(source, target, entry=entry, keep_ir=False)
    try:
        made = emit_objects(
            lowered.whole_llvm_ir(),
            triple=target_triple or llvm_binding.get_process_triple(),
            cpu=cpu or "generic",
            features=cpu_features or "",
        )
    except BackendError as exc:
        raise CompileError(str(exc)) from None
    manifest = {
        "disc_ir_version": disc_ir_version(),
        "llvmlite_version": llvmlite.__version__,
        "target": target,
        "triple": made.triple,
        "cpu": made.cpu,
        "cpu_features": made.features,
        "gpu_arch": None,
        "exported": made.exported,
        "signature": signature_json(
            lowered.inputs,
            lowered.outputs,
            lowered.constraints,
            lowered.input_placements,
            lowered.output_placements,
        ),
    }
    write_artifact(path, manifest, made.objects, lowered.constants, lowered.gpu_kernels)
    return manifest


def _source_text(source: str | PurePath | ModuleOp) -> str | None:
    """The graph text the compile cache keys `source` by (None: unreadable)."""
    if isinstance(source, ModuleOp):
        return print_module(source)
    if isinstance(source, PurePath) or _looks_like_path(source):
        try:
            return Path(source).read_text(encoding="utf-8")
        except OSError:
            return None  # compiling reports it
    return source


__all__ = [
    "ArgSpec",
    "ArtifactError",
    "CompileError",
    "Executable",
    "LoweredModule",
    "compile",
    "compile_to_artifact",
    "entry_function",
    "entry_signature",
    "load_module",
    "print_module",
    "lower_to_llvm_ir",
    "preload",
    "run_pipeline",
]
