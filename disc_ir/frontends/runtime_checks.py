"""Run-time checks where an input could make the code read out of bounds (input-phase passes).

`mhlo.real_dynamic_slice(%x, %start, %limit, %strides)` takes its bounds as
tensors: MHLO leaves an out-of-range slice undefined, and the generated code
would read outside `%x` (a negative start, a limit past the dim) or divide by
zero (a zero stride) to size its result. `insert_slice_bounds_checks(module)`
puts a shape assertion before each such slice (the host `custom_call_v2` of
`ral_shape_assertion` that jax.export's own assertions become, see
`disc_ir.frontends.stablehlo`): in every dim `0 <= start <= limit <= dim` and
`stride >= 1`, else the call raises `ShapeAssertionError` naming the operand's
shape and the bounds. The compiled code runs on to its end before the error
is raised (the RAL skips the kernels and library calls after it): the slice
then gets empty bounds, so no code reads out of range or divides by zero.

Slices whose bounds are constants on a static operand are checked now: an
invalid one is a `RuntimeCheckError`, a valid one gets no run-time check. The
check's ops are placed on the host (`disc.device = "cpu"`), where the slice's
bounds are read anyway.

`mhlo.dynamic_broadcast_in_dim(%x, %shape)` takes its result shape as a
tensor: each dim of `%x` must be 1 or the size of the result dim it maps to,
else the generated code reads `%x` out of bounds or broadcasts the wrong
values. `insert_broadcast_checks(module)` asserts that before each such
broadcast, for the dims the shape analysis cannot prove (JAX's exports prove
nearly all: their shapes come from the same dimension sizes); dims marked
`known_expanding_dimensions` / `known_nonexpanding_dimensions` are taken as
marked, and a static dim of `%x` equal to the result type's is taken as
typed. The shape is read from `%shape` when it holds integers, from the
tensor a `shape.shape_of` measured when it is that op's indices, else
element by element from the index tensor (`tensor.from_elements` of dims,
`shape.broadcast`...); the failed assertion names both shapes.

chlo's implicitly broadcasting ops (`chlo.broadcast_add`, ...,
`chlo.broadcast_select`) need each pair of aligned operand dims (numpy's
trailing alignment, or `broadcast_dimensions`) to be equal or hold a 1:
mlir-hlo's legalization asserts it with `shape.cstr_broadcastable`, which
BladeDISC's pipeline drops, and the broadcasts it makes would give a result
of the wrong shape. The same function asserts it before each such op, for
the pairs the shape analysis cannot prove; the message names the op, both
operands' shapes and the dims.

Fixed windows over a dynamically shaped operand (`mhlo.slice` limits,
`mhlo.dynamic_slice` / `mhlo.gather` slice sizes, a `dynamic_update_slice`
update) must fit the operand: the types check that only for static dims,
and a smaller operand at run time would make the code read or write outside
it. `insert_extent_checks(module)` asserts it before each such op that some
returned value depends on, in the dims the shape analysis cannot prove.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.analysis.placement import SHAPE_OP_ATTR, true_attr
from disc_ir.analysis.shape_analysis import SHAPE_CONSTRAINT_GRAPH, ShapeAnalysis
from disc_ir.dialects.hlo_attrs import ints
from disc_ir.frontends.stablehlo import shape_assertion_call
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.mhlo_builder import MhloBuilder
from disc_ir.ir.walk import preorder_ops
from disc_ir.rewriting.dead_ops import would_be_trivially_dead

_HOST = StringAttr("cpu")
#: the implicitly broadcasting chlo ops (`chlo.broadcast_add`, ..., `broadcast_select`)
_CHLO_BROADCASTING = "chlo.broadcast_"

#: a check inserter: (op, the function's shape analysis, rewriter) -> how many added
_Checker = Callable[[Operation, ShapeAnalysis, Rewriter], "int | bool"]


class RuntimeCheckError(ValueError):
    """A slice whose constant bounds are out of range for its static operand."""


def _constant_ints(value: SSAValue) -> list[int] | None:
    if not isinstance(value, OpResult) or value.op.name != "mhlo.constant":
        return None
    attr = value.op.attributes.get("value") or value.op.properties.get("value")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    values = attr.get_values()
    shape = attr.get_shape() or ()
    count = 1
    for d in shape:
        count *= d
    if len(values) == 1 and count > 1:
        values = list(values) * count  # type: ignore[assignment]  # a splat, expanded to a list
    return [int(v) for v in values]


def _static_check(
    shape: tuple[int, ...], start: list[int], limit: list[int], strides: list[int]
) -> str | None:
    """Why constant bounds are invalid for an operand of static `shape` (None: valid)."""
    for d, (dim, s, lim, st) in enumerate(zip(shape, start, limit, strides, strict=True)):
        if not (0 <= s <= lim <= dim and st >= 1):
            return (
                f"dimension {d}: start {s}, limit {lim}, stride {st} for size {dim} "
                "(expected 0 <= start <= limit <= size, stride >= 1)"
            )
    return None


def _as_i64(b: MhloBuilder, value: SSAValue, rank: int) -> SSAValue:
    t = value.type
    assert isinstance(t, TensorType)
    if t.get_element_type() == i64:
        return value
    return b.op("mhlo.convert", [value], TensorType(i64, [rank]))


def _index_shape_as_i64(
    rewriter: Rewriter, anchor: Operation, shape: SSAValue, rank: int
) -> SSAValue:
    """`tensor<rank x i64>`: the index tensor `shape`'s elements, read on the
    host before `anchor` (`tensor.extract`, `arith.index_cast`) and joined
    (`tensor.from_elements`)."""
    made: list[Operation] = []
    values: list[SSAValue] = []
    for d in range(rank):
        at = arith.ConstantOp(IntegerAttr(d, IndexType()))
        element = tensor.ExtractOp(shape, [at.result], IndexType())
        cast = arith.IndexCastOp(element.result, i64)
        made += [at, element, cast]
        values.append(cast.result)
    joined = tensor.FromElementsOp(*values, result_type=TensorType(i64, [rank]))
    rewriter.insert_op([*made, joined], InsertPoint.before(anchor))
    return joined.results[0]


def _all_true(b: MhloBuilder, flags: SSAValue, rank: int) -> SSAValue:
    """`tensor<i1>`: the and of the `rank` flags."""
    out: SSAValue | None = None
    one = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [1])
    for d in range(rank):
        index = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [d])
        limit = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [d + 1])
        flag = b.op(
            "mhlo.slice",
            [flags],
            TensorType(IntegerType(1), [1]),
            {"start_indices": index, "limit_indices": limit, "strides": one},
        )
        flag = b.op("mhlo.reshape", [flag], TensorType(IntegerType(1), []))
        out = flag if out is None else b.op("mhlo.and", [out, flag], flag.type)
    assert out is not None
    return out


def _splat_i64(b: MhloBuilder, value: int, rank: int) -> SSAValue:
    attr = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [rank]), [value] * rank)
    return b.op("mhlo.constant", [], attr.type, {"value": attr})


def _check_slice(op: Operation, rewriter: Rewriter) -> None:
    operand, start, limit, strides = op.operands
    t = operand.type
    if not isinstance(t, TensorType):
        return
    shape = tuple(t.get_shape())
    rank = len(shape)
    if rank == 0:
        return
    if any(
        not isinstance(v.type, TensorType) or not isinstance(v.type.get_element_type(), IntegerType)
        for v in (start, limit, strides)
    ):
        return  # index-typed bounds: the compiler's own shape arithmetic
    constant = [_constant_ints(v) for v in (start, limit, strides)]
    if DYNAMIC_INDEX not in shape and all(c is not None and len(c) == rank for c in constant):
        why = _static_check(shape, *constant)  # type: ignore[arg-type]  # all three constant: checked above
        if why is not None:
            raise RuntimeCheckError(f"mhlo.real_dynamic_slice out of range: {why}")
        return
    b = MhloBuilder(rewriter, op, {"disc.device": _HOST})
    s, lim, st = (_as_i64(b, v, rank) for v in (start, limit, strides))
    dims = b.dims_i64(operand)
    flags_type = TensorType(IntegerType(1), [rank])

    def holds(direction: str, x: SSAValue, y: SSAValue) -> SSAValue:
        return b.compare(direction, x, y, "SIGNED")

    ok = b.op("mhlo.and", [holds("GE", s, _splat_i64(b, 0, rank)), holds("LE", s, lim)], flags_type)
    ok = b.op("mhlo.and", [ok, holds("LE", lim, dims)], flags_type)
    ok = b.op("mhlo.and", [ok, holds("GE", st, _splat_i64(b, 1, rank))], flags_type)
    pred = _all_true(b, ok, rank)
    values = b.concat_i64([dims, s, lim, st])

    message = (
        f"mhlo.real_dynamic_slice of an operand of shape ({_fields(0, rank)}) with start "
        f"({_fields(rank, rank)}), limit ({_fields(2 * rank, rank)}) and strides "
        f"({_fields(3 * rank, rank)}): "
        "expected 0 <= start <= limit <= size and stride >= 1 in every dimension"
    )
    call = shape_assertion_call(pred, values, StringAttr(message))
    call.location = op.location
    rewriter.insert_op(call, InsertPoint.before(op))
    # The failed assertion raises when the call returns, but the code runs on
    # to there (later kernels and library calls are skipped): the slice is
    # then given the empty bounds (start = limit = 0, stride = 1), so nothing
    # computes a size from the bad ones (a zero stride would divide by zero).
    empty = b.op(
        "mhlo.broadcast_in_dim",
        [pred],
        flags_type,
        {"broadcast_dimensions": DenseIntOrFPElementsAttr.from_list(TensorType(i64, [0]), [])},
    )
    for index, fill in ((1, 0), (2, 0), (3, 1)):
        bound = op.operands[index]
        op.operands[index] = b.op("mhlo.select", [empty, bound, b.const(fill, bound)], bound.type)


def _index_of_shape_of(shape: SSAValue) -> SSAValue | None:
    """The tensor whose `shape.shape_of` (through `tensor.cast`s) is `shape`."""
    while isinstance(shape, OpResult) and shape.op.name == "tensor.cast":
        shape = shape.op.operands[0]
    if isinstance(shape, OpResult) and shape.op.name == "shape.shape_of":
        return shape.op.operands[0]
    return None


def _unproven_broadcast_dims(op: Operation, analysis: ShapeAnalysis) -> list[tuple[int, int]]:
    """(operand dim, result dim) pairs of a `mhlo.dynamic_broadcast_in_dim`
    whose validity (operand dim 1 or equal to the result dim) is not known."""
    operand, result = op.operands[0], op.results[0]
    in_type, out_type = operand.type, result.type
    if not isinstance(in_type, TensorType) or not isinstance(out_type, TensorType):
        return []
    in_shape, out_shape = tuple(in_type.get_shape()), tuple(out_type.get_shape())
    dims = ints(inherent_attr(op, "broadcast_dimensions"))
    marked = set(ints(inherent_attr(op, "known_expanding_dimensions")))
    marked |= set(ints(inherent_attr(op, "known_nonexpanding_dimensions")))
    unproven: list[tuple[int, int]] = []
    for i, rd in enumerate(dims):
        if i >= len(in_shape) or rd >= len(out_shape) or i in marked or in_shape[i] == 1:
            continue
        if in_shape[i] != DYNAMIC_INDEX:
            if (
                out_shape[rd] == in_shape[i]
                or analysis.get_dim_value_if_const(result, rd) == in_shape[i]
            ):
                continue
        elif analysis.is_dim_equal(operand, i, result, rd) or (
            analysis.get_dim_value_if_const(operand, i) == 1
        ):
            continue
        unproven.append((i, rd))
    return unproven


def _element(b: MhloBuilder, vector: SSAValue, index: int) -> SSAValue:
    """`tensor<1xi64>`: element `index` of the 1-d `vector`."""
    attrs = {
        "start_indices": DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [index]),
        "limit_indices": DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [index + 1]),
        "strides": DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [1]),
    }
    return b.op("mhlo.slice", [vector], TensorType(i64, [1]), attrs)


def _check_broadcast(op: Operation, analysis: ShapeAnalysis, rewriter: Rewriter) -> bool:
    """Assert before `op` that its unproven dims are valid; whether one was added."""
    unproven = _unproven_broadcast_dims(op, analysis)
    if not unproven:
        return False
    operand, shape = op.operands[0], op.operands[1]
    out_rank = len(op.results[0].type.get_shape())  # type: ignore[attr-defined]  # the op's type constraints make it a ranked tensor
    shape_type = shape.type
    if not isinstance(shape_type, TensorType):
        return False
    integers = isinstance(shape_type.get_element_type(), IntegerType)
    measured = None if integers else _index_of_shape_of(shape)
    if not integers and measured is None and shape_type.get_shape() != (out_rank,):
        return False  # an index vector of unknown length: the op's verifier decides
    # shape arithmetic on the host: marked so, it is never fused into kernels
    b = MhloBuilder(rewriter, op, {"disc.device": _HOST, SHAPE_OP_ATTR: true_attr()})
    in_dims = b.dims_i64(operand)
    if integers:
        out_dims = _as_i64(b, shape, out_rank)
    elif measured is not None:
        out_dims = b.dims_i64(measured)
    else:
        out_dims = _index_shape_as_i64(rewriter, op, shape, out_rank)
    in_rank = len(operand.type.get_shape())  # type: ignore[attr-defined]  # the op's type constraints make it a ranked tensor
    pairs = ", ".join(f"{i} -> {rd}" for i, rd in unproven)
    message = (
        f"an operand of shape ({_fields(0, in_rank)}) broadcast to shape "
        f"({_fields(in_rank, out_rank)}) by mhlo.dynamic_broadcast_in_dim: each operand "
        f"dimension must be 1 or the size of the result dimension it maps to "
        f"(operand -> result: {pairs})"
    )
    _assert_dim_pairs(b, op, (in_dims, out_dims), unproven, message, _one_or_equal)
    return True


def _aligned_dims(op: Operation, lhs: SSAValue, rhs: SSAValue) -> list[tuple[int, int]]:
    """(lhs dim, rhs dim) pairs a chlo broadcasting op aligns: numpy's trailing
    alignment, or `broadcast_dimensions` (the lower-rank operand's dims)."""
    a, b = lhs.type.get_shape(), rhs.type.get_shape()  # type: ignore[attr-defined]  # the op's type constraints make them ranked tensors
    explicit = op.attributes.get("broadcast_dimensions")
    if explicit is not None and len(a) != len(b):
        mapped = ints(explicit)
        if len(a) < len(b):
            return list(enumerate(mapped))
        return [(d, j) for j, d in enumerate(mapped)]
    return [(len(a) - k, len(b) - k) for k in range(1, min(len(a), len(b)) + 1)][::-1]


def _check_chlo_broadcast(op: Operation, analysis: ShapeAnalysis, rewriter: Rewriter) -> int:
    """Assert before a `chlo.broadcast_*` op that each pair of its operands is
    broadcast compatible in the dims not known to be; how many were added."""
    added = 0
    operands = list(op.operands)
    if not all(isinstance(v.type, TensorType) for v in operands):
        return 0
    for x, lhs in enumerate(operands):
        for y in range(x + 1, len(operands)):
            rhs = operands[y]
            unproven = []
            for i, j in _aligned_dims(op, lhs, rhs):
                a = analysis.get_dim_value_if_const(lhs, i)
                c = analysis.get_dim_value_if_const(rhs, j)
                if a == 1 or c == 1 or (a is not None and c is not None):
                    continue  # a unit dim, or static ones (the verifier checked)
                if not analysis.is_dim_equal(lhs, i, rhs, j):
                    unproven.append((i, j))
            if unproven:
                _assert_compatible(op, (x, lhs), (y, rhs), unproven, rewriter)
                added += 1
    return added


def _assert_compatible(
    op: Operation,
    first: tuple[int, SSAValue],
    second: tuple[int, SSAValue],
    pairs: list[tuple[int, int]],
    rewriter: Rewriter,
) -> None:
    """The assertion that operands `first` and `second` (position, value) of
    `op` hold 1 or equal sizes in each of the aligned dim `pairs`."""
    (x, lhs), (y, rhs) = first, second
    b = MhloBuilder(rewriter, op, {"disc.device": _HOST, SHAPE_OP_ATTR: true_attr()})
    lhs_rank = len(lhs.type.get_shape())  # type: ignore[attr-defined]  # the op's type constraints make it a ranked tensor
    rhs_rank = len(rhs.type.get_shape())  # type: ignore[attr-defined]  # the op's type constraints make it a ranked tensor
    aligned = ", ".join(f"{i} with {j}" for i, j in pairs)
    message = (
        f"operands {x} and {y} of {op.name}, of shapes ({_fields(0, lhs_rank)}) and "
        f"({_fields(lhs_rank, rhs_rank)}), are not broadcast compatible: each pair of "
        f"aligned dimensions must be equal or hold a 1 (operand {x} dimension with "
        f"operand {y} dimension: {aligned})"
    )
    dims = (b.dims_i64(lhs), b.dims_i64(rhs))
    _assert_dim_pairs(b, op, dims, pairs, message, _compatible)


def _fields(first: int, n: int) -> str:
    """Message placeholders `{first}, ..., {first + n - 1}` (values of the assertion)."""
    return ", ".join(f"{{{first + d}}}" for d in range(n))


def _assert_dim_pairs(
    b: MhloBuilder,
    op: Operation,
    dims: tuple[SSAValue, SSAValue],
    pairs: list[tuple[int, int]],
    message: str,
    holds: Callable[[MhloBuilder, SSAValue, SSAValue], SSAValue],
) -> None:
    """Assert before `op` that `holds(b, xs, ys)` (flags) is true for the
    elements i of `dims[0]` (xs) and j of `dims[1]` (ys) of each (i, j) of
    `pairs`; the message's placeholders index both dims vectors joined."""
    first_dims, second_dims = dims
    xs = b.concat_i64([_element(b, first_dims, i) for i, _ in pairs])
    ys = b.concat_i64([_element(b, second_dims, j) for _, j in pairs])
    pred = _all_true(b, holds(b, xs, ys), len(pairs))
    call = shape_assertion_call(pred, b.concat_i64([first_dims, second_dims]), StringAttr(message))
    call.location = op.location
    b.rewriter.insert_op(call, InsertPoint.before(op))


def _one_or_equal(b: MhloBuilder, xs: SSAValue, ys: SSAValue) -> SSAValue:
    """Flags: x is 1 or equals y (a broadcast operand dim and its result dim)."""
    unit = b.compare("EQ", xs, _splat_i64(b, 1, _length(xs)), "SIGNED")
    return b.op("mhlo.or", [unit, b.compare("EQ", xs, ys, "SIGNED")], unit.type)


def _compatible(b: MhloBuilder, xs: SSAValue, ys: SSAValue) -> SSAValue:
    """Flags: x or y is 1, or they are equal (aligned dims of broadcasting operands)."""
    flags = _one_or_equal(b, xs, ys)
    unit = b.compare("EQ", ys, _splat_i64(b, 1, _length(ys)), "SIGNED")
    return b.op("mhlo.or", [flags, unit], flags.type)


def _at_least(b: MhloBuilder, xs: SSAValue, ys: SSAValue) -> SSAValue:
    """Flags: x >= y (an operand dim and a window extent)."""
    return b.compare("GE", xs, ys, "SIGNED")


def _length(vector: SSAValue) -> int:
    return vector.type.get_shape()[0]  # type: ignore[attr-defined]  # a shape vector: a ranked tensor


def _static_extents(op: Operation) -> tuple[SSAValue, Sequence[int], str] | None:
    """For an op reading or writing a statically sized window of its first
    operand: (that operand, the window's extent per dim, what the extents
    are called); None for other ops."""
    if op.name == "mhlo.slice":
        return op.operands[0], ints(inherent_attr(op, "limit_indices")), "limits"
    if op.name in ("mhlo.dynamic_slice", "mhlo.gather"):
        return op.operands[0], ints(inherent_attr(op, "slice_sizes")), "slice sizes"
    return None


def _check_extents(op: Operation, analysis: ShapeAnalysis, rewriter: Rewriter) -> bool:
    """Assert before a slice, gather or update of a fixed window that the
    window fits the operand in each dim the types and the shape analysis
    leave open: `mhlo.slice` limits, `dynamic_slice` / `gather` slice sizes
    at most the operand's dims, a `dynamic_update_slice` update no larger
    than its operand (else the code reads or writes outside the operand);
    whether one was added."""
    if op.name == "mhlo.dynamic_update_slice":
        operand, update = op.operands[0], op.operands[1]
        if not (isinstance(operand.type, TensorType) and isinstance(update.type, TensorType)):
            return False
        rank = len(operand.type.get_shape())
        pairs = [
            (d, d)
            for d in range(rank)
            if not analysis.is_dim_equal(operand, d, update, d)
            and not _fits(analysis, operand, d, analysis.get_dim_value_if_const(update, d))
        ]
        if not pairs:
            return False
        b = MhloBuilder(rewriter, op, {"disc.device": _HOST, SHAPE_OP_ATTR: true_attr()})
        message = (
            f"mhlo.dynamic_update_slice of an update of shape ({_fields(rank, rank)}) into an "
            f"operand of shape ({_fields(0, rank)}): each update dimension must be at most "
            "the operand's"
        )
        dims = (b.dims_i64(_window_update_root(operand)), b.dims_i64(update))
        _assert_dim_pairs(b, op, dims, pairs, message, _at_least)
        return True
    found = _static_extents(op)
    if found is None:
        return False
    operand, extents, called = found
    if not isinstance(operand.type, TensorType) or len(extents) != len(operand.type.get_shape()):
        return False
    rank = len(extents)
    open_dims = [d for d in range(rank) if not _fits(analysis, operand, d, extents[d])]
    if not open_dims:
        return False
    b = MhloBuilder(rewriter, op, {"disc.device": _HOST, SHAPE_OP_ATTR: true_attr()})
    needed = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [rank]), list(extents))
    message = (
        f"{op.name} of an operand of shape ({_fields(0, rank)}) with {called} "
        f"({', '.join(map(str, extents))}): each must be at most the operand's dimension"
    )
    dims = (b.dims_i64(operand), b.op("mhlo.constant", [], needed.type, {"value": needed}))
    _assert_dim_pairs(b, op, dims, [(d, d) for d in open_dims], message, _at_least)
    return True


