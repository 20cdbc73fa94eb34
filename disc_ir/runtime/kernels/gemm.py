"""``ral_gemm`` on cpu: (batched) matrix multiply with optional transposes.

BladeDISC's signature (``ral_gemm<T, N>`` in common_context_impl_mkldnn.cc)::

    ral_gemm(ctx, stream, A: memref<N x T>, B: memref<N x T>, C: memref<N x T>,
             tp_a: i1, tp_b: i1, weight_is_const: i1)

for rank 2 (gemm) and ranks 3..4 (batch gemm: the leading dims are batch dims
and must agree); the variant without ``weight_is_const`` is registered too.
``C = op(A) @ op(B)`` with ``op`` transposing the two minor dims when asked.
Computed with numpy's matmul (BLAS for f32/f64; f16/bf16 in float32), split
over the RAL context's threads with one BLAS thread each (kernels.blas).
Integer elements (the cpu kernel only) multiply and accumulate in the element
type, wrapping around on overflow as XLA's integer dot does.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from disc_ir.runtime.context import RalError
from disc_ir.runtime.kernels.blas import parallel_matmul
from disc_ir.runtime.kernels.numeric import FLOAT_ELEMENTS, compute_view, store
from disc_ir.runtime.memref import MemRefDescriptor, numpy_view
from disc_ir.runtime.registry import I1, Ctx, MemRef, PVoid, Var, ral_api

N = Var("N")
T = Var("T")
GEMM_RANKS = (2, 3, 4, 5, 6)
#: integer element types of the cpu ral_gemm (numpy's matmul, no BLAS)
INT_GEMM_ELEMENTS = ("i8", "ui8", "i16", "ui16", "i32", "ui32", "i64", "ui64")


def gemm_dims(
    a: MemRefDescriptor,
    b: MemRefDescriptor,
    c: MemRefDescriptor,
    tp_a: bool,
    tp_b: bool,
    who: str = "ral_gemm",
) -> tuple[int, int, int]:
    """``(m, n, k)`` of ``c[.., m, n] = op(a)[.., m, k] @ op(b)[.., k, n]``.

    ``op`` swaps the two minor dims when ``tp_a`` / ``tp_b`` is set. Checks
    what BladeDISC's ``ral_gemm`` checks (equal contraction dims, equal batch
    dims, the output shape) and raises RalError prefixed with ``who``. The
    cpu kernel and the cuBLAS plan both derive their sizes here.
    """
    m, k = (a.sizes[-1], a.sizes[-2]) if tp_a else (a.sizes[-2], a.sizes[-1])
    kb, n = (b.sizes[-1], b.sizes[-2]) if tp_b else (b.sizes[-2], b.sizes[-1])
    if k != kb:
        raise RalError(f"{who}: mismatch contraction dim ({k} vs {kb})")
    if a.sizes[:-2] != b.sizes[:-2] or a.sizes[:-2] != c.sizes[:-2]:
        raise RalError(
            f"{who}: mismatch batch size ({a.sizes[:-2]}, {b.sizes[:-2]}, {c.sizes[:-2]})"
        )
    if tuple(c.sizes[-2:]) != (m, n):
        raise RalError(f"{who}: output shape {c.sizes[-2:]} is not ({m}, {n})")
    return m, n, k


def gemm(
    a: MemRefDescriptor,
    b: MemRefDescriptor,
    c: MemRefDescriptor,
    tp_a: bool,
    tp_b: bool,
    num_threads: int = 1,
) -> None:
    """``c = op(a) @ op(b)`` over the minor two dims, batch dims elementwise; large
    products are split over up to ``num_threads`` threads (see kernels.blas)."""
    gemm_dims(a, b, c, tp_a, tp_b)
    if c.num_elements == 0:
        return
    if a.num_elements == 0 or b.num_elements == 0:  # an empty contraction: zeros
        store(c, np.zeros(c.sizes, dtype=np.float32))
        return
    lhs = compute_view(a)
    rhs = compute_view(b)
    if tp_a:
        lhs = np.swapaxes(lhs, -1, -2)
    if tp_b:
        rhs = np.swapaxes(rhs, -1, -2)
    if c.element.code in INT_GEMM_ELEMENTS:
        numpy_view(c)[...] = np.matmul(lhs, rhs)
    elif c.element.code in ("f32", "f64"):
        out = numpy_view(c)
        if np.may_share_memory(out, lhs) or np.may_share_memory(out, rhs):
            with np.errstate(all="ignore"):  # NaN / inf give NaN / inf, silently
                out[...] = np.matmul(lhs, rhs)
        else:
            parallel_matmul(lhs, rhs, out, num_threads)
    else:
        out = np.empty(c.sizes, dtype=np.float32)
        parallel_matmul(lhs, rhs, out, num_threads)
        store(c, out)


def _num_threads(ctx: Any) -> int:
    """The CPU driver's thread count (the RAL context's ``num_threads``)."""
    from disc_ir.runtime.drivers.cpu import cpu_driver

    return cpu_driver(ctx).num_threads


GemmRunner = Callable[
    [Any, int, MemRefDescriptor, MemRefDescriptor, MemRefDescriptor, bool, bool], None
]


def _without_hint(with_hint: Callable[..., None]) -> Callable[..., None]:
    """``with_hint`` less its trailing ``weight_is_const`` parameter (BladeDISC's
    second ``ral_gemm`` signature), with the same ABI annotations (ral_api reads them)."""

    def without_hint(*args: Any) -> None:
        with_hint(*args, False)

    signature = inspect.signature(with_hint)
    without_hint.__signature__ = signature.replace(  # type: ignore[attr-defined]  # sets the signature inspect reports for the registry
        parameters=list(signature.parameters.values())[:-1]
    )
    without_hint.__annotations__ = dict(with_hint.__annotations__)
    return without_hint


def _register_both(
    with_hint: Callable[..., None],
    device: str,
    prefix: str,
    doc: Callable[[str], str],
    **templates: Any,
) -> tuple[Callable[..., None], Callable[..., None]]:
    """Registers ``with_hint`` as ``ral_gemm`` on ``device``, and its variant without
    the hint; named ``{prefix}`` and ``{prefix}_no_const_hint``, documented by
    ``doc(signature tail)``."""
    without_hint = _without_hint(with_hint)
    for fn, name, tail in (
        (with_hint, prefix, "i1_i1_i1"),
        (without_hint, f"{prefix}_no_const_hint", "i1_i1"),
    ):
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = doc(tail)
        ral_api("ral_gemm", device, **templates)(fn)
    return with_hint, without_hint


def register_ral_gemm(
    device: str, elements: Sequence[str], run: GemmRunner, prefix: str
) -> tuple[Callable[..., None], Callable[..., None]]:
    """Registers ``ral_gemm`` on ``device`` for ``elements`` x GEMM_RANKS, in
    BladeDISC's two signatures (with and without the trailing
    ``weight_is_const`` hint, which does not change the result); both call
    ``run(ctx, stream, a, b, c, tp_a, tp_b)``. Returns the two registered
    functions, named ``{prefix}`` and ``{prefix}_no_const_hint``.
    """

    def with_hint(
        ctx: Ctx,
        stream: PVoid,
        a: MemRef[N, T],
        b: MemRef[N, T],
        c: MemRef[N, T],
        tp_a: I1,
        tp_b: I1,
        weight_is_const: I1,
    ) -> None:
        run(ctx, stream, a, b, c, tp_a, tp_b)

    return _register_both(
        with_hint,
        device,
        prefix,
        lambda tail: (
            f"``ral_gemm___{device}___pvoid_pvoid_m2df32_m2df32_m2df32_{tail}___void`` "
            "and friends: ``c = op(a) @ op(b)``."
        ),
        T=elements,
        N=GEMM_RANKS,
    )


ral_cpu_gemm, ral_cpu_gemm_no_const_hint = register_ral_gemm(
    "cpu",
    FLOAT_ELEMENTS + INT_GEMM_ELEMENTS,
    lambda ctx, stream, a, b, c, tp_a, tp_b: gemm(a, b, c, tp_a, tp_b, _num_threads(ctx)),
    "ral_cpu_gemm",
)


def gemv(a: MemRefDescriptor, b: MemRefDescriptor, c: MemRefDescriptor, tp_a: bool) -> None:
    """``c[m] = op(a)[m, k] @ b[k]``: the matrix-vector product a `dot_general` of a
    transposed matrix and a vector becomes (BladeDISC's dot rewriter leaves that
    case as it is, and BladeDISC's runtime has no ``ral_gemm`` for it)."""
    lhs = compute_view(a)
    if tp_a:
        lhs = lhs.T
    rhs = compute_view(b)
    m, k = lhs.shape
    if rhs.shape[0] != k:
        raise RalError(f"ral_gemm: mismatch contraction dim ({k} vs {rhs.shape[0]})")
    if tuple(c.sizes) != (m,):
        raise RalError(f"ral_gemm: output shape {tuple(c.sizes)} is not ({m},)")
    with np.errstate(all="ignore"):  # NaN / inf give NaN / inf, silently
        out = np.matmul(lhs, rhs)
        if out.dtype.kind == "f":
            out = out + 0.0  # a dot product sums from +0 (see kernels.blas)
    store(c, out)


def _register_gemv(device: str, elements: Sequence[str]) -> None:
    """Registers the matrix-vector ``ral_gemm`` (``m2 m1 m1``) on ``device``, with
    and without the trailing ``weight_is_const`` hint."""

    def with_hint(
        ctx: Ctx,
        stream: PVoid,
        a: MemRef[2, T],
        b: MemRef[1, T],
        c: MemRef[1, T],
        tp_a: I1,
        tp_b: I1,
        weight_is_const: I1,
    ) -> None:
        gemv(a, b, c, bool(tp_a))

    _register_both(
        with_hint,
        device,
        f"ral_{device}_gemv",
        lambda tail: (
            f"``ral_gemm___{device}___pvoid_pvoid_m2df32_m1df32_m1df32_{tail}___void`` "
            "and friends: ``c = op(a) @ b``."
        ),
        T=elements,
    )


_register_gemv("cpu", FLOAT_ELEMENTS + INT_GEMM_ELEMENTS)
