"""`@stablehlo.dynamic_reduce_window` of a cumulative reduction, as a blocked scan.

jax writes `jnp.cumsum` / `cumprod` / `lax.cummax` / `cummin` /
`cumlogsumexp` along a shape-polymorphic axis `k` of length `N` as StableHLO's
`dynamic_reduce_window` custom call (its window and padding are run-time
values): window `N` on `k` and 1 elsewhere, unit strides and dilations,
padding `N - 1` before `k` (after it for `reverse=True`) and 0 elsewhere. By
XLA's reduce_window semantics, output `j` then combines `init` with the
window's elements, the padded positions contributing `init`: `x[0..j]` and
`N - 1 - j` inits (`x[j..N-1]` and `j` inits when reversed).

`expand_cumulative_reduce_windows(module)` rewrites such a call as a blocked
scan (XLA's ReduceWindowRewriter does the same), in static ops over dynamic
shapes. With `B = min(N, BLOCK)` and `M = ceil(N / B)`:

    blocks = dynamic_reshape(dynamic_pad(x, init), [.., M, B, ..])
             (padded with init after axis k; before it when reversed)
    carry  = the strict scan of the block totals reduce(blocks) along k:
             `LEVELS - 1` more levels of blocks, then one reduce over an
             [M', M'] broadcast of what is left, `init` where masked out
    joined = concatenate(carry, blocks) along the block axis: [.., M, B + 1, ..]
             (the carry after the block when reversed)
    out    = the scan of each joined block, carry included: one reduce over a
             [.., M, B, B + 1, ..] broadcast, masked by comparing iotas;
             reshaped to M * B and sliced to the N elements of x

Work and memory are about `N * B` a level, not `N * N`. The elements are combined
in another order than one after another (block by block); for a reducer that
is associative, as jax's cumulative ones are, the answer is the same up to
float rounding. The window and padding along `k` are checked at run time to
be `N` and `N - 1` (a shape assertion naming them); a call of any other form
(a sliding window, strides, dilations, several inputs) is left to
`reject_dynamic_custom_calls`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    SymbolRefAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.dialects.hlo_attrs import i64_elements
from disc_ir.ir.mhlo_builder import MhloBuilder
from disc_ir.ir.walk import preorder_ops

TARGET = "stablehlo.dynamic_reduce_window"

#: elements a block at most (fewer on a shorter axis): each level costs up to
#: `BLOCK` times the elements it scans
BLOCK = 64
#: levels of blocks before the quadratic scan of what is left: an axis of `N`
#: elements ends in a scan of `N / BLOCK**LEVELS` block totals (37 of them for
#: N = 150,000). Each level adds about 0.6 s to a compile.
LEVELS = 2

#: an element of a small integer tensor: a constant, or the 0-d / 1-element
#: tensor that holds it at run time
Element = int | SSAValue


def _attr(op: Operation, name: str) -> Attribute | None:
    """An inherent attribute, from the attribute dictionary or the properties."""
    attr = op.attributes.get(name)
    return attr if attr is not None else op.properties.get(name)


def window_operand_elements(value: SSAValue) -> list[Element] | None:
    """The row-major elements of a small static integer tensor built from
    constants, reshapes, converts and concatenations (as jax builds window
    and padding operands); None when its structure is not one of those."""
    t = value.type
    if not isinstance(t, TensorType) or DYNAMIC_INDEX in t.get_shape():
        return None
    op = value.owner
    if not isinstance(op, Operation):
        return None
    count = 1
    for size in t.get_shape():
        count *= size
    if op.name == "mhlo.constant":
        attr = _attr(op, "value")
        if not isinstance(attr, DenseIntOrFPElementsAttr):
            return None
        values: list[Element] = [int(v) for v in attr.get_values()]
        return values * count if len(values) == 1 else values
    if op.name in ("mhlo.reshape", "mhlo.convert"):
        inner = window_operand_elements(op.operands[0])
        if inner is not None or count != 1:
            return inner
    if op.name == "mhlo.concatenate":
        dim = _attr(op, "dimension")
        if not isinstance(dim, IntegerAttr) or dim.value.data != 0:
            return None
        parts = [window_operand_elements(v) for v in op.operands]
        if any(p is None for p in parts):
            return None
        return [e for p in parts for e in p]  # type: ignore[union-attr]  # the check above returned on any None
    if count == 1:
        return [value]
    return None


def _cumulative_axis(op: Operation) -> tuple[int, bool, SSAValue, SSAValue] | None:
    """(k, reversed, window[k], padding on k) of a cumulative call, else None."""
    if len(op.operands) != 7 or len(op.results) != 1:
        return None
    x = op.operands[0]
    t = x.type
    if not isinstance(t, TensorType):
        return None
    rank = len(t.get_shape())
    window, strides, base, dilation, padding = (window_operand_elements(v) for v in op.operands[2:])
    if window is None or strides is None or base is None or dilation is None or padding is None:
        return None
    if len(window) != rank or len(padding) != 2 * rank:
        return None
    if any(v != 1 for v in (*strides, *base, *dilation)):
        return None
    runtime = [d for d, w in enumerate(window) if not isinstance(w, int)]
    if len(runtime) != 1 or any(w != 1 for w in window if isinstance(w, int)):
        return None
    (k,) = runtime
    if any(padding[i] != 0 for i in range(2 * rank) if i // 2 != k):
        return None
    low, high = padding[2 * k], padding[2 * k + 1]
    if high == 0 and not isinstance(low, int):
        return k, False, window[k], low  # type: ignore[return-value]  # `low` is an SSAValue: the isinstance check above
    if low == 0 and not isinstance(high, int):
        return k, True, window[k], high  # type: ignore[return-value]  # `high` is an SSAValue: the isinstance check above
    return None


def reducer_region(module: ModuleOp, op: Operation) -> Region | None:
    """A copy of the called reducer's body, its `func.return` an `mhlo.return`."""
    from disc_ir.dialects.mhlo import ReturnOp

    called = op.attributes.get("called_computations")
    refs: Sequence[Attribute] = getattr(called, "data", ())
    if len(refs) != 1 or not isinstance(refs[0], SymbolRefAttr):
        return None
    name = refs[0].root_reference.data
    callee = next(
        (
            f
            for f in module.body.block.ops
            if isinstance(f, func.FuncOp) and f.sym_name.data == name
        ),
        None,
    )
    if callee is None or len(callee.body.blocks) != 1:
        return None
    region = callee.body.clone()
    block = region.blocks.first
    assert block is not None
    ret = block.last_op
    if not isinstance(ret, func.ReturnOp) or len(block.args) != 2:
        return None
    block.insert_op_before(ReturnOp.create(operands=list(ret.operands)), ret)
    ret.detach()
    ret.erase()
    return region


