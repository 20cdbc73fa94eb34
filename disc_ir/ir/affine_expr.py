"""Semi-affine expressions and MLIR's affine-expression syntax for xDSL.

xDSL 0.74 builds only pure affine expressions: `d0 ceildiv s0`, `d0 * s0` or
`d0 mod s1` raise `NotImplementedError`, while MLIR accepts them as
*semi-affine* expressions (BladeDISC's kernel outlining emits
`affine_map<(d0)[s0, s1] -> ((d0 - s0) ceildiv s1)>`). xDSL also prints every
binary expression in parentheses (`((d0 * 4) + s1)`), where MLIR prints
`d0 * 4 + s1` and pretty-prints negation and subtraction (`-d0`, `d0 - s0`).

Importing this module (done by `disc_ir.ir`) extends xDSL's `AffineExpr` so that

* `*` accepts operands of which at least one is symbolic or constant, and
  `floordiv`, `ceildiv`, `mod` accept a symbolic or constant right operand,
  as MLIR's `AffineParser` does (otherwise `ValueError`, reported by the
  parser as a located "non-affine expression" error);
* the canonical operand order follows MLIR's `simplifyMul` (constant or
  symbolic factor on the right);
* `simplify` leaves semi-affine expressions as they are (MLIR simplifies them
  only in limited ways, which never change the printed form of the maps
  BladeDISC writes);
* `str(expr)` is MLIR's `AsmPrinter::printAffineExpr` spelling.

The changes are confined to what pure-affine xDSL could not do or print, so
pure affine maps keep xDSL's construction and simplification.
"""

from __future__ import annotations

from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymExpr,
)
from xdsl.parser.affine_parser import AffineParser
from xdsl.utils.exceptions import ParseError

_KEYWORD = {
    AffineBinaryOpKind.Add: " + ",
    AffineBinaryOpKind.Mul: " * ",
    AffineBinaryOpKind.FloorDiv: " floordiv ",
    AffineBinaryOpKind.CeilDiv: " ceildiv ",
    AffineBinaryOpKind.Mod: " mod ",
}


def is_symbolic_or_constant(expr: AffineExpr) -> bool:
    """True if `expr` involves no dimension (MLIR's `isSymbolicOrConstant`)."""
    if isinstance(expr, AffineDimExpr):
        return False
    if isinstance(expr, AffineBinaryOpExpr):
        return is_symbolic_or_constant(expr.lhs) and is_symbolic_or_constant(expr.rhs)
    return True


def format_affine_expr(expr: AffineExpr, strong: bool = False) -> str:
    """Spell `expr` as MLIR prints it; `strong` if the context binds tightly."""
    if isinstance(expr, AffineDimExpr):
        return f"d{expr.position}"
    if isinstance(expr, AffineSymExpr):
        return f"s{expr.position}"
    if isinstance(expr, AffineConstantExpr):
        return str(expr.value)
    assert isinstance(expr, AffineBinaryOpExpr)
    lhs, rhs, kind = expr.lhs, expr.rhs, expr.kind

    def wrap(text: str) -> str:
        return f"({text})" if strong else text

    if kind != AffineBinaryOpKind.Add:
        if (
            kind == AffineBinaryOpKind.Mul
            and isinstance(rhs, AffineConstantExpr)
            and rhs.value == -1
        ):
            return wrap("-" + format_affine_expr(lhs, True))
        return wrap(format_affine_expr(lhs, True) + _KEYWORD[kind] + format_affine_expr(rhs, True))

    # Addition of a product with a negative constant prints as subtraction.
    if (
        isinstance(rhs, AffineBinaryOpExpr)
        and rhs.kind == AffineBinaryOpKind.Mul
        and isinstance(rhs.rhs, AffineConstantExpr)
    ):
        factor = rhs.rhs.value
        if factor == -1:
            nested_add = (
                isinstance(rhs.lhs, AffineBinaryOpExpr) and rhs.lhs.kind == AffineBinaryOpKind.Add
            )
            return wrap(
                format_affine_expr(lhs, False) + " - " + format_affine_expr(rhs.lhs, nested_add)
            )
        if factor < -1:
            return wrap(
                format_affine_expr(lhs, False)
                + " - "
                + format_affine_expr(rhs.lhs, True)
                + f" * {-factor}"
            )
    if isinstance(rhs, AffineConstantExpr) and rhs.value < 0:
        return wrap(format_affine_expr(lhs, False) + f" - {-rhs.value}")
    return wrap(format_affine_expr(lhs, False) + " + " + format_affine_expr(rhs, False))


