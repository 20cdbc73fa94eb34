"""Canonicalization patterns of disc-ir, registered per operation name.

`canonicalization_patterns(name, ctx)` gives the patterns `canonicalize`
applies to an op named `name` (after folding), in order. Dialect modules of
disc-ir may register more with `register_canonicalization(name)`; for the
dialects in `OWN_DIALECTS` these patterns replace xDSL's own trait patterns.
A pattern factory takes the context (to create ops of the classes the
context registers) and returns xDSL `RewritePattern`s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.context import Context
from xdsl.pattern_rewriter import RewritePattern

PatternFactory = Callable[[Context | None], Sequence[RewritePattern]]

OWN_DIALECTS = frozenset({"arith", "scf", "memref", "tensor"})
"""Dialects whose canonicalization patterns are all disc-ir's (MLIR-faithful)."""

_FACTORIES: dict[str, list[PatternFactory]] = {}
_LOADED = False


def register_canonicalization(*names: str) -> Callable[[PatternFactory], PatternFactory]:
    """Decorator: `factory(ctx)` gives canonicalization patterns of ops `names`."""

    def deco(factory: PatternFactory) -> PatternFactory:
        for name in names:
            _FACTORIES.setdefault(name, []).append(factory)
        return factory

    return deco


def load_canonicalization_patterns() -> None:
    """Import the modules registering disc-ir's patterns (once; on first use otherwise)."""
    global _LOADED
    if _LOADED:
        return
    _LOADED = True
    from disc_ir.rewriting.patterns import arith, disc_shape, memref, scf, tensor  # noqa: F401


def canonicalization_patterns(name: str, ctx: Context | None) -> list[RewritePattern]:
    """The patterns registered for ops named `name`."""
    load_canonicalization_patterns()
    out: list[RewritePattern] = []
    for factory in _FACTORIES.get(name, ()):
        out.extend(factory(ctx))
    return out


__all__ = [
    "OWN_DIALECTS",
    "canonicalization_patterns",
    "load_canonicalization_patterns",
    "register_canonicalization",
]
