"""The fuzzer's tie-break: a graph evaluated op by op in float64, each result rounded to its type.

When disc-ir and XLA disagree on an output, `precise_outputs` gives a third
answer: every op runs eagerly (one XLA computation per op, so no fusion
changes its rounding) on float64 copies of its float operands, and its result
is rounded to the type the graph declares for it. That is the result of an
implementation that computes each op exactly and rounds once, the ideal each
real implementation approximates; reductions, cumulative windows and dots
have no evaluation order of their own in it. A convolution's zero padding is
materialized first, so a padding tap multiplies an infinite or NaN weight as
the StableHLO spec says (XLA's CPU convolution skips those taps); min/max
reductions, `cummax` and max pooling propagate NaN, as the spec's `minimum` and
`maximum` do (XLA's CPU reductions may drop it).

`is_ill_conditioned` says whether a few-ulp change of the float inputs, or an
ulp's difference in the result of an inexact op (a math function, a sum, a
dot), moves the precise outputs beyond the comparison's tolerance: there, the rounding
differences between any two correct implementations (a sum reassociated,
then a `remainder`, `floor` or `sign` of it) decide the answer, and a
disagreement says nothing about either. The runner then draws new inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .graph import Graph
from .ops import FLOATS, OPS

#: ulps of the lowest float precision in the graph that `is_ill_conditioned` moves inputs by
PERTURB_ULPS = 4.0


def _declared_dtype(value: dict[str, Any]) -> str:
    return value["input"]["dtype"] if "input" in value else value["dtype"]


def _widen(x: Any) -> Any:
    """A float operand as float64 (exact: every f32/f16/bf16 value is a float64)."""
    import jax.numpy as jnp

    array = np.asarray(x)
    if jnp.dtype(array.dtype).name in FLOATS:
        return jnp.asarray(array.astype(np.float64))
    return jnp.asarray(array)


def _round_to(x: Any, dtype: str) -> np.ndarray:
    """`x` rounded (to nearest, ties to even) to the declared dtype, on the host."""
    import jax.numpy as jnp

    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(x).astype(np.dtype(jnp.dtype(dtype)))


def _dot_from_zero_conv(params: dict[str, Any], x: Any, w: Any) -> Any:
    """A convolution's sums start at +0 too (see `_dot_from_zero`)."""
    out = _conv_with_explicit_padding(params, x, w)
    return out + np.asarray(0, out.dtype)


def _conv_with_explicit_padding(params: dict[str, Any], x: Any, w: Any) -> Any:
    """The fuzzer's convolution with its SAME padding written out as zeros."""
    from jax import lax

    from .ops import _apply_conv

    if params["padding"] != "SAME":
        return _apply_conv(params, x, w)
    spatial = x.shape[2:]
    window = [(k - 1) * d + 1 for k, d in zip(w.shape[2:], params["dilation"], strict=True)]
    pads = lax.padtype_to_pads(spatial, window, params["stride"], "SAME")
    padded = lax.pad(
        x, np.asarray(0, x.dtype), [(0, 0, 0), (0, 0, 0)] + [(lo, hi, 0) for lo, hi in pads]
    )
    return _apply_conv({**params, "padding": "VALID"}, padded, w)


def _nan_propagating_reduce(params: dict[str, Any], x: Any) -> Any:
    """min/max reductions as the spec's `minimum`/`maximum` (NaN in, NaN out), on the
    host: XLA's CPU reductions drop a NaN that meets a smaller (larger) value."""
    from .ops import _apply_reduce

    if params["fn"] not in ("min", "max") or not np.issubdtype(np.asarray(x).dtype, np.floating):
        return _apply_reduce(params, x)
    fn = np.min if params["fn"] == "min" else np.max
    return fn(np.asarray(x), axis=params["axis"], keepdims=params["keepdims"])


def _nan_propagating_window(params: dict[str, Any], x: Any) -> Any:
    """`cummax` and `maxpool` with NaN propagation (see `_nan_propagating_reduce`)."""
    from jax import lax

    from .ops import _apply_window

    array = np.asarray(x)
    kind, axis = params["kind"], params["axis"]
    if kind not in ("cummax", "maxpool") or not np.issubdtype(array.dtype, np.floating):
        return _apply_window(params, x)
    if kind == "cummax":
        return np.maximum.accumulate(array, axis=axis)
    window, stride = params["window"], params["stride"]
    ((lo, hi),) = lax.padtype_to_pads((array.shape[axis],), (window,), (stride,), params["padding"])
    widths = [(0, 0)] * array.ndim
    widths[axis] = (lo, hi)
    padded = np.pad(array, widths, constant_values=-np.inf)
    views = np.lib.stride_tricks.sliding_window_view(padded, window, axis=axis)
    taken = np.take(views, np.arange(0, views.shape[axis], stride), axis=axis)
    return np.max(taken, axis=-1)


