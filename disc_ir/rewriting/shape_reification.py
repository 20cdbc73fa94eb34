"""Result-shape reification of mhlo / mhlo_disc ops (MLIR's `reifyReturnTypeShapes`).

For an op with tensor results, `reify_result_dims` emits the IR that computes
each result's dimension sizes from the op's operands and returns them, one
list per result, each entry either a Python `int` (a size known statically)
or an `index`-typed SSA value. `reify_result_shapes` packs the same sizes into
`tensor.from_elements ... : tensor<Nxindex>` shape tensors, the form MLIR's
interface returns.

The operands may be the op's own tensors or their bufferized replacements
(memrefs, as `hlo-legalize-to-lhlo` passes them): `ShapeBuilder.dim` reads a
size with `memref.dim` or `tensor.dim`, and `ShapeBuilder.element` reads an
entry of a shape-like operand (the `output_dimensions` of
`mhlo.dynamic_broadcast_in_dim`, a dynamic_reshape target...) by looking
through `tensor.from_elements`, `shape.shape_of`, `shape.const_shape`,
constants, casts and the bufferization casts before loading it
(`memref.load` / `tensor.extract`, then `arith.index_cast` to `index`).
Arithmetic on sizes folds when both sides are known, so fully static results
emit nothing. Ops created for sizes that end up unused can be removed with
`ShapeBuilder.erase_unused`.

Supported: every elementwise op (and compare / select / clamp / convert /
copy / ...), broadcast, broadcast_in_dim, dynamic_broadcast_in_dim, reshape,
dynamic_reshape, transpose, reverse, reduce, reduce_window (static windows),
dot, dot_general, concatenate, slice, dynamic_slice, real_dynamic_slice
(`ceil((limit - start) / stride)`), pad, dynamic_pad, iota, dynamic_iota,
gather, dynamic_gather, convolution, dynamic_conv, torch_index_select,
dynamic_update_slice, sort, get_dimension_size, and the mhlo_disc ops h2d,
d2h, custom_call (`topk`), quantized_dot_general, quantized_dynamic_conv,
fake_quant / quantize / dequantize, sparse_reshape, sparse_fill_empty_rows,
sparse_segment_reduction(_with_empty_rows) and where. Any op whose results
are all statically shaped is supported trivially.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects import memref as xmemref
from xdsl.dialects import tensor as xtensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.dialects.hlo_attrs import ints, shape_of
from disc_ir.dialects.hlo_ops_common import BINARY_ELEMENTWISE, UNARY_ELEMENTWISE
from disc_ir.ir import builders
from disc_ir.ir.builders import index_constant

DimValue = int | SSAValue
"""A dimension size: a static `int` or an `index` SSA value."""

Shape = list[DimValue]

_CMP_EQ = 0
_CMP_SLT = 2


class ShapeBuilder:
    """Emits `index` computations at an insertion point.

    `insert` is called with each new op; by default ops go before `anchor`
    (through a pattern rewriter when one is given, so the driver sees them).
    """

    def __init__(self, anchor: Operation, rewriter: PatternRewriter | None = None):
        self.anchor = anchor
        self.rewriter = rewriter
        self.created: list[Operation] = []

    # -- emission -------------------------------------------------------------

    def insert(self, op: Operation) -> Operation:
        """Insert `op` before the anchor and remember it."""
        point = InsertPoint.before(self.anchor)
        if isinstance(self.rewriter, PatternRewriter):
            self.rewriter.insert(op, point)
        else:
            Rewriter.insert_op(op, point)
        self.created.append(op)
        return op

    def const(self, value: int) -> SSAValue:
        """`arith.constant value : index`."""
        return self.insert(index_constant(value)).results[0]

    def value(self, dim: DimValue) -> SSAValue:
        """`dim` as an SSA value (a constant for a static size)."""
        return self.const(dim) if isinstance(dim, int) else dim

    def to_index(self, value: SSAValue) -> SSAValue:
        """`value` as an `index` (`arith.index_cast` from an integer)."""
        if isinstance(value.type, IndexType):
            return value
        return self.insert(builders.make(arith.IndexCastOp, [value], [builders.INDEX])).results[0]

    def erase_unused(self) -> None:
        """Remove the ops this builder created whose results ended up unused."""
        for op in reversed(self.created):
            if op.parent is not None and all(not r.uses for r in op.results):
                if isinstance(self.rewriter, PatternRewriter):
                    self.rewriter.erase(op)
                else:
                    Rewriter.erase_op(op)
        self.created.clear()

    # -- reading sizes --------------------------------------------------------

    def dim(self, value: SSAValue, index: int) -> DimValue:
        """Size `index` of the shaped `value` (`memref.dim` / `tensor.dim`)."""
        shape = shape_of(value.type)
        if shape is not None and 0 <= index < len(shape) and shape[index] != DYNAMIC_INDEX:
            return shape[index]
        inner = _through_to_tensor(value)
        if inner is not value:
            return self.dim(inner, index)
        if isinstance(value.type, MemRefType):
            return self.insert(builders.dim(xmemref.DimOp, value, self.const(index))).results[0]
        return self.insert(builders.dim(xtensor.DimOp, value, self.const(index))).results[0]

    def dims(self, value: SSAValue) -> Shape:
        """All sizes of the ranked `value`."""
        shape = shape_of(value.type)
        if shape is None:
            raise ValueError(f"expected a ranked value, got {value.type}")
        return [self.dim(value, i) for i in range(len(shape))]

    def element(self, value: SSAValue, index: int) -> DimValue:
        """Entry `index` of the 1-d shape-like `value`, as an index size."""
        known = self._known_element(value, index)
        if known is not None:
            return known
        c = self.const(index)
        if isinstance(value.type, MemRefType):
            loaded = self.insert(builders.load(value, [c])).results[0]
        else:
            elem = value.type.get_element_type()  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
            loaded = self.insert(xtensor.ExtractOp(value, [c], elem)).results[0]
        return self.to_index(loaded)

    def elements(self, value: SSAValue) -> Shape:
        """All entries of the statically sized 1-d shape-like `value`, or of a
        static `N x 2` one (a dynamic_conv padding `[[low, high], ...]`) in
        row-major order."""
        shape = shape_of(value.type)
        if shape is not None and len(shape) == 2 and DYNAMIC_INDEX not in shape:
            return [self._element_2d(value, i, j) for i in range(shape[0]) for j in range(shape[1])]
        if shape is None or len(shape) != 1 or shape[0] == DYNAMIC_INDEX:
            raise ValueError(f"expected a 1-d static shape operand, got {value.type}")
        return [self.element(value, i) for i in range(shape[0])]

    def _element_2d(self, value: SSAValue, row: int, col: int) -> DimValue:
        """Entry `[row, col]` of the static 2-d integer `value`, as an index size."""
        width = (shape_of(value.type) or (0, 0))[1]
        known = self._known_element(value, row * width + col)
        if known is not None:
            return known
        indices = [self.const(row), self.const(col)]
        if isinstance(value.type, MemRefType):
            loaded = self.insert(builders.load(value, indices)).results[0]
        else:
            elem = value.type.get_element_type()  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
            loaded = self.insert(xtensor.ExtractOp(value, indices, elem)).results[0]
        return self.to_index(loaded)

    def scalar(self, value: SSAValue) -> DimValue:
        """The value of the 0-d integer `value` as an index."""
        source = value
        while True:
            const = _dense_ints(source)
            if const is not None and len(const) >= 1:
                return const[0]
            inner = _through_casts(source)
            if inner is source:
                break
            source = inner
        if isinstance(value.type, MemRefType):
            loaded = self.insert(xmemref.LoadOp.get(value, [])).results[0]
        else:
            elem = value.type.get_element_type()  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
            loaded = self.insert(xtensor.ExtractOp(value, [], elem)).results[0]
        return self.to_index(loaded)

    def _known_element(self, value: SSAValue, index: int) -> DimValue | None:
        """Entry `index` of `value` without loading it, when its producer
        (through casts) tells it; None otherwise."""
        while True:
            const = _dense_ints(value)
            if const is not None:
                return const[index] if len(const) > 1 else const[0]
            inner = _through_casts(value)
            if inner is value:
                break
            value = inner
        if not isinstance(value, OpResult):
            return None
        op = value.op
        if op.name == "tensor.from_elements" and index < len(op.operands):
            return self.to_index(op.operands[index])
        if op.name == "shape.shape_of":
            return self.dim(op.operands[0], index)
        if op.name == "shape.const_shape":
            return ints(op_attr(op, "shape"))[index]
        if op.name == "arith.index_cast" and shape_of(op.operands[0].type) is not None:
            return self.element(op.operands[0], index)
        return None

    # -- arithmetic on sizes --------------------------------------------------

    def add(self, a: DimValue, b: DimValue) -> DimValue:
        if isinstance(a, int) and isinstance(b, int):
            return a + b
        if b == 0:
            return a
        if a == 0:
            return b
        return self._binary(arith.AddiOp, a, b)

    def sub(self, a: DimValue, b: DimValue) -> DimValue:
        if isinstance(a, int) and isinstance(b, int):
            return a - b
        if b == 0:
            return a
        return self._binary(arith.SubiOp, a, b)

    def mul(self, a: DimValue, b: DimValue) -> DimValue:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if b == 1:
            return a
        if a == 1:
            return b
        return self._binary(arith.MuliOp, a, b)

    def div(self, a: DimValue, b: DimValue) -> DimValue:
        """Signed division (sizes are non-negative)."""
        if isinstance(a, int) and isinstance(b, int) and b != 0:
            return a // b
        if b == 1:
            return a
        return self._binary(arith.DivSIOp, a, b)

    def ceil_div(self, a: DimValue, b: DimValue) -> DimValue:
        """`(a + b - 1) / b`."""
        if isinstance(a, int) and isinstance(b, int) and b != 0:
            return -(-a // b)
        return self.div(self.sub(self.add(a, b), 1), b)

    def dilate(self, a: DimValue, dilation: int) -> DimValue:
        """Size of `a` elements with `dilation - 1` holes between neighbours:
        `(a - 1) * dilation + 1`, 0 for an empty dimension."""
        if dilation == 1:
            return a
        return self.add(self.mul(self.max0_minus_one(a), dilation), 1)

    def max0_minus_one(self, a: DimValue) -> DimValue:
        """`a > 0 ? a - 1 : 0`."""
        if isinstance(a, int):
            return max(a - 1, 0)
        one = self.const(1)
        cond = self.insert(arith.CmpiOp(a, one, _CMP_SLT)).results[0]
        minus = self.value(self.sub(a, 1))
        return self.insert(arith.SelectOp(cond, self.const(0), minus)).results[0]

    def window_count(self, size: DimValue, window: DimValue, stride: int) -> DimValue:
        """Number of windows of a strided sliding window (XLA's shape inference for
        convolution and reduce_window): `size < window ? 0 : (size - window) / stride + 1`,
        0 (never negative) when the window is wider than the padded input."""
        if isinstance(size, int) and isinstance(window, int):
            return 0 if size < window else (size - window) // stride + 1
        count = self.value(self.add(self.div(self.sub(size, window), stride), 1))
        cond = self.insert(arith.CmpiOp(self.value(size), self.value(window), _CMP_SLT)).results[0]
        return self.insert(arith.SelectOp(cond, self.const(0), count)).results[0]

    def select_if_eq(self, a: DimValue, b: int, then: DimValue, other: DimValue) -> DimValue:
        """`a == b ? then : other`."""
        if isinstance(a, int):
            return then if a == b else other
        cond = self.insert(arith.CmpiOp(a, self.const(b), _CMP_EQ)).results[0]
        return self.insert(arith.SelectOp(cond, self.value(then), self.value(other))).results[0]

    def num_elements(self, value: SSAValue) -> DimValue:
        total: DimValue = 1
        for d in self.dims(value):
            total = self.mul(total, d)
        return total

    def shape_tensor(self, dims: Sequence[DimValue]) -> SSAValue:
        """`tensor.from_elements` of `dims` : `tensor<Nxindex>`."""
        values = [self.value(d) for d in dims]
        ty = TensorType(IndexType(), [len(values)])
        return self.insert(
            xtensor.FromElementsOp.build(operands=[values], result_types=[ty])
        ).results[0]

    def _binary(self, cls, a: DimValue, b: DimValue) -> SSAValue:
        return self.insert(builders.binary(cls, self.value(a), self.value(b))).results[0]


def _through_to_tensor(value: SSAValue) -> SSAValue:
    """The memref behind `bufferization.to_tensor`, else `value`."""
    if isinstance(value, OpResult) and value.op.name == "bufferization.to_tensor":
        return value.op.operands[0]
    return value


_LOOK_THROUGH = (
    "bufferization.to_tensor",
    "bufferization.to_memref",
    "bufferization.to_buffer",
    "tensor.cast",
    "memref.cast",
    "shape.to_extent_tensor",
    "shape.from_extent_tensor",
)


def _through_casts(value: SSAValue) -> SSAValue:
    if isinstance(value, OpResult) and value.op.name in _LOOK_THROUGH:
        return value.op.operands[0]
    return value


def _dense_ints(value: SSAValue) -> list[int] | None:
    """Integer values of an `arith.constant` / `mhlo.constant` dense operand."""
    if not isinstance(value, OpResult):
        return None
    op = value.op
    if op.name not in ("arith.constant", "mhlo.constant"):
        return None
    attr = op_attr(op, "value")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    if not isinstance(attr.get_element_type(), IntegerType | IndexType):
        return None
    return [int(v) for v in attr.get_values()]


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------

Rule = Callable[[Operation, ShapeBuilder, list[SSAValue]], list[Shape] | None]
_RULES: dict[str, Rule] = {}


def shape_rule(*names: str) -> Callable[[Rule], Rule]:
    """Register a reification rule for ops `names` (usable by other modules)."""

    def deco(fn: Rule) -> Rule:
        for n in names:
            _RULES[n] = fn
        return fn

    return deco


def op_attr(op: Operation, name: str) -> Attribute | None:
    """Attribute `name` of `op`, from its attribute dictionary or properties."""
    value = op.attributes.get(name)
    return value if value is not None else op.properties.get(name)


_attr = op_attr


def _same_as(index: int) -> Rule:
    def rule(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
        return [b.dims(operands[index]) for _ in op.results]

    return rule


def _elementwise(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    """Same shape as the operands: take each size from an operand that knows it."""
    ranked = [v for v in operands if shape_of(v.type) is not None]
    rank = len(shape_of(op.results[0].type) or ())
    ranked = [v for v in ranked if len(shape_of(v.type) or ()) == rank] or ranked
    dims: Shape = []
    for i in range(rank):
        static = [s[i] for v in ranked if (s := shape_of(v.type)) and s[i] != DYNAMIC_INDEX]
        dims.append(static[0] if static else b.dim(ranked[0], i))
    return [list(dims) for _ in op.results]


for _spec in (*UNARY_ELEMENTWISE, *BINARY_ELEMENTWISE):
    _RULES[f"mhlo.{_spec.mnemonic}"] = _elementwise
for _name in ("mhlo.compare", "mhlo.copy", "mhlo.bitcast_convert", "mhlo.reduce_precision"):
    _RULES[_name] = _elementwise
for _name in (
    "mhlo.reverse",
    "mhlo.dynamic_update_slice",
    "mhlo_disc.h2d",
    "mhlo_disc.d2h",
    "mhlo_disc.fake_quant",
    "mhlo_disc.quantize",
    "mhlo_disc.dequantize",
    "mhlo.cholesky",
    "mhlo.triangular_solve",
):
    _RULES[_name] = _same_as(0)
_RULES["mhlo.clamp"] = _same_as(1)


@shape_rule("mhlo.select")
def _select(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    return _elementwise(op, b, operands[1:])


@shape_rule("mhlo.sort")
@shape_rule("mhlo.scatter")
def _sort(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    """Results shaped as the first operands (the inputs of a sort, the operands
    of a scatter)."""
    return [b.dims(v) for v in operands[: len(op.results)]]


@shape_rule("mhlo.broadcast")
def _broadcast(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    sizes: Shape = list(ints(_attr(op, "broadcast_sizes")))
    return [sizes + b.dims(operands[0])]


@shape_rule("mhlo.broadcast_in_dim")
def _broadcast_in_dim(
    op: Operation, b: ShapeBuilder, operands: list[SSAValue]
) -> list[Shape] | None:
    out = shape_of(op.results[0].type)
    assert out is not None
    dims: Shape = list(out)
    mapping = ints(_attr(op, "broadcast_dimensions"))
    src = shape_of(operands[0].type) or ()
    for i, d in enumerate(dims):
        if d != DYNAMIC_INDEX:
            continue
        # a dynamic result size is only known through a non-expanding operand dim
        if i in mapping and src[mapping.index(i)] != 1:
            dims[i] = b.dim(operands[0], mapping.index(i))
        else:
            return None
    return [dims]


@shape_rule("mhlo.dynamic_broadcast_in_dim", "mhlo.dynamic_reshape", "mhlo.dynamic_iota")
def _from_shape_operand(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    shape_operand = operands[1] if op.name != "mhlo.dynamic_iota" else operands[0]
    return [b.elements(shape_operand)]


@shape_rule("mhlo.transpose")
def _transpose(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    perm = ints(_attr(op, "permutation"))
    return [[b.dim(operands[0], p) for p in perm]]


@shape_rule("mhlo.reduce")
def _reduce(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    reduced = set(ints(_attr(op, "dimensions")))
    n = len(op.results)
    out = []
    for v in operands[:n]:
        rank = len(shape_of(v.type) or ())
        out.append([b.dim(v, i) for i in range(rank) if i not in reduced])
    return out


@shape_rule("mhlo.reduce_window")
def _reduce_window(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    n = len(op.results)
    window = ints(_attr(op, "window_dimensions"))
    rank = len(window)
    strides = ints(_attr(op, "window_strides")) or (1,) * rank
    base_dil = ints(_attr(op, "base_dilations")) or (1,) * rank
    win_dil = ints(_attr(op, "window_dilations")) or (1,) * rank
    pad = ints(_attr(op, "padding")) or (0,) * (2 * rank)
    out = []
    for v in operands[:n]:
        dims: Shape = []
        for i in range(rank):
            size = b.dilate(b.dim(v, i), base_dil[i])
            size = b.add(size, pad[2 * i] + pad[2 * i + 1])
            eff_window = (window[i] - 1) * win_dil[i] + 1
            dims.append(b.window_count(size, eff_window, strides[i]))
        out.append(dims)
    return out


def _dot_general_dims(
    b: ShapeBuilder,
    lhs: SSAValue,
    rhs: SSAValue,
    lhs_batch: Sequence[int],
    lhs_contract: Sequence[int],
    rhs_batch: Sequence[int],
    rhs_contract: Sequence[int],
) -> Shape:
    dims: Shape = [b.dim(lhs, d) for d in lhs_batch]
    lrank = len(shape_of(lhs.type) or ())
    rrank = len(shape_of(rhs.type) or ())
    dims += [b.dim(lhs, i) for i in range(lrank) if i not in lhs_batch and i not in lhs_contract]
    dims += [b.dim(rhs, i) for i in range(rrank) if i not in rhs_batch and i not in rhs_contract]
    return dims


@shape_rule("mhlo.dot")
def _dot(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    lhs, rhs = operands[0], operands[1]
    lrank = len(shape_of(lhs.type) or ())
    return [_dot_general_dims(b, lhs, rhs, (), (lrank - 1,), (), (0,))]


@shape_rule("mhlo.dot_general", "mhlo_disc.quantized_dot_general")
def _dot_general(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    dn = _attr(op, "dot_dimension_numbers")
    return [
        _dot_general_dims(
            b,
            operands[0],
            operands[1],
            dn.lhs_batching,  # type: ignore[union-attr]  # the verifier requires dot_dimension_numbers
            dn.lhs_contracting,  # type: ignore[union-attr]  # the verifier requires dot_dimension_numbers
            dn.rhs_batching,  # type: ignore[union-attr]  # the verifier requires dot_dimension_numbers
            dn.rhs_contracting,  # type: ignore[union-attr]  # the verifier requires dot_dimension_numbers
        )
    ]


@shape_rule("mhlo.concatenate")
def _concatenate(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    axis = ints(_attr(op, "dimension"))[0]
    dims = b.dims(operands[0])
    total: DimValue = 0
    for v in operands:
        total = b.add(total, b.dim(v, axis))
    dims[axis] = total
    return [dims]


@shape_rule("mhlo.slice")
def _slice(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    starts = ints(_attr(op, "start_indices"))
    limits = ints(_attr(op, "limit_indices"))
    strides = ints(_attr(op, "strides"))
    return [[-(-(lim - s) // st) for s, lim, st in zip(starts, limits, strides, strict=True)]]


@shape_rule("mhlo.dynamic_slice")
def _dynamic_slice(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    return [list(ints(_attr(op, "slice_sizes")))]


@shape_rule("mhlo.real_dynamic_slice")
def _real_dynamic_slice(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    starts, limits, strides = (b.elements(v) for v in operands[1:4])
    return [
        [b.ceil_div(b.sub(lim, s), st) for s, lim, st in zip(starts, limits, strides, strict=True)]
    ]


def _pad_dims(
    b: ShapeBuilder,
    operand: SSAValue,
    low: Sequence[DimValue],
    high: Sequence[DimValue],
    interior: Sequence[DimValue],
) -> Shape:
    dims: Shape = []
    for i, d in enumerate(b.dims(operand)):
        size = b.add(b.add(d, low[i]), high[i])
        dims.append(b.add(size, b.mul(b.max0_minus_one(d), interior[i])))
    return dims


@shape_rule("mhlo.pad")
def _pad(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    return [
        _pad_dims(
            b,
            operands[0],
            ints(_attr(op, "edge_padding_low")),
            ints(_attr(op, "edge_padding_high")),
            ints(_attr(op, "interior_padding")),
        )
    ]


@shape_rule("mhlo.dynamic_pad")
def _dynamic_pad(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    low, high, interior = (b.elements(v) for v in operands[2:5])
    return [_pad_dims(b, operands[0], low, high, interior)]


@shape_rule("mhlo.iota", "mhlo.constant", "mhlo.get_dimension_size", "mhlo.rng")
def _static(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape] | None:
    shapes = [shape_of(r.type) for r in op.results]
    if any(s is None or DYNAMIC_INDEX in s for s in shapes):
        return None
    return [list(s) for s in shapes if s is not None]


def _gather_dims(
    op: Operation, b: ShapeBuilder, operand: SSAValue, indices: SSAValue, slice_sizes: Shape
) -> Shape:
    dn = _attr(op, "dimension_numbers")
    offset_dims = dn.field("offset_dims")  # type: ignore[union-attr]  # the verifier requires dimension_numbers
    collapsed = dn.field("collapsed_slice_dims")  # type: ignore[union-attr]  # the verifier requires dimension_numbers
    index_vector_dim = dn.field("index_vector_dim")  # type: ignore[union-attr]  # the verifier requires dimension_numbers
    irank = len(shape_of(indices.type) or ())
    batch = [b.dim(indices, i) for i in range(irank) if i != index_vector_dim]
    offsets = [s for i, s in enumerate(slice_sizes) if i not in collapsed]
    out_rank = len(batch) + len(offsets)
    dims: Shape = []
    bi = oi = 0
    for i in range(out_rank):
        if i in offset_dims:
            dims.append(offsets[oi])
            oi += 1
        else:
            dims.append(batch[bi])
            bi += 1
    return dims


@shape_rule("mhlo.gather")
def _gather(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    sizes: Shape = list(ints(_attr(op, "slice_sizes")))
    return [_gather_dims(op, b, operands[0], operands[1], sizes)]


@shape_rule("mhlo.dynamic_gather")
def _dynamic_gather(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    return [_gather_dims(op, b, operands[0], operands[1], b.elements(operands[2]))]


@shape_rule("mhlo.torch_index_select")
def _torch_index_select(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    dim = ints(_attr(op, "dim"))[0]
    batch_dims = ints(_attr(op, "batch_dims"))[0]
    inp = b.dims(operands[0])
    idx = b.dims(operands[1])
    return [inp[:dim] + idx[batch_dims:] + inp[dim + 1 :]]


def _conv_dims(
    op: Operation, b: ShapeBuilder, operands: list[SSAValue], padding: Sequence[DimValue]
) -> Shape:
    dn = _attr(op, "dimension_numbers")
    f = dn.field  # type: ignore[union-attr]  # the verifier requires dimension_numbers
    inp, kernel = operands[0], operands[1]
    in_spatial = f("input_spatial_dimensions")
    k_spatial = f("kernel_spatial_dimensions")
    out_spatial = f("output_spatial_dimensions")
    n = len(in_spatial)
    strides = ints(_attr(op, "window_strides")) or (1,) * n
    lhs_dil = ints(_attr(op, "lhs_dilation")) or (1,) * n
    rhs_dil = ints(_attr(op, "rhs_dilation")) or (1,) * n
    rank = n + 2
    dims: Shape = [0] * rank
    batch_group = ints(_attr(op, "batch_group_count")) or (1,)
    dims[f("output_batch_dimension")] = b.div(
        b.dim(inp, f("input_batch_dimension")), batch_group[0]
    )
    dims[f("output_feature_dimension")] = b.dim(kernel, f("kernel_output_feature_dimension"))
    for i in range(n):
        size = b.dilate(b.dim(inp, in_spatial[i]), lhs_dil[i])
        size = b.add(b.add(size, padding[2 * i]), padding[2 * i + 1])
        window = b.add(b.mul(b.sub(b.dim(kernel, k_spatial[i]), 1), rhs_dil[i]), 1)
        dims[out_spatial[i]] = b.window_count(size, window, strides[i])
    return dims


@shape_rule("mhlo.convolution")
def _convolution(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    n = len(_attr(op, "dimension_numbers").field("input_spatial_dimensions"))  # type: ignore[union-attr]  # the verifier requires dimension_numbers
    padding: Sequence[DimValue] = ints(_attr(op, "padding")) or (0,) * (2 * n)
    return [_conv_dims(op, b, operands, padding)]


@shape_rule("mhlo.dynamic_conv", "mhlo_disc.quantized_dynamic_conv")
def _dynamic_conv(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    return [_conv_dims(op, b, operands, b.elements(operands[2]))]


# -- mhlo_disc ---------------------------------------------------------------


@shape_rule("mhlo_disc.custom_call")
def _custom_call(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape] | None:
    target = _attr(op, "call_target_name")
    if not isinstance(target, StringAttr) or target.data != "topk" or len(operands) != 3:
        return _static(op, b, operands)
    config = _attr(op, "backend_config")
    try:
        dimension = int(json.loads(config.data)["dimension"])  # type: ignore[union-attr]  # a missing or non-string config is caught below
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    keys = operands[0]
    rank = len(shape_of(keys.type) or ())
    if rank == 0:
        return None
    dimension = (dimension + rank) % rank
    k = b.scalar(operands[2])
    dims = b.dims(keys)
    dims[dimension] = b.select_if_eq(k, -1, dims[dimension], k)
    return [list(dims) for _ in op.results]


@shape_rule("mhlo_disc.sparse_reshape")
def _sparse_reshape(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    return [[b.dim(operands[0], 0), b.dim(operands[2], 0)], [b.dim(operands[2], 0)]]


@shape_rule("mhlo_disc.sparse_fill_empty_rows")
def _sparse_fill_empty_rows(
    op: Operation, b: ShapeBuilder, operands: list[SSAValue]
) -> list[Shape]:
    num_indices = b.dim(operands[0], 0)
    rank = b.dim(operands[0], 1)
    dense_rows = b.element(operands[2], 0)
    full = b.add(num_indices, dense_rows)
    return [[full, rank], [full], [dense_rows], [num_indices], [1]]


@shape_rule("mhlo_disc.sparse_segment_reduction")
def _sparse_segment_reduction(
    op: Operation, b: ShapeBuilder, operands: list[SSAValue]
) -> list[Shape]:
    segment_ids = operands[2]
    last = b.sub(b.dim(segment_ids, 0), 1)
    c = b.value(last)
    if isinstance(segment_ids.type, MemRefType):
        loaded = b.insert(xmemref.LoadOp.get(segment_ids, [c])).results[0]
    else:
        elem = segment_ids.type.get_element_type()  # type: ignore[attr-defined]  # the op's type constraints make it a shaped type
        loaded = b.insert(xtensor.ExtractOp(segment_ids, [c], elem)).results[0]
    rows = b.add(b.to_index(loaded), 1)
    data = b.dims(operands[0])
    return [[rows, *data[1:]]]


@shape_rule("mhlo_disc.sparse_segment_reduction_with_empty_rows")
def _sparse_segment_reduction_with_empty_rows(
    op: Operation, b: ShapeBuilder, operands: list[SSAValue]
) -> list[Shape]:
    rows = b.element(operands[3], 0)
    data = b.dims(operands[0])
    return [[rows, *data[1:]], [rows]]


@shape_rule("mhlo_disc.where")
def _where(op: Operation, b: ShapeBuilder, operands: list[SSAValue]) -> list[Shape]:
    rank = len(shape_of(operands[0].type) or ())
    return [[b.num_elements(operands[0]), rank], [1]]


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def has_shape_rule(op: Operation) -> bool:
    """Whether `reify_result_dims` knows `op` (or its results are all static)."""
    if op.name in _RULES:
        return True
    return all(_static_shape(r.type) is not None for r in op.results)


def _static_shape(t: Attribute) -> list[int] | None:
    shape = shape_of(t)
    if shape is None or DYNAMIC_INDEX in shape:
        return None
    return list(shape)


def reify_result_dims(
    op: Operation, builder: ShapeBuilder, operands: Sequence[SSAValue] | None = None
) -> list[Shape] | None:
    """The sizes of each result of `op`, computing dynamic ones from `operands`.

    `operands` replace `op.operands` position for position (default: the op's
    own). Static sizes of the result types are returned as ints. None when a
    result is unranked or the op's shape function is unknown or fails.
    """
    values = list(op.operands if operands is None else operands)
    results = [shape_of(r.type) for r in op.results]
    if any(s is None for s in results):
        return None
    if all(DYNAMIC_INDEX not in s for s in results if s is not None):
        return [list(s) for s in results if s is not None]
    rule = _RULES.get(op.name)
    if rule is None:
        return None
    shapes = rule(op, builder, values)
    if shapes is None or len(shapes) != len(results):
        return None
    out: list[Shape] = []
    for static, dims in zip(results, shapes, strict=True):
        assert static is not None
        if len(dims) != len(static):
            return None
        out.append([s if s != DYNAMIC_INDEX else d for s, d in zip(static, dims, strict=True)])
    return out


def reify_result_shapes(
    op: Operation, builder: ShapeBuilder, operands: Sequence[SSAValue] | None = None
) -> list[SSAValue] | None:
    """MLIR's `reifyReturnTypeShapes`: one `tensor<Nxindex>` shape per result."""
    dims = reify_result_dims(op, builder, operands)
    if dims is None:
        return None
    return [builder.shape_tensor(d) for d in dims]


__all__ = [
    "DimValue",
    "Shape",
    "ShapeBuilder",
    "has_shape_rule",
    "op_attr",
    "reify_result_dims",
    "reify_result_shapes",
    "shape_rule",
]
