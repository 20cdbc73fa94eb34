"""`disc-tf-revise-args-for-static-rank`: apply the JIT cache's static-rank facts to `main`.

BladeDISC compiles for a fixed rank; when the value or the shape of an input
decides a rank inside the cluster, the clustering logs it on the entry function
`main` (in its `tf.entry_function` dictionary, or, without TensorFlow, in the
function's own attribute dictionary):

* `disc.input_value_N = dense<...>`: input N is that constant. With
  `input_placements` (comma separated, one per argument), only inputs placed
  `const` are replaced; their placement becomes `gpu`. The argument is kept
  (the runtime passes inputs by position) but its uses take an `mhlo.constant`
  created at the start of the function.
* `disc.input_shape_N = dense<...> : tensor<2x2xi64>`: input N has the type of
  the attribute (its shape and element type); the argument's and function's
  types are changed. Run `disc-shape-simplifier` to propagate it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.shape_analysis import set_value_type
from disc_ir.dialects.mhlo import ConstantOp
from disc_ir.passes.registry import register_pass

INPUT_SHAPE_ATTR = "disc.input_shape"
INPUT_VALUE_ATTR = "disc.input_value"
ENTRY_FUNCTION_ATTR = "tf.entry_function"
INPUT_PLACEMENTS = "input_placements"


@register_pass
@dataclass(frozen=True)
class ReviseArgsForStaticRankPass(ModulePass):
    """extract the const/fixed-shape input info from jit static rank compilation cache, and update the info in the IR."""  # noqa: E501

    name = "disc-tf-revise-args-for-static-rank"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        main = None
        for f in op.body.block.ops:
            if isinstance(f, func.FuncOp) and f.sym_name.data == "main":
                main = f
        if main is None:
            raise DiagnosticException("Error: main_func not found.")
        entry = main.attributes.get(ENTRY_FUNCTION_ATTR)
        facts: dict[str, Attribute] = (
            dict(entry.data) if isinstance(entry, DictionaryAttr) else dict(main.attributes)
        )
        block = main.body.blocks.first
        if block is None:
            return
        args = list(block.args)
        placements_attr = facts.get(INPUT_PLACEMENTS)
        placements: list[str] | None = None
        if isinstance(placements_attr, StringAttr):
            placements = [p for p in placements_attr.data.split(",") if p]
            if len(placements) != len(args):
                raise DiagnosticException(
                    f"input_placements has {len(placements)} entries but main has "
                    f"{len(args)} arguments"
                )
        # 1: constant inputs
        for i, arg in enumerate(args):
            if placements is not None and placements[i] != "const":
                continue
            value = facts.get(f"{INPUT_VALUE_ATTR}_{i}")
            if value is None:
                if placements is not None:
                    raise DiagnosticException(f"kMhloInputValueAttr not found for idx: {i}.")
                continue
            if not isinstance(value, DenseIntOrFPElementsAttr):
                raise DiagnosticException(
                    f"{INPUT_VALUE_ATTR}_{i} must be a dense elements attribute"
                )
            const = ConstantOp(value)
            first = block.first_op
            if first is None:
                block.add_op(const)
            else:
                block.insert_op_before(const, first)
            arg.replace_all_uses_with(const.results[0])
            if placements is not None:
                placements[i] = "gpu"
        # 2: fixed-shape inputs
        for i, arg in enumerate(args):
            shape = facts.get(f"{INPUT_SHAPE_ATTR}_{i}")
            if shape is None:
                continue
            t = getattr(shape, "type", None)
            if t is None:
                raise DiagnosticException(f"unexpected {INPUT_SHAPE_ATTR}_{i}: {shape}")
            set_value_type(arg, t)
        main.function_type = FunctionType.from_lists(
            [a.type for a in args], list(main.function_type.outputs.data)
        )
        # 3: placements
        if placements is not None and isinstance(entry, DictionaryAttr):
            new = dict(entry.data)
            new.pop(INPUT_PLACEMENTS)
            new[INPUT_PLACEMENTS] = StringAttr(",".join(placements))
            main.attributes[ENTRY_FUNCTION_ATTR] = DictionaryAttr(new)
