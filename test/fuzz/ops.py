"""The fuzzer's op table: every op a random graph may use, as JAX code plus a parameter sampler.

An `OpSpec` has a `family` (for the summary), a `propose(rng, ctx)` that picks
the op's operands among the values built so far (or asks `ctx` for a fresh
graph input of a given shape) and JSON-able parameters, or returns None when
the op does not apply; and an `apply(params, *operands)` that is plain
`jax.numpy`/`jax.lax` code. The generator checks each proposal with
`jax.eval_shape` at the symbolic shapes, so `propose` may be optimistic:
whatever JAX rejects is dropped, and only valid graphs are built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

FLOATS = ("float32", "float16", "bfloat16")
INTS = ("int32", "int8", "uint8")
DTYPES = FLOATS + INTS + ("bool",)

Params = dict[str, Any]


class Context(Protocol):
    """What `propose` sees: the values built so far and a way to add a graph input."""

    def avals(self) -> Sequence[Any]: ...

    def new_input(self, shape: Sequence[Any], dtype: str) -> int: ...


@dataclass(frozen=True)
class OpSpec:
    name: str
    family: str
    propose: Callable[[np.random.Generator, Context], tuple[list[int], Params] | None]
    apply: Callable[..., Any]


def dtype_name(aval: Any) -> str:
    return jnp.dtype(aval.dtype).name


def is_float(aval: Any) -> bool:
    return dtype_name(aval) in FLOATS


def is_int(aval: Any) -> bool:
    return dtype_name(aval) in INTS


def _pick(rng: np.random.Generator, ctx: Context, accept: Callable[[Any], bool]) -> int | None:
    """A random value index whose aval `accept`s, preferring recent values."""
    avals = ctx.avals()
    choices = [i for i, a in enumerate(avals) if accept(a)]
    if not choices:
        return None
    weights = np.arange(1, len(choices) + 1, dtype=np.float64)
    return int(rng.choice(choices, p=weights / weights.sum()))


def _static(dim: Any) -> bool:
    return isinstance(dim, int)


def _same_aval(ctx: Context, x: int, rng: np.random.Generator) -> int:
    """Another value of x's exact shape and dtype, or a fresh input of that aval."""
    avals = ctx.avals()
    ax = avals[x]
    same = [
        i
        for i, a in enumerate(avals)
        if i != x and a.dtype == ax.dtype and tuple(map(str, a.shape)) == tuple(map(str, ax.shape))
    ]
    if same and rng.random() < 0.6:
        return int(rng.choice(same))
    return ctx.new_input(ax.shape, dtype_name(ax))


# -- elementwise ----------------------------------------------------------------------------

_UNARY_FLOAT: dict[str, Callable[[Any], Any]] = {
    "neg": jnp.negative,
    "abs": jnp.abs,
    "exp": jnp.exp,
    "expm1": jnp.expm1,
    "log": jnp.log,
    "log1p": jnp.log1p,
    "sqrt": jnp.sqrt,
    "rsqrt": lax.rsqrt,
    "tanh": jnp.tanh,
    "sin": jnp.sin,
    "cos": jnp.cos,
    "sigmoid": jax.nn.sigmoid,
    "erf": jax.scipy.special.erf,
    "floor": jnp.floor,
    "ceil": jnp.ceil,
    "round": jnp.round,
    "sign": jnp.sign,
    "square": jnp.square,
    "reciprocal": jnp.reciprocal,
    "relu": jax.nn.relu,
    "gelu": jax.nn.gelu,
    "softplus": jax.nn.softplus,
    "isnan": jnp.isnan,
    "isfinite": jnp.isfinite,
}
_UNARY_INT: dict[str, Callable[[Any], Any]] = {
    "neg": jnp.negative,
    "abs": jnp.abs,
    "sign": jnp.sign,
    "invert": jnp.invert,
}
_BINARY_FLOAT: dict[str, Callable[[Any, Any], Any]] = {
    "add": jnp.add,
    "sub": jnp.subtract,
    "mul": jnp.multiply,
    "div": jnp.divide,
    "max": jnp.maximum,
    "min": jnp.minimum,
    "pow": jnp.power,
    "atan2": jnp.arctan2,
    "fmod": jnp.fmod,
    "remainder": jnp.remainder,
}
_BINARY_INT: dict[str, Callable[[Any, Any], Any]] = {
    "add": jnp.add,
    "sub": jnp.subtract,
    "mul": jnp.multiply,
    "floordiv": jnp.floor_divide,
    "remainder": jnp.remainder,
    "max": jnp.maximum,
    "min": jnp.minimum,
    "and": jnp.bitwise_and,
    "or": jnp.bitwise_or,
    "xor": jnp.bitwise_xor,
}
_BINARY_BOOL: dict[str, Callable[[Any, Any], Any]] = {
    "and": jnp.logical_and,
    "or": jnp.logical_or,
    "xor": jnp.logical_xor,
}
_COMPARE = {
    "lt": jnp.less,
    "le": jnp.less_equal,
    "eq": jnp.equal,
    "ne": jnp.not_equal,
    "gt": jnp.greater,
    "ge": jnp.greater_equal,
}


