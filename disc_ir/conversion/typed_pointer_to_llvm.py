"""`llvm.inttoptr` to a typed pointer -> to an opaque one (part of disc-to-llvm).

BladeDISC's RAL passes make the default stream handle as
`llvm.inttoptr %0 : i32 to !llvm.ptr<i8>`, a typed pointer of the MLIR they
are built on; LLVM has opaque pointers only now. The lowering gives such an
op xDSL's `llvm.inttoptr` to `!llvm.ptr` (same address space) in its place,
and its users the opaque result.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter

from disc_ir.dialects.upstream.llvm import IntToPtrOp, LLVMTypedPointerType


def opaque_pointer(t: LLVMTypedPointerType) -> llvm.LLVMPointerType:
    """The opaque pointer in the address space of `t`."""
    return llvm.LLVMPointerType(t.addr_space)


def _inttoptr(op: Operation, rewriter: PatternRewriter) -> None:
    if not isinstance(op, IntToPtrOp):
        return
    typed = op.output.type
    if not isinstance(typed, LLVMTypedPointerType):
        return
    opaque = llvm.IntToPtrOp.create(operands=[op.input], result_types=[opaque_pointer(typed)])
    rewriter.replace(op, opaque)


HANDLERS = {"llvm.inttoptr": _inttoptr}
