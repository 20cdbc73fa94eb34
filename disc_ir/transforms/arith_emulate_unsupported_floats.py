"""`arith-emulate-unsupported-floats`: compute unsupported float types in a wider one.

MLIR's pass of that name (`mlir/lib/Dialect/Arith/Transforms/EmulateUnsupportedFloats.cpp`):
every `arith` / `math` op with an operand or result of one of `source-types`
is rebuilt on `target-type` -- the source-typed operands widened with
`arith.extf`, the source-typed results narrowed back with `arith.truncf` --
so each op rounds its result to the source type, as the op's own semantics
say (XLA's CPU backend computes bf16 the same way: in f32, one rounding per
op). Ops that only move or reinterpret values stay as they are:
`arith.extf`, `arith.truncf`, `arith.constant`, `arith.select`,
`arith.bitcast`. Vector types are widened element-wise.

disc-ir runs it with `source-types=bf16 target-type=f32` before
`disc-bf16-expansion`, so that the LLVM module holds no bf16 arithmetic
(llvmlite has no `bfloat` arithmetic, and LLVM's x86 lowering of bf16
truncation is a library call the JIT does not have).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

_FLOAT_TYPES: dict[str, Attribute] = {
    "bf16": BFloat16Type(),
    "f16": Float16Type(),
    "f32": Float32Type(),
    "f64": Float64Type(),
}
#: ops that move or reinterpret values: legal on any type
_KEPT = frozenset({"arith.extf", "arith.truncf", "arith.constant", "arith.select", "arith.bitcast"})


def _float_type(name: str, option: str) -> Attribute:
    t = _FLOAT_TYPES.get(name.strip())
    if t is None:
        raise DiagnosticException(
            f"arith-emulate-unsupported-floats: {option} '{name}' is not a float type "
            f"({', '.join(_FLOAT_TYPES)})"
        )
    return t


def _retyped(t: Attribute, sources: frozenset[Attribute], target: Attribute) -> Attribute | None:
    """`t` with a source float element type replaced by `target`; None when it has none."""
    if t in sources:
        return target
    if isinstance(t, VectorType) and t.element_type in sources:
        return VectorType(target, t.get_shape(), t.get_scalable_dims())  # type: ignore[arg-type]  # VectorType converts the scalable-dims tuple
    return None


def emulate_op(op: Operation, sources: frozenset[Attribute], target: Attribute) -> bool:
    """Rebuild `op` on `target` if it touches a source type; True if rewritten."""
    operand_types = [_retyped(v.type, sources, target) for v in op.operands]
    result_types = [_retyped(r.type, sources, target) for r in op.results]
    if all(t is None for t in (*operand_types, *result_types)):
        return False
    if op.regions or op.successors:
        raise DiagnosticException(f"arith-emulate-unsupported-floats: cannot emulate '{op.name}'")
    point = InsertPoint.before(op)
    operands: list[SSAValue] = []
    for value, wide in zip(op.operands, operand_types, strict=True):
        if wide is None:
            operands.append(value)
            continue
        ext = arith.ExtFOp(value, wide)
        Rewriter.insert_op(ext, point)
        operands.append(ext.result)
    new_op = type(op).create(
        operands=operands,
        result_types=[
            wide if wide is not None else r.type
            for r, wide in zip(op.results, result_types, strict=True)
        ],
        properties=dict(op.properties),
        attributes=dict(op.attributes),
    )
    Rewriter.insert_op(new_op, point)
    replacements: list[SSAValue] = []
    for old, new, wide in zip(op.results, new_op.results, result_types, strict=True):
        if wide is None:
            replacements.append(new)
            continue
        trunc = arith.TruncFOp(new, old.type)
        Rewriter.insert_op(trunc, point)
        replacements.append(trunc.result)
    for old_result, replacement in zip(op.results, replacements, strict=True):
        old_result.replace_all_uses_with(replacement)
    op.detach()
    op.erase()
    return True


@register_pass
@dataclass(frozen=True)
class ArithEmulateUnsupportedFloatsPass(ModulePass):
    """Emulate operations on unsupported floats with extf/truncf."""

    name = "arith-emulate-unsupported-floats"

    source_types: tuple[str, ...] = ()
    target_type: str = ""

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "source-types": "MLIR types without arithmetic support on a given target",
        "target-type": "MLIR type to convert the unsupported source types to",
    }

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if not self.source_types:
            return
        if not self.target_type:
            raise DiagnosticException("arith-emulate-unsupported-floats: no target-type given")
        target = _float_type(self.target_type, "target-type")
        sources = frozenset(_float_type(s, "source-types") for s in self.source_types)
        for inner in preorder_ops(op):
            if inner.dialect_name() not in ("arith", "math") or inner.name in _KEPT:
                continue
            emulate_op(inner, sources, target)


__all__ = ["ArithEmulateUnsupportedFloatsPass", "emulate_op"]
