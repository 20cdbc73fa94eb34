"""`disc-assign-kernel-name`: give every GPU kernel a meaningful name.

BladeDISC's AssignKernelNamePass (`disc_assign_kernel_name.cc`), a module
pass without options. After kernel outlining, each `gpu.launch_func` names a
`gpu.func` in a `gpu.module`; the kernel is renamed and the launch updated:

* a launch inside an `lmhlo.fusion` takes the fusion's full name
  (`<disc.fusion.name>[___<disc.fusion.tag>]`), suffixed `_<i>` for the
  `i`-th launch of the fusion, `i > 0`:

      "lmhlo.fusion"() ({
        gpu.launch_func @kernel_module::@the_kernel ...     // -> @kernel_module::@main_kLoop_divide__15_1_0
      }) {disc.fusion.name = "main_kLoop_divide__15_1_0"}

* a launch outside any fusion, the `i`-th in the module, becomes
  `gKernel_<i>_<old kernel name>`.

Launches are processed in program order. A launch whose `gpu.module` or
`gpu.func` does not exist is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import StringAttr, SymbolRefAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from disc_ir.codegen.kernel_names import fusion_full_name, kernel_func
from disc_ir.fusion.pattern import parent_fusion
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

LAUNCH_FUNC = "gpu.launch_func"


def rename_kernel(module: builtin.ModuleOp, launch: Operation, name: str) -> None:
    """Rename the kernel of `launch` to `name` and point `launch` at it
    (`processLaunchFuncOp`)."""
    func = kernel_func(module, launch)
    func.sym_name = StringAttr(name)  # type: ignore[attr-defined]  # a gpu.func / gpu.launch_func, found by op name
    kernel = launch.kernel  # type: ignore[attr-defined]  # a gpu.func / gpu.launch_func, found by op name
    launch.kernel = SymbolRefAttr(kernel.root_reference, [StringAttr(name)])  # type: ignore[attr-defined]  # a gpu.func / gpu.launch_func, found by op name


def assign_kernel_names(module: builtin.ModuleOp) -> None:
    """Name the kernels of every launch in `module`."""
    for fusion in [op for op in preorder_ops(module) if op.name == "lmhlo.fusion"]:
        launches = [op for op in preorder_ops(fusion) if op.name == LAUNCH_FUNC]
        full_name = fusion_full_name(fusion)
        for i, launch in enumerate(launches):
            rename_kernel(module, launch, full_name + (f"_{i}" if i else ""))
    outside = [
        op for op in preorder_ops(module) if op.name == LAUNCH_FUNC and parent_fusion(op) is None
    ]
    for i, launch in enumerate(outside):
        old = launch.kernel.nested_references.data[0].data  # type: ignore[attr-defined]  # a gpu.func / gpu.launch_func, found by op name
        rename_kernel(module, launch, f"gKernel_{i}_{old}")


@register_pass
@dataclass(frozen=True)
class DiscAssignKernelNamePass(ModulePass):
    """Assign a meaningful name for each gpu kernel."""

    name = "disc-assign-kernel-name"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        assign_kernel_names(op)


__all__ = ["DiscAssignKernelNamePass", "assign_kernel_names", "kernel_func", "rename_kernel"]
