"""Static loops and conditionals as straight-line code (pass `disc-lower-static-control-flow`).

The pipeline has no lowering for `mhlo.while`, `mhlo.if` or `mhlo.case`.
`lower_static_control_flow(module)` rewrites the forms whose behaviour is
fixed at compile time, until none is left, and leaves the others (the
pipeline then reports them):

* `mhlo.while` with a static trip count -- what `lax.fori_loop` with
  constant bounds, `lax.scan` over a static length and jax's threefry RNG
  give: a loop-carried integer scalar `i` that starts at a constant, the
  condition `i < K` (or `K > i`) with `K` constant (or carried unchanged
  from a constant: an inner loop bounded by the counter of an outer loop
  already unrolled), the body yielding `i + S` with `S > 0` constant -- is
  unrolled: the body is cloned once per iteration, each copy reading the
  previous one's yields (values the body takes from above are shared). A
  loop of more than `MAX_UNROLLED_OPS` cloned ops is left alone.
* `mhlo.if` and `mhlo.case` whose results are all ranked tensors and
  whose branches hold only side-effect-free mhlo ops (no nested control
  flow left) become data flow: every branch is computed (cloned before the
  op) and `mhlo.select` picks the results; a `case` index out of range
  takes the last branch, as XLA does. Every branch runs: exact for these
  pure ops, which never trap (integer division by zero and out-of-range
  indices have defined results in HLO). A result with dynamic dims is a
  select only where the shape analysis proves that every branch returns
  the same shape (as jax's branches, whose shapes are equal symbolically);
  a conditional whose branches may return different shapes is left.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.ir.mhlo_builder import MhloBuilder
from disc_ir.ir.walk import preorder_ops

#: cloned ops above which a static loop is not unrolled
MAX_UNROLLED_OPS = 20_000

_RETURNS = ("mhlo.return", "stablehlo.return")


_FOLDABLE = {
    "mhlo.add": lambda a, b: a + b,
    "mhlo.subtract": lambda a, b: a - b,
    "mhlo.multiply": lambda a, b: a * b,
}


def _int_constant(value: SSAValue, depth: int = 8) -> int | None:
    """The value of an integer scalar `mhlo.constant` (through a splat), or
    of an add / subtract / multiply of such (an unrolled outer loop's counter
    bounding an inner loop)."""
    if not isinstance(value, OpResult):
        return None
    if value.op.name in _FOLDABLE and depth > 0 and len(value.op.operands) == 2:
        a = _int_constant(value.op.operands[0], depth - 1)
        b = _int_constant(value.op.operands[1], depth - 1)
        return None if a is None or b is None else _FOLDABLE[value.op.name](a, b)
    if value.op.name != "mhlo.constant":
        return None
    attr = value.op.attributes.get("value") or value.op.properties.get("value")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    t = attr.type
    if not isinstance(t, TensorType) or not isinstance(t.get_element_type(), IntegerType):
        return None
    values = attr.get_values()
    if len(values) != 1:
        return None
    return int(values[0])


def _direction(op: Operation) -> str | None:
    attr = op.attributes.get("comparison_direction") or op.properties.get("comparison_direction")
    data = getattr(attr, "data", None)
    return getattr(data, "value", data) if data is not None else None


def _terminator(block: Block) -> Operation:
    op = block.last_op
    assert op is not None and op.name in _RETURNS, "region without mhlo.return"
    return op


def _count_ops(block: Block) -> int:
    return sum(1 for op in block.ops for _ in preorder_ops(op))


def static_trip_count(op: Operation) -> int | None:
    """The iterations of `mhlo.while` `op` when fixed at compile time (module doc)."""
    cond, body = op.regions[0].blocks.first, op.regions[1].blocks.first
    if cond is None or body is None:
        return None
    pred = _terminator(cond).operands
    if len(pred) != 1 or not isinstance(pred[0], OpResult):
        return None
    compare = pred[0].op
    if compare.name != "mhlo.compare" or len(compare.operands) != 2:
        return None
    direction = _direction(compare)
    lhs, rhs = compare.operands
    if direction == "LT":
        counter, bound = lhs, rhs
    elif direction == "GT":
        counter, bound = rhs, lhs
    else:
        return None
    if counter not in cond.args:
        return None
    index = cond.args.index(counter)
    if bound in cond.args:
        # a loop-invariant carried bound (the body yields its own argument)
        m = cond.args.index(bound)
        if _terminator(body).operands[m] is not body.args[m]:
            return None
        bound = op.operands[m]
    limit = _int_constant(bound)
    start = _int_constant(op.operands[index])
    if limit is None or start is None:
        return None
    step_value = _terminator(body).operands[index]
    if not isinstance(step_value, OpResult) or step_value.op.name != "mhlo.add":
        return None
    a, b = step_value.op.operands
    arg = body.args[index]
    step = _int_constant(b) if a is arg else _int_constant(a) if b is arg else None
    if step is None or step <= 0:
        return None
    return max(0, -(-(limit - start) // step))


def _unroll(op: Operation, count: int, rewriter: Rewriter) -> None:
    body = op.regions[1].blocks.first
    assert body is not None
    current = list(op.operands)
    point = InsertPoint.before(op)
    for _ in range(count):
        mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, current, strict=True))
        for inner in body.ops:
            if inner.name in _RETURNS:
                current = [mapping.get(v, v) for v in inner.operands]
                break
            clone = inner.clone(value_mapper=mapping)
            rewriter.insert_op(clone, point)
    rewriter.replace_op(op, [], current)


def _pure_branch(block: Block) -> bool:
    """Only ops safe to run when their branch is not taken: mhlo ops other
    than control flow, custom calls and RNG, and ops of other dialects that
    are side-effect-free and speculatable (the importer's shape computations:
    `tensor.from_elements`, `arith` casts), or read a 0-d tensor
    (`tensor.extract` of a scalar: no index to be out of bounds)."""
    from xdsl.traits import is_side_effect_free, is_speculatable

    def safe(op: Operation) -> bool:
        if op.regions or not is_side_effect_free(op):
            return False
        if op.name == "tensor.extract":
            t = op.operands[0].type
            return isinstance(t, TensorType) and not t.get_shape()
        return is_speculatable(op)

    for inner in preorder_ops(block):
        if inner.name in _RETURNS:
            continue
        if inner.name in (
            "mhlo.while",
            "mhlo.if",
            "mhlo.case",
            "mhlo.custom_call",
            "mhlo.rng",
            "mhlo.rng_bit_generator",
        ):
            return False
        if not inner.name.startswith("mhlo.") and not safe(inner):
            return False
    return True


def _inline_branch(block: Block, anchor: Operation, rewriter: Rewriter) -> list[SSAValue]:
    mapping: dict[SSAValue, SSAValue] = {}
    for inner in block.ops:
        if inner.name in _RETURNS:
            return [mapping.get(v, v) for v in inner.operands]
        rewriter.insert_op(inner.clone(value_mapper=mapping), InsertPoint.before(anchor))
    raise AssertionError("branch without mhlo.return")


def _same_shapes_proven(op: Operation, values: list[list[SSAValue]]) -> bool:
    """Whether the shape analysis of `op`'s function proves each dynamically
    shaped result the same shape in every branch (`values[branch][result]`)."""
    from xdsl.dialects import func
    from xdsl.utils.exceptions import DiagnosticException

    from disc_ir.analysis.shape_analysis import ShapeAnalysis

    dynamic = [
        i
        for i, r in enumerate(op.results)
        if isinstance(r.type, TensorType) and DYNAMIC_INDEX in r.type.get_shape()
    ]
    if not dynamic:
        return True
    scope = op.parent_op()
    while scope is not None and not isinstance(scope, func.FuncOp):
        scope = scope.parent_op()
    if scope is None:
        return False
    try:
        analysis = ShapeAnalysis(scope)
    except DiagnosticException:
        return False
    return all(
        analysis.is_shape_equal(branch[i], values[-1][i]) for branch in values[:-1] for i in dynamic
    )


def _select_conditional(op: Operation, rewriter: Rewriter) -> bool:
    if any(not isinstance(r.type, TensorType) for r in op.results):
        return False
    branches = [region.blocks.first for region in op.regions]
    if any(b is None or b.args or not _pure_branch(b) for b in branches):
        return False
    before = op.prev_op
    values = [_inline_branch(b, op, rewriter) for b in branches]  # type: ignore[arg-type]  # no None block: checked above
    if not _same_shapes_proven(op, values):
        while op.prev_op is not before:  # the inlined copies, last first
            dead = op.prev_op
            assert dead is not None
            rewriter.erase_op(dead)
        return False
    builder = MhloBuilder(rewriter, op)
    selector = op.operands[0]
    if op.name == "mhlo.if":
        conditions = [selector]
    else:
        n = len(branches)
        t = selector.type
        assert isinstance(t, TensorType)
        low = builder.const(0, selector)
        high = builder.const(n - 1, selector)
        # XLA: an index out of [0, n) takes the last branch
        in_range = builder.op(
            "mhlo.and",
            [
                builder.compare("GE", selector, low, "SIGNED"),
                builder.compare("LE", selector, high, "SIGNED"),
            ],
            TensorType(IntegerType(1), []),
        )
        index = builder.op("mhlo.select", [in_range, selector, high], t)
        conditions = [
            builder.compare("EQ", index, builder.const(j, index), "SIGNED") for j in range(n - 1)
        ]
    results: list[SSAValue] = []
    no_dims = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [0]), [])
    for position, result in enumerate(op.results):
        t = result.type
        assert isinstance(t, TensorType)
        chosen = values[-1][position]
        pred_t = TensorType(IntegerType(1), t.get_shape())
        dynamic = DYNAMIC_INDEX in t.get_shape()
        for j in reversed(range(len(conditions))):
            pred = conditions[j]
            if dynamic:
                pred = builder.op(
                    "mhlo.dynamic_broadcast_in_dim",
                    [pred, builder.shape_of(chosen)],
                    pred_t,
                    {"broadcast_dimensions": no_dims},
                )
            elif t.get_shape():
                pred = builder.op(
                    "mhlo.broadcast_in_dim", [pred], pred_t, {"broadcast_dimensions": no_dims}
                )
            chosen = builder.op("mhlo.select", [pred, values[j][position], chosen], t)
        results.append(chosen)
    rewriter.replace_op(op, [], results)
    return True


def lower_static_control_flow(module: ModuleOp) -> int:
    """Unroll static `mhlo.while` loops and turn pure, statically shaped
    `mhlo.if` / `mhlo.case` into selects (module docstring), innermost first;
    returns how many ops were rewritten."""
    rewriter = Rewriter()
    done = 0
    changed = True
    while changed:
        changed = False
        for op in preorder_ops(module, reverse=True):
            if op.parent is None:
                continue
            if op.name == "mhlo.while":
                count = static_trip_count(op)
                body = op.regions[1].blocks.first
                if count is None or body is None or count * _count_ops(body) > MAX_UNROLLED_OPS:
                    continue
                _unroll(op, count, rewriter)
                done += 1
                changed = True
            elif op.name in ("mhlo.if", "mhlo.case") and _select_conditional(op, rewriter):
                done += 1
                changed = True
    return done


__all__ = ["MAX_UNROLLED_OPS", "lower_static_control_flow", "static_trip_count"]
