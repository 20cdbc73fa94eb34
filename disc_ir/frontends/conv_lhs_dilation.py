"""Input (lhs) dilation of `mhlo.convolution` as an explicit interior padding.

A convolution with `lhs_dilation` (a transposed convolution: `jax.lax.conv_transpose`,
the gradient of a strided convolution) reads its input with `d - 1` zeros
between neighbouring elements of each spatial dim. The RAL's `ral_conv` (as
BladeDISC's) has no such parameter, so `expand_lhs_dilation(module)` makes
the zeros explicit (pass `disc-expand-conv-lhs-dilation`, input phase): the input becomes
`mhlo.pad(input, 0, low = high = 0, interior = d - 1 on the spatial dims)` and
the attribute is dropped. The result is the same convolution, element for
element (the window, padding, strides and rhs dilation are unchanged).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Operation
from xdsl.rewriter import Rewriter

from disc_ir.dialects.hlo_attrs import ints
from disc_ir.ir.mhlo_builder import MhloBuilder
from disc_ir.ir.walk import preorder_ops


def _attr(op: Operation, name: str):  # noqa: ANN202
    return op.attributes.get(name) or op.properties.get(name)


def _dense(values: list[int]) -> DenseIntOrFPElementsAttr:
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), values)


def _expand(op: Operation, rewriter: Rewriter) -> bool:
    dilation = list(ints(_attr(op, "lhs_dilation")) or ())
    if not dilation or all(d == 1 for d in dilation):
        return False
    dnums = _attr(op, "dimension_numbers")
    x = op.operands[0]
    t = x.type
    if dnums is None or not isinstance(t, TensorType):
        return False
    spatial = list(dnums.field("input_spatial_dimensions"))
    rank = len(t.get_shape())
    interior = [0] * rank
    for dim, d in zip(spatial, dilation, strict=True):
        interior[dim] = d - 1
    shape = [
        s if s == DYNAMIC_INDEX or s == 0 else s + (s - 1) * interior[i]
        for i, s in enumerate(t.get_shape())
    ]
    b = MhloBuilder(rewriter, op)
    elem = t.get_element_type()
    zero_attr = DenseIntOrFPElementsAttr.from_list(
        TensorType(elem, []), [0.0 if isinstance(elem, AnyFloat) else 0]
    )
    zero = b.op("mhlo.constant", [], zero_attr.type, {"value": zero_attr})
    padded = b.op(
        "mhlo.pad",
        [x, zero],
        TensorType(t.get_element_type(), shape),
        {
            "edge_padding_low": _dense([0] * rank),
            "edge_padding_high": _dense([0] * rank),
            "interior_padding": _dense(interior),
        },
    )
    op.operands[0] = padded
    for holder in (op.attributes, op.properties):
        holder.pop("lhs_dilation", None)
    return True


def expand_lhs_dilation(module: ModuleOp) -> int:
    """Rewrite every `mhlo.convolution` with an input dilation (module
    docstring); returns how many were rewritten."""
    rewriter = Rewriter()
    return sum(
        _expand(op, rewriter) for op in preorder_ops(module) if op.name == "mhlo.convolution"
    )


__all__ = ["expand_lhs_dilation"]
