"""The Python side of libdisc_graph_compiler.so: the RFC's C functions as cffi `extern "Python"`s.

`define(ffi)` defines, on the embedding module's `ffi`, the `_disc_gc_*`
functions that the C wrappers of `dnnl_graph_compiler.h` call (their status
results offset by one: see `disc_ir.capi.build`). Handles are cffi handles of
`Compiler` and `GraphExecutable` objects, kept alive here until destroyed.
No exception leaves a function: each failure becomes a `dnnl_status_t` and a
message that `dnnl_graph_compiler_get_last_error` returns on the failing
thread.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from disc_ir.capi.allocator import install_allocator

# dnnl_status_t
SUCCESS = 0
OUT_OF_MEMORY = 1
INVALID_ARGUMENTS = 2
UNIMPLEMENTED = 3
RUNTIME_ERROR = 5
INVALID_GRAPH = 7
INVALID_GRAPH_OP = 8
INVALID_SHAPE = 9
INVALID_DATA_TYPE = 10


class Compiler:
    """What `dnnl_graph_compiler_create` makes: the context's settings."""

    def __init__(self, num_threads: int | None, alloc: Any, dealloc: Any):
        self.num_threads = num_threads
        self.alloc = alloc
        self.dealloc = dealloc
        self.executables: set[int] = set()


class _State:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.objects: dict[int, tuple[Any, Any]] = {}  # address -> (handle, object)
        self.local = threading.local()


_STATE = _State()


def _status_of(err: BaseException) -> int:
    from disc_ir.api import CompileError
    from disc_ir.frontends.onednn_graph import OneDnnGraphError
    from disc_ir.onednn_graph import ExecuteError

    if isinstance(err, MemoryError):
        return OUT_OF_MEMORY
    if isinstance(err, OneDnnGraphError):
        text = str(err)
        if "unknown or unsupported op kind" in text:
            return UNIMPLEMENTED
        if "unsupported dtype" in text:
            return INVALID_DATA_TYPE
        return INVALID_GRAPH_OP if text.startswith("op ") else INVALID_GRAPH
    if isinstance(err, ExecuteError):
        return INVALID_SHAPE if "dim" in str(err) else INVALID_ARGUMENTS
    if isinstance(err, CompileError):
        return UNIMPLEMENTED
    if isinstance(err, (ValueError, TypeError, KeyError)):
        return INVALID_ARGUMENTS
    return RUNTIME_ERROR


def _guard(fn: Callable[..., int]) -> Callable[..., int]:
    """`fn`'s dnnl_status_t plus one (the C wrapper subtracts it), exceptions as statuses."""

    def wrapper(*args: Any) -> int:
        _STATE.local.message = ""
        try:
            return fn(*args) + 1
        except BaseException as err:  # noqa: BLE001 - nothing may cross the C boundary
            _STATE.local.message = f"{type(err).__name__}: {err}"
            return _status_of(err) + 1

    wrapper.__name__ = fn.__name__
    return wrapper


def _fail(status: int, message: str) -> int:
    _STATE.local.message = message
    return status


def _lookup(ffi: Any, pointer: Any, kind: type) -> Any:
    if pointer == ffi.NULL:
        raise ValueError(f"a null {kind.__name__} handle")
    with _STATE.lock:
        entry = _STATE.objects.get(int(ffi.cast("uintptr_t", pointer)))
    if entry is None or not isinstance(entry[1], kind):
        raise ValueError(f"{kind.__name__} handle {pointer} is not live (destroyed or never made)")
    return entry[1]


def _keep(ffi: Any, obj: Any, ctype: str) -> Any:
    handle = ffi.new_handle(obj)
    with _STATE.lock:
        _STATE.objects[int(ffi.cast("uintptr_t", handle))] = (handle, obj)
    return ffi.cast(ctype, handle)


def _drop(ffi: Any, pointer: Any) -> Any:
    with _STATE.lock:
        entry = _STATE.objects.pop(int(ffi.cast("uintptr_t", pointer)), None)
    return None if entry is None else entry[1]


def _tensors(ffi: Any, array: Any, ports: list[int], listed: int, what: str) -> list[Any]:
    """The caller's tensors of `ports`: one entry per distinct port (read until every
    port is found), or as many as the JSON lists when it repeats a port (a repeat
    must have the same dims; the first entry's buffer is read)."""
    from disc_ir.onednn_graph import ExecuteError, TensorArg

    if ports and array == ffi.NULL:
        raise ValueError(f"{what}: a null tensor array for {len(ports)} tensor(s)")
    out: dict[int, Any] = {}
    i = 0
    while len(out) < len(ports) and i < max(listed, len(ports)):
        t = array[i]
        ndims = int(t.ndims)
        if ndims and t.dims == ffi.NULL:
            raise ValueError(f"{what}[{i}] (id {int(t.id)}): null dims for {ndims} dims")
        dims = tuple(int(t.dims[d]) for d in range(ndims))
        arg = TensorArg(int(t.id), dims, int(ffi.cast("uintptr_t", t.data)))
        seen = out.get(arg.id)
        if seen is None:
            out[arg.id] = arg
        elif seen.dims != arg.dims:
            raise ExecuteError(
                f"{what}: tensor {arg.id} is given twice with different dims "
                f"{list(seen.dims)} and {list(arg.dims)}"
            )
        i += 1
    return list(out.values())


