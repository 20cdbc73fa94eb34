"""Canonicalization patterns of `arith` (MLIR's ArithCanonicalization.td).

- `index_cast(index_cast(x))` -> `x` when the types round-trip through a type at
  least as wide (also `index_castui`);
- `select(%c, false, true) : i1` -> `xori %c, true`;
  `select(%c, 1, 0) : iN` -> `extui %c`; `select(%c, 0, 1) : iN` -> `extui(xori %c, true)`;
- constant reassociation of add/sub/mul chains:
  `addi(addi(x, c0), c1)` -> `addi(x, c0 + c1)`, `addi(subi(x, c0), c1)` -> `addi(x, c1 - c0)`,
  `addi(subi(c0, x), c1)` -> `subi(c0 + c1, x)`, `subi(addi(x, c0), c1)` -> `addi(x, c0 - c1)`,
  `subi(c1, addi(x, c0))` -> `subi(c1 - c0, x)`, `subi(subi(x, c0), c1)` -> `subi(x, c0 + c1)`,
  `subi(subi(c0, x), c1)` -> `subi(c0 - c1, x)`, `subi(c1, subi(x, c0))` -> `subi(c0 + c1, x)`,
  `subi(c1, subi(c0, x))` -> `addi(x, c1 - c0)`, `muli(muli(x, c0), c1)` -> `muli(x, c0 * c1)`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.rewriting.folding.ints import int_width, make_int_attr
from disc_ir.rewriting.patterns import register_canonicalization
from disc_ir.rewriting.patterns.utils import const_int, defining


class IndexCastOfIndexCast(RewritePattern):
    """index_cast(index_cast(x)) -> x when x has the result type and the middle
    type is at least as wide as x's (MLIR's pattern also drops a truncating
    round trip, index -> i32 -> index, which changes values beyond i32)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        inner = defining(op.operands[0], op.name)
        if inner is None or inner.operands[0].type != op.results[0].type:
            return
        source_width = int_width(inner.operands[0].type)
        middle_width = int_width(op.operands[0].type)
        if source_width is not None and middle_width is not None and middle_width >= source_width:
            rewriter.replace(op, [], [inner.operands[0]])


def _true(rewriter: PatternRewriter, op: Operation) -> SSAValue:
    const = arith.ConstantOp(make_int_attr(1, IntegerType(1)))
    rewriter.insert(const)
    return const.result


class SelectI1ToNot(RewritePattern):
    """select(%c, false, true) : i1 -> xori %c, true."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        cond, t, f = op.operands
        if op.results[0].type != IntegerType(1) or cond.type != IntegerType(1):
            return
        if const_int(t) == 0 and const_int(f) == -1:
            rewriter.replace(op, arith.XOrIOp(cond, _true(rewriter, op)))


class SelectToExtUI(RewritePattern):
    """select(%c, 1, 0) : iN -> extui %c ; select(%c, 0, 1) -> extui(xori %c, true)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        cond, t, f = op.operands
        out = op.results[0].type
        if not isinstance(out, IntegerType) or out.width.data == 1 or cond.type != IntegerType(1):
            return
        tv, fv = const_int(t), const_int(f)
        if tv == 1 and fv == 0:
            rewriter.replace(op, arith.ExtUIOp(cond, out))
        elif tv == 0 and fv == 1:
            inverted = arith.XOrIOp(cond, _true(rewriter, op))
            rewriter.insert(inverted)
            rewriter.replace(op, arith.ExtUIOp(inverted.result, out))


def _merge_overflow(a: Operation, b: Operation) -> dict[str, object]:
    fa = a.properties.get("overflowFlags")
    fb = b.properties.get("overflowFlags")
    if fa is not None and fa == fb:
        return {"overflowFlags": fa}
    return {}


