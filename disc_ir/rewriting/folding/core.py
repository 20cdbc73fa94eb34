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
from typing import Literal, TypeGuard, cast

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    UnregisteredOp,
)
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue, TypeAttribute
from xdsl.traits import Commutative, ConstantLike, HasFolder

from disc_ir.ir.memo import ClassMemo
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
        clear_folder_memos()
        return fn

    return deco


def _class_constant_kind(cls: type[Operation]) -> HasFolder | Literal[True] | None:
    if issubclass(cls, UnregisteredOp) or cls.get_trait(ConstantLike) is None:
        return None
    folder = cls.get_trait(HasFolder)
    return folder if folder is not None else True


#: per op class: None (not `ConstantLike`), its `HasFolder` trait, or True
#: (the constant is the `value` property or attribute)
CONSTANT_KIND: ClassMemo[HasFolder | Literal[True] | None] = ClassMemo(_class_constant_kind)


def _constant_kind(op: Operation) -> HasFolder | Literal[True] | None:
    return CONSTANT_KIND[type(op)]


#: per class: whether its instances are attributes
_ATTRIBUTE_CLASS: ClassMemo[bool] = ClassMemo(lambda cls: issubclass(cls, Attribute))


def _is_attribute(x: object) -> TypeGuard[Attribute]:
    return _ATTRIBUTE_CLASS[x.__class__]


def constant_value(value: SSAValue) -> Attribute | None:
    """The constant `value` holds, if it is a result of a `ConstantLike` op.

    Uses the op's fold hook when it has one (xDSL's convention), else its
    `value` property or attribute (`mhlo.constant`, `lmhlo`-free constants).
    """
    cls = value.__class__
    # (xDSL's IR classes are ABCs: isinstance on a miss costs a slow check)
    if cls is not OpResult and (cls is BlockArgument or not isinstance(value, OpResult)):
        return None
    result = cast(OpResult, value)
    op = result.op
    kind = _constant_kind(op)
    if kind is None:
        return None
    if kind is not True:
        folded = kind.fold(op)
        if folded is not None and _is_attribute(folded_attr := folded[result.index]):
            return folded_attr
        return None
    attr = op.properties.get("value")
    if attr is None:
        attr = op.attributes.get("value")
    return attr if len(op.results) == 1 else None


def is_constant(value: SSAValue) -> bool:
    return constant_value(value) is not None


def operand_constants(op: Operation) -> list[Attribute | None]:
    return [constant_value(v) for v in op.operands]


def _class_has_folder(cls: type[Operation]) -> bool:
    return (
        cls.name in _FOLDERS
        or cls.name in _IN_PLACE_FOLDERS
        or cls.get_trait(HasFolder) is not None
    )


#: per op class: `may_fold`'s answer (cleared when a folder is registered)
_HAS_FOLDER: ClassMemo[bool] = ClassMemo(_class_has_folder)


def clear_folder_memos() -> None:
    """Forgets the per-class answers that depend on which ops have folders
    (`register_folder` calls it; so must code that unregisters one)."""
    _HAS_FOLDER.clear()
    NOTHING_TO_FOLD.clear()


def may_fold(op: Operation) -> bool:
    """Whether `op` has a folder at all (registered, in-place, or xDSL's
    `HasFolder`): when not, `fold_op(op, in_place=True)` can only move
    constant operands right (`move_constants_right`). Cached per op class."""
    return _HAS_FOLDER[type(op)]


def _class_nothing_to_fold(cls: type[Operation]) -> bool:
    return (
        CONSTANT_KIND[cls] is None
        and not _HAS_FOLDER[cls]
        and (issubclass(cls, UnregisteredOp) or cls.get_trait(Commutative) is None)
    )


#: per op class: folding can do nothing with its ops (not constants, no
#: folder, not commutative); cleared when a folder is registered
NOTHING_TO_FOLD: ClassMemo[bool] = ClassMemo(_class_nothing_to_fold)


def fold_op(op: Operation, in_place: bool = False) -> list[Attribute | SSAValue] | None:
    """Fold `op` without touching the IR (unless `in_place`).

    Returns one `Attribute` or `SSAValue` per result when `op` folds, an empty
    list when it was updated in place (only with `in_place=True`), or None.
    Constant ops are not folded (they are already folded).
    """
    if _constant_kind(op) is not None:
        return None
    consts = operand_constants(op)
    folded = fold_with_constants(op, consts)
    if folded is not None:
        return folded
    if in_place and fold_in_place(op, consts):
        return []
    return None


def fold_with_constants(
    op: Operation, consts: list[Attribute | None]
) -> list[Attribute | SSAValue] | None:
    """The folding part of `fold_op(op)` (no IR change) for a non-constant `op`
    whose operand constants are `consts` (`operand_constants(op)`)."""
    folder = _FOLDERS.get(op.name)
    if folder is not None:
        result = folder(op, consts)
        if result is not None and len(result) == len(op.results) and len(result) > 0:
            return list(result)
    elif (trait := get_trait(op, HasFolder)) is not None:  # type: ignore[type-abstract]  # xDSL looks traits up by their abstract base
        result = trait.fold(op)
        if result is not None and len(result) == len(op.results) and len(result) > 0:
            if all(
                not isinstance(r, SSAValue) or r.type == res.type
                for r, res in zip(result, op.results, strict=True)
            ):
                return list(result)
    return None


def fold_in_place(op: Operation, consts: list[Attribute | None]) -> bool:
    """The in-place part of `fold_op(op, in_place=True)`, after
    `fold_with_constants(op, consts)` found nothing: whether `op` was updated."""
    in_place_folder = _IN_PLACE_FOLDERS.get(op.name)
    if in_place_folder is not None and in_place_folder(op, consts) is not None:
        return True
    return move_constants_right(op)


def move_constants_right(op: Operation) -> bool:
    """For a commutative op, move constant operands after the others (stable).

    MLIR does this before folding commutative ops; returns whether anything moved.
    """
    operands = op._operands  # pyright: ignore[reportPrivateUsage]
    if len(operands) < 2 or not has_trait(op, Commutative, value_if_unregistered=False):
        return False
    is_const = [constant_value(v) is not None for v in operands]
    if not any(is_const) or all(is_const[is_const.index(True) :]):
        return False  # already in order
    op.operands = [v for v, c in zip(operands, is_const, strict=True) if not c] + [
        v for v, c in zip(operands, is_const, strict=True) if c
    ]
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
                interface = dialect.get_interface(ConstantMaterializationInterface)  # type: ignore[type-abstract]  # xDSL looks interfaces up by their abstract base
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
