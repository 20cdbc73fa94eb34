"""Placement helpers shared by the placement-aware passes (BladeDISC's placement_utils).

Vocabulary:

- `disc.shape_op` (`SHAPE_OP_ATTR`): set by `disc-mhlo-mark-shape-calc` on ops
  that compute shapes; `true`, or an array of bools for tuple results.
- `disc.device` (`PLACEMENT_ATTR`): set by `mhlo-place-ops`; `"cpu"` / `"gpu"`,
  or an array of them for tuple results. An mhlo op without it runs on the GPU
  (`is_gpu_mhlo`); an lmhlo op without it runs where its output buffer lives
  (`is_gpu_lmhlo`).
- The entry function's `tf.entry_function` dictionary gives the placement of
  each argument / result as a comma-separated string (`input_placements`,
  `output_placements`) of `cpu`, `gpu` and `const`.
- Shape operands: the operands of an op that carry shapes or indices rather
  than data (`shape_calc_operand_indices`): they live on the host.
"""

from __future__ import annotations

import enum

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    TupleType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.ir.types import memref_type

SHAPE_OP_ATTR = "disc.shape_op"
PLACEMENT_ATTR = "disc.device"
ENTRY_FUNCTION_ATTR = "tf.entry_function"
INPUT_PLACEMENTS_ATTR = "input_placements"
OUTPUT_PLACEMENTS_ATTR = "output_placements"
CPU = "cpu"
GPU = "gpu"
CONST = "const"


class PlacementType(enum.Enum):
    """Where a value lives or an op runs."""

    CPU = CPU
    GPU = GPU
    CONST = CONST

    @classmethod
    def from_string(cls, text: str) -> PlacementType:
        return cls(text)

    def __str__(self) -> str:
        return self.value


# ---------------------------------------------------------------------------
# Shape operands
# ---------------------------------------------------------------------------

# op name without dialect prefix -> indices of its shape operands; the same
# indices hold for the mhlo op and its lmhlo buffer form (the output buffer
# comes last there).
_SHAPE_OPERANDS: dict[str, tuple[int, ...]] = {
    "real_dynamic_slice": (1, 2, 3),  # start_indices, limit_indices, strides
    "dynamic_pad": (2, 3, 4),  # edge_padding_low, edge_padding_high, interior_padding
    "dynamic_reshape": (1,),  # output shape
    "dynamic_iota": (0,),  # output shape
    "dynamic_broadcast_in_dim": (1,),  # output dimensions
    "dynamic_gather": (2,),  # slice_sizes
    "dynamic_conv": (2,),  # paddings
    "if": (0,),  # predicate
}
_SHAPE_OPERAND_DIALECTS = ("mhlo", "lmhlo")

_DISC_SHAPE_OPERANDS: dict[str, tuple[int, ...]] = {
    "quantized_dynamic_conv": (2,),  # paddings
}
_DISC_SHAPE_OPERAND_DIALECTS = ("mhlo_disc", "lmhlo_disc")

# custom_call target -> shape operands
_CUSTOM_CALL_SHAPE_OPERANDS: dict[str, tuple[int, ...]] = {
    "topk": (2,),  # k
    "rng_uniform": (0, 1, 2),  # start, limit, shape
}


def split_placement_list(text: str) -> list[str]:
    """`"d,h"` -> `["d", "h"]` (empty items dropped, as llvm's split with KeepEmpty=false)."""
    return [item for item in text.split(",") if item]


def _string_attr(op: Operation, name: str) -> str | None:
    attr = op.attributes.get(name)
    if attr is None:
        attr = op.properties.get(name)
    return attr.data if isinstance(attr, StringAttr) else None


def shape_calc_operand_indices(op: Operation) -> list[int]:
    """Indices of the operands of `op` that are shape calculations (BladeDISC's getShapeCalcOperandList).

    `mhlo_disc.custom_call` / `lmhlo_disc.custom_call` by call target,
    `mhlo_disc.custom_call_v2` by its `input_placements` (`s` marks a shape
    operand), other ops by a table of the dynamic-shape ops.
    """
    name = op.name
    dialect, _, mnemonic = name.partition(".")
    if mnemonic == "custom_call" and dialect in _DISC_SHAPE_OPERAND_DIALECTS:
        target = _string_attr(op, "call_target_name") or ""
        return list(_CUSTOM_CALL_SHAPE_OPERANDS.get(target, ()))
    if name == "mhlo_disc.custom_call_v2":
        items = split_placement_list(_string_attr(op, INPUT_PLACEMENTS_ATTR) or "")
        return [i for i, item in enumerate(items) if item == "s" and i < len(op.operands)]
    if dialect in _SHAPE_OPERAND_DIALECTS:
        return list(_SHAPE_OPERANDS.get(mnemonic, ()))
    if dialect in _DISC_SHAPE_OPERAND_DIALECTS:
        return list(_DISC_SHAPE_OPERANDS.get(mnemonic, ()))
    return []


