"""The MLIR context of disc-ir: every dialect the compiler reads or writes.

Dialects load lazily on first use. Upstream dialects whose xDSL version lacks
syntax or ops that BladeDISC's IR uses (memref.cast, scf.parallel's custom
form, gpu.module/gpu.binary, bufferization.to_memref, the shape dialect...)
are registered in extended form from `disc_ir.dialects.upstream`.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable

from xdsl.context import Context
from xdsl.dialects import get_all_dialects
from xdsl.ir import Dialect

from disc_ir.ir.resources import builtin_dialect

# Upstream dialects taken from xDSL as they are.
_XDSL_DIALECTS = (
    "arith",
    "cf",
    "complex",
    "func",
    "linalg",
    "math",
    "ml_program",
    "ub",
    "vector",
)

# name -> "module:attribute" of a Dialect object defined by disc-ir.
_DISC_DIALECTS: dict[str, str] = {
    "mhlo": "disc_ir.dialects.mhlo:MHLO",
    "chlo": "disc_ir.dialects.chlo:CHLO",
    "stablehlo": "disc_ir.dialects.stablehlo:STABLEHLO",
    "lmhlo": "disc_ir.dialects.lmhlo:LMHLO",
    "mhlo_disc": "disc_ir.dialects.mhlo_disc:MHLO_DISC",
    "lmhlo_disc": "disc_ir.dialects.lmhlo_disc:LMHLO_DISC",
    "disc_shape": "disc_ir.dialects.disc_shape:DISC_SHAPE",
    "disc_ral": "disc_ir.dialects.disc_ral:DISC_RAL",
    "okl": "disc_ir.dialects.okl:OKL",
    # upstream dialects extended with what xDSL lacks
    "shape": "disc_ir.dialects.upstream.shape:SHAPE",
    "memref": "disc_ir.dialects.upstream.memref:MEMREF",
    "scf": "disc_ir.dialects.upstream.scf:SCF",
    "gpu": "disc_ir.dialects.upstream.gpu:GPU",
    "bufferization": "disc_ir.dialects.upstream.bufferization:BUFFERIZATION",
    "affine": "disc_ir.dialects.upstream.affine:AFFINE",
    "llvm": "disc_ir.dialects.upstream.llvm:LLVM",
    "tensor": "disc_ir.dialects.upstream.tensor:TENSOR",
}


def _loader(spec: str) -> Callable[[], Dialect]:
    module_name, attr = spec.split(":")

    def load() -> Dialect:
        return getattr(importlib.import_module(module_name), attr)

    return load


def make_context(allow_unregistered: bool = False) -> Context:
    """A fresh context with every disc-ir and upstream dialect registered."""
    ctx = Context(allow_unregistered=allow_unregistered)
    xdsl_dialects = get_all_dialects()
    # builtin with this context's own resource blobs (`dense_resource<...>`), made once
    ctx.register_dialect("builtin", functools.cache(builtin_dialect))
    for name in _XDSL_DIALECTS:
        ctx.register_dialect(name, xdsl_dialects[name])
    for name, spec in _DISC_DIALECTS.items():
        ctx.register_dialect(name, _loader(spec))
    return ctx


def dialect_names() -> list[str]:
    """Names of all dialects registered by `make_context`."""
    return sorted(set(_XDSL_DIALECTS) | set(_DISC_DIALECTS) | {"builtin"})
