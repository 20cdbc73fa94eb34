"""`disc-strip-shape-constraint-ops`: remove the module's shape-constraint IR.

Erases every `disc_shape.SymbolicDim` op and the
`func.func @shape_constraint_graph` holding `disc_shape.tie_product_equal`
facts (BladeDISC's DiscStripShapeConstraintOpsPass). Tensor encodings and
`kDiscSymbolicDimAttr` attributes naming the symbols are left as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.analysis.shape_analysis import SHAPE_CONSTRAINT_GRAPH
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


@register_pass
@dataclass(frozen=True)
class DiscStripShapeConstraintOpsPass(ModulePass):
    """strip disc shape constraint ops."""

    name = "disc-strip-shape-constraint-ops"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        doomed = [o for o in preorder_ops(op) if o.name == "disc_shape.SymbolicDim"]
        doomed += [
            o
            for o in op.body.block.ops
            if isinstance(o, func.FuncOp) and o.sym_name.data == SHAPE_CONSTRAINT_GRAPH
        ]
        for o in doomed:
            o.detach()
            o.erase()
