"""`lower-to-okl`: each kernel op becomes an `okl.wrapper_kernel`.

OneFlow's OKL pass of that name. In each launcher function (after
`extract-kernel-launch-tensor` and `trim-return-to-void`) every kernel op
(`disc_ir.rewriting.okl_kernels.is_kernel_op`), in program order, is moved
into `"okl.wrapper_kernel"() ({...}) {index = i}`, whose region

* reads each operand from the launcher context: an argument with
  `okl.get_tensor_from_arg`, an earlier kernel's result with
  `okl.get_tensor_from_ret` of the slot that kernel wrote; helper ops
  (constants, shape arithmetic) are copied in with what they read;
* holds the op;
* writes its results with `okl.get_tensor_as_ret`: a returned value to the
  slots its `okl.get_tensor_as_ret` named (the launch's results), a value
  other kernels read to a new slot after those;
* ends with `okl.return`.

A returned argument becomes a kernel without an op (it forwards the tensor).
The function keeps the kernels and the return; a module's only launcher
function is renamed `@okl_func`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.dialects.okl import (
    GetTensorAsRetOp,
    GetTensorFromArgOp,
    GetTensorFromRetOp,
    ReturnOp,
    WrapperKernelOp,
    op_index,
)
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.okl_kernels import (
    OKL_FUNC_NAME,
    as_ret_ops,
    function_bodies,
    is_kernel_op,
    launcher_context,
    used_values,
)


class _KernelBuilder:
    """Builds the region of one wrapper kernel, copying what its op reads."""

    def __init__(self, ctx: BlockArgument, slots: dict[SSAValue, int], kernels: set[Operation]):
        self.ctx = ctx
        self.slots = slots
        self.kernels = kernels
        self.block = Block()
        self.mapping: dict[SSAValue, SSAValue] = {}

    def read(self, value: SSAValue) -> SSAValue:
        """`value` inside the region (read from the context or copied)."""
        mapped = self.mapping.get(value)
        if mapped is not None:
            return mapped
        owner = value.owner
        if value is self.ctx:
            return value
        if isinstance(owner, GetTensorFromArgOp):
            new: Operation = GetTensorFromArgOp(self.ctx, op_index(owner), value.type)
        elif isinstance(owner, Operation) and owner in self.kernels:
            slot = self.slots.get(value)
            if slot is None:
                raise DiagnosticException(
                    f"lower-to-okl: '{owner.name}' result read before its kernel ran"
                )
            new = GetTensorFromRetOp(self.ctx, slot, value.type)
        elif isinstance(owner, Operation):
            for operand in used_values(owner):
                self.read(operand)
            new = owner.clone(value_mapper=dict(self.mapping))
            self.block.add_op(new)
            for old, result in zip(owner.results, new.results, strict=True):
                self.mapping[old] = result
            return self.mapping[value]
        else:
            raise DiagnosticException(
                "lower-to-okl: a kernel reads a block argument other than the launcher context"
            )
        self.block.add_op(new)
        self.mapping[value] = new.results[0]
        return new.results[0]

    def add(self, op: Operation) -> Operation:
        for operand in used_values(op):
            self.read(operand)
        new = op.clone(value_mapper=dict(self.mapping))
        self.block.add_op(new)
        for old, result in zip(op.results, new.results, strict=True):
            self.mapping[old] = result
        return new

    def write(self, value: SSAValue, slot: int) -> None:
        self.block.add_op(GetTensorAsRetOp(self.ctx, self.mapping[value], slot))

    def finish(self, index: int) -> WrapperKernelOp:
        self.block.add_op(ReturnOp())
        return WrapperKernelOp(index, Region(self.block))


def lower_function(f: func.FuncOp, ctx: BlockArgument) -> None:
    """Wraps the kernels of launcher function `f` (see the module docstring)."""
    block = f.body.block
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    ops = [op for op in block.ops if op is not ret]
    slots: dict[SSAValue, int] = {}
    for op in ops:
        if isinstance(op, GetTensorAsRetOp):
            slots.setdefault(op.tensor, op_index(op))
    next_slot = max(slots.values(), default=-1) + 1
    kernels = {op for op in ops if is_kernel_op(op)}
    wrappers: list[WrapperKernelOp] = []
    for op in ops:
        if op in kernels:
            builder = _KernelBuilder(ctx, slots, kernels)
            builder.add(op)
            for result in op.results:
                writes = as_ret_ops(result)
                for as_ret in writes:
                    builder.write(result, op_index(as_ret))
                read_elsewhere = any(u.operation not in writes for u in result.uses)
                if not writes and read_elsewhere:
                    slots[result] = next_slot
                    builder.write(result, next_slot)
                    next_slot += 1
            wrappers.append(builder.finish(len(wrappers)))
        elif isinstance(op, GetTensorAsRetOp) and op.tensor.owner not in kernels:
            builder = _KernelBuilder(ctx, slots, kernels)
            builder.read(op.tensor)
            builder.write(op.tensor, op_index(op))
            wrappers.append(builder.finish(len(wrappers)))
    for op in reversed(ops):
        for result in op.results:
            for use in list(result.uses):
                if use.operation is ret:
                    raise DiagnosticException(
                        "lower-to-okl: the launcher function still returns values "
                        "(run trim-return-to-void first)"
                    )
        op.detach()
        op.erase(safe_erase=False)
    for wrapper in wrappers:
        Rewriter.insert_op(wrapper, InsertPoint.before(ret))


@register_pass
@dataclass(frozen=True)
class LowerToOklPass(ModulePass):
    """wrap each kernel op of an OKL launcher function in an okl.wrapper_kernel."""

    name = "lower-to-okl"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        launchers = [(f, c) for f in function_bodies(op) if (c := launcher_context(f)) is not None]
        for f, launcher in launchers:
            if any(isinstance(o, WrapperKernelOp) for o in f.body.block.ops):
                continue
            lower_function(f, launcher)
        if len(launchers) == 1:
            launchers[0][0].sym_name = StringAttr(OKL_FUNC_NAME)
