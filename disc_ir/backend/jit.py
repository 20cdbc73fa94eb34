"""The ORC JIT of the host backend.

`HostJit` / `compile_to_jit(module)`: ORC LLJIT + JITLink (small code model)
over the optimized module, with `disc_ral_call` bound to the runtime
dispatcher; `function_address(name)` gives the entry point for
`RalContext.execute`. `BackgroundObject` compiles a module to an object on a
worker thread while the interpreter goes on; `_PromptHandoff` shortens the
interpreter's switch interval meanwhile (`WORKER_SWITCH_INTERVAL`), so the GIL
goes back to the worker promptly.
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Collection, Mapping
from typing import Any

import llvmlite.binding as llvm_binding
from xdsl.dialects.builtin import (
    ModuleOp,
)

from disc_ir.backend.optimize import optimize_host_module, optimize_module, optimize_parts
from disc_ir.backend.target import BackendError, host_target_machine, parse_llvm_ir
from disc_ir.backend.translate import module_to_llvm_ir

_JIT_LOCK = threading.Lock()
_LLJIT: Any = None
_JIT_NAMES = itertools.count()


def jit_target_machine(opt_level: int = 3) -> Any:
    """The host target machine `HostJit` generates code with: the small code model,
    position-independent, so constants are addressed RIP-relative and folded into
    vector instructions (MCJIT's large code model needs a `movabs` per constant-pool
    access, which hot loops re-execute when vector registers run out)."""
    return host_target_machine(opt_level, jit=True, reloc="pic", codemodel="default")


#: the interpreter's thread switch interval while LLVM works on a worker
#: thread (seconds; see `_PromptHandoff`)
WORKER_SWITCH_INTERVAL = 0.0002


class _PromptHandoff:
    """Shortens the interpreter's switch interval while LLVM workers run.

    A worker returning from an llvmlite call needs the GIL back before its
    next one, and the thread lowering IR in Python holds it: CPython hands it
    over only after the switch interval (`sys.getswitchinterval()`). Compiling
    the kernels makes a few dozen such calls, so at the default the worker
    spent about as long waiting for the GIL as compiling. The first worker to start sets
    `WORKER_SWITCH_INTERVAL` (when shorter than the current one); the last to
    end restores the interval it found.
    """

    _lock = threading.Lock()
    _active = 0
    _saved: float | None = None

    @classmethod
    def enter(cls) -> None:
        with cls._lock:
            if cls._active == 0:
                current = sys.getswitchinterval()
                if WORKER_SWITCH_INTERVAL < current:
                    cls._saved = current
                    sys.setswitchinterval(WORKER_SWITCH_INTERVAL)
            cls._active += 1

    @classmethod
    def leave(cls) -> None:
        with cls._lock:
            cls._active -= 1
            if cls._active == 0 and cls._saved is not None:
                sys.setswitchinterval(cls._saved)
                cls._saved = None


class BackgroundObject:
    """LLVM IR text optimized at `O<opt_level>` and compiled to an object file
    for this host on a worker thread, started at construction.

    llvmlite calls release the GIL (they serialize on llvmlite's own lock), so
    LLVM works on the kernels while the caller goes on lowering the host code
    in Python; while it runs, the GIL is handed to it promptly between its
    calls (`_PromptHandoff`). `result()` waits for it: (the optimized module,
    the object).
    """

    def __init__(self, text: str, opt_level: int = 3) -> None:
        self.text = text
        self.opt_level = opt_level
        self._module: Any = None
        self._object: bytes | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="disc-ir-llvm", daemon=True)
        _PromptHandoff.enter()
        try:
            self._thread.start()
        except BaseException:
            _PromptHandoff.leave()
            raise

    def _run(self) -> None:
        try:
            machine = jit_target_machine(self.opt_level)
            mod = parse_llvm_ir(self.text)
            optimize_module(mod, machine, self.opt_level)
            self._object = machine.emit_object(mod)
            self._module = mod
        except BaseException as e:  # noqa: BLE001 - re-raised by result()
            self._error = e
        finally:
            _PromptHandoff.leave()

    def wait(self) -> None:
        """Wait for the work to end (e.g. before giving up on its result)."""
        self._thread.join()

    def result(self) -> tuple[Any, bytes]:
        """(the optimized module, its object file); raises what the work raised."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        assert self._object is not None
        return self._module, self._object


class HostJit:
    """An LLVM module optimized for and compiled on this host.

    Code is linked by ORC's LLJIT with JITLink (one process-wide LLJIT, one
    library per module), which places all sections of a module in one block
    and makes GOT/PLT stubs for external symbols, so the small code model is
    safe. `host_functions` (e.g. the entry `main`, host glue code) are optimized
    with a cheap function pipeline, the rest at `O<opt_level>` (`optimize_split`).
    With `kernels` (the kernel functions, compiled on a worker thread while
    their host code was being lowered), `llvm_ir` is the host part only.
    Keep the object alive while its code may run. `disc_ral_call`
    resolves to the runtime's dispatcher, each name of `imports` to its
    address (e.g. the OKL launcher's `okl_llvm_func`); every externally visible function
    defined in the module can be looked up with `function_address`.
    """

    def __init__(
        self,
        llvm_ir: str,
        opt_level: int = 3,
        name: str = "disc_module",
        host_functions: Collection[str] = (),
        kernels: BackgroundObject | None = None,
        imports: Mapping[str, int] | None = None,
    ):
        from disc_ir.runtime.dispatch import DISC_RAL_CALL, register_symbols, symbol_address

        global _LLJIT
        register_symbols()
        with _JIT_LOCK:
            self.target_machine = jit_target_machine(opt_level)
            # Machine code is made one object per part: the host part's
            # straight-line glue with instruction selection at O0 (FastISel),
            # which is linear in its size, where SelectionDAG at O2+ costs
            # seconds on a large graph's entry for no measurable runtime gain.
            if kernels is None:
                parts = optimize_parts(llvm_ir, self.target_machine, opt_level, host_functions)
                objects = [
                    (self.target_machine if i == 0 else jit_target_machine(0)).emit_object(part)
                    for i, part in enumerate(parts)
                ]
            else:
                host = parse_llvm_ir(llvm_ir)
                optimize_host_module(host, self.target_machine)
                host_object = jit_target_machine(0).emit_object(host)
                kernel_module, kernel_object = kernels.result()
                parts, objects = [kernel_module, host], [kernel_object, host_object]
            if _LLJIT is None:
                _LLJIT = llvm_binding.create_lljit_compiler(
                    jit_target_machine(opt_level), use_jit_link=True
                )
            builder = llvm_binding.JITLibraryBuilder()
            for obj in objects:
                builder.add_object_img(obj)
            builder.import_symbol(DISC_RAL_CALL, symbol_address())
            for symbol, address in (imports or {}).items():
                builder.import_symbol(symbol, address)
            builder.add_current_process()
            self._exported = [
                f.name
                for part in parts
                for f in part.functions
                if not f.is_declaration and f.linkage == llvm_binding.Linkage.external
            ]
            for fn in self._exported:
                builder.export_symbol(fn)
            try:
                self._tracker = builder.link(_LLJIT, f"{name}.{next(_JIT_NAMES)}")
            except RuntimeError as e:
                raise BackendError(f"JIT linking failed: {e}") from e
        self._parts = parts
        #: the relocatable object files linked (kernels first when compiled
        #: ahead, then the host part): what `Executable.save` stores
        self.objects: list[bytes] = list(objects)
        self.name = name

    @property
    def exported(self) -> list[str]:
        """The externally visible functions the objects define."""
        return list(self._exported)

    @property
    def module(self) -> Any:
        """The optimized LLVM module (its parts linked into one copy)."""
        if len(self._parts) == 1:
            return self._parts[0]
        linked = parse_llvm_ir(str(self._parts[0]))
        linked.link_in(self._parts[1], preserve=True)
        linked.name = self.name
        return linked

    @property
    def optimized_ir(self) -> str:
        """The optimized LLVM IR the machine code was generated from."""
        return str(self.module)

    def assembly(self) -> str:
        """The host assembly of the module."""
        return self.target_machine.emit_assembly(self.module)

    def function_address(self, name: str) -> int:
        """The address of function `name`; KeyError if it is not defined."""
        if name not in self._exported:
            raise KeyError(f"no function '{name}' in the JIT module")
        address = self._tracker[name]
        if not address:
            raise KeyError(f"no function '{name}' in the JIT module")
        return address


def compile_to_jit(module: ModuleOp, opt_level: int = 3) -> HostJit:
    """Translates an `llvm`-dialect module and JIT-compiles it for this host."""
    return HostJit(module_to_llvm_ir(module), opt_level=opt_level)
