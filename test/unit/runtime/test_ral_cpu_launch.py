"""ral_kernel_launch on cpu: a JIT'd packed kernel over a partitioned index space,
run on the thread pool; the partitioning covers the space exactly once."""

from __future__ import annotations

import itertools
import threading

import numpy as np
import pytest
from conftest import RECORD

from disc_ir.runtime import RalContext, RalContextOptions, RalError
from disc_ir.runtime.drivers.cpu import partition_index_space
from disc_ir.runtime.native import CHUNKS_PER_THREAD
from disc_ir.runtime.registry import GLOBAL_REGISTRY, I64, ApiRegistry, Ctx, ral_api


def _recording_context(num_threads: int) -> tuple[RalContext, list[tuple[int, int]]]:
    calls: list[tuple[int, int]] = []
    registry = ApiRegistry(GLOBAL_REGISTRY)

    @ral_api("test_record_thread", "cpu", registry=registry)
    def record(ctx: Ctx, lower: I64) -> None:
        calls.append((threading.get_ident(), lower))

    assert RECORD in record.ral_api_names
    ctx = RalContext(RalContextOptions(num_threads=num_threads), registry=registry)
    return ctx, calls


@pytest.mark.parametrize("shape", [(1, 1), (4, 5), (37, 3), (2, 300), (64, 64)])
def test_packed_kernel_launch_matches_numpy(launch_jit, shape):
    ctx, calls = _recording_context(num_threads=4)
    x = np.random.default_rng(1).standard_normal(shape, dtype=np.float32)
    (out,) = ctx.execute(launch_jit.function_address("main"), [x])
    np.testing.assert_allclose(out, x * 2 + 1, rtol=1e-6)
    assert 1 <= len(calls)


def test_launch_covers_the_rows_in_chunks(launch_jit):
    ctx, calls = _recording_context(num_threads=4)
    x = np.ones((64, 8), dtype=np.float32)
    ctx.execute(launch_jit.function_address("main"), [x])
    # The native launch: 4 threads x CHUNKS_PER_THREAD chunks claimed dynamically
    # (test_ral_native_launch checks that workers take part); the Python one
    # (DISC_RAL_NATIVE=0): 4 partitions. Either way evenly sized, every row once.
    chunks = 4 * (CHUNKS_PER_THREAD if ctx.get_driver("cpu")._native_launch else 1)
    assert sorted(lower for _, lower in calls) == list(range(0, 64, 64 // chunks))


def test_empty_index_space_launches_nothing(launch_jit):
    ctx, calls = _recording_context(num_threads=4)
    (out,) = ctx.execute(launch_jit.function_address("main"), [np.ones((0, 3), np.float32)])
    assert out.shape == (0, 3) and calls == []


def _covered(tasks_by_part, lower, upper, step):
    seen = []
    for tasks in tasks_by_part:
        for lb, ub, st in tasks:
            ranges = [range(lo, hi, s) for lo, hi, s in zip(lb, ub, st, strict=True)]
            seen.extend(itertools.product(*ranges))
    full = list(
        itertools.product(*[range(lo, hi, s) for lo, hi, s in zip(lower, upper, step, strict=True)])
    )
    return sorted(seen), sorted(full)


@pytest.mark.parametrize(
    "lower,upper,step,cores",
    [
        ((0,), (10,), (1,), 4),
        ((0, 0), (3, 5), (1, 1), 4),
        ((0, 0, 0), (2, 3, 7), (1, 1, 2), 5),
        ((2, 1), (9, 20), (3, 4), 8),
        ((0, 0), (1, 1), (1, 1), 16),
        ((0, 0), (7, 2), (1, 1), 3),
    ],
)
def test_partition_covers_space_exactly_once(lower, upper, step, cores):
    plan = partition_index_space(lower, upper, step, cores)
    seen, full = _covered(plan, lower, upper, step)
    assert seen == full
    assert 1 <= len(plan) <= cores


def test_partition_rejects_non_positive_step():
    with pytest.raises(RalError, match="non-positive loop step"):
        partition_index_space((0,), (4,), (0,), 2)
