"""The passes: one module per registered pass (`@register_pass`), named after the
pass. A pass module may import every library package (`disc_ir.ir`,
`disc_ir.dialects`, `disc_ir.config`, the analyses, `disc_ir.rewriting`,
`disc_ir.fusion`, `disc_ir.codegen`, `disc_ir.conversion`, `disc_ir.backend`,
`disc_ir.runtime`, the registry in `disc_ir.passes`, the pass list in
`disc_ir.pipeline`), never another pass module; and only the registry imports
pass modules: what a pass shares with other passes or with the API lives in a
library package."""
