"""The `disc_shape` dialect: BladeDISC's shape-constraint IR.

Ops (as BladeDISC's `disc_shape_ops.td` defines them; all print generically):

* `linearize(%i0, .., %d0, ..)`: the linear index of multi-dim index `i` in
  shape `d` (operand segments: `operand_segment_sizes = array<i32: N, N>`);
* `delinearize(%linear, %d0, ..)`: the inverse, one index result per dim;
* `tie_shape(%tensor, %d0, ..)`: `%tensor` whose dimension sizes are `d`;
* `SymbolicDim`: a symbol (`sym_name`) standing for a dimension size, with
  `value` (INT64_MIN = dynamic) and the facts `knownNonNegative`,
  `knownNegativeOne`, `knownNonSizeOne`, `knownNonSizeZero`; lives at module
  level: `"disc_shape.SymbolicDim"() {sym_name = "S0", value = -9223372036854775808 : i64} : () -> ()`;
* `dim @S0`: the index value of a symbolic dimension;
* `tie_product_equal(%x.., %y..)`: product(x) == product(y).

Attributes are kept in the attribute dictionary (as BladeDISC printed them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import (
    BoolAttr,
    IndexType,
    IntegerAttr,
    StringAttr,
    SymbolRefAttr,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import IsolatedFromAbove, Pure, SymbolOpInterface
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects.disc_common import (
    AnyTensor,
    I64Attr,
    Index,
    LegacyOperandSegments,
    OperandSegmentsMixin,
    TypeConstraint,
    bool_attr,
    bool_value,
    rank,
)
from disc_ir.dialects.hlo_attrs import format_type
from disc_ir.ir.builders import INDEX, init_op

#: `ShapedType::kDynamic`: the `value` of a SymbolicDim of unknown size.
DYNAMIC_SIZE = -(2**63)

#: Attribute naming the SymbolicDims of a value's dimensions (`[@S0, @C1]`).
SYMBOLIC_DIM_ATTR = "kDiscSymbolicDimAttr"

FlatSymbolRef = TypeConstraint(
    lambda a: isinstance(a, SymbolRefAttr) and not a.nested_references.data,
    "flat symbol reference attribute",
)


@irdl_op_definition
class LinearizeOp(OperandSegmentsMixin):
    """`disc_shape.linearize`: linear index of `multiDimIndexes` within the
    shape `shapeDimIndexes` (row major)."""

    name = "disc_shape.linearize"

    multiDimIndexes = var_operand_def(Index)
    shapeDimIndexes = var_operand_def(Index)
    result = result_def(Index)
    irdl_options = (LegacyOperandSegments(),)
    traits = traits_def(Pure())

    def __init__(
        self,
        multi_dim_indexes: Sequence[SSAValue | Operation],
        shape_dim_indexes: Sequence[SSAValue | Operation],
    ):
        init_op(
            self,
            operands=[list(multi_dim_indexes), list(shape_dim_indexes)],
            result_types=[INDEX],
        )

    def verify_(self) -> None:
        if len(self.multiDimIndexes) != len(self.shapeDimIndexes):
            raise VerifyException(
                f"expects as many indices as dimension sizes, got "
                f"{len(self.multiDimIndexes)} and {len(self.shapeDimIndexes)}"
            )


@irdl_op_definition
class DelinearizeOp(IRDLOperation):
    """`disc_shape.delinearize`: multi-dim index of `linearIndex` within the
    shape `shapeDimIndexes`, one result per dimension."""

    name = "disc_shape.delinearize"

    linearIndex = operand_def(Index)
    shapeDimIndexes = var_operand_def(Index)
    multiDimIndexes = var_result_def(Index)
    traits = traits_def(Pure())

    def __init__(
        self,
        linear_index: SSAValue | Operation,
        shape_dim_indexes: Sequence[SSAValue | Operation],
    ):
        init_op(
            self,
            operands=[linear_index, list(shape_dim_indexes)],
            result_types=[INDEX] * len(shape_dim_indexes),
        )

    def verify_(self) -> None:
        if len(self.results) != len(self.shapeDimIndexes):
            raise VerifyException(
                f"expects one result per dimension size, got {len(self.results)} "
                f"results and {len(self.shapeDimIndexes)} dimension sizes"
            )


@irdl_op_definition
class TieShapeOp(IRDLOperation):
    """`disc_shape.tie_shape`: `value`, whose dimension sizes are
    `shapeDimIndexes` (one per dimension)."""

    name = "disc_shape.tie_shape"

    value = operand_def(AnyTensor)
    shapeDimIndexes = var_operand_def(Index)
    result = result_def(AnyTensor)
    traits = traits_def(Pure())

    def __init__(
        self,
        value: SSAValue | Operation,
        shape_dim_indexes: Sequence[SSAValue | Operation],
        result_type: Attribute | None = None,
    ):
        value = SSAValue.get(value)
        init_op(
            self,
            operands=[value, list(shape_dim_indexes)],
            result_types=[result_type or value.type],
        )

    def verify_(self) -> None:
        r = rank(self.value.type)
        if r is not None and r != len(self.shapeDimIndexes):
            raise VerifyException(
                f"expects one dimension size per dimension of "
                f"{format_type(self.value.type)}, got {len(self.shapeDimIndexes)}"
            )
        vt, rt = self.value.type, self.result.type
        if vt.get_element_type() != rt.get_element_type() or rank(vt) != rank(rt):  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
            raise VerifyException(
                f"result type {format_type(rt)} does not match the operand type {format_type(vt)}"
            )


_KNOWN_FLAGS = ("knownNonNegative", "knownNegativeOne", "knownNonSizeOne", "knownNonSizeZero")


@irdl_op_definition
class SymbolicDimOp(IRDLOperation):
    """`disc_shape.SymbolicDim`: a named (symbolic) dimension size.

    `value` is the size if known (DYNAMIC_SIZE otherwise, also when absent);
    the `known*` flags default to false. The `update_*`, `set_dim_size` and
    `merge` helpers keep the flags consistent as BladeDISC's do.
    """

    name = "disc_shape.SymbolicDim"

    sym_name = attr_def(StringAttr)
    value = opt_attr_def(I64Attr)
    knownNonNegative = opt_attr_def(BoolAttr)
    knownNegativeOne = opt_attr_def(BoolAttr)
    knownNonSizeOne = opt_attr_def(BoolAttr)
    knownNonSizeZero = opt_attr_def(BoolAttr)
    traits = traits_def(IsolatedFromAbove(), SymbolOpInterface())

    def __init__(
        self,
        sym_name: str,
        value: int = DYNAMIC_SIZE,
        known_non_negative: bool = False,
        known_negative_one: bool = False,
        known_non_size_one: bool = False,
        known_non_size_zero: bool = False,
    ):
        super().__init__(
            attributes={
                "sym_name": StringAttr(sym_name),
                "value": IntegerAttr(value, i64),
                "knownNonNegative": bool_attr(known_non_negative),
                "knownNegativeOne": bool_attr(known_negative_one),
                "knownNonSizeOne": bool_attr(known_non_size_one),
                "knownNonSizeZero": bool_attr(known_non_size_zero),
            }
        )

    # -- queries --------------------------------------------------------------
    def get_sym_name(self) -> str:
        """The symbol name."""
        return self.sym_name.data

    def get_dim_size(self) -> int:
        """The dimension size, DYNAMIC_SIZE if unknown."""
        return cast(IntegerAttr, self.value).value.data if self.value is not None else DYNAMIC_SIZE

    def is_dynamic(self) -> bool:
        """Whether the size is unknown at compile time."""
        return self.get_dim_size() == DYNAMIC_SIZE

    def known_size_one(self) -> bool:
        """Whether the size is known to be 1."""
        return self.get_dim_size() == 1

    def get_known(self, flag: str) -> bool:
        """One of the `known*` flags (false when absent)."""
        return bool_value(self, flag, False)

    # -- updates --------------------------------------------------------------
    def set_dim_size(self, value: int) -> None:
        """Set the size and the facts it implies."""
        self.attributes["value"] = IntegerAttr(value, i64)
        if value == -1:
            self.update_known_negative_one(True)
        elif value >= 0:
            self.update_known("knownNonNegative", True)
            if value != 0:
                self.update_known("knownNonSizeZero", True)
            if value != 1:
                self.update_known("knownNonSizeOne", True)

    def update_known(self, flag: str, value: bool) -> None:
        """Set one of the `known*` flags."""
        if flag not in _KNOWN_FLAGS:
            raise ValueError(f"unknown SymbolicDim flag {flag}")
        self.attributes[flag] = bool_attr(value)

    def update_known_negative_one(self, value: bool) -> None:
        """Set `knownNegativeOne`; -1 is neither size one nor size zero."""
        self.update_known("knownNegativeOne", value)
        if value:
            self.update_known("knownNonSizeOne", True)
            self.update_known("knownNonSizeZero", True)

    def merge(self, other: SymbolicDimOp) -> bool:
        """Make this dim also carry `other`'s facts; False (and unchanged) if
        they contradict (different static sizes, or -1 and non-negative)."""
        if (
            not self.is_dynamic()
            and not other.is_dynamic()
            and self.get_dim_size() != other.get_dim_size()
        ):
            return False
        non_negative = self.get_known("knownNonNegative") or other.get_known("knownNonNegative")
        negative_one = self.get_known("knownNegativeOne") or other.get_known("knownNegativeOne")
        if non_negative and negative_one:
            return False
        if self.is_dynamic() and not other.is_dynamic():
            self.set_dim_size(other.get_dim_size())
        non_size_one = (
            self.get_known("knownNonSizeOne") or other.get_known("knownNonSizeOne") or negative_one
        )
        non_size_zero = (
            self.get_known("knownNonSizeZero")
            or other.get_known("knownNonSizeZero")
            or negative_one
        )
        self.update_known("knownNonSizeZero", non_size_zero)
        self.update_known("knownNonSizeOne", non_size_one)
        self.update_known_negative_one(negative_one)
        self.update_known("knownNonNegative", non_negative)
        return True


@irdl_op_definition
class DimOp(IRDLOperation):
    """`disc_shape.dim`: the index value of the SymbolicDim `name`."""

    name = "disc_shape.dim"

    # `name` clashes with the op name, hence the field name.
    dim_name = attr_def(FlatSymbolRef, attr_name="name")
    result = result_def(Index)
    traits = traits_def(Pure())

    def __init__(self, symbol: str | SymbolRefAttr):
        if isinstance(symbol, str):
            symbol = SymbolRefAttr(symbol)
        super().__init__(attributes={"name": symbol}, result_types=[IndexType()])


@irdl_op_definition
class TieProductEqualOp(OperandSegmentsMixin):
    """`disc_shape.tie_product_equal`: product(`lhs`) == product(`rhs`)."""

    name = "disc_shape.tie_product_equal"

    lhs = var_operand_def(Index)
    rhs = var_operand_def(Index)
    irdl_options = (LegacyOperandSegments(),)

    def __init__(
        self,
        lhs: Sequence[SSAValue | Operation],
        rhs: Sequence[SSAValue | Operation],
    ):
        super().__init__(operands=[list(lhs), list(rhs)])


DISC_SHAPE = Dialect(
    "disc_shape",
    [
        LinearizeOp,
        DelinearizeOp,
        TieShapeOp,
        SymbolicDimOp,
        DimOp,
        TieProductEqualOp,
    ],
    [],
)
