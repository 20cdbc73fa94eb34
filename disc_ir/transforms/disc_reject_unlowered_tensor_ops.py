"""`disc-reject-unlowered-tensor-ops`: mhlo / chlo ops bufferization left behind.

Ends the `bufferize` phase: an mhlo or chlo op still there has no lmhlo form
in this pipeline, so the pass names the first one (and its input line) with
a `RejectedInput` instead of letting `disc-to-llvm` fail later. The tensor
body of an lmhlo op (a sort comparator, a scatter update computation) is
accepted when the sort / scatter schedule evaluates it on scalars; otherwise
the lmhlo op itself is named.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from disc_ir.ir.diagnostics import RejectedInput
from disc_ir.ir.parser import source_location
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

#: why control flow reaches the pipeline (`disc-lower-static-control-flow`
#: removes the static forms before it)
CONTROL_FLOW_LIMITS = {
    "mhlo.while": "only loops whose trip count is a compile-time constant are compiled "
    "(unrolled); this one's depends on the data",
    "mhlo.if": "only conditionals with side-effect-free branches whose results have the "
    "same shape in every branch (static, or provably equal) are compiled (as selects)",
    "mhlo.case": "only conditionals with side-effect-free branches whose results have the "
    "same shape in every branch (static, or provably equal) are compiled (as selects)",
}


def _where(op: Operation) -> str:
    loc = source_location(op)
    return f" (input line {loc[0]})" if loc else ""


@register_pass
@dataclass(frozen=True)
class DiscRejectUnloweredTensorOpsPass(ModulePass):
    """Name the first mhlo / chlo op left after bufferization (it has no lmhlo lowering)."""

    name = "disc-reject-unlowered-tensor-ops"
    OPTION_HELP: ClassVar[dict[str, str]] = {
        "target": "the target named in the diagnostic: cpu or cuda"
    }

    target: str = "cpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from disc_ir.codegen.hlo_body import body_is_supported

        for inner in preorder_ops(op):
            if not inner.name.startswith(("mhlo.", "chlo.")) or inner.name == "mhlo.return":
                continue
            parent = inner.parent_op()
            if (
                parent is not None
                and parent.name in ("lmhlo.sort", "lmhlo.scatter")
                and body_is_supported(parent.regions[0]) is None
            ):
                continue  # evaluated on scalars by the sort / scatter schedule
            if parent is not None and parent.name.startswith("lmhlo."):
                raise RejectedInput(
                    f"'{parent.name.replace('lmhlo.', 'mhlo.', 1)}'{_where(parent)} is not "
                    f"supported by disc-ir's {self.target} pipeline: its body ('{inner.name}'...) "
                    "has no loop lowering"
                )
            why = CONTROL_FLOW_LIMITS.get(inner.name, "it has no lowering to lmhlo")
            raise RejectedInput(
                f"'{inner.name}'{_where(inner)} is not supported by disc-ir's {self.target} "
                f"pipeline: {why}"
            )
