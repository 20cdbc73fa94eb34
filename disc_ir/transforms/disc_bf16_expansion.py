"""`disc-bf16-expansion`: bf16 <-> f32 conversions as integer arithmetic.

BladeDISC's DiscBF16ExpansionPass (`disc_bf16_expansion.cc`, with MLIR's
`arith-expand{include-bf16=true}` after it in the pipeline):

* `arith.extf %x : bf16 to f32` -> the bits shifted into the high half:

      %i = arith.bitcast %x : bf16 to i16
      %w = arith.extui %i : i16 to i32
      %s = arith.shli %w, 16 : i32
      %r = arith.bitcast %s : i32 to f32

* `arith.truncf %x : f32 to bf16` -> round to nearest even by adding
  `0x7fff + ((bits >> 16) & 1)` and keeping the high half. A NaN keeps its
  sign and is made quiet (`(bits >> 16) | 0x40`, as MLIR's `arith-expand`
  and ml_dtypes do; BladeDISC's pattern alone could carry a NaN's payload
  into the exponent and give an infinity or -0).

Conversions between bf16 and another float type go through f32 (exact when
widening; f64 -> bf16 rounds twice, as XLA's CPU backend does when it
converts through f32). Vector types are expanded element-wise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    BFloat16Type,
    Float32Type,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    VectorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


def _element(t: Attribute) -> Attribute:
    return t.element_type if isinstance(t, VectorType) else t


def _like(t: Attribute, elem: Attribute) -> Attribute:
    """`elem`, or a vector of `elem` shaped as `t`."""
    if isinstance(t, VectorType):
        return VectorType(elem, t.get_shape(), t.get_scalable_dims())  # type: ignore[arg-type]  # VectorType converts the scalable-dims tuple
    return elem


class _Emitter:
    """Inserts ops before a fixed op."""

    def __init__(self, anchor: Operation) -> None:
        self.point = InsertPoint.before(anchor)

    def emit(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, self.point)
        return op.results[0]

    def const(self, t: Attribute, value: int) -> SSAValue:
        elem = _element(t)
        assert isinstance(elem, IntegerType)
        if isinstance(t, VectorType):
            from xdsl.dialects.builtin import DenseIntOrFPElementsAttr

            attr: Attribute = DenseIntOrFPElementsAttr.from_list(t, [value])
        else:
            attr = IntegerAttr(value, elem)
        return self.emit(arith.ConstantOp(attr, t))  # type: ignore[arg-type]  # an IntegerAttr or a dense attribute of type `t`


def expand_extf(e: _Emitter, x: SSAValue, shaped_like: Attribute) -> SSAValue:
    """bf16 `x` widened to f32 (bits moved to the high half)."""
    i16 = _like(shaped_like, IntegerType(16))
    i32 = _like(shaped_like, IntegerType(32))
    bits = e.emit(arith.BitcastOp(x, i16))
    wide = e.emit(arith.ExtUIOp(bits, i32))  # type: ignore[arg-type]  # xDSL's signature says IntegerType; vectors of integers are valid IR too
    shifted = e.emit(arith.ShLIOp(wide, e.const(i32, 16)))
    return e.emit(arith.BitcastOp(shifted, _like(shaped_like, Float32Type())))


def expand_truncf(e: _Emitter, x: SSAValue, shaped_like: Attribute) -> SSAValue:
    """f32 `x` rounded to bf16 (nearest even; NaN made quiet, sign kept)."""
    i1 = _like(shaped_like, IntegerType(1))
    i16 = _like(shaped_like, IntegerType(16))
    i32 = _like(shaped_like, IntegerType(32))
    bits = e.emit(arith.BitcastOp(x, i32))
    c16 = e.const(i32, 16)
    lsb = e.emit(arith.AndIOp(e.emit(arith.ShRUIOp(bits, c16)), e.const(i32, 1)))
    bias = e.emit(arith.AddiOp(e.const(i32, 0x7FFF), lsb))
    rounded = e.emit(arith.ShRUIOp(e.emit(arith.AddiOp(bits, bias)), c16))
    quiet_nan = e.emit(arith.OrIOp(e.emit(arith.ShRUIOp(bits, c16)), e.const(i32, 0x40)))
    is_nan = e.emit(arith.CmpfOp(x, x, "uno"))
    assert is_nan.type == i1
    chosen = e.emit(arith.SelectOp(is_nan, quiet_nan, rounded))
    return e.emit(arith.BitcastOp(e.emit(arith.TruncIOp(chosen, i16)), shaped_like))  # type: ignore[arg-type]  # xDSL's signature says IntegerType; vectors of integers are valid IR too


def _resize(e: _Emitter, x: SSAValue, elem: Attribute) -> SSAValue:
    """Float `x` (not bf16) converted to float type `elem` (not bf16)."""
    src = _element(x.type)
    if src == elem:
        return x
    assert isinstance(src, AnyFloat) and isinstance(elem, AnyFloat)
    cls = arith.ExtFOp if src.bitwidth < elem.bitwidth else arith.TruncFOp
    return e.emit(cls(x, _like(x.type, elem)))


def _rewrite(op: Operation) -> bool:
    if op.name not in ("arith.extf", "arith.truncf"):
        return False
    x = op.operands[0]
    src, dst = _element(x.type), _element(op.results[0].type)
    if not (isinstance(src, BFloat16Type) or isinstance(dst, BFloat16Type)):
        return False
    e = _Emitter(op)
    if isinstance(src, BFloat16Type):
        value = _resize(e, expand_extf(e, x, x.type), dst)
    else:
        value = expand_truncf(e, _resize(e, x, Float32Type()), op.results[0].type)
    op.results[0].replace_all_uses_with(value)
    op.detach()
    op.erase()
    return True


@register_pass
@dataclass(frozen=True)
class DiscBF16ExpansionPass(ModulePass):
    """Legalize bf16 arith.extf / arith.truncf to integer arithmetic."""

    name = "disc-bf16-expansion"

    OPTION_HELP: ClassVar[dict[str, str]] = {}

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for inner in preorder_ops(op):
            _rewrite(inner)


__all__ = ["DiscBF16ExpansionPass", "expand_extf", "expand_truncf"]
