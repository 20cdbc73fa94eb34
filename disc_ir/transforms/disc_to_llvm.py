"""disc-to-llvm: lower the host side (func/arith/math/memref/cf/disc_ral) to the LLVM dialect.

BladeDISC's DiscToLLVMPass (disc_to_llvm.cc) on opaque pointers:

* `memref.alloc` / `memref.dealloc` become RAL `alloc` / `dealloc` calls
  (never malloc/free); `disc_ral.cpu_launch` a packed kernel wrapper plus a
  `ral_kernel_launch` call; `disc_ral.dispatch` (and `recv_input` /
  `send_output`) `disc_ral_call(ctx, "<encoded api name>", args)` with the
  encoded name in an `llvm.mlir.global internal constant`;
* everything else goes to the `llvm` dialect with MLIR's type conversion
  (`index` -> `i64`, `!disc_ral.context` -> `!llvm.ptr`, memrefs -> descriptor
  structs, memref function arguments expanded into descriptor fields).

The patterns live in `disc_ir/transforms/lowering/*_to_llvm.py`. Operands
are bridged with `builtin.unrealized_conversion_cast`s, reconciled at the end;
`gpu.launch_func` becomes the compiled blob in a global plus a RAL
`ral_kernel_launch` on `gpu` (`lowering/gpu_launch_to_llvm.py`); the
`gpu.module`s are then dropped, as BladeDISC strips them once kernels are embedded.
The input must be free of `scf`/`affine` (run `convert-scf-to-cf` and
`lower-affine` first); an op the patterns do not handle is an error naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.reconcile_unrealized_casts import reconcile_unrealized_casts
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.transforms.lowering.arith_to_llvm import arith_to_llvm_patterns
from disc_ir.transforms.lowering.cf_to_llvm import cf_to_llvm_patterns
from disc_ir.transforms.lowering.disc_ral_to_llvm import disc_ral_to_llvm_patterns
from disc_ir.transforms.lowering.func_to_llvm import func_to_llvm_patterns
from disc_ir.transforms.lowering.gpu_launch_to_llvm import gpu_launch_to_llvm_patterns
from disc_ir.transforms.lowering.math_to_llvm import math_to_llvm_patterns
from disc_ir.transforms.lowering.memref_to_llvm import memref_to_llvm_patterns
from disc_ir.transforms.registry import register_pass


def convert_to_llvm(module: builtin.ModuleOp) -> None:
    """Runs the conversion on `module` in place (see the module docstring)."""
    kernel_modules = [op for op in module.body.block.ops if op.name == "gpu.module"]
    patterns = [
        *gpu_launch_to_llvm_patterns(),
        *func_to_llvm_patterns(),
        *disc_ral_to_llvm_patterns(),
        *memref_to_llvm_patterns(),
        *arith_to_llvm_patterns(),
        *math_to_llvm_patterns(),
        *cf_to_llvm_patterns(),
    ]
    PatternRewriteWalker(
        GreedyRewritePatternApplier(patterns), apply_recursively=True
    ).rewrite_module(module)
    for op in kernel_modules:
        module.body.block.erase_op(op)
    reconcile_unrealized_casts(module, warn_on_failure=False)
    _check_legal(module)


def _check_legal(module: builtin.ModuleOp) -> None:
    """Raises on the first op left unconverted (casts last: they point at the cause less well)."""
    casts: list[builtin.UnrealizedConversionCastOp] = []
    for op in module.walk():
        if op is module or op.dialect_name() == "llvm":
            continue
        if isinstance(op, builtin.UnrealizedConversionCastOp):
            casts.append(op)
            continue
        hint = ""
        if op.dialect_name() in ("scf", "affine"):
            hint = " (run convert-scf-to-cf / lower-affine first)"
        raise DiagnosticException(f"disc-to-llvm: failed to legalize operation '{op.name}'{hint}")
    for op in casts:
        types = f"{op.operands[0].type} to {op.results[0].type}" if op.operands else ""
        user = next(iter(op.results[0].uses), None) if op.results else None
        where = f" (used by '{user.operation.name}')" if user else ""
        raise DiagnosticException(f"disc-to-llvm: could not convert a value of type {types}{where}")


@register_pass
@dataclass(frozen=True)
class DiscToLLVMPass(ModulePass):
    """Pass to convert the host side to the LLVM dialect (RAL calls for memory, launches, dispatches)."""

    name = "disc-to-llvm"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        convert_to_llvm(op)
