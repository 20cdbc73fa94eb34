"""Shared pieces of the DISC dialects (`mhlo_disc`, `lmhlo_disc`, `disc_shape`,
`disc_ral`): MLIR-style type constraints and BladeDISC's operand-segment
attribute.

Type constraints are IRDL `AttrConstraint`s that fail with MLIR's wording
(`must be tensor of floating-point values, but got 'tensor<2xi32>'`), so a
verifier error says what was expected.

`LegacyOperandSegments` is `AttrSizedOperandSegments` under the name that
BladeDISC's MLIR printed, `operand_segment_sizes`, kept in the attribute
dictionary; `OperandSegmentsMixin` also accepts today's `operandSegmentSizes`
(as a property `<{...}>` or an attribute) and renames it on creation.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from xdsl.dialects.builtin import (
    AnyFloatConstr,
    ComplexType,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    Signedness,
    StringAttr,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import AttrConstraint, AttrSizedOperandSegments, IRDLOperation
from xdsl.irdl.constraints import IntConstraint, VerificationContext
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects.hlo_attrs import format_type

# ---------------------------------------------------------------------------
# Type predicates
# ---------------------------------------------------------------------------


def is_tensor(t: Attribute) -> bool:
    """A ranked or unranked tensor type."""
    return isinstance(t, TensorType | UnrankedTensorType)


def is_memref(t: Attribute) -> bool:
    """A ranked or unranked memref type."""
    return isinstance(t, MemRefType | UnrankedMemRefType)


def element_type(t: Attribute) -> Attribute:
    """The element type of a shaped type, or `t` itself."""
    if isinstance(t, TensorType | UnrankedTensorType | MemRefType | UnrankedMemRefType):
        return t.get_element_type()
    return t


def is_float(t: Attribute) -> bool:
    """Any builtin floating-point type."""
    return AnyFloatConstr.verifies(t)


def is_signless_int(t: Attribute, widths: Sequence[int] | None = None) -> bool:
    """A signless integer type, optionally of one of `widths`."""
    return (
        isinstance(t, IntegerType)
        and t.signedness.data == Signedness.SIGNLESS
        and (widths is None or t.width.data in widths)
    )


def is_unsigned_int(t: Attribute, widths: Sequence[int] | None = None) -> bool:
    """An unsigned integer type, optionally of one of `widths`."""
    return (
        isinstance(t, IntegerType)
        and t.signedness.data == Signedness.UNSIGNED
        and (widths is None or t.width.data in widths)
    )


HLO_INT_WIDTHS = (4, 8, 16, 32, 64)


def is_hlo_int(t: Attribute) -> bool:
    """HLO's integer element types: signless or unsigned i4..i64 (not i1)."""
    return is_signless_int(t, HLO_INT_WIDTHS) or is_unsigned_int(t, HLO_INT_WIDTHS)


def is_hlo_pred(t: Attribute) -> bool:
    """HLO's predicate element type, i1."""
    return is_signless_int(t, (1,))


def is_hlo_element(t: Attribute) -> bool:
    """Any element type an HLO tensor or LHLO buffer may hold."""
    return (
        is_float(t)
        or is_hlo_pred(t)
        or is_hlo_int(t)
        or (isinstance(t, ComplexType) and is_float(t.get_element_type()))
    )


def rank(t: Attribute) -> int | None:
    """The rank of a ranked shaped type, None if unranked (or not shaped)."""
    if isinstance(t, TensorType | MemRefType):
        return t.get_num_dims()
    return None


def shape(t: Attribute) -> tuple[int, ...] | None:
    """The shape of a ranked shaped type (dynamic sizes are -1), else None."""
    if isinstance(t, TensorType | MemRefType):
        return t.get_shape()
    return None


def has_static_shape(t: Attribute) -> bool:
    """A ranked type whose every dimension is static."""
    s = shape(t)
    return s is not None and all(d >= 0 for d in s)


# ---------------------------------------------------------------------------
# IRDL constraints with MLIR-style messages
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class TypeConstraint(AttrConstraint):
    """An attribute constraint given by a predicate and MLIR's description of it.

    Fails with `must be <description>, but got '<attr>'` as MLIR's ODS does.
    """

    predicate: Callable[[Attribute], bool]
    description: str

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if not self.predicate(attr):
            raise VerifyException(f"must be {self.description}, but got '{attr}'")

    def mapping_type_vars(
        self, type_var_mapping: Mapping[Any, AttrConstraint | IntConstraint]
    ) -> TypeConstraint:
        return self


def _tensor_of(pred: Callable[[Attribute], bool]) -> Callable[[Attribute], bool]:
    return lambda t: is_tensor(t) and pred(element_type(t))


def _memref_of(pred: Callable[[Attribute], bool]) -> Callable[[Attribute], bool]:
    return lambda t: is_memref(t) and pred(element_type(t))


AnyTensor = TypeConstraint(is_tensor, "tensor of any type values")
AnyMemRef = TypeConstraint(is_memref, "memref of any type values")
Index = TypeConstraint(lambda t: isinstance(t, IndexType), "index")
I64 = TypeConstraint(lambda t: is_signless_int(t, (64,)), "64-bit signless integer")


def _tensor_and_buffer(
    pred: Callable[[Attribute], bool], what: str
) -> tuple[TypeConstraint, TypeConstraint]:
    """The constraints `tensor of {what}` (mhlo) and `memref of {what}`
    (lmhlo) on element types satisfying `pred`."""
    return (
        TypeConstraint(_tensor_of(pred), f"tensor of {what}"),
        TypeConstraint(_memref_of(pred), f"memref of {what}"),
    )