def define(ffi: Any) -> None:
    """Defines the C API's functions on the embedding module's `ffi`."""
    from disc_ir.onednn_graph import GraphExecutable
    from disc_ir.onednn_graph import compile as compile_graph

    @ffi.def_extern(error=ffi.NULL)
    def _disc_gc_last_error() -> Any:
        message = getattr(_STATE.local, "message", "") or ""
        buf = ffi.new("char[]", message.encode("utf-8", "replace"))
        _STATE.local.buffer = buf  # valid until the thread's next call
        return buf

    @ffi.def_extern(error=RUNTIME_ERROR + 1)
    @_guard
    def _disc_gc_create(ctx: Any, gc: Any) -> int:
        if gc == ffi.NULL:
            return _fail(INVALID_ARGUMENTS, "dnnl_graph_compiler_create: gc is null")
        gc[0] = ffi.NULL
        num_threads = None
        alloc = dealloc = None
        if ctx != ffi.NULL:
            num_threads = int(ctx.num_threads) or None
            if (ctx.allocator == ffi.NULL) != (ctx.deallocator == ffi.NULL):
                return _fail(
                    INVALID_ARGUMENTS,
                    "dnnl_graph_compiler_create: give both allocator and deallocator, or neither",
                )
            if ctx.allocator != ffi.NULL:
                alloc, dealloc = ctx.allocator, ctx.deallocator
        gc[0] = _keep(ffi, Compiler(num_threads, alloc, dealloc), "struct dnnl_graph_compiler *")
        return SUCCESS

    @ffi.def_extern()
    def _disc_gc_destroy(gc: Any) -> None:
        if gc == ffi.NULL:
            return
        compiler = _drop(ffi, gc)
        if isinstance(compiler, Compiler):
            for address in list(compiler.executables):
                with _STATE.lock:
                    entry = _STATE.objects.pop(address, None)
                if entry is not None:
                    entry[1].close()

    @ffi.def_extern(error=RUNTIME_ERROR + 1)
    @_guard
    def _disc_gc_compile(gc: Any, graph_json: Any, exe: Any) -> int:
        if exe == ffi.NULL:
            return _fail(INVALID_ARGUMENTS, "dnnl_graph_compiler_compile: exe is null")
        exe[0] = ffi.NULL
        compiler = _lookup(ffi, gc, Compiler)
        if graph_json == ffi.NULL:
            return _fail(INVALID_ARGUMENTS, "dnnl_graph_compiler_compile: graph_json is null")
        text = ffi.string(graph_json)  # a copy: nothing keeps the caller's pointer
        compiled = compile_graph(text, num_threads=compiler.num_threads)
        if compiler.alloc is not None:
            install_allocator(ffi, compiled, compiler.alloc, compiler.dealloc)
        handle = _keep(ffi, compiled, "struct dnnl_graph_compiler_executable *")
        compiler.executables.add(int(ffi.cast("uintptr_t", handle)))
        exe[0] = handle
        return SUCCESS

    @ffi.def_extern()
    def _disc_gc_destroy_executable(gc: Any, exe: Any) -> None:
        if exe == ffi.NULL:
            return
        address = int(ffi.cast("uintptr_t", exe))
        if gc != ffi.NULL:
            with _STATE.lock:
                entry = _STATE.objects.get(int(ffi.cast("uintptr_t", gc)))
            if entry is not None and isinstance(entry[1], Compiler):
                entry[1].executables.discard(address)
        compiled = _drop(ffi, exe)
        if isinstance(compiled, GraphExecutable):
            compiled.close()

    @ffi.def_extern(error=RUNTIME_ERROR + 1)
    @_guard
    def _disc_gc_execute(gc: Any, exe: Any, inputs: Any, outputs: Any) -> int:
        _lookup(ffi, gc, Compiler)
        compiled: GraphExecutable = _lookup(ffi, exe, GraphExecutable)
        g = compiled.graph
        ins = _tensors(ffi, inputs, g.input_ports, g.listed_inputs, "inputs")
        outs = _tensors(ffi, outputs, g.output_ports, g.listed_outputs, "outputs")
        compiled.execute_buffers(ins, outs)
        return SUCCESS
