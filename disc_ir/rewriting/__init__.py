"""Rewrite machinery shared by passes and analyses: the greedy rewrite driver
(`greedy`, MLIR's GreedyPatternRewriteDriver, and xDSL's applier with a cheaper
dead-op check), the constant folder (`folder`), dead-op predicates and region
DCE (`dead_ops`), common sub-expression elimination (`cse`), the
canonicalization pattern set (`canonicalization`, `patterns`), the op folders
(`folding`), pattern sets shared by several passes (`math_approximation`,
`gpu_launch_sinking`, `unbatch_gather_scatter`) and the IR that computes mhlo
result shapes (`shape_reification`, MLIR's `reifyReturnTypeShapes`). A module
here may import `disc_ir.ir`, `disc_ir.dialects`, `disc_ir.config`, the
analyses and other rewriting modules, never a pass, the pass registry, fusion,
codegen, conversion or the backends."""
