"""`disc-default-entry-function-attrs`: the `tf.entry_function` of an entry without one.

The pipeline (placement, RAL lowering) and the runtime read the entry's
`tf.entry_function` (BladeDISC's TF bridge sets it): `@main` without one gets
`inputs = "input0,..."`, `outputs = "output0,..."` and every placement `cpu`
(a JAX export already has it, with JAX's names, from `disc-import-stablehlo`).
Ends the `input` phase.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr
from xdsl.passes import ModulePass

from disc_ir.passes.registry import register_pass

ENTRY_ATTR = "tf.entry_function"


def add_default_entry_attrs(f: func.FuncOp) -> None:
    """Give `f` the default `tf.entry_function` unless it has one."""
    if isinstance(f.attributes.get(ENTRY_ATTR), DictionaryAttr):
        return
    n_in, n_out = len(f.function_type.inputs.data), len(f.function_type.outputs.data)
    f.attributes[ENTRY_ATTR] = DictionaryAttr(
        {
            "inputs": StringAttr(",".join(f"input{i}" for i in range(n_in))),
            "outputs": StringAttr(",".join(f"output{i}" for i in range(n_out))),
            "input_placements": StringAttr(",".join(["cpu"] * n_in)),
            "output_placements": StringAttr(",".join(["cpu"] * n_out)),
        }
    )


@register_pass
@dataclass(frozen=True)
class DiscDefaultEntryFunctionAttrsPass(ModulePass):
    """Give @main a default tf.entry_function (input/output names, cpu placements) if it has none."""

    name = "disc-default-entry-function-attrs"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.ops:
            if isinstance(f, func.FuncOp) and f.sym_name.data == "main":
                add_default_entry_attrs(f)