def _window_update_root(value: SSAValue) -> SSAValue:
    """The operand a chain of `dynamic_update_slice`s starts from (each result
    has its operand's shape): its dims are read instead, so the check adds no
    use of a result the graph may otherwise leave dead."""
    while isinstance(value, OpResult) and value.op.name == "mhlo.dynamic_update_slice":
        value = value.op.operands[0]
    return value


def _fits(analysis: ShapeAnalysis, value: SSAValue, dim: int, extent: int | None) -> bool:
    """Whether dim `dim` of `value` is known to hold at least `extent` (None: unknown)."""
    if extent is None:
        return False
    if extent <= 0:
        return True
    size = analysis.get_dim_value_if_const(value, dim)
    return size is not None and size >= extent


def _live_ops(f: func.FuncOp) -> set[Operation]:
    """The ops of `f` whose results reach an op with effects (a return, a
    call with side effects) through operands, and those ops themselves."""
    live: set[Operation] = set()
    work = [o for o in preorder_ops(f) if not would_be_trivially_dead(o)]
    while work:
        op = work.pop()
        if op in live:
            continue
        live.add(op)
        for v in op.operands:
            if isinstance(v, OpResult) and v.op not in live:
                work.append(v.op)
        parent = op.parent_op()
        if parent is not None and parent is not f and parent not in live:
            work.append(parent)
    return live


