"""The native fast path of ``disc_ral_call``: CPU kernel launches without Python.

A small LLVM IR module, JIT-compiled once per process with llvmlite, defines

* ``disc_rt_dispatch(void* ctx, const char* name, void** args)``: the function
  the ``disc_ral_call`` symbol resolves to. It runs
  ``ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void``
  natively when the execution context allows it (see below) and passes every
  other call, and every launch it cannot handle (bad bounds, a null kernel), to
  the Python dispatcher (:mod:`disc_ir.runtime.dispatch`), so the RAL ABI and
  the Python registry are unchanged. It also answers CPU ``ral_const`` calls
  from the RAL context's constants table (``const_table`` word, see
  ``CONST_ENTRY_WORDS``) once the Python entry has loaded that constant and
  filled its ``unique_index`` slot: every later call skips Python.
* a parallel-for over a process-wide pool of pthreads (created through libc,
  detached, blocked on a condition variable between launches): with ``parts``
  threads taking part (at most ``num_threads``), the index space
  ``[lb, ub) / step`` is split along one dimension (the first whose trip count
  reaches ``parts``, as BladeDISC's ``LoopParallelAssigner`` prefers outer
  dimensions) into up to ``CHUNKS_PER_THREAD * parts`` contiguous chunks, which
  the calling thread and the woken workers claim one at a time (a
  compare-and-swap on a word holding the job's generation and the next chunk)
  until none is left; the caller then waits for the chunks others claimed. On a
  shared machine a worker the OS does not schedule soon so costs at most the
  chunk it claimed, not a fixed share of the launch. Launches from several
  threads at once never wait on each other: a launch that finds the pool busy
  runs the whole index space on its own thread.

The execution-context handle compiled code receives is the address of a
``NativeContext`` record (seven 64-bit words): ``magic``, ``error`` (nonzero once
the call signalled an error: launches are then skipped, as the Python
dispatcher skips ``skip_on_error`` entries), ``fast_launch`` (nonzero: the
RAL context's registry has the stock CPU launch entry), ``num_threads``,
``min_units_per_core`` (``DISC_MIN_NUM_UNIT_PER_CORE``), ``const_table``
(the address of the CPU driver's constants table, or 0) and ``fast_assert``
(nonzero: the registry has the stock CPU ``ral_shape_assertion``; holding
assertions then return without Python). A handle without the
magic word goes to the Python dispatcher.

The module's LLVM IR is the package resource ``native_dispatch.ll``, a template
whose ``{{NAME}}`` placeholders take the constants below (`native_module_ir`).

If the module cannot be built (no pthreads in the process), ``disc_ral_call``
stays the Python callback and everything works as before, only slower.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import importlib.resources
import os
import re
import threading
from typing import Any

from disc_ir import config

#: ``NativeContext`` words.
MAGIC = 0x4449534352414C31  # "DISCRAL1"
WORD_MAGIC = 0
WORD_ERROR = 1
WORD_FAST_LAUNCH = 2
WORD_NUM_THREADS = 3
WORD_MIN_UNITS = 4
WORD_CONST_TABLE = 5
WORD_FAST_ASSERT = 6
NATIVE_CONTEXT_WORDS = 7

CPU_LAUNCH_NAME = (
    "ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void"
)

CPU_SHAPE_ASSERTION_NAME = "ral_shape_assertion___cpu___pvoid_pvoid_m0di1_m1di64_pvoid___void"

MAX_LAUNCH_RANK = 8

#: Prefix of the CPU ``ral_const`` entry names the native dispatcher answers.
CPU_CONST_PREFIX = "ral_const___cpu___"
#: Constants table: word 0 the capacity, then one entry per ``unique_index``:
#: the ``unique_name`` address it was filled for (0: empty), the rank, and the
#: memref descriptor ``{allocated, aligned, offset, sizes[rank], strides[rank]}``.
CONST_ENTRY_WORDS = 2 + 3 + 2 * MAX_LAUNCH_RANK
#: chunks per thread of a pooled launch (claimed dynamically, see the module docstring)
CHUNKS_PER_THREAD = 4
MAX_WORKERS = 255

NativeContext = ctypes.c_int64 * NATIVE_CONTEXT_WORDS

_LIBC_SYMBOLS = (
    "pthread_create",
    "pthread_detach",
    "pthread_mutex_init",
    "pthread_mutex_lock",
    "pthread_mutex_trylock",
    "pthread_mutex_unlock",
    "pthread_cond_init",
    "pthread_cond_wait",
    "pthread_cond_broadcast",
)


#: The resource holding the module's LLVM IR template (see `native_module_ir`).
IR_RESOURCE = "native_dispatch.ll"

_PLACEHOLDER = re.compile(r"\{\{([A-Za-z0-9_]+)\}\}")


def llvm_c_string(data: bytes) -> str:
    """``data`` as the body of an LLVM ``c"..."`` constant: printable ASCII as is,
    except ``"`` and ``\\``, every other byte as ``\\XX``."""
    return "".join(chr(c) if 32 <= c < 127 and c not in (34, 92) else f"\\{c:02X}" for c in data)


