"""Neural-network graphs: softmax, layernorm, gelu (tanh and erf forms), bias +
activation chains, matmul + bias + activation.

exp / tanh / rsqrt go through polynomial approximations and rows are reduced
in f32, so these use rtol=1e-4 (atol 1e-6, or 1e-5 where outputs cross zero
after a normalisation). References are computed in float64.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from . import mhlo_text as mt
from .conftest import check, compiled, rand, rng, run

SHAPES = [(1, 1), (1, 31), (5, 1), (7, 33), (1024, 1031)]
T2, T1 = "tensor<?x?xf32>", "tensor<?xf32>"

_erf = np.frompyfunc(math.erf, 1, 1)


def np_erf(x: np.ndarray) -> np.ndarray:
    return _erf(x.astype(np.float64)).astype(np.float64)


def np_softmax(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def np_layernorm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float = 1e-5):
    x = x.astype(np.float64)
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def np_gelu_tanh(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))


def np_gelu_erf(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    return 0.5 * x * (1 + np_erf(x / math.sqrt(2)))


def _graph(kind: str) -> str:
    if kind == "softmax":
        g = mt.Graph([("%x", T2)])
        return g.text([(mt.softmax(g, "%x"), T2)])
    if kind == "layernorm":
        g = mt.Graph([("%x", T2), ("%gamma", T1), ("%beta", T1)])
        return g.text([(mt.layernorm(g, "%x", "%gamma", "%beta"), T2)])
    if kind == "gelu_tanh":
        g = mt.Graph([("%x", T2)])
        return g.text([(mt.gelu_tanh(g, "%x"), T2)])
    if kind == "gelu_erf":
        g = mt.Graph([("%x", T2)])
        return g.text([(mt.gelu_erf(g, "%x"), T2)])
    if kind == "layernorm_gelu":
        g = mt.Graph([("%x", T2), ("%gamma", T1), ("%beta", T1)])
        return g.text([(mt.gelu_tanh(g, mt.layernorm(g, "%x", "%gamma", "%beta")), T2)])
    raise ValueError(kind)


@pytest.fixture(scope="module")
def softmax():
    return compiled(_graph("softmax"))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_softmax(softmax, shape):
    x = rand(rng("softmax", shape), shape, np.float32, -4, 4)
    (out,) = run(softmax, x)
    check(out, np_softmax(x).astype(np.float32), rtol=1e-4)


@pytest.fixture(scope="module")
def layernorm():
    return compiled(_graph("layernorm"))


@pytest.mark.parametrize("shape", [(1, 2), (5, 3), (7, 33), (1024, 1031)], ids=str)
def test_layernorm(layernorm, shape):
    gen = rng("layernorm", shape)
    x = rand(gen, shape, np.float32, -3, 3)
    gamma, beta = rand(gen, shape[1:], np.float32, 0.5, 1.5), rand(gen, shape[1:])
    (out,) = run(layernorm, x, gamma, beta)
    check(out, np_layernorm(x, gamma, beta).astype(np.float32), rtol=1e-4, atol=1e-5)


@pytest.fixture(scope="module")
def gelu_tanh():
    return compiled(_graph("gelu_tanh"))


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_gelu_tanh(gelu_tanh, shape):
    x = rand(rng("gelu_tanh", shape), shape, np.float32, -5, 5)
    (out,) = run(gelu_tanh, x)
    check(out, np_gelu_tanh(x).astype(np.float32), rtol=1e-4, atol=1e-6)


@pytest.fixture(scope="module")
def gelu_erf():
    return compiled(_graph("gelu_erf"))


@pytest.mark.parametrize("shape", SHAPES[:4] + [(512, 1031)], ids=str)
def test_gelu_erf(gelu_erf, shape):
    x = rand(rng("gelu_erf", shape), shape, np.float32, -5, 5)
    (out,) = run(gelu_erf, x)
    # XLA's f32 rational erf (what chlo.erf legalizes to) is accurate to a few ulp.
    check(out, np_gelu_erf(x).astype(np.float32), rtol=1e-4, atol=1e-6)


@pytest.fixture(scope="module")
def layernorm_gelu():
    return compiled(_graph("layernorm_gelu"))


@pytest.mark.parametrize("shape", [(1, 2), (3, 7), (1024, 1031)], ids=str)
def test_layernorm_gelu(layernorm_gelu, shape):
    gen = rng("layernorm_gelu", shape)
    x = rand(gen, shape, np.float32, -3, 3)
    gamma, beta = rand(gen, shape[1:], np.float32, 0.5, 1.5), rand(gen, shape[1:])
    (out,) = run(layernorm_gelu, x, gamma, beta)
    ref = np_gelu_tanh(np_layernorm(x, gamma, beta))
    check(out, ref.astype(np.float32), rtol=1e-4, atol=1e-5)


BIAS_ACT = """
func.func @main(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>) {
  %shape = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %shape) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %zb = "mhlo.dynamic_broadcast_in_dim"(%z, %shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %six = mhlo.constant dense<6.000000e+00> : tensor<f32>
  %0 = mhlo.add %x, %bb : tensor<?x?xf32>
  %relu = mhlo.maximum %0, %zb : tensor<?x?xf32>
  %sig = mhlo.logistic %0 : tensor<?x?xf32>
  %silu = mhlo.multiply %0, %sig : tensor<?x?xf32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %relu6 = "mhlo.clamp"(%zero, %0, %six) : (tensor<f32>, tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %relu, %silu, %relu6 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def bias_act():
    return compiled(BIAS_ACT)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_bias_activations(bias_act, shape):
    gen = rng("bias_act", shape)
    x, b = rand(gen, shape, np.float32, -8, 8), rand(gen, shape[1:])
    relu, silu, relu6 = run(bias_act, x, b)
    y = x + b
    check(relu, np.maximum(y, 0))
    # logistic: polynomial exp, rtol 1e-4
    check(silu, (y / (1 + np.exp(-y.astype(np.float64)))).astype(np.float32), rtol=1e-4, atol=1e-6)
    check(relu6, np.clip(y, 0, 6))


def _dense_gelu() -> str:
    g = mt.Graph([("%x", T2), ("%w", T2), ("%b", T1)])
    # the shape of the product, not of %x: rebind the graph's shape to it
    g.lines.clear()
    y = g.emit(f'"mhlo.dot"(%x, %w) : ({T2}, {T2}) -> {T2}')
    g.lines.append(f"{g.shape} = shape.shape_of {y} : {T2} -> tensor<2xindex>")
    out = mt.gelu_tanh(g, g.binary("add", y, g.bcast("%b", 1)))
    return g.text([(out, T2)])


@pytest.fixture(scope="module")
def dense_gelu():
    return compiled(_dense_gelu())


@pytest.mark.parametrize("mkn", [(1, 1, 1), (3, 5, 7), (64, 257, 129)], ids=str)
def test_dense_bias_gelu(dense_gelu, mkn):
    m, k, n = mkn
    gen = rng("dense_gelu", mkn)
    x, w, b = (
        rand(gen, (m, k), np.float32, -1, 1),
        rand(gen, (k, n), np.float32, -1, 1),
        rand(gen, (n,)),
    )
    (out,) = run(dense_gelu, x, w, b)
    ref = np_gelu_tanh(x.astype(np.float64) @ w.astype(np.float64) + b)
    # f32 matmul over k=257 then tanh approximation: rtol 1e-4, atol 1e-5
    check(out, ref.astype(np.float32), rtol=1e-4, atol=1e-5)


# A window wider than the (padded) input yields an empty output (XLA's shape
# inference: `size < window ? 0 : (size - window) / stride + 1`), never a
# negative or truncated-towards-zero size.
CONV_WIDE_WINDOW = """
func.func @main(%x: tensor<3x4x?xf32>, %w: tensor<2x4x3xf32>) -> tensor<3x2x?xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0],
       window = {stride = [2], rhs_dilate = [2]}
       {batch_group_count = 1 : i64, feature_group_count = 1 : i64}
       : (tensor<3x4x?xf32>, tensor<2x4x3xf32>) -> tensor<3x2x?xf32>
  return %0 : tensor<3x2x?xf32>
}
"""

POOL_WIDE_WINDOW = """
func.func @main(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  %init = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %0 = "stablehlo.reduce_window"(%x, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = stablehlo.maximum %a, %b : tensor<f32>
    stablehlo.return %m : tensor<f32>
  }) {window_dimensions = array<i64: 1, 4>, window_strides = array<i64: 1, 3>}
     : (tensor<2x?xf32>, tensor<f32>) -> tensor<2x?xf32>
  return %0 : tensor<2x?xf32>
}
"""


@pytest.mark.parametrize("width", [1, 2, 4, 5, 6, 11], ids=str)
def test_conv_window_wider_than_input(width: int) -> None:
    gen = rng("conv_wide", width)
    x, w = rand(gen, (3, 4, width)), rand(gen, (2, 4, 3))
    (got,) = run(compiled(CONV_WIDE_WINDOW), x, w)
    taps = [0, 2, 4]  # the dilated kernel's input offsets, window 5
    out = max(0, (width - 5) // 2 + 1)
    want = np.zeros((3, 2, out), np.float32)
    for o in range(out):
        want[:, :, o] = sum(x[:, :, 2 * o + t] @ w[:, :, k].T for k, t in enumerate(taps))
    check(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("width", [1, 3, 4, 7, 10], ids=str)
def test_pool_window_wider_than_input(width: int) -> None:
    x = rand(rng("pool_wide", width), (2, width))
    (got,) = run(compiled(POOL_WIDE_WINDOW), x)
    out = max(0, (width - 4) // 3 + 1)
    want = (
        np.stack([x[:, 3 * o : 3 * o + 4].max(axis=1) for o in range(out)], axis=1)
        if out
        else (np.zeros((2, 0), np.float32))
    )
    check(got, want)


# jax's shape-polymorphic strided "SAME" convolution: a dynamic_conv whose
# padding is StableHLO's `tensor<Nx2xi32>` ([[low, high], ...]), not a flat vector.
DYNAMIC_CONV_2D_PADDING = """
func.func @main(%x: tensor<2x3x?xf32>, %w: tensor<4x3x3xf32>, %p: tensor<1x2xi32>) -> tensor<2x4x?xf32> {
  %0 = "stablehlo.dynamic_conv"(%x, %w, %p) <{batch_group_count = 1 : i64,
       dimension_numbers = #stablehlo.conv<[b, f, 0]x[o, i, 0]->[b, f, 0]>,
       feature_group_count = 1 : i64, window_strides = array<i64: 2>}>
       : (tensor<2x3x?xf32>, tensor<4x3x3xf32>, tensor<1x2xi32>) -> tensor<2x4x?xf32>
  return %0 : tensor<2x4x?xf32>
}
"""


@pytest.mark.parametrize("width", [1, 2, 5, 8], ids=str)
def test_dynamic_conv_with_2d_padding(width: int) -> None:
    gen = rng("dynamic_conv_2d_padding", width)
    x, w = rand(gen, (2, 3, width)), rand(gen, (4, 3, 3))
    low, high = 1, 2
    (got,) = run(compiled(DYNAMIC_CONV_2D_PADDING), x, w, np.array([[low, high]], np.int32))
    xp = np.pad(x, ((0, 0), (0, 0), (low, high)))
    out = (xp.shape[2] - 3) // 2 + 1
    want = np.stack(
        [np.einsum("bck,ock->bo", xp[:, :, 2 * o : 2 * o + 3], w) for o in range(out)], axis=2
    )
    check(got, want, rtol=1e-5, atol=1e-5)
