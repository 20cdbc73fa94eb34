"""lower-affine: lower `affine` ops to `arith`, `memref` and `scf` (MLIR's AffineToStandard).

Affine expressions become `arith` on `index` values (dims and symbols are the
map operands, dims first): `+` -> `addi`, `*` -> `muli`, `mod` -> `remsi`
corrected to be non-negative, `floordiv` -> `floordivsi`, `ceildiv` ->
`ceildivsi`. Ops: `affine.apply`; `affine.min` / `affine.max` (`cmpi` +
`select` over the map's results); `affine.load` / `affine.store` ->
`memref.load` / `memref.store` of the mapped indices; `affine.for` ->
`scf.for` (lower bound: max of its map's results, upper bound: min) and
`affine.yield` -> `scf.yield`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref, scf
from xdsl.dialects.builtin import AffineMapAttr, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.greedy import greedy_applier
from disc_ir.rewriting.walker import PatternRewriteWalker


class _Builder:
    def __init__(self, rewriter: PatternRewriter, before: Operation):
        self.rewriter = rewriter
        self.ip = InsertPoint.before(before)

    def emit(self, op: Operation) -> SSAValue:
        self.rewriter.insert(op, self.ip)
        return op.results[0]

    def const(self, value: int) -> SSAValue:
        return self.emit(arith.ConstantOp(IntegerAttr.from_index_int_value(value)))


def expand_affine_expr(
    b: _Builder, expr: AffineExpr, dims: Sequence[SSAValue], symbols: Sequence[SSAValue]
) -> SSAValue:
    """`expr` evaluated with `arith` ops on `index` values."""
    match expr:
        case AffineConstantExpr():
            return b.const(expr.value)
        case AffineDimExpr():
            return dims[expr.position]
        case AffineSymExpr():
            return symbols[expr.position]
        case AffineBinaryOpExpr():
            lhs = expand_affine_expr(b, expr.lhs, dims, symbols)
            rhs = expand_affine_expr(b, expr.rhs, dims, symbols)
            match expr.kind:
                case AffineBinaryOpKind.Add:
                    return b.emit(arith.AddiOp(lhs, rhs))
                case AffineBinaryOpKind.Mul:
                    return b.emit(arith.MuliOp(lhs, rhs))
                case AffineBinaryOpKind.Mod:
                    rem = b.emit(arith.RemSIOp(lhs, rhs))
                    negative = b.emit(arith.CmpiOp(rem, b.const(0), "slt"))
                    shifted = b.emit(arith.AddiOp(rem, rhs))
                    return b.emit(arith.SelectOp(negative, shifted, rem))
                case AffineBinaryOpKind.FloorDiv:
                    return b.emit(arith.FloorDivSIOp(lhs, rhs))
                case AffineBinaryOpKind.CeilDiv:
                    return b.emit(arith.CeilDivSIOp(lhs, rhs))
    raise ValueError(f"unexpected affine expression {expr}")


def expand_affine_map(b: _Builder, amap: AffineMap, operands: Sequence[SSAValue]) -> list[SSAValue]:
    """The results of `amap` applied to `operands` (dims, then symbols)."""
    dims = operands[: amap.num_dims]
    symbols = operands[amap.num_dims :]
    return [expand_affine_expr(b, e, dims, symbols) for e in amap.results]


def _reduce(b: _Builder, values: list[SSAValue], predicate: str) -> SSAValue:
    result = values[0]
    for v in values[1:]:
        cmp = b.emit(arith.CmpiOp(v, result, predicate))
        result = b.emit(arith.SelectOp(cmp, v, result))
    return result


def _map(op: Operation, name: str = "map") -> AffineMap:
    attr = op.properties.get(name)
    if attr is None:
        attr = op.attributes[name]
    assert isinstance(attr, AffineMapAttr)
    return attr.data


class LowerAffineOps(RewritePattern):
    """apply / min / max / load / store / for / yield (see the module docstring)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        b = _Builder(rewriter, op)
        match op.name:
            case "affine.apply":
                (value,) = expand_affine_map(b, _map(op), op.operands)
                rewriter.replace(op, [], [value])
            case "affine.min" | "affine.max":
                values = expand_affine_map(b, _map(op), op.operands)
                result = _reduce(b, values, "slt" if op.name == "affine.min" else "sgt")
                rewriter.replace(op, [], [result])
            case "affine.load":
                indices = expand_affine_map(b, _map(op), op.operands[1:])
                rewriter.replace(op, memref.LoadOp.get(op.operands[0], indices))
            case "affine.store":
                indices = expand_affine_map(b, _map(op), op.operands[2:])
                rewriter.replace(op, memref.StoreOp.get(op.operands[0], op.operands[1], indices))
            case "affine.yield":
                rewriter.replace(op, scf.YieldOp(*op.operands))
            case "affine.for":
                self._for(op, b, rewriter)
            case _:
                return

    @staticmethod
    def _for(op: Operation, b: _Builder, rewriter: PatternRewriter) -> None:
        lbs = expand_affine_map(b, _map(op, "lowerBoundMap"), op.lowerBoundOperands)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
        ubs = expand_affine_map(b, _map(op, "upperBoundMap"), op.upperBoundOperands)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
        step = op.properties["step"]
        assert isinstance(step, IntegerAttr)
        new = scf.ForOp(
            _reduce(b, lbs, "sgt"),
            _reduce(b, ubs, "slt"),
            b.const(step.value.data),
            list(op.inits),  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
            rewriter.move_region_contents_to_new_regions(op.regions[0]),
        )
        rewriter.replace(op, new)


@register_pass
@dataclass(frozen=True)
class LowerAffinePass(ModulePass):
    """Lower Affine operations to a combination of Arith, MemRef and SCF operations."""

    name = "lower-affine"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        PatternRewriteWalker(
            greedy_applier([LowerAffineOps()]), apply_recursively=True
        ).rewrite_module(op)
