"""`disc-input-inline-fusion`: inline the non-root lmhlo ops of each fusion into its loops.

BladeDISC's InputInlineFusionPass (`input_inline_fusion_pass.cc`). Runs after
`disc-lhlo-legalize-roots-to-parallel-loops`: in every `lmhlo.fusion`, each
load of a buffer written by an lmhlo op of the fusion is replaced by that
op's element computation at the load's indices, repeatedly, until only loops
remain (`disc_ir.codegen.input_inline`). Then every lmhlo op left in a
fusion other than kStitch is an error ("unexpected remaining operation in a
FusionOp"), except scalar / splat `lmhlo.constant` (erased) and
`lmhlo_disc.printf`.

As BladeDISC's greedy driver, ops are then folded, constants uniqued and
hoisted to the function entry, and dead ops removed. Index math from
reshapes comes out as `disc_shape.linearize` /
`disc_shape.delinearize`; run `canonicalize` to fold the pairs that cancel.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.buffer_alias import is_lmhlo_op
from disc_ir.codegen.cleanup import fold_greedily
from disc_ir.codegen.input_inline import InlineError, inline_fusion
from disc_ir.codegen.shared_lowering import is_shared_duplicate
from disc_ir.fusion.pattern import FusionType, fusion_type_of
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

_ALLOWED_LEFTOVERS = frozenset({"lmhlo.terminator", "lmhlo_disc.printf"})


def _fusions(root: Operation) -> list[Operation]:
    return [
        op for op in preorder_ops(root) if op.name == "lmhlo.fusion" and not is_shared_duplicate(op)
    ]


def check_leftovers(fusion: Operation) -> None:
    """Erase leftover constants; raise on any other lmhlo op left in a non-stitch fusion."""
    if fusion_type_of(fusion) is FusionType.STITCH:
        return
    to_remove: list[Operation] = []
    for op in preorder_ops(fusion.regions[0]):
        if not is_lmhlo_op(op) or op.name in _ALLOWED_LEFTOVERS:
            continue
        if op.name == "lmhlo.constant":
            to_remove.append(op)
            continue
        raise DiagnosticException(f"'{op.name}' op: unexpected remaining operation in a FusionOp")
    for op in to_remove:
        op.detach()
        op.erase(safe_erase=False)


def input_inline_fusion(func_op: func.FuncOp) -> None:
    """Inline every fusion of `func_op`, then check what is left."""
    fusions = _fusions(func_op)
    for fusion in fusions:
        try:
            inline_fusion(fusion)
        except InlineError as err:
            raise DiagnosticException(str(err)) from None
    for fusion in fusions:
        check_leftovers(fusion)


@register_pass
@dataclass(frozen=True)
class InputInlineFusionPass(ModulePass):
    """Fuse the rest of the lmhlo nodes into the parallel loops after the roots has been expanded into loops in LhloLegalizeRootsToParallelLoops"""

    name = "disc-input-inline-fusion"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in preorder_ops(op):
            if isinstance(f, func.FuncOp) and f.body.blocks:
                input_inline_fusion(f)
                fold_greedily(ctx, f)


__all__ = ["InputInlineFusionPass", "check_leftovers", "input_inline_fusion"]
