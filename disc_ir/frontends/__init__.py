"""Frontends: importers that turn other IRs into the mhlo the pipeline compiles.

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
