"""`MhloBuilder`: creates mhlo ops before an anchor op (rewrites that expand
one op into an mhlo expression: `chlo-legalize-to-hlo`, the compile driver's
runtime checks). Ops are made generically from their registered class, so
any mhlo op name works; constants are splats shaped like a given value
(broadcast with `mhlo.dynamic_broadcast_in_dim` when that value's shape is
dynamic)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import prod

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.dialects.hlo_attrs import (
    ComparisonDirection,
    ComparisonDirectionAttr,
    ComparisonType,
    ComparisonTypeAttr,
    shape_of,
)
from disc_ir.ir.dense_splat import SPLAT_ELEMENT_LIMIT


class MhloBuilder:
    """Creates mhlo ops before `anchor`, with splat constants shaped like a
    value; `attributes` are added to every op made (e.g. a placement)."""

    def __init__(
        self,
        rewriter: Rewriter,
        anchor: Operation,
        attributes: dict[str, Attribute] | None = None,
    ):
        self.rewriter = rewriter
        self.anchor = anchor
        self.attributes = dict(attributes or {})
        self._shapes: dict[SSAValue, SSAValue] = {}

    def op(
        self,
        name: str,
        operands: Sequence[SSAValue],
        result_type: Attribute | None = None,
        attributes: Mapping[str, Attribute] | None = None,
    ) -> SSAValue:
        ctx_op = _OPS_BY_NAME[name]
        new = ctx_op.create(
            operands=list(operands),
            result_types=[result_type or operands[0].type],
            attributes={**(attributes or {}), **self.attributes},
        )
        new.location = self.anchor.location
        self.rewriter.insert_op(new, InsertPoint.before(self.anchor))
        return new.results[0]

    def shape_of(self, value: SSAValue) -> SSAValue:
        if value not in self._shapes:
            from disc_ir.dialects.upstream.shape import ShapeOfOp

            rank = len(shape_of(value.type) or ())
            op = ShapeOfOp(value, TensorType(IndexType(), [rank]))
            self.rewriter.insert_op(op, InsertPoint.before(self.anchor))
            self._shapes[value] = op.results[0]
        return self._shapes[value]

    def const(self, value: float, like: SSAValue) -> SSAValue:
        """`value` in the shape and element type of `like` (mlir-hlo's getConstantLike).

        A static shape of at most `SPLAT_ELEMENT_LIMIT` elements gets a splat
        `mhlo.constant`; a larger one a broadcast scalar, as a dynamic one does
        (xDSL's dense attributes hold every element, even of a splat).
        """
        t = like.type
        assert isinstance(t, TensorType)
        elem = t.get_element_type()
        shape = t.get_shape()
        if DYNAMIC_INDEX not in shape and prod(shape) <= SPLAT_ELEMENT_LIMIT:
            attr = DenseIntOrFPElementsAttr.from_list(TensorType(elem, shape), [value])
            return self.op("mhlo.constant", [], attr.type, {"value": attr})
        scalar = DenseIntOrFPElementsAttr.from_list(TensorType(elem, []), [value])
        c = self.op("mhlo.constant", [], scalar.type, {"value": scalar})
        dims = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [0]), [])
        if DYNAMIC_INDEX not in shape:
            # xDSL stores a splat expanded: a large one is a broadcast scalar instead
            return self.op("mhlo.broadcast_in_dim", [c], t, {"broadcast_dimensions": dims})
        return self.op(
            "mhlo.dynamic_broadcast_in_dim",
            [c, self.shape_of(like)],
            t,
            {"broadcast_dimensions": dims},
        )

    def concat_i64(self, parts: Sequence[SSAValue]) -> SSAValue:
        """The 1-d `tensor<?xi64>` parts joined (`mhlo.concatenate`)."""
        if len(parts) == 1:
            return parts[0]
        total = 0
        for part in parts:
            t = part.type
            assert isinstance(t, TensorType)
            total += t.get_shape()[0]
        return self.op(
            "mhlo.concatenate",
            list(parts),
            TensorType(i64, [total]),
            {"dimension": IntegerAttr(0, i64)},
        )

    def dim_parts(self, value: SSAValue, overrides: dict[int, int] | None = None) -> list[SSAValue]:
        """The dims of `value`, one `tensor<1xi64>` each (static ones as
        constants, dynamic ones by `mhlo.get_dimension_size`), `overrides`
        replacing some."""
        t = value.type
        assert isinstance(t, TensorType)
        overrides = overrides or {}
        parts: list[SSAValue] = []
        for d, size in enumerate(t.get_shape()):
            if d in overrides or size != DYNAMIC_INDEX:
                attr = DenseIntOrFPElementsAttr.from_list(
                    TensorType(i64, [1]), [overrides.get(d, size)]
                )
                parts.append(self.op("mhlo.constant", [], attr.type, {"value": attr}))
                continue
            dim = self.op(
                "mhlo.get_dimension_size",
                [value],
                TensorType(IntegerType(32), []),
                {"dimension": IntegerAttr(d, i64)},
            )
            dim = self.op("mhlo.convert", [dim], TensorType(i64, []))
            parts.append(self.op("mhlo.reshape", [dim], TensorType(i64, [1])))
        return parts

    def dims_i64(self, value: SSAValue, overrides: dict[int, int] | None = None) -> SSAValue:
        """`tensor<Nxi64>`: the dims of `value` (`dim_parts` joined)."""
        return self.concat_i64(self.dim_parts(value, overrides))

    def binary(self, name: str, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op(f"mhlo.{name}", [a, b])

    def compare(
        self, direction: str, a: SSAValue, b: SSAValue, compare_type: str = "FLOAT"
    ) -> SSAValue:
        t = a.type
        assert isinstance(t, TensorType)
        attrs: dict[str, Attribute] = {
            "comparison_direction": ComparisonDirectionAttr(ComparisonDirection(direction)),
            "compare_type": ComparisonTypeAttr(ComparisonType(compare_type)),
        }
        return self.op("mhlo.compare", [a, b], TensorType(IntegerType(1), t.get_shape()), attrs)

    def select(self, p: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.op("mhlo.select", [p, a, b], a.type)

    def poly(self, x: SSAValue, coefficients: Sequence[float]) -> SSAValue:
        acc = self.const(coefficients[0], x)
        for c in coefficients[1:]:
            acc = self.binary("add", self.binary("multiply", acc, x), self.const(c, x))
        return acc


class _MhloOps(dict):
    def __missing__(self, name: str) -> type[Operation]:
        from disc_ir.ir.context import make_context

        cls = make_context().get_optional_op(name)
        assert cls is not None, name
        self[name] = cls
        return cls


_OPS_BY_NAME: dict[str, type[Operation]] = _MhloOps()


__all__ = ["MhloBuilder"]
