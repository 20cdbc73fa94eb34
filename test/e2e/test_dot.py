"""dot, dot_general (transposed operands, matrix-vector) and batched matmul.

Products accumulate in f32 over k up to ~300, compared with a float64
reference at rtol=1e-4 / atol=1e-5 (the reduction allowance).
"""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import check, compiled, rand, rng, run

DOT = """
func.func @main(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "mhlo.dot"(%a, %b) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""

DOT_GENERAL = """
func.func @main(%a: tensor<?x?xf32>, %bt: tensor<?x?xf32>, %at: tensor<?x?xf32>, %v: tensor<?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>) {
  %0 = "mhlo.dot_general"(%a, %bt) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "mhlo.dot_general"(%at, %bt) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = "mhlo.dot_general"(%a, %v) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?xf32>
  return %0, %1, %2 : tensor<?x?xf32>, tensor<?x?xf32>, tensor<?xf32>
}
"""

BATCHED = """
func.func @main(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %1 = mhlo.tanh %0 : tensor<?x?x?xf32>
  return %1 : tensor<?x?x?xf32>
}
"""

MKN = [(1, 1, 1), (1, 7, 1), (3, 5, 7), (33, 300, 65), (1100, 64, 1000)]


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)


@pytest.fixture(scope="module")
def dot():
    return compiled(DOT)


@pytest.mark.parametrize("mkn", MKN, ids=str)
def test_dot(dot, mkn):
    m, k, n = mkn
    gen = rng("dot", mkn)
    a, b = rand(gen, (m, k), np.float32, -1, 1), rand(gen, (k, n), np.float32, -1, 1)
    (out,) = run(dot, a, b)
    check(out, _mm(a, b), rtol=1e-4, atol=1e-5)


@pytest.fixture(scope="module")
def dot_general():
    return compiled(DOT_GENERAL)


@pytest.mark.parametrize("mkn", MKN[:4], ids=str)
def test_dot_general(dot_general, mkn):
    m, k, n = mkn
    gen = rng("dot_general", mkn)
    a = rand(gen, (m, k), np.float32, -1, 1)
    bt = rand(gen, (n, k), np.float32, -1, 1)
    at = np.ascontiguousarray(a.T)
    v = rand(gen, (k,), np.float32, -1, 1)
    o0, o1, o2 = run(dot_general, a, bt, at, v)
    check(o0, _mm(a, bt.T), rtol=1e-4, atol=1e-5)
    check(o1, _mm(a, bt.T), rtol=1e-4, atol=1e-5)
    check(o2, _mm(a, v[:, None])[:, 0], rtol=1e-4, atol=1e-5)


@pytest.fixture(scope="module")
def batched():
    return compiled(BATCHED)


@pytest.mark.parametrize("bmkn", [(1, 1, 1, 1), (3, 2, 5, 7), (8, 64, 96, 33)], ids=str)
def test_batched_matmul_tanh(batched, bmkn):
    bs, m, k, n = bmkn
    gen = rng("batched", bmkn)
    a, b = rand(gen, (bs, m, k), np.float32, -1, 1), rand(gen, (bs, k, n), np.float32, -1, 1)
    (out,) = run(batched, a, b)
    ref = np.tanh(a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
    check(out, ref, rtol=1e-4, atol=1e-5)


# Small static library-call results returned through a reshape: the results
# fit promote-buffers-to-stack's limit (1 KiB), and a reshape of a stack
# buffer must stay a copy (an aliasing view was returned after the frame died:
# garbage outputs).
DOT_RESHAPE = """
func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<64xf32> {
  %0 = "mhlo.dot"(%a, %b) : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %1 = mhlo.reshape %0 : (tensor<4x16xf32>) -> tensor<64xf32>
  return %1 : tensor<64xf32>
}
"""

CONV1D_RESHAPE = """
func.func @main(%x: tensor<1x8x16xf32>, %w: tensor<4x8x3xf32>) -> tensor<4x16xf32> {
  %0 = mhlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[1, 1]], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x16xf32>, tensor<4x8x3xf32>) -> tensor<1x4x16xf32>
  %1 = mhlo.reshape %0 : (tensor<1x4x16xf32>) -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}
