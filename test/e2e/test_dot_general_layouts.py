"""dot_generals outside the gemm's layouts, as JAX emits them (disc-dot-rewriter's
batched-matrix rewrite): several free dims (`x @ w` with x of rank 3),
several contracting dims, batching dims that are not leading, and a
transpose of free dims that must not be folded.

Compared with a float64 numpy einsum at rtol=1e-4 / atol=1e-5 (the
reduction allowance), at several dynamic shapes of one compile.
"""

from __future__ import annotations

import numpy as np
import pytest

from .conftest import check, compiled, rand, rng, run

LAYOUTS = """
func.func @main(%x: tensor<?x?x?xf32>, %w: tensor<?x?xf32>, %a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>, %p: tensor<?x?x?xf32>, %q: tensor<?x?x?xf32>) -> (tensor<?x?x?xf32>, tensor<?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>) {
  %0 = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  %1 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [2], rhs_batching_dimensions = [2], lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?xf32>
  %2 = "mhlo.dot_general"(%p, %q) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [1], rhs_batching_dimensions = [2], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %t = "mhlo.transpose"(%x) {permutation = dense<[1, 0, 2]> : tensor<3xi64>} : (tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  %3 = "mhlo.dot_general"(%t, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<?x?x?xf32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return %0, %1, %2, %3 : tensor<?x?x?xf32>, tensor<?xf32>, tensor<?x?x?xf32>, tensor<?x?x?xf32>
}
"""

# (batch, seq, k, n, c0, c1, nb, m)
SHAPES = [(1, 1, 1, 1, 1, 1, 1, 1), (2, 3, 5, 4, 3, 2, 4, 3), (3, 7, 33, 9, 5, 6, 2, 7)]


def _einsum(spec: str, *xs: np.ndarray) -> np.ndarray:
    return np.einsum(spec, *(x.astype(np.float64) for x in xs)).astype(np.float32)


@pytest.fixture(scope="module")
def layouts():
    return compiled(LAYOUTS)


@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_dot_general_layouts(layouts, shape):
    batch, seq, k, n, c0, c1, nb, m = shape
    gen = rng("dot_general_layouts", shape)
    x = rand(gen, (batch, seq, k), np.float32, -1, 1)
    w = rand(gen, (k, n), np.float32, -1, 1)
    a = rand(gen, (c0, c1, nb), np.float32, -1, 1)
    b = rand(gen, (c0, c1, nb), np.float32, -1, 1)
    p = rand(gen, (k, nb, m), np.float32, -1, 1)
    q = rand(gen, (n, k, nb), np.float32, -1, 1)
    out = run(layouts, x, w, a, b, p, q)
    check(out[0], _einsum("bsk,kn->bsn", x, w), rtol=1e-4, atol=1e-5)
    check(out[1], _einsum("ijz,ijz->z", a, b), rtol=1e-4, atol=1e-5)
    # batching p:1 / q:2, contracting p:0 / q:1 -> (batch, p free, q free)
    check(out[2], _einsum("kzm,nkz->zmn", p, q), rtol=1e-4, atol=1e-5)
    check(out[3], _einsum("sbk,kn->sbn", x.transpose(1, 0, 2), w), rtol=1e-4, atol=1e-5)
