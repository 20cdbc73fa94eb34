"""The OKL launcher: runs a graph kernel by kernel from compiled code (OneFlow's OKL runtime).

A graph lowered to OKL (`disc_ir.kernel_launch`) is a host function
`okl_func(ctx)` that calls `okl_llvm_func(ctx, i)` once per wrapped kernel,
in program order. This module is the other side of that call, as OneFlow's
OKL runtime (`oneflow/ir/oneflow-extension/...okl...`) is:

* a `LauncherState` holds one `LauncherContext` for the graph; the launcher
  context holds, per wrapped kernel, a `CompileTimeWrapperContext` (the op,
  its attributes, its tensor descriptors and its compiled code) built once
  when the state is made, and a `RunTimeWrapperContext` (the compute context
  that runs the kernel, the kernel's state, its cache) built on the kernel's
  first launch and reused by every later launch, whatever the shapes;
* `okl_llvm_func(ctx, index)` is a C function (a ctypes callback, its address
  `okl_llvm_func_address()`, imported into the JIT under that name): `ctx`
  names the launch in flight, whose arguments and result slots the kernel
  reads and writes.

The runtime does not compile: the `KernelCompiler` given to the state turns
a `WrappedKernel` into a factory of `KernelFunction`s (disc-ir compiles the
kernel's single-op graph with its normal pipeline, cached by signature).
A kernel without an op forwards its input (a returned argument).
"""

from __future__ import annotations

import ctypes
import itertools
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np

#: the C name of the launch callback (OneFlow's)
OKL_LLVM_FUNC = "okl_llvm_func"