# ---------------------------------------------------------------------------
# Op categories
# ---------------------------------------------------------------------------


def is_mhlo_dialect(op: Operation) -> bool:
    """An op of the mhlo or mhlo_disc dialect."""
    return op.dialect_name() in ("mhlo", "mhlo_disc")


def is_tensor_dialect(op: Operation) -> bool:
    return op.dialect_name() == "tensor"


def is_std_on_tensor(op: Operation) -> bool:
    """`arith.index_cast` on ranked tensors."""
    return (
        op.name == "arith.index_cast"
        and len(op.results) > 0
        and isinstance(op.results[0].type, TensorType)
    )


def is_mhlo_or_std_on_tensor(op: Operation) -> bool:
    return is_mhlo_dialect(op) or is_std_on_tensor(op)


def is_mark_shape_calc_target_op(op: Operation) -> bool:
    """Ops `disc-mhlo-mark-shape-calc` may mark: tensor, mhlo(_disc), index_cast on tensors."""
    return is_tensor_dialect(op) or is_mhlo_dialect(op) or is_std_on_tensor(op)


def has_tuple_result(op: Operation) -> bool:
    return bool(op.results) and isinstance(op.results[0].type, TupleType)


def bool_attr_value(attr: Attribute | None) -> bool | None:
    """The value of a `true` / `false` (i1 integer) attribute, else None."""
    if (
        isinstance(attr, IntegerAttr)
        and isinstance(attr.type, IntegerType)
        and attr.type.width.data == 1
    ):
        return bool(attr.value.data)
    return None


def true_attr() -> IntegerAttr:
    """MLIR's `true` BoolAttr."""
    return IntegerAttr(1, IntegerType(1))


def tuple_size(op: Operation) -> int:
    """Number of elements of the tuple type of `op`'s first result."""
    t = op.results[0].type
    types = getattr(t, "types", None)
    return len(types.data) if types is not None else 0


# ---------------------------------------------------------------------------
# Placement queries
# ---------------------------------------------------------------------------


def op_placement_string(op: Operation) -> str | None:
    """The string `disc.device` of `op`, or None (absent or an array)."""
    attr = op.attributes.get(PLACEMENT_ATTR)
    return attr.data if isinstance(attr, StringAttr) else None


def is_gpu_mhlo(op: Operation | None) -> bool:
    """An mhlo-level op placed on the GPU: `disc.device = "gpu"` or no string placement."""
    if op is None:
        return False
    attr = op.attributes.get(PLACEMENT_ATTR)
    if not isinstance(attr, StringAttr):
        return True
    return attr.data == GPU


def is_gpu_memref(value: SSAValue) -> bool:
    """A memref value in GPU memory (a `#gpu.address_space<...>` memory space)."""
    t = value.type
    if not isinstance(t, MemRefType):
        raise ValueError("is_gpu_memref expects a memref value")
    return is_gpu_memory_space(t.memory_space)


def is_gpu_memory_space(space: Attribute) -> bool:
    return space.name == "gpu.address_space"


def is_gpu_lmhlo(op: Operation | None) -> bool:
    """An lmhlo op (not the terminator) that runs on the GPU.

    An explicit `disc.device` decides; an `lmhlo.fusion` without one is on the
    GPU; otherwise the output buffer (last operand) decides.
    """
    if op is None or op.dialect_name() != "lmhlo" or op.name == "lmhlo.terminator":
        return False
    placement = op_placement_string(op)
    if placement is not None:
        return placement == GPU
    if op.name == "lmhlo.fusion":
        return True
    if not op.operands or not isinstance(op.operands[-1].type, MemRefType):
        return False
    return is_gpu_memref(op.operands[-1])


def copy_with_memory_space(t: MemRefType, memory_space: Attribute) -> MemRefType:
    """`t` with its memory space replaced."""
    return memref_type(t.element_type, t.get_shape(), t.layout, memory_space)


