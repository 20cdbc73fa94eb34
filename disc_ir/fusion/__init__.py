"""Fusion patterns and strategies: what `disc-fusion` decides. `pattern` (a set
of lmhlo ops emitted as one kernel, BladeDISC's `fusion_utils` data half),
`strategy_base` (the XLA-style base strategy), `stitch_cpu`, `stitch_gpu` and
`transform_cpu` (BladeDISC's stitch and transform-based strategies) and
`strategies` (strategy lookup and the fusion pipelines). A module here may import
`disc_ir.ir`, `disc_ir.dialects`, `disc_ir.config` and the analyses, never a
pass, the pass registry, rewriting, codegen, conversion or the backends."""
