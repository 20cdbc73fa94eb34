"""Library kernels the compiled code calls through the RAL (gemm, conv, ...).

Importing this package registers them in the global API registry.
"""

from disc_ir.runtime.kernels import assertion, conv, gemm

__all__ = ["assertion", "conv", "gemm"]