def _broadcast_checker(op: Operation) -> _Checker | None:
    if op.name == "mhlo.dynamic_broadcast_in_dim":
        return _check_broadcast
    if op.name.startswith(_CHLO_BROADCASTING):
        return _check_chlo_broadcast
    return None


_WINDOW_OPS = ("mhlo.slice", "mhlo.dynamic_slice", "mhlo.gather", "mhlo.dynamic_update_slice")


def _extent_checker(op: Operation) -> _Checker | None:
    if op.name not in _WINDOW_OPS:
        return None
    t = op.operands[0].type
    return _check_extents if isinstance(t, TensorType) and DYNAMIC_INDEX in t.get_shape() else None


def _insert_checks(
    module: ModuleOp, pickers: Sequence[Callable[[Operation], _Checker | None]]
) -> int:
    """Per function: the ops some picker gives a checker for, of those the
    live ones (a dead op runs no code, and a check would keep values alive
    the graph leaves dead), checked with one shape analysis; how many
    checks were added."""
    rewriter = Rewriter()
    added = 0
    for f in [o for o in preorder_ops(module) if isinstance(o, func.FuncOp)]:
        if not f.body.blocks or f.sym_name.data == SHAPE_CONSTRAINT_GRAPH:
            continue
        todo: list[tuple[Operation, _Checker]] = []
        for op in preorder_ops(f):
            for pick in pickers:
                if (checker := pick(op)) is not None:
                    todo.append((op, checker))
                    break
        if not todo:
            continue
        live = _live_ops(f)
        analysis = ShapeAnalysis(f)
        for op, checker in todo:
            if op in live:
                added += int(checker(op, analysis, rewriter))
    return added