_pure_mul = AffineExpr.__mul__
_pure_floordiv = AffineExpr.__floordiv__
_pure_ceil_div = AffineExpr.ceil_div
_pure_mod = AffineExpr.__mod__
_pure_simplify = AffineExpr.simplify


def _as_expr(value: AffineExpr | int) -> AffineExpr:
    return AffineExpr.constant(value) if isinstance(value, int) else value


def _mul(self: AffineExpr, other: AffineExpr | int) -> AffineExpr:
    other = _as_expr(other)
    if isinstance(self, AffineConstantExpr) or isinstance(other, AffineConstantExpr):
        return _pure_mul(self, other)
    if not is_symbolic_or_constant(self) and not is_symbolic_or_constant(other):
        raise ValueError(
            "non-affine expression: at least one of the multiply operands has to be "
            "either a constant or symbolic"
        )
    # MLIR keeps the symbolic factor on the right.
    if is_symbolic_or_constant(self) and not is_symbolic_or_constant(other):
        self, other = other, self
    return AffineBinaryOpExpr(AffineBinaryOpKind.Mul, self, other)


def _semi_affine_binop(kind: AffineBinaryOpKind, pure, spelling: str):
    def op(self: AffineExpr, other: AffineExpr | int) -> AffineExpr:
        other = _as_expr(other)
        if isinstance(other, AffineConstantExpr):
            return pure(self, other)
        if not is_symbolic_or_constant(other):
            raise ValueError(
                f"non-affine expression: right operand of {spelling} has to be either "
                "a constant or symbolic"
            )
        return AffineBinaryOpExpr(kind, self, other)

    return op


def _simplify(self: AffineExpr, num_dims: int, num_symbols: int) -> AffineExpr:
    if not self.is_pure_affine():
        return self
    return _pure_simplify(self, num_dims, num_symbols)


def _create_binop_expr(self: AffineParser, lhs: AffineExpr, rhs: AffineExpr, binop) -> AffineExpr:
    try:
        return _original_create_binop_expr(self, lhs, rhs, binop)
    except ValueError as err:
        raise ParseError(binop.span, str(err)) from None


_original_create_binop_expr = AffineParser._create_binop_expr


def install() -> None:
    """Extend xDSL's AffineExpr with semi-affine ops and MLIR printing (idempotent)."""
    if getattr(AffineExpr, "_disc_semi_affine", False):
        return
    AffineExpr.__mul__ = _mul  # type: ignore[method-assign]  # extends xDSL's AffineExpr with MLIR's semi-affine ops
    AffineExpr.__rmul__ = _mul  # type: ignore[method-assign]  # extends xDSL's AffineExpr with MLIR's semi-affine ops
    AffineExpr.__floordiv__ = _semi_affine_binop(  # type: ignore[method-assign]  # extends xDSL's AffineExpr with MLIR's semi-affine ops
        AffineBinaryOpKind.FloorDiv, _pure_floordiv, "floordiv"
    )
    AffineExpr.ceil_div = _semi_affine_binop(  # type: ignore[method-assign]  # extends xDSL's AffineExpr with MLIR's semi-affine ops
        AffineBinaryOpKind.CeilDiv, _pure_ceil_div, "ceildiv"
    )
    AffineExpr.__mod__ = _semi_affine_binop(  # type: ignore[method-assign]  # extends xDSL's AffineExpr with MLIR's semi-affine ops
        AffineBinaryOpKind.Mod, _pure_mod, "mod"
    )
    AffineExpr.simplify = _simplify  # type: ignore[method-assign]  # extends xDSL's AffineExpr with MLIR's semi-affine ops
    AffineBinaryOpExpr.__str__ = format_affine_expr  # type: ignore[method-assign]  # extends xDSL's AffineExpr with MLIR's semi-affine ops
    AffineParser._create_binop_expr = _create_binop_expr  # type: ignore[method-assign]  # extends xDSL's AffineExpr with MLIR's semi-affine ops
    AffineExpr._disc_semi_affine = True  # type: ignore[attr-defined]  # marks the extension as installed


install()