# mhlo's tensor classes and lmhlo's buffer classes
HloTensor, LhloBuffer = _tensor_and_buffer(
    is_hlo_element,
    "floating-point or pred (AKA boolean or 1-bit integer) or "
    "4/8/16/32/64-bit signless integer or 4/8/16/32/64-bit unsigned integer or "
    "complex type values",
)
HloTensorOrIndexTensor, LhloBufferOrIndexBuffer = _tensor_and_buffer(
    lambda e: is_hlo_element(e) or isinstance(e, IndexType),
    "pred, integer, floating-point, complex or index values",
)
HloFpTensor, LhloFpBuffer = _tensor_and_buffer(is_float, "floating-point values")
HloIntTensor, LhloIntBuffer = _tensor_and_buffer(
    is_hlo_int,
    "4/8/16/32/64-bit signless integer or 4/8/16/32/64-bit unsigned integer values",
)
HloI32Tensor, LhloI32Buffer = _tensor_and_buffer(
    lambda e: is_signless_int(e, (32,)), "32-bit signless integer values"
)
HloI64Tensor = TypeConstraint(
    _tensor_of(lambda e: is_signless_int(e, (64,))),
    "tensor of 64-bit signless integer values",
)
HloI32OrI64Tensor = TypeConstraint(
    _tensor_of(lambda e: is_signless_int(e, (32, 64))),
    "tensor of 32/64-bit signless integer values",
)
HloPredTensor = TypeConstraint(_tensor_of(is_hlo_pred), "tensor of 1-bit signless integer values")
LhloPredBuffer = TypeConstraint(
    _memref_of(is_hlo_pred), "memref of pred (AKA boolean or 1-bit integer) values"
)
LhloDimensionValue = TypeConstraint(
    lambda t: isinstance(t, IndexType) or is_signless_int(t),
    "index or signless integer",
)

# attribute classes
I64Attr = TypeConstraint(
    lambda a: isinstance(a, IntegerAttr) and is_signless_int(a.type, (64,)),
    "64-bit signless integer attribute",
)
I64ElementsAttr = TypeConstraint(
    lambda a: (
        isinstance(a, DenseIntOrFPElementsAttr) and is_signless_int(a.get_element_type(), (64,))
    ),
    "64-bit signless integer elements attribute",
)
BoolElementsAttr = TypeConstraint(
    lambda a: (
        isinstance(a, DenseIntOrFPElementsAttr) and is_signless_int(a.get_element_type(), (1,))
    ),
    "constant boolean vector/tensor attribute",
)


def bool_value(op: Operation, name: str, default: bool) -> bool:
    """The boolean attribute `name` of `op`, `default` when absent."""
    attr = op.attributes.get(name)
    if isinstance(attr, IntegerAttr):
        return bool(attr.value.data)
    return default


def str_value(op: Operation, name: str, default: str = "") -> str:
    """The string attribute `name` of `op`, `default` when absent."""
    attr = op.attributes.get(name)
    return attr.data if isinstance(attr, StringAttr) else default


def int_value(op: Operation, name: str, default: int) -> int:
    """The integer attribute `name` of `op`, `default` when absent."""
    attr = op.attributes.get(name)
    return attr.value.data if isinstance(attr, IntegerAttr) else default


def bool_attr(value: bool) -> IntegerAttr:
    """`true` / `false`."""
    return IntegerAttr(int(value), i1)


def elements_count(attr: Attribute | None) -> int:
    """The number of elements of an elements attribute (0 when absent)."""
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return len(attr)
    return 0


def require_ranked(*values: SSAValue) -> None:
    """Raise unless every value has a ranked type."""
    for v in values:
        if rank(v.type) is None:
            raise VerifyException(f"only support ranked types, got {format_type(v.type)}")


def check_ranks(op: Operation, *rules: tuple[str, int, str]) -> None:
    """Check `(field, rank, message)` rules in order: raise `message` when
    the rank of `op.<field>`'s type is not `rank` (unranked never matches)."""
    for field, expected, message in rules:
        if rank(getattr(op, field).type) != expected:
            raise VerifyException(message)


# ---------------------------------------------------------------------------
# `operand_segment_sizes`
# ---------------------------------------------------------------------------


class LegacyOperandSegments(AttrSizedOperandSegments):
    """Operand segment sizes in the attribute `operand_segment_sizes`, the name
    BladeDISC's MLIR used (today's MLIR calls it `operandSegmentSizes`)."""

    attribute_name = "operand_segment_sizes"


_TODAYS_SEGMENTS = AttrSizedOperandSegments.attribute_name


class OperandSegmentsMixin(IRDLOperation):
    """Ops with `LegacyOperandSegments`: accept `operandSegmentSizes` too.

    xDSL's builders and today's MLIR text use `operandSegmentSizes`; it is moved
    to the `operand_segment_sizes` attribute whenever the op is created.
    """

    SEGMENTS_ATTR: ClassVar[str] = LegacyOperandSegments.attribute_name

    def __post_init__(self) -> None:
        for container in (self.properties, self.attributes):
            value = container.pop(_TODAYS_SEGMENTS, None)
            if value is not None:
                self.attributes.setdefault(self.SEGMENTS_ATTR, value)
        super().__post_init__()
