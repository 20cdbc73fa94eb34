"""`arith` -> `llvm` (MLIR's ArithToLLVM plus the ArithExpandOps expansions).

`index` is `i64`; vectors (1-D) lower to the same ops on vector types.

* integer/float binary ops -> `llvm.add`/`llvm.fadd`/... (fast-math flags kept);
* `cmpi`/`cmpf` -> `llvm.icmp`/`llvm.fcmp` (same predicate numbering);
* `select`, `negf`, casts (`extsi/extui/trunci/extf/truncf/sitofp/uitofp/fptosi/
  fptoui/bitcast`), `index_cast` (sext/trunc), `index_castui` (zext/trunc);
* `maxnumf/minnumf` -> `llvm.intr.maxnum/minnum`, `maximumf/minimumf` ->
  `llvm.maximum/minimum` intrinsics; `max/min s/u i` -> `icmp` + `select`;
* `floordivsi`, `ceildivsi`, `ceildivui` -> div/rem + correction.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    VectorType,
    i1,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.utils.hints import isa

from disc_ir.conversion import llvm_builders
from disc_ir.conversion.dispatch import Handler, OpDispatch
from disc_ir.conversion.llvm_common import (
    Emitter,
    convert_type,
    fail,
    fastmath_flags,
    get_attr,
    llvm_operands,
    replace_op,
)
from disc_ir.dialects.upstream import llvm as dllvm
from disc_ir.ir import builders


def _result_type(op: Operation) -> Attribute:
    return convert_type(op.results[0].type)


def _element(t: Attribute) -> Attribute:
    return t.get_element_type() if isinstance(t, VectorType) else t


# ---------------------------------------------------------------------------
# Handlers
# ---------------------------------------------------------------------------


def _constant(op: Operation, rewriter: PatternRewriter) -> None:
    value = get_attr(op, "value")
    result_type = _result_type(op)
    if isinstance(value, IntegerAttr):
        attr: Attribute = IntegerAttr(value.value.data, result_type)  # type: ignore[call-overload]  # an IntegerAttr's op has an integer or index result
    elif isinstance(value, FloatAttr):
        attr = value
    elif isinstance(value, DenseIntOrFPElementsAttr):
        if value.get_type() != result_type:
            attr = DenseIntOrFPElementsAttr.from_list(result_type, list(value.get_values()))  # type: ignore[call-overload]  # a dense constant's op has a shaped result
        else:
            attr = value
    else:
        raise fail(op, f"cannot lower constant {value}")
    const = llvm_builders.constant_attr(attr, result_type)
    replace_op(op, rewriter, [const], [const.result])


#: the lowered ops' properties by class (and flags): they do not depend on the operands
_TEMPLATES = builders.Templates()


def _int_binary(cls: type[Operation]) -> Handler:
    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        lhs, rhs = llvm_operands(op, rewriter)
        new = _TEMPLATES.make(
            cls,
            lambda: cls(lhs, rhs),  # type: ignore[arg-type, misc]  # each handler gets an op class whose constructor takes these operands
            [lhs, rhs],
            [lhs.type],
        )
        replace_op(op, rewriter, [new], [new.results[0]])

    return handler


def _float_binary(cls: type[Operation]) -> Handler:
    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        lhs, rhs = llvm_operands(op, rewriter)
        flags = fastmath_flags(op)
        new = _TEMPLATES.make(
            (cls, flags),
            lambda: cls(lhs, rhs, flags),  # type: ignore[arg-type, misc]  # each handler gets an op class whose constructor takes these operands
            [lhs, rhs],
            [lhs.type],
        )
        replace_op(op, rewriter, [new], [new.results[0]])

    return handler


def _intrinsic_binary(name: str) -> Handler:
    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        lhs, rhs = llvm_operands(op, rewriter)
        new = llvm.CallIntrinsicOp(intrinsic_name(name, lhs.type), [lhs, rhs], [lhs.type])
        replace_op(op, rewriter, [new], [new.results[0]])

    return handler


def _min_max(predicate: str) -> Handler:
    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        lhs, rhs = llvm_operands(op, rewriter)
        cmp = llvm.ICmpOp(lhs, rhs, IntegerAttr(llvm.ICmpPredicateFlag(predicate).to_int(), i64))
        sel = llvm.SelectOp(cmp.res, lhs, rhs)
        replace_op(op, rewriter, [cmp, sel], [sel.res])

    return handler


def _cmpi(op: Operation, rewriter: PatternRewriter) -> None:
    lhs, rhs = llvm_operands(op, rewriter)
    predicate = op.properties["predicate"]
    assert isinstance(predicate, IntegerAttr)
    lhs_type = lhs.type
    # `llvm.ICmpOp(lhs, rhs, predicate)`'s result: i1, or a vector of them
    result_type = VectorType(i1, lhs_type.shape) if isinstance(lhs_type, VectorType) else i1
    new = builders.make(
        llvm.ICmpOp,
        [lhs, rhs],
        [result_type],
        {"predicate": IntegerAttr(predicate.value.data, i64)},
    )
    replace_op(op, rewriter, [new], [new.res])


def _cmpf(op: Operation, rewriter: PatternRewriter) -> None:
    lhs, rhs = llvm_operands(op, rewriter)
    predicate = op.properties["predicate"]
    assert isinstance(predicate, IntegerAttr)
    if isinstance(lhs.type, VectorType):
        raise fail(op, "vector comparisons are not supported by the LLVM lowering")
    new = llvm.FCmpOp(lhs, rhs, IntegerAttr(predicate.value.data, i64))
    replace_op(op, rewriter, [new], [new.results[0]])


def _select(op: Operation, rewriter: PatternRewriter) -> None:
    cond, lhs, rhs = llvm_operands(op, rewriter)
    new = llvm.SelectOp(cond, lhs, rhs)
    replace_op(op, rewriter, [new], [new.res])


def _negf(op: Operation, rewriter: PatternRewriter) -> None:
    (arg,) = llvm_operands(op, rewriter)
    new = llvm.FNegOp(arg, fastmath_flags(op))
    replace_op(op, rewriter, [new], [new.res])


def _cast(cls: type[Operation]) -> Handler:
    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        (arg,) = llvm_operands(op, rewriter)
        target = _result_type(op)
        if arg.type == target:
            replace_op(op, rewriter, [], [arg])
            return
        new = cls(arg, target)  # type: ignore[arg-type, misc]  # each handler gets an op class whose constructor takes these operands
        replace_op(op, rewriter, [new], [new.results[0]])

    return handler


def _int_width(t: Attribute) -> int:
    elem = _element(t)
    if isinstance(elem, IndexType):
        return 64
    assert isinstance(elem, IntegerType)
    return elem.width.data


def _index_cast(signed: bool) -> Handler:
    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        (arg,) = llvm_operands(op, rewriter)
        target = _result_type(op)
        src_width, dst_width = _int_width(arg.type), _int_width(target)
        if src_width == dst_width:
            replace_op(op, rewriter, [], [arg])
            return
        if src_width > dst_width:
            new: Operation = llvm.TruncOp(arg, target)
        elif signed:
            new = llvm.SExtOp(arg, target)
        else:
            new = llvm.ZExtOp(arg, target)
        replace_op(op, rewriter, [new], [new.results[0]])

    return handler


def _icmp(em: Emitter, pred: str, a: SSAValue, b: SSAValue) -> SSAValue:
    return em.value(llvm.ICmpOp(a, b, IntegerAttr(llvm.ICmpPredicateFlag(pred).to_int(), i64)))


def _splat(em: Emitter, value: int, like: SSAValue) -> SSAValue:
    t = like.type
    if isinstance(t, VectorType):
        attr = DenseIntOrFPElementsAttr.from_list(t, [value] * t.element_count())
        return em.value(llvm.ConstantOp(attr, t))
    return em.const(value, t)


def _floor_ceil_div(kind: str) -> Handler:
    """q = a / b; r = a % b; adjust q by -1 (floor) / +1 (ceil) when r != 0 and the
    exact quotient was rounded the wrong way."""

    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        a, b = llvm_operands(op, rewriter)
        em = Emitter(rewriter, op)
        zero = _splat(em, 0, a)
        one = _splat(em, 1, a)
        if kind == "ceildivui":
            q = em.value(llvm.UDivOp(a, b))
            r = em.value(llvm.URemOp(a, b))
            nonzero = _icmp(em, "ne", r, zero)
            result = em.value(llvm.SelectOp(nonzero, em.value(llvm.AddOp(q, one)), q))
            rewriter_replace(op, rewriter, result)
            return
        q = em.value(llvm.SDivOp(a, b))
        r = em.value(llvm.SRemOp(a, b))
        nonzero = _icmp(em, "ne", r, zero)
        r_neg = _icmp(em, "slt", r, zero)
        b_neg = _icmp(em, "slt", b, zero)
        if kind == "floordivsi":
            signs_differ = em.value(llvm.XOrOp(r_neg, b_neg))
            adjust = em.value(llvm.AndOp(nonzero, signs_differ))
            fixed = em.value(llvm.SubOp(q, one))
        else:
            signs_differ = em.value(llvm.XOrOp(r_neg, b_neg))
            same = em.value(llvm.XOrOp(signs_differ, _splat(em, 1, signs_differ)))
            adjust = em.value(llvm.AndOp(nonzero, same))
            fixed = em.value(llvm.AddOp(q, one))
        result = em.value(llvm.SelectOp(adjust, fixed, q))
        rewriter_replace(op, rewriter, result)

    return handler


def rewriter_replace(op: Operation, rewriter: PatternRewriter, value: SSAValue) -> None:
    """Replaces `op`'s single result by the already inserted LLVM `value`."""
    replace_op(op, rewriter, [], [value])


