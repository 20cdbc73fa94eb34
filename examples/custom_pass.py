"""A complete out-of-tree pass: `example-pow2-to-multiply`.

Rewrites `mhlo.power(x, c)` where `c` is a constant splat 2 into
`mhlo.multiply(x, x)` (a multiply is cheaper than `pow` in every backend).

Load it into disc-opt as MLIR loads pass plugins:

    disc-opt --load-pass-plugin=examples/custom_pass.py --example-pow2-to-multiply in.mlir

or import this module before building a pipeline in Python. The guide
(docs/guide.md, "Writing a pass") walks through it; test/unit/test_examples.py
runs it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker, RewritePattern

from disc_ir.dialects.mhlo import ConstantOp, MulOp
from disc_ir.passes.registry import register_pass


def _is_splat_two(value) -> bool:
    """Whether `value` is produced by an `mhlo.constant` whose elements are all 2."""
    owner = value.owner
    if not isinstance(owner, ConstantOp):
        return False
    attr = owner.attributes.get("value") or owner.properties.get("value")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return False
    values = attr.get_values()
    return len(values) > 0 and all(v == 2 for v in values)


class Pow2ToMultiply(RewritePattern):
    """`mhlo.power(x, splat 2)` -> `mhlo.multiply(x, x)`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != "mhlo.power" or not _is_splat_two(op.operands[1]):
            return
        x = op.operands[0]
        rewriter.replace(op, MulOp.create(operands=[x, x], result_types=[op.results[0].type]))


@register_pass
@dataclass(frozen=True)
class ExamplePow2ToMultiply(ModulePass):
    """Rewrite mhlo.power(x, 2) to mhlo.multiply(x, x)."""

    name = "example-pow2-to-multiply"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(Pow2ToMultiply()).rewrite_module(op)
