"""Relocatable object files for a chosen CPU target (cross compilation of artifacts).

`emit_objects(llvm_ir, triple=..., cpu=..., features=...)` optimizes the
host module's LLVM IR for that target (the kernels at `O<opt_level>`, the
host functions with the cheap pipeline, as `HostJit` does for this host) and
emits one relocatable object per part, position-independent with the small
code model: what a `model.disc` artifact stores and
`disc_ir.runtime.load` links on a machine of that target.
"""

from __future__ import annotations

import threading
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import llvmlite.binding as llvm_binding

from disc_ir.backend.optimize import optimize_parts
from disc_ir.backend.target import BackendError, parse_llvm_ir

_INIT_LOCK = threading.Lock()
_ALL_TARGETS = False


@dataclass(frozen=True)
class TargetObjects:
    """Objects for one target: the machine facts an artifact's manifest records."""

    objects: list[bytes]
    exported: list[str]
    triple: str
    cpu: str
    features: str


def _initialize_all() -> None:
    global _ALL_TARGETS
    with _INIT_LOCK:
        if not _ALL_TARGETS:
            llvm_binding.initialize_all_targets()
            llvm_binding.initialize_all_asmprinters()
            _ALL_TARGETS = True


def target_machine(triple: str, cpu: str, features: str, opt_level: int) -> Any:
    """An llvmlite target machine for `triple` / `cpu` / `features` (PIC, small
    code model); BackendError when LLVM does not know the triple."""
    _initialize_all()
    try:
        target = llvm_binding.Target.from_triple(triple)
    except RuntimeError as exc:
        raise BackendError(f"unknown target triple '{triple}': {exc}") from None
    return target.create_target_machine(
        cpu=cpu, features=features, opt=opt_level, reloc="pic", codemodel="default"
    )


def emit_objects(
    llvm_ir: str,
    *,
    triple: str,
    cpu: str = "generic",
    features: str = "",
    opt_level: int = 3,
    host_functions: Collection[str] = ("main",),
) -> TargetObjects:
    """`llvm_ir` (the whole host module) as relocatable objects for the target."""
    machine = target_machine(triple, cpu, features, opt_level)
    mod = parse_llvm_ir(llvm_ir)
    mod.triple = triple
    mod.data_layout = str(machine.target_data)
    parts = optimize_parts(str(mod), machine, opt_level, host_functions)
    glue = target_machine(triple, cpu, features, 0)
    objects = [(machine if i == 0 else glue).emit_object(part) for i, part in enumerate(parts)]
    exported = [
        f.name
        for part in parts
        for f in part.functions
        if not f.is_declaration and f.linkage == llvm_binding.Linkage.external
    ]
    return TargetObjects(objects, exported, triple, cpu, features)


__all__ = ["TargetObjects", "emit_objects", "target_machine"]
