"""`disc-expand-conv-lhs-dilation`: a convolution's input dilation as an interior padding.

Every `mhlo.convolution` with an `lhs_dilation` gets its input padded with
`dilation - 1` zeros between elements (`mhlo.pad`) and the dilation removed
(`disc_ir.frontends.conv_lhs_dilation`): the RAL's `ral_conv` (as
BladeDISC's) has no input dilation (a transposed convolution, JAX's
`conv_transpose`, has one).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.frontends.conv_lhs_dilation import expand_lhs_dilation
from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class DiscExpandConvLhsDilationPass(ModulePass):
    """Rewrite convolutions with an input dilation as an interior mhlo.pad and a plain convolution."""

    name = "disc-expand-conv-lhs-dilation"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        expand_lhs_dilation(op)
