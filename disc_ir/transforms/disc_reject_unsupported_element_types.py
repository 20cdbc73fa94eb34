"""`disc-reject-unsupported-element-types`: element types a target does not compile.

bf16 is compiled for the CPU only (computed in f32, one rounding per op, as
XLA's CPU backend does); for another target the pass names the first op
producing or taking a bf16 value (the GPU kernels, atomics included, are not
validated on bf16) with a `RejectedInput`. For `target=cpu` it checks nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import BFloat16Type, ModuleOp, ShapedType
from xdsl.passes import ModulePass

from disc_ir.ir.diagnostics import RejectedInput
from disc_ir.ir.parser import source_location
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


def _is_bf16(t: object) -> bool:
    elem = t.get_element_type() if isinstance(t, ShapedType) else t  # type: ignore[attr-defined]  # xDSL's ShapedType omits it; its tensor/memref types define it
    return isinstance(elem, BFloat16Type)


@register_pass
@dataclass(frozen=True)
class DiscRejectUnsupportedElementTypesPass(ModulePass):
    """Reject bf16 values on targets other than the CPU, naming the first op using one."""

    name = "disc-reject-unsupported-element-types"
    OPTION_HELP: ClassVar[dict[str, str]] = {"target": "code generation target: cpu or cuda"}

    target: str = "cpu"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.target == "cpu":
            return
        for inner in preorder_ops(op):
            if any(_is_bf16(v.type) for v in (*inner.operands, *inner.results)):
                loc = source_location(inner)
                where = f" (input line {loc[0]})" if loc else ""
                raise RejectedInput(
                    f"'{inner.name}'{where} uses bf16, which the {self.target} target does not "
                    "compile yet (the cpu target does): convert to f32 before the graph "
                    "(x.astype(jnp.float32))"
                )
