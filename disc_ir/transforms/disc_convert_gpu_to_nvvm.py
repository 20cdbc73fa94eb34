"""`disc-convert-gpu-to-nvvm`: lower each `gpu.module`'s kernels to the llvm dialect + NVVM.

BladeDISC's DiscLowerGpuOpsToNVVMOpsPass (disc_lower_gpu_ops_to_nvvm_ops.cc):
inside every `gpu.module`, the GPU ops go to NVVM (see
`disc_ir/conversion/gpu_to_nvvm.py`: special registers, barriers,
shuffles) and func/memref/arith/math/cf go to the llvm dialect with the same
patterns as the host (`disc-to-llvm`). The `gpu.module` op itself stays, now
holding `llvm.func`s (and `llvm.mlir.global`s), for `disc-gpu-kernel-to-blob`.

Math: BladeDISC links libdevice (`__nv_expf`, ...). disc-ir has no libdevice,
so transcendental math is expanded first, in the kernel modules only:
`tan`, `sinh`, `cosh`, `asin`, `acos`, `log10`, `powf` into simpler math
(`conversion/gpu_math.py`), then the polynomial approximations of
`disc-math-approximation` (`exp`, `log`, `tanh`, `erf`, `sin`, `cos`,
`atan2`, ... on f32/f16/bf16); what is left becomes LLVM intrinsics the
NVPTX backend selects natively (`sqrt`, `fabs`, `floor`, `ceil`, `trunc`, `roundeven`, `round`,
`fma`, `copysign`, `exp2`, `ctpop`, `ctlz`, `cttz`, `abs`). A math op that
would need a C library call (`powf`, `tan`, `sinh`, ... on any type, and the
`f64` forms of `exp`, `log`, `tanh`, ...) is an error naming the op: a device
has no libm to call.

Options: `index-bitwidth` is the width of `index` in the kernels; 0 (derive
from the data layout) and 64 give `i64` -- nvptx64's pointer width. BladeDISC
defaults to 32 (`DISC_CODEGEN_INDEX_BITWIDTH`); disc-ir's llvm lowering types
`index` as `i64` throughout, so 32 is rejected with an error rather than
ignored. `has-redux` (sm_80 `redux.sync` for integer subgroup reductions) is
accepted for BladeDISC compatibility; disc-ir's schedules emit no
`gpu.subgroup_reduce`, so it changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin, llvm
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.transforms.reconcile_unrealized_casts import reconcile_unrealized_casts
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.conversion.arith_to_llvm import arith_to_llvm_patterns
from disc_ir.conversion.cf_to_llvm import cf_to_llvm_patterns
from disc_ir.conversion.func_to_llvm import func_to_llvm_patterns
from disc_ir.conversion.gpu_math import gpu_math_patterns
from disc_ir.conversion.gpu_to_nvvm import gpu_to_nvvm_patterns
from disc_ir.conversion.host_to_llvm import expand_descriptors
from disc_ir.conversion.math_to_llvm import math_to_llvm_patterns
from disc_ir.conversion.memref_to_llvm import memref_to_llvm_patterns
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.greedy import greedy_applier
from disc_ir.rewriting.math_approximation import approximate_math
from disc_ir.rewriting.walker import PatternRewriteWalker

#: LLVM intrinsics the NVPTX backend selects natively (others would need a libm call,
#: which aborts LLVM's instruction selection): base name -> float types allowed (None: any)
NVPTX_INTRINSICS: dict[str, tuple[str, ...] | None] = {
    **dict.fromkeys(
        (
            "fabs",
            "sqrt",
            "floor",
            "ceil",
            "trunc",
            "rint",
            "nearbyint",
            "roundeven",
            "round",
            "fma",
            "fmuladd",
            "minnum",
            "maxnum",
            "minimum",
            "maximum",
            "copysign",
        ),
        None,
    ),
    **dict.fromkeys(
        (
            "ctpop",
            "ctlz",
            "cttz",
            "abs",
            "smax",
            "smin",
            "umax",
            "umin",
            "fshl",
            "fshr",
            "bswap",
            "bitreverse",
        ),
        None,
    ),
    "exp2": ("f32",),
}


def _intrinsic_base(op: Operation) -> tuple[str, str] | None:
    """(base name, type suffix) of an LLVM intrinsic op or call, None for other ops."""
    if isinstance(op, llvm.CallIntrinsicOp):
        parts = op.intrin.data.split(".")
        if len(parts) < 2 or parts[1] == "nvvm":
            return None
        return parts[1], parts[-1] if len(parts) > 2 else ""
    if op.name.startswith("llvm.intr."):
        t = op.results[0].type if op.results else None
        return op.name.removeprefix("llvm.intr."), str(t) if t is not None else ""
    return None


def _check_legal(module: builtin.ModuleOp, kernel_module: str) -> None:
    where = f"gpu.module @{kernel_module}"
    for op in preorder_ops(module):
        if op is module or isinstance(op, builtin.UnrealizedConversionCastOp):
            continue
        intrinsic = _intrinsic_base(op)
        if intrinsic is not None:
            base, suffix = intrinsic
            allowed = NVPTX_INTRINSICS.get(base, ())
            if base not in NVPTX_INTRINSICS or (allowed is not None and suffix not in allowed):
                raise DiagnosticException(
                    f"{where}: llvm.{base} on {suffix or 'this type'} has no NVPTX lowering "
                    "(it needs a libm / libdevice call; a GPU has no libm)"
                )
        if op.dialect_name() != "llvm":
            raise DiagnosticException(f"{where}: failed to legalize operation '{op.name}'")
        if isinstance(op, llvm.FuncOp) and not op.body.blocks:
            raise DiagnosticException(
                f"{where}: the kernel calls external function '{op.sym_name.data}' "
                "(a math op without a device lowering; a GPU has no libm)"
            )
    for op in preorder_ops(module):
        if isinstance(op, builtin.UnrealizedConversionCastOp):
            types = f"{op.operands[0].type} to {op.results[0].type}" if op.operands else ""
            raise DiagnosticException(f"{where}: could not convert a value of type {types}")


def convert_kernel_module(gpu_module: builtin.Operation) -> None:
    """Lowers the body of one `gpu.module` in place (see the module docstring)."""
    block = gpu_module.regions[0].blocks[0]
    # Run the conversion on a builtin.module holding the kernels, so that
    # declarations and globals the patterns create land in the kernel module.
    wrapper = builtin.ModuleOp([])
    for op in list(block.ops):
        op.detach()
        wrapper.body.block.add_op(op)
    try:
        PatternRewriteWalker(
            greedy_applier(gpu_math_patterns()), apply_recursively=True
        ).rewrite_module(wrapper)
        approximate_math(wrapper)
        patterns = [
            *gpu_to_nvvm_patterns(),
            *func_to_llvm_patterns(),
            *memref_to_llvm_patterns(),
            *arith_to_llvm_patterns(),
            *math_to_llvm_patterns(),
            *cf_to_llvm_patterns(),
        ]
        PatternRewriteWalker(greedy_applier(patterns), apply_recursively=True).rewrite_module(
            wrapper
        )
        expand_descriptors(preorder_ops(wrapper))
        reconcile_unrealized_casts(wrapper, warn_on_failure=False)
        name = gpu_module.properties.get("sym_name") or gpu_module.attributes.get("sym_name")
        _check_legal(wrapper, getattr(name, "data", "?"))
    finally:
        for op in list(wrapper.body.block.ops):
            op.detach()
            block.add_op(op)


@register_pass
@dataclass(frozen=True)
class DiscLowerGpuOpsToNVVMOpsPass(ModulePass):
    """Generate NVVM operations for gpu operations"""

    name = "disc-convert-gpu-to-nvvm"

    index_bitwidth: int = 0
    has_redux: bool = False

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "index-bitwidth": "Bitwidth of the index type, 0 to use size of machine word "
        "(disc-ir: 0 or 64)",
        "has-redux": "whether has redux.",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        if self.index_bitwidth not in (0, 64):
            raise DiagnosticException(
                f"disc-convert-gpu-to-nvvm: index-bitwidth={self.index_bitwidth} is not "
                "supported (disc-ir lowers index to i64: use 0 or 64)"
            )
        for kernel_module in [o for o in op.body.block.ops if o.name == "gpu.module"]:
            convert_kernel_module(kernel_module)


__all__ = ["DiscLowerGpuOpsToNVVMOpsPass", "convert_kernel_module"]
