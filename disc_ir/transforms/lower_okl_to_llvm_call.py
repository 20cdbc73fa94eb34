"""`lower-okl-to-llvm-call`: each wrapped kernel becomes a call into the launcher.

OneFlow's OKL pass of that name: `"okl.wrapper_kernel"() ({...}) {index = i}`
becomes

    %c = llvm.mlir.constant(i : index) : i64
    llvm.call @okl_llvm_func(%arg0, %c) : (!llvm.ptr<i8>, i64) -> ()

with `%arg0` the `!llvm.ptr<i8>` the launcher context was cast from
(`lower-launcher-to-llvm-ptr`), and the module declares
`llvm.func @okl_llvm_func(!llvm.ptr<i8>, i64) attributes
{llvm.emit_c_interface}`, the runtime's entry that launches kernel #i
(`disc_ir.runtime.okl_launcher`). The kernels' regions go: the runtime
builds each kernel from the OKL module it was given before this pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    IntegerAttr,
    ModuleOp,
    UnitAttr,
    UnrealizedConversionCastOp,
    i8,
    i64,
)
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.dialects.okl import WrapperKernelOp, op_index
from disc_ir.dialects.upstream.llvm import LLVMTypedPointerType
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.okl_kernels import OKL_LLVM_FUNC_NAME


def _launcher_pointer(wrapper: WrapperKernelOp) -> SSAValue:
    """The `!llvm.ptr<i8>` the wrapper's launcher context was cast from."""
    for op in wrapper.body.block.ops:
        if op.operands:
            owner = op.operands[0].owner
            if isinstance(owner, UnrealizedConversionCastOp) and isinstance(
                owner.inputs[0].type, LLVMTypedPointerType
            ):
                return owner.inputs[0]
    raise DiagnosticException(
        f"lower-okl-to-llvm-call: kernel #{op_index(wrapper)} does not read the launcher "
        "context from an !llvm.ptr<i8> (run lower-launcher-to-llvm-ptr first)"
    )


def declare_launcher_entry(module: ModuleOp) -> None:
    """Declares `@okl_llvm_func(!llvm.ptr<i8>, i64)` in `module` unless it is there."""
    for op in module.body.block.ops:
        if isinstance(op, llvm.FuncOp) and op.sym_name.data == OKL_LLVM_FUNC_NAME:
            return
    decl = llvm.FuncOp(
        OKL_LLVM_FUNC_NAME,
        llvm.LLVMFunctionType([LLVMTypedPointerType(i8), i64]),
        linkage=llvm.LinkageAttr("external"),
        extra_attrs={"llvm.emit_c_interface": UnitAttr()},
    )
    first = module.body.block.first_op
    if first is None:
        module.body.block.add_op(decl)
    else:
        Rewriter.insert_op(decl, InsertPoint.before(first))


@register_pass
@dataclass(frozen=True)
class LowerOklToLLVMCallPass(ModulePass):
    """replace each okl.wrapper_kernel by a call of @okl_llvm_func(ctx, index)."""

    name = "lower-okl-to-llvm-call"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        wrappers = [o for o in preorder_ops(op) if isinstance(o, WrapperKernelOp)]
        if not wrappers:
            return
        declare_launcher_entry(op)
        for wrapper in wrappers:
            ptr = _launcher_pointer(wrapper)
            index = llvm.ConstantOp(IntegerAttr(op_index(wrapper), i64), i64)
            call = llvm.CallOp(OKL_LLVM_FUNC_NAME, ptr, index.result)
            Rewriter.insert_op([index, call], InsertPoint.before(wrapper))
            Rewriter.erase_op(wrapper, safe_erase=False)
