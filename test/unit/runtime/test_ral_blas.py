"""kernels.blas: matmuls split over the RAL's threads (rows or batch matrices) match
numpy's, and numpy's BLAS thread setting is restored after the calls."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from disc_ir.runtime.kernels import blas


@pytest.mark.parametrize(
    "lhs_shape, rhs_shape, threads",
    [
        ((256, 128), (128, 96), 2),  # row blocks
        ((300, 200), (200, 70), 3),  # uneven row blocks
        ((6, 64, 96), (6, 96, 80), 2),  # batch matrices
        ((1, 256, 128), (1, 128, 96), 4),  # one batch matrix: row blocks
        ((2, 3, 4), (2, 4, 5), 8),  # too small to split
    ],
)
def test_parallel_matmul_matches_numpy(lhs_shape, rhs_shape, threads, monkeypatch):
    monkeypatch.setattr(blas, "MIN_PART_WORK", 1)  # split even these small products
    rng = np.random.default_rng(0)
    lhs = rng.standard_normal(lhs_shape, dtype=np.float32)
    rhs = rng.standard_normal(rhs_shape, dtype=np.float32)
    out = np.full(np.matmul(lhs, rhs).shape, np.nan, dtype=np.float32)
    blas.parallel_matmul(lhs, rhs, out, threads)
    np.testing.assert_allclose(out, np.matmul(lhs, rhs), rtol=1e-5, atol=1e-5)


def test_parallel_matmul_of_transposed_views(monkeypatch):
    monkeypatch.setattr(blas, "MIN_PART_WORK", 1)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((64, 128), dtype=np.float32)
    b = rng.standard_normal((96, 64), dtype=np.float32)
    out = np.empty((128, 96), dtype=np.float32)
    blas.parallel_matmul(a.T, b.T, out, 2)
    np.testing.assert_allclose(out, a.T @ b.T, rtol=1e-5, atol=1e-5)


def test_blas_threads_are_restored_after_concurrent_calls():
    controls = blas._openblas()
    if controls.get is None:
        pytest.skip("numpy is not linked with OpenBLAS here")
    before = controls.get()
    seen: list[int] = []
    barrier = threading.Barrier(3)

    def user() -> None:
        with blas.single_threaded_blas():
            barrier.wait()
            seen.append(controls.get())
            barrier.wait()

    threads = [threading.Thread(target=user) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen == [1, 1, 1]
    assert controls.get() == before


def test_a_sum_of_negative_zero_products_is_positive_zero():
    """A dot product starts at +0 (StableHLO's dot_general): -1 * 0 alone gives +0."""
    lhs = np.array([[-1.0], [0.0]], np.float32)
    rhs = np.array([[0.0, -0.0]], np.float32)
    out = np.empty((2, 2), np.float32)
    blas.parallel_matmul(lhs, rhs, out, 1)
    assert not np.signbit(out).any()
