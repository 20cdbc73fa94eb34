"""`disc-place-entry-on-cpu`: make the entry function's I/O placements host placements.

BladeDISC compiles for the CPU only graphs whose `tf.entry_function`
placements the TensorFlow bridge wrote for the CPU (`"cpu"` everywhere): in
its CPU mode there is no device memory. disc-ir takes one graph to either
target, so the CPU pipeline starts its placement phase with this pass:

    tf.entry_function = {input_placements = "gpu,gpu,cpu", output_placements = "gpu", ...}

becomes

    tf.entry_function = {input_placements = "cpu,cpu,cpu", output_placements = "cpu", ...}

Only `gpu` items change (`const` and `cpu` stay); the other keys of the
dictionary and functions without `tf.entry_function` are left unchanged.
Without it `mhlo-place-ops{on-gpu=false}` would still insert `mhlo_disc.d2h` /
`h2d` copies at the graph's boundary and `disc-assign-memory-space` would give
the arguments `#gpu.address_space<global>` buffers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DictionaryAttr, ModuleOp, StringAttr
from xdsl.passes import ModulePass

from disc_ir.analysis.placement import (
    CPU,
    ENTRY_FUNCTION_ATTR,
    GPU,
    INPUT_PLACEMENTS_ATTR,
    OUTPUT_PLACEMENTS_ATTR,
    split_placement_list,
)
from disc_ir.passes.registry import register_pass


def host_placements(text: str) -> str:
    """`text` (a comma-separated placement list) with every `gpu` item made `cpu`."""
    return ",".join(CPU if item == GPU else item for item in split_placement_list(text))


@register_pass
@dataclass(frozen=True)
class DiscPlaceEntryOnCpuPass(ModulePass):
    """Rewrite the entry function's `gpu` input/output placements to `cpu` (CPU target)."""

    name = "disc-place-entry-on-cpu"

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "entry-func-name": "Name of the entry function.",
    }

    entry_func_name: str = "main"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for f in op.body.block.ops:
            if not isinstance(f, func.FuncOp) or f.sym_name.data != self.entry_func_name:
                continue
            entry = f.attributes.get(ENTRY_FUNCTION_ATTR)
            if not isinstance(entry, DictionaryAttr):
                continue
            items = dict(entry.data)
            for key in (INPUT_PLACEMENTS_ATTR, OUTPUT_PLACEMENTS_ATTR):
                value = items.get(key)
                if isinstance(value, StringAttr):
                    items[key] = StringAttr(host_placements(value.data))
            f.attributes[ENTRY_FUNCTION_ATTR] = DictionaryAttr(items)


__all__ = ["DiscPlaceEntryOnCpuPass", "host_placements"]