def insert_broadcast_checks(module: ModuleOp) -> int:
    """Add the run-time check of every `mhlo.dynamic_broadcast_in_dim` and
    `chlo.broadcast_*` op of `module` whose dims the shape analysis cannot
    prove valid (the module docstring); returns how many were added."""
    return _insert_checks(module, (_broadcast_checker,))


def insert_extent_checks(module: ModuleOp) -> int:
    """Add the run-time check of every `mhlo.slice`, `mhlo.dynamic_slice`,
    `mhlo.gather` and `mhlo.dynamic_update_slice` of `module` whose window
    may not fit its dynamically shaped operand (`_check_extents`); returns
    how many were added."""
    return _insert_checks(module, (_extent_checker,))


def insert_shape_checks(module: ModuleOp) -> int:
    """`insert_broadcast_checks` and `insert_extent_checks` in one walk, with
    one shape analysis and one liveness per function (`disc-insert-runtime-shape-checks`)."""
    return _insert_checks(module, (_broadcast_checker, _extent_checker))


def insert_slice_bounds_checks(module: ModuleOp) -> int:
    """Add the bounds check of every `mhlo.real_dynamic_slice` of `module` (the
    module docstring); returns how many run-time checks were added. Raises
    `RuntimeCheckError` for constant bounds out of range."""
    rewriter = Rewriter()
    added = 0
    for op in preorder_ops(module):
        if op.name == "mhlo.real_dynamic_slice" and len(op.operands) == 4:
            before = op.prev_op
            _check_slice(op, rewriter)
            added += op.prev_op is not before
    return added


__all__ = [
    "RuntimeCheckError",
    "insert_broadcast_checks",
    "insert_extent_checks",
    "insert_shape_checks",
    "insert_slice_bounds_checks",
]
