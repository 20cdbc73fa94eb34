"""`disc-revise-gpu-kernel-outlining`: host memrefs passed to kernels become scalars.

BladeDISC's ReviseGpuKernelOutliningPass (`revise_kernel_outlining.cc`), a
module pass without options, run after `gpu-kernel-outlining`:

1. A kernel cannot load from host memory. Every memref operand of a
   `gpu.launch_func` whose kernel argument has no GPU memory space (a shape
   buffer such as `memref<3xi32>`; it must have a static shape) is expanded
   into its elements: before the launch, `memref.load %m[c...]` of every
   element in row-major order; the launch passes these scalars instead of
   the memref, and the kernel takes one scalar argument per element in its
   place. Inside the kernel every load of that argument (directly or through
   a view of it) must use constant indices and is replaced by the scalar
   argument of that element; the views are dropped. Each expanded memref
   appends `_revised` to the kernel's name (BladeDISC builds a new
   `gpu.func` per expansion):

       gpu.launch_func @m::@k ... args(%n : index, %shape : memref<3xi32>)
     ->
       %0 = memref.load %shape[%c0] ... %2 = memref.load %shape[%c2]
       gpu.launch_func @m::@k_revised ... args(%n : index, %0 : i32, %1 : i32, %2 : i32)

2. Every `memref.alloc` in a launched kernel becomes an attribution of the
   `gpu.func`: a `#gpu.address_space<workgroup>` buffer a workgroup
   attribution, a `#gpu.address_space<private>` one a private attribution;
   any other allocation in a kernel is an error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref
from xdsl.dialects.builtin import (
    FunctionType,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    i64,
)
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.buffer_alias import is_view_like
from disc_ir.codegen.kernel_names import kernel_func
from disc_ir.codegen.loop_utils import OpBuilder
from disc_ir.dialects.upstream.gpu import AddressSpace, AddressSpaceAttr, FuncOp, LaunchFuncOp
from disc_ir.fusion.pattern import is_gpu_memref
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

REVISED_SUFFIX = "_revised"


def _multi_index(linear: int, shape: tuple[int, ...]) -> list[int]:
    """Row-major index of element `linear` (`getMultiDimIndex`)."""
    index: list[int] = []
    for size in reversed(shape):
        index.append(linear % size if size else 0)
        linear = linear // size if size else 0
    return list(reversed(index))


def _linear_index(index: list[int], shape: tuple[int, ...]) -> int:
    linear = 0
    for i, size in zip(index, shape, strict=True):
        linear = linear * size + i
    return linear


def _constant_index(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _aliases(value: SSAValue) -> list[SSAValue]:
    """`value` and every view (transitively) of it."""
    out = [value]
    i = 0
    while i < len(out):
        for use in list(out[i].uses):
            if is_view_like(use.operation) and use.operation.operands[0] is out[i]:
                out.extend(use.operation.results)
        i += 1
    return out


def _rebuild_launch(
    launch: LaunchFuncOp, kernel: SymbolRefAttr, operands: list[SSAValue]
) -> LaunchFuncOp:
    clusters = None
    if launch.clusterSizeX is not None:
        clusters = [launch.clusterSizeX, launch.clusterSizeY, launch.clusterSizeZ]
    new = LaunchFuncOp(
        kernel,
        [launch.gridSizeX, launch.gridSizeY, launch.gridSizeZ],
        [launch.blockSizeX, launch.blockSizeY, launch.blockSizeZ],
        clusters,  # type: ignore[arg-type]  # the three cluster sizes are set together
        operands,
        async_launch=launch.asyncToken is not None,
        asyncDependencies=list(launch.asyncDependencies),
        dynamicSharedMemorySize=launch.dynamicSharedMemorySize,
    )
    new.attributes |= launch.attributes
    parent = launch.parent_block()
    assert parent is not None
    parent.insert_op_before(new, launch)
    if launch.asyncToken is not None and new.asyncToken is not None:
        launch.asyncToken.replace_all_uses_with(new.asyncToken)
    launch.detach()
    launch.erase()
    return new


def expand_host_memref(
    module: builtin.ModuleOp, launch: LaunchFuncOp, position: int
) -> LaunchFuncOp:
    """Expand kernel operand `position` (a host memref) of `launch` into scalars
    (`expandMemRef`); returns the new launch."""
    func = kernel_func(module, launch)
    assert isinstance(func, FuncOp)
    value = launch.kernelOperands[position]
    mtype = value.type
    assert isinstance(mtype, MemRefType)
    shape = tuple(mtype.get_shape())
    if any(d < 0 for d in shape):
        raise DiagnosticException(
            f"disc-revise-gpu-kernel-outlining: host memref {mtype} passed to kernel "
            f"'{func.sym_name.data}' has a dynamic shape"
        )
    count = 1
    for d in shape:
        count *= d
    # The scalars, loaded on the host before the launch.
    b = OpBuilder(InsertPoint.before(launch))
    loaded: list[SSAValue] = []
    for linear in range(count):
        index = [b.index(i) for i in _multi_index(linear, shape)]
        loaded.append(b.create(memref.LoadOp.get(value, index)).res)
    # The kernel: scalar arguments in place of the memref.
    entry: Block = func.body.blocks[0]
    arg = entry.args[position]
    scalars = [entry.insert_arg(mtype.element_type, position + 1 + k) for k in range(count)]
    views: list[Operation] = []
    for alias in _aliases(arg):
        for use in list(alias.uses):
            user = use.operation
            if is_view_like(user) and user.operands[0] is alias:
                views.append(user)
                continue
            if not isinstance(user, memref.LoadOp) or user.memref is not alias:
                raise DiagnosticException(
                    f"disc-revise-gpu-kernel-outlining: kernel '{func.sym_name.data}' uses "
                    f"host memref argument #{position} in '{user.name}' (only loads can be "
                    "expanded)"
                )
            consts = [_constant_index(i) for i in user.indices]
            if any(c is None for c in consts):
                raise DiagnosticException(
                    f"disc-revise-gpu-kernel-outlining: kernel '{func.sym_name.data}' loads "
                    f"host memref argument #{position} at a non-constant index"
                )
            load_shape = tuple(alias.type.get_shape())  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
            linear = _linear_index([c for c in consts if c is not None], load_shape)
            if not 0 <= linear < count:
                raise DiagnosticException(
                    f"disc-revise-gpu-kernel-outlining: load out of bounds of {mtype}"
                )
            user.res.replace_all_uses_with(scalars[linear])
            user.detach()
            user.erase()
    for view in reversed(views):
        view.detach()
        view.erase()
    entry.erase_arg(arg)
    inputs = list(func.function_type.inputs.data)
    inputs[position : position + 1] = [mtype.element_type] * count
    func.function_type = FunctionType.from_lists(inputs, list(func.function_type.outputs.data))
    new_name = func.sym_name.data + REVISED_SUFFIX
    func.sym_name = StringAttr(new_name)
    operands = list(launch.kernelOperands)
    operands[position : position + 1] = loaded
    kernel = SymbolRefAttr(launch.kernel.root_reference, [StringAttr(new_name)])
    return _rebuild_launch(launch, kernel, operands)


def _host_memref_positions(module: builtin.ModuleOp, launch: LaunchFuncOp) -> list[int]:
    func = kernel_func(module, launch)
    args = func.body.blocks[0].args if func.body.blocks else ()  # type: ignore[attr-defined]  # kernel_func() returns the gpu.func
    positions = []
    for i, _operand in enumerate(launch.kernelOperands):
        if i < len(args) and isinstance(args[i].type, MemRefType) and not is_gpu_memref(args[i]):
            positions.append(i)
    return positions


def convert_allocs_to_attributions(func: FuncOp) -> None:
    """Workgroup / private `memref.alloc`s of `func` become its attributions."""
    entry = func.body.blocks[0]
    num_inputs = len(func.function_type.inputs.data)
    for alloc in [op for op in preorder_ops(func) if isinstance(op, memref.AllocOp)]:
        space = alloc.memref.type.memory_space
        if space == AddressSpaceAttr(AddressSpace.WORKGROUP):
            position = num_inputs + func.num_workgroup_attributions
            buffer = entry.insert_arg(alloc.memref.type, position)
            func.attributes[FuncOp.WORKGROUP_ATTRIBUTIONS] = IntegerAttr(
                func.num_workgroup_attributions + 1, i64
            )
        elif space == AddressSpaceAttr(AddressSpace.PRIVATE):
            buffer = entry.insert_arg(alloc.memref.type, len(entry.args))
        else:
            raise DiagnosticException(
                f"disc-revise-gpu-kernel-outlining: unexpected alloc of {alloc.memref.type} "
                f"in kernel '{func.sym_name.data}'"
            )
        alloc.memref.replace_all_uses_with(buffer)
        alloc.detach()
        alloc.erase()


def revise_kernel_outlining(module: builtin.ModuleOp) -> None:
    """Expand host memref operands of every launch, then turn kernel allocs into attributions."""
    for launch in [op for op in preorder_ops(module) if isinstance(op, LaunchFuncOp)]:
        shift = 0
        for position in _host_memref_positions(module, launch):
            before = len(launch.kernelOperands)
            launch = expand_host_memref(module, launch, position + shift)
            shift += len(launch.kernelOperands) - before
    for launch in [op for op in preorder_ops(module) if isinstance(op, LaunchFuncOp)]:
        func = kernel_func(module, launch)
        assert isinstance(func, FuncOp)
        convert_allocs_to_attributions(func)


@register_pass
@dataclass(frozen=True)
class DiscReviseGpuKernelOutliningPass(ModulePass):
    """Revise the kernel outlining by expanding the host memref into scalars."""

    name = "disc-revise-gpu-kernel-outlining"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        revise_kernel_outlining(op)


__all__ = [
    "DiscReviseGpuKernelOutliningPass",
    "convert_allocs_to_attributions",
    "expand_host_memref",
    "revise_kernel_outlining",
]
