"""``ral_gemm`` on cpu: (batched) matrix multiply with optional transposes.

BladeDISC's signature (``ral_gemm<T, N>`` in common_context_impl_mkldnn.cc)::

    ral_gemm(ctx, stream, A: memref<N x T>, B: memref<N x T>, C: memref<N x T>,
             tp_a: i1, tp_b: i1, weight_is_const: i1)

for rank 2 (gemm) and ranks 3..4 (batch gemm: the leading dims are batch dims
and must agree); the variant without ``weight_is_const`` is registered too.
``C = op(A) @ op(B)`` with ``op`` transposing the two minor dims when asked.
Computed with numpy's matmul (BLAS for f32/f64; f16/bf16 in float32).
"""

from __future__ import annotations

import numpy as np

from disc_ir.runtime.context import RalError
from disc_ir.runtime.kernels.numeric import FLOAT_ELEMENTS, compute_view, store
from disc_ir.runtime.memref import MemRefDescriptor, numpy_view
from disc_ir.runtime.registry import I1, Ctx, MemRef, PVoid, Var, ral_api

N = Var("N")
T = Var("T")
GEMM_RANKS = (2, 3, 4, 5, 6)


def gemm(
    a: MemRefDescriptor, b: MemRefDescriptor, c: MemRefDescriptor, tp_a: bool, tp_b: bool
) -> None:
    """``c = op(a) @ op(b)`` over the minor two dims, batch dims elementwise."""
    if a.num_elements == 0 or b.num_elements == 0 or c.num_elements == 0:
        return
    rank = c.rank
    m = a.sizes[rank - 1] if tp_a else a.sizes[rank - 2]
    k = a.sizes[rank - 2] if tp_a else a.sizes[rank - 1]
    kb = b.sizes[rank - 1] if tp_b else b.sizes[rank - 2]
    n = b.sizes[rank - 2] if tp_b else b.sizes[rank - 1]
    if k != kb:
        raise RalError(f"ral_gemm: mismatch contraction dim ({k} vs {kb})")
    if a.sizes[:-2] != b.sizes[:-2] or a.sizes[:-2] != c.sizes[:-2]:
        raise RalError(
            f"ral_gemm: mismatch batch size ({a.sizes[:-2]}, {b.sizes[:-2]}, {c.sizes[:-2]})"
        )
    if c.sizes[-2:] != (m, n):
        raise RalError(f"ral_gemm: output shape {c.sizes[-2:]} is not ({m}, {n})")
    lhs = compute_view(a)
    rhs = compute_view(b)
    if tp_a:
        lhs = np.swapaxes(lhs, -1, -2)
    if tp_b:
        rhs = np.swapaxes(rhs, -1, -2)
    if c.element.code in ("f32", "f64"):
        np.matmul(lhs, rhs, out=numpy_view(c))
    else:
        store(c, np.matmul(lhs, rhs))


@ral_api("ral_gemm", "cpu", T=FLOAT_ELEMENTS, N=GEMM_RANKS)
def ral_cpu_gemm(
    ctx: Ctx,
    stream: PVoid,
    a: MemRef[N, T],
    b: MemRef[N, T],
    c: MemRef[N, T],
    tp_a: I1,
    tp_b: I1,
    weight_is_const: I1,
) -> None:
    """``ral_gemm___cpu___pvoid_pvoid_m2df32_m2df32_m2df32_i1_i1_i1___void`` and friends."""
    gemm(a, b, c, tp_a, tp_b)


@ral_api("ral_gemm", "cpu", T=FLOAT_ELEMENTS, N=GEMM_RANKS)
def ral_cpu_gemm_no_const_hint(
    ctx: Ctx,
    stream: PVoid,
    a: MemRef[N, T],
    b: MemRef[N, T],
    c: MemRef[N, T],
    tp_a: I1,
    tp_b: I1,
) -> None:
    """``ral_gemm___cpu___pvoid_pvoid_m2df32_m2df32_m2df32_i1_i1___void`` and friends."""
    gemm(a, b, c, tp_a, tp_b)