# ---------------------------------------------------------------------------
# Entry function placements
# ---------------------------------------------------------------------------


def find_entry_function(module: Operation, name: str = "main") -> Operation | None:
    """The `func.func @name` directly inside `module` (BladeDISC's entry function is `@main`)."""
    for op in module.regions[0].ops:
        if op.name != "func.func":
            continue
        sym = op.properties.get("sym_name")
        if sym is None:
            sym = op.attributes.get("sym_name")
        if isinstance(sym, StringAttr) and sym.data == name:
            return op
    return None


def _parse_placement_attribute(
    func: Operation, default_on_gpu: bool, attr_name: str, count: int
) -> list[str]:
    entry = func.attributes.get(ENTRY_FUNCTION_ATTR)
    if not isinstance(entry, DictionaryAttr):
        raise DiagnosticException("entry function must have tf.entry_function attr.")
    placements = entry.data.get(attr_name)
    if placements is None:
        return [GPU if default_on_gpu else CPU] * count
    if not isinstance(placements, StringAttr):
        raise DiagnosticException("placement attribute should be string type")
    items = split_placement_list(placements.data)
    if len(items) != count:
        raise DiagnosticException("placement size mismatch")
    for item in items:
        if item not in (CPU, GPU, CONST):
            raise DiagnosticException("unknown placement type name")
    return items


def _func_type_counts(func: Operation) -> tuple[int, int]:
    ft = func.properties.get("function_type")
    if ft is None:
        ft = func.attributes.get("function_type")
    inputs = getattr(ft, "inputs", None)
    outputs = getattr(ft, "outputs", None)
    return (
        len(inputs.data) if inputs is not None else 0,
        len(outputs.data) if outputs is not None else 0,
    )


def entry_input_placements(func: Operation, default_on_gpu: bool) -> list[PlacementType]:
    """Placement of each argument of the entry function `func`.

    Raises DiagnosticException when `tf.entry_function` is missing or malformed;
    without `input_placements` every argument takes the default device.
    """
    n_in, _ = _func_type_counts(func)
    return [
        PlacementType(p)
        for p in _parse_placement_attribute(func, default_on_gpu, INPUT_PLACEMENTS_ATTR, n_in)
    ]


def entry_output_placements(func: Operation, default_on_gpu: bool) -> list[PlacementType]:
    """Placement of each result of the entry function `func` (see `entry_input_placements`)."""
    _, n_out = _func_type_counts(func)
    return [
        PlacementType(p)
        for p in _parse_placement_attribute(func, default_on_gpu, OUTPUT_PLACEMENTS_ATTR, n_out)
    ]


def custom_call_v2_placement(item: str, default_on_gpu: bool) -> PlacementType:
    """A custom_call_v2 placement letter: `h`/`s` host, `d` device, `x` the default device."""
    if item in ("h", "s"):
        return PlacementType.CPU
    if item == "d":
        return PlacementType.GPU
    if item == "x":
        return PlacementType.GPU if default_on_gpu else PlacementType.CPU
    raise DiagnosticException(f"unknown custom_call_v2 placement '{item}'")


def placement_array(value: str, count: int) -> ArrayAttr:
    """`["cpu", "cpu", ...]` for a tuple of `count` elements."""
    return ArrayAttr([StringAttr(value)] * count)


__all__ = [
    "CONST",
    "CPU",
    "ENTRY_FUNCTION_ATTR",
    "GPU",
    "INPUT_PLACEMENTS_ATTR",
    "OUTPUT_PLACEMENTS_ATTR",
    "PLACEMENT_ATTR",
    "SHAPE_OP_ATTR",
    "PlacementType",
    "copy_with_memory_space",
    "custom_call_v2_placement",
    "entry_input_placements",
    "entry_output_placements",
    "find_entry_function",
    "bool_attr_value",
    "has_tuple_result",
    "is_gpu_lmhlo",
    "is_gpu_memory_space",
    "is_gpu_memref",
    "is_gpu_mhlo",
    "is_mark_shape_calc_target_op",
    "is_mhlo_dialect",
    "is_mhlo_or_std_on_tensor",
    "is_std_on_tensor",
    "is_tensor_dialect",
    "op_placement_string",
    "placement_array",
    "shape_calc_operand_indices",
    "split_placement_list",
    "true_attr",
    "tuple_size",
]
