"""Regenerate the StableHLO fixtures of test_stablehlo_frontend.py with JAX.

    .venv/bin/python test/unit/data/stablehlo/export.py [--all] [OUT_DIR]

Each model is exported as JAX prints it: `<name>.static.mlir` (pretty form,
`jax.jit(f).lower(...).as_text()`), `<name>.dynamic.mlir` (a shape-polymorphic
`jax.export` with debug locations, `mlir_module()`), and for a few models
`<name>.generic.mlir` (the generic op form with properties `<{...}>`).
The tests read the committed text; they never import jax.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import jax
import jax.numpy as jnp
from jax import export

jax.config.update("jax_platforms", "cpu")

F32 = jnp.float32


def mlp(x, w1, b1, w2):
    return jnp.tanh(x @ w1 + b1) @ w2


def layernorm(x, g, b):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
    return (x - mean) * jax.lax.rsqrt(var + 1e-5) * g + b


def gelu_tanh(x):
    return jax.nn.gelu(x, approximate=True)


def gelu_erf(x):
    return jax.nn.gelu(x, approximate=False)


def softmax(x):
    return jax.nn.softmax(x, axis=-1)


def rmsnorm_swiglu(x, g, wg, wu, wd):
    h = x * jax.lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g
    return (jax.nn.silu(h @ wg) * (h @ wu)) @ wd


def attention(x, wq, wk, wv):
    q, k, v = x @ wq, x @ wk, x @ wv
    s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(jnp.float32(q.shape[-1]))
    n = x.shape[1]
    mask = jnp.arange(n)[:, None] >= jnp.arange(n)[None, :]
    s = jnp.where(mask[None], s, -1e9)
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)


def convnet(x, w1, w2):
    y = jax.lax.conv_general_dilated(
        x, w1, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    y = jax.nn.relu(y)
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    y = jax.lax.conv_general_dilated(
        y, w2, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    return jnp.mean(y, axis=(1, 2))


def misc(x, idx):
    """Slices, gather, pad, clamp, power, iota, logistic, integer ops."""
    a = jnp.clip(x, -1.0, 1.0) ** 2.0
    b = jnp.pad(x[:, 1:], ((0, 0), (0, 1)))
    c = jnp.take(x, idx, axis=1)
    d = jax.nn.sigmoid(x) + jnp.exp(x) - jnp.log1p(jnp.abs(x))
    e = jnp.cumsum(jnp.ones_like(x), axis=1) + jnp.arange(x.shape[1], dtype=F32)
    m = jnp.max(x, axis=1, keepdims=True) + jnp.argmax(x, axis=1)[:, None].astype(F32)
    return a + b + d + e + m, jnp.sum(c, axis=1) + jax.lax.dynamic_slice_in_dim(x[0], 1, 4)


def composite(x):
    def body(x):
        return jnp.tanh(x) * 2.0 + 1.0

    f = jax.lax.composite(body, name="disc.test.scaled_tanh", version=1)
    return f(x) - x


def sym(spec: str) -> tuple:
    return export.symbolic_shape(spec)


def s(shape, dtype=F32) -> jax.ShapeDtypeStruct:
    return jax.ShapeDtypeStruct(shape, dtype)


# name -> (function, static args, dynamic args (symbolic shapes) or None, generic?)
MODELS: dict[str, tuple[Callable, list, list | None, bool]] = {
    "mlp": (
        mlp,
        [s((4, 8)), s((8, 16)), s((16,)), s((16, 3))],
        [s(sym("b, 8")), s((8, 16)), s((16,)), s((16, 3))],
        True,
    ),
    "layernorm": (
        layernorm,
        [s((4, 32)), s((32,)), s((32,))],
        [s(sym("b, 32")), s((32,)), s((32,))],
        False,
    ),
    "gelu_tanh": (gelu_tanh, [s((4, 16))], [s(sym("b, n"))], False),
    "gelu_erf": (gelu_erf, [s((4, 16))], [s(sym("b, n"))], True),
    "softmax": (softmax, [s((4, 10))], [s(sym("b, n"))], False),
    "rmsnorm_swiglu": (
        rmsnorm_swiglu,
        [s((4, 16)), s((16,)), s((16, 32)), s((16, 32)), s((32, 16))],
        [s(sym("b, 16")), s((16,)), s((16, 32)), s((16, 32)), s((32, 16))],
        False,
    ),
    "attention": (
        attention,
        [s((2, 8, 16)), s((16, 16)), s((16, 16)), s((16, 16))],
        [s(sym("b, t, 16")), s((16, 16)), s((16, 16)), s((16, 16))],
        True,
    ),
    "convnet": (
        convnet,
        [s((2, 8, 8, 3)), s((3, 3, 3, 4)), s((3, 3, 4, 5))],
        [s(sym("b, 8, 8, 3")), s((3, 3, 3, 4)), s((3, 3, 4, 5))],
        False,
    ),
    "misc": (misc, [s((4, 6)), s((3,), jnp.int32)], None, True),
    "composite": (composite, [s((4, 6))], None, True),
}


def generic_text(lowered) -> str:
    module = lowered.compiler_ir("stablehlo")
    return module.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)


# The shape-polymorphic exports committed as fixtures (the others are large;
# `--all` writes them too, e.g. for a local check against JAX).
SHIPPED_DYNAMIC = {"mlp", "gelu_tanh", "softmax"}


def main(out: Path, everything: bool = False) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for name, (fn, static, dynamic, generic) in MODELS.items():
        if not everything and name not in SHIPPED_DYNAMIC:
            dynamic = None
        lowered = jax.jit(fn).lower(*static)
        (out / f"{name}.static.mlir").write_text(lowered.as_text())
        if generic:
            (out / f"{name}.generic.mlir").write_text(generic_text(lowered))
        if dynamic is not None:
            exp = export.export(jax.jit(fn))(*dynamic)
            (out / f"{name}.dynamic.mlir").write_text(exp.mlir_module())
        print(name)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--all"]
    main(Path(args[0]) if args else Path(__file__).parent, everything="--all" in sys.argv)
