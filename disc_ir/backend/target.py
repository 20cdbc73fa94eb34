"""The LLVM host target and LLVM IR parsing shared by the backends.

`host_target_machine()` is an llvmlite target machine for this host (its
triple, CPU name and features; LLVM's native target initialized once);
`parse_llvm_ir(text)` parses and verifies LLVM IR text, `link_llvm_ir` links
two modules; both raise `BackendError` with LLVM's message.
"""

from __future__ import annotations

import threading
from typing import Any

import llvmlite.binding as llvm_binding

_INIT_LOCK = threading.Lock()
_INITIALIZED = False


class BackendError(RuntimeError):
    """LLVM rejected the generated module (parse or verification error)."""


def _initialize() -> None:
    global _INITIALIZED
    with _INIT_LOCK:
        if not _INITIALIZED:
            llvm_binding.initialize_native_target()
            llvm_binding.initialize_native_asmprinter()
            _INITIALIZED = True


def host_target_machine(
    opt_level: int = 3, jit: bool = True, reloc: str = "default", codemodel: str | None = None
) -> Any:
    """A target machine for this host: its triple, CPU name and CPU features."""
    _initialize()
    target = llvm_binding.Target.from_default_triple()
    return target.create_target_machine(
        cpu=llvm_binding.get_host_cpu_name(),
        features=llvm_binding.get_host_cpu_features().flatten(),
        opt=opt_level,
        jit=jit,
        reloc=reloc,
        codemodel=codemodel or ("jitdefault" if jit else "default"),
    )


def parse_llvm_ir(text: str) -> Any:
    """Parses and verifies LLVM IR text (BackendError with LLVM's message)."""
    _initialize()
    try:
        mod = llvm_binding.parse_assembly(text)
        mod.verify()
    except RuntimeError as e:
        raise BackendError(f"invalid LLVM IR: {e}") from e
    return mod


def link_llvm_ir(first: str, second: str) -> str:
    """The LLVM IR texts `first` and `second` (modules declaring what the other
    defines) linked into one module's text."""
    linked = parse_llvm_ir(first)
    linked.link_in(parse_llvm_ir(second))
    return str(linked)
