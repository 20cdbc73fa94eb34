"""Scalar evaluation of the tensor bodies lmhlo ops keep (a sort comparator).

`hlo-legalize-to-lhlo` converts reduce bodies to lmhlo, but keeps the region
of `lmhlo.sort` (and `lmhlo.scatter`) as mlir-hlo does: mhlo ops on rank-0
tensors, ending in `mhlo.return`. `evaluate_hlo_body(b, region, args)` emits,
at `b`'s insertion point, the arith / math ops computing that region on
scalars -- `args` bound to the block arguments in order -- and returns the
scalars `mhlo.return` yields.

Inside the body:

* elementwise mhlo ops (`compare` with its `compare_type`, TOTALORDER
  included, `select`, `and`, `convert`...) map through
  `scalar.map_lmhlo_to_scalar`, which keys on the op's short name;
* `mhlo.constant` of a rank-0 (or splat) tensor is an `arith.constant`;
* rank-0 `reshape` / `broadcast_in_dim` / `broadcast` / `copy` forward their
  operand.

Values the body captures from the enclosing function (JAX's comparators use
constants defined outside the sort) are read as scalars: a
`bufferization.to_tensor` of a rank-0 memref is a `memref.load` of it, a
splat `mhlo.constant` / `arith.constant` an `arith.constant`.

Anything else (non-scalar values, ops without a scalar form) raises
`UnsupportedOp`; `body_is_supported(region)` tells in advance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, Region, SSAValue

from disc_ir.codegen import scalar
from disc_ir.codegen.loop_utils import OpBuilder
from disc_ir.codegen.scalar import UnsupportedOp
from disc_ir.ir.attrs import inherent_attr

#: mhlo ops with an elementwise scalar form (the names `map_lmhlo_to_scalar` knows).
SCALAR_HLO_OPS = frozenset(
    "mhlo." + m
    for m in (
        "abs cbrt ceil convert count_leading_zeros cosine exponential exponential_minus_one "
        "floor is_finite log log_plus_one logistic not negate popcnt round_nearest_afz "
        "round_nearest_even rsqrt sign sine sqrt tan tanh add atan2 divide maximum minimum "
        "multiply power remainder shift_left shift_right_arithmetic shift_right_logical "
        "subtract and or xor compare select clamp bitcast_convert"
    ).split()
)
_FORWARDING = frozenset({"mhlo.reshape", "mhlo.broadcast_in_dim", "mhlo.broadcast", "mhlo.copy"})
_RETURNS = frozenset({"mhlo.return", "stablehlo.return"})


def _scalar_type(value: SSAValue) -> Attribute:
    """The element type of the rank-0 tensor `value` (UnsupportedOp otherwise)."""
    t = value.type
    if isinstance(t, TensorType):
        if t.get_shape():
            raise UnsupportedOp(f"a non-scalar value of type {t} in an op body")
        return t.element_type
    return t


def _splat(attr: Attribute | None) -> float | int | None:
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    values = attr.get_values()
    if not values or len(set(values)) != 1:
        return None
    return values[0]


def _constant(b: OpBuilder, value: float | int, elem: Attribute) -> SSAValue:
    st = scalar.signless(elem)
    if scalar.is_float(elem):
        out = b.create(arith.ConstantOp(FloatAttr(float(value), cast(AnyFloat, elem)))).result
    elif isinstance(st, IntegerType):
        raw = int(value)
        if st.width.data == 1:
            raw = -1 if raw else 0
        out = b.create(arith.ConstantOp(IntegerAttr(raw, st))).result
    else:
        raise UnsupportedOp(f"no scalar constant of type {elem}")
    return scalar.cast_to(b, out, elem)


def _captured_source(value: SSAValue) -> tuple[str, object] | None:
    """How a value captured from above reads as a scalar: ("load", memref)
    or ("const", number); None when it cannot."""
    if not isinstance(value, OpResult):
        return None
    op = value.op
    if op.name == "bufferization.to_tensor":
        source = op.operands[0]
        if isinstance(source.type, MemRefType) and not source.type.get_shape():
            return ("load", source)
        return None
    if op.name in ("mhlo.constant", "arith.constant"):
        v = _splat(inherent_attr(op, "value"))
        return None if v is None else ("const", v)
    return None


def _read_captured(b: OpBuilder, value: SSAValue) -> SSAValue:
    source = _captured_source(value)
    if source is None:
        where = value.op.name if isinstance(value, OpResult) else "a block argument"
        raise UnsupportedOp(f"an op body reads a value defined outside it by '{where}'")
    kind, payload = source
    if kind == "load":
        return b.create(memref.LoadOp.get(payload, [])).res  # type: ignore[arg-type]  # a "load" source's payload is the memref value
    return _constant(b, payload, _scalar_type(value))  # type: ignore[arg-type]  # a "const" source's payload is the number


def body_is_supported(region: Region) -> str | None:
    """None when `evaluate_hlo_body` can evaluate `region`, else why not."""
    block = region.blocks.first
    if block is None or len(region.blocks) != 1:
        return "a body of more than one block"
    inside = set(block.args)
    for op in block.ops:
        for value in op.operands:
            if value not in inside and _captured_source(value) is None:
                return f"'{op.name}' reads a value defined outside the body"
        if op.name in _RETURNS:
            continue
        if op.name == "mhlo.constant":
            if _splat(inherent_attr(op, "value")) is None:
                return "a non-splat mhlo.constant"
        elif op.name not in SCALAR_HLO_OPS and op.name not in _FORWARDING:
            return f"'{op.name}' has no scalar form"
        for r in op.results:
            if isinstance(r.type, TensorType) and r.type.get_shape():
                return f"'{op.name}' computes a non-scalar tensor"
        inside.update(op.results)
    return None


def read_captures(b: OpBuilder, region: Region) -> dict[SSAValue, SSAValue]:
    """Read, at `b`, every value `region` captures from above as a scalar
    (to pass to `evaluate_hlo_body`, e.g. once per row instead of once per
    comparison)."""
    block = region.blocks.first
    assert block is not None
    inside = set(block.args)
    out: dict[SSAValue, SSAValue] = {}
    for op in block.ops:
        for v in op.operands:
            if v not in inside and v not in out:
                out[v] = _read_captured(b, v)
        inside.update(op.results)
    return out


def erase_dead_captures(captures: dict[SSAValue, SSAValue]) -> None:
    """Erase the tensor views (`bufferization.to_tensor`) of captured buffers
    that nothing reads any more, once the op whose body read them is lowered."""
    for value in captures:
        if (
            isinstance(value, OpResult)
            and value.op.name == "bufferization.to_tensor"
            and not value.uses
        ):
            value.op.detach()
            value.op.erase()


def evaluate_hlo_body(
    b: OpBuilder,
    region: Region,
    args: Sequence[SSAValue],
    captures: dict[SSAValue, SSAValue] | None = None,
) -> list[SSAValue]:
    """The scalars `region`'s `mhlo.return` yields, `args` bound to its block
    arguments; `captures` (from `read_captures`) gives the values read from
    above, the others are read at `b`."""
    block = region.blocks.first
    assert block is not None
    if len(block.args) != len(args):
        raise UnsupportedOp(f"an op body takes {len(block.args)} arguments, {len(args)} were given")
    value_of: dict[SSAValue, SSAValue] = dict(captures or {})
    value_of.update(zip(block.args, args, strict=True))

    def read(v: SSAValue) -> SSAValue:
        found = value_of.get(v)
        if found is None:
            found = _read_captured(b, v)
            value_of[v] = found
        return found

    for op in block.ops:
        if op.name in _RETURNS:
            return [read(v) for v in op.operands]
        value_of[op.results[0]] = _evaluate(b, op, read)
    raise UnsupportedOp("an op body without mhlo.return")


def _evaluate(b: OpBuilder, op: Operation, read) -> SSAValue:  # noqa: ANN001 - a closure
    if len(op.results) != 1:
        raise UnsupportedOp(f"'{op.name}' in an op body must have one result")
    out_type = _scalar_type(op.results[0])
    if op.name == "mhlo.constant":
        v = _splat(inherent_attr(op, "value"))
        if v is None:
            raise UnsupportedOp("a non-splat mhlo.constant in an op body")
        return _constant(b, v, out_type)
    operands = [read(v) for v in op.operands]
    if op.name in _FORWARDING:
        for operand in op.operands:
            _scalar_type(operand)
        return operands[0]
    if op.name not in SCALAR_HLO_OPS:
        raise UnsupportedOp(f"'{op.name}' in an op body has no scalar form")
    return scalar.map_lmhlo_to_scalar(b, op, out_type, operands)


__all__ = ["SCALAR_HLO_OPS", "body_is_supported", "evaluate_hlo_body", "read_captures"]
