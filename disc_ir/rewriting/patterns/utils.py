"""Helpers shared by the canonicalization patterns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.context import Context
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from disc_ir.rewriting.folding import constant_value
from disc_ir.rewriting.folding.ints import int_value, to_signed


def const_int(value: SSAValue) -> int | None:
    """The signed value of an integer/index constant, or None."""
    attr = constant_value(value)
    if attr is None or (iv := int_value(attr)) is None:
        return None
    return to_signed(*iv)


def defining(value: SSAValue, name: str) -> Operation | None:
    if isinstance(value, OpResult) and value.op.name == name:
        return value.op
    return None


def op_class(ctx: Context | None, name: str, fallback: type[Operation]) -> type[Operation]:
    """The class `ctx` registers for `name` (a disc-ir extension), else `fallback`."""
    if ctx is not None:
        try:
            cls = ctx.get_optional_op(name)
        except Exception:  # noqa: BLE001 - a dialect that fails to load: use xDSL's class
            cls = None
        if cls is not None:
            return cls
    return fallback


def create_op(
    cls: type[Operation],
    operands: Sequence[SSAValue] = (),
    result_types: Sequence[Attribute] = (),
    properties: Mapping[str, Attribute] | None = None,
    attributes: Mapping[str, Attribute] | None = None,
    regions: Sequence[Region] = (),
) -> Operation:
    return cls.create(
        operands=list(operands),
        result_types=list(result_types),
        properties=dict(properties or {}),
        attributes=dict(attributes or {}),
        regions=list(regions),
    )


def inline_single_block(
    rewriter: PatternRewriter,
    op: Operation,
    block: Block,
    args: Sequence[SSAValue] = (),
) -> None:
    """Replace `op` by the ops of `block` (minus its terminator), mapping block args to `args`.

    The results of `op` are replaced by the terminator's operands.
    """
    terminator = block.last_op
    assert terminator is not None
    yielded = list(terminator.operands)
    terminator.detach()
    terminator.erase()
    rewriter.inline_block(block, InsertPoint.before(op), args)
    rewriter.replace(op, [], yielded)


def erase_op(op: Operation) -> None:
    """Detach `op` from its block (if any) and erase it, its results unused."""
    if op.parent is not None:
        op.detach()
    op.erase(safe_erase=False)