def substitute_placeholders(template: str, values: dict[str, str]) -> str:
    """``template`` with each ``{{NAME}}`` replaced by ``values[NAME]``.

    Strict: a placeholder without a value, a value no placeholder uses, or a
    ``{{`` left over after the substitution raises ValueError.
    """
    used: set[str] = set()

    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise ValueError(f"{IR_RESOURCE}: no value for the placeholder {{{{{name}}}}}")
        used.add(name)
        return values[name]

    text = _PLACEHOLDER.sub(value_of, template)
    unused = sorted(set(values) - used)
    if unused:
        raise ValueError(f"{IR_RESOURCE}: values for no placeholder: {', '.join(unused)}")
    if "{{" in text:
        line = text[: text.index("{{")].count("\n") + 1
        raise ValueError(f"{IR_RESOURCE}: a malformed placeholder at line {line} of the output")
    return text


def ir_placeholder_values() -> dict[str, str]:
    """The value of each placeholder of the IR template (the constants above)."""
    launch_name = CPU_LAUNCH_NAME.encode() + b"\0"
    const_prefix = CPU_CONST_PREFIX.encode()
    assert_name = CPU_SHAPE_ASSERTION_NAME.encode() + b"\0"
    return {
        "LAUNCH_NAME": llvm_c_string(launch_name),
        "LAUNCH_NAME_BYTES": str(len(launch_name)),
        "CONST_PREFIX": llvm_c_string(const_prefix),
        "CONST_PREFIX_BYTES": str(len(const_prefix)),
        "ASSERT_NAME": llvm_c_string(assert_name),
        "ASSERT_NAME_BYTES": str(len(assert_name)),
        "MAX_WORKERS": str(MAX_WORKERS),
        "START_GEN_SLOTS": str(MAX_WORKERS + 1),
        "CHUNKS_PER_THREAD": str(CHUNKS_PER_THREAD),
        "CONST_ENTRY_WORDS": str(CONST_ENTRY_WORDS),
        "MAGIC": str(MAGIC),
        "WORD_ERROR": str(WORD_ERROR),
        "WORD_FAST_LAUNCH": str(WORD_FAST_LAUNCH),
        "WORD_NUM_THREADS": str(WORD_NUM_THREADS),
        "WORD_MIN_UNITS": str(WORD_MIN_UNITS),
        "WORD_CONST_TABLE": str(WORD_CONST_TABLE),
        "WORD_FAST_ASSERT": str(WORD_FAST_ASSERT),
    }


def ir_template() -> str:
    """The IR template: the package resource `IR_RESOURCE` without its leading
    ``;;`` header lines."""
    resource = importlib.resources.files("disc_ir.runtime").joinpath(IR_RESOURCE)
    text = resource.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    header = 0
    while header < len(lines) and lines[header].startswith(";;"):
        header += 1
    return "".join(lines[header:])


@functools.cache
def native_module_ir() -> str:
    """The LLVM IR of the native runtime module."""
    return substitute_placeholders(ir_template(), ir_placeholder_values())


def _optimized_native_module() -> tuple[Any, Any]:
    """(the native runtime module optimized at O2, its target machine: this host's
    triple, generic CPU)."""
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(native_module_ir())
    module.name = "disc_ral_native"
    module.verify()
    target = llvm.Target.from_default_triple()
    machine = target.create_target_machine(opt=2, jit=True)
    pto = llvm.create_pipeline_tuning_options(speed_level=2)
    pb = llvm.create_pass_builder(machine, pto)
    pb.getModulePassManager().run(module, pb)
    return module, machine


@functools.cache
def native_ir_digest() -> str:
    """SHA-256 of the native runtime's LLVM IR: a saved object of it is used only
    by a runtime whose IR has this digest."""
    return hashlib.sha256(native_module_ir().encode()).hexdigest()


@functools.cache
def native_object() -> bytes:
    """The native runtime compiled to an object file (for this host's triple, a
    generic CPU): what a saved artifact carries so that loading it does not run
    LLVM (see ``NativeRuntime``'s ``object_file``)."""
    module, machine = _optimized_native_module()
    return bytes(machine.emit_object(module))


