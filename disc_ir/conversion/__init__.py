"""Dialect conversion patterns: the XToLLVM lowerings (`arith_to_llvm`,
`cf_to_llvm`, `func_to_llvm`, `math_to_llvm`, `memref_to_llvm`,
`disc_ral_to_llvm`, `ral_dispatch_to_llvm`, `gpu_launch_to_llvm`,
`typed_pointer_to_llvm`, `gpu_to_nvvm`, `gpu_math`, each a `HANDLERS` table
applied by the one `dispatch.OpDispatch` pattern), the host lowering driver of
`disc-to-llvm` (`host_to_llvm`), the LLVM builders they share, the StableHLO -> MHLO legalization
(`stablehlo_to_mhlo`), and the tensor -> buffer conversion helpers of the
bufferization passes (`bufferization`). No passes live here. A module here may import `disc_ir.ir`,
`disc_ir.dialects`, `disc_ir.config`, the analyses, `disc_ir.rewriting` and
`disc_ir.runtime` (the RAL ABI the lowered calls follow), never a pass, the pass
registry, codegen or the backends."""
