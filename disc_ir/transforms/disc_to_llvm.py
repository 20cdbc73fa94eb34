"""disc-to-llvm: lower the host side (func/arith/math/memref/cf/disc_ral) to the LLVM dialect.

BladeDISC's DiscToLLVMPass (disc_to_llvm.cc) on opaque pointers:

* `memref.alloc` / `memref.dealloc` become RAL `alloc` / `dealloc` calls
  (never malloc/free); `disc_ral.cpu_launch` a packed kernel wrapper plus a
  `ral_kernel_launch` call; `disc_ral.dispatch` (and `recv_input` /
  `send_output`) `disc_ral_call(ctx, "<encoded api name>", args)` with the
  encoded name in an `llvm.mlir.global internal constant`;
* everything else goes to the `llvm` dialect with MLIR's type conversion
  (`index` -> `i64`, `!disc_ral.context` -> `!llvm.ptr`, memrefs -> descriptor
  structs, memref function arguments expanded into descriptor fields); a
  typed pointer (`llvm.inttoptr ... to !llvm.ptr<i8>`, BladeDISC's stream
  handle) becomes opaque.

The patterns live in `disc_ir/conversion/*_to_llvm.py`; one walk
(`disc_ir.conversion.host_to_llvm.convert_to_llvm`) dispatches each op to its
lowering by name (`handler_table`). Operands
are bridged with `builtin.unrealized_conversion_cast`s, reconciled at the end;
`gpu.launch_func` becomes the compiled blob in a global plus a RAL
`ral_kernel_launch` on `gpu` (`conversion/gpu_launch_to_llvm.py`); the
`gpu.module`s are then dropped, as BladeDISC strips them once kernels are embedded.
The input must be free of `scf`/`affine` (run `convert-scf-to-cf` and
`lower-affine` first); an op the patterns do not handle is an error naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass

from disc_ir.conversion.host_to_llvm import convert_to_llvm
from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class DiscToLLVMPass(ModulePass):
    """Pass to convert the host side to the LLVM dialect (RAL calls for memory, launches, dispatches)."""

    name = "disc-to-llvm"

    #: disc-ir's option (not BladeDISC's): each distinct RAL call signature's
    #: argument packing and `disc_ral_call` lives in one function
    #: (`__disc_ral.call.<api>` / `__disc_ral.launch.<kernel>`) that every
    #: such call calls, so the entry holds a call per RAL call, not four ops
    #: per argument slot (the compile time of a large graph's entry)
    outline_ral_calls: bool = False

    OPTION_HELP = {
        "outline-ral-calls": "Pack each RAL call signature's arguments in one shared "
        "function that the calls call (disc-ir; default false: BladeDISC's inline packing)",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        convert_to_llvm(op, self.outline_ral_calls)
