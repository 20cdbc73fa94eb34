"""`gpu-kernel-outlining`: `gpu.launch` bodies -> kernels in `gpu.module`s.

MLIR's GpuKernelOutliningPass (mlir/lib/Dialect/GPU/Transforms/
KernelOutlining.cpp). For each `func.func @f`, every `gpu.launch` in it:

1. cheap producers are sunk into the body first (see
   `gpu-launch-sink-index-computations`);
2. the values the body uses from above become, in first-use order, the
   arguments of a new `gpu.func @f_kernel(...) kernel` whose body is the
   launch body, with the launch's block/thread ids and grid/block sizes
   rebuilt at its entry as `gpu.block_id x|y|z`, `gpu.thread_id`,
   `gpu.grid_dim`, `gpu.block_dim` and `gpu.terminator` replaced by
   `gpu.return`;
3. the function is placed in `gpu.module @f_kernel`, inserted after `@f`
   (symbol clashes are renamed as MLIR's SymbolTable does: `f_kernel_0`,
   `f_kernel_1`, ...);
4. the launch becomes `gpu.launch_func @<module>::@f_kernel blocks in (...)
   threads in (...) args(%v : type, ...)`.

The top-level module gets the `gpu.container_module` unit attribute.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects import gpu as xgpu
from xdsl.dialects.builtin import FunctionType, StringAttr, SymbolRefAttr, UnitAttr
from xdsl.ir import Block, Operation, Region
from xdsl.passes import ModulePass

from disc_ir.dialects.upstream.gpu import (
    CONTAINER_MODULE_ATTR,
    BlockDimOp,
    BlockIdOp,
    FuncOp,
    GridDimOp,
    LaunchFuncOp,
    LaunchOp,
    ModuleOp,
    ReturnOp,
    ThreadIdOp,
)
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.gpu_launch_sinking import (
    sink_operations_into_launch,
    used_values_defined_above,
)

_DIMS = (xgpu.DimensionEnum.X, xgpu.DimensionEnum.Y, xgpu.DimensionEnum.Z)


def _symbol_names(module: builtin.ModuleOp) -> set[str]:
    names: set[str] = set()
    for op in module.body.block.ops:
        sym = op.properties.get("sym_name") or op.attributes.get("sym_name")
        if isinstance(sym, StringAttr):
            names.add(sym.data)
    return names


def unique_symbol(taken: set[str], name: str) -> str:
    """`name`, or `name_<k>` for the first free k (MLIR's SymbolTable uniquing)."""
    if name not in taken:
        return name
    k = 0
    while f"{name}_{k}" in taken:
        k += 1
    return f"{name}_{k}"


def outline_launch(
    launch: LaunchOp, kernel_name: str, module_name: str
) -> tuple[FuncOp, LaunchFuncOp]:
    """Builds the kernel of `launch` (not inserted) and the launch_func replacing it
    (inserted in place of `launch`, which is erased)."""
    sink_operations_into_launch(launch)
    operands = used_values_defined_above(launch)
    ftype = FunctionType.from_lists([v.type for v in operands], [])
    entry = Block(arg_types=[v.type for v in operands])
    func = FuncOp(kernel_name, ftype, Region(entry), kernel=True)
    # Rebuild the 12 launch arguments from index ops at the kernel entry.
    old_body = launch.body.blocks[0]
    index_ops: list[Operation] = [
        *(BlockIdOp(xgpu.DimensionAttr(d)) for d in _DIMS),  # type: ignore[arg-type, misc]  # made by _dimension_op(), with xDSL's (dimension) constructor
        *(ThreadIdOp(xgpu.DimensionAttr(d)) for d in _DIMS),  # type: ignore[arg-type, misc]  # made by _dimension_op(), with xDSL's (dimension) constructor
        *(GridDimOp(xgpu.DimensionAttr(d)) for d in _DIMS),  # type: ignore[arg-type, misc]  # made by _dimension_op(), with xDSL's (dimension) constructor
        *(BlockDimOp(xgpu.DimensionAttr(d)) for d in _DIMS),  # type: ignore[arg-type, misc]  # made by _dimension_op(), with xDSL's (dimension) constructor
    ]
    for op in index_ops:
        entry.add_op(op)
    for arg, op in zip(old_body.args, index_ops, strict=True):
        arg.replace_all_uses_with(op.results[0])
    for value, arg in zip(operands, entry.args, strict=True):
        value.replace_uses_with_if(arg, lambda use: launch.body.is_ancestor(use.operation))
    # Move the body; further blocks of a multi-block body follow the entry.
    blocks = list(launch.body.blocks)
    for op in list(old_body.ops):
        op.detach()
        entry.add_op(op)
    for block in blocks[1:]:
        launch.body.detach_block(block)
        func.body.add_block(block)
    for block in func.body.blocks:
        last = block.last_op
        if last is not None and last.name == "gpu.terminator":
            block.insert_op_before(ReturnOp([]), last)
            last.detach()
            last.erase()
    launch_func = LaunchFuncOp(
        SymbolRefAttr(module_name, [kernel_name]),
        [launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ],
        [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ],
        None,
        operands,
        dynamicSharedMemorySize=launch.dynamicSharedMemorySize,
    )
    parent = launch.parent_block()
    assert parent is not None
    parent.insert_op_before(launch_func, launch)
    launch.detach()
    launch.erase()
    return func, launch_func


def outline_kernels(module: builtin.ModuleOp) -> list[ModuleOp]:
    """Outlines every `gpu.launch` of the functions of `module`; returns the new gpu.modules."""
    created: list[ModuleOp] = []
    taken = _symbol_names(module)
    for func in [o for o in module.body.block.ops if o.name == "func.func"]:
        launches = [o for o in preorder_ops(func) if isinstance(o, LaunchOp)]
        if not launches:
            continue
        name = func.properties["sym_name"]
        assert isinstance(name, StringAttr)
        kernel_name = f"{name.data}_kernel"
        anchor = func.next_op
        for launch in launches:
            module_name = unique_symbol(taken, kernel_name)
            taken.add(module_name)
            kernel, _ = outline_launch(launch, kernel_name, module_name)
            gpu_module = ModuleOp(StringAttr(module_name), Region(Block([kernel])))  # type: ignore[arg-type]  # xDSL annotates SymbolRefAttr, but sym_name must be a StringAttr
            if anchor is None:
                module.body.block.add_op(gpu_module)
            else:
                module.body.block.insert_op_before(gpu_module, anchor)
            created.append(gpu_module)
    if created:
        module.attributes[CONTAINER_MODULE_ATTR] = UnitAttr()
    return created


@register_pass
@dataclass(frozen=True)
class GpuKernelOutliningPass(ModulePass):
    """Outline gpu.launch bodies to kernel functions"""

    name = "gpu-kernel-outlining"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        outline_kernels(op)


__all__ = ["GpuKernelOutliningPass", "outline_kernels", "outline_launch", "unique_symbol"]
