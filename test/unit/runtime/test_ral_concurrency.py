"""Concurrent calls on one RalContext: each thread its own shapes, results correct."""

from __future__ import annotations

import threading

import numpy as np

from disc_ir.runtime import RalContext, RalContextOptions
from disc_ir.runtime.registry import GLOBAL_REGISTRY, I64, ApiRegistry, Ctx, ral_api


def test_four_threads_different_shapes(gemm_jit, launch_jit):
    registry = ApiRegistry(GLOBAL_REGISTRY)
    seen_threads: set[int] = set()

    @ral_api("test_record_thread", "cpu", registry=registry)
    def record(ctx: Ctx, lower: I64) -> None:
        seen_threads.add(threading.get_ident())

    ctx = RalContext(RalContextOptions(num_threads=2), registry=registry)
    gemm_main = gemm_jit.function_address("main")
    launch_main = launch_jit.function_address("main")
    failures: list[str] = []
    barrier = threading.Barrier(4)

    def worker(tid: int) -> None:
        try:
            run(tid)
        except Exception as err:  # noqa: BLE001 - reported through `failures`
            failures.append(f"thread {tid}: {type(err).__name__}: {err}")

    def run(tid: int) -> None:
        rng = np.random.default_rng(tid)
        barrier.wait()
        for it in range(25):
            m, n, k = 3 + tid * 5 + it % 3, 2 + tid * 3, 4 + tid
            a = rng.standard_normal((m, k), dtype=np.float32)
            b = rng.standard_normal((n, k), dtype=np.float32)
            (out,) = ctx.execute(gemm_main, [a, b])
            if out.shape != (m, n) or not np.allclose(out, a @ b.T, rtol=1e-4, atol=1e-4):
                failures.append(f"thread {tid} gemm iteration {it}")
            x = rng.standard_normal((7 * (tid + 1) + it, 5 + tid), dtype=np.float32)
            (y,) = ctx.execute(launch_main, [x])
            if y.shape != x.shape or not np.allclose(y, x * 2 + 1, rtol=1e-6):
                failures.append(f"thread {tid} launch iteration {it}")

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == []
    assert len(seen_threads) > 1
    driver = ctx.get_driver("cpu")
    # Every temporary was returned: nothing live remains after the calls.
    assert driver.allocator.live == {}
