"""Legalize CHLO to MHLO.

`chlo-legalize-to-hlo` (mlir-hlo's ChloLegalizeToHloPass; BladeDISC gets it
through its TF legalization with `legalize_chlo=true`, before the DISC
pipeline) rewrites the chlo ops JAX and TF emit into mhlo:

* `chlo.broadcast_<op>` / `broadcast_compare` / `broadcast_select` -> the
  mhlo op on operands broadcast to the result shape: unchanged when an
  operand already has it, `mhlo.broadcast_in_dim` for a static result,
  `shape.shape_of` + `shape.broadcast` + `mhlo.dynamic_broadcast_in_dim` for a
  dynamic one (numpy-style trailing alignment, or `broadcast_dimensions`: the
  lower-rank operand's shape placed at those dims, 1 elsewhere, joins the
  other's);
* `chlo.erf` (f32: Eigen's rational approximation on x clamped to [-4, 4],
  result clamped to [-1, 1]) and `chlo.erfc` (f32: Cephes, `1 - x T(x^2)` for
  |x| < 1, `exp(-x^2) / |x| P(1/x^2)` or `R(1/x^2)` beyond, 0 / 2 past the
  exp underflow), the polynomial expansions mlir-hlo uses; f16 / bf16 are
  computed in f32 and converted back; today's `mhlo.erf` (no lmhlo form)
  is expanded as `chlo.erf` is;
* the special functions of `disc_ir.rewriting.chlo_math`: `chlo.asin`,
  `acos`, `atan`, `sinh`, `cosh`, `asinh`, `acosh`, `atanh` (and today's
  mhlo spellings), `lgamma`, `digamma`, `erf_inv`, `bessel_i1e`, `next_after`, `zeta`
  and `polygamma` (and their `broadcast_` forms; zeta and polygamma in f64),
  `top_k` (a stable descending sort of (x, iota)
  and a slice); today's `mhlo.reduce_precision` on the bits; today's
  `mhlo.batch_norm_inference` / `_training` / `_grad` unfused into
  reductions and elementwise ops (mlir-hlo's unfuse-batch-norm patterns);
* `chlo.square` -> `mhlo.multiply %x, %x`; `chlo.tan` -> `sine / cosine`;
  `chlo.is_inf` / `is_pos_inf` / `is_neg_inf` -> compares with infinity;
  `chlo.constant` -> `mhlo.constant`; `chlo.constant_like` -> a splat.

Constants shaped like a dynamic operand are a scalar `mhlo.constant`
broadcast with `mhlo.dynamic_broadcast_in_dim` to `shape.shape_of` of the
operand (mlir-hlo's getConstantLike). Other chlo ops are left in place (the
compiler then names them as unsupported).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.dialects.hlo_attrs import (
    ComparisonDirectionAttr,
    ComparisonTypeAttr,
    ints,
)
from disc_ir.ir.mhlo_builder import MhloBuilder
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting import chlo_math

_ERF_T = (
    7.853861353153693e-5,
    -8.010193625184903e-4,
    5.188327685732524e-3,
    -2.685381193529856e-2,
    1.128358514861418e-1,
    -3.761262582423300e-1,
    1.128379165726710e0,
)
_ERFC_P = (
    2.326819970068386e-2,
    -1.387039388740657e-1,
    3.687424674597105e-1,
    -5.824733027278666e-1,
    6.210004621745983e-1,
    -4.944515323274145e-1,
    3.404879937665872e-1,
    -2.741127028184656e-1,
    5.638259427386472e-1,
)
_ERFC_R = (
    -1.047766399936249e1,
    1.297719955372516e1,
    -7.495518717768503e0,
    2.921019019210786e0,
    -1.015265279202700e0,
    4.218463358204948e-1,
    -2.820767439740514e-1,
    5.641895067754075e-1,
)
_MAXLOG = 88.72283905206835


# -- erf / erfc (f32) ---------------------------------------------------------


def _erf_f32(b: MhloBuilder, x: SSAValue) -> SSAValue:
    """erf for f32: Cephes' polynomial below |x| = 1, `1 - erfc(x)` above (within
    3 ulps). mlir-hlo lowers `chlo.erf` with Eigen's single rational
    approximation over x clamped to [-4, 4] instead: up to 5.5 ulps off, and it
    reaches 1.0 four ulps early near |x| = 3.6, which a conversion to an integer
    turns into a whole unit."""
    one = b.const(1.0, x)
    small = _erf_le_one_f32(b, x)
    large = b.binary("subtract", one, _erfc_ge_one_f32(b, x))
    lt_one = b.compare("LT", b.op("mhlo.abs", [x]), one)
    return b.select(lt_one, small, large)


def _erf_le_one_f32(b: MhloBuilder, x: SSAValue) -> SSAValue:
    x2 = b.binary("multiply", x, x)
    return b.binary("multiply", x, b.poly(x2, _ERF_T))


def _erfc_ge_one_f32(b: MhloBuilder, x: SSAValue) -> SSAValue:
    x2 = b.binary("multiply", x, x)
    z = b.op("mhlo.negate", [x2])
    abs_x = b.op("mhlo.abs", [x])
    one = b.const(1.0, x)
    rx2 = b.binary("divide", one, x2)
    exp_z = b.op("mhlo.exponential", [z])
    scale = b.binary("multiply", exp_z, b.binary("divide", one, abs_x))
    two = b.const(2.0, x)
    lt_two = b.compare("LT", abs_x, two)
    poly = b.select(lt_two, b.poly(rx2, _ERFC_P), b.poly(rx2, _ERFC_R))
    approx = b.binary("multiply", scale, poly)
    zero = b.const(0.0, x)
    underflow = b.compare("LT", z, b.const(-_MAXLOG, x))
    clamped = b.select(underflow, zero, approx)
    negative = b.compare("LT", x, zero)
    return b.select(negative, b.binary("subtract", two, clamped), clamped)


def _erfc_f32(b: MhloBuilder, x: SSAValue) -> SSAValue:
    large = _erfc_ge_one_f32(b, x)
    one = b.const(1.0, x)
    small = b.binary("subtract", one, _erf_le_one_f32(b, x))
    lt_one = b.compare("LT", b.op("mhlo.abs", [x]), one)
    return b.select(lt_one, small, large)


def _square(b: MhloBuilder, x: SSAValue) -> SSAValue:
    return b.binary("multiply", x, x)


def _tan(b: MhloBuilder, x: SSAValue) -> SSAValue:
    return b.binary("divide", b.op("mhlo.sine", [x]), b.op("mhlo.cosine", [x]))


def _inf_check(kind: str) -> Callable[[MhloBuilder, SSAValue], SSAValue]:
    def apply(b: MhloBuilder, x: SSAValue) -> SSAValue:
        if kind == "is_inf":
            return b.compare("EQ", b.op("mhlo.abs", [x]), b.const(math.inf, x))
        value = math.inf if kind == "is_pos_inf" else -math.inf
        return b.compare("EQ", x, b.const(value, x))

    return apply


_UNARY: dict[str, Callable[[MhloBuilder, SSAValue], SSAValue | None]] = {
    "chlo.erf": chlo_math.with_f32(_erf_f32),
    "mhlo.erf": chlo_math.with_f32(_erf_f32),
    "chlo.erfc": chlo_math.with_f32(_erfc_f32),
    "chlo.square": _square,
    "chlo.tan": _tan,
    "chlo.is_inf": _inf_check("is_inf"),
    "chlo.is_pos_inf": _inf_check("is_pos_inf"),
    "chlo.is_neg_inf": _inf_check("is_neg_inf"),
    **chlo_math.UNARY_EXPANSIONS,
    # today's mhlo spells these without the chlo prefix
    **{
        f"mhlo.{n}": chlo_math.UNARY_EXPANSIONS[f"chlo.{n}"]
        for n in ("acos", "acosh", "asin", "asinh", "atanh", "cosh", "sinh")
    },
}

# -- broadcasting binary ops ----------------------------------------------------


def _broadcast_to(
    b: MhloBuilder, value: SSAValue, result: TensorType, dims: Sequence[int], shape: SSAValue | None
) -> SSAValue:
    t = value.type
    assert isinstance(t, TensorType)
    out = TensorType(t.get_element_type(), result.get_shape())
    if t.get_shape() == result.get_shape() and DYNAMIC_INDEX not in t.get_shape():
        return value
    attr = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(dims)]), list(dims))
    if shape is None:
        return b.op("mhlo.broadcast_in_dim", [value], out, {"broadcast_dimensions": attr})
    return b.op(
        "mhlo.dynamic_broadcast_in_dim", [value, shape], out, {"broadcast_dimensions": attr}
    )


def _mapped_shape(b: MhloBuilder, value: SSAValue, dims: Sequence[int], rank: int) -> SSAValue:
    """`tensor<rank x index>`: the shape of `value` placed at `dims` of a rank
    `rank` shape, 1 elsewhere (what `broadcast_dimensions` maps it to), so
    that `shape.broadcast` joins it with the higher-rank operand's shape
    dim by dim."""
    made: list[Operation] = []
    one = arith.ConstantOp(IntegerAttr(1, IndexType()))
    made.append(one)
    extents: list[SSAValue] = [one.result] * rank
    for i, d in enumerate(dims):
        at = arith.ConstantOp(IntegerAttr(i, IndexType()))
        dim = tensor.DimOp(value, at.result)
        made += [at, dim]
        extents[d] = dim.result
    shape = tensor.FromElementsOp(*extents, result_type=TensorType(IndexType(), [rank]))
    b.rewriter.insert_op([*made, shape], InsertPoint.before(b.anchor))
    return shape.results[0]


def _broadcast_operands(b: MhloBuilder, op: Operation) -> list[SSAValue] | None:
    result = op.results[0].type
    if not isinstance(result, TensorType) or not all(
        isinstance(o.type, TensorType) for o in op.operands
    ):
        return None
    rank = result.get_num_dims()
    same = all(o.type.get_shape() == result.get_shape() for o in op.operands)  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
    if same and DYNAMIC_INDEX not in result.get_shape():
        return list(op.operands)
    explicit = op.attributes.get("broadcast_dimensions")
    shape: SSAValue | None = None
    if DYNAMIC_INDEX in result.get_shape() or same:
        from disc_ir.dialects.upstream.shape import BroadcastOp

        shapes = [
            _mapped_shape(b, o, ints(explicit), rank)
            if explicit is not None and o.type.get_num_dims() != rank  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
            else b.shape_of(o)
            for o in op.operands
        ]
        if len(shapes) == 1:
            shape = shapes[0]
        else:
            bc = BroadcastOp.create(operands=shapes, result_types=[TensorType(IndexType(), [rank])])
            b.rewriter.insert_op(bc, InsertPoint.before(op))
            shape = bc.results[0]
    out: list[SSAValue] = []
    for value in op.operands:
        k = value.type.get_num_dims()  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
        if explicit is not None and k != rank:
            dims = list(ints(explicit))
        else:
            dims = list(range(rank - k, rank))
        out.append(_broadcast_to(b, value, result, dims, shape))
    return out


def _legalize(op: Operation, rewriter: Rewriter) -> bool:
    b = MhloBuilder(rewriter, op)
    name = op.name
    if name in _UNARY:
        value = _UNARY[name](b, op.operands[0])
        if value is None:
            return False
        rewriter.replace_op(op, [], [value])
        return True
    if name == "mhlo.reduce_precision":
        e, m = (ints_of(op.attributes[k]) for k in ("exponent_bits", "mantissa_bits"))
        value = chlo_math.reduce_precision(b, op.operands[0], e, m)
        if value is None:
            return False
        rewriter.replace_op(op, [], [value])
        return True
    if name in chlo_math.BATCH_NORM_EXPANSIONS:
        eps = op.attributes["epsilon"]
        assert isinstance(eps, FloatAttr)
        expand = chlo_math.BATCH_NORM_EXPANSIONS[name]
        out = expand(b, list(op.operands), eps.value.data, ints_of(op.attributes["feature_index"]))
        if out is None:
            return False
        rewriter.replace_op(op, [], out if isinstance(out, list) else [out])
        return True
    broadcasting = name.startswith("chlo.broadcast_")
    stem = name.removeprefix("chlo.broadcast_" if broadcasting else "chlo.")
    if name.startswith("chlo.") and stem in _PAIR_EXPANSIONS:
        pair = _broadcast_operands(b, op) if broadcasting else list(op.operands)
        if pair is None:
            return False
        pair_expand = _PAIR_EXPANSIONS[stem]
        value = pair_expand(b, pair[0], pair[1])
        if value is None:
            return False
        rewriter.replace_op(op, [], [value])
        return True
    if name == "chlo.top_k":
        results = chlo_math.top_k(b, op.operands[0], ints_of(op.attributes["k"]))
        if results is None:
            return False
        rewriter.replace_op(op, [], list(results))
        return True
    if name == "chlo.constant":
        c = b.op("mhlo.constant", [], op.results[0].type, {"value": op.attributes["value"]})
        rewriter.replace_op(op, [], [c])
        return True
    if name == "chlo.constant_like":
        attr = op.attributes["value"]
        number = getattr(attr, "value", None)
        scalar = getattr(number, "data", None)
        if scalar is None:
            return False
        rewriter.replace_op(op, [], [b.const(scalar, op.operands[0])])
        return True
    if name.startswith("chlo.broadcast_"):
        operands = _broadcast_operands(b, op)
        if operands is None:
            return False
        mnemonic = name[len("chlo.broadcast_") :]
        attrs: dict[str, Attribute] = {}
        if mnemonic == "compare":
            direction = op.attributes["comparison_direction"]
            attrs["comparison_direction"] = ComparisonDirectionAttr(direction.data)  # type: ignore[attr-defined]  # the op's constraint: a comparison direction enum attribute
            kind = op.attributes.get("compare_type")
            if kind is not None:
                attrs["compare_type"] = ComparisonTypeAttr(kind.data)  # type: ignore[attr-defined]  # the op's constraint: a comparison type enum attribute
        if f"mhlo.{mnemonic}" not in _MHLO_NAMES():
            return False
        new = b.op(f"mhlo.{mnemonic}", operands, op.results[0].type, attrs)
        rewriter.replace_op(op, [], [new])
        return True
    return False


_PAIR_EXPANSIONS = {
    "next_after": chlo_math.next_after,
    "zeta": chlo_math.zeta,
    "polygamma": chlo_math.polygamma,
}

_MHLO_EXPANDED = (
    {n for n in _UNARY if n.startswith("mhlo.")}
    | {"mhlo.reduce_precision"}
    | set(chlo_math.BATCH_NORM_EXPANSIONS)
)


def ints_of(attr: Attribute) -> int:
    """The value of an integer attribute."""
    assert isinstance(attr, IntegerAttr)
    return int(attr.value.data)


def _MHLO_NAMES() -> set[str]:  # noqa: N802 - a cached constant
    from disc_ir.dialects.mhlo import MHLO_OPS

    return {c.name for c in MHLO_OPS}


def legalize_chlo(module: builtin.ModuleOp) -> None:
    """Rewrite the chlo ops of `module` this pass knows (module docstring)."""
    rewriter = Rewriter()
    for op in [
        o for o in preorder_ops(module) if o.name.startswith("chlo.") or o.name in _MHLO_EXPANDED
    ]:
        _legalize(op, rewriter)


@register_pass
@dataclass(frozen=True)
class ChloLegalizeToHloPass(ModulePass):
    """Legalize CHLO to MHLO (broadcasting ops, erf / erfc expansions, ...)."""

    name = "chlo-legalize-to-hlo"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        legalize_chlo(op)