def intrinsic_name(base: str, t: Attribute) -> str:
    """`llvm.<base>.<type suffix>` as LLVM mangles overloaded intrinsics (`llvm.maximum.v4f32`)."""
    return f"llvm.{base}.{type_suffix(t)}"


def type_suffix(t: Attribute) -> str:
    if isinstance(t, VectorType):
        count = 1
        for d in t.get_shape():
            count *= d
        return f"v{count}{type_suffix(t.get_element_type())}"
    if isa(t, IntegerType):
        return f"i{t.width.data}"
    name = t.name if hasattr(t, "name") else str(t)
    return {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64"}.get(name, str(t))


HANDLERS: dict[str, Handler] = {
    "arith.constant": _constant,
    "arith.addi": _int_binary(llvm.AddOp),
    "arith.subi": _int_binary(llvm.SubOp),
    "arith.muli": _int_binary(llvm.MulOp),
    "arith.divui": _int_binary(llvm.UDivOp),
    "arith.divsi": _int_binary(llvm.SDivOp),
    "arith.remui": _int_binary(llvm.URemOp),
    "arith.remsi": _int_binary(llvm.SRemOp),
    "arith.andi": _int_binary(llvm.AndOp),
    "arith.ori": _int_binary(llvm.OrOp),
    "arith.xori": _int_binary(llvm.XOrOp),
    "arith.shli": _int_binary(llvm.ShlOp),
    "arith.shrui": _int_binary(llvm.LShrOp),
    "arith.shrsi": _int_binary(llvm.AShrOp),
    "arith.addf": _float_binary(llvm.FAddOp),
    "arith.subf": _float_binary(llvm.FSubOp),
    "arith.mulf": _float_binary(llvm.FMulOp),
    "arith.divf": _float_binary(llvm.FDivOp),
    "arith.remf": _float_binary(llvm.FRemOp),
    "arith.maxnumf": _float_binary(llvm.VectorFMaxOp),
    "arith.minnumf": _float_binary(llvm.VectorFMinOp),
    "arith.maximumf": _intrinsic_binary("maximum"),
    "arith.minimumf": _intrinsic_binary("minimum"),
    "arith.maxsi": _min_max("sgt"),
    "arith.minsi": _min_max("slt"),
    "arith.maxui": _min_max("ugt"),
    "arith.minui": _min_max("ult"),
    "arith.floordivsi": _floor_ceil_div("floordivsi"),
    "arith.ceildivsi": _floor_ceil_div("ceildivsi"),
    "arith.ceildivui": _floor_ceil_div("ceildivui"),
    "arith.cmpi": _cmpi,
    "arith.cmpf": _cmpf,
    "arith.select": _select,
    "arith.negf": _negf,
    "arith.extsi": _cast(llvm.SExtOp),
    "arith.extui": _cast(llvm.ZExtOp),
    "arith.trunci": _cast(llvm.TruncOp),
    "arith.extf": _cast(llvm.FPExtOp),
    "arith.truncf": _cast(llvm.FPTruncOp),
    "arith.sitofp": _cast(llvm.SIToFPOp),
    "arith.uitofp": _cast(dllvm.UIToFPOp),
    "arith.fptosi": _cast(dllvm.FPToSIOp),
    "arith.fptoui": _cast(dllvm.FPToUIOp),
    "arith.bitcast": _cast(llvm.BitcastOp),
    "arith.index_cast": _index_cast(signed=True),
    "arith.index_castui": _index_cast(signed=False),
}


def arith_to_llvm_patterns() -> list[RewritePattern]:
    """The patterns of this module."""
    return [OpDispatch(HANDLERS)]


__all__ = ["HANDLERS", "arith_to_llvm_patterns", "intrinsic_name", "type_suffix"]
