"""oneDNN Graph ops lowered to mhlo, with the semantics of oneDNN's op documentation.

`lower_graph(graph)` returns the text of `func.func @main`: one argument per
input port (a `-1` dim is `?`), one result per output port. Each op kind has
one handler here; attributes take oneDNN's defaults when absent.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from disc_ir.frontends.onednn_graph.emitter import (
    FLOAT_TYPES,
    Dim,
    Emitter,
    Value,
    dims_of,
    tensor_type,
)
from disc_ir.frontends.onednn_graph.graph import Graph, LogicalTensor, Op

Handler = Callable[[Emitter, Op, list[Value]], list[Value]]

HANDLERS: dict[str, Handler] = {}


def handler(*kinds: str) -> Callable[[Handler], Handler]:
    def register(fn: Handler) -> Handler:
        for k in kinds:
            HANDLERS[k] = fn
        return fn

    return register


def supported_op_kinds() -> list[str]:
    """The oneDNN Graph op kinds disc-ir lowers."""
    return sorted(HANDLERS)


# -- helpers ---------------------------------------------------------------


def _attr(op: Op, name: str, default: Any = None, required: bool = False) -> Any:
    if name in op.attrs:
        return op.attrs[name]
    if required:
        raise op.error(f"missing required attribute '{name}'")
    return default


def _arity(op: Op, ins: list[Value], low: int, high: int | None = None) -> None:
    high = low if high is None else high
    if not low <= len(ins) <= high:
        want = str(low) if low == high else f"{low} to {high}"
        raise op.error(f"takes {want} inputs, got {len(ins)}")


def _axis(op: Op, axis: int, rank: int, what: str = "axis") -> int:
    if not -rank <= axis < max(rank, 1):
        raise op.error(f"{what} {axis} is out of range for rank {rank}")
    return axis % rank if rank else 0


def _float(op: Op, v: Value) -> None:
    if v.element not in FLOAT_TYPES:
        raise op.error(f"expects a floating-point input, got {v.element}")


def _channel_axis(op: Op, rank: int) -> int:
    fmt = _attr(op, "data_format", "NXC")
    if fmt not in ("NCX", "NXC"):
        raise op.error(f"data_format {fmt!r} is not NCX or NXC")
    if rank < 2:
        raise op.error(f"needs an input of rank >= 2 (N, C, ...), got rank {rank}")
    return 1 if fmt == "NCX" else rank - 1


def _along(em: Emitter, v: Value, like: Value, axis: int) -> Value:
    """1-D `v` reshaped to broadcast along `axis` of `like` (1 elsewhere)."""
    dims: list[Dim] = [1] * like.rank
    dims[axis] = em.dim(v, 0)
    return em.reshape(v, dims)


def _binary(em: Emitter, op: Op, name: str, a: Value, b: Value) -> Value:
    mode = _attr(op, "auto_broadcast", "numpy")
    if mode == "none":
        if a.shape != b.shape:
            raise op.error(
                f"auto_broadcast 'none' needs equal shapes, got {_fmt(a.shape)} and {_fmt(b.shape)}"
            )
    elif mode != "numpy":
        raise op.error(f"auto_broadcast {mode!r} is not 'numpy' or 'none'")
    try:
        return em.binary(name, a, b)
    except ValueError as err:
        raise op.error(str(err)) from None


def _fmt(shape: Sequence[int | None]) -> str:
    return "[" + ", ".join("-1" if d is None else str(d) for d in shape) + "]"


# -- binary ----------------------------------------------------------------

_BINARY = {
    "Add": "add",
    "Subtract": "subtract",
    "Multiply": "multiply",
    "Divide": "divide",
    "Maximum": "maximum",
    "Minimum": "minimum",
}


@handler(*_BINARY)
def _lower_binary(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 2)
    return [_binary(em, op, _BINARY[op.kind], ins[0], ins[1])]


@handler("SquaredDifference")
def _lower_squared_difference(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 2)
    d = _binary(em, op, "subtract", ins[0], ins[1])
    return [em.binary("multiply", d, d)]


@handler("GreaterEqual")
def _lower_compare(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 2)
    a, b = ins
    if _attr(op, "auto_broadcast", "numpy") == "none" and a.shape != b.shape:
        raise op.error("auto_broadcast 'none' needs equal shapes")
    return [em.compare("GE", a, b)]


@handler("Select")
def _lower_select(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 3)
    cond, a, b = ins
    if cond.element != "i1":
        raise op.error(f"the condition must be boolean, got {cond.element}")
    try:
        return [em.select(cond, a, b)]
    except ValueError as err:
        raise op.error(str(err)) from None


@handler("BiasAdd")
def _lower_bias_add(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 2)
    x, bias = ins
    if bias.rank != 1:
        raise op.error(f"bias must be 1-D, got rank {bias.rank}")
    axis = _channel_axis(op, x.rank)
    return [em.binary("add", x, _along(em, bias, x, axis))]


# -- eltwise ---------------------------------------------------------------


def _sigmoid(em: Emitter, x: Value) -> Value:
    return em.unary("logistic", x)


def _softplus(em: Emitter, x: Value, beta: float) -> Value:
    """log(1 + exp(beta x)) / beta, computed as max(bx, 0) + log1p(exp(-|bx|))."""
    bx = em.binary_scalar("multiply", x, beta) if beta != 1.0 else x
    pos = em.binary_scalar("maximum", bx, 0.0)
    neg_abs = em.unary("negate", em.unary("abs", bx))
    r = em.binary("add", pos, em.unary("log_plus_one", em.unary("exponential", neg_abs)))
    return em.binary_scalar("divide", r, beta) if beta != 1.0 else r


#: XLA's f32 erf: x * P(x^2) / Q(x^2) on x clamped to [-4, 4], highest power first
_ERF_ALPHA = (
    -2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06, -5.69250639462346e-05,
    -7.34990630326855e-04, -2.95459980854025e-03, -1.60960333262415e-02,
)  # fmt: skip
_ERF_BETA = (
    -1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03, -7.37332916720468e-03,
    -1.42647390514189e-02,
)  # fmt: skip


def _poly(em: Emitter, x: Value, coeffs: Sequence[float]) -> Value:
    acc = em.binary_scalar("multiply", x, coeffs[0])
    for c in coeffs[1:-1]:
        acc = em.binary("multiply", em.binary_scalar("add", acc, c), x)
    return em.binary_scalar("add", acc, coeffs[-1])


def _erf(em: Emitter, x: Value) -> Value:
    """erf as XLA computes it for f32 (the constants broadcast as scalars, so that
    large static shapes do not fold into dense constants)."""
    xc = em.binary_scalar("minimum", em.binary_scalar("maximum", x, -4.0), 4.0)
    x2 = em.binary("multiply", xc, xc)
    r = em.binary(
        "divide", em.binary("multiply", xc, _poly(em, x2, _ERF_ALPHA)), _poly(em, x2, _ERF_BETA)
    )
    return em.binary_scalar("minimum", em.binary_scalar("maximum", r, -1.0), 1.0)


def _gelu(em: Emitter, op: Op, x: Value) -> Value:
    mode = _attr(op, "mode", "gelu_erf")
    half = em.binary_scalar("multiply", x, 0.5)
    if mode == "gelu_erf":
        inner = _erf(em, em.binary_scalar("multiply", x, 1.0 / math.sqrt(2.0)))
    elif mode == "gelu_tanh":
        cube = em.binary("multiply", em.binary("multiply", x, x), x)
        poly = em.binary("add", x, em.binary_scalar("multiply", cube, 0.044715))
        inner = em.unary("tanh", em.binary_scalar("multiply", poly, math.sqrt(2.0 / math.pi)))
    else:
        raise op.error(f"mode {mode!r} is not 'gelu_erf' or 'gelu_tanh'")
    return em.binary("multiply", half, em.binary_scalar("add", inner, 1.0))


def _round_half_even(em: Emitter, x: Value) -> Value:
    return em.unary("round_nearest_even", x)


def _eltwise(em: Emitter, op: Op, x: Value) -> Value:
    k = op.kind
    if k == "ReLU":
        return em.binary_scalar("maximum", x, 0.0)
    if k == "Sigmoid":
        return _sigmoid(em, x)
    if k == "Tanh":
        return em.unary("tanh", x)
    if k == "Exp":
        return em.unary("exponential", x)
    if k == "Log":
        return em.unary("log", x)
    if k == "Sqrt":
        return em.unary("sqrt", x)
    if k == "Square":
        return em.binary("multiply", x, x)
    if k == "Abs":
        return em.unary("abs", x)
    if k == "Round":
        return _round_half_even(em, x)
    if k == "Reciprocal":
        return em.binary("divide", em.splat(1.0, x), x)
    if k == "GELU":
        return _gelu(em, op, x)
    if k == "Elu":
        alpha = float(_attr(op, "alpha", required=True))
        neg = em.binary_scalar("multiply", em.unary("exponential_minus_one", x), alpha)
        return em.select(em.compare("GT", x, em.scalar(0.0, x.element)), x, neg)
    if k == "LeakyReLU":
        alpha = float(_attr(op, "alpha", required=True))
        neg = em.binary_scalar("multiply", x, alpha)
        return em.select(em.compare("GE", x, em.scalar(0.0, x.element)), x, neg)
    if k == "Clamp":
        lo = float(_attr(op, "min", required=True))
        hi = float(_attr(op, "max", required=True))
        if lo > hi:
            raise op.error(f"min {lo} is above max {hi}")
        return em.binary_scalar("minimum", em.binary_scalar("maximum", x, lo), hi)
    if k == "HardSwish":
        r6 = em.binary_scalar(
            "minimum", em.binary_scalar("maximum", em.binary_scalar("add", x, 3.0), 0.0), 6.0
        )
        return em.binary("multiply", x, em.binary_scalar("divide", r6, 6.0))
    if k == "HardSigmoid":
        alpha = float(_attr(op, "alpha", required=True))
        beta = float(_attr(op, "beta", required=True))
        lin = em.binary_scalar("add", em.binary_scalar("multiply", x, alpha), beta)
        return em.binary_scalar("minimum", em.binary_scalar("maximum", lin, 0.0), 1.0)
    if k == "SoftPlus":
        beta = float(_attr(op, "beta", 1.0))
        if beta == 0.0:
            raise op.error("beta must be non-zero")
        return _softplus(em, x, beta)
    if k == "Mish":
        return em.binary("multiply", x, em.unary("tanh", _softplus(em, x, 1.0)))
    if k == "Pow":
        beta = float(_attr(op, "beta", required=True))
        return em.binary("power", x, em.splat(beta, x))
    raise op.error("no eltwise lowering")  # pragma: no cover - HANDLERS lists the kinds


_ELTWISE = (
    "ReLU", "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Square", "Abs", "Round", "Reciprocal",
    "GELU", "Elu", "LeakyReLU", "Clamp", "HardSwish", "HardSigmoid", "SoftPlus", "Mish", "Pow",
)  # fmt: skip


@handler(*_ELTWISE)
def _lower_eltwise(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 1)
    _float(op, ins[0])
    return [_eltwise(em, op, ins[0])]


@handler("PReLU")
def _lower_prelu(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 2)
    x, slope = ins
    if slope.rank == 1 and x.rank >= 2 and _attr(op, "per_channel_broadcast", True):
        axis = _channel_axis(op, x.rank)
        slope = _along(em, slope, x, axis)
    try:
        neg = em.binary("multiply", x, slope)
    except ValueError as err:
        raise op.error(str(err)) from None
    return [em.select(em.compare("GE", x, em.scalar(0.0, x.element)), x, neg)]


@handler("ReLUBackward")
def _lower_relu_backward(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 2)
    src, diff_dst = ins
    positive = em.compare("GT", src, em.scalar(0.0, src.element))
    return [em.select(positive, diff_dst, em.splat(0.0, diff_dst))]


@handler("TypeCast")
def _lower_typecast(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 1)
    return [em.convert(ins[0], op.outputs[0].element)]


@handler("Reorder", "End")
def _lower_identity(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 1)
    return [ins[0]] * (len(op.outputs) or 0)


@handler("GenIndex")
def _lower_genindex(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 1)
    x = ins[0]
    axis = _axis(op, int(_attr(op, "axis", required=True)), x.rank)
    if x.static:
        return [
            em.op(
                f'"mhlo.iota"() {{iota_dimension = {axis} : i64}} : () -> '
                f"{tensor_type(x.shape, 'i32')}",
                x.shape,
                "i32",
            )
        ]
    st = em.shape_tensor(em.dims(x))
    return [
        em.op(
            f'"mhlo.dynamic_iota"({st}) {{iota_dimension = {axis} : i64}} : '
            f"(tensor<{x.rank}xindex>) -> {tensor_type(x.shape, 'i32')}",
            x.shape,
            "i32",
        )
    ]


# -- matmul ----------------------------------------------------------------


@handler("MatMul")
def _lower_matmul(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 2, 3)
    a, b = ins[0], ins[1]
    if a.rank == 0 or b.rank == 0:
        raise op.error("inputs must have rank >= 1")
    if a.rank == 1:
        a = em.reshape(a, [1, em.dim(a, 0)])
        squeeze_m = True
    else:
        squeeze_m = False
    if b.rank == 1:
        b = em.reshape(b, [em.dim(b, 0), 1])
        squeeze_n = True
    else:
        squeeze_n = False
    if _attr(op, "transpose_a", False) and not squeeze_m:
        a = em.transpose(a, [*range(a.rank - 2), a.rank - 1, a.rank - 2])
    if _attr(op, "transpose_b", False) and not squeeze_n:
        b = em.transpose(b, [*range(b.rank - 2), b.rank - 1, b.rank - 2])
    ka, kb = a.shape[-1], b.shape[-2]
    if ka is not None and kb is not None and ka != kb:
        raise op.error(f"contraction dims differ: {_fmt(a.shape)} x {_fmt(b.shape)}")
    m, n = a.shape[-2], b.shape[-1]
    if b.rank == 2:
        # batch dims of a only: contract a's last with b's first
        shape = (*a.shape[:-1], n)
        dn = (
            f"#mhlo.dot<lhs_contracting_dimensions = [{a.rank - 1}], "
            "rhs_contracting_dimensions = [0]>"
        )
        out = _dot_general(em, a, b, shape, dn)
    elif a.rank == 2:
        # b batched, a not: (b^T a^T)^T keeps a's rows in front
        shape_t = (*b.shape[:-2], n, m)
        dn = (
            f"#mhlo.dot<lhs_contracting_dimensions = [{b.rank - 2}], "
            "rhs_contracting_dimensions = [1]>"
        )
        t = _dot_general(em, b, a, shape_t, dn)
        r = t.rank
        out = em.transpose(t, [*range(r - 2), r - 1, r - 2])
    else:
        a, b = _broadcast_batch(em, op, a, b)
        nb = a.rank - 2
        batch = list(range(nb))
        shape = (*a.shape[:-2], m, n)
        dn = (
            f"#mhlo.dot<lhs_batching_dimensions = {batch}, rhs_batching_dimensions = {batch}, "
            f"lhs_contracting_dimensions = [{nb + 1}], rhs_contracting_dimensions = [{nb}]>"
        )
        out = _dot_general(em, a, b, shape, dn)
    if squeeze_m or squeeze_n:
        dims = em.dims(out)
        keep = [
            d
            for i, d in enumerate(dims)
            if not ((squeeze_m and i == out.rank - 2) or (squeeze_n and i == out.rank - 1))
        ]
        out = em.reshape(out, keep)
    if len(ins) == 3:
        out = em.binary("add", out, ins[2])
    return [out]


def _dot_general(em: Emitter, a: Value, b: Value, shape: Sequence[int | None], dn: str) -> Value:
    return em.op(
        f'"mhlo.dot_general"({a.name}, {b.name}) {{dot_dimension_numbers = {dn}}} : '
        f"({a.type}, {b.type}) -> {tensor_type(shape, a.element)}",
        shape,
        a.element,
    )


def _broadcast_batch(em: Emitter, op: Op, a: Value, b: Value) -> tuple[Value, Value]:
    """Both operands broadcast to their common batch dims (numpy rules, same rank)."""
    nb = max(a.rank, b.rank) - 2

    def batch_dims(v: Value) -> list[Dim]:
        pad: list[Dim] = [1] * (nb - (v.rank - 2))
        return pad + [em.dim(v, i) for i in range(v.rank - 2)]

    da, db = batch_dims(a), batch_dims(b)
    common: list[Dim] = []
    for x, y in zip(da, db, strict=True):
        if x == 1:
            common.append(y)
        elif y == 1 or x == y:
            common.append(x)
        elif isinstance(x, int) and isinstance(y, int):
            raise op.error(f"batch dims do not broadcast: {_fmt(a.shape)} x {_fmt(b.shape)}")
        else:
            common.append(x if isinstance(x, int) else y)

    def expand(v: Value, own: list[Dim]) -> Value:
        if own == common and v.rank == nb + 2:
            return v
        target = [*common, em.dim(v, v.rank - 2), em.dim(v, v.rank - 1)]
        offset = nb + 2 - v.rank
        return em.broadcast(v, target, [i + offset for i in range(v.rank)])

    return expand(a, da), expand(b, db)


# -- shape ops -------------------------------------------------------------


@handler("StaticTranspose")
def _lower_transpose(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 1)
    x = ins[0]
    order = [_axis(op, o, x.rank, "order entry") for o in _attr(op, "order", required=True)]
    if sorted(order) != list(range(x.rank)):
        raise op.error(f"order {order} is not a permutation of rank {x.rank}")
    return [em.transpose(x, order)]


@handler("StaticReshape")
def _lower_reshape(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 1)
    x = ins[0]
    shape = list(_attr(op, "shape", required=True))
    special_zero = bool(_attr(op, "special_zero", required=True))
    dims: list[Dim | None] = []
    for i, s in enumerate(shape):
        if s == 0 and special_zero:
            if i >= x.rank:
                raise op.error(f"shape entry {i} copies a dim beyond the input's rank {x.rank}")
            dims.append(em.dim(x, i))
        elif s == -1:
            dims.append(None)
        elif s < 0:
            raise op.error(f"shape {shape} has an entry below -1")
        else:
            dims.append(s)
    if dims.count(None) > 1:
        raise op.error(f"shape {shape} has more than one -1")
    total = em.numel(x, range(x.rank))
    if None in dims:
        known: Dim = 1
        for d in dims:
            if d is not None:
                known = em.index_binary("muli", known, d)
        if isinstance(total, int) and isinstance(known, int) and (known == 0 or total % known):
            raise op.error(f"cannot reshape {_fmt(x.shape)} to {shape}")
        dims[dims.index(None)] = em.index_binary("divui", total, known)
    final = [d for d in dims if d is not None]
    count: Dim = 1
    for d in final:
        count = em.index_binary("muli", count, d)
    if isinstance(total, int) and isinstance(count, int) and total != count:
        raise op.error(f"cannot reshape {_fmt(x.shape)} ({total} elements) to {shape}")
    return [em.reshape(x, final)]


@handler("Concat")
def _lower_concat(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    if not ins:
        raise op.error("takes at least one input")
    rank = ins[0].rank
    axis = _axis(op, int(_attr(op, "axis", required=True)), rank)
    for v in ins:
        if v.rank != rank or v.element != ins[0].element:
            raise op.error("inputs differ in rank or dtype")
    total: int | None = 0
    for v in ins:
        size = v.shape[axis]
        total = None if total is None or size is None else total + size
    shape = list(ins[0].shape)
    shape[axis] = total
    for i in range(rank):
        if i != axis:
            known = [v.shape[i] for v in ins if v.shape[i] is not None]
            if len(set(known)) > 1:
                raise op.error(f"inputs differ in dim {i}: {known}")
            shape[i] = known[0] if known else None
    names = ", ".join(v.name for v in ins)
    types = ", ".join(v.type for v in ins)
    return [
        em.op(
            f'"mhlo.concatenate"({names}) {{dimension = {axis} : i64}} : ({types}) -> '
            f"{tensor_type(shape, ins[0].element)}",
            shape,
            ins[0].element,
        )
    ]


# -- normalization and softmax ---------------------------------------------


@handler("SoftMax", "LogSoftmax")
def _lower_softmax(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 1)
    x = ins[0]
    _float(op, x)
    default = 1 if op.kind == "SoftMax" else -1
    axis = _axis(op, int(_attr(op, "axis", default)), x.rank)
    mode = _attr(op, "mode", "none")
    if mode not in ("none", "inf_as_zero"):
        raise op.error(f"mode {mode!r} is not 'none' or 'inf_as_zero'")
    m = em.reduce_keep(x, [axis], "maximum", -math.inf)
    shifted = em.binary("subtract", x, m)
    e = em.unary("exponential", shifted)
    s = em.reduce_keep(e, [axis], "add", 0.0)
    if op.kind == "LogSoftmax":
        out = em.binary("subtract", shifted, em.unary("log", s))
    else:
        out = em.binary("divide", e, s)
    if mode == "inf_as_zero":
        all_masked = em.compare("EQ", m, em.scalar(-math.inf, x.element))
        out = em.select(all_masked, em.splat(0.0, out), out)
    return [out]


def _moments(em: Emitter, x: Value, axes: list[int]) -> tuple[Value, Value]:
    """Mean and biased variance over `axes` (kept as 1)."""
    n = em.dim_as_scalar(em.numel(x, axes), x.element)
    mean = em.binary("divide", em.reduce_keep(x, axes, "add", 0.0), n)
    c = em.binary("subtract", x, mean)
    var = em.binary("divide", em.reduce_keep(em.binary("multiply", c, c), axes, "add", 0.0), n)
    return mean, var


@handler("LayerNorm")
def _lower_layernorm(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    use_affine = bool(_attr(op, "use_affine", True))
    _arity(op, ins, 3 if use_affine else 1, 3)
    x = ins[0]
    _float(op, x)
    begin = _axis(op, int(_attr(op, "begin_norm_axis", -1)), x.rank, "begin_norm_axis")
    eps = float(_attr(op, "epsilon", 1e-5))
    axes = list(range(begin, x.rank))
    mean, var = _moments(em, x, axes)
    inv = em.unary("rsqrt", em.binary_scalar("add", var, eps))
    y = em.binary("multiply", em.binary("subtract", x, mean), inv)
    if use_affine:
        y = em.binary("add", em.binary("multiply", y, ins[1]), ins[2])
    outs = [y]
    if _attr(op, "keep_stats", True) and len(op.outputs) > 1:
        stat_dims = [em.dim(x, i) for i in range(begin)]
        outs += [em.reshape(mean, stat_dims), em.reshape(var, stat_dims)]
    return outs


@handler("BatchNormInference")
def _lower_bn_inference(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 5)
    x, gamma, beta, mean, var = ins
    _float(op, x)
    axis = _channel_axis(op, x.rank)
    eps = float(_attr(op, "epsilon", required=True))
    g, b, m, v = (_along(em, t, x, axis) for t in (gamma, beta, mean, var))
    scale = em.binary("multiply", g, em.unary("rsqrt", em.binary_scalar("add", v, eps)))
    return [em.binary("add", em.binary("multiply", em.binary("subtract", x, m), scale), b)]


@handler("BatchNormTrainingBackward")
def _lower_bn_backward(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 4, 5)
    x, dd, mean, var = ins[:4]
    _float(op, x)
    axis = _channel_axis(op, x.rank)
    eps = float(_attr(op, "epsilon", required=True))
    axes = [i for i in range(x.rank) if i != axis]
    m = _along(em, mean, x, axis)
    inv = em.unary("rsqrt", em.binary_scalar("add", _along(em, var, x, axis), eps))
    xhat = em.binary("multiply", em.binary("subtract", x, m), inv)
    diff_beta = em.reduce_keep(dd, axes, "add", 0.0)
    diff_gamma = em.reduce_keep(em.binary("multiply", dd, xhat), axes, "add", 0.0)
    n = em.dim_as_scalar(em.numel(x, axes), x.element)
    centered = em.binary(
        "subtract",
        em.binary("subtract", dd, em.binary("divide", diff_beta, n)),
        em.binary("multiply", xhat, em.binary("divide", diff_gamma, n)),
    )
    scale = inv
    if len(ins) == 5 and len(op.outputs) > 1:
        scale = em.binary("multiply", inv, _along(em, ins[4], x, axis))
    outs = [em.binary("multiply", centered, scale)]
    if len(op.outputs) > 1:
        c = [em.dim(x, axis)]
        outs += [em.reshape(diff_gamma, c), em.reshape(diff_beta, c)]
    return outs


# -- reductions ------------------------------------------------------------

_REDUCE = {
    "ReduceSum": ("add", 0.0),
    "ReduceProd": ("multiply", 1.0),
    "ReduceMax": ("maximum", -math.inf),
    "ReduceMin": ("minimum", math.inf),
    "ReduceMean": ("add", 0.0),
    "ReduceL1": ("add", 0.0),
    "ReduceL2": ("add", 0.0),
}


@handler(*_REDUCE)
def _lower_reduce(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    if len(ins) == 2:
        raise op.error("axes given as an input tensor are not supported: use the 'axes' attribute")
    _arity(op, ins, 1)
    x = ins[0]
    raw_axes = _attr(op, "axes", required=True)
    axes = sorted({_axis(op, a, x.rank, "axes entry") for a in raw_axes})
    body, init = _REDUCE[op.kind]
    src = x
    if op.kind == "ReduceL1":
        src = em.unary("abs", x)
    elif op.kind == "ReduceL2":
        src = em.binary("multiply", x, x)
    r = em.reduce_keep(src, axes, body, init)
    if op.kind == "ReduceMean":
        r = em.binary("divide", r, em.dim_as_scalar(em.numel(x, axes), x.element))
    elif op.kind == "ReduceL2":
        r = em.unary("sqrt", r)
    if not _attr(op, "keep_dims", False):
        r = em.reshape(r, [em.dim(x, i) for i in range(x.rank) if i not in axes])
    return [r]


# -- convolution and pooling -----------------------------------------------


def _spatial_pads(
    op: Op,
    in_sizes: Sequence[int | None],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> tuple[list[int], list[int]]:
    """(pads_begin, pads_end) after `auto_pad`."""
    n = len(kernel)
    auto = str(_attr(op, "auto_pad", "none")).lower()
    if auto in ("none", ""):
        pb = list(_attr(op, "pads_begin", required=True))
        pe = list(_attr(op, "pads_end", required=True))
        if len(pb) != n or len(pe) != n:
            raise op.error(f"pads_begin/pads_end must have {n} entries, got {pb} and {pe}")
        return pb, pe
    if auto == "valid":
        return [0] * n, [0] * n
    if auto not in ("same_upper", "same_lower"):
        raise op.error(f"auto_pad {auto!r} is not none, same_upper, same_lower or valid")
    pb, pe = [], []
    for i in range(n):
        size = in_sizes[i]
        if size is None:
            raise op.error(f"auto_pad {auto!r} needs static spatial dims")
        out = -(-size // strides[i])
        total = max((out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - size, 0)
        small = total // 2
        if auto == "same_upper":
            pb.append(small)
            pe.append(total - small)
        else:
            pb.append(total - small)
            pe.append(small)
    return pb, pe


def _int_list_attr(op: Op, name: str, n: int, default: int | None = None) -> list[int]:
    value = _attr(op, name, None if default is None else [default] * n, required=default is None)
    value = list(value)
    if len(value) > n and not any(value[n:]):
        value = value[:n]  # benchdnn writes fixed-size zero-filled lists
    if len(value) != n:
        raise op.error(f"{name} must have {n} entries, got {value}")
    return [int(v) for v in value]


def _to_ncx(em: Emitter, op: Op, x: Value) -> tuple[Value, bool]:
    """`x` in NCX order and whether it was NXC."""
    axis = _channel_axis(op, x.rank)
    if axis == 1:
        return x, False
    return em.transpose(x, [0, x.rank - 1, *range(1, x.rank - 1)]), True


def _from_ncx(em: Emitter, y: Value, nxc: bool) -> Value:
    if not nxc:
        return y
    return em.transpose(y, [0, *range(2, y.rank), 1])


def _conv_text(
    em: Emitter,
    x: Value,
    w: Value,
    shape: Sequence[int | None],
    strides: Sequence[int],
    pads: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    groups: int,
) -> Value:
    """mhlo.convolution of NCX `x` and OIX `w`."""
    sp = list(range(2, x.rank))
    dn = (
        f"#mhlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, "
        f"input_spatial_dimensions = {sp}, kernel_input_feature_dimension = 1, "
        f"kernel_output_feature_dimension = 0, kernel_spatial_dimensions = {sp}, "
        f"output_batch_dimension = 0, output_feature_dimension = 1, "
        f"output_spatial_dimensions = {sp}>"
    )
    n = len(strides)
    pad_text = "[" + ", ".join(f"[{a}, {b}]" for a, b in pads) + "]"
    return em.op(
        f'"mhlo.convolution"({x.name}, {w.name}) {{batch_group_count = 1 : i64, '
        f"dimension_numbers = {dn}, feature_group_count = {groups} : i64, "
        f"lhs_dilation = dense<{list(lhs_dilation)}> : tensor<{n}xi64>, "
        f"padding = dense<{pad_text}> : tensor<{n}x2xi64>, "
        f"rhs_dilation = dense<{list(rhs_dilation)}> : tensor<{n}xi64>, "
        f"window_strides = dense<{list(strides)}> : tensor<{n}xi64>}} : "
        f"({x.type}, {w.type}) -> {tensor_type(shape, x.element)}",
        shape,
        x.element,
    )


def _weights_oix(em: Emitter, op: Op, w: Value, default: str, known: tuple[str, ...]) -> Value:
    fmt = _attr(op, "weights_format", default)
    if fmt not in known:
        raise op.error(f"weights_format {fmt!r} is not one of {', '.join(known)}")
    r = w.rank
    if fmt in ("XIO", "XOI"):
        w = em.transpose(w, [r - 1, r - 2, *range(r - 2)])
    # OIX (or IOX, read the same way: dim 0 first)
    return w


def _out_dim(size: int | None, k: int, s: int, d: int, pb: int, pe: int, ceil: bool) -> int | None:
    if size is None:
        return None
    span = size + pb + pe - ((k - 1) * d + 1)
    return (-(-span // s) if ceil else span // s) + 1


@handler("Convolution")
def _lower_convolution(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 2, 3)
    x, w = ins[0], ins[1]
    _float(op, x)
    if x.rank < 3 or w.rank != x.rank:
        raise op.error(f"src rank {x.rank} and weights rank {w.rank} must be equal and >= 3")
    n = x.rank - 2
    xn, nxc = _to_ncx(em, op, x)
    wo = _weights_oix(em, op, w, "XIO", ("OIX", "XIO"))
    kernel = list(wo.shape[2:])
    if any(k is None for k in kernel):
        raise op.error("the weights' spatial dims must be static")
    kint = [int(k) for k in kernel if k is not None]
    strides = _int_list_attr(op, "strides", n)
    dil = _int_list_attr(op, "dilations", n)
    groups = int(_attr(op, "groups", 1))
    cin, wi = xn.shape[1], wo.shape[1]
    if groups < 1 or (cin is not None and wi is not None and cin != wi * groups):
        raise op.error(
            f"input channels {cin} must equal weights' input channels {wi} x groups {groups}"
        )
    pb, pe = _spatial_pads(op, xn.shape[2:], kint, strides, dil)
    spatial = [
        _out_dim(xn.shape[2 + i], kint[i], strides[i], dil[i], pb[i], pe[i], False)
        for i in range(n)
    ]
    shape = (xn.shape[0], wo.shape[0], *spatial)
    y = _conv_text(em, xn, wo, shape, strides, list(zip(pb, pe, strict=True)), [1] * n, dil, groups)
    if len(ins) == 3:
        y = em.binary("add", y, _along(em, ins[2], y, 1))
    return [_from_ncx(em, y, nxc)]


@handler("ConvTranspose")
def _lower_conv_transpose(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 2, 3)
    x, w = ins[0], ins[1]
    _float(op, x)
    if x.rank < 3 or w.rank != x.rank:
        raise op.error(f"src rank {x.rank} and weights rank {w.rank} must be equal and >= 3")
    n = x.rank - 2
    groups = int(_attr(op, "groups", 1))
    fmt = _attr(op, "weights_format", "XIO")
    if fmt not in ("OIX", "XIO", "IOX", "XOI"):
        raise op.error(f"weights_format {fmt!r} is not one of OIX, XIO, IOX, XOI")
    if not w.static:
        raise op.error("the weights' dims must be static")
    r = w.rank
    # to OIX: [out_channels, in_channels / groups, X...], as oneDNN's op
    # documentation defines the four formats
    if fmt == "XIO":
        w = em.transpose(w, [r - 1, r - 2, *range(r - 2)])
    elif fmt == "XOI":
        w = em.transpose(w, [r - 2, r - 1, *range(r - 2)])
    elif fmt == "IOX":
        w = em.transpose(w, [1, 0, *range(2, r)])
    xn, nxc = _to_ncx(em, op, x)
    wshape = [int(d) for d in w.shape if d is not None]
    o_total, i_per_group = wshape[0], wshape[1]
    if groups < 1 or o_total % groups:
        raise op.error(f"output channels {o_total} are not divisible by groups {groups}")
    cin = xn.shape[1]
    if cin is not None and cin != i_per_group * groups:
        raise op.error(
            f"input channels {cin} must equal weights' input channels {i_per_group} x groups {groups}"
        )
    kint = wshape[2:]
    # flip the kernel spatially
    w = em.op(
        f'"mhlo.reverse"({w.name}) {{dimensions = dense<{list(range(2, r))}> : tensor<{n}xi64>}} : '
        f"({w.type}) -> {w.type}",
        w.shape,
        w.element,
    )
    strides = _int_list_attr(op, "strides", n)
    dil = _int_list_attr(op, "dilations", n)
    out_pad = (
        _int_list_attr(op, "output_padding", n, 0) if "output_padding" in op.attrs else [0] * n
    )
    auto = str(_attr(op, "auto_pad", "none")).lower()
    if auto in ("none", ""):
        pb = _int_list_attr(op, "pads_begin", n)
        pe = _int_list_attr(op, "pads_end", n)
    elif auto == "valid":
        pb, pe = [0] * n, [0] * n
    else:
        # same_*: dst = src * stride; the total padding comes from the output size
        pb, pe = [], []
        for i in range(n):
            total = max((kint[i] - 1) * dil[i] + 1 - strides[i] + out_pad[i], 0)
            small = total // 2
            pb.append(small if auto == "same_upper" else total - small)
            pe.append(total - pb[-1])
    pads = []
    spatial: list[int | None] = []
    for i in range(n):
        span = (kint[i] - 1) * dil[i]
        pads.append((span - pb[i], span - pe[i] + out_pad[i]))
        size = xn.shape[2 + i]
        spatial.append(
            None
            if size is None
            else (size - 1) * strides[i] + span + 1 - pb[i] - pe[i] + out_pad[i]
        )
    if any(a < 0 or b < 0 for a, b in pads):
        raise op.error("pads larger than the dilated kernel are not supported")
    shape = (xn.shape[0], o_total, *spatial)
    # a forward convolution of the stride-dilated input with the flipped kernel
    y = _conv_text(em, xn, w, shape, [1] * n, pads, strides, dil, groups)
    if len(ins) == 3:
        y = em.binary("add", y, _along(em, ins[2], y, 1))
    return [_from_ncx(em, y, nxc)]


def _reduce_window(
    em: Emitter,
    x: Value,
    body: str,
    init: float,
    window: Sequence[int],
    strides: Sequence[int],
    dil: Sequence[int],
    pads: Sequence[tuple[int, int]],
    shape: Sequence[int | None],
) -> Value:
    r = x.rank
    scalar = f"tensor<{x.element}>"
    init_v = em.scalar(init, x.element)
    name = em.fresh()
    a, b, c = em.fresh(), em.fresh(), em.fresh()
    pad_text = "[" + ", ".join(f"[{p}, {q}]" for p, q in pads) + "]"
    em.emit(
        f'{name} = "mhlo.reduce_window"({x.name}, {init_v.name}) ({{\n'
        f"  ^bb0({a}: {scalar}, {b}: {scalar}):\n"
        f"    {c} = mhlo.{body} {a}, {b} : {scalar}\n"
        f'    "mhlo.return"({c}) : ({scalar}) -> ()\n'
        f"  }}) {{padding = dense<{pad_text}> : tensor<{r}x2xi64>, "
        f"window_dilations = dense<{list(dil)}> : tensor<{r}xi64>, "
        f"window_dimensions = dense<{list(window)}> : tensor<{r}xi64>, "
        f"window_strides = dense<{list(strides)}> : tensor<{r}xi64>}} : "
        f"({x.type}, {scalar}) -> {tensor_type(shape, x.element)}"
    )
    return Value(name, tuple(shape), x.element)


@handler("MaxPool", "AvgPool")
def _lower_pool(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    _arity(op, ins, 1)
    x = ins[0]
    _float(op, x)
    if x.rank < 3:
        raise op.error(f"needs a src of rank >= 3, got {x.rank}")
    n = x.rank - 2
    xn, nxc = _to_ncx(em, op, x)
    kernel = _int_list_attr(op, "kernel", n)
    strides = _int_list_attr(op, "strides", n)
    dil = _int_list_attr(op, "dilations", n, 1) if op.kind == "MaxPool" else [1] * n
    if op.kind == "MaxPool" and "dilations" not in op.attrs:
        dil = [1] * n
    pb, pe = _spatial_pads(op, xn.shape[2:], kernel, strides, dil)
    rounding = _attr(op, "rounding_type", "floor")
    if rounding not in ("floor", "ceil"):
        raise op.error(f"rounding_type {rounding!r} is not 'floor' or 'ceil'")
    ceil = rounding == "ceil"
    spatial = [
        _out_dim(xn.shape[2 + i], kernel[i], strides[i], dil[i], pb[i], pe[i], ceil)
        for i in range(n)
    ]
    # ceil rounding: grow the end padding so that floor gives the ceil size;
    # a negative end padding crops the input first
    pe_eff = []
    for i in range(n):
        size = xn.shape[2 + i]
        extra = 0
        if ceil and size is not None and spatial[i] is not None:
            need = (int(spatial[i] or 0) - 1) * strides[i] + (kernel[i] - 1) * dil[i] + 1
            extra = max(need - (size + pb[i] + pe[i]), 0)
        pe_eff.append(pe[i] + extra)
    crop = [max(-p, 0) for p in pe_eff]
    pb_eff = [max(p, 0) for p in pb]
    if any(p < 0 for p in pb):
        raise op.error(f"pads_begin {pb} has a negative entry")
    src = xn
    if any(crop):
        if not xn.static:
            raise op.error("a negative pads_end needs static spatial dims")
        limits = [int(d) for d in xn.shape if d is not None]
        for i in range(n):
            limits[2 + i] -= crop[i]
        src = em.op(
            f'"mhlo.slice"({xn.name}) {{limit_indices = dense<{limits}> : tensor<{xn.rank}xi64>, '
            f"start_indices = dense<0> : tensor<{xn.rank}xi64>, "
            f"strides = dense<1> : tensor<{xn.rank}xi64>}} : ({xn.type}) -> "
            f"{tensor_type(limits, xn.element)}",
            limits,
            xn.element,
        )
    pe_pos = [max(p, 0) for p in pe_eff]
    pads = [(0, 0), (0, 0), *zip(pb_eff, pe_pos, strict=True)]
    window = [1, 1, *kernel]
    wstrides = [1, 1, *strides]
    wdil = [1, 1, *dil]
    shape = (xn.shape[0], xn.shape[1], *spatial)
    if op.kind == "MaxPool":
        y = _reduce_window(em, src, "maximum", -math.inf, window, wstrides, wdil, pads, shape)
        return [_from_ncx(em, y, nxc)]
    total = _reduce_window(em, src, "add", 0.0, window, wstrides, wdil, pads, shape)
    exclude_pad = bool(_attr(op, "exclude_pad", required=True))
    if exclude_pad:
        ones = em.splat(1.0, src)
        count = _reduce_window(em, ones, "add", 0.0, window, wstrides, wdil, pads, shape)
        y = em.binary("divide", total, count)
    else:
        y = em.binary_scalar("divide", total, float(np.prod(kernel)))
    return [_from_ncx(em, y, nxc)]


# -- interpolate -----------------------------------------------------------


def _nearest_indices(out: int, size: int) -> np.ndarray:
    o = np.arange(out, dtype=np.float32)
    s = (o + np.float32(0.5)) * np.float32(size) / np.float32(out) - np.float32(0.5)
    idx = np.where(s >= 0, np.floor(s + 0.5), np.ceil(s - 0.5))  # roundf: half away from zero
    return np.clip(idx, 0, size - 1).astype(np.int32)


def _linear_coeffs(
    out: int, size: int, align_corners: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    o = np.arange(out, dtype=np.float32)
    if align_corners:
        s = (
            np.zeros(out, np.float32)
            if out == 1
            else o * np.float32(size - 1) / np.float32(out - 1)
        )
    else:
        s = (o + np.float32(0.5)) * np.float32(size) / np.float32(out) - np.float32(0.5)
    left = np.clip(np.floor(s), 0, size - 1).astype(np.int32)
    right = np.where(s < 0, 0, np.where(np.floor(s) == s, s, np.floor(s) + 1))
    right = np.clip(right, 0, size - 1).astype(np.int32)
    w = np.abs(s - np.trunc(s)).astype(np.float32)
    return left, right, w


def _resample_axis(em: Emitter, x: Value, axis: int, matrix: np.ndarray) -> Value:
    """`x` with dimension `axis` mapped through `matrix` [out, in]: out[o] = sum_i m[o, i] x[i]."""
    m = em.array(matrix.astype(np.float32), x.element)
    out = int(matrix.shape[0])
    rest = [d for i, d in enumerate(x.shape) if i != axis]
    dn = f"#mhlo.dot<lhs_contracting_dimensions = [{axis}], rhs_contracting_dimensions = [1]>"
    y = em.op(
        f'"mhlo.dot_general"({x.name}, {m.name}) {{dot_dimension_numbers = {dn}}} : '
        f"({x.type}, {m.type}) -> {tensor_type([*rest, out], x.element)}",
        [*rest, out],
        x.element,
    )
    r = x.rank
    perm = [*range(axis), r - 1, *range(axis, r - 1)]
    return em.transpose(y, perm)


@handler("Interpolate")
def _lower_interpolate(em: Emitter, op: Op, ins: list[Value]) -> list[Value]:
    if len(ins) == 2:
        raise op.error(
            "sizes given as an input tensor are not supported: use the 'sizes' attribute"
        )
    _arity(op, ins, 1)
    x = ins[0]
    _float(op, x)
    if x.rank < 3:
        raise op.error(f"needs a src of rank >= 3, got {x.rank}")
    n = x.rank - 2
    mode = _attr(op, "mode", required=True)
    if mode not in ("nearest", "linear", "bilinear", "trilinear"):
        raise op.error(f"mode {mode!r} is not nearest, linear, bilinear or trilinear")
    ctm = _attr(op, "coordinate_transformation_mode", "half_pixel")
    if ctm not in ("half_pixel", "align_corners"):
        raise op.error(f"coordinate_transformation_mode {ctm!r} is not half_pixel or align_corners")
    axis_c = _channel_axis(op, x.rank)
    spatial_axes = [i for i in range(1, x.rank) if i != axis_c]
    in_sizes = [x.shape[a] for a in spatial_axes]
    if any(s is None for s in in_sizes):
        raise op.error("needs static spatial dims")
    sizes = _attr(op, "sizes")
    out_decl = op.outputs[0].shape if op.outputs else ()
    if sizes:
        if len(sizes) != n:
            raise op.error(f"sizes must have {n} entries, got {sizes}")
        out_sizes = [int(s) for s in sizes]
    elif _attr(op, "scales"):
        scales = list(_attr(op, "scales"))
        if len(scales) != n:
            raise op.error(f"scales must have {n} entries, got {scales}")
        out_sizes = [
            int(math.floor(int(s or 0) * sc)) for s, sc in zip(in_sizes, scales, strict=True)
        ]
        if len(out_decl) == x.rank and all(out_decl[a] > 0 for a in spatial_axes):
            out_sizes = [out_decl[a] for a in spatial_axes]
    else:
        raise op.error("needs 'sizes' or 'scales'")
    y = x
    for a, size, out in zip(spatial_axes, in_sizes, out_sizes, strict=True):
        size = int(size or 0)
        if out <= 0:
            raise op.error(f"output size {out} is not positive")
        if mode == "nearest":
            if ctm == "align_corners":
                idx = (
                    np.zeros(out, np.int32)
                    if out == 1
                    else np.round(
                        np.arange(out, dtype=np.float32)
                        * np.float32(size - 1)
                        / np.float32(out - 1)
                    ).astype(np.int32)
                )
            else:
                idx = _nearest_indices(out, size)
            matrix = np.zeros((out, size), np.float32)
            matrix[np.arange(out), idx] = 1.0
        else:
            left, right, w = _linear_coeffs(out, size, ctm == "align_corners")
            matrix = np.zeros((out, size), np.float32)
            np.add.at(matrix, (np.arange(out), left), np.float32(1.0) - w)
            np.add.at(matrix, (np.arange(out), right), w)
        y = _resample_axis(em, y, a, matrix)
    return [y]


# -- the graph -------------------------------------------------------------


def _check_output(op: Op, t: LogicalTensor, v: Value) -> Value:
    if v.element != t.element:
        raise op.error(f"output logical tensor {t.id} is {t.dtype} but the op computes {v.element}")
    if len(t.shape) != v.rank:
        raise op.error(
            f"output logical tensor {t.id} has shape {list(t.shape)} but the op computes "
            f"{_fmt(v.shape)}"
        )
    for want, got in zip(t.shape, v.shape, strict=True):
        if want != -1 and got is not None and want != got:
            raise op.error(
                f"output logical tensor {t.id} has shape {list(t.shape)} but the op computes "
                f"{_fmt(v.shape)}"
            )
    return v


def lower_graph(graph: Graph) -> str:
    """The mhlo text of `graph`: `func.func @main(inputs by port) -> (outputs by port)`.

    Raises OneDnnGraphError naming the op for an unknown kind, missing or
    invalid attributes, inputs of the wrong count, or shapes that contradict
    the op's semantics.
    """
    em = Emitter()
    env: dict[int, Value] = {}
    args: list[Value] = []
    for i, t in enumerate(graph.inputs):
        v = Value(f"%arg{i}", tuple(None if d == -1 else d for d in t.shape), t.element)
        env[t.id] = v
        args.append(v)
    for op in graph.ops:
        fn = HANDLERS.get(op.kind)
        if fn is None:
            raise op.error(
                f"unknown or unsupported op kind {op.kind!r} "
                f"(supported: {', '.join(supported_op_kinds())})"
            )
        ins = [env[t.id] for t in op.inputs]
        for t, v in zip(op.inputs, ins, strict=True):
            if v.element != t.element:
                raise op.error(f"input logical tensor {t.id} is {t.dtype} but holds {v.element}")
        outs = fn(em, op, ins)
        if len(outs) < len(op.outputs):
            raise op.error(f"has {len(op.outputs)} outputs, the op computes {len(outs)}")
        for t, v in zip(op.outputs, outs, strict=False):
            env[t.id] = _check_output(op, t, v)
    results = []
    for t in graph.outputs:
        v = env[t.id]
        want = tuple(None if d == -1 else d for d in t.shape)
        if v.shape != want and all(d is not None for d in want) and not v.static:
            v = em.reshape(v, [int(d) for d in want if d is not None])
        results.append(v)
    # an output that is an input unchanged still gets its own buffer
    for i, v in enumerate(results):
        if v.name.startswith("%arg") or v in results[:i]:
            results[i] = em.op(
                f'"mhlo.copy"({v.name}) : ({v.type}) -> {v.type}', v.shape, v.element
            )
    return em.function(args, results)


__all__ = ["HANDLERS", "dims_of", "lower_graph", "supported_op_kinds"]
