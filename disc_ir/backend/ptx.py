"""The device backend: a kernel module in the llvm dialect -> LLVM IR -> PTX -> cubin.

* `kernel_llvm_ir(module)`: LLVM IR text for `nvptx64-nvidia-cuda`, through
  the host backend's llvm-dialect translation (`disc_ir.backend.translate.module_to_llvm_ir`)
  with the NVPTX triple and data layout; functions carrying `nvvm.kernel`
  are given the `ptx_kernel` calling convention (the NVPTX backend emits
  them as `.entry`).
* `compile_ptx(llvm_ir, cc_major, cc_minor)`: LLVM's `O3` pipeline for the
  NVPTX target machine `sm_<major><minor>` (llvmlite), then its assembly:
  PTX text.
* `assemble_cubin(ptx, arch)`: `ptxas -arch=<arch>` on the PTX (`find_ptxas()`
  locates it on PATH; `PtxasError` carries ptxas' message).

No CUDA driver or GPU is needed for any of these.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import threading
from typing import Any

import llvmlite.binding as llvm_binding
from xdsl.dialects import llvm
from xdsl.dialects.builtin import ModuleOp

from disc_ir import config
from disc_ir.backend.optimize import optimize_module
from disc_ir.backend.target import BackendError
from disc_ir.backend.translate import module_to_llvm_ir

NVPTX_TRIPLE = "nvptx64-nvidia-cuda"
KERNEL_ATTR = "nvvm.kernel"

_INIT_LOCK = threading.Lock()
_INITIALIZED = False


class PtxasError(RuntimeError):
    """ptxas rejected a PTX module (message: its diagnostics)."""


def _initialize() -> None:
    global _INITIALIZED
    with _INIT_LOCK:
        if not _INITIALIZED:
            llvm_binding.initialize_all_targets()
            llvm_binding.initialize_all_asmprinters()
            _INITIALIZED = True


def ptx_isa_feature(cc_major: int, cc_minor: int) -> str:
    """The PTX ISA version LLVM should emit for `sm_<major><minor>` (as `+ptxNN`)."""
    cc = cc_major * 10 + cc_minor
    if cc >= 120:
        return "+ptx87"
    if cc >= 100:
        return "+ptx86"
    return "+ptx80"


def nvptx_target_machine(cc_major: int, cc_minor: int, opt_level: int = 3) -> Any:
    """An NVPTX target machine for `sm_<major><minor>`."""
    if cc_major < 5 or cc_minor < 0:
        raise BackendError(f"unsupported CUDA compute capability {cc_major}.{cc_minor}")
    _initialize()
    target = llvm_binding.Target.from_triple(NVPTX_TRIPLE)
    return target.create_target_machine(
        cpu=f"sm_{cc_major}{cc_minor}",
        features=ptx_isa_feature(cc_major, cc_minor),
        opt=opt_level,
    )


def kernel_llvm_ir(module: ModuleOp, target_machine: Any | None = None) -> str:
    """LLVM IR text of a kernel module (only `llvm.func` / `llvm.mlir.global` ops)."""
    tm = target_machine or nvptx_target_machine(8, 0)
    text = module_to_llvm_ir(module, tm)
    text = re.sub(r'^target triple = ".*"$', f'target triple = "{NVPTX_TRIPLE}"', text, flags=re.M)
    for op in module.ops:
        if isinstance(op, llvm.FuncOp) and KERNEL_ATTR in op.attributes and op.body.blocks:
            name = re.escape(op.sym_name.data)
            text, count = re.subn(
                rf'^define (.*?)void @"?{name}"?\(',
                lambda m: m.group(0).replace("define ", "define ptx_kernel ", 1),  # type: ignore[arg-type]  # mypy picks the bytes overload for the lambda; `text` is str
                text,
                count=1,
                flags=re.M,
            )
            if count != 1:
                raise BackendError(f"kernel '{op.sym_name.data}' not found in the LLVM IR")
    return text


def compile_ptx(llvm_ir: str, cc_major: int = 8, cc_minor: int = 0, opt_level: int = 3) -> str:
    """PTX for `sm_<major><minor>` from kernel LLVM IR (BackendError if LLVM rejects it)."""
    tm = nvptx_target_machine(cc_major, cc_minor, opt_level)
    try:
        mod = llvm_binding.parse_assembly(llvm_ir)
        mod.triple = NVPTX_TRIPLE
        mod.data_layout = str(tm.target_data)
        mod.verify()
    except RuntimeError as e:
        raise BackendError(f"invalid kernel LLVM IR: {e}") from e
    optimize_module(mod, tm, opt_level, loop_unrolling=True)
    return tm.emit_assembly(mod)


def find_ptxas() -> str | None:
    """The path of `ptxas` on PATH (or `$DISC_PTXAS`), None if there is none."""
    explicit = config.get_str("DISC_PTXAS")
    if explicit:
        return explicit if os.path.exists(explicit) else None
    return shutil.which("ptxas")


def assemble_cubin(ptx: str, arch: str, ptxas: str | None = None, opt_level: int = 3) -> bytes:
    """The cubin `ptxas -arch=<arch>` makes of `ptx` (`arch` like `sm_80`)."""
    tool = ptxas or find_ptxas()
    if tool is None:
        raise PtxasError("ptxas not found on PATH")
    with tempfile.TemporaryDirectory(prefix="disc_ptx_") as tmp:
        src = os.path.join(tmp, "kernel.ptx")
        out = os.path.join(tmp, "kernel.cubin")
        with open(src, "w", encoding="utf-8") as f:
            f.write(ptx)
        proc = subprocess.run(
            [tool, f"-arch={arch}", f"-O{opt_level}", "-o", out, src],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise PtxasError(f"ptxas -arch={arch} failed: {proc.stderr.strip() or proc.stdout}")
        with open(out, "rb") as f:
            return f.read()


__all__ = [
    "NVPTX_TRIPLE",
    "PtxasError",
    "assemble_cubin",
    "compile_ptx",
    "find_ptxas",
    "kernel_llvm_ir",
    "nvptx_target_machine",
    "ptx_isa_feature",
]
