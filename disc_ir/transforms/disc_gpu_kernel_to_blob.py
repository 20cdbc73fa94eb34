"""`disc-gpu-kernel-to-blob`: compile each `gpu.module` and attach the binary.

BladeDISC's GpuKernelToBlobPass (disc_gpu_kernel_to_blob.cc). Each
`gpu.module`, already in the llvm dialect (`disc-convert-gpu-to-nvvm`), is
translated to LLVM IR for `nvptx64-nvidia-cuda`, optimized at O3 and emitted
as PTX for `sm_<gpu-sm-cc-major><gpu-sm-cc-minor>` by LLVM's NVPTX backend
(llvmlite), then assembled by `ptxas` into a cubin (`disc_ir/backend/
ptx.py`). The blob is attached to the `gpu.module` as a string
attribute:

* JIT mode: `gpu.binary` (BladeDISC's kGpuBinaryAttrName; option
  `blob-annotation`) -- the cubin for the configured compute capability;
* `multi-cc-support=true`: one attribute per entry of `MULTI_SM_CONFIG`,
  `gpu.binary_<name>`: PTX for the virtual `compute_NN` entries, a cubin for
  the `sm_NN` ones; with `multi-cc-support-dbg-ptx-only=true` only the PTX
  entries. BladeDISC's list (compute_60, sm_70, sm_75, sm_80, sm_86) predates
  CUDA 13, which dropped sm_70 and older, so disc-ir's is compute_75, sm_80,
  sm_86, sm_90.

A blob that is PTX (the virtual entries, or every blob when `ptxas` is not on
PATH or `ptx-only=true`) is NUL-terminated text, as the CUDA driver's
`cuModuleLoadData` expects. disc-ir also keeps the PTX of the configured
compute capability in the `disc.ptx` attribute (for `disc-compile`'s `.ptx`
output and tests); `ptx-only` and `disc.ptx` are disc-ir additions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import BytesAttr, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.backend.ptx import (
    PtxasError,
    assemble_cubin,
    compile_ptx,
    find_ptxas,
    kernel_llvm_ir,
    nvptx_target_machine,
)
from disc_ir.backend.target import BackendError
from disc_ir.passes.registry import register_pass

GPU_BINARY_ATTR = "gpu.binary"
"""BladeDISC's kGpuBinaryAttrName."""
PTX_ATTR = "disc.ptx"
"""The PTX of the configured compute capability (disc-ir)."""

#: name -> (cc major, cc minor, is PTX rather than SASS), BladeDISC's c_MULTI_SM_CONFIG for CUDA 13
MULTI_SM_CONFIG: dict[str, tuple[int, int, bool]] = {
    "compute_75": (7, 5, True),
    "sm_80": (8, 0, False),
    "sm_86": (8, 6, False),
    "sm_90": (9, 0, False),
}


def _symbol(op: Operation) -> str:
    name = op.properties.get("sym_name") or op.attributes.get("sym_name")
    return name.data if isinstance(name, StringAttr) else "?"


def kernel_module_llvm_ir(gpu_module: Operation, cc_major: int, cc_minor: int) -> str:
    """The LLVM IR of one lowered `gpu.module` (its ops are cloned, not moved)."""
    wrapper = builtin.ModuleOp([op.clone() for op in gpu_module.regions[0].blocks[0].ops])
    return kernel_llvm_ir(wrapper, nvptx_target_machine(cc_major, cc_minor))


def gpu_binary_blob(
    llvm_ir: str, cc_major: int, cc_minor: int, ptx_only: bool, ptxas: str | None
) -> tuple[bytes, str]:
    """(blob, ptx) for one compute capability: the cubin, or the PTX when `ptx_only`
    or without ptxas."""
    ptx = compile_ptx(llvm_ir, cc_major, cc_minor)
    if ptx_only or ptxas is None:
        return ptx.encode() + b"\0", ptx
    return assemble_cubin(ptx, f"sm_{cc_major}{cc_minor}", ptxas), ptx


@register_pass
@dataclass(frozen=True)
class GpuKernelToBlobPass(ModulePass):
    """Pass to annotate GPU Module with its PTX"""

    name = "disc-gpu-kernel-to-blob"

    gpu_sm_cc_major: int = 7
    gpu_sm_cc_minor: int = 5
    multi_cc_support: bool = False
    multi_cc_support_dbg_ptx_only: bool = False
    blob_annotation: str = GPU_BINARY_ATTR
    ptx_only: bool = False

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "gpu-sm-cc-major": "gpu sm cc_major.",
        "gpu-sm-cc-minor": "gpu sm cc_minor.",
        "multi-cc-support": "multiple gpu types support in AOT compilation.",
        "multi-cc-support-dbg-ptx-only": "compile to ptx only, only valid with multi-cc-support.",
        "blob-annotation": "Blob attribute name",
        "ptx-only": "attach PTX instead of cubins (disc-ir; also when ptxas is not on PATH)",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        ptxas = find_ptxas()
        for gpu_module in [o for o in op.body.block.ops if o.name == "gpu.module"]:
            try:
                self._compile(gpu_module, ptxas)
            except (BackendError, PtxasError) as err:
                raise DiagnosticException(f"gpu.module @{_symbol(gpu_module)}: {err}") from None

    def _compile(self, gpu_module: Operation, ptxas: str | None) -> None:
        major, minor = self.gpu_sm_cc_major, self.gpu_sm_cc_minor
        llvm_ir = kernel_module_llvm_ir(gpu_module, major, minor)
        if not self.multi_cc_support:
            blob, ptx = gpu_binary_blob(llvm_ir, major, minor, self.ptx_only, ptxas)
            gpu_module.attributes[self.blob_annotation] = BytesAttr(blob)
            gpu_module.attributes[PTX_ATTR] = StringAttr(ptx)
            return
        for name, (cc_major, cc_minor, is_ptx) in MULTI_SM_CONFIG.items():
            if self.multi_cc_support_dbg_ptx_only and not is_ptx:
                continue
            blob, _ = gpu_binary_blob(llvm_ir, cc_major, cc_minor, is_ptx or self.ptx_only, ptxas)
            gpu_module.attributes[f"{GPU_BINARY_ATTR}_{name}"] = BytesAttr(blob)
        gpu_module.attributes[PTX_ATTR] = StringAttr(compile_ptx(llvm_ir, major, minor))


__all__ = [
    "GPU_BINARY_ATTR",
    "MULTI_SM_CONFIG",
    "PTX_ATTR",
    "GpuKernelToBlobPass",
    "gpu_binary_blob",
    "kernel_module_llvm_ir",
]