class NativeRuntime:
    """The JIT-compiled native runtime; one per process (see :func:`native_runtime`).

    ``object_file``: the module already compiled (``native_object()`` of a
    runtime with the same ``native_ir_digest()``); MCJIT then only links it.
    """

    def __init__(self, python_dispatch_address: int, object_file: bytes | None = None):
        import llvmlite.binding as llvm

        libc = ctypes.CDLL(None)
        for sym in _LIBC_SYMBOLS:
            address = ctypes.cast(getattr(libc, sym), ctypes.c_void_p).value
            if not address:
                raise OSError(f"no {sym} in this process")
            llvm.add_symbol(f"disc_rt_libc_{sym}", address)
        if object_file is None:
            module, self._target_machine = _optimized_native_module()
            self._engine = llvm.create_mcjit_compiler(module, self._target_machine)
        else:
            llvm.initialize_native_target()
            llvm.initialize_native_asmprinter()
            module = llvm.parse_assembly("")
            module.name = "disc_ral_native_object"
            target = llvm.Target.from_default_triple()
            self._target_machine = target.create_target_machine(opt=2, jit=True)
            self._engine = llvm.create_mcjit_compiler(module, self._target_machine)
            self._engine.add_object_file(llvm.ObjectFileRef.from_data(object_file))
        self._engine.finalize_object()
        self._module = module
        #: True when built from a saved object file (no LLVM compile in this process)
        self.from_object = object_file is not None
        ctypes.c_void_p.from_address(
            self._engine.get_global_value_address("disc_rt_python_dispatch")
        ).value = python_dispatch_address
        init = ctypes.CFUNCTYPE(ctypes.c_int32)(self._engine.get_function_address("disc_rt_init"))
        if init() != 0:
            raise OSError("pthread mutex/condition initialization failed")
        self._start = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64)(
            self._engine.get_function_address("disc_rt_start_workers")
        )
        self._after_fork = ctypes.CFUNCTYPE(ctypes.c_int32)(
            self._engine.get_function_address("disc_rt_after_fork")
        )
        self.dispatch_address: int = self._engine.get_function_address("disc_rt_dispatch")
        self._lock = threading.Lock()
        self.num_workers = 0
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=self._reset_after_fork)

    def _reset_after_fork(self) -> None:
        """The child of a fork has no pool threads: start from none (grown again on use)."""
        self._lock = threading.Lock()
        self.num_workers = 0
        self._after_fork()

    def ensure_workers(self, count: int) -> int:
        """Grows the worker pool to ``count`` threads (besides the caller); returns its size."""
        count = min(count, MAX_WORKERS)
        if count <= self.num_workers:
            return self.num_workers
        with self._lock:
            if count > self.num_workers:
                self.num_workers = int(self._start(count))
            return self.num_workers


_RUNTIME: NativeRuntime | None = None
_RUNTIME_ERROR: BaseException | None = None
_RUNTIME_LOCK = threading.Lock()


def native_runtime(
    python_dispatch_address: int | None = None, object_file: bytes | None = None
) -> NativeRuntime | None:
    """The process's native runtime, built on first use (None if it cannot be built).

    ``python_dispatch_address``: the C-callable Python dispatcher calls the native
    code cannot handle go to (needed on the first call only). ``object_file``:
    the runtime already compiled (first call only; see ``NativeRuntime``).
    """
    global _RUNTIME, _RUNTIME_ERROR
    if _RUNTIME is not None or _RUNTIME_ERROR is not None:
        return _RUNTIME
    with _RUNTIME_LOCK:
        if _RUNTIME is None and _RUNTIME_ERROR is None:
            if python_dispatch_address is None:
                from disc_ir.runtime.dispatch import DISC_RAL_CALL_ADDRESS

                python_dispatch_address = DISC_RAL_CALL_ADDRESS
            try:
                if object_file is not None:
                    try:
                        _RUNTIME = NativeRuntime(python_dispatch_address, object_file)
                    except (OSError, RuntimeError):
                        _RUNTIME = None  # compiled here below instead
                if _RUNTIME is None:
                    _RUNTIME = NativeRuntime(python_dispatch_address)
            except (OSError, RuntimeError, AttributeError) as err:
                _RUNTIME_ERROR = err
        return _RUNTIME


def new_native_context() -> Any:
    """A fresh ``NativeContext`` record (fast launch off until a driver enables it)."""
    return NativeContext(*_NEW_CONTEXT_WORDS)


_NEW_CONTEXT_WORDS = [0] * NATIVE_CONTEXT_WORDS
_NEW_CONTEXT_WORDS[WORD_MAGIC] = MAGIC
_NEW_CONTEXT_WORDS[WORD_NUM_THREADS] = 1
_NEW_CONTEXT_WORDS[WORD_MIN_UNITS] = 1


def native_enabled() -> bool:
    """False when ``DISC_RAL_NATIVE=0`` asks for the pure-Python dispatcher."""
    return config.flag("DISC_RAL_NATIVE")
