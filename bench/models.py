"""The benchmarked models: the zoo (test/models/zoo.py) plus what the bench adds.

`load_zoo()` imports test/models/zoo.py by path (the zoo is test code, not a
package). `bench_model(name)` returns a zoo `Model`; besides the zoo's models
the bench knows `bert_encoder_<N>` (N BERT-base layers stacked, each with its
own weights, built from the zoo's `bert_layer` / `bert_layer_torch`).
`numpy_fn(name)` is the numpy-eager twin of a model (numpy float32 ops, the
"numpy eager" system of the bench), or None. `stablehlo_text(model, ...)` is
the model exported by `jax.export` (static at given sizes, or
shape-polymorphic over the model's dynamic axes): the source that disc-ir and
IREE compile. `fallback_graph(name)` is the hand-written dynamic MHLO of a
memory-bound graph in bench/graphs/ (used by disc-ir when jax is absent or its
export does not compile).

Nothing here imports jax or torch at import time.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
ZOO_PATH = ROOT / "test" / "models" / "zoo.py"
GRAPHS = Path(__file__).resolve().parent / "graphs"
ENCODER_PREFIX = "bert_encoder_"


@functools.cache
def load_zoo() -> ModuleType:
    """test/models/zoo.py as a module (registered as `zoo` in sys.modules)."""
    if "zoo" in sys.modules and getattr(sys.modules["zoo"], "__file__", None) == str(ZOO_PATH):
        return sys.modules["zoo"]
    spec = importlib.util.spec_from_file_location("zoo", ZOO_PATH)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the model zoo from {ZOO_PATH}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["zoo"] = module
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------
# The stacked BERT encoder
# ---------------------------------------------------------------------------

#: per-layer arguments of zoo.bert_layer after (x, mask)
_LAYER_WEIGHTS = 16


def _encoder_fn(layers: int, layer: Callable[..., Any]) -> Callable[..., Any]:
    def encoder(x: Any, mask: Any, *weights: Any) -> Any:
        for i in range(layers):
            x = layer(x, mask, *weights[i * _LAYER_WEIGHTS : (i + 1) * _LAYER_WEIGHTS])
        return x

    encoder.__name__ = f"bert_encoder_{layers}"
    return encoder


@functools.cache
def bert_encoder(layers: int) -> Any:
    """A zoo `Model` of `layers` stacked BERT-base layers (weights are arguments)."""
    zoo = load_zoo()
    base = zoo.get("bert_layer")
    x, mask, *weights = base.args
    args = [x, mask]
    for i in range(layers):
        args += [zoo.Arg(f"l{i}_{a.name}", a.dims, a.init, a.dtype) for a in weights]
    torch_fn = _encoder_fn(layers, base.torch_fn) if base.torch_fn is not None else None
    return zoo.Model(
        f"{ENCODER_PREFIX}{layers}",
        _encoder_fn(layers, base.fn),
        tuple(args),
        dict(base.sizes),
        base.dynamic,
        base.test_sizes,
        torch_fn=torch_fn,
        flops_fn=lambda s: layers * base.flops_fn(s) if base.flops_fn else None,
        description=f"{layers} BERT-base encoder layers",
    )


def bench_model(name: str) -> Any:
    """The zoo model `name`, or `bert_encoder_<N>`; KeyError for unknown names."""
    if name.startswith(ENCODER_PREFIX):
        return bert_encoder(int(name[len(ENCODER_PREFIX) :]))
    return load_zoo().get(name)


# ---------------------------------------------------------------------------
# numpy eager twins
# ---------------------------------------------------------------------------

F32 = np.float32


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz & Stegun 7.1.26 (absolute error <= 1.5e-7), numpy has no erf.
    s = np.sign(x)
    a = np.abs(x)
    t = F32(1.0) / (F32(1.0) + F32(0.3275911) * a)
    poly = t * (
        F32(0.254829592)
        + t
        * (
            F32(-0.284496736)
            + t * (F32(1.421413741) + t * (F32(-1.453152027) + t * F32(1.061405429)))
        )
    )
    return s * (F32(1.0) - poly * np.exp(-a * a))


def _gelu_tanh(x: np.ndarray) -> np.ndarray:
    c = F32(math.sqrt(2.0 / math.pi))
    return F32(0.5) * x * (F32(1.0) + np.tanh(c * (x + F32(0.044715) * x * x * x)))


def _gelu_erf(x: np.ndarray) -> np.ndarray:
    return F32(0.5) * x * (F32(1.0) + _erf(x * F32(1.0 / math.sqrt(2.0))))


def _layernorm(x: np.ndarray, g: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    c = x - mean
    var = (c * c).mean(-1, keepdims=True)
    return c * (F32(1.0) / np.sqrt(var + F32(eps))) * g + b


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _attention(q: np.ndarray, k: np.ndarray, v: np.ndarray, heads: int, bias: np.ndarray):
    b, s, h = q.shape
    d = h // heads

    def split(t: np.ndarray) -> np.ndarray:
        return t.reshape(b, s, heads, d).transpose(0, 2, 1, 3)

    scores = split(q) @ split(k).transpose(0, 1, 3, 2) * F32(1.0 / math.sqrt(d))
    ctx = _softmax(scores + bias) @ split(v)
    return ctx.transpose(0, 2, 1, 3).reshape(b, s, h)


def np_mlp(x, w1, b1, w2, b2):  # noqa: ANN001, ANN201
    return _gelu_tanh(x @ w1 + b1) @ w2 + b2


def np_bert_layer(x, mask, wq, bq, wk, bk, wv, bv, wo, bo, g1, be1, w1, b1, w2, b2, g2, be2):  # noqa: ANN001, ANN201
    eps = load_zoo().BERT_EPS
    heads = wq.shape[1] // 64
    bias = ((F32(1.0) - mask) * F32(-10000.0))[:, None, None, :]
    ctx = _attention(x @ wq + bq, x @ wk + bk, x @ wv + bv, heads, bias)
    h = _layernorm(ctx @ wo + bo + x, g1, be1, eps)
    return _layernorm(_gelu_erf(h @ w1 + b1) @ w2 + b2 + h, g2, be2, eps)


def np_gpt2_block(x, g1, be1, w_qkv, b_qkv, w_proj, b_proj, g2, be2, w_fc, b_fc, w_out, b_out):  # noqa: ANN001, ANN201
    eps = load_zoo().GPT2_EPS
    hidden, seq = x.shape[-1], x.shape[1]
    qkv = _layernorm(x, g1, be1, eps) @ w_qkv + b_qkv
    q, k, v = qkv[..., :hidden], qkv[..., hidden : 2 * hidden], qkv[..., 2 * hidden :]
    causal = np.where(np.arange(seq)[None, :] <= np.arange(seq)[:, None], 0.0, -1e9).astype(F32)
    x = x + _attention(q, k, v, hidden // 64, causal) @ w_proj + b_proj
    return x + _gelu_tanh(_layernorm(x, g2, be2, eps) @ w_fc + b_fc) @ w_out + b_out


def np_layernorm_gelu(x, g, b):  # noqa: ANN001, ANN201
    return _gelu_tanh(_layernorm(x, g, b, load_zoo().LN_EPS))


def np_bias_gelu(x, bias):  # noqa: ANN001, ANN201
    return _gelu_tanh(x + bias)


def np_residual_layernorm(x, r, g, b):  # noqa: ANN001, ANN201
    return _layernorm(x + r, g, b, load_zoo().LN_EPS)


def np_rmsnorm_swiglu(x, g, w_gate, w_up, w_down):  # noqa: ANN001, ANN201
    eps = load_zoo().RMS_EPS
    h = x * (F32(1.0) / np.sqrt((x * x).mean(-1, keepdims=True) + F32(eps))) * g
    gate = h @ w_gate
    return x + (gate / (F32(1.0) + np.exp(-gate)) * (h @ w_up)) @ w_down


def _conv_nchw(x: np.ndarray, k: np.ndarray, stride: int) -> np.ndarray:
    """3x3 'SAME' convolution (XLA's padding: the extra row/column at the end)."""
    n, c, hh, ww = x.shape
    kh, kw = k.shape[2:]
    out_h, out_w = -(-hh // stride), -(-ww // stride)
    pad_h = max((out_h - 1) * stride + kh - hh, 0)
    pad_w = max((out_w - 1) * stride + kw - ww, 0)
    xp = np.pad(
        x, ((0, 0), (0, 0), (pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2))
    )
    win = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(2, 3))
    win = win[:, :, ::stride, ::stride][:, :, :out_h, :out_w]
    return np.einsum("nchwij,ocij->nohw", win, k, optimize=True).astype(F32)


def np_convnet(x, k1, c1, k2, c2, w, b):  # noqa: ANN001, ANN201
    h = np.maximum(_conv_nchw(x, k1, 1) + c1[None, :, None, None], F32(0.0))
    h = np.maximum(_conv_nchw(h, k2, 2) + c2[None, :, None, None], F32(0.0))
    return h.mean(axis=(2, 3)) @ w + b


NUMPY_TWINS: dict[str, Callable[..., Any]] = {
    "mlp": np_mlp,
    "bert_layer": np_bert_layer,
    "gpt2_block": np_gpt2_block,
    "softmax": _softmax,
    "layernorm_gelu": np_layernorm_gelu,
    "bias_gelu": np_bias_gelu,
    "residual_layernorm": np_residual_layernorm,
    "rmsnorm_swiglu": np_rmsnorm_swiglu,
    "convnet": np_convnet,
}


def numpy_fn(name: str) -> Callable[..., Any] | None:
    """The numpy-eager twin of model `name` (same argument order), or None."""
    if name.startswith(ENCODER_PREFIX):
        return _encoder_fn(int(name[len(ENCODER_PREFIX) :]), np_bert_layer)
    return NUMPY_TWINS.get(name)


# ---------------------------------------------------------------------------
# Sources: jax exports and the hand-written MHLO graphs
# ---------------------------------------------------------------------------


def stablehlo_text(model: Any, sizes: dict[str, int] | None, *, dynamic: bool) -> str:
    """The model exported by `jax.export` as StableHLO text.

    `dynamic`: shape-polymorphic over `model.dynamic_axes` (one symbol per
    size name, shared between arguments); otherwise static at `sizes`.
    Raises ImportError without jax.
    """
    import jax
    from jax import export

    shapes = model.shapes(sizes)
    dtypes = [np.dtype(a.dtype) for a in model.args]
    if dynamic:
        axes = model.dynamic_axes
        names = sorted({s for per_arg in axes.values() for s in per_arg.values()})
        symbols = (
            dict(zip(names, export.symbolic_shape(", ".join(names)), strict=True)) if names else {}
        )
        shapes = [
            tuple(
                symbols[axes[i][ax]] if ax in axes.get(i, {}) else d for ax, d in enumerate(shape)
            )
            for i, shape in enumerate(shapes)
        ]
    specs = [jax.ShapeDtypeStruct(s, d) for s, d in zip(shapes, dtypes, strict=True)]
    return export.export(jax.jit(model.fn))(*specs).mlir_module()


def fallback_graph(name: str) -> Path | None:
    """bench/graphs/<name>.mlir (hand-written dynamic MHLO) when it exists."""
    path = GRAPHS / f"{name}.mlir"
    return path if path.is_file() else None


def as_list(out: Any) -> list[np.ndarray]:
    """A model's output(s) as a list of numpy arrays."""
    if isinstance(out, (tuple, list)):
        return [np.asarray(o) for o in out]
    return [np.asarray(out)]
