"""CPU kernels lowered to LLVM ahead of their host code, for LLVM to compile
them on a worker thread while the host code is still being lowered.

After code generation a CPU module holds the entry (`main`: RAL calls and
kernel launches) and the outlined kernels (`func.func` with
`disc_cpu_kernel_func`). The kernels' LLVM code is optimized at O3, the
costliest part of LLVM's work, and it does not depend on how the entry is
lowered: a launch calls a kernel by name through the calling convention
both sides follow. So the compile driver (`disc_ir.api.run_pipeline`, for
`disc_ir.compile`):

1. `split_kernels(module)` moves the kernels into a module of their own,
   leaving a private declaration of each in the entry's module;
2. runs the `llvm` phase on the kernels' module and translates it to LLVM IR,
   which `disc_ir.backend.jit.BackgroundObject` compiles on a worker thread;
3. runs the `llvm` phase on the entry's module meanwhile, then
   `merge_kernels` puts the lowered kernels back in place of their
   declarations (the phase's IR is the whole module, as without the split),
   and the entry's module is translated with the kernels declared only.

`split_kernels` declines (None) when a kernel refers to a symbol (a global,
another function): the kernels' module would not have it.

This is a compile-time optimization of the JIT, not part of the pipeline:
the module after the `llvm` phase is identical with and without the split
(the phase's passes work function by function), so `disc-opt
--disc-pipeline`, which never splits, prints what `disc_ir.compile` keeps
(test/unit/test_compile_is_disc_opt.py compares them for every zoo model).
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import func, llvm
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Attribute, Operation

from disc_ir.codegen.loop_utils import CPU_KERNEL_FUNC_ATTR
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.walk import preorder_ops


def _refers_to_symbol(attrs: Iterable[Attribute]) -> bool:
    for attr in attrs:
        if isinstance(attr, SymbolRefAttr):
            return True
        if isinstance(attr, ArrayAttr) and _refers_to_symbol(attr.data):
            return True
        if isinstance(attr, DictionaryAttr) and _refers_to_symbol(attr.data.values()):
            return True
    return False


def _is_kernel(op: Operation) -> bool:
    return (
        isinstance(op, func.FuncOp)
        and CPU_KERNEL_FUNC_ATTR in op.attributes
        and bool(op.body.blocks)
    )


def split_kernels(module: ModuleOp) -> ModuleOp | None:
    """Move the CPU kernel functions of `module` into a new module (returned),
    leaving a private declaration of each where it was; None, and `module`
    unchanged, when there is none or one refers to a symbol."""
    kernels = [op for op in module.ops if _is_kernel(op)]
    if not kernels:
        return None
    for kernel in kernels:
        for op in preorder_ops(kernel):
            if op is not kernel and _refers_to_symbol(
                [*op.properties.values(), *op.attributes.values()]
            ):
                return None
    kernel_module = ModuleOp([])
    for kernel in kernels:
        assert isinstance(kernel, func.FuncOp)
        ftype = kernel.function_type
        declaration = func.FuncOp.external(
            kernel.sym_name.data, list(ftype.inputs.data), list(ftype.outputs.data)
        )
        module.body.block.insert_op_before(declaration, kernel)
        kernel.detach()
        kernel_module.body.block.add_op(kernel)
    return kernel_module


def kernel_names(kernel_module: ModuleOp) -> list[str]:
    """The functions `kernel_module` defines (after lowering: `llvm.func`)."""
    return [
        op.sym_name.data
        for op in kernel_module.ops
        if isinstance(op, llvm.FuncOp | func.FuncOp) and op.body.blocks
    ]


def merge_kernels(module: ModuleOp, kernel_module: ModuleOp) -> None:
    """Put the lowered kernels of `kernel_module` back into `module`, each in
    place of its declaration there; declarations and globals `kernel_module`
    has that `module` lacks are appended (those it has are kept)."""
    symbols: dict[str, Operation] = {}
    for op in module.ops:
        name = inherent_attr(op, "sym_name")
        if isinstance(name, StringAttr):
            symbols[name.data] = op
    for op in list(kernel_module.ops):
        name = inherent_attr(op, "sym_name")
        existing = symbols.get(name.data) if isinstance(name, StringAttr) else None
        defines = isinstance(op, llvm.FuncOp) and bool(op.body.blocks)
        if existing is not None and not defines:
            continue  # a declaration or global the entry's module has too
        op.detach()
        if existing is None:
            module.body.block.add_op(op)
            continue
        module.body.block.insert_op_before(op, existing)
        module.body.block.erase_op(existing)


__all__ = ["kernel_names", "merge_kernels", "split_kernels"]