def _propose_unary(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: dtype_name(a) != "bool")
    if x is None:
        return None
    table = _UNARY_FLOAT if is_float(ctx.avals()[x]) else _UNARY_INT
    return [x], {"fn": str(rng.choice(sorted(table)))}


def _apply_unary(p: Params, x: Any) -> Any:
    table = _UNARY_FLOAT if jnp.issubdtype(x.dtype, jnp.floating) else _UNARY_INT
    return table[p["fn"]](x)


def _second_operand(rng: np.random.Generator, ctx: Context, x: int) -> tuple[list[int], Params]:
    """x's partner of a binary op: a same-shaped value/input, a broadcast suffix or a scalar."""
    ax = ctx.avals()[x]
    r = rng.random()
    if r < 0.55:
        return [x, _same_aval(ctx, x, rng)], {}
    if r < 0.75 and ax.ndim >= 1:
        # a rank-1 input along the last axis (numpy broadcasting), sometimes a size-1 dim
        last = ax.shape[-1] if rng.random() < 0.7 else 1
        return [x, ctx.new_input((last,), dtype_name(ax))], {}
    value = float(rng.choice([0.0, 1.0, -1.0, 0.5, 2.0, 3.0, -7.0]))
    return [x], {"scalar": value, "scalar_left": bool(rng.random() < 0.3)}


def _propose_binary(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: True)
    if x is None:
        return None
    name = dtype_name(ctx.avals()[x])
    table = _BINARY_FLOAT if name in FLOATS else _BINARY_BOOL if name == "bool" else _BINARY_INT
    args, params = _second_operand(rng, ctx, x)
    if name == "bool" and "scalar" in params:
        params["scalar"] = bool(params["scalar"])
    params["fn"] = str(rng.choice(sorted(table)))
    return args, params


def _binary_operands(p: Params, xs: Sequence[Any]) -> tuple[Any, Any]:
    if "scalar" in p:
        s = jnp.asarray(p["scalar"], xs[0].dtype)
        return (s, xs[0]) if p.get("scalar_left") else (xs[0], s)
    return xs[0], xs[1]


def _apply_binary(p: Params, *xs: Any) -> Any:
    a, b = _binary_operands(p, xs)
    if a.dtype == jnp.bool_:
        table: dict[str, Callable[[Any, Any], Any]] = _BINARY_BOOL
    elif jnp.issubdtype(a.dtype, jnp.floating):
        table = _BINARY_FLOAT
    else:
        table = _BINARY_INT
    return table[p["fn"]](a, b)


def _propose_compare(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: dtype_name(a) != "bool")
    if x is None:
        return None
    args, params = _second_operand(rng, ctx, x)
    params["fn"] = str(rng.choice(sorted(_COMPARE)))
    return args, params


def _apply_compare(p: Params, *xs: Any) -> Any:
    a, b = _binary_operands(p, xs)
    return _COMPARE[p["fn"]](a, b)


def _propose_select(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1)
    if x is None:
        return None
    ax = ctx.avals()[x]
    y = _same_aval(ctx, x, rng)
    # the predicate: x compared with a threshold (or x itself when boolean), or an iota mask
    return [x, y], {
        "pred": str(rng.choice(["sign", "iota"])),
        "k": int(rng.integers(0, 4)),
        "bool_x": dtype_name(ax) == "bool",
    }


def _apply_select(p: Params, x: Any, y: Any) -> Any:
    if p["pred"] == "iota":
        n = x.shape[-1]
        pred = lax.broadcasted_iota(jnp.int32, (n,), 0) < p["k"]
    elif p["bool_x"]:
        pred = x
    else:
        pred = x > jnp.asarray(0, x.dtype)
    return jnp.where(pred, x, y)


