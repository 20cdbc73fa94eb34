"""`lhlo-fusion-inliner`: dissolve each `lmhlo.fusion` once its body is lowered.

BladeDISC's LhloFusionInlinerPass (`lhlo_fusion_inliner.cc`): every op of a
fusion body except the `lmhlo.terminator` moves, in order, right before the
fusion, and the fusion is erased (with its attributes: name, type, hints).
Nested fusions are handled innermost first.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


def inline_fusion_body(fusion: Operation) -> None:
    """Move the body of `fusion` before it and erase it."""
    block = fusion.regions[0].blocks.first
    if block is not None:
        if block.args:
            raise DiagnosticException("'lmhlo.fusion' op: body block must have no arguments")
        parent = fusion.parent_block()
        assert parent is not None
        for op in list(block.ops):
            if op.name == "lmhlo.terminator":
                continue
            op.detach()
            parent.insert_op_before(op, fusion)
    fusion.detach()
    fusion.erase(safe_erase=False)


@register_pass
@dataclass(frozen=True)
class LhloFusionInlinerPass(ModulePass):
    """Inline the contents of its body to the parent region after its body has been lowered"""

    name = "lhlo-fusion-inliner"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in preorder_ops(op):
            if not isinstance(f, func.FuncOp):
                continue
            fusions = [o for o in preorder_ops(f) if o.name == "lmhlo.fusion"]
            for fusion in reversed(fusions):
                inline_fusion_body(fusion)


__all__ = ["LhloFusionInlinerPass", "inline_fusion_body"]
