"""Analyses: facts computed from the IR without changing it (dominance, liveness,
buffer aliasing and placement, symbolic shapes, the entry's dimension
constraints, placement and RAL-context queries). A module here
may import `disc_ir.ir`, `disc_ir.dialects`, `disc_ir.config` and other analyses,
never a pass (`disc_ir.transforms`), the pass registry (`disc_ir.passes`) or the
rewriting, fusion, codegen, conversion and backend packages built on top."""
