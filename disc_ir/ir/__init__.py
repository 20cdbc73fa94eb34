"""disc-ir's IR layer: context, parser, printer, naming, verification, builders,
structural keys and fingerprints, and the textual pass pipeline
(`pass_pipeline`). A module here may import `disc_ir.dialects`,
`disc_ir.config` and the pass registry (`disc_ir.passes`, to build passes by
name), never a pass module (`disc_ir.transforms`) or the packages built on top."""

from disc_ir.ir import affine_expr as _affine_expr  # noqa: F401  (semi-affine maps)
from disc_ir.ir import dense_splat as _dense_splat  # noqa: F401  (splats by stored bits)