def _dot_from_zero(params: dict[str, Any], x: Any, w: Any) -> Any:
    """The fuzzer's dot as a sum that starts at +0, as the spec's `dot_general`
    does (XLA's CPU dot starts at the first product: `-1 * 0` alone stays -0)."""
    from .ops import _apply_dot

    out = _apply_dot(params, x, w)
    return out + np.asarray(0, out.dtype) if np.issubdtype(out.dtype, np.floating) else out


_PRECISE_APPLY: dict[str, Callable[..., Any]] = {
    "dot": _dot_from_zero,
    "conv": _dot_from_zero_conv,
    "reduce": _nan_propagating_reduce,
    "window": _nan_propagating_window,
}


#: ops whose float results an implementation may round differently (within an ulp
#: or so: math functions, sums in another order, contractions); the others are exact
_INEXACT_UNARY = {
    "exp",
    "expm1",
    "log",
    "log1p",
    "rsqrt",
    "tanh",
    "sin",
    "cos",
    "sigmoid",
    "erf",
    "gelu",
    "softplus",
    "reciprocal",
}


def _staged_gelu(x: Any, dtype: str, nudge: np.random.Generator | None) -> Any:
    """jax's tanh-form gelu as the exported graph computes it: each step rounded to `dtype`.

    Evaluated whole in float64, `1 + tanh(y)` keeps digits that the graph's own `tanh`,
    rounded to `dtype`, loses to cancellation for x below about -5 (tanh rounds to -1,
    the result to 0); the staged form, with `tanh`'s result nudged, exposes that
    sensitivity to `is_ill_conditioned`."""

    def step(v: Any) -> Any:
        return _widen(_round_to(v, dtype))

    cube = step(step(x * x) * x)
    inner = step(step(np.sqrt(2 / np.pi)) * step(x + step(0.044715 * cube)))
    tanh = _round_to(np.tanh(np.asarray(inner)), dtype)
    if nudge is not None:
        tanh = _nudged(tanh, nudge)
    cdf = step(0.5 * step(1.0 + _widen(tanh)))
    return x * cdf


def _is_float_product(value: dict[str, Any]) -> bool:
    """A product of many floats (`prod`, `cumprod`): an intermediate product may
    overflow in one evaluation order and not in another (and times 0 give NaN)."""
    op, params = value["op"], value["params"]
    product = (op == "reduce" and params["fn"] == "prod") or (
        op == "window" and params["kind"] == "cumprod"
    )
    return product and _declared_dtype(value) in FLOATS


def _ordered_product(value: dict[str, Any], x: Any, order: tuple[str, bool]) -> Any:
    """`value`'s product computed one factor at a time in dtype `order[0]` (`declared`:
    the value's own), over the reduced axis forwards or (`order[1]`, a `prod` only)
    backwards. A `cumprod` runs forwards either way: a running product is linear in the
    axis length, each prefix multiplied from its last factor back would be quadratic
    (the fuzzer's axes reach 150,000 elements)."""
    import jax.numpy as jnp

    params = value["params"]
    axis = params["axis"]
    dtype, backwards = order
    if dtype == "declared":
        dtype = _declared_dtype(value)
    acc = np.asarray(x).astype(np.dtype(jnp.dtype(dtype)))
    with np.errstate(over="ignore", invalid="ignore"):
        if value["op"] == "reduce":
            factors = np.flip(acc, axis) if backwards else acc
            total = np.multiply.reduce(factors, axis=axis, keepdims=params["keepdims"])
            return _widen(total)
        return _widen(np.multiply.accumulate(acc, axis=axis))


#: the orders `is_ill_conditioned` also tries for float products: accumulated in
#: float32 (disc-ir's accumulator for f16 / bf16 products) or in the declared type
#: (what the spec's reduction computes; XLA's CPU scans of f16 overflow so), forwards
#: and (for `prod`) backwards
PRODUCT_ORDERS: tuple[tuple[str, bool], ...] = (
    ("float32", False),
    ("float32", True),
    ("declared", False),
    ("declared", True),
)


