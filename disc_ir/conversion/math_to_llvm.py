"""`math` -> `llvm` (MLIR's MathToLLVM, plus libm calls for what LLVM has no intrinsic for).

* `absf ceil floor sqrt exp exp2 log log2 sin cos powf copysign fma` -> the
  `llvm.intr.*` ops;
* `log10 round roundeven trunc tan tanh sinh cosh asin acos atan atan2 fpowi
  absi ctlz cttz ctpop` -> `llvm.call_intrinsic` of the mangled intrinsic;
* `log1p` -> `log(1 + x)`, `expm1` -> `exp(x) - 1`, `rsqrt` -> `1 / sqrt(x)`;
* `erf cbrt asinh acosh atanh` (scalars) -> calls to libm (`erff`/`erf`, ...),
  declared in the module.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float32Type,
    Float64Type,
    VectorType,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.conversion.arith_to_llvm import intrinsic_name
from disc_ir.conversion.dispatch import Handler, OpDispatch
from disc_ir.conversion.llvm_common import (
    Emitter,
    fail,
    fastmath_flags,
    llvm_operands,
    lookup_symbol,
    module_of,
    replace_op,
)


def _unary_op(cls: type[Operation]) -> Handler:
    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        (x,) = llvm_operands(op, rewriter)
        new = cls(x, fastmath_flags(op))  # type: ignore[arg-type, misc]  # each handler gets an op class whose constructor takes these operands
        replace_op(op, rewriter, [new], [new.results[0]])

    return handler


def _fabs(op: Operation, rewriter: PatternRewriter) -> None:
    (x,) = llvm_operands(op, rewriter)
    new = llvm.FAbsOp(x, x.type, fastmath_flags(op))
    replace_op(op, rewriter, [new], [new.results[0]])


def _binary_op(cls: type[Operation]) -> Handler:
    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        a, b = llvm_operands(op, rewriter)
        new = cls(a, b, fastmath_flags(op))  # type: ignore[arg-type, misc]  # each handler gets an op class whose constructor takes these operands
        replace_op(op, rewriter, [new], [new.results[0]])

    return handler


def _fma(op: Operation, rewriter: PatternRewriter) -> None:
    a, b, c = llvm_operands(op, rewriter)
    new = llvm.FMAOp(a, b, c)
    replace_op(op, rewriter, [new], [new.results[0]])


def _intrinsic(base: str, extra_false_flag: bool = False, mangle_second: bool = False) -> Handler:
    """`llvm.call_intrinsic "llvm.<base>.<suffix>"(args)`; `extra_false_flag` appends an
    `i1 false` (llvm.abs / ctlz / cttz: poison on INT_MIN / zero is off)."""

    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        args = llvm_operands(op, rewriter)
        em = Emitter(rewriter, op)
        name = intrinsic_name(base, args[0].type)
        if mangle_second:
            name = f"{name}.{intrinsic_name('x', args[1].type).split('.', 2)[2]}"
        if extra_false_flag:
            args.append(em.const(0, i1))
        new = llvm.CallIntrinsicOp(name, args, [args[0].type])
        em.emit(new)
        replace_op(op, rewriter, [], [new.results[0]])

    return handler


def _one_like(em: Emitter, x: SSAValue) -> SSAValue:
    t = x.type
    if isinstance(t, VectorType):
        attr = DenseIntOrFPElementsAttr.from_list(t, [1.0] * t.element_count())
        return em.value(llvm.ConstantOp(attr, t))
    return em.const(1.0, t)


def _log1p(op: Operation, rewriter: PatternRewriter) -> None:
    (x,) = llvm_operands(op, rewriter)
    em = Emitter(rewriter, op)
    fm = fastmath_flags(op)
    sum_ = em.value(llvm.FAddOp(_one_like(em, x), x, fm))
    res = em.value(llvm.FLogOp(sum_, fm))
    replace_op(op, rewriter, [], [res])


def _expm1(op: Operation, rewriter: PatternRewriter) -> None:
    (x,) = llvm_operands(op, rewriter)
    em = Emitter(rewriter, op)
    fm = fastmath_flags(op)
    e = em.value(llvm.FExpOp(x, fm))
    res = em.value(llvm.FSubOp(e, _one_like(em, x), fm))
    replace_op(op, rewriter, [], [res])


def _rsqrt(op: Operation, rewriter: PatternRewriter) -> None:
    (x,) = llvm_operands(op, rewriter)
    em = Emitter(rewriter, op)
    fm = fastmath_flags(op)
    s = em.value(llvm.FSqrtOp(x, fm))
    res = em.value(llvm.FDivOp(_one_like(em, x), s, fm))
    replace_op(op, rewriter, [], [res])


def _libm(name: str) -> Handler:
    """A call to libm's `name` (`namef` for f32)."""

    def handler(op: Operation, rewriter: PatternRewriter) -> None:
        args = llvm_operands(op, rewriter)
        t: Attribute = args[0].type
        if isinstance(t, Float32Type):
            symbol = name + "f"
        elif isinstance(t, Float64Type):
            symbol = name
        else:
            raise fail(op, f"no libm function for {t} (expected a scalar f32 or f64)")
        module = module_of(op)
        existing = lookup_symbol(module, symbol)
        if existing is None:
            decl = llvm.FuncOp(
                symbol,
                llvm.LLVMFunctionType([t] * len(args), t),
                linkage=llvm.LinkageAttr("external"),
            )
            rewriter.insert(decl, InsertPoint.at_end(module.body.block))
        call = llvm.CallOp(symbol, *args, return_type=t)
        replace_op(op, rewriter, [call], [call.results[0]])

    return handler


