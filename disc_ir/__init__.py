"""disc-ir: a dynamic-shape tensor compiler on xDSL, re-creating BladeDISC.

`disc_ir.compile(source, target="cpu")` compiles an MHLO graph into an
`Executable` (see `disc_ir.api`); `disc_ir.lower_to_llvm_ir(source, target)`
stops before the JIT (host LLVM IR, and the kernels' PTX for `cuda`). It is imported lazily, so importing
`disc_ir.runtime` (what runs compiled code) does not import xDSL.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from disc_ir.api import (  # noqa: A004
        CompileError,
        Executable,
        LoweredModule,
        compile,
        lower_to_llvm_ir,
        preload,
    )

_LAZY = {"compile", "Executable", "CompileError", "LoweredModule", "lower_to_llvm_ir", "preload"}

__all__ = [
    "CompileError",
    "Executable",
    "LoweredModule",
    "compile",
    "lower_to_llvm_ir",
    "preload",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from disc_ir import api

        return getattr(api, name)
    raise AttributeError(f"module 'disc_ir' has no attribute '{name}'")
