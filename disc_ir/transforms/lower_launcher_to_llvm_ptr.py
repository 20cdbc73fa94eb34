"""`lower-launcher-to-llvm-ptr`: the launcher context arrives as an `!llvm.ptr<i8>`.

OneFlow's OKL pass of that name: a function taking `%ctx: !okl.launcher_ctx`
takes `%arg0: !llvm.ptr<i8>` instead, cast back at its start
(`%0 = builtin.unrealized_conversion_cast %arg0 : !llvm.ptr<i8> to
!okl.launcher_ctx`, which the wrapped kernels keep using), and is marked
`llvm.emit_c_interface` (its C entry point for the runtime).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import FunctionType, ModuleOp, UnitAttr, UnrealizedConversionCastOp, i8
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.dialects.upstream.llvm import LLVMTypedPointerType
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.okl_kernels import function_bodies, launcher_context


@register_pass
@dataclass(frozen=True)
class LowerLauncherToLLVMPtrPass(ModulePass):
    """pass the OKL launcher context as an !llvm.ptr<i8> (cast back to !okl.launcher_ctx)."""

    name = "lower-launcher-to-llvm-ptr"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in function_bodies(op):
            launcher = launcher_context(f)
            if launcher is None:
                continue
            block = f.body.block
            ptr = block.insert_arg(LLVMTypedPointerType(i8), 0)
            cast = UnrealizedConversionCastOp.get([ptr], [launcher.type])
            Rewriter.insert_op(cast, InsertPoint.at_start(block))
            launcher.replace_all_uses_with(cast.results[0])
            block.erase_arg(launcher)
            inputs = [ptr.type, *f.function_type.inputs.data[1:]]
            f.function_type = FunctionType.from_lists(inputs, list(f.function_type.outputs.data))
            f.attributes["llvm.emit_c_interface"] = UnitAttr()
