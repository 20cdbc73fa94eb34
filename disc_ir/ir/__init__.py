"""disc-ir's IR layer: context, parser, printer, naming, verification."""

from disc_ir.ir import affine_expr as _affine_expr  # noqa: F401  (semi-affine maps)
