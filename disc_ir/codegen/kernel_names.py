"""Kernel names: the name a fusion gives its kernel and the kernel a launch calls.

`fusion_full_name(fusion)` is BladeDISC's `<disc.fusion.name>[___<disc.fusion.tag>]`
(`disc-outline-cpu-kernel`, `disc-assign-kernel-name`); `kernel_func(module,
launch)` finds the `gpu.func` a `gpu.launch_func` calls
(`disc-assign-kernel-name`, `disc-revise-gpu-kernel-outlining`).
"""

from __future__ import annotations

from xdsl.dialects import builtin
from xdsl.dialects.builtin import (
    StringAttr,
    SymbolRefAttr,
)
from xdsl.ir import Operation
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.fusion.pattern import FUSION_NAME_ATTR, FUSION_TAG_ATTR


def kernel_func(module: builtin.ModuleOp, launch: Operation) -> Operation:
    """The `gpu.func` `launch` calls."""
    kernel = launch.kernel  # type: ignore[attr-defined]  # a gpu.launch_func, found by op name
    assert isinstance(kernel, SymbolRefAttr)
    gpu_module = SymbolTable.lookup_symbol(module, kernel.root_reference)
    if gpu_module is None or gpu_module.name != "gpu.module":
        raise DiagnosticException(
            f"'gpu.launch_func' op kernel module '{kernel.root_reference.data}' is undefined"
        )
    if len(kernel.nested_references) != 1:
        raise DiagnosticException("'gpu.launch_func' op expected a @module::@kernel reference")
    leaf = kernel.nested_references.data[0]
    gpu_func = SymbolTable.lookup_symbol(gpu_module, leaf)
    if gpu_func is None or gpu_func.name != "gpu.func":
        raise DiagnosticException(
            f"'gpu.launch_func' op kernel function '{leaf.data}' is undefined in "
            f"'{kernel.root_reference.data}'"
        )
    return gpu_func


def fusion_full_name(fusion: Operation) -> str:
    """`<disc.fusion.name>[___<disc.fusion.tag>]` ("" without a name)."""
    name = fusion.attributes.get(FUSION_NAME_ATTR)
    if not isinstance(name, StringAttr):
        return ""
    tag = fusion.attributes.get(FUSION_TAG_ATTR)
    if isinstance(tag, StringAttr):
        return f"{name.data}___{tag.data}"
    return name.data
