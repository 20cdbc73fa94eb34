"""The model zoo: small JAX models the tests and the benchmarks compile with disc-ir.

API (import by path, e.g. `importlib` on `test/models/zoo.py`, or
`sys.path.insert(0, "test/models"); import zoo`)::

    import zoo
    m = zoo.get("bert_layer")          # or zoo.MODELS["bert_layer"]; zoo.names()
    sizes = m.sizes_with(batch=2, seq=16)   # defaults filled in: {"batch": 2, "seq": 16, "hidden": 768, ...}
    args = m.make_args(sizes, seed=0)  # list[np.ndarray], one per argument (weights included)
    out = m.fn(*args)                  # the JAX function (needs jax); an array or a tuple of arrays
    m.dynamic_axes                     # {arg index: {axis: symbol}} for disc_ir.jax.compile / export
    m.shapes(sizes)                    # the argument shapes at `sizes`
    m.bytes_moved(sizes)               # bytes read + written once (memory-bound models), else None
    m.flops(sizes)                     # multiply-adds x 2 of the matmuls/convs (compute-bound), else None
    m.torch_fn                         # the same computation on torch tensors (same argument order), or None

A `Model` is plain data: `name`, `fn` (positional array arguments; weights are
arguments, never constants, so exported files stay small), `args` (one `Arg`
per argument: name, dims as size names or ints, dtype, initializer), the
default `sizes`, `dynamic` (the size names that are dynamic in the
shape-polymorphic export; every axis named by one of them is dynamic, and
axes named by the same size share one symbol, e.g. BERT's `batch` and `seq`
in both the hidden states and the attention mask), `test_sizes` (the 2-3 small
size sets the stored reference outputs were computed at; the first one is the
shape of the static export `<name>.mlir`) and `extra_sizes` (2 more sets the
tests check against JAX when it is installed, dynamic models only).

Inputs are generated from a seed (`numpy.random.default_rng(seed)`, argument
by argument in order), so only reference outputs are stored (`<name>.npz`, see
export_models.py). Weights are drawn with a 1/sqrt(fan_in) scale, so
activations stay O(1) through the layers.

Models: mlp, bert_layer, gpt2_block, softmax, layernorm_gelu, bias_gelu,
residual_layernorm, rmsnorm_swiglu, convnet.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Sizes = dict[str, int]

#: seed of the stored reference inputs
SEED = 0


@dataclass(frozen=True)
class Arg:
    """One argument of a model.

    `dims`: the size name (a key of the model's sizes) or a fixed int per axis.
    `init`: `normal` (N(0, 1)), `weight` (N(0, 1/fan_in), fan_in = dims[0] or
    the product of all but the first axis for conv kernels: `conv_weight`),
    `bias` (N(0, 0.02)), `gamma` (1 + N(0, 0.1)), `beta` (N(0, 0.1)),
    `mask` (1.0 for the first tokens of each row, 0.0 for a padded tail).
    """

    name: str
    dims: tuple[str | int, ...]
    init: str = "normal"
    dtype: str = "float32"


@dataclass(frozen=True)
class Model:
    """A zoo model: a JAX function, its arguments and sizes (see the module docstring)."""

    name: str
    fn: Callable[..., Any]
    args: tuple[Arg, ...]
    sizes: Sizes
    dynamic: tuple[str, ...]
    test_sizes: tuple[Sizes, ...]
    extra_sizes: tuple[Sizes, ...] = ()
    memory_bound: bool = False
    torch_fn: Callable[..., Any] | None = None
    flops_fn: Callable[[Sizes], int] | None = None
    description: str = ""
    #: output shapes/bytes at `sizes` are taken from the arguments: the output
    #: has the shape of the first argument unless `out_dims` says otherwise
    out_dims: tuple[tuple[str | int, ...], ...] | None = field(default=None)

    # -- sizes and shapes ---------------------------------------------------

    def sizes_with(self, **overrides: int) -> Sizes:
        """The default sizes with `overrides` applied (unknown names raise KeyError)."""
        for key in overrides:
            if key not in self.sizes:
                raise KeyError(
                    f"model '{self.name}' has no size '{key}' (sizes: {list(self.sizes)})"
                )
        return {**self.sizes, **overrides}

    def _full(self, sizes: Sizes | None) -> Sizes:
        return {**self.sizes, **(sizes or {})}

    def shapes(self, sizes: Sizes | None = None) -> list[tuple[int, ...]]:
        """The shape of every argument at `sizes` (defaults filled in)."""
        s = self._full(sizes)
        return [tuple(d if isinstance(d, int) else s[d] for d in a.dims) for a in self.args]

    def output_shapes(self, sizes: Sizes | None = None) -> list[tuple[int, ...]]:
        """The shape of every output at `sizes`."""
        s = self._full(sizes)
        dims = self.out_dims if self.out_dims is not None else (self.args[0].dims,)
        return [tuple(d if isinstance(d, int) else s[d] for d in o) for o in dims]

    @property
    def dynamic_axes(self) -> dict[int, dict[int, str]]:
        """`{arg index: {axis: symbol}}` of the shape-polymorphic export."""
        out: dict[int, dict[int, str]] = {}
        for i, a in enumerate(self.args):
            axes = {
                ax: d for ax, d in enumerate(a.dims) if isinstance(d, str) and d in self.dynamic
            }
            if axes:
                out[i] = axes
        return out

    # -- data -----------------------------------------------------------------

    def make_args(self, sizes: Sizes | None = None, seed: int = SEED) -> list[np.ndarray]:
        """Seeded inputs (weights included) at `sizes`, reproducible across runs."""
        gen = np.random.default_rng(seed)
        return [
            _init(gen, a, shape) for a, shape in zip(self.args, self.shapes(sizes), strict=True)
        ]

    # -- cost -------------------------------------------------------------------

    def bytes_moved(self, sizes: Sizes | None = None) -> int | None:
        """Bytes every argument read once plus every output written once (memory-bound models)."""
        if not self.memory_bound:
            return None
        total = 0
        for a, shape in zip(self.args, self.shapes(sizes), strict=True):
            total += math.prod(shape) * np.dtype(a.dtype).itemsize
        for shape in self.output_shapes(sizes):
            total += math.prod(shape) * 4
        return total

    def flops(self, sizes: Sizes | None = None) -> int | None:
        """2 x the multiply-adds of the matmuls and convolutions (compute-bound models)."""
        return self.flops_fn(self._full(sizes)) if self.flops_fn is not None else None


def _init(gen: np.random.Generator, a: Arg, shape: tuple[int, ...]) -> np.ndarray:
    dtype = np.dtype(a.dtype)
    if a.init == "normal":
        x = gen.standard_normal(shape)
    elif a.init == "weight":
        x = gen.standard_normal(shape) / math.sqrt(max(shape[0], 1))
    elif a.init == "conv_weight":
        x = gen.standard_normal(shape) / math.sqrt(max(math.prod(shape[1:]), 1))
    elif a.init == "bias":
        x = 0.02 * gen.standard_normal(shape)
    elif a.init == "gamma":
        x = 1.0 + 0.1 * gen.standard_normal(shape)
    elif a.init == "beta":
        x = 0.1 * gen.standard_normal(shape)
    elif a.init == "mask":
        # rows of 1s followed by a padded tail of 0s; at least one real token
        batch, seq = shape
        lengths = gen.integers(max(seq // 2, 1), seq + 1, size=batch)
        x = (np.arange(seq)[None, :] < lengths[:, None]).astype(np.float64)
    else:
        raise ValueError(f"unknown initializer '{a.init}' for argument '{a.name}'")
    return np.asarray(x, dtype=dtype)


# ---------------------------------------------------------------------------
# Building blocks (jax imported lazily: importing the zoo never needs it)
# ---------------------------------------------------------------------------


def _jnp() -> Any:
    import jax.numpy as jnp

    return jnp


def _gelu_tanh(x: Any) -> Any:
    jnp = _jnp()
    return 0.5 * x * (1.0 + jnp.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)))


def _gelu_erf(x: Any) -> Any:
    import jax

    return 0.5 * x * (1.0 + jax.lax.erf(x * (1.0 / math.sqrt(2.0))))


def _layernorm(x: Any, gamma: Any, beta: Any, eps: float) -> Any:
    jnp = _jnp()
    mean = jnp.mean(x, axis=-1, keepdims=True)
    centered = x - mean
    var = jnp.mean(centered * centered, axis=-1, keepdims=True)
    return centered * (1.0 / jnp.sqrt(var + eps)) * gamma + beta


def _softmax(x: Any) -> Any:
    jnp = _jnp()
    m = jnp.max(x, axis=-1, keepdims=True)
    e = jnp.exp(x - m)
    return e / jnp.sum(e, axis=-1, keepdims=True)


def _attention(q: Any, k: Any, v: Any, heads: int, bias: Any) -> Any:
    """Multi-head attention of (B, S, H) projections; `bias` broadcasts to (B, heads, S, S)."""
    jnp = _jnp()
    b, s, h = q.shape
    d = h // heads

    def split(t: Any) -> Any:
        return t.reshape(b, s, heads, d).transpose(0, 2, 1, 3)

    scores = jnp.einsum("bhqd,bhkd->bhqk", split(q), split(k)) * (1.0 / math.sqrt(d))
    probs = _softmax(scores + bias)
    ctx = jnp.einsum("bhqk,bhkd->bhqd", probs, split(v))
    return ctx.transpose(0, 2, 1, 3).reshape(b, s, h)


def _torch() -> Any:
    import torch

    return torch


def _t_gelu_tanh(x: Any) -> Any:
    return _torch().nn.functional.gelu(x, approximate="tanh")


def _t_gelu_erf(x: Any) -> Any:
    return _torch().nn.functional.gelu(x)


def _t_layernorm(x: Any, gamma: Any, beta: Any, eps: float) -> Any:
    return _torch().nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, eps)


def _t_attention(q: Any, k: Any, v: Any, heads: int, bias: Any) -> Any:
    torch = _torch()
    b, s, h = q.shape
    d = h // heads

    def split(t: Any) -> Any:
        return t.reshape(b, s, heads, d).transpose(1, 2)

    scores = split(q) @ split(k).transpose(-1, -2) * (1.0 / math.sqrt(d))
    probs = torch.softmax(scores + bias, dim=-1)
    return (probs @ split(v)).transpose(1, 2).reshape(b, s, h)


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


def mlp(x: Any, w1: Any, b1: Any, w2: Any, b2: Any) -> Any:
    """Two dense layers with a tanh-form gelu between them."""
    return _gelu_tanh(x @ w1 + b1) @ w2 + b2


def mlp_torch(x: Any, w1: Any, b1: Any, w2: Any, b2: Any) -> Any:
    return _t_gelu_tanh(x @ w1 + b1) @ w2 + b2


BERT_EPS = 1e-12


def bert_layer(
    x: Any,
    mask: Any,
    wq: Any,
    bq: Any,
    wk: Any,
    bk: Any,
    wv: Any,
    bv: Any,
    wo: Any,
    bo: Any,
    ln1_g: Any,
    ln1_b: Any,
    w1: Any,
    b1: Any,
    w2: Any,
    b2: Any,
    ln2_g: Any,
    ln2_b: Any,
) -> Any:
    """One BERT encoder layer (post-LN, erf gelu, additive -10000 attention-mask bias)."""
    heads = wq.shape[1] // 64
    bias = ((1.0 - mask) * -10000.0)[:, None, None, :]
    ctx = _attention(x @ wq + bq, x @ wk + bk, x @ wv + bv, heads, bias)
    h = _layernorm(ctx @ wo + bo + x, ln1_g, ln1_b, BERT_EPS)
    ffn = _gelu_erf(h @ w1 + b1) @ w2 + b2
    return _layernorm(ffn + h, ln2_g, ln2_b, BERT_EPS)


def bert_layer_torch(*args: Any) -> Any:
    x, mask, wq, bq, wk, bk, wv, bv, wo, bo, ln1_g, ln1_b, w1, b1, w2, b2, ln2_g, ln2_b = args
    heads = wq.shape[1] // 64
    bias = ((1.0 - mask) * -10000.0)[:, None, None, :]
    ctx = _t_attention(x @ wq + bq, x @ wk + bk, x @ wv + bv, heads, bias)
    h = _t_layernorm(ctx @ wo + bo + x, ln1_g, ln1_b, BERT_EPS)
    ffn = _t_gelu_erf(h @ w1 + b1) @ w2 + b2
    return _t_layernorm(ffn + h, ln2_g, ln2_b, BERT_EPS)


GPT2_EPS = 1e-5


def gpt2_block(
    x: Any,
    ln1_g: Any,
    ln1_b: Any,
    w_qkv: Any,
    b_qkv: Any,
    w_proj: Any,
    b_proj: Any,
    ln2_g: Any,
    ln2_b: Any,
    w_fc: Any,
    b_fc: Any,
    w_out: Any,
    b_out: Any,
) -> Any:
    """One GPT-2 block: pre-LN causal self-attention and a tanh-gelu MLP, both residual."""
    import jax

    jnp = _jnp()
    hidden = x.shape[-1]
    heads = hidden // 64
    seq = x.shape[1]
    qkv = _layernorm(x, ln1_g, ln1_b, GPT2_EPS) @ w_qkv + b_qkv
    q, k, v = (jax.lax.slice_in_dim(qkv, i * hidden, (i + 1) * hidden, axis=2) for i in range(3))
    rows = jnp.arange(seq)[:, None]
    cols = jnp.arange(seq)[None, :]
    causal = jnp.where(cols <= rows, 0.0, -1e9).astype(x.dtype)
    x = x + _attention(q, k, v, heads, causal) @ w_proj + b_proj
    h = _gelu_tanh(_layernorm(x, ln2_g, ln2_b, GPT2_EPS) @ w_fc + b_fc)
    return x + h @ w_out + b_out


def gpt2_block_torch(*args: Any) -> Any:
    x, ln1_g, ln1_b, w_qkv, b_qkv, w_proj, b_proj, ln2_g, ln2_b, w_fc, b_fc, w_out, b_out = args
    torch = _torch()
    hidden = x.shape[-1]
    seq = x.shape[1]
    qkv = _t_layernorm(x, ln1_g, ln1_b, GPT2_EPS) @ w_qkv + b_qkv
    q, k, v = qkv.split(hidden, dim=-1)
    rows = torch.arange(seq)[:, None]
    cols = torch.arange(seq)[None, :]
    causal = torch.where(cols <= rows, 0.0, -1e9).to(x.dtype)
    x = x + _t_attention(q, k, v, hidden // 64, causal) @ w_proj + b_proj
    h = _t_gelu_tanh(_t_layernorm(x, ln2_g, ln2_b, GPT2_EPS) @ w_fc + b_fc)
    return x + h @ w_out + b_out


def softmax(x: Any) -> Any:
    """Row softmax (max-subtracted) over the last axis."""
    return _softmax(x)


def softmax_torch(x: Any) -> Any:
    return _torch().softmax(x, dim=-1)


LN_EPS = 1e-5


def layernorm_gelu(x: Any, gamma: Any, beta: Any) -> Any:
    """Layer normalization over the last axis followed by a tanh-form gelu."""
    return _gelu_tanh(_layernorm(x, gamma, beta, LN_EPS))


def layernorm_gelu_torch(x: Any, gamma: Any, beta: Any) -> Any:
    return _t_gelu_tanh(_t_layernorm(x, gamma, beta, LN_EPS))


def bias_gelu(x: Any, bias: Any) -> Any:
    """A per-column bias add followed by a tanh-form gelu."""
    return _gelu_tanh(x + bias)


def bias_gelu_torch(x: Any, bias: Any) -> Any:
    return _t_gelu_tanh(x + bias)


def residual_layernorm(x: Any, residual: Any, gamma: Any, beta: Any) -> Any:
    """Layer normalization of `x + residual` over the last axis."""
    return _layernorm(x + residual, gamma, beta, LN_EPS)


def residual_layernorm_torch(x: Any, residual: Any, gamma: Any, beta: Any) -> Any:
    return _t_layernorm(x + residual, gamma, beta, LN_EPS)


RMS_EPS = 1e-6


def rmsnorm_swiglu(x: Any, g: Any, w_gate: Any, w_up: Any, w_down: Any) -> Any:
    """RMSNorm then a SwiGLU feed-forward (silu(h W_gate) * (h W_up)) W_down, plus the residual."""
    jnp = _jnp()
    h = x * (1.0 / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + RMS_EPS)) * g
    gate = h @ w_gate
    silu = gate * (1.0 / (1.0 + jnp.exp(-gate)))
    return x + (silu * (h @ w_up)) @ w_down


def rmsnorm_swiglu_torch(x: Any, g: Any, w_gate: Any, w_up: Any, w_down: Any) -> Any:
    torch = _torch()
    h = x * torch.rsqrt(torch.mean(x * x, dim=-1, keepdim=True) + RMS_EPS) * g
    return x + (torch.nn.functional.silu(h @ w_gate) * (h @ w_up)) @ w_down


def convnet(x: Any, k1: Any, c1: Any, k2: Any, c2: Any, w: Any, b: Any) -> Any:
    """NCHW: conv3x3(same)+bias+relu, conv3x3(stride 2, same)+bias+relu, global mean pool, dense."""
    import jax

    jnp = _jnp()
    dn = ("NCHW", "OIHW", "NCHW")
    h = jax.lax.conv_general_dilated(x, k1, (1, 1), "SAME", dimension_numbers=dn)
    h = jnp.maximum(h + c1[None, :, None, None], 0.0)
    h = jax.lax.conv_general_dilated(h, k2, (2, 2), "SAME", dimension_numbers=dn)
    h = jnp.maximum(h + c2[None, :, None, None], 0.0)
    return jnp.mean(h, axis=(2, 3)) @ w + b


def convnet_torch(x: Any, k1: Any, c1: Any, k2: Any, c2: Any, w: Any, b: Any) -> Any:
    torch = _torch()
    F = torch.nn.functional
    h = torch.relu(F.conv2d(x, k1, c1, padding=1))
    # "SAME" with stride 2 on an even size pads (0, 1): pad explicitly as XLA does
    pad_h = max((math.ceil(h.shape[2] / 2) - 1) * 2 + 3 - h.shape[2], 0)
    pad_w = max((math.ceil(h.shape[3] / 2) - 1) * 2 + 3 - h.shape[3], 0)
    h = F.pad(h, (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2))
    h = torch.relu(F.conv2d(h, k2, c2, stride=2))
    return h.mean(dim=(2, 3)) @ w + b


# ---------------------------------------------------------------------------
# The registry
# ---------------------------------------------------------------------------


def _transformer_flops(s: Sizes, qkv: int, ffn: int) -> int:
    t = s["batch"] * s["seq"]
    h = s["hidden"]
    dense = t * h * (qkv + h + 2 * ffn)
    attn = 2 * s["batch"] * s["seq"] * s["seq"] * h
    return 2 * (dense + attn)


def _conv_flops(s: Sizes) -> int:
    b, c, hw, f1, f2 = s["batch"], s["channels"], s["size"], s["filters1"], s["filters2"]
    half = (hw + 1) // 2
    return 2 * b * (hw * hw * f1 * c * 9 + half * half * f2 * f1 * 9 + f2 * s["classes"])


def _models() -> list[Model]:
    bert_args = (
        Arg("x", ("batch", "seq", "hidden")),
        Arg("mask", ("batch", "seq"), "mask"),
        Arg("wq", ("hidden", "hidden"), "weight"),
        Arg("bq", ("hidden",), "bias"),
        Arg("wk", ("hidden", "hidden"), "weight"),
        Arg("bk", ("hidden",), "bias"),
        Arg("wv", ("hidden", "hidden"), "weight"),
        Arg("bv", ("hidden",), "bias"),
        Arg("wo", ("hidden", "hidden"), "weight"),
        Arg("bo", ("hidden",), "bias"),
        Arg("ln1_g", ("hidden",), "gamma"),
        Arg("ln1_b", ("hidden",), "beta"),
        Arg("w1", ("hidden", "ffn"), "weight"),
        Arg("b1", ("ffn",), "bias"),
        Arg("w2", ("ffn", "hidden"), "weight"),
        Arg("b2", ("hidden",), "bias"),
        Arg("ln2_g", ("hidden",), "gamma"),
        Arg("ln2_b", ("hidden",), "beta"),
    )
    gpt2_args = (
        Arg("x", ("batch", "seq", "hidden")),
        Arg("ln1_g", ("hidden",), "gamma"),
        Arg("ln1_b", ("hidden",), "beta"),
        Arg("w_qkv", ("hidden", "qkv"), "weight"),
        Arg("b_qkv", ("qkv",), "bias"),
        Arg("w_proj", ("hidden", "hidden"), "weight"),
        Arg("b_proj", ("hidden",), "bias"),
        Arg("ln2_g", ("hidden",), "gamma"),
        Arg("ln2_b", ("hidden",), "beta"),
        Arg("w_fc", ("hidden", "ffn"), "weight"),
        Arg("b_fc", ("ffn",), "bias"),
        Arg("w_out", ("ffn", "hidden"), "weight"),
        Arg("b_out", ("hidden",), "bias"),
    )
    row = ("rows", "hidden")
    return [
        Model(
            "mlp",
            mlp,
            (
                Arg("x", ("batch", "d_in")),
                Arg("w1", ("d_in", "d_hidden"), "weight"),
                Arg("b1", ("d_hidden",), "bias"),
                Arg("w2", ("d_hidden", "d_out"), "weight"),
                Arg("b2", ("d_out",), "bias"),
            ),
            {"batch": 4, "d_in": 256, "d_hidden": 1024, "d_out": 256},
            ("batch",),
            ({"batch": 4}, {"batch": 1}, {"batch": 7}),
            ({"batch": 3}, {"batch": 33}),
            torch_fn=mlp_torch,
            flops_fn=lambda s: 2 * s["batch"] * s["d_hidden"] * (s["d_in"] + s["d_out"]),
            out_dims=(("batch", "d_out"),),
            description="2 dense layers + tanh gelu",
        ),
        Model(
            "bert_layer",
            bert_layer,
            bert_args,
            {"batch": 1, "seq": 16, "hidden": 768, "ffn": 3072},
            ("batch", "seq"),
            ({"batch": 1, "seq": 16}, {"batch": 2, "seq": 8}),
            ({"batch": 1, "seq": 13}, {"batch": 2, "seq": 24}),
            torch_fn=bert_layer_torch,
            flops_fn=lambda s: _transformer_flops(s, 3 * s["hidden"], s["ffn"]),
            description="BERT-base encoder layer: 12 heads, erf gelu, post-LN, attention mask",
        ),
        Model(
            "gpt2_block",
            gpt2_block,
            gpt2_args,
            {"batch": 1, "seq": 16, "hidden": 768, "qkv": 2304, "ffn": 3072},
            ("batch", "seq"),
            ({"batch": 1, "seq": 16}, {"batch": 2, "seq": 8}),
            ({"batch": 1, "seq": 11}, {"batch": 2, "seq": 20}),
            torch_fn=gpt2_block_torch,
            flops_fn=lambda s: _transformer_flops(s, s["qkv"], s["ffn"]),
            description="GPT-2 small block: pre-LN causal attention (iota mask), tanh gelu",
        ),
        Model(
            "softmax",
            softmax,
            (Arg("x", ("rows", "cols")),),
            {"rows": 64, "cols": 128},
            ("rows", "cols"),
            ({"rows": 32, "cols": 128}, {"rows": 3, "cols": 1000}, {"rows": 1, "cols": 7}),
            ({"rows": 17, "cols": 65}, {"rows": 256, "cols": 512}),
            memory_bound=True,
            torch_fn=softmax_torch,
            description="row softmax",
        ),
        Model(
            "layernorm_gelu",
            layernorm_gelu,
            (Arg("x", row), Arg("gamma", ("hidden",), "gamma"), Arg("beta", ("hidden",), "beta")),
            {"rows": 64, "hidden": 768},
            ("rows",),
            ({"rows": 16}, {"rows": 1}, {"rows": 5}),
            ({"rows": 3}, {"rows": 130}),
            memory_bound=True,
            torch_fn=layernorm_gelu_torch,
            description="layernorm + tanh gelu",
        ),
        Model(
            "bias_gelu",
            bias_gelu,
            (Arg("x", row), Arg("bias", ("hidden",), "bias")),
            {"rows": 64, "hidden": 3072},
            ("rows", "hidden"),
            ({"rows": 16, "hidden": 768}, {"rows": 1, "hidden": 5}, {"rows": 9, "hidden": 300}),
            ({"rows": 3, "hidden": 17}, {"rows": 128, "hidden": 1024}),
            memory_bound=True,
            torch_fn=bias_gelu_torch,
            description="bias add + tanh gelu",
        ),
        Model(
            "residual_layernorm",
            residual_layernorm,
            (
                Arg("x", row),
                Arg("residual", row),
                Arg("gamma", ("hidden",), "gamma"),
                Arg("beta", ("hidden",), "beta"),
            ),
            {"rows": 64, "hidden": 768},
            ("rows",),
            ({"rows": 16}, {"rows": 1}, {"rows": 5}),
            ({"rows": 3}, {"rows": 130}),
            memory_bound=True,
            torch_fn=residual_layernorm_torch,
            description="residual add + layernorm",
        ),
        Model(
            "rmsnorm_swiglu",
            rmsnorm_swiglu,
            (
                Arg("x", ("tokens", "hidden")),
                Arg("g", ("hidden",), "gamma"),
                Arg("w_gate", ("hidden", "ffn"), "weight"),
                Arg("w_up", ("hidden", "ffn"), "weight"),
                Arg("w_down", ("ffn", "hidden"), "weight"),
            ),
            {"tokens": 16, "hidden": 512, "ffn": 1376},
            ("tokens",),
            ({"tokens": 16}, {"tokens": 1}, {"tokens": 5}),
            ({"tokens": 3}, {"tokens": 40}),
            torch_fn=rmsnorm_swiglu_torch,
            flops_fn=lambda s: 6 * s["tokens"] * s["hidden"] * s["ffn"],
            description="RMSNorm + SwiGLU feed-forward with residual",
        ),
        Model(
            "convnet",
            convnet,
            (
                Arg("x", ("batch", "channels", "size", "size")),
                Arg("k1", ("filters1", "channels", 3, 3), "conv_weight"),
                Arg("c1", ("filters1",), "bias"),
                Arg("k2", ("filters2", "filters1", 3, 3), "conv_weight"),
                Arg("c2", ("filters2",), "bias"),
                Arg("w", ("filters2", "classes"), "weight"),
                Arg("b", ("classes",), "bias"),
            ),
            {"batch": 2, "channels": 3, "size": 16, "filters1": 8, "filters2": 16, "classes": 10},
            ("batch",),
            ({"batch": 2}, {"batch": 1}, {"batch": 3}),
            ({"batch": 4}, {"batch": 5}),
            torch_fn=convnet_torch,
            flops_fn=_conv_flops,
            out_dims=(("batch", "classes"),),
            description="2 conv3x3 + relu, global mean pool, dense (NCHW)",
        ),
    ]


MODELS: dict[str, Model] = {m.name: m for m in _models()}


def names() -> list[str]:
    """The zoo's model names, in a stable order."""
    return list(MODELS)


def get(name: str) -> Model:
    """The model `name`; KeyError naming the known models otherwise."""
    try:
        return MODELS[name]
    except KeyError:
        raise KeyError(f"no zoo model '{name}' (models: {', '.join(MODELS)})") from None


def size_tag(sizes: Sizes, keys: Sequence[str]) -> str:
    """A short name for `sizes` restricted to `keys`, e.g. `batch2_seq8`."""
    return "_".join(f"{k}{sizes[k]}" for k in keys)
