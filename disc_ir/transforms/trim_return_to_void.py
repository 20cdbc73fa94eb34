"""`trim-return-to-void`: a launcher function returns nothing.

OneFlow's OKL pass of that name: in each function taking an
`!okl.launcher_ctx` (after `extract-kernel-launch-tensor`), the return drops
its operands and the function its results; the values reach the caller
through their `okl.get_tensor_as_ret`, which stay.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.okl_kernels import function_bodies, launcher_context


@register_pass
@dataclass(frozen=True)
class TrimReturnToVoidPass(ModulePass):
    """drop the results of OKL launcher functions (they go out through the launcher context)."""

    name = "trim-return-to-void"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in function_bodies(op):
            if launcher_context(f) is None:
                continue
            ret = f.body.block.last_op
            assert isinstance(ret, func.ReturnOp)
            if ret.operands:
                Rewriter.replace_op(ret, func.ReturnOp())
            f.function_type = FunctionType.from_lists(list(f.function_type.inputs.data), [])
            f.res_attrs = None
