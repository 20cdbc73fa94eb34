"""Loop schedules and elemental IR emission: how a fused `lmhlo` kernel becomes
loops. The schedules of `disc-lhlo-legalize-roots-to-parallel-loops`
(`common`, `loop_schedule`, `row_reduction`, `col_reduction`, `stitch_cpu`,
`sort`, `scatter`, and on GPU `gpu_common`, `gpu_row_reduction`,
`gpu_col_reduction`, `gpu_stitch`), the per-element emission they share
(`elemental`, BladeDISC's `lhlo_elemental_utils`; `scalar`, mlir-hlo's
`LhloOpToStdScalarOp`; `hlo_body`; `input_inline`; `cleanup`), the loop and
memref helpers (`loop_utils`), the codegen hint attributes (`codegen_hints`),
GPU loop mapping (`gpu_mapping`), kernel naming (`kernel_names`) and the
shared-constant and kernel-split helpers of the API (`shared_lowering`,
`kernel_split`). A module here may import `disc_ir.ir`, `disc_ir.dialects`,
`disc_ir.config`, the analyses, `disc_ir.fusion` and `disc_ir.rewriting`, never
a pass, the pass registry, the conversion patterns or the backends."""
