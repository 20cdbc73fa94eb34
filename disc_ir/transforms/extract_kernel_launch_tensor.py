"""`extract-kernel-launch-tensor`: tensors flow in and out through the launcher context.

OneFlow's OKL pass of that name: each function with a body gets one
argument, `%ctx: !okl.launcher_ctx`, in place of its tensor arguments;
argument #i becomes `okl.get_tensor_from_arg(%ctx) {index = i}` and each
returned value #k is passed through `okl.get_tensor_as_ret(%ctx, %v)
{index = k}` before the return. The results stay (`trim-return-to-void`
removes them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.dialects.okl import GetTensorAsRetOp, GetTensorFromArgOp, LauncherContextType
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.okl_kernels import function_bodies, launcher_context


def extract_function(f: func.FuncOp) -> None:
    """Rewrites `f` to take the launcher context (see the module docstring)."""
    block = f.body.block
    old_args = list(block.args)
    ctx = block.insert_arg(LauncherContextType(), 0)
    anchor = InsertPoint.at_start(block)
    for i, arg in enumerate(old_args):
        get = GetTensorFromArgOp(ctx, i, arg.type)
        Rewriter.insert_op(get, anchor)
        anchor = InsertPoint.after(get)
        arg.replace_all_uses_with(get.result)
        block.erase_arg(arg)
    ret = block.last_op
    assert isinstance(ret, func.ReturnOp)
    for k, value in enumerate(list(ret.operands)):
        as_ret = GetTensorAsRetOp(ctx, value, k)
        Rewriter.insert_op(as_ret, InsertPoint.before(ret))
        ret.operands[k] = as_ret.result
    f.function_type = FunctionType.from_lists([ctx.type], list(f.function_type.outputs.data))
    f.arg_attrs = None


@register_pass
@dataclass(frozen=True)
class ExtractKernelLaunchTensorPass(ModulePass):
    """read a function's tensors from the OKL launcher context and return them through it."""

    name = "extract-kernel-launch-tensor"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in function_bodies(op):
            if launcher_context(f) is None:
                extract_function(f)
