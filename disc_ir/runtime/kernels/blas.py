"""How the CPU library kernels use numpy's BLAS: one BLAS thread per caller,
parallelism from the RAL's own threads.

numpy's wheels link OpenBLAS (``scipy-openblas``), whose worker threads
busy-wait for a while after every call. Next to the RAL's kernel-launch pool
(and XLA's or any other runtime's threads) that oversubscribes the cores: on
a loaded machine a small sgemm then waits on spinning threads far longer than
it computes. As BladeDISC runs its CPU library calls on the
context's thread count (oneDNN on ``OMP_NUM_THREADS``), ``ral_gemm`` and
``ral_conv`` here split their matmuls into at most ``num_threads`` parts
(batch matrices or row blocks) run on the RAL's thread pool, each a
single-threaded BLAS call: :func:`single_threaded_blas` holds OpenBLAS at one
thread while any such call runs and restores its setting after the last one.
With another BLAS (or none found) the setting is left alone.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from contextlib import contextmanager
from typing import Any

import numpy as np

#: multiply-adds a part must have at least before a matmul is split
MIN_PART_WORK = 1 << 21


class _OpenBlasThreads:
    """The thread-count controls of the OpenBLAS numpy is linked with (or nothing)."""

    def __init__(self) -> None:
        self.get: Callable[[], int] | None = None
        self.set: Callable[[int], None] | None = None
        self._lock = threading.Lock()
        self._users = 0
        self._saved = 0
        self._find()

    def _find(self) -> None:
        # numpy is imported, so its BLAS is mapped into this process: look it up by path.
        try:
            with open("/proc/self/maps") as maps:
                paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
        except OSError:
            return
        for path in sorted(paths):
            if not path.startswith("/"):
                continue
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            for get_name, set_name in (
                ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
                ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
                ("openblas_get_num_threads", "openblas_set_num_threads"),
            ):
                getter = getattr(lib, get_name, None)
                setter = getattr(lib, set_name, None)
                if getter is None or setter is None:
                    continue
                getter.restype = ctypes.c_int
                getter.argtypes = []
                setter.restype = None
                setter.argtypes = [ctypes.c_int]
                self.get, self.set = getter, setter
                return

    def acquire(self) -> None:
        """One more caller needs single-threaded BLAS (the first one sets it)."""
        if self.set is None or self.get is None:
            return
        with self._lock:
            if self._users == 0:
                self._saved = int(self.get())
                if self._saved != 1:
                    self.set(1)
            self._users += 1

    def release(self) -> None:
        """One caller less; the last one restores the saved thread count."""
        if self.set is None:
            return
        with self._lock:
            self._users -= 1
            if self._users == 0 and self._saved not in (0, 1):
                self.set(self._saved)


_OPENBLAS: _OpenBlasThreads | None = None
_OPENBLAS_LOCK = threading.Lock()


def _openblas() -> _OpenBlasThreads:
    global _OPENBLAS
    if _OPENBLAS is None:
        with _OPENBLAS_LOCK:
            if _OPENBLAS is None:
                _OPENBLAS = _OpenBlasThreads()
    return _OPENBLAS


@contextmanager
def single_threaded_blas() -> Iterator[None]:
    """Runs the block with numpy's BLAS (OpenBLAS) at one thread per call."""
    controls = _openblas()
    controls.acquire()
    try:
        yield
    finally:
        controls.release()


def _num_parts(work: int, extent: int, num_threads: int) -> int:
    return max(1, min(num_threads, extent, work // MIN_PART_WORK))


def parallel_matmul(lhs: np.ndarray, rhs: np.ndarray, out: np.ndarray, num_threads: int) -> None:
    """``out[...] = lhs @ rhs`` (the three with equal leading batch dims), split
    into at most ``num_threads`` parts on the RAL thread pool when large enough:
    over the batch matrices when there are enough of them, else over row blocks.
    Each part is one single-threaded BLAS call. ``out`` must not overlap the inputs.
    """
    m, k = lhs.shape[-2], lhs.shape[-1]
    n = rhs.shape[-1]
    batch_shape = out.shape[:-2]
    batch = int(np.prod(batch_shape, dtype=np.int64)) if batch_shape else 1
    work = batch * m * n * k
    with single_threaded_blas():
        if batch >= num_threads and batch > 1:
            parts = _num_parts(work, batch, num_threads)
            if parts > 1:
                lhs_b = lhs.reshape(batch, m, k)
                rhs_b = rhs.reshape(batch, k, n)
                out_b = out.reshape(batch, m, n)  # a view when `out` is contiguous
                if np.may_share_memory(out_b, out):
                    _run_parts(parts, batch, lambda s: _matmul(lhs_b[s], rhs_b[s], out_b[s]))
                    return
        else:
            parts = _num_parts(work, m, num_threads)
            if parts > 1:
                _run_parts(
                    parts,
                    m,
                    lambda s: _matmul(lhs[..., s, :], rhs, out[..., s, :]),
                )
                return
        _matmul(lhs, rhs, out)


def _matmul(lhs: np.ndarray, rhs: np.ndarray, out: np.ndarray) -> None:
    """``out[...] = lhs @ rhs`` in IEEE arithmetic without numpy's warnings (NaN and
    inf inputs give NaN and inf results, as XLA computes them, silently).

    A dot product is a sum that starts at +0 (StableHLO's `dot_general`): BLAS
    starts at the first product, so a sum of products that are all -0 (one
    product `-1 * 0`, say) would keep the sign; adding +0 gives the spec's +0
    and changes no other value."""
    with np.errstate(all="ignore"):
        np.matmul(lhs, rhs, out=out)
        if out.dtype.kind == "f":
            np.add(out, 0.0, out=out)


def _run_parts(parts: int, extent: int, run: Callable[[slice], Any]) -> None:
    """Runs ``run(slice)`` for ``parts`` contiguous slices of ``range(extent)``:
    part 0 on this thread, the others on the RAL's CPU thread pool."""
    from disc_ir.runtime.drivers.cpu import thread_pool

    bounds = [p * extent // parts for p in range(parts + 1)]
    slices = [slice(bounds[p], bounds[p + 1]) for p in range(parts)]
    pool = thread_pool(parts - 1)
    futures: list[Future[Any]] = [pool.submit(run, s) for s in slices[1:]]
    try:
        run(slices[0])
    finally:
        for future in futures:
            future.result()