@dataclass(frozen=True)
class TensorDesc:
    """A tensor of a wrapped kernel: RAL element type code, shape (None: dynamic)."""

    element: str
    shape: tuple[int | None, ...]

    def text(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        return f"tensor<{dims + 'x' if dims else ''}{self.element}>"


@dataclass(frozen=True)
class TensorSource:
    """Where a kernel reads a tensor: launch argument or result slot `index`."""

    kind: Literal["arg", "ret"]
    index: int


@dataclass(frozen=True)
class WrappedKernel:
    """One `okl.wrapper_kernel`, as the runtime needs it (no IR objects).

    `op_name` is empty for a kernel that forwards its one input. `source`
    is the MLIR text of the kernel's single-op graph (`@main` taking
    `inputs`, returning the tensors written to `outputs`, in order).
    """

    index: int
    op_name: str
    attributes: tuple[tuple[str, str], ...]
    inputs: tuple[TensorSource, ...]
    input_descs: tuple[TensorDesc, ...]
    outputs: tuple[int, ...]
    output_descs: tuple[TensorDesc, ...]
    source: str
    location: str = ""

    def label(self) -> str:
        """`'mhlo.add' (kernel #3, input line 7)` for messages."""
        where = f", {self.location}" if self.location else ""
        return f"'{self.op_name or 'forward'}' (kernel #{self.index}{where})"


class KernelFunction(Protocol):
    """A kernel ready to run: checks its inputs, runs on them."""

    def check(self, arrays: Sequence[np.ndarray]) -> None:
        """Raises (RalInputError) unless `arrays` fit the kernel's signature."""
        ...

    def run(self, arrays: Sequence[np.ndarray]) -> Sequence[np.ndarray]:
        """The kernel's outputs for checked `arrays`."""
        ...


#: compiles a kernel (at the compile-time context); the factory makes its compute context
KernelCompiler = Callable[[WrappedKernel], Callable[[], KernelFunction]]


class CompileTimeWrapperContext:
    """What a wrapped kernel is before it runs (OneFlow's `reg_ctx`): the op, its
    attributes, its tensor descriptors, and the compiled kernel's factory."""

    def __init__(self, kernel: WrappedKernel, compiler: KernelCompiler) -> None:
        self.kernel = kernel
        self.op_name = kernel.op_name
        self.attributes = dict(kernel.attributes)
        self.input_descs = kernel.input_descs
        self.output_descs = kernel.output_descs
        self.kernel_factory: Callable[[], KernelFunction] | None = (
            compiler(kernel) if kernel.op_name else None
        )


@dataclass
class KernelState:
    """A kernel's launch statistics (its `OpKernelState`)."""

    launches: int = 0
    seconds: float = 0.0
    last_seconds: float = 0.0


@dataclass
class KernelCache:
    """The input shapes of the kernel's last launch: a launch at the same
    shapes skips the signature check (its `OpKernelCache`)."""

    checked_shapes: tuple[tuple[int, ...], ...] | None = None


class RunTimeWrapperContext:
    """A wrapped kernel ready to run: its compute context (the instantiated
    kernel, or None for a forward), state and cache; built on first launch."""

    def __init__(self, compile_ctx: CompileTimeWrapperContext) -> None:
        self.compile_ctx = compile_ctx
        factory = compile_ctx.kernel_factory
        self.compute_ctx: KernelFunction | None = factory() if factory is not None else None
        self.kernel_state = KernelState()
        self.kernel_cache = KernelCache()

    def launch(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        """Runs the kernel on `inputs`; returns its outputs."""
        start = time.perf_counter()
        if self.compute_ctx is None:
            outputs = [np.array(inputs[0], copy=True)]
        else:
            shapes = tuple(tuple(a.shape) for a in inputs)
            if shapes != self.kernel_cache.checked_shapes:
                self.compute_ctx.check(inputs)
                self.kernel_cache.checked_shapes = shapes
            outputs = list(self.compute_ctx.run(inputs))
        seconds = time.perf_counter() - start
        state = self.kernel_state
        state.launches += 1
        state.seconds += seconds
        state.last_seconds = seconds
        return outputs


@dataclass
class LaunchFrame:
    """One launch in flight: its arguments, result slots, per-kernel times."""

    args: Sequence[np.ndarray]
    rets: list[np.ndarray | None]
    seconds: list[float] = field(default_factory=list)
    kernel_outputs: list[list[np.ndarray]] = field(default_factory=list)
    keep_outputs: bool = False
    error: BaseException | None = None


class LauncherContext:
    """The contexts of a graph's wrapped kernels (OneFlow's `LauncherContext`):
    compile-time ones built here, run-time ones on each kernel's first launch.

    `compile_time_built` / `run_time_built` count the constructions.
    """

    def __init__(self, kernels: Sequence[WrappedKernel], compiler: KernelCompiler) -> None:
        self.compile_time: list[CompileTimeWrapperContext] = []
        for kernel in kernels:
            self.compile_time.append(CompileTimeWrapperContext(kernel, compiler))
        self.compile_time_built = len(self.compile_time)
        self.run_time: list[RunTimeWrapperContext | None] = [None] * len(kernels)
        self.run_time_built = 0
        self._lock = threading.Lock()

    def run_time_context(self, index: int) -> RunTimeWrapperContext:
        """Kernel #`index`'s run-time context, built on first use."""
        ctx = self.run_time[index]
        if ctx is None:
            with self._lock:
                ctx = self.run_time[index]
                if ctx is None:
                    ctx = RunTimeWrapperContext(self.compile_time[index])
                    self.run_time[index] = ctx
                    self.run_time_built += 1
        return ctx

    def launch(self, index: int, frame: LaunchFrame) -> None:
        """Runs kernel #`index` of `frame`'s launch (reads and writes its slots)."""
        kernel = self.compile_time[index].kernel
        inputs: list[np.ndarray] = []
        for source in kernel.inputs:
            value = frame.args[source.index] if source.kind == "arg" else frame.rets[source.index]
            if value is None:
                raise RuntimeError(
                    f"kernel-launch: {kernel.label()} reads result slot {source.index} "
                    "before a kernel wrote it"
                )
            inputs.append(value)
        ctx = self.run_time_context(index)
        outputs = ctx.launch(inputs)
        frame.seconds[index] = ctx.kernel_state.last_seconds
        if frame.keep_outputs:
            frame.kernel_outputs[index] = outputs
        for slot, value in zip(kernel.outputs, outputs, strict=True):
            frame.rets[slot] = value


_FRAMES: dict[int, tuple[LauncherContext, LaunchFrame]] = {}
_HANDLES = itertools.count(1)


def _okl_llvm_func(handle: int | None, index: int) -> None:
    entry = _FRAMES.get(handle or 0)
    if entry is None:
        return
    launcher, frame = entry
    if frame.error is not None:
        return  # an earlier kernel failed: the rest of the launch is skipped
    try:
        launcher.launch(index, frame)
    except BaseException as exc:  # raised by LauncherState.launch after the call
        frame.error = exc


_OKL_LLVM_FUNC_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)
_OKL_LLVM_FUNC_CALLBACK = _OKL_LLVM_FUNC_TYPE(_okl_llvm_func)
_ENTRY_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def okl_llvm_func_address() -> int:
    """The address of `void okl_llvm_func(void* ctx, int64_t index)` (the
    compiled launcher function imports it under `OKL_LLVM_FUNC`)."""
    address = ctypes.cast(_OKL_LLVM_FUNC_CALLBACK, ctypes.c_void_p).value
    assert address is not None
    return address


class LauncherState:
    """Runs a graph lowered to OKL (OneFlow's `LauncherState`).

    `entry_address`: the compiled `void okl_func(void* ctx)`; `kernels`: the
    wrapped kernels in index order; `num_slots`: the result slots (the first
    `num_results` are the graph's results, in order).
    """

    def __init__(
        self,
        entry_address: int,
        kernels: Sequence[WrappedKernel],
        num_results: int,
        num_slots: int,
        compiler: KernelCompiler,
    ) -> None:
        self.kernels = list(kernels)
        self.num_results = num_results
        self.num_slots = num_slots
        self.context = LauncherContext(self.kernels, compiler)
        self._entry = _ENTRY_TYPE(entry_address)

    def launch(self, args: Sequence[np.ndarray], *, keep_outputs: bool = False) -> LaunchFrame:
        """Runs the graph on `args`; the frame holds the results (`rets[:num_results]`),
        each kernel's seconds and, with `keep_outputs`, each kernel's outputs.
        Raises what a kernel raised (the later kernels do not run)."""
        n = len(self.kernels)
        frame = LaunchFrame(
            args,
            [None] * self.num_slots,
            seconds=[0.0] * n,
            kernel_outputs=[[] for _ in range(n)],
            keep_outputs=keep_outputs,
        )
        handle = next(_HANDLES)
        _FRAMES[handle] = (self.context, frame)
        try:
            self._entry(handle)
        finally:
            del _FRAMES[handle]
        if frame.error is not None:
            raise frame.error
        missing = [k for k in range(self.num_results) if frame.rets[k] is None]
        if missing:
            raise RuntimeError(f"kernel-launch: no kernel wrote result(s) {missing}")
        return frame

    def results(self, frame: LaunchFrame) -> tuple[np.ndarray, ...]:
        """The graph's results of a finished launch."""
        out = frame.rets[: self.num_results]
        assert all(v is not None for v in out)
        return tuple(v for v in out if v is not None)


__all__ = [
    "OKL_LLVM_FUNC",
    "CompileTimeWrapperContext",
    "KernelCache",
    "KernelCompiler",
    "KernelFunction",
    "KernelState",
    "LaunchFrame",
    "LauncherContext",
    "LauncherState",
    "RunTimeWrapperContext",
    "TensorDesc",
    "TensorSource",
    "WrappedKernel",
    "okl_llvm_func_address",
]