def _propose_clip(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: dtype_name(a) != "bool")
    if x is None:
        return None
    lo = int(rng.integers(-3, 1))
    return [x], {"lo": lo, "hi": lo + int(rng.integers(0, 5))}


def _apply_clip(p: Params, x: Any) -> Any:
    return jnp.clip(x, jnp.asarray(p["lo"], x.dtype), jnp.asarray(p["hi"], x.dtype))


def _propose_cast(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: True)
    if x is None:
        return None
    return [x], {"to": str(rng.choice(DTYPES))}


def _apply_cast(p: Params, x: Any) -> Any:
    """`astype`; a float -> integer cast first clips into the target's range (out-of-range
    conversions are implementation-defined in StableHLO: XLA's CPU backend wraps
    f32 -> ui8, disc-ir saturates)."""
    to = jnp.dtype(p["to"])
    if jnp.issubdtype(x.dtype, jnp.floating) and jnp.issubdtype(to, jnp.integer):
        info = jnp.iinfo(to)
        x = jnp.clip(x, max(float(info.min), -100.0), min(float(info.max), 100.0))
    return x.astype(to)


# -- reductions -----------------------------------------------------------------------------

_REDUCE = (
    "sum",
    "max",
    "min",
    "prod",
    "mean",
    "argmax",
    "argmin",
    "any",
    "all",
    "logsumexp",
    "softmax",
)


def _propose_reduce(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1)
    if x is None:
        return None
    ax = ctx.avals()[x]
    fn = str(rng.choice(_REDUCE))
    if dtype_name(ax) == "bool" and fn not in ("any", "all", "argmax", "argmin"):
        fn = str(rng.choice(["any", "all"]))
    if fn in ("logsumexp", "softmax", "mean") and not is_float(ax):
        fn = "sum"
    axis = int(rng.integers(0, ax.ndim))
    return [x], {"fn": fn, "axis": axis, "keepdims": bool(rng.random() < 0.3)}


def _apply_reduce(p: Params, x: Any) -> Any:
    fn, axis, keep = p["fn"], p["axis"], p["keepdims"]
    if fn == "softmax":
        return jax.nn.softmax(x, axis=axis)
    if fn == "logsumexp":
        return jax.nn.logsumexp(x, axis=axis, keepdims=keep)
    if fn in ("argmax", "argmin"):
        return getattr(jnp, fn)(x, axis=axis, keepdims=keep)
    return getattr(jnp, fn)(x, axis=axis, keepdims=keep)


# -- shape ops ------------------------------------------------------------------------------


def _propose_reshape(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1)
    if x is None:
        return None
    ax = ctx.avals()[x]
    kind = str(rng.choice(["flatten", "merge", "split", "expand", "squeeze"]))
    axis = int(rng.integers(0, ax.ndim))
    if kind == "squeeze":
        # chosen here, at the symbolic shape: at a concrete shape a symbol may be 1 too
        ones = [i for i, d in enumerate(ax.shape) if _static(d) and d == 1]
        if not ones:
            return None
        axis = ones[0]
    return [x], {"kind": kind, "axis": axis}