class ReassociateConstants(RewritePattern):
    """Fold chains of add/sub/mul with constants into one constant (MLIR's DRR patterns)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if int_width(op.results[0].type) is None:
            return
        lhs, rhs = op.operands
        outer = op.name
        for inner_val, c_outer, inner_is_lhs in ((lhs, rhs, True), (rhs, lhs, False)):
            c1 = const_int(c_outer)
            if c1 is None:
                continue
            if outer != "arith.subi" and not inner_is_lhs:
                continue  # commutative ops keep constants on the right
            for inner_name in ("arith.addi", "arith.subi", "arith.muli"):
                inner = defining(inner_val, inner_name)
                if inner is None:
                    continue
                x_l, x_r = inner.operands
                c0_r, c0_l = const_int(x_r), const_int(x_l)
                plan = _plan(outer, inner_name, inner_is_lhs, c0_l, c0_r, c1)
                if plan is None:
                    continue
                kind, value, const_first, used_right_const = plan
                x = x_l if used_right_const else x_r
                self._rewrite(op, inner, rewriter, kind, value, x, const_first)
                return

    @staticmethod
    def _rewrite(
        op: Operation,
        inner: Operation,
        rewriter: PatternRewriter,
        kind: str,
        value: int,
        x: SSAValue,
        const_first: bool,
    ) -> None:
        const = arith.ConstantOp(make_int_attr(value, op.results[0].type))
        rewriter.insert(const)
        cls = {"add": arith.AddiOp, "sub": arith.SubiOp, "mul": arith.MuliOp}[kind]
        operands = (const.result, x) if const_first else (x, const.result)
        new = cls.create(
            operands=list(operands),
            result_types=[op.results[0].type],
            properties=_merge_overflow(op, inner),  # type: ignore[arg-type]  # _merge_overflow gives attribute values
        )
        rewriter.replace(op, new)


def _plan(
    outer: str, inner: str, inner_is_lhs: bool, c0_l: int | None, c0_r: int | None, c1: int
) -> tuple[str, int, bool, bool] | None:
    """(new op kind, constant, whether the constant is the new lhs, whether the
    inner op's constant was its rhs) or None."""
    if outer == "arith.addi" and inner_is_lhs:
        if inner == "arith.addi" and c0_r is not None:
            return ("add", c0_r + c1, False, True)  # addi(addi(x, c0), c1)
        if inner == "arith.subi" and c0_r is not None:
            return ("add", c1 - c0_r, False, True)  # addi(subi(x, c0), c1)
        if inner == "arith.subi" and c0_l is not None:
            return ("sub", c0_l + c1, True, False)  # addi(subi(c0, x), c1) -> subi(c0 + c1, x)
    if outer == "arith.subi" and inner_is_lhs:
        if inner == "arith.addi" and c0_r is not None:
            return ("add", c0_r - c1, False, True)  # subi(addi(x, c0), c1)
        if inner == "arith.subi" and c0_r is not None:
            return ("sub", c0_r + c1, False, True)  # subi(subi(x, c0), c1) -> subi(x, c0 + c1)
        if inner == "arith.subi" and c0_l is not None:
            return ("sub", c0_l - c1, True, False)  # subi(subi(c0, x), c1) -> subi(c0 - c1, x)
    if outer == "arith.subi" and not inner_is_lhs:
        if inner == "arith.addi" and c0_r is not None:
            return ("sub", c1 - c0_r, True, True)  # subi(c1, addi(x, c0)) -> subi(c1 - c0, x)
        if inner == "arith.subi" and c0_r is not None:
            return ("sub", c0_r + c1, True, True)  # subi(c1, subi(x, c0)) -> subi(c0 + c1, x)
        if inner == "arith.subi" and c0_l is not None:
            return ("add", c1 - c0_l, False, False)  # subi(c1, subi(c0, x)) -> addi(x, c1 - c0)
    if outer == "arith.muli" and inner_is_lhs and inner == "arith.muli" and c0_r is not None:
        return ("mul", c0_r * c1, False, True)  # muli(muli(x, c0), c1)
    return None


def _patterns(ctx: Context | None) -> Sequence[RewritePattern]:
    return (ReassociateConstants(),)


register_canonicalization("arith.addi", "arith.subi", "arith.muli")(_patterns)
register_canonicalization("arith.index_cast", "arith.index_castui")(
    lambda ctx: (IndexCastOfIndexCast(),)
)
register_canonicalization("arith.select")(lambda ctx: (SelectI1ToNot(), SelectToExtUI()))
