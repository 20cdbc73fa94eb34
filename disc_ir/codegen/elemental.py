"""Elemental IR emission: how an lmhlo op computes one output element.

Re-implements BladeDISC's `lhlo_elemental_utils.cc` (and the index helpers of
`codegen_utils.cc`) on xDSL. `elemental_lower(b, op, output_index)` emits, at
the builder's insertion point, the loads of `op`'s inputs and the scalar
computation of the element of `op`'s output at `output_index` (one index
value per output dimension) and returns that value; it stores nothing.

Covered ops: every elementwise op (`scalar.map_lmhlo_to_scalar`), `convert`,
`compare`, `select`, `clamp` (scalar or full min / max), `is_finite`, `not`,
`copy`, `broadcast`, `broadcast_in_dim`, `dynamic_broadcast_in_dim`,
`reshape` / `dynamic_reshape` (through the linear index), `transpose`,
`reverse`, `slice`, `dynamic_slice` (clamped starts), `real_dynamic_slice`, `pad`, `dynamic_pad`,
`concatenate`, `iota` / `dynamic_iota`, `gather` / `dynamic_gather`,
`dynamic_update_slice` (out of place and in place), `reduce` (an `scf.for`
over the reduced elements with the reduce body as accumulator),
`reduce_window` (an `scf.for` over the window: strides, base and window
dilations, padding; positions in the padding or between dilated elements
contribute nothing, as XLA's semantics say), splat / scalar `constant` and
single-element `lmhlo_disc.h2d`.

Index helpers: `linearize` / `delinearize` emit `disc_shape.linearize` /
`disc_shape.delinearize` (their canonicalization patterns fold a
delinearize of a linearize of the same shape, so index math through reshapes
does not round-trip; `disc-shape-to-std` lowers them to arith).

Loads with `check_cache` reuse the value an earlier `memref.store` in the same
block wrote to the same memref at the same indices
(`createLoadOrUseCachedValue`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import cast

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.rewriter import InsertPoint

from disc_ir.codegen import scalar
from disc_ir.codegen.loop_utils import DYNAMIC, OpBuilder, shape_values
from disc_ir.codegen.scalar import UnsupportedOp
from disc_ir.dialects.disc_shape import DelinearizeOp, LinearizeOp
from disc_ir.dialects.hlo_attrs import ints
from disc_ir.dialects.upstream.scf import IfOp
from disc_ir.fusion.pattern import is_splat_dense, result_buffer
from disc_ir.ir import builders
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.walk import preorder_ops


class Builder(OpBuilder):
    """`OpBuilder` that also tells its insertion point (for load caching)."""

    @property
    def insertion_point(self) -> InsertPoint:
        return self._builder.insertion_point

    @staticmethod
    def before(op: Operation) -> Builder:
        return Builder(InsertPoint.before(op))

    @staticmethod
    def at_start(block: Block) -> Builder:
        return Builder(InsertPoint.at_start(block))

    @staticmethod
    def at_end(block: Block) -> Builder:
        return Builder(InsertPoint.at_end(block))


#: Ops aliasing their first operand (BladeDISC's `getRootMemRef` stops at others).
VIEW_OPS = frozenset({"memref.subview", "memref.view", "memref.cast", "memref.reinterpret_cast"})


# ---------------------------------------------------------------------------
# Buffers and shapes
# ---------------------------------------------------------------------------


def root_memref(value: SSAValue) -> SSAValue:
    """`value` with views (cast, reinterpret_cast, subview, view) looked through."""
    while isinstance(value, OpResult) and value.op.name in VIEW_OPS:
        value = value.op.operands[0]
    return value


def same_underlying_buffer(lhs: SSAValue, rhs: SSAValue) -> bool:
    return root_memref(lhs) is root_memref(rhs)


def memref_type(value: SSAValue) -> MemRefType:
    t = value.type
    assert isinstance(t, MemRefType), f"expected a memref, got {t}"
    return t


def rank_of(value: SSAValue) -> int:
    return len(memref_type(value).get_shape())


def element_type(value: SSAValue) -> Attribute:
    return memref_type(value).element_type


def dim_size(b: OpBuilder, value: SSAValue, dim: int) -> SSAValue:
    """A constant for a static size of `value`, else `memref.dim` (`getDimSizeValue`)."""
    size = memref_type(value).get_shape()[dim]
    if size != DYNAMIC:
        return b.index(size)
    return b.create(memref.DimOp(value, b.index(dim))).result


def num_elements(b: OpBuilder, value: SSAValue) -> SSAValue:
    """`1 * dim0 * dim1 ...` of `value` (`emitNumElementsComputation`)."""
    total = b.index(1)
    for r in range(rank_of(value)):
        dim = b.create(memref.DimOp(value, b.index(r))).result
        total = b.muli(total, dim)
    return total


def linearize(b: OpBuilder, index: Sequence[SSAValue], shape: Sequence[SSAValue]) -> SSAValue:
    """`disc_shape.linearize(index, shape)` (`calcLinearIndex`)."""
    return b.create(LinearizeOp(list(index), list(shape))).result


def delinearize(b: OpBuilder, linear: SSAValue, shape: Sequence[SSAValue]) -> list[SSAValue]:
    """`disc_shape.delinearize(linear, shape)` (`calcMultiDimIndex`)."""
    if not shape:
        return []
    return list(b.create(DelinearizeOp(linear, list(shape))).results)


def multi_dim_index(b: OpBuilder, linear: SSAValue, value: SSAValue) -> list[SSAValue]:
    """The index in `value` of its element number `linear` (row major)."""
    return delinearize(b, linear, shape_values(b, value))


def to_index(b: OpBuilder, value: SSAValue) -> SSAValue:
    """`value` as an index (`mayConvertToIndexType`)."""
    if isinstance(value.type, IndexType):
        return value
    value = scalar.cast_to(b, value, scalar.signless(value.type))
    return b.create(arith.IndexCastOp(value, IndexType())).result


def to_integer(b: OpBuilder, value: SSAValue) -> SSAValue:
    """An index `value` as i64 (`mayConvertToIntegerType`)."""
    if isinstance(value.type, IntegerType) and value.type.width.data in (32, 64):
        return value
    return b.create(arith.IndexCastOp(value, IntegerType(64))).result


# ---------------------------------------------------------------------------
# Loads
# ---------------------------------------------------------------------------


def create_load(b: OpBuilder, value: SSAValue, index: Sequence[SSAValue]) -> SSAValue:
    """`memref.load value[index]` (`createMaySpecificLoad` without GPU loaders)."""
    return b.create(builders.load(value, list(index))).res


def cached_store_value(b: OpBuilder, value: SSAValue, index: Sequence[SSAValue]) -> SSAValue | None:
    """The value the first `memref.store` to `value[index]` before the insertion
    point, in the insertion block, wrote; None if there is none."""
    point = b.insertion_point if isinstance(b, Builder) else None
    if point is None:
        return None
    index = list(index)
    for op in point.block.ops:
        if op is point.insert_before:
            break
        if (
            op.name == "memref.store"  # (the name first: no ABC check on a miss)
            and isinstance(op, memref.StoreOp)
            and op.memref is value
            and list(op.indices) == index
        ):
            return op.value
    return None


def load(
    b: OpBuilder, value: SSAValue, index: Sequence[SSAValue], check_cache: bool = True
) -> SSAValue:
    """An element of `value`: a cached stored value when `check_cache` allows,
    else a `memref.load` (`createLoadOrUseCachedValue`)."""
    if rank_of(value) == 0:
        index = []
    if check_cache:
        cached = cached_store_value(b, value, index)
        if cached is not None:
            return cached
    return create_load(b, value, index)


# ---------------------------------------------------------------------------
# Loops and branches
# ---------------------------------------------------------------------------


def new_for(
    b: OpBuilder, lb: SSAValue, ub: SSAValue, step: SSAValue, iter_args: Sequence[SSAValue] = ()
) -> scf.ForOp:
    """Create `scf.for` with an empty body (no terminator: the caller yields)."""
    block = Block(arg_types=[builders.INDEX, *(v.type for v in iter_args)])
    return b.create(
        builders.make(
            scf.ForOp,
            [lb, ub, step, list(iter_args)],
            [v.type for v in iter_args],
            regions=[Region(block)],
        )
    )


def new_if_with_results(b: OpBuilder, cond: SSAValue, types: Sequence[Attribute]) -> IfOp:
    """Create `scf.if` with results and empty then / else blocks."""
    return b.create(
        builders.make(IfOp, [cond], list(types), regions=[Region(Block()), Region(Block())])
    )


def at_end(block: Block) -> Builder:
    return Builder(InsertPoint.at_end(block))


def at_start(block: Block) -> Builder:
    return Builder(InsertPoint.at_start(block))


def before(op: Operation) -> Builder:
    return Builder(InsertPoint.before(op))


def after(op: Operation) -> Builder:
    return Builder(InsertPoint.after(op))


# ---------------------------------------------------------------------------
# Reduce bodies
# ---------------------------------------------------------------------------

REDUCE_BODY_SKIP = frozenset({"memref.alloc", "lmhlo.copy", "lmhlo.terminator", "memref.dealloc"})


def reduce_operator(body: Region) -> Operation:
    """The single computing op of a reduce body (`getReduceOperator`)."""
    found = [op for op in preorder_ops(body) if op.name not in REDUCE_BODY_SKIP]
    if len(found) != 1:
        raise UnsupportedOp(
            f"unexpected reduce body: expected one computing op, found {len(found)}"
        )
    return found[0]


Accumulator = Callable[[OpBuilder, SSAValue, SSAValue], SSAValue]


_ACCUMULATING_OPS = frozenset(
    {"lmhlo.add", "lmhlo.multiply", "lmhlo.maximum", "lmhlo.minimum", "lmhlo.or", "lmhlo.and"}
)


def accumulator(reduce_op: Operation) -> Accumulator:
    """`acc(b, lhs, rhs)` applying `reduce_op`'s body (`getFactory`): its one
    accumulating op, or any other single-output body (several ops, e.g. a
    log-add-exp or a sum of squares) evaluated on scalars op by op
    (`reduce_body_values`). XLA applies the body to (accumulator, element)
    pairs in an unspecified order, so either form gives XLA's result."""
    body = reduce_op.regions[0]
    computing = [op for op in preorder_ops(body) if op.name not in REDUCE_BODY_SKIP]
    if len(computing) != 1 or computing[0].name not in _ACCUMULATING_OPS:
        if len(reduce_op.operands) != 3:
            raise UnsupportedOp("variadic lmhlo.reduce: use variadic_reduce_values")

        def evaluate(b: OpBuilder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
            return reduce_body_values(b, body, [lhs, rhs], 1)[0]

        return evaluate
    calc = computing[0]
    elem = element_type(calc.operands[-1])

    def acc(b: OpBuilder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return scalar.accumulate(b, calc.name, elem, lhs, rhs)

    return acc


def reduce_dims(op: Operation) -> tuple[int, ...]:
    return ints(inherent_attr(op, "dimensions"))


def _attr(op: Operation, name: str) -> Attribute | None:
    return inherent_attr(op, name)


# ---------------------------------------------------------------------------
# Elemental lowering, per op
# ---------------------------------------------------------------------------

ELEMENTWISE_NAMES = frozenset(
    "lmhlo." + m
    for m in (
        "abs cbrt ceil convert count_leading_zeros cosine exponential exponential_minus_one "
        "floor is_finite log log_plus_one logistic not negate popcnt round_nearest_afz "
        "round_nearest_even rsqrt sign sine sqrt tan tanh add atan2 divide maximum minimum "
        "multiply power remainder shift_left shift_right_arithmetic shift_right_logical "
        "subtract and or xor compare select bitcast_convert"
    ).split()
)


def is_elementwise(op: Operation) -> bool:
    """An op whose output element at `i` only reads its inputs at `i` (all of one rank)."""
    if op.name not in ELEMENTWISE_NAMES:
        return False
    ranks = {rank_of(v) for v in op.operands}
    return len(ranks) == 1


def _elementwise(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    out = op.operands[-1]
    values = [load(b, v, index if rank_of(v) else [], cache) for v in op.operands[:-1]]
    return scalar.map_lmhlo_to_scalar(b, op, element_type(out), values)


def _clamp(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    lo_m, x_m, hi_m = op.operands[:3]
    lo = load(b, lo_m, index if rank_of(lo_m) else [], cache)
    hi = load(b, hi_m, index if rank_of(hi_m) else [], cache)
    x = load(b, x_m, index, cache)
    return scalar.map_lmhlo_to_scalar(b, op, element_type(x_m), [lo, x, hi])


def _copy(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    return load(b, op.operands[0], index, cache)


def _slice(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    starts = ints(_attr(op, "start_indices"))
    strides = ints(_attr(op, "strides"))
    input_index = []
    for dim, out in enumerate(index):
        start = b.index(starts[dim])
        stride = b.index(strides[dim])
        input_index.append(b.addi(b.muli(out, stride), start))
    return load(b, op.operands[0], input_index, cache)


def _real_dynamic_slice(
    b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool
) -> SSAValue:
    operand, starts, _limits, strides = op.operands[:4]
    input_index = []
    for dim, out in enumerate(index):
        d = b.index(dim)
        start = to_index(b, create_load(b, starts, [d]))
        stride = to_index(b, create_load(b, strides, [d]))
        input_index.append(b.addi(b.muli(out, stride), start))
    return load(b, operand, input_index, cache)


def _dynamic_slice(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    """`operand[start + i]`, each start clamped to [0, dim - slice_size] (XLA's
    DynamicSlice semantics: the slice always lies within the operand)."""
    operand, *starts = op.operands[:-1]
    sizes = ints(_attr(op, "slice_sizes"))
    if len(starts) != len(index) or len(sizes) != len(index):
        raise UnsupportedOp("lmhlo.dynamic_slice: start index / slice size count differs from rank")
    zero = b.index(0)
    input_index = []
    for dim, out in enumerate(index):
        start = to_index(b, create_load(b, starts[dim], []))
        limit = b.create(arith.SubiOp(dim_size(b, operand, dim), b.index(sizes[dim]))).result
        start = b.create(arith.MinSIOp(b.create(arith.MaxSIOp(start, zero)).result, limit)).result
        input_index.append(b.addi(start, out))
    return load(b, operand, input_index, cache)


def _broadcast_in_dim(
    b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool
) -> SSAValue:
    operand = op.operands[0]
    result = op.operands[-1]
    bdims = list(ints(_attr(op, "broadcast_dimensions")))
    operand_shape = memref_type(operand).get_shape()
    input_index: list[SSAValue] = []
    for dim in range(len(index)):
        if dim not in bdims:
            continue
        input_dim = bdims.index(dim)
        size = operand_shape[input_dim]
        if size == 1:
            input_index.append(b.index(0))
        elif size == DYNAMIC:
            # Not known whether this dim is broadcast: compare the sizes (the
            # same SSA value folds to the output index).
            in_size = b.create(builders.dim(memref.DimOp, operand, b.index(input_dim))).result
            out_size = b.create(builders.dim(memref.DimOp, result, b.index(dim))).result
            zero = b.index(0)
            equal = b.create(builders.cmpi(in_size, out_size, "eq")).result
            input_index.append(b.create(builders.select(equal, index[dim], zero)).result)
        else:
            input_index.append(index[dim])
    return load(b, operand, input_index, cache)


def _broadcast(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    operand = op.operands[0]
    r = rank_of(operand)
    return load(b, operand, list(index)[len(index) - r :], cache)


def _reshape(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    operand = op.operands[0]
    output = op.operands[-1]
    # The output shape is taken from the output buffer (not the shape operand
    # of dynamic_reshape) so linearize/delinearize pairs can cancel.
    linear = linearize(b, index, shape_values(b, output))
    operand_index = delinearize(b, linear, shape_values(b, operand))
    return load(b, operand, operand_index, cache)


def _transpose(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    perm = ints(_attr(op, "permutation"))
    operand_index: list[SSAValue | None] = [None] * len(perm)
    for dim, p in enumerate(perm):
        operand_index[p] = index[dim]
    assert all(v is not None for v in operand_index), "invalid permutation"
    return load(
        b, op.operands[0], cast(list[SSAValue], operand_index), cache
    )  # no None: asserted above


def _reverse(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    axes = ints(_attr(op, "dimensions"))
    operand = op.operands[0]
    one = b.index(1)
    shape = shape_values(b, operand)
    operand_index: list[SSAValue] = []
    for dim, out in enumerate(index):
        if dim in axes:
            last = b.create(arith.SubiOp(shape[dim], one)).result
            operand_index.append(b.create(arith.SubiOp(last, out)).result)
        else:
            operand_index.append(out)
    return load(b, operand, operand_index, cache)


def _select_in_bounds(
    b: OpBuilder,
    in_bound: SSAValue,
    elem: Attribute,
    then_fn: Callable[[OpBuilder], SSAValue],
    else_fn: Callable[[OpBuilder], SSAValue],
) -> SSAValue:
    """`scf.if in_bound -> elem { then_fn } else { else_fn }`."""
    if_op = new_if_with_results(b, in_bound, [elem])
    tb = at_end(if_op.true_region.block)
    tb.create(scf.YieldOp.create(operands=[then_fn(tb)]))
    eb = at_end(if_op.false_region.block)
    eb.create(scf.YieldOp.create(operands=[else_fn(eb)]))
    return if_op.results[0]


def _pad_common(
    b: OpBuilder,
    operand: SSAValue,
    padding_value: SSAValue,
    index: Sequence[SSAValue],
    low: Callable[[int], SSAValue],
    interior: Callable[[int], SSAValue],
    cache: bool,
) -> SSAValue:
    in_bound = b.bool(True)
    one = b.index(1)
    zero = b.index(0)
    input_index = []
    for dim, out in enumerate(index):
        x = b.create(arith.SubiOp(out, low(dim))).result
        interior_p1 = b.addi(interior(dim), one)
        y = b.create(arith.RemUIOp(x, interior_p1)).result
        z = b.create(arith.DivUIOp(x, interior_p1)).result
        for cond in (
            arith.CmpiOp(x, zero, "sge"),
            arith.CmpiOp(y, zero, "eq"),
            arith.CmpiOp(z, dim_size(b, operand, dim), "slt"),
        ):
            in_bound = b.create(arith.AndIOp(in_bound, b.create(cond).result)).result
        input_index.append(z)
    return _select_in_bounds(
        b,
        in_bound,
        element_type(operand),
        lambda tb: load(tb, operand, input_index, cache),
        lambda eb: create_load(eb, padding_value, []),
    )


def _dynamic_pad(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    operand, padding_value, low_m, _high_m, interior_m = op.operands[:5]
    return _pad_common(
        b,
        operand,
        padding_value,
        index,
        lambda d: to_index(b, create_load(b, low_m, [b.index(d)])),
        lambda d: to_index(b, create_load(b, interior_m, [b.index(d)])),
        cache,
    )


def _pad(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    operand, padding_value = op.operands[:2]
    low = ints(_attr(op, "edge_padding_low"))
    interior = ints(_attr(op, "interior_padding"))
    return _pad_common(
        b,
        operand,
        padding_value,
        index,
        lambda d: b.index(low[d]),
        lambda d: b.index(interior[d]),
        cache,
    )


def _iota(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    result = op.operands[-1]
    elem = element_type(result)
    if not index:
        return scalar.constant(b, scalar.signless(elem), 0)
    dim_attr = _attr(op, "iota_dimension")
    iota_dim = dim_attr.value.data if isinstance(dim_attr, IntegerAttr) else 0
    value = index[iota_dim]
    if isinstance(elem, IndexType):
        return value
    if scalar.is_int(elem):
        out = b.create(arith.IndexCastOp(value, scalar.signless(elem))).result
        return scalar.cast_to(b, out, elem)
    if scalar.is_float(elem):
        as_int = to_integer(b, value)
        return b.create(arith.UIToFPOp(as_int, cast(AnyFloat, elem))).result
    raise UnsupportedOp(f"element type {elem} of iota not supported")


def _concatenate(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    dim_attr = _attr(op, "dimension")
    axis = dim_attr.value.data if isinstance(dim_attr, IntegerAttr) else 0
    inputs = list(op.operands[:-1])
    elem = element_type(op.operands[-1])
    zero = b.index(0)
    ranges = [zero]
    for v in inputs:
        ranges.append(b.addi(dim_size(b, v, axis), ranges[-1]))
    out_idx = index[axis]

    # Tn = if (lo_n <= i < hi_n) { in_n[i - lo_n] } else { T(n+1) } ... the
    # last else loads the last input at 0 (never taken).
    def emit(bb: OpBuilder, i: int) -> SSAValue:
        lo, hi = ranges[i], ranges[i + 1]
        ge = bb.create(builders.cmpi(out_idx, lo, "uge")).result
        lt = bb.create(builders.cmpi(out_idx, hi, "ult")).result
        in_bound = bb.create(builders.binary(arith.AndIOp, ge, lt)).result

        def then_fn(tb: OpBuilder) -> SSAValue:
            idx = list(index)
            idx[axis] = tb.create(builders.binary(arith.SubiOp, out_idx, lo)).result
            return load(tb, inputs[i], idx, cache)

        def else_fn(eb: OpBuilder) -> SSAValue:
            if i == len(inputs) - 1:
                idx = list(index)
                idx[axis] = eb.index(0)
                return load(eb, inputs[i], idx, cache)
            return emit(eb, i + 1)

        return _select_in_bounds(bb, in_bound, elem, then_fn, else_fn)

    return emit(b, 0)


def _gather(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    operand, start_indices = op.operands[0], op.operands[1]
    result = op.operands[-1]
    dnums = _attr(op, "dimension_numbers")
    assert dnums is not None and hasattr(dnums, "field"), "gather without dimension_numbers"
    collapsed = tuple(dnums.field("collapsed_slice_dims"))
    offset_dims = tuple(dnums.field("offset_dims"))
    start_index_map = tuple(dnums.field("start_index_map"))
    index_vector_dim = int(dnums.field("index_vector_dim"))
    operand_rank = rank_of(operand)
    si_rank = rank_of(start_indices)

    operand_index: list[SSAValue] = []
    operand_to_output = [-1] * operand_rank
    next_offset = 0
    for i in range(operand_rank):
        if i in collapsed:
            operand_index.append(b.index(0))
        else:
            out_dim = offset_dims[next_offset]
            next_offset += 1
            operand_to_output[i] = out_dim
            operand_index.append(index[out_dim])

    gather_index: list[SSAValue | None] = [
        index[i] for i in range(len(index)) if i not in offset_dims
    ]
    if len(gather_index) != si_rank:
        gather_index.insert(index_vector_dim, None)

    def add_component(component: SSAValue, k: int) -> None:
        operand_dim = start_index_map[k]
        out_dim = operand_to_output[operand_dim]
        out_size = b.index(1) if out_dim == -1 else dim_size(b, result, out_dim)
        ctype = component.type
        largest = b.create(
            arith.IndexCastOp(
                b.create(arith.SubiOp(dim_size(b, operand, operand_dim), out_size)).result,
                ctype,
            )
        ).result
        czero = scalar.constant(b, ctype, 0)
        ge0 = b.create(arith.CmpiOp(czero, component, "sge")).result
        clamped_lo = b.create(arith.SelectOp(ge0, czero, component)).result
        lt = b.create(arith.CmpiOp(clamped_lo, largest, "slt")).result
        clamped = b.create(arith.SelectOp(lt, clamped_lo, largest)).result
        operand_index[operand_dim] = b.addi(operand_index[operand_dim], to_index(b, clamped))

    if si_rank == index_vector_dim:
        component = load(b, start_indices, gather_index, cache)  # type: ignore[arg-type]  # an implicit index vector dim: no None slot
        add_component(scalar.cast_to(b, component, scalar.signless(component.type)), 0)
    else:
        size = memref_type(start_indices).get_shape()[index_vector_dim]
        if size == DYNAMIC:
            raise UnsupportedOp("gather with a dynamic index vector size")
        for k in range(size):
            gather_index[index_vector_dim] = b.index(k)
            component = load(b, start_indices, gather_index, cache)  # type: ignore[arg-type]  # the index-vector slot is set just above
            add_component(scalar.cast_to(b, component, scalar.signless(component.type)), k)
    return load(b, operand, operand_index, cache)


def _dynamic_update_slice(
    b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool
) -> SSAValue:
    src, update = op.operands[0], op.operands[1]
    starts = list(op.operands[2:-1])
    out = op.operands[-1]
    if out is src:
        # In place: `index` runs over the update; store it at start + index.
        value = load(b, update, index, cache)
        target = [
            b.addi(idx, to_index(b, create_load(b, s, [])))
            for idx, s in zip(index, starts, strict=True)
        ]
        b.create(memref.StoreOp.get(value, src, target))
        return value
    zero = b.index(0)
    in_bound = b.bool(True)
    update_index = []
    for dim, out_i in enumerate(index):
        start = to_index(b, create_load(b, starts[dim], []))
        in_size = b.create(memref.DimOp(src, b.index(dim))).result
        up_size = b.create(memref.DimOp(update, b.index(dim))).result
        limit = b.create(arith.SubiOp(in_size, up_size)).result
        start = b.create(arith.MaxSIOp(start, zero)).result
        start = b.create(arith.MinSIOp(start, limit)).result
        up_i = b.create(arith.SubiOp(out_i, start)).result
        update_index.append(up_i)
        c1 = b.create(arith.CmpiOp(up_i, zero, "sge")).result
        c2 = b.create(arith.CmpiOp(up_i, up_size, "slt")).result
        in_bound = b.create(arith.AndIOp(in_bound, c1)).result
        in_bound = b.create(arith.AndIOp(in_bound, c2)).result
    return _select_in_bounds(
        b,
        in_bound,
        element_type(src),
        lambda tb: load(tb, update, update_index, cache),
        lambda eb: load(eb, src, index, cache),
    )


def merge_reduce_index(
    reduce_index: Sequence[SSAValue],
    output_index: Sequence[SSAValue],
    dims: Sequence[int],
    rank: int,
) -> list[SSAValue]:
    """An input index of a reduce: `reduce_index` at the reduced `dims`,
    `output_index` at the others, in dimension order."""
    reduced, kept = iter(reduce_index), iter(output_index)
    return [next(reduced) if d in dims else next(kept) for d in range(rank)]


def reduce_body_values(
    b: OpBuilder, body: Region, inputs: Sequence[SSAValue], num_results: int
) -> list[SSAValue]:
    """Evaluate an lmhlo reduce body on scalars: `inputs` bound to its first
    block arguments (accumulators, then elements, as XLA's reducer takes
    them), each lmhlo op of the body computed elementally on 0-d values; the
    values written to the last `num_results` arguments (the outputs)."""
    block = body.blocks.first
    assert block is not None
    args = list(block.args)
    if len(args) != len(inputs) + num_results:
        raise UnsupportedOp("unexpected reduce body: argument count")
    value_of: dict[SSAValue, SSAValue] = dict(zip(args, inputs, strict=False))

    def read(v: SSAValue) -> SSAValue:
        if v in value_of:
            return value_of[v]
        if rank_of(v) != 0:
            raise UnsupportedOp("unexpected reduce body: a non-scalar buffer is read")
        return create_load(b, v, [])

    for inner in block.ops:
        if inner.name in ("memref.alloc", "memref.dealloc", "lmhlo.terminator"):
            continue
        if inner.name == "lmhlo.copy":
            value_of[inner.operands[1]] = read(inner.operands[0])
            continue
        if inner.name == "lmhlo.constant":
            value_of[inner.operands[-1]] = _constant(b, inner, [], False)
            continue
        if inner.name not in ELEMENTWISE_NAMES or inner.regions:
            raise UnsupportedOp(f"unexpected op '{inner.name}' in a reduce body")
        out = inner.operands[-1]
        operands = [read(v) for v in inner.operands[:-1]]
        value_of[out] = scalar.map_lmhlo_to_scalar(b, inner, element_type(out), operands)
    return [read(a) for a in args[len(inputs) :]]


def variadic_reduce_values(
    b: OpBuilder, op: Operation, index: Sequence[SSAValue]
) -> list[SSAValue]:
    """The elements at `index` of every output of a (variadic) `lmhlo.reduce`:
    an `scf.for` over the reduced elements carrying one accumulator per input,
    the body evaluated on scalars (`reduce_body_values`), e.g. jnp.argmax's
    (value, index) pairs."""
    n = len(op.operands) // 3
    inputs, inits = op.operands[:n], op.operands[n : 2 * n]
    dims = reduce_dims(op)
    total = b.index(1)
    sizes = []
    for d in dims:
        size = dim_size(b, inputs[0], d)
        sizes.append(size)
        total = b.muli(total, size)
    init_values = [create_load(b, v, []) for v in inits]
    for_op = new_for(b, b.index(0), total, b.index(1), init_values)
    body = at_end(for_op.body.block)
    reduce_index = delinearize(body, for_op.body.block.args[0], sizes)
    input_index = merge_reduce_index(reduce_index, index, dims, rank_of(inputs[0]))
    elements = [create_load(body, v, input_index) for v in inputs]
    accs = list(for_op.body.block.args[1:])
    new = reduce_body_values(body, op.regions[0], [*accs, *elements], n)
    body.create(scf.YieldOp(*new))
    return list(for_op.results)


def _reduce(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    if len(op.operands) != 3:
        # one output at a time; `variadic_reduce_values` gives them all
        raise UnsupportedOp("variadic lmhlo.reduce: use variadic_reduce_values")
    operand, init = op.operands[0], op.operands[1]
    init_value = create_load(b, init, [])
    dims = reduce_dims(op)
    total = b.index(1)
    sizes = []
    for d in dims:
        size = b.create(memref.DimOp(operand, b.index(d))).result
        sizes.append(size)
        total = b.muli(total, size)
    zero = b.index(0)
    one = b.index(1)
    for_op = new_for(b, zero, total, one, [init_value])
    body = at_end(for_op.body.block)
    iv = for_op.body.block.args[0]
    reduce_index = delinearize(body, iv, sizes)
    input_index = merge_reduce_index(reduce_index, index, dims, rank_of(operand))
    data = create_load(body, operand, input_index)
    acc = accumulator(op)(body, for_op.body.block.args[1], data)
    body.create(scf.YieldOp(acc))
    return for_op.results[0]


def _window_attr(op: Operation, name: str, rank: int, default: int) -> tuple[int, ...]:
    values = ints(_attr(op, name))
    if not values:
        return (default,) * rank
    if len(values) != rank:
        raise UnsupportedOp(
            f"lmhlo.reduce_window: '{name}' has {len(values)} values for rank {rank}"
        )
    return values


def _reduce_window(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    """Output element `o` = init (+) input[p] over window positions `w` whose
    padded, dilated position `o * stride + w * window_dilation - pad_low` hits
    an input element (a multiple of the base dilation, within the input)."""
    if len(op.operands) != 3:
        raise UnsupportedOp("variadic lmhlo.reduce_window is not supported by the loop emitter")
    operand, init = op.operands[0], op.operands[1]
    rank = rank_of(operand)
    window = ints(_attr(op, "window_dimensions"))
    if len(window) != rank:
        raise UnsupportedOp(
            f"lmhlo.reduce_window: window_dimensions has {len(window)} values for rank {rank}"
        )
    strides = _window_attr(op, "window_strides", rank, 1)
    base_dil = _window_attr(op, "base_dilations", rank, 1)
    win_dil = _window_attr(op, "window_dilations", rank, 1)
    padding = ints(_attr(op, "padding")) or (0,) * (2 * rank)
    if len(padding) != 2 * rank:
        raise UnsupportedOp(
            f"lmhlo.reduce_window: padding has {len(padding)} values for rank {rank}"
        )
    init_value = create_load(b, init, [])
    volume = 1
    for w in window:
        volume *= w
    for_op = new_for(b, b.index(0), b.index(volume), b.index(1), [init_value])
    body = at_end(for_op.body.block)
    window_index = delinearize(body, for_op.body.block.args[0], [body.index(w) for w in window])
    zero = body.index(0)
    in_bound = body.bool(True)
    input_index: list[SSAValue] = []
    for d in range(rank):
        pos = body.addi(
            body.muli(index[d], body.index(strides[d])),
            body.muli(window_index[d], body.index(win_dil[d])),
        )
        pos = body.create(arith.SubiOp(pos, body.index(padding[2 * d]))).result
        conds = [arith.CmpiOp(pos, zero, "sge")]
        if base_dil[d] != 1:
            dil = body.index(base_dil[d])
            rem = body.create(arith.RemSIOp(pos, dil)).result
            conds.append(arith.CmpiOp(rem, zero, "eq"))
            pos = body.create(arith.DivSIOp(pos, dil)).result
        conds.append(arith.CmpiOp(pos, dim_size(body, operand, d), "slt"))
        for cond in conds:
            in_bound = body.create(arith.AndIOp(in_bound, body.create(cond).result)).result
        input_index.append(pos)
    acc_fn = accumulator(op)
    running = for_op.body.block.args[1]
    value = _select_in_bounds(
        body,
        in_bound,
        element_type(init),
        lambda tb: acc_fn(tb, running, create_load(tb, operand, input_index)),
        lambda _eb: running,
    )
    body.create(scf.YieldOp(value))
    return for_op.results[0]


def splat_constant_value(
    op: Operation,
) -> int | float | tuple[int, int] | tuple[float, float] | None:
    """The single element of a scalar / splat `lmhlo.constant`, else None."""
    value = _attr(op, "value")
    if not isinstance(value, DenseIntOrFPElementsAttr):
        return None
    # on the stored bytes: a NaN splat's values are never equal to each other
    if not is_splat_dense(value):
        return None
    values = value.get_values()
    return values[0] if values else None


def _constant(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    v = splat_constant_value(op)
    if v is None:
        raise UnsupportedOp("only scalar or splat lmhlo.constant can be emitted elementally")
    elem = element_type(op.operands[-1])
    st = scalar.signless(elem)
    if isinstance(v, float) and scalar.is_float(elem):
        out = b.create(arith.ConstantOp(FloatAttr(v, cast(AnyFloat, elem)))).result
    else:
        raw = int(v)  # type: ignore[arg-type]  # a complex splat's pair fails here, as before
        if isinstance(st, IntegerType) and st.width.data == 1:
            raw = -1 if raw else 0
        out = b.create(arith.ConstantOp(IntegerAttr(raw, cast(IntegerType | IndexType, st)))).result
    return scalar.cast_to(b, out, elem)


def _h2d(b: OpBuilder, op: Operation, index: Sequence[SSAValue], cache: bool) -> SSAValue:
    operand = op.operands[0]
    zeros = [b.index(0) for _ in range(rank_of(operand))]
    return load(b, operand, zeros, cache)


_EMITTERS: dict[str, Callable[[OpBuilder, Operation, Sequence[SSAValue], bool], SSAValue]] = {
    "lmhlo.clamp": _clamp,
    "lmhlo.copy": _copy,
    "lmhlo.slice": _slice,
    "lmhlo.real_dynamic_slice": _real_dynamic_slice,
    "lmhlo.dynamic_slice": _dynamic_slice,
    "lmhlo.broadcast_in_dim": _broadcast_in_dim,
    "lmhlo.dynamic_broadcast_in_dim": _broadcast_in_dim,
    "lmhlo.broadcast": _broadcast,
    "lmhlo.reshape": _reshape,
    "lmhlo.dynamic_reshape": _reshape,
    "lmhlo.transpose": _transpose,
    "lmhlo.reverse": _reverse,
    "lmhlo.pad": _pad,
    "lmhlo.dynamic_pad": _dynamic_pad,
    "lmhlo.iota": _iota,
    "lmhlo.dynamic_iota": _iota,
    "lmhlo.concatenate": _concatenate,
    "lmhlo.gather": _gather,
    "lmhlo.dynamic_gather": _gather,
    "lmhlo.dynamic_update_slice": _dynamic_update_slice,
    "lmhlo.reduce": _reduce,
    "lmhlo.reduce_window": _reduce_window,
    "lmhlo.constant": _constant,
    "lmhlo_disc.h2d": _h2d,
}


def can_lower(op: Operation) -> bool:
    """Whether `elemental_lower` supports `op`."""
    if op.name == "lmhlo.constant":
        return splat_constant_value(op) is not None
    return is_elementwise(op) or op.name in _EMITTERS or op.name in ELEMENTWISE_NAMES


def is_inplace(op: Operation) -> bool:
    """An op writing its first operand (in-place dynamic_update_slice / scatter)."""
    return (
        op.name in ("lmhlo.dynamic_update_slice", "lmhlo.scatter")
        and len(op.operands) > 1
        and op.operands[0] is op.operands[-1]
    )


def elemental_lower(
    b: OpBuilder, op: Operation, output_index: Sequence[SSAValue], check_cache: bool = True
) -> SSAValue:
    """The element of `op`'s output at `output_index`, emitted at `b`'s insertion point.

    Raises `UnsupportedOp` for ops (or element types) not covered."""
    if op.name in ELEMENTWISE_NAMES and is_elementwise(op):
        return _elementwise(b, op, output_index, check_cache)
    emitter = _EMITTERS.get(op.name)
    if emitter is None:
        if op.name in ELEMENTWISE_NAMES:
            # mixed ranks (e.g. select with a scalar predicate)
            return _elementwise(b, op, output_index, check_cache)
        raise UnsupportedOp(f"no elemental lowering of '{op.name}'")
    return emitter(b, op, output_index, check_cache)


def output_of(op: Operation) -> SSAValue:
    """The buffer `op` writes (`getResultBuffer`)."""
    out = result_buffer(op)
    assert out is not None, f"{op.name} writes no buffer"
    return out


__all__ = [
    "REDUCE_BODY_SKIP",
    "Accumulator",
    "UnsupportedOp",
    "Builder",
    "accumulator",
    "after",
    "before",
    "at_end",
    "at_start",
    "can_lower",
    "create_load",
    "delinearize",
    "dim_size",
    "elemental_lower",
    "element_type",
    "is_elementwise",
    "is_inplace",
    "linearize",
    "load",
    "multi_dim_index",
    "new_for",
    "num_elements",
    "output_of",
    "rank_of",
    "reduce_body_values",
    "reduce_dims",
    "root_memref",
    "same_underlying_buffer",
    "to_index",
    "variadic_reduce_values",
]
