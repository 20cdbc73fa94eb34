"""disc-ir's kernel-launch mode: a graph run op by op through OKL (OneFlow's OKL design).

    exe = disc_ir.compile(text, mode="kernel-launch")
    outs = exe(x, w)                       # any shapes, as the fused mode
    rows = exe.profile(x, w)               # per-op seconds (TVM's debug executor)

The graph is lowered with the OKL passes (`disc_ir.transforms`, OneFlow's
names):

1. `extract-kernel-launch-tensor`, `trim-return-to-void`, `lower-to-okl`:
   `@main` becomes `@okl_func(%ctx: !okl.launcher_ctx)`, a sequence of
   `okl.wrapper_kernel`s, one per HLO op, each reading its tensors from the
   launcher context and writing its results back (phase `okl`);
2. `lower-launcher-to-llvm-ptr`, `lower-okl-to-llvm-call`,
   `reconcile-unrealized-casts`, `convert-func-to-llvm`: the host function
   calls `okl_llvm_func(ctx, i)` per kernel (phase `llvm`), translated to
   LLVM IR and JIT-compiled (`disc_ir.backend.jit.HostJit`), with
   `okl_llvm_func` resolved to the launcher's callback
   (`disc_ir.runtime.okl_launcher`).

Each wrapped kernel becomes a graph of its own (`@main` taking the kernel's
inputs, returning its results), compiled by the fused mode's pipeline once
per process for each distinct text (op name, attributes, operand and result
types with their dynamic dimensions): `kernel_cache_info()`. The launcher
(`disc_ir.runtime.okl_launcher.LauncherState`) gets that compiler injected:
each kernel is compiled when its compile-time context is built (so a kernel
the pipeline cannot compile fails `compile` with a CompileError naming the
op), and instantiated (its own RAL context) on its first launch.

Uses: the reference executor the fused code is checked against (the test
suite runs every e2e graph and zoo model both ways), a per-op profiler and
debugger (`profile`, `keep_outputs`), and a fallback for graphs whose fusion
fails.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any

import numpy as np
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DYNAMIC_INDEX, FunctionType, ModuleOp, TensorType
from xdsl.ir import Block, Operation, Region, SSAValue

from disc_ir.api import (
    ArgSpec,
    CompileError,
    Executable,
    LoweredModule,
    entry_function,
    entry_signature,
    load_module,
    lower_to_llvm_ir,
    print_module,
)
from disc_ir.backend.jit import HostJit
from disc_ir.backend.translate import module_to_llvm_ir
from disc_ir.dialects.okl import (
    GetTensorAsRetOp,
    GetTensorFromArgOp,
    GetTensorFromRetOp,
    WrapperKernelOp,
    op_index,
)
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import source_location
from disc_ir.ir.verify import first_verify_failure
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import get_pass
from disc_ir.rewriting.okl_kernels import (
    CIFACE_PREFIX,
    OKL_FUNC_NAME,
    is_kernel_op,
    launcher_context,
)
from disc_ir.runtime import RalInputError
from disc_ir.runtime.context import check_input, input_label
from disc_ir.runtime.okl_launcher import (
    OKL_LLVM_FUNC,
    KernelFunction,
    LauncherState,
    LaunchFrame,
    TensorDesc,
    TensorSource,
    WrappedKernel,
    okl_llvm_func_address,
)
from disc_ir.runtime.ral_metadata import element_type_code

#: the passes from the graph to OKL, and from OKL to the `llvm` dialect
TO_OKL = ("extract-kernel-launch-tensor", "trim-return-to-void", "lower-to-okl")
OKL_TO_LLVM = (
    "lower-launcher-to-llvm-ptr",
    "lower-okl-to-llvm-call",
    "reconcile-unrealized-casts",
    "convert-func-to-llvm",
)


# ---------------------------------------------------------------------------
# Compiling one wrapped kernel (the compiler the launcher is given)
# ---------------------------------------------------------------------------


@dataclass
class CompiledKernel:
    """A kernel graph compiled by the fused pipeline: its lowering and JIT module."""

    lowered: LoweredModule
    jit: HostJit


_KERNELS: dict[str, CompiledKernel] = {}
_KERNELS_LOCK = threading.Lock()
_CACHE_STATS = {"hits": 0, "misses": 0}


def kernel_cache_info() -> dict[str, int]:
    """The per-op compile cache: `hits`, `misses` (compiles) and `size`."""
    return {**_CACHE_STATS, "size": len(_KERNELS)}


def compile_kernel_source(source: str) -> CompiledKernel:
    """The compiled kernel graph `source` (MLIR text), compiled once per process."""
    with _KERNELS_LOCK:
        compiled = _KERNELS.get(source)
        if compiled is not None:
            _CACHE_STATS["hits"] += 1
            return compiled
    lowered = lower_to_llvm_ir(source, "cpu", keep_ir=False, compile_kernels_ahead=True)
    jit = HostJit(lowered.llvm_ir, opt_level=3, host_functions=("main",), kernels=lowered.kernels)
    compiled = CompiledKernel(lowered, jit)
    with _KERNELS_LOCK:
        _CACHE_STATS["misses"] += 1
        return _KERNELS.setdefault(source, compiled)


class OpKernel(Executable):
    """A compiled kernel graph with its own RAL context: the compute context of
    one wrapped kernel (`disc_ir.runtime.okl_launcher.KernelFunction`)."""

    def check(self, arrays: Sequence[np.ndarray]) -> None:
        """Raises RalInputError unless `arrays` fit the kernel's signature."""
        self.check_inputs(list(arrays))

    def run(self, arrays: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        """The kernel's outputs (inputs already checked)."""
        return self._ral.execute(self._address, list(arrays))


def compile_wrapped_kernel(kernel: WrappedKernel) -> Callable[[], KernelFunction]:
    """Compiles `kernel`'s graph (cached); returns the factory of its compute contexts.

    Raises CompileError naming the op when the pipeline cannot compile it.
    """
    try:
        compiled = compile_kernel_source(kernel.source)
    except CompileError as err:
        raise CompileError(
            f"kernel-launch: {kernel.label()} cannot be compiled as a kernel of its own: {err}"
        ) from None

    def instantiate() -> KernelFunction:
        return OpKernel(compiled.lowered, compiled.jit)

    return instantiate


# ---------------------------------------------------------------------------
# Lowering a graph to OKL and to the launcher's host function
# ---------------------------------------------------------------------------


def _desc(value: SSAValue, what: str) -> TensorDesc:
    spec = _spec(value.type, what)
    return TensorDesc(spec.element, spec.shape)


def _spec(t: Any, what: str) -> ArgSpec:
    if not isinstance(t, TensorType):
        raise CompileError(f"kernel-launch: {what} is not a ranked tensor ({t})")
    code = element_type_code(t.element_type)
    if code is None:
        raise CompileError(f"kernel-launch: {what} has an unsupported element type ({t})")
    return ArgSpec(None, code, tuple(None if d == DYNAMIC_INDEX else d for d in t.get_shape()))


def _attributes(op: Operation) -> tuple[tuple[str, str], ...]:
    items = {**op.properties, **op.attributes}
    return tuple((name, str(value)) for name, value in sorted(items.items()))


def wrapped_kernel(wrapper: WrapperKernelOp, location: str = "") -> WrappedKernel:
    """The runtime's description of `wrapper`, with its single-op graph's text."""
    index = op_index(wrapper)
    region_ops = list(wrapper.body.block.ops)
    reads = [o for o in region_ops if isinstance(o, GetTensorFromArgOp | GetTensorFromRetOp)]
    writes = [o for o in region_ops if isinstance(o, GetTensorAsRetOp)]
    body = [o for o in region_ops if not o.name.startswith("okl.")]
    kernel_op = body[-1] if body else None
    op_name = kernel_op.name if kernel_op is not None else ""
    what = f"kernel #{index} ('{op_name or 'forward'}')"
    block = Block(arg_types=[o.result.type for o in reads])
    mapping: dict[SSAValue, SSAValue] = {
        o.result: a for o, a in zip(reads, block.args, strict=True)
    }
    for op in body:
        clone = op.clone(value_mapper=dict(mapping))
        block.add_op(clone)
        mapping.update(zip(op.results, clone.results, strict=True))
    returned = [mapping[w.tensor] for w in writes]
    block.add_op(func.ReturnOp(*returned))
    graph = func.FuncOp(
        "main",
        FunctionType.from_lists([a.type for a in block.args], [v.type for v in returned]),
        Region(block),
    )
    return WrappedKernel(
        index=index,
        op_name=op_name,
        attributes=_attributes(kernel_op) if kernel_op is not None else (),
        inputs=tuple(
            TensorSource("arg" if isinstance(o, GetTensorFromArgOp) else "ret", op_index(o))
            for o in reads
        ),
        input_descs=tuple(_desc(o.result, f"{what} input") for o in reads),
        outputs=tuple(op_index(w) for w in writes),
        output_descs=tuple(_desc(w.tensor, f"{what} result") for w in writes),
        source=print_module(ModuleOp([graph])) if kernel_op is not None else "",
        location=location,
    )


def _apply(ctx: Context, module: ModuleOp, name: str, verify: bool) -> None:
    cls = get_pass(name)
    assert cls is not None, name
    p = cls()
    try:
        p.apply(ctx, module)
    except Exception as exc:  # a pass's diagnostic: named as the fused pipeline does
        raise CompileError(f"pass '{name}' failed: {str(exc).strip()}") from None
    if verify:
        failure = first_verify_failure(module)
        if failure is not None:
            raise CompileError(
                f"verification failed after pass '{name}': '{failure[0]}' op {failure[1]}"
            )


@dataclass
class OklLowering:
    """A graph lowered for the kernel-launch mode."""

    inputs: list[ArgSpec]
    outputs: list[ArgSpec]
    kernels: list[WrappedKernel]
    #: result slots: the graph's results, then the tensors passed between kernels
    num_slots: int
    #: MLIR text after each phase: `input`, `okl` (wrapped kernels), `llvm`
    phase_ir: dict[str, str]
    llvm_ir: str
    times: dict[str, float] = field(default_factory=dict)


def lower_to_okl(
    source: str | PurePath | ModuleOp, *, entry: str = "main", verify: bool = False
) -> OklLowering:
    """Lowers `source` through the OKL passes to the launcher's LLVM IR."""
    t0 = time.perf_counter()
    ctx = make_context()
    module = load_module(ctx, source)
    failure = first_verify_failure(module)
    if failure is not None:
        raise CompileError(f"invalid input: '{failure[0]}' op {failure[1]}")
    f = entry_function(module, entry)
    others = [
        o.sym_name.data
        for o in module.body.block.ops
        if isinstance(o, func.FuncOp) and o is not f and o.body.blocks
    ]
    if others or any(isinstance(o, func.CallOp) for o in preorder_ops(f)):
        raise CompileError(
            "kernel-launch: only a graph of one function is run op by op "
            f"(functions besides '@{entry}': {', '.join('@' + n for n in others) or 'none'}; "
            "calls are not supported)"
        )
    inputs, outputs = entry_signature(f)
    f.attributes.pop("tf.entry_function", None)
    phase_ir = {"input": print_module(module)}
    for name in TO_OKL[:2]:
        _apply(ctx, module, name, verify)
    # the kernels in the order lower-to-okl wraps them, with where they were parsed
    locations: list[str] = []
    for op in f.body.block.ops:
        if is_kernel_op(op) or _forwards_argument(op):
            loc = source_location(op) if is_kernel_op(op) else None
            locations.append(f"input line {loc[0]}" if loc else "")
    _apply(ctx, module, TO_OKL[2], verify)
    okl_func = next(
        o
        for o in module.body.block.ops
        if isinstance(o, func.FuncOp) and launcher_context(o) is not None
    )
    assert okl_func.sym_name.data == OKL_FUNC_NAME
    wrappers = [o for o in okl_func.body.block.ops if isinstance(o, WrapperKernelOp)]
    kernels = [
        wrapped_kernel(w, locations[i] if i < len(locations) else "")
        for i, w in enumerate(wrappers)
    ]
    slots = [k for kernel in kernels for k in kernel.outputs]
    num_slots = max([*slots, len(outputs) - 1]) + 1
    phase_ir["okl"] = print_module(module)
    for name in OKL_TO_LLVM:
        _apply(ctx, module, name, verify)
    phase_ir["llvm"] = print_module(module)
    llvm_ir = module_to_llvm_ir(module)
    times = {"okl": time.perf_counter() - t0}
    return OklLowering(inputs, outputs, kernels, num_slots, phase_ir, llvm_ir, times)


def _forwards_argument(op: Operation) -> bool:
    """Whether `lower-to-okl` makes `op` a kernel without an op (a returned argument)."""
    if not isinstance(op, GetTensorAsRetOp):
        return False
    owner = op.tensor.owner
    return not (isinstance(owner, Operation) and is_kernel_op(owner))


# ---------------------------------------------------------------------------
# The executable
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class KernelProfile:
    """One kernel of a profiled run: what ran, on what shapes, for how long."""

    index: int
    op_name: str
    location: str
    input_shapes: tuple[tuple[int, ...], ...]
    output_shapes: tuple[tuple[int, ...], ...]
    seconds: float


class KernelLaunchExecutable:
    """A graph compiled for the kernel-launch mode: call it as an `Executable`.

    `profile(*inputs)` runs it once and returns a `KernelProfile` per
    kernel; with `keep_outputs`, `kernel_outputs` holds each kernel's outputs
    of the last run (a debug executor). `launcher` is the runtime state
    (its `context` counts the contexts it built).
    """

    def __init__(self, lowering: OklLowering, *, keep_outputs: bool = False) -> None:
        self._lowering = lowering
        self.inputs = lowering.inputs
        self.outputs = lowering.outputs
        self.kernels = lowering.kernels
        self.keep_outputs = keep_outputs
        self.kernel_outputs: list[tuple[np.ndarray, ...]] = []
        self.compile_times = dict(lowering.times)
        t0 = time.perf_counter()
        self._jit = HostJit(
            lowering.llvm_ir,
            opt_level=0,
            host_functions=(OKL_FUNC_NAME, CIFACE_PREFIX + OKL_FUNC_NAME),
            name="okl_module",
            imports={OKL_LLVM_FUNC: okl_llvm_func_address()},
        )
        self.compile_times["jit"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        self.launcher = LauncherState(
            self._jit.function_address(CIFACE_PREFIX + OKL_FUNC_NAME),
            lowering.kernels,
            len(lowering.outputs),
            lowering.num_slots,
            compile_wrapped_kernel,
        )
        self.compile_times["kernels"] = time.perf_counter() - t0

    @property
    def llvm_ir(self) -> str:
        """The launcher's host LLVM IR (the kernels are compiled separately)."""
        return self._lowering.llvm_ir

    @property
    def phases(self) -> list[str]:
        """The phases `mlir_after` shows: `input`, `okl`, `llvm`."""
        return list(self._lowering.phase_ir)

    def mlir_after(self, phase: str) -> str:
        """The MLIR text of the module after `phase` (see `phases`)."""
        if phase not in self._lowering.phase_ir:
            raise KeyError(f"no IR kept for phase '{phase}' (phases: {', '.join(self.phases)})")
        return self._lowering.phase_ir[phase]

    @property
    def compile_seconds(self) -> float:
        """Total compile time (the kernels included)."""
        return sum(self.compile_times.values())

    def __repr__(self) -> str:
        ins = ", ".join(f"{a.name or '_'}: {a.type_text()}" for a in self.inputs)
        outs = ", ".join(a.type_text() for a in self.outputs)
        return f"<disc_ir.KernelLaunchExecutable ({ins}) -> ({outs}), {len(self.kernels)} kernels>"

    def check_inputs(self, arrays: list[np.ndarray]) -> None:
        """Raises RalInputError unless `arrays` fit the graph's signature (count,
        element type, rank, static dimensions; each kernel checks the rest)."""
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

    def _launch(self, arrays: Sequence[Any], keep: bool) -> LaunchFrame:
        values = [np.asarray(a) for a in arrays]
        self.check_inputs(values)
        frame = self.launcher.launch(values, keep_outputs=keep)
        if keep:
            self.kernel_outputs = [tuple(o) for o in frame.kernel_outputs]
        return frame

    def __call__(self, *arrays: Any) -> tuple[np.ndarray, ...]:
        frame = self._launch(arrays, self.keep_outputs)
        return self.launcher.results(frame)

    def profile(self, *arrays: Any) -> list[KernelProfile]:
        """Runs the graph once; one row per kernel, in launch order."""
        frame = self._launch(arrays, True)
        rows = []
        for kernel, outs, seconds in zip(
            self.kernels, frame.kernel_outputs, frame.seconds, strict=True
        ):
            ins = tuple(_input_shape(frame, s) for s in kernel.inputs)
            rows.append(
                KernelProfile(
                    kernel.index,
                    kernel.op_name or "forward",
                    kernel.location,
                    ins,
                    tuple(tuple(o.shape) for o in outs),
                    seconds,
                )
            )
        return rows

    def close(self) -> None:
        """Releases the kernels' RAL contexts."""
        for ctx in self.launcher.context.run_time:
            if ctx is not None and isinstance(ctx.compute_ctx, Executable):
                ctx.compute_ctx.close()

    def __enter__(self) -> KernelLaunchExecutable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _input_shape(frame: LaunchFrame, source: TensorSource) -> tuple[int, ...]:
    value = frame.args[source.index] if source.kind == "arg" else frame.rets[source.index]
    assert value is not None
    return tuple(value.shape)


def compile_kernel_launch(
    source: str | PurePath | ModuleOp,
    target: str = "cpu",
    *,
    entry: str = "main",
    verify: bool = False,
    keep_outputs: bool = False,
) -> KernelLaunchExecutable:
    """Compiles `source` for the kernel-launch mode (`disc_ir.compile(..., mode="kernel-launch")`).

    CPU only; raises CompileError when the graph cannot be lowered or one of
    its kernels cannot be compiled (the message names the op).
    """
    if target != "cpu":
        raise CompileError(f"kernel-launch mode runs on the cpu target only, not '{target}'")
    return KernelLaunchExecutable(
        lower_to_okl(source, entry=entry, verify=verify), keep_outputs=keep_outputs
    )


__all__ = [
    "OKL_TO_LLVM",
    "TO_OKL",
    "CompiledKernel",
    "KernelLaunchExecutable",
    "KernelProfile",
    "OklLowering",
    "OpKernel",
    "compile_kernel_launch",
    "compile_kernel_source",
    "compile_wrapped_kernel",
    "kernel_cache_info",
    "lower_to_okl",
    "wrapped_kernel",
]