def as_i64_scalar(b: MhloBuilder, value: SSAValue) -> SSAValue:
    """`value` (a 0-d or 1-element integer tensor) as a `tensor<i64>`."""
    t = value.type
    assert isinstance(t, TensorType)
    if t.get_shape():
        value = b.op("mhlo.reshape", [value], TensorType(t.get_element_type(), []))
    if t.get_element_type() != i64:
        value = b.op("mhlo.convert", [value], TensorType(i64, []))
    return value


def _with_axis(t: TensorType, axis: int, sizes: Sequence[int]) -> TensorType:
    """`t` with its dim `axis` replaced by `sizes` (none: the dim dropped)."""
    shape = list(t.get_shape())
    shape[axis : axis + 1] = sizes
    return TensorType(t.get_element_type(), shape)


class _Scan:
    """Builds the cumulative combination of one call along an axis: its
    reducer, its `init` and its direction, shared by every level."""

    def __init__(self, b: MhloBuilder, region: Region, init: SSAValue, reverse: bool):
        self.b, self.region, self.init, self.reverse = b, region, init, reverse

    def _i64(self, value: int) -> SSAValue:
        attr = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [value])
        return self.b.op("mhlo.constant", [], attr.type, {"value": attr})

    def _scalar(self, value: int) -> SSAValue:
        attr = DenseIntOrFPElementsAttr.from_list(TensorType(i64, []), [value])
        return self.b.op("mhlo.constant", [], attr.type, {"value": attr})

    def _vector(self, value: SSAValue) -> SSAValue:
        return self.b.op("mhlo.reshape", [value], TensorType(i64, [1]))

    def dims(self, x: SSAValue) -> list[SSAValue]:
        """x's dims, one `tensor<1xi64>` each."""
        return self.b.dim_parts(x)

    def _broadcast(
        self, value: SSAValue, shape: Sequence[SSAValue], t: TensorType, dims: Sequence[int]
    ) -> SSAValue:
        return self.b.op(
            "mhlo.dynamic_broadcast_in_dim",
            [value, self.b.concat_i64(list(shape))],
            t,
            {"broadcast_dimensions": i64_elements(list(dims))},
        )

    def reduce(self, x: SSAValue, axis: int) -> SSAValue:
        """`x` reduced over `axis` from `init` with the call's reducer."""
        from disc_ir.dialects.mhlo import ReduceOp

        t = x.type
        assert isinstance(t, TensorType)
        op = ReduceOp.create(
            operands=[x, self.init],
            result_types=[_with_axis(t, axis, [])],
            attributes={"dimensions": i64_elements([axis])},
            regions=[self.region.clone()],
        )
        op.location = self.b.anchor.location
        self.b.rewriter.insert_op(op, InsertPoint.before(self.b.anchor))
        return op.results[0]

    def _select_reduce(
        self, keep: SSAValue, wide: SSAValue, shape: Sequence[SSAValue], axis: int
    ) -> SSAValue:
        t = wide.type
        assert isinstance(t, TensorType)
        init = self._broadcast(self.init, shape, t, [])
        return self.reduce(self.b.select(keep, wide, init), axis)

    def masked(
        self, x: SSAValue, k: int, strict: bool, carried: SSAValue | None = None
    ) -> SSAValue:
        """The scan of `x` along `k` as one reduce over an `N x N` broadcast:
        output `j` reduces `x[i]` for `i <= j` (`>=` reversed; `<` / `>` when
        `strict`), `init` standing in for the other elements.

        With `carried` (a `tensor<1xi64>`: N), `x` holds N + 1 elements along
        `k`, a carry in from other blocks first (last when reversed) and
        then the N to scan; each output also reduces the carry."""
        t = x.type
        assert isinstance(t, TensorType)
        dims = self.dims(x)
        size = dims[k] if carried is None else carried
        shape = [*dims[:k], size, *dims[k:]]
        size_t = t.get_shape()[k] if carried is None else DYNAMIC_INDEX
        wide_t = _with_axis(t, k, [size_t, t.get_shape()[k]])
        positions = [d if d < k else d + 1 for d in range(len(dims))]
        wide = self._broadcast(x, shape, wide_t, positions)
        index_t = TensorType(i64, wide_t.get_shape())
        extent = self.b.concat_i64(shape)
        source, target = (
            self.b.op(
                "mhlo.dynamic_iota", [extent], index_t, {"iota_dimension": IntegerAttr(a, i64)}
            )
            for a in (k + 1, k)
        )
        if carried is not None and not self.reverse:
            # x[i] is the element i - 1 of the block
            target = self.b.binary("add", target, self.b.const(1, target))
        direction = ("GT" if self.reverse else "LT") if strict else ("GE" if self.reverse else "LE")
        keep = self.b.compare(direction, source, target, "SIGNED")
        return self._select_reduce(keep, wide, shape, k + 1)

    def blocked(
        self, x: SSAValue, k: int, strict: bool, levels: int, result_type: TensorType | None = None
    ) -> SSAValue:
        """The scan of `x` along `k` in blocks of up to `BLOCK` elements: `x`
        padded with `init` to `M` whole blocks (after the axis; before it when
        reversed), the blocks' totals scanned strictly (by `levels - 1` more
        levels of blocks, then `masked`), and each block scanned by `masked`
        with that carry in. `result_type`: the type of the result, else x's."""
        b = self.b
        t = x.type
        assert isinstance(t, TensorType)
        dims = self.dims(x)
        n = b.op("mhlo.reshape", [dims[k]], TensorType(i64, []))
        # a block of min(N, BLOCK) elements (at least 1): a short axis is not
        # padded to BLOCK
        block = b.binary("maximum", b.binary("minimum", n, self._scalar(BLOCK)), self._scalar(1))
        m = b.binary(
            "divide", b.binary("subtract", b.binary("add", n, block), self._scalar(1)), block
        )
        padded_n = b.binary("multiply", m, block)
        pad = b.binary("subtract", padded_n, n)
        zero = self._i64(0)
        edges = [zero] * len(dims)
        edges[k] = self._vector(pad)
        low, high = (edges, [zero] * len(dims)) if self.reverse else ([zero] * len(dims), edges)
        padded = b.op(
            "mhlo.dynamic_pad",
            [x, self.init, b.concat_i64(low), b.concat_i64(high), b.concat_i64([zero] * len(dims))],
            _with_axis(t, k, [DYNAMIC_INDEX]),
        )
        block_shape = [*dims[:k], self._vector(m), self._vector(block), *dims[k + 1 :]]
        blocks_t = _with_axis(t, k, [DYNAMIC_INDEX, DYNAMIC_INDEX])
        blocks = b.op("mhlo.dynamic_reshape", [padded, b.concat_i64(block_shape)], blocks_t)
        totals = self.reduce(blocks, k + 1)
        if levels > 1:
            carry = self.blocked(totals, k, True, levels - 1)
        else:
            carry = self.masked(totals, k, True)
        one = self._i64(1)
        carry = b.op(
            "mhlo.dynamic_reshape",
            [carry, b.concat_i64([*dims[:k], self._vector(m), one, *dims[k + 1 :]])],
            _with_axis(t, k, [DYNAMIC_INDEX, 1]),
        )
        joined = b.op(
            "mhlo.concatenate",
            [blocks, carry] if self.reverse else [carry, blocks],
            _with_axis(t, k, [DYNAMIC_INDEX, DYNAMIC_INDEX]),
            {"dimension": IntegerAttr(k + 1, i64)},
        )
        combined = self.masked(joined, k + 1, strict, carried=self._vector(block))

        flat_shape = [*dims[:k], self._vector(padded_n), *dims[k + 1 :]]
        flat = b.op(
            "mhlo.dynamic_reshape",
            [combined, b.concat_i64(flat_shape)],
            _with_axis(t, k, [DYNAMIC_INDEX]),
        )
        start = [zero] * len(dims)
        limit = list(dims)
        if self.reverse:
            start[k] = self._vector(pad)
            limit[k] = self._vector(padded_n)
        ones = [self._i64(1)] * len(dims)
        return b.op(
            "mhlo.real_dynamic_slice",
            [flat, b.concat_i64(start), b.concat_i64(limit), b.concat_i64(ones)],
            result_type or t,
        )


