"""Helpers shared by the RAL passes: finding the execution context, the default stream.

BladeDISC's convention (RalInjectExecutionContextPass): a function that talks
to the runtime takes the `!disc_ral.context` as its first argument; every
`disc_ral.dispatch` names it as its first operand.

- `context_of(op)`: the `!disc_ral.context` argument of the function around
  `op` (BladeDISC's GetContextValueFromFunctionArguments);
- `default_stream_ops()`: the GPU stream handle of BladeDISC's
  GetDefaultStreamHandle, stream #0 as a pointer: `llvm.mlir.constant(0 : i32)`
  then `llvm.inttoptr` to `!llvm.ptr<i8>`, the typed pointer of BladeDISC's
  LLVM (`disc-to-llvm` makes it opaque, as LLVM has only opaque pointers now);
- `FUNC_COMP_INTENS_FUSION_ATTR`: functions carrying it (outlined
  compute-intensive fusions) are compiled apart and skipped by the RAL passes.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import IntegerAttr, i8, i32
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.dialects.disc_ral import RalExecutionContextType
from disc_ir.dialects.upstream.llvm import IntToPtrOp, LLVMTypedPointerType

FUNC_COMP_INTENS_FUSION_ATTR = "disc.comp_intens_fusion"


def parent_func(op: Operation) -> Operation | None:
    """The closest enclosing `func.func` of `op`."""
    current = op.parent_op()
    while current is not None and current.name != "func.func":
        current = current.parent_op()
    return current


def is_comp_intens_fusion_func(func: Operation) -> bool:
    """A function outlined for a compute-intensive fusion (skipped by RAL passes)."""
    return FUNC_COMP_INTENS_FUSION_ATTR in func.attributes


def context_of(op: Operation) -> SSAValue:
    """The RAL context: argument #0 of the function around `op`.

    Raises a DiagnosticException naming `op` when that argument is missing or
    is not a `!disc_ral.context`.
    """
    func = parent_func(op)
    if func is not None and func.regions and func.regions[0].blocks:
        args = func.regions[0].blocks[0].args
        if args and isinstance(args[0].type, RalExecutionContextType):
            return args[0]
    raise DiagnosticException(
        f"'{op.name}' op: the first argument of the function is not ral context type "
        "(run disc-ral-inject-execution-context first)"
    )


def default_stream_ops() -> tuple[Operation, Operation]:
    """The ops making the default GPU stream handle; the second one's result is the handle."""
    zero = llvm.ConstantOp(IntegerAttr(0, i32), i32)
    handle = IntToPtrOp(zero.result, LLVMTypedPointerType(i8))
    return zero, handle


__all__ = [
    "FUNC_COMP_INTENS_FUSION_ATTR",
    "context_of",
    "default_stream_ops",
    "is_comp_intens_fusion_func",
    "parent_func",
]