def _is_inexact(value: dict[str, Any]) -> bool:
    op, params = value["op"], value["params"]
    if op == "unary":
        return params["fn"] in _INEXACT_UNARY
    if op == "binary":
        return params["fn"] in ("div", "pow", "atan2", "add", "sub", "mul")
    if op == "reduce":
        return params["fn"] in ("sum", "prod", "mean", "logsumexp", "softmax")
    if op == "window":
        return params["kind"] in ("cumsum", "cumprod", "avgpool")
    return op in ("dot", "conv", "loop", "cond")


def _nudged(result: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`result` with each finite element moved by -1, 0 or +1 ulp of its type."""
    if result.dtype.kind != "f" and result.dtype.name != "bfloat16":
        return result
    steps = rng.integers(-1, 2, result.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        up = np.nextafter(result, np.asarray(np.inf, result.dtype))
        down = np.nextafter(result, np.asarray(-np.inf, result.dtype))
    moved = np.where(steps > 0, up, np.where(steps < 0, down, result))
    return np.where(np.isfinite(result), moved, result).astype(result.dtype)


def precise_outputs(
    graph: Graph,
    inputs: Sequence[np.ndarray],
    nudge: np.random.Generator | None = None,
    product_order: tuple[str, bool] | None = None,
) -> list[np.ndarray]:
    """The graph's outputs with each op computed in float64 and rounded to its declared type.

    `nudge`: move each inexact op's result by up to an ulp at random (what
    another faithful implementation of that op may return). `product_order`:
    compute float products one factor at a time in that order (`_ordered_product`)."""
    import jax

    with jax.enable_x64(True):
        it = iter(inputs)
        env: list[Any] = []
        rounded: list[np.ndarray] = []
        for value in graph.values:
            if "input" in value:
                result = np.asarray(next(it))
            else:
                args = [env[a] for a in value["args"]]
                dtype = _declared_dtype(value)
                if value["op"] == "unary" and value["params"]["fn"] == "gelu":
                    exact = _staged_gelu(args[0], dtype, nudge)
                elif product_order is not None and _is_float_product(value):
                    exact = _ordered_product(value, args[0], product_order)
                else:
                    exact = _PRECISE_APPLY.get(value["op"], OPS[value["op"]].apply)(
                        value["params"], *args
                    )
                result = _round_to(exact, dtype)
                if nudge is not None and _is_inexact(value):
                    result = _nudged(result, nudge)
            rounded.append(result)
            env.append(_widen(result))
        return [rounded[o] for o in graph.outputs]


def perturbed(
    inputs: Sequence[np.ndarray], ulps_of: str, rng: np.random.Generator
) -> list[np.ndarray]:
    """The inputs with every finite float element moved by up to `PERTURB_ULPS` ulps of the
    dtype `ulps_of` (relative), rounded back to the input's dtype."""
    import jax.numpy as jnp

    eps = float(jnp.finfo(jnp.dtype(ulps_of)).eps) * PERTURB_ULPS
    out = []
    for x in inputs:
        if jnp.dtype(x.dtype).name not in FLOATS or x.size == 0:
            out.append(x)
            continue
        wide = x.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            moved = wide * (1.0 + eps * rng.uniform(-1.0, 1.0, x.shape))
        moved = np.where(np.isfinite(wide), moved, wide)
        out.append(moved.astype(x.dtype))
    return out


def is_ill_conditioned(
    graph: Graph,
    inputs: Sequence[np.ndarray],
    precise: Sequence[np.ndarray],
    compare: Callable[[Any, Any, str | None], str | None],
    low_precision: str | None,
    seed: int,
    tries: int = 2,
) -> bool:
    """True when a few-ulp move of the inputs, an ulp's difference in what an inexact
    op returns, or another order of a float product's factors (`PRODUCT_ORDERS`)
    moves some precise output beyond tolerance."""
    if any("op" in v and _is_float_product(v) for v in graph.values):
        for order in PRODUCT_ORDERS:
            moved = precise_outputs(graph, inputs, product_order=order)
            for a, b in zip(moved, precise, strict=True):
                if compare(a, b, low_precision) is not None:
                    return True
    names = {_declared_dtype(v) for v in graph.values}
    ulps_of = next((n for n in ("bfloat16", "float16", "float32") if n in names), "float32")
    rng = np.random.default_rng(seed)
    for attempt in range(2 * tries):
        if attempt % 2:
            moved = precise_outputs(graph, inputs, nudge=rng)
        else:
            moved = precise_outputs(graph, perturbed(inputs, ulps_of, rng))
        for a, b in zip(moved, precise, strict=True):
            if compare(a, b, low_precision) is not None:
                return True
    return False


__all__ = ["PERTURB_ULPS", "is_ill_conditioned", "perturbed", "precise_outputs"]
