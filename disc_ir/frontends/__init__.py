"""Frontends: importers that turn other IRs into the mhlo the pipeline compiles,
and the input rewrites the pipeline's `input` phase runs (static control flow,
convolution input dilation, run-time shape checks).

A library layer: it imports `ir`, `dialects`, `analysis`, `rewriting` and
`conversion`; the `input` phase's passes in `disc_ir.transforms` import it.

* :func:`import_stablehlo` -- StableHLO text as JAX prints it (see
  :mod:`disc_ir.frontends.stablehlo`).
"""

from disc_ir.frontends.stablehlo import (
    StableHloImportError,
    import_stablehlo,
    import_stablehlo_module,
    looks_like_stablehlo,
)

__all__ = [
    "StableHloImportError",
    "import_stablehlo",
    "import_stablehlo_module",
    "looks_like_stablehlo",
]
