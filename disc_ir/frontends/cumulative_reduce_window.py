"""`@stablehlo.dynamic_reduce_window` of a cumulative reduction, as a masked reduce.

jax writes `jnp.cumsum` / `cumprod` / `lax.cummax` / `cummin` /
`cumlogsumexp` along a shape-polymorphic axis `k` of length `N` as StableHLO's
`dynamic_reduce_window` custom call (its window and padding are run-time
values): window `N` on `k` and 1 elsewhere, unit strides and dilations,
padding `N - 1` before `k` (after it for `reverse=True`) and 0 elsewhere. By
XLA's reduce_window semantics, output `j` then combines `init` with the
window's elements, the padded positions contributing `init`: `x[0..j]` and
`N - 1 - j` inits (`x[j..N-1]` and `j` inits when reversed).

`expand_cumulative_reduce_windows(module)` rewrites such a call, `x` of rank
`n`, as the same combination written with static ops:

    b    = dynamic_broadcast_in_dim(x) : [d0, .., d(k-1), N, N, d(k+1), ..]
           (x's axis k on axis k + 1, the others after it shifted by one)
    keep = iota(k + 1) <= iota(k)                              (>= when reversed)
    out  = reduce(select(keep, b, init), init) over axis k + 1, with the call's reducer

(`x[i]` where kept, `init` elsewhere: the same multiset of operands). The
window and padding along `k` are checked at run time to be `N` and `N - 1`
(a shape assertion naming them); a call of any other form (a sliding window,
strides, dilations, several inputs) is left to `reject_dynamic_custom_calls`.
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

TARGET = "stablehlo.dynamic_reduce_window"

#: an element of a small integer tensor: a constant, or the 0-d / 1-element
#: tensor that holds it at run time
Element = int | SSAValue


def _attr(op: Operation, name: str) -> Attribute | None:
    """An inherent attribute, from the attribute dictionary or the properties."""
    attr = op.attributes.get(name)
    return attr if attr is not None else op.properties.get(name)


def _elements(value: SSAValue) -> list[Element] | None:
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
        inner = _elements(op.operands[0])
        if inner is not None or count != 1:
            return inner
    if op.name == "mhlo.concatenate":
        dim = _attr(op, "dimension")
        if not isinstance(dim, IntegerAttr) or dim.value.data != 0:
            return None
        parts = [_elements(v) for v in op.operands]
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
    window, strides, base, dilation, padding = (_elements(v) for v in op.operands[2:])
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


def _reducer_region(module: ModuleOp, op: Operation) -> Region | None:
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


def _as_i64_scalar(b: MhloBuilder, value: SSAValue) -> SSAValue:
    t = value.type
    assert isinstance(t, TensorType)
    if t.get_shape():
        value = b.op("mhlo.reshape", [value], TensorType(t.get_element_type(), []))
    if t.get_element_type() != i64:
        value = b.op("mhlo.convert", [value], TensorType(i64, []))
    return value


def _expand(module: ModuleOp, op: Operation, rewriter: Rewriter) -> bool:
    from disc_ir.frontends.stablehlo import shape_assertion_call

    found = _cumulative_axis(op)
    region = _reducer_region(module, op) if found is not None else None
    if found is None or region is None:
        return False
    k, reverse, window, pad = found
    x, init = op.operands[0], op.operands[1]
    t, out_t = x.type, op.results[0].type
    assert isinstance(t, TensorType) and isinstance(out_t, TensorType)
    rank = len(t.get_shape())
    b = MhloBuilder(rewriter, op)

    # run-time check: window N and padding N - 1 along k
    length = _as_i64_scalar(
        b,
        b.op(
            "mhlo.get_dimension_size",
            [x],
            TensorType(IntegerType(32), []),
            {"dimension": IntegerAttr(k, i64)},
        ),
    )
    window_value, pad_value = _as_i64_scalar(b, window), _as_i64_scalar(b, pad)
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

    # out = reduce(select(keep, broadcast(x), init)) over the new axis k + 1
    shape = list(t.get_shape())
    shape.insert(k + 1, shape[k])
    wide_t = TensorType(t.get_element_type(), shape)
    dims = b.dims_i64(x)
    n_dim = b.op(
        "mhlo.slice",
        [dims],
        TensorType(i64, [1]),
        {
            "start_indices": i64_elements([k]),
            "limit_indices": i64_elements([k + 1]),
            "strides": i64_elements([1]),
        },
    )
    if k + 1 < rank:
        tail = b.op(
            "mhlo.slice",
            [dims],
            TensorType(i64, [rank - k - 1]),
            {
                "start_indices": i64_elements([k + 1]),
                "limit_indices": i64_elements([rank]),
                "strides": i64_elements([1]),
            },
        )
        head = b.op(
            "mhlo.slice",
            [dims],
            TensorType(i64, [k + 1]),
            {
                "start_indices": i64_elements([0]),
                "limit_indices": i64_elements([k + 1]),
                "strides": i64_elements([1]),
            },
        )
        wide_shape = b.concat_i64([head, n_dim, tail])
    else:
        wide_shape = b.concat_i64([dims, n_dim])
    positions = [d if d < k else d + 1 for d in range(rank)]
    wide = b.op(
        "mhlo.dynamic_broadcast_in_dim",
        [x, wide_shape],
        wide_t,
        {"broadcast_dimensions": i64_elements(positions)},
    )
    index_t = TensorType(i64, shape)
    source = b.op(
        "mhlo.dynamic_iota", [wide_shape], index_t, {"iota_dimension": IntegerAttr(k + 1, i64)}
    )
    target = b.op(
        "mhlo.dynamic_iota", [wide_shape], index_t, {"iota_dimension": IntegerAttr(k, i64)}
    )
    keep = b.compare("GE" if reverse else "LE", source, target, "SIGNED")
    init_wide = b.op(
        "mhlo.dynamic_broadcast_in_dim",
        [init, wide_shape],
        wide_t,
        {"broadcast_dimensions": i64_elements([])},
    )
    masked = b.select(keep, wide, init_wide)
    from disc_ir.dialects.mhlo import ReduceOp

    reduce = ReduceOp.create(
        operands=[masked, init],
        result_types=[out_t],
        attributes={"dimensions": i64_elements([k + 1])},
        regions=[region],
    )
    reduce.location = op.location
    rewriter.insert_op(reduce, InsertPoint.before(op))
    rewriter.replace_op(op, [], [reduce.results[0]])
    return True


def expand_cumulative_reduce_windows(module: ModuleOp) -> None:
    """Rewrite the cumulative `@stablehlo.dynamic_reduce_window` calls of `module` (module doc)."""
    rewriter = Rewriter()
    for op in list(module.walk()):
        if op.name != "mhlo.custom_call":
            continue
        target = op.attributes.get("call_target_name")
        if isinstance(target, StringAttr) and target.data == TARGET:
            _expand(module, op, rewriter)


__all__ = ["expand_cumulative_reduce_windows"]