HANDLERS: dict[str, Handler] = {
    "math.absf": _fabs,
    "math.ceil": _unary_op(llvm.FCeilOp),
    "math.floor": _unary_op(llvm.FFloorOp),
    "math.sqrt": _unary_op(llvm.FSqrtOp),
    "math.exp": _unary_op(llvm.FExpOp),
    "math.exp2": _unary_op(llvm.FExp2Op),
    "math.log": _unary_op(llvm.FLogOp),
    "math.log2": _unary_op(llvm.FLog2Op),
    "math.sin": _unary_op(llvm.FSinOp),
    "math.cos": _unary_op(llvm.FCosOp),
    "math.powf": _binary_op(llvm.FPowOp),
    "math.copysign": _binary_op(llvm.FCopySignOp),
    "math.fma": _fma,
    "math.log10": _intrinsic("log10"),
    "math.round": _intrinsic("round"),
    "math.roundeven": _intrinsic("roundeven"),
    "math.trunc": _intrinsic("trunc"),
    "math.tan": _intrinsic("tan"),
    "math.tanh": _intrinsic("tanh"),
    "math.sinh": _intrinsic("sinh"),
    "math.cosh": _intrinsic("cosh"),
    "math.asin": _intrinsic("asin"),
    "math.acos": _intrinsic("acos"),
    "math.atan": _intrinsic("atan"),
    "math.atan2": _intrinsic("atan2"),
    "math.fpowi": _intrinsic("powi", mangle_second=True),
    "math.absi": _intrinsic("abs", extra_false_flag=True),
    "math.ctlz": _intrinsic("ctlz", extra_false_flag=True),
    "math.cttz": _intrinsic("cttz", extra_false_flag=True),
    "math.ctpop": _intrinsic("ctpop"),
    "math.log1p": _log1p,
    "math.expm1": _expm1,
    "math.rsqrt": _rsqrt,
    "math.erf": _libm("erf"),
    "math.cbrt": _libm("cbrt"),
    "math.asinh": _libm("asinh"),
    "math.acosh": _libm("acosh"),
    "math.atanh": _libm("atanh"),
}


def math_to_llvm_patterns() -> list[RewritePattern]:
    """The patterns of this module."""
    return [OpDispatch(HANDLERS)]


__all__ = ["HANDLERS", "math_to_llvm_patterns"]