"""


def test_small_dot_result_returned_through_a_reshape():
    a, b = rand(rng("dr", 0), (4, 8)), rand(rng("dr", 1), (8, 16))
    (out,) = run(compiled(DOT_RESHAPE), a, b)
    check(out, (a @ b).reshape(-1))


def test_small_conv_result_returned_through_a_reshape():
    x, w = rand(rng("cr", 0), (1, 8, 16)), rand(rng("cr", 1), (4, 8, 3))
    (out,) = run(compiled(CONV1D_RESHAPE), x, w)
    xp = np.pad(x[0], ((0, 0), (1, 1)))
    windows = np.stack([xp[:, j : j + 3] for j in range(16)], axis=0)  # [16, 8, 3]
    want = np.einsum("jck,ock->oj", windows, w)
    check(out, want)


# A transposed convolution (input dilation 2): the compile driver pads the
# input with zeros between its elements (ral_conv has no input dilation).
CONV1D_LHS_DILATION = """
func.func @main(%x: tensor<?x3x?xf32>, %w: tensor<2x3x3xf32>) -> tensor<?x2x?xf32> {
  %0 = mhlo.convolution(%x, %w) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[2, 1]], lhs_dilate = [2], rhs_dilate = [1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<?x3x?xf32>, tensor<2x3x3xf32>) -> tensor<?x2x?xf32>
  return %0 : tensor<?x2x?xf32>
}
"""


@pytest.mark.parametrize("batch,length", [(1, 5), (2, 1), (3, 8)])
def test_convolution_with_input_dilation(batch, length):
    x, w = rand(rng("ld", batch, length), (batch, 3, length)), rand(rng("ldw", 0), (2, 3, 3))
    (out,) = run(compiled(CONV1D_LHS_DILATION), x, w)
    dilated = np.zeros((batch, 3, 2 * length - 1), np.float32)
    dilated[:, :, ::2] = x
    padded = np.pad(dilated, ((0, 0), (0, 0), (2, 1)))
    n_out = padded.shape[2] - 2
    windows = np.stack([padded[:, :, j : j + 3] for j in range(n_out)], axis=1)  # [B, n_out, C, 3]
    check(out, np.einsum("bjck,ock->boj", windows, w))


# A vector times a transposed matrix (jnp.einsum("k,nk->n")): the matrix
# contracts its other dim.
VECTOR_TRANSPOSED_MATRIX = """
func.func @main(%v: tensor<?xf32>, %m: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = "mhlo.dot_general"(%v, %m) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<?xf32>, tensor<?x?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


@pytest.mark.parametrize("nk", [(1, 1), (3, 5), (65, 33)], ids=str)
def test_vector_dot_transposed_matrix(nk: tuple[int, int]) -> None:
    n, k = nk
    gen = rng("vector_transposed_matrix", nk)
    v, m = rand(gen, (k,)), rand(gen, (n, k))
    (got_vm,) = run(compiled(VECTOR_TRANSPOSED_MATRIX), v, m)
    check(got_vm, (m.astype(np.float64) @ v).astype(np.float32), rtol=1e-4, atol=1e-5)


# Integer products accumulate in the element type and wrap around (XLA's dot).
INT_DOT = """
func.func @main(%a: tensor<?x?xi32>, %b: tensor<?x?xi32>, %c: tensor<?x?xi8>, %d: tensor<?x?xi8>) -> (tensor<?x?xi32>, tensor<?x?xi8>) {
  %0 = "mhlo.dot"(%a, %b) : (tensor<?x?xi32>, tensor<?x?xi32>) -> tensor<?x?xi32>
  %1 = "mhlo.dot"(%c, %d) : (tensor<?x?xi8>, tensor<?x?xi8>) -> tensor<?x?xi8>
  return %0, %1 : tensor<?x?xi32>, tensor<?x?xi8>
}
"""


@pytest.mark.parametrize("mkn", [(1, 1, 1), (3, 5, 7), (17, 40, 9)], ids=str)
def test_integer_dot(mkn: tuple[int, int, int]) -> None:
    m, k, n = mkn
    gen = rng("integer_dot", mkn)
    a, b = (
        gen.integers(-9, 10, (m, k)).astype(np.int32),
        gen.integers(-9, 10, (k, n)).astype(np.int32),
    )
    c, d = (
        gen.integers(-100, 100, (m, k)).astype(np.int8),
        gen.integers(-100, 100, (k, n)).astype(np.int8),
    )
    got_i32, got_i8 = run(compiled(INT_DOT), a, b, c, d)
    check(got_i32, a @ b)
    wrapped = (c.astype(np.int64) @ d.astype(np.int64)).astype(np.int8)  # modulo 2**8
    check(got_i8, wrapped)