def _apply_reshape(p: Params, x: Any) -> Any:
    kind, axis, shape = p["kind"], p["axis"], list(x.shape)
    if kind == "flatten":
        return x.reshape(-1)
    if kind == "merge":
        if axis + 1 >= len(shape):
            raise ValueError("no axis to merge with")
        return x.reshape(shape[:axis] + [shape[axis] * shape[axis + 1]] + shape[axis + 2 :])
    if kind == "split":
        d = shape[axis]
        if not _static(d) or d % 2 or d < 2:
            raise ValueError("split needs an even static dim")
        return x.reshape(shape[:axis] + [2, d // 2] + shape[axis + 1 :])
    if kind == "expand":
        return jnp.expand_dims(x, axis)
    return jnp.squeeze(x, axis=axis)


def _propose_transpose(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 2)
    if x is None:
        return None
    return [x], {"perm": [int(i) for i in rng.permutation(ctx.avals()[x].ndim)]}


def _apply_transpose(p: Params, x: Any) -> Any:
    return jnp.transpose(x, p["perm"])


def _propose_broadcast(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim <= 3)
    if x is None:
        return None
    return [x], {"lead": int(rng.choice([1, 2, 3]))}


def _apply_broadcast(p: Params, x: Any) -> Any:
    return jnp.broadcast_to(x, (p["lead"],) + tuple(x.shape))


def _propose_slice(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1)
    if x is None:
        return None
    ax = ctx.avals()[x]
    axis = int(rng.integers(0, ax.ndim))
    d = ax.shape[axis]
    if _static(d):
        start = int(rng.integers(0, max(d, 1)))
        stop = int(rng.integers(start, d + 1))
        return [x], {
            "axis": axis,
            "start": start,
            "stop": stop,
            "step": int(rng.choice([1, 1, 2, 3])),
        }
    # a dynamic axis: drop a static count from either end, or stride over all of it
    kind = str(rng.choice(["head", "tail", "stride", "reverse"]))
    return [x], {"axis": axis, "kind": kind, "step": int(rng.choice([2, 3]))}


def _apply_slice(p: Params, x: Any) -> Any:
    axis = p["axis"]
    index: list[Any] = [slice(None)] * x.ndim
    if "start" in p:
        index[axis] = slice(p["start"], p["stop"], p["step"])
    elif p["kind"] == "head":
        index[axis] = slice(1, None)
    elif p["kind"] == "tail":
        index[axis] = slice(None, -1)
    elif p["kind"] == "stride":
        index[axis] = slice(None, None, p["step"])
    else:
        return jnp.flip(x, axis)
    return x[tuple(index)]


def _propose_pad(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1)
    if x is None:
        return None
    ndim = ctx.avals()[x].ndim
    config = [
        [int(rng.integers(-1, 3)), int(rng.integers(-1, 3)), int(rng.integers(0, 2))]
        for _ in range(ndim)
    ]
    return [x], {"config": config, "value": float(rng.choice([0.0, 1.0, -2.0]))}


def _apply_pad(p: Params, x: Any) -> Any:
    value = jnp.asarray(p["value"], x.dtype)
    return lax.pad(x, value, [tuple(c) for c in p["config"]])


def _propose_concat(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1)
    if x is None:
        return None
    ax = ctx.avals()[x]
    axis = int(rng.integers(0, ax.ndim))
    shape = list(ax.shape)
    if rng.random() < 0.5:
        shape[axis] = int(rng.integers(1, 4))
    y = ctx.new_input(shape, dtype_name(ax)) if rng.random() < 0.6 else x
    return [x, y], {"axis": axis}


def _apply_concat(p: Params, x: Any, y: Any) -> Any:
    return jnp.concatenate([x, y], axis=p["axis"])


def _propose_iota_mask(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 2)
    if x is None:
        return None
    return [x], {"kind": str(rng.choice(["tril", "triu"])), "k": int(rng.integers(-1, 2))}


def _apply_iota_mask(p: Params, x: Any) -> Any:
    return (jnp.tril if p["kind"] == "tril" else jnp.triu)(x, p["k"])


# -- gather / scatter -----------------------------------------------------------------------


def _index_input(rng: np.random.Generator, ctx: Context) -> int:
    """An int32 index vector: an existing one, or a fresh input of a static or dynamic length."""
    found = _pick(rng, ctx, lambda a: dtype_name(a) == "int32" and a.ndim == 1)
    if found is not None and rng.random() < 0.5:
        return found
    length: Any = int(rng.integers(1, 6))
    if rng.random() < 0.4:
        dynamic = [d for a in ctx.avals() for d in a.shape if not _static(d)]
        if dynamic:
            length = dynamic[int(rng.integers(0, len(dynamic)))]
    return ctx.new_input((length,), "int32")


def _propose_gather(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1)
    if x is None:
        return None
    axis = int(rng.integers(0, ctx.avals()[x].ndim))
    return [x, _index_input(rng, ctx)], {
        "axis": axis,
        "mode": str(rng.choice(["clip", "fill", "getitem"])),
    }


def _apply_gather(p: Params, x: Any, idx: Any) -> Any:
    if p["mode"] == "getitem":
        return jnp.moveaxis(x, p["axis"], 0)[idx]
    return jnp.take(x, idx, axis=p["axis"], mode=p["mode"])


def _propose_scatter(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1 and dtype_name(a) != "bool")
    if x is None:
        return None
    return [x, _index_input(rng, ctx)], {
        "kind": str(rng.choice(["set", "add", "max", "mul"])),
        "update": str(rng.choice(["scalar", "gathered"])),
    }


def _apply_scatter(p: Params, x: Any, idx: Any) -> Any:
    if p["update"] == "scalar":
        upd: Any = jnp.asarray(3, x.dtype)
    else:
        upd = x[idx] + jnp.asarray(1, x.dtype)
    return getattr(x.at[idx], p["kind"])(upd)


# -- contractions ---------------------------------------------------------------------------


def _propose_dot(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(
        rng,
        ctx,
        lambda a: 1 <= a.ndim <= 3 and dtype_name(a) in ("float32", "int32", "float16", "bfloat16"),
    )
    if x is None:
        return None
    ax = ctx.avals()[x]
    k = ax.shape[-1]
    n = int(rng.choice([1, 3, 8])) if rng.random() < 0.7 else None
    kind = (
        str(rng.choice(["matmul", "einsum_t", "batched"]))
        if ax.ndim == 3
        else str(rng.choice(["matmul", "einsum_t"]))
    )
    if kind == "batched":
        w = ctx.new_input((ax.shape[0], k, n or 4), dtype_name(ax))
    elif kind == "einsum_t":
        w = ctx.new_input((n or 5, k), dtype_name(ax))
    else:
        w = ctx.new_input((k,) if n is None else (k, n), dtype_name(ax))
    return [x, w], {"kind": kind}


def _apply_dot(p: Params, x: Any, w: Any) -> Any:
    if p["kind"] == "einsum_t":
        return jnp.einsum("...k,nk->...n", x, w)
    if p["kind"] == "batched":
        return jnp.einsum("bik,bkn->bin", x, w)
    return x @ w


def _propose_conv(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(
        rng, ctx, lambda a: a.ndim in (3, 4) and dtype_name(a) == "float32" and _static(a.shape[1])
    )
    if x is None:
        if rng.random() < 0.5:
            return None
        shape: list[Any] = [int(rng.integers(1, 3)), int(rng.integers(1, 4))]
        dynamic = [d for a in ctx.avals() for d in a.shape if not _static(d)]
        spatial = dynamic[0] if dynamic else 6
        shape += [spatial] + ([int(rng.integers(3, 7))] if rng.random() < 0.5 else [])
        x = ctx.new_input(shape, "float32")
    ax = ctx.avals()[x]
    spatial_rank = ax.ndim - 2
    ksize = [int(rng.integers(1, 4)) for _ in range(spatial_rank)]
    groups = 1
    cin = ax.shape[1]
    cout = int(rng.integers(1, 5))
    if cin % 2 == 0 and rng.random() < 0.3:
        groups, cout = 2, 2 * int(rng.integers(1, 3))
    w = ctx.new_input([cout, cin // groups] + ksize, "float32")
    return [x, w], {
        "stride": [int(rng.choice([1, 1, 2])) for _ in range(spatial_rank)],
        "padding": str(rng.choice(["SAME", "VALID"])),
        "dilation": [int(rng.choice([1, 1, 2])) for _ in range(spatial_rank)],
        "groups": groups,
    }


def _apply_conv(p: Params, x: Any, w: Any) -> Any:
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=p["stride"],
        padding=p["padding"],
        rhs_dilation=p["dilation"],
        feature_group_count=p["groups"],
    )


# -- sort, windows, control flow -----------------------------------------------------------


def _propose_sort(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1 and dtype_name(a) != "bool")
    if x is None:
        return None
    return [x], {
        "axis": int(rng.integers(0, ctx.avals()[x].ndim)),
        "kind": str(rng.choice(["sort", "argsort", "desc"])),
    }


def _apply_sort(p: Params, x: Any) -> Any:
    if p["kind"] == "argsort":
        return jnp.argsort(x, axis=p["axis"])
    if p["kind"] == "desc":
        return jnp.sort(x, axis=p["axis"], descending=True)
    return jnp.sort(x, axis=p["axis"])


def _propose_window(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: a.ndim >= 1 and dtype_name(a) != "bool")
    if x is None:
        return None
    ax = ctx.avals()[x]
    axis = int(rng.integers(0, ax.ndim))
    kind = str(rng.choice(["cumsum", "cummax", "cumprod", "maxpool", "avgpool"]))
    return [x], {
        "kind": kind,
        "axis": axis,
        "window": int(rng.integers(1, 4)),
        "stride": int(rng.integers(1, 3)),
        "dilation": int(rng.integers(1, 3)),
        "padding": str(rng.choice(["SAME", "VALID"])),
    }


def _apply_window(p: Params, x: Any) -> Any:
    kind, axis = p["kind"], p["axis"]
    if kind == "cumsum":
        return jnp.cumsum(x, axis=axis)
    if kind == "cummax":
        return lax.cummax(x, axis=axis)
    if kind == "cumprod":
        return jnp.cumprod(x, axis=axis)
    dims = [1] * x.ndim
    strides = [1] * x.ndim
    dilations = [1] * x.ndim
    dims[axis], strides[axis] = p["window"], p["stride"]
    dilations[axis] = p.get("dilation", 1)
    if kind == "maxpool":
        init = jnp.asarray(
            -jnp.inf if jnp.issubdtype(x.dtype, jnp.floating) else jnp.iinfo(x.dtype).min, x.dtype
        )
        return lax.reduce_window(
            x, init, lax.max, dims, strides, p["padding"], window_dilation=dilations
        )
    if not jnp.issubdtype(x.dtype, jnp.floating):
        raise ValueError("avgpool is for floats")
    total = lax.reduce_window(
        x, jnp.asarray(0, x.dtype), lax.add, dims, strides, p["padding"], window_dilation=dilations
    )
    return total / jnp.asarray(p["window"], x.dtype)


def _propose_loop(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: dtype_name(a) == "float32")
    if x is None:
        return None
    return [x, _same_aval(ctx, x, rng)], {"trips": int(rng.integers(0, 4))}


def _apply_loop(p: Params, x: Any, y: Any) -> Any:
    def body(i: Any, carry: Any) -> Any:
        return jnp.sin(carry) * 0.5 + y * i.astype(carry.dtype)

    return lax.fori_loop(0, p["trips"], body, x)


def _propose_cond(rng: np.random.Generator, ctx: Context) -> tuple[list[int], Params] | None:
    x = _pick(rng, ctx, lambda a: dtype_name(a) == "float32" and a.ndim >= 1)
    if x is None:
        return None
    return [x], {"threshold": float(rng.choice([0.0, 1.0, -1.0]))}


def _apply_cond(p: Params, x: Any) -> Any:
    return lax.cond(
        jnp.sum(x) > p["threshold"], lambda v: jnp.exp(-v * v), lambda v: v * 2.0 - 1.0, x
    )


OPS: dict[str, OpSpec] = {
    spec.name: spec
    for spec in (
        OpSpec("unary", "elementwise", _propose_unary, _apply_unary),
        OpSpec("binary", "elementwise", _propose_binary, _apply_binary),
        OpSpec("clip", "elementwise", _propose_clip, _apply_clip),
        OpSpec("compare", "compare/select", _propose_compare, _apply_compare),
        OpSpec("select", "compare/select", _propose_select, _apply_select),
        OpSpec("cast", "cast", _propose_cast, _apply_cast),
        OpSpec("reduce", "reduce", _propose_reduce, _apply_reduce),
        OpSpec("reshape", "shape", _propose_reshape, _apply_reshape),
        OpSpec("transpose", "shape", _propose_transpose, _apply_transpose),
        OpSpec("broadcast", "shape", _propose_broadcast, _apply_broadcast),
        OpSpec("slice", "shape", _propose_slice, _apply_slice),
        OpSpec("pad", "shape", _propose_pad, _apply_pad),
        OpSpec("concat", "shape", _propose_concat, _apply_concat),
        OpSpec("iota_mask", "shape", _propose_iota_mask, _apply_iota_mask),
        OpSpec("gather", "gather/scatter", _propose_gather, _apply_gather),
        OpSpec("scatter", "gather/scatter", _propose_scatter, _apply_scatter),
        OpSpec("dot", "dot/conv", _propose_dot, _apply_dot),
        OpSpec("conv", "dot/conv", _propose_conv, _apply_conv),
        OpSpec("sort", "sort", _propose_sort, _apply_sort),
        OpSpec("window", "reduce_window", _propose_window, _apply_window),
        OpSpec("loop", "control flow", _propose_loop, _apply_loop),
        OpSpec("cond", "control flow", _propose_cond, _apply_cond),
    )
}

#: relative frequency of each op in a random graph
WEIGHTS: dict[str, float] = {
    "unary": 4,
    "binary": 4,
    "clip": 1,
    "compare": 1.5,
    "select": 1.5,
    "cast": 2.5,
    "reduce": 3,
    "reshape": 2,
    "transpose": 1.5,
    "broadcast": 1,
    "slice": 2,
    "pad": 1.5,
    "concat": 1.5,
    "iota_mask": 1,
    "gather": 2,
    "scatter": 2,
    "dot": 2,
    "conv": 1,
    "sort": 1.5,
    "window": 2,
    "loop": 0.7,
    "cond": 0.7,
}
