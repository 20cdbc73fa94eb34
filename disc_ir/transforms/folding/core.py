"""The folding registry: MLIR's `Operation::fold` for disc-ir.

A folder is registered per operation name and receives the operation and the
constant values of its operands (`None` where an operand is not a constant).
It returns, like MLIR's `fold`:

- `None`: nothing to fold;
- a sequence with one `Attribute` (a constant) or `SSAValue` (an existing
  value) per result: the results can be replaced by these;
- an empty sequence: the operation was updated in place (an operand was
  replaced, say `extsi(extsi(x))` reading `x` directly). In-place folders run
  only when the caller allows it (`fold_op(op, in_place=True)`).

Operations without a registered folder fall back to xDSL's `HasFolder`
trait / `HasFolderInterface`, so dialects that define their own folds take part.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue, TypeAttribute
from xdsl.traits import Commutative, ConstantLike, HasFolder

from disc_ir.ir.trait_cache import get_trait, has_trait

FoldResult = Sequence[Attribute | SSAValue]
Folder = Callable[[Operation, list[Attribute | None]], FoldResult | None]

_FOLDERS: dict[str, Folder] = {}
_IN_PLACE_FOLDERS: dict[str, Folder] = {}

FOLDED_IN_PLACE: tuple[()] = ()
"""What an in-place folder returns after updating the operation."""


def register_folder(*names: str, in_place: bool = False) -> Callable[[Folder], Folder]:
    """Decorator: register `fn` as the folder of the operations `names`.

    In-place folders (which mutate the op and return `FOLDED_IN_PLACE`) are kept
    apart so that `fold_op(op, in_place=False)` never changes the IR.
    """

    def deco(fn: Folder) -> Folder:
        table = _IN_PLACE_FOLDERS if in_place else _FOLDERS
        for name in names:
            if name in table:
                raise ValueError(f"folder for '{name}' registered twice")
            table[name] = fn
        return fn

    return deco


def constant_value(value: SSAValue) -> Attribute | None:
    """The constant `value` holds, if it is a result of a `ConstantLike` op.

    Uses the op's fold hook when it has one (xDSL's convention), else its
    `value` property or attribute (`mhlo.constant`, `lmhlo`-free constants).
    """
    if not isinstance(value, OpResult):
        return None
    op = value.op
    if not has_trait(op, ConstantLike, value_if_unregistered=False):
        return None
    if (trait := get_trait(op, HasFolder)) is not None:
        folded = trait.fold(op)
        if folded is not None and isinstance(attr := folded[value.index], Attribute):
            return attr
        return None
    attr = op.properties.get("value")
    if attr is None:
        attr = op.attributes.get("value")
    return attr if len(op.results) == 1 else None


def is_constant(value: SSAValue) -> bool:
    return constant_value(value) is not None


def operand_constants(op: Operation) -> list[Attribute | None]:
    return [constant_value(v) for v in op.operands]


def fold_op(op: Operation, in_place: bool = False) -> list[Attribute | SSAValue] | None:
    """Fold `op` without touching the IR (unless `in_place`).

    Returns one `Attribute` or `SSAValue` per result when `op` folds, an empty
    list when it was updated in place (only with `in_place=True`), or None.
    Constant ops are not folded (they are already folded).
    """
    if has_trait(op, ConstantLike, value_if_unregistered=False):
        return None
    consts = operand_constants(op)
    folder = _FOLDERS.get(op.name)
    if folder is not None:
        result = folder(op, consts)
        if result is not None and len(result) == len(op.results) and len(result) > 0:
            return list(result)
    elif (trait := get_trait(op, HasFolder)) is not None:
        result = trait.fold(op)
        if result is not None and len(result) == len(op.results) and len(result) > 0:
            if all(
                not isinstance(r, SSAValue) or r.type == res.type
                for r, res in zip(result, op.results, strict=True)
            ):
                return list(result)
    if in_place:
        in_place_folder = _IN_PLACE_FOLDERS.get(op.name)
        if in_place_folder is not None and in_place_folder(op, consts) is not None:
            return []
        if move_constants_right(op):
            return []
    return None


def move_constants_right(op: Operation) -> bool:
    """For a commutative op, move constant operands after the others (stable).

    MLIR does this before folding commutative ops; returns whether anything moved.
    """
    if len(op.operands) < 2 or not has_trait(op, Commutative, value_if_unregistered=False):
        return False
    operands = list(op.operands)
    non_const = [v for v in operands if not is_constant(v)]
    const = [v for v in operands if is_constant(v)]
    reordered = non_const + const
    if reordered == operands:
        return False
    op.operands = reordered
    return True


def materialize_constant(
    dialect_name: str, value: Attribute, type_: Attribute, ctx: object | None = None
) -> Operation | None:
    """A new (detached) constant op for `value` of `type_`, as `dialect_name` makes it.

    Uses the dialect's xDSL `ConstantMaterializationInterface` when the context
    `ctx` has one for it, else `arith.constant` for integer, index, float and
    dense int/float values (what func/memref/tensor/scf/arith materialize in MLIR).
    """
    if ctx is not None and dialect_name not in ("arith",):
        from xdsl.context import Context
        from xdsl.dialect_interfaces.constant_materialization import (
            ConstantMaterializationInterface,
        )

        if isinstance(ctx, Context):
            try:
                dialect = ctx.get_optional_dialect(dialect_name)
            except Exception:  # noqa: BLE001 - a dialect failing to load: no materializer
                dialect = None
            if dialect is not None:
                interface = dialect.get_interface(ConstantMaterializationInterface)
                if interface is not None:
                    return interface.materialize_constant(value, type_)
    if isinstance(value, IntegerAttr | FloatAttr):
        if value.type != type_:
            return None
        return arith.ConstantOp(value)
    if isinstance(value, DenseIntOrFPElementsAttr) and isinstance(type_, TypeAttribute):
        if value.type != type_:
            return None
        return arith.ConstantOp(value)
    return None