def _expand(module: ModuleOp, op: Operation, rewriter: Rewriter) -> bool:
    from disc_ir.frontends.stablehlo import shape_assertion_call

    found = _cumulative_axis(op)
    region = reducer_region(module, op) if found is not None else None
    if found is None or region is None:
        return False
    k, reverse, window, pad = found
    x, init = op.operands[0], op.operands[1]
    t, out_t = x.type, op.results[0].type
    assert isinstance(t, TensorType) and isinstance(out_t, TensorType)
    b = MhloBuilder(rewriter, op)

    # run-time check: window N and padding N - 1 along k
    length = as_i64_scalar(
        b,
        b.op(
            "mhlo.get_dimension_size",
            [x],
            TensorType(IntegerType(32), []),
            {"dimension": IntegerAttr(k, i64)},
        ),
    )
    window_value, pad_value = as_i64_scalar(b, window), as_i64_scalar(b, pad)
    one = b.const(1, length)
    ok = b.binary(
        "and",
        b.compare("EQ", window_value, length, "SIGNED"),
        b.compare("EQ", pad_value, b.binary("subtract", length, one), "SIGNED"),
    )
    side = "after" if reverse else "before"
    message = StringAttr(
        f"{TARGET}: only the cumulative form is supported: a window of {{0}} and a padding "
        f"of {{1}} {side} axis {k} must be the axis length {{2}} and {{2}} - 1"
    )
    values = b.concat_i64(
        [b.op("mhlo.reshape", [v], TensorType(i64, [1])) for v in (window_value, pad_value, length)]
    )
    check = shape_assertion_call(ok, values, message)
    check.location = op.location
    rewriter.insert_op(check, InsertPoint.before(op))

    scan = _Scan(b, region, init, reverse)
    out = scan.blocked(x, k, False, LEVELS, out_t)
    rewriter.replace_op(op, [], [out])
    return True


def dynamic_reduce_window_calls(module: ModuleOp) -> list[Operation]:
    """The `@stablehlo.dynamic_reduce_window` custom calls of `module`."""
    calls = []
    for op in preorder_ops(module):
        target = op.attributes.get("call_target_name")
        if op.name == "mhlo.custom_call" and isinstance(target, StringAttr):
            if target.data == TARGET:
                calls.append(op)
    return calls


def expand_cumulative_reduce_windows(module: ModuleOp) -> None:
    """Rewrite the cumulative `@stablehlo.dynamic_reduce_window` calls of `module` (module doc)."""
    rewriter = Rewriter()
    for op in dynamic_reduce_window_calls(module):
        _expand(module, op, rewriter)


__all__ = [
    "as_i64_scalar",
    "dynamic_reduce_window_calls",
    "expand_cumulative_reduce_windows",
    "reducer_region",
    "window_operand_elements",
]
