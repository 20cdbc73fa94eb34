"""`disc-import-stablehlo`: a JAX StableHLO export to the mhlo the pipeline compiles.

Runs `disc_ir.frontends.stablehlo.import_stablehlo_module` (stablehlo ops to
mhlo, calls inlined, unused private functions removed, shape operands as
`tensor.from_elements`, `shape_assertion` custom calls as RAL checks, the
entry's `tf.entry_function` names) on a module that holds stablehlo ops; a
module without any (mhlo text) is left unchanged. It starts the `input`
phase, so disc-opt given a JAX export reaches the IR `disc_ir.compile` does.
An op with no mhlo form raises `RejectedInput`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from disc_ir.ir.diagnostics import RejectedInput
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


def holds_stablehlo(module: ModuleOp) -> bool:
    """Whether some op of `module` is a stablehlo op."""
    return any(op.name.startswith("stablehlo.") for op in preorder_ops(module))


@register_pass
@dataclass(frozen=True)
class DiscImportStablehloPass(ModulePass):
    """Import a StableHLO module (JAX's export) to mhlo; mhlo input is left unchanged."""

    name = "disc-import-stablehlo"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not holds_stablehlo(op):
            return
        from disc_ir.frontends.stablehlo import StableHloImportError, import_stablehlo_module

        try:
            import_stablehlo_module(op)
        except StableHloImportError as exc:
            raise RejectedInput(str(exc)) from None
