"""The one op-dispatch pattern of the XToLLVM conversions.

Each `*_to_llvm` module (and `gpu_to_nvvm`, `gpu_math`) lowers its ops with
one function per op name, kept in a `HANDLERS` table (MLIR's populate*Patterns
with a ConversionPattern per op). `OpDispatch(handlers)` is the rewrite
pattern that applies such a table: an op whose name the table maps is
rewritten by its handler (when `applies(op)`, if given), any other op is left
alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

#: lowers one op in place through the rewriter
Handler = Callable[[Operation, PatternRewriter], None]


class OpDispatch(RewritePattern):
    """Rewrites each op `handlers` names with its handler (and `applies` accepts)."""

    def __init__(
        self, handlers: Mapping[str, Handler], applies: Callable[[Operation], bool] | None = None
    ) -> None:
        self.handlers = handlers
        self.applies = applies

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        handler = self.handlers.get(op.name)
        if handler is not None and (self.applies is None or self.applies(op)):
            handler(op, rewriter)


__all__ = ["Handler", "OpDispatch"]
