"""The native disc_ral_call (disc_ir.runtime.native): CPU kernel launches split over the
pthread pool cover the index space exactly once; errors fall back to / follow the Python
dispatcher; other APIs are forwarded to Python."""

from __future__ import annotations

import ctypes
import threading
import time

import numpy as np
import pytest

from disc_ir.runtime import RalContext, RalContextOptions, RalError
from disc_ir.runtime.abi import decode_ral_api_name
from disc_ir.runtime.dispatch import DISC_RAL_CALL_TYPE, _pack_value
from disc_ir.runtime.native import (
    CHUNKS_PER_THREAD,
    CPU_LAUNCH_NAME,
    WORD_ERROR,
    WORD_FAST_LAUNCH,
    native_runtime,
)
from disc_ir.runtime.registry import (
    GLOBAL_REGISTRY,
    I64,
    ApiRegistry,
    CStr,
    Ctx,
    MemRef,
    Ptr,
    PVoid,
    ral_api,
)

KERNEL_TYPE = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
)

pytestmark = pytest.mark.skipif(native_runtime() is None, reason="no native runtime here")


def _native_call(exec_ctx, name: str, *args) -> None:
    """Calls ``name`` through the native dispatcher, with slots laid out as compiled code does."""
    _, _, arg_types, _ = decode_ral_api_name(name)
    keep: list = []
    addresses: list[int] = []
    for rtype, value in zip(arg_types, (exec_ctx, *args), strict=True):
        addresses += _pack_value(rtype, value, exec_ctx, keep)
    slots = (ctypes.c_void_p * len(addresses))(*addresses)
    native = DISC_RAL_CALL_TYPE(native_runtime().dispatch_address)
    native(exec_ctx.handle, name.encode(), ctypes.cast(slots, ctypes.POINTER(ctypes.c_void_p)))


class BoxRecorder:
    """A kernel that records the boxes it is called on (from any thread)."""

    def __init__(
        self,
        rank: int,
        delay_s: float = 0.0,
        slow_thread_delay_s: float = 0.0,
        caller: int | None = None,
    ):
        self.rank = rank
        self.delay_s = delay_s
        self.slow_thread_delay_s = slow_thread_delay_s
        self.caller = caller
        self.boxes: list[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]] = []
        self.box_threads: list[int] = []
        self.threads: set[int] = set()
        self.lock = threading.Lock()
        self.cfunc = KERNEL_TYPE(self._run)
        self.address = ctypes.cast(self.cfunc, ctypes.c_void_p).value

    def _run(self, lb: int, ub: int, step: int, params: int) -> None:
        read = lambda p: tuple((ctypes.c_int64 * self.rank).from_address(p))  # noqa: E731
        me = threading.get_ident()
        with self.lock:
            self.boxes.append((read(lb), read(ub), read(step)))
            self.box_threads.append(me)
            self.threads.add(me)
        # sleeping releases the GIL, so other threads can claim chunks meanwhile
        if self.caller is not None and me != self.caller:
            time.sleep(self.slow_thread_delay_s)
        elif self.delay_s:
            time.sleep(self.delay_s)

    def visits(self, shape: tuple[int, ...]) -> np.ndarray:
        counts = np.zeros(shape, dtype=np.int64)
        for lb, ub, st in self.boxes:
            counts[tuple(slice(a, b, s) for a, b, s in zip(lb, ub, st, strict=True))] += 1
        return counts


def _launch(exec_ctx, kernel: BoxRecorder | int, lb, ub, step, hint: int = 1) -> None:
    address = kernel.address if isinstance(kernel, BoxRecorder) else kernel
    arrays = [np.asarray(v, dtype=np.int64) for v in (lb, ub, step)]
    _native_call(exec_ctx, CPU_LAUNCH_NAME, "kernel", *arrays, hint, address, 0)


@pytest.mark.parametrize(
    "lb, ub, step",
    [
        ((0, 0), (1, 8), (1, 1)),
        ((0, 0), (37, 5), (1, 1)),
        ((2,), (103,), (3,)),
        ((0, 1, 0), (1, 2, 9), (1, 1, 4)),
        ((0, 0), (0, 5), (1, 1)),
    ],
)
def test_launch_covers_every_index_once(lb, ub, step):
    with RalContext(RalContextOptions(num_threads=3)) as ctx:
        exec_ctx = ctx.create_execution_context([])
        assert exec_ctx.native[WORD_FAST_LAUNCH] == 1
        kernel = BoxRecorder(len(lb))
        _launch(exec_ctx, kernel, lb, ub, step)
        shape = tuple(ub)
        expected = np.zeros(shape, dtype=np.int64)
        expected[tuple(slice(a, b, s) for a, b, s in zip(lb, ub, step, strict=True))] = 1
        np.testing.assert_array_equal(kernel.visits(shape), expected)
        exec_ctx.raise_if_error()
        exec_ctx.finish()


def test_launch_runs_on_several_threads():
    with RalContext(RalContextOptions(num_threads=2)) as ctx:
        exec_ctx = ctx.create_execution_context([])
        kernel = BoxRecorder(1, delay_s=0.002)
        for _ in range(20):
            _launch(exec_ctx, kernel, (0,), (64,), (1,))
        # 2 threads x CHUNKS_PER_THREAD chunks of 64 / 8 indices per launch, claimed by both
        assert len(kernel.boxes) == 20 * 2 * CHUNKS_PER_THREAD
        assert {ub[0] - lb[0] for lb, ub, _ in kernel.boxes} == {64 // (2 * CHUNKS_PER_THREAD)}
        np.testing.assert_array_equal(kernel.visits((64,)), np.full(64, 20))
        assert len(kernel.threads) == 2
        exec_ctx.finish()


def test_launch_finishes_without_a_slow_worker():
    """Chunks are claimed dynamically: while a worker is stuck in its chunk, the
    caller runs all the others (a fixed split would leave half the work waiting)."""
    with RalContext(RalContextOptions(num_threads=2)) as ctx:
        exec_ctx = ctx.create_execution_context([])
        caller = threading.get_ident()
        kernel = BoxRecorder(1, delay_s=0.0, slow_thread_delay_s=0.3, caller=caller)
        _launch(exec_ctx, kernel, (0,), (16,), (1,))
        np.testing.assert_array_equal(kernel.visits((16,)), np.ones(16))
        by_caller = sum(1 for t in kernel.box_threads if t == caller)
        if len(kernel.threads) == 2:  # the worker claimed (at most) one chunk and slept in it
            assert by_caller == 2 * CHUNKS_PER_THREAD - 1
        exec_ctx.finish()


def test_launch_skipped_after_an_error():
    with RalContext() as ctx:
        exec_ctx = ctx.create_execution_context([])
        exec_ctx.signal_error("earlier failure")
        assert exec_ctx.native[WORD_ERROR] == 1
        kernel = BoxRecorder(1)
        _launch(exec_ctx, kernel, (0,), (16,), (1,))
        assert kernel.boxes == []
        exec_ctx.finish()


def test_bad_launches_are_reported_by_the_python_dispatcher():
    with RalContext() as ctx:
        exec_ctx = ctx.create_execution_context([])
        _launch(exec_ctx, BoxRecorder(1), (0,), (16,), (0,))
        with pytest.raises(RalError, match="non-positive loop step"):
            exec_ctx.raise_if_error()
        exec_ctx.finish()
        exec_ctx = ctx.create_execution_context([])
        _launch(exec_ctx, 0, (0,), (16,), (1,))
        with pytest.raises(RalError, match="null kernel pointer"):
            exec_ctx.raise_if_error()
        exec_ctx.finish()


def test_other_apis_go_to_python():
    with RalContext() as ctx:
        exec_ctx = ctx.create_execution_context([np.arange(6, dtype=np.float32).reshape(2, 3)])
        out = np.zeros((2, 3), dtype=np.float32)
        _native_call(exec_ctx, "ral_send_output___cpu___pvoid_i64_m2df32___void", 0, out)
        (result,) = exec_ctx.collect_outputs()
        assert result.shape == (2, 3)
        exec_ctx.finish()


def test_overridden_launch_entry_disables_the_native_path():

    registry = ApiRegistry(GLOBAL_REGISTRY)
    calls = []

    @ral_api("ral_kernel_launch", "cpu", registry=registry, replace=True)
    def launch(
        ctx: Ctx,
        name: CStr,
        lb: MemRef[1, I64],
        ub: MemRef[1, I64],
        step: MemRef[1, I64],
        hint: I64,
        kernel: PVoid,
        params: Ptr[PVoid],
    ) -> None:
        calls.append(name)

    assert CPU_LAUNCH_NAME in launch.ral_api_names
    with RalContext(registry=registry) as ctx:
        exec_ctx = ctx.create_execution_context([])
        assert exec_ctx.native[WORD_FAST_LAUNCH] == 0
        _launch(exec_ctx, BoxRecorder(1), (0,), (16,), (1,))
        assert calls == ["kernel"]
        exec_ctx.finish()


def _launch_in_child(queue) -> None:
    with RalContext(RalContextOptions(num_threads=2)) as ctx:
        exec_ctx = ctx.create_execution_context([])
        kernel = BoxRecorder(1)
        _launch(exec_ctx, kernel, (0,), (32,), (1,))
        queue.put(int(kernel.visits((32,)).sum()))
        exec_ctx.finish()


def test_launch_in_a_forked_child():
    import multiprocessing
    import os

    if not hasattr(os, "fork"):
        pytest.skip("no fork here")
    with RalContext(RalContextOptions(num_threads=2)) as ctx:  # the pool exists in the parent
        exec_ctx = ctx.create_execution_context([])
        _launch(exec_ctx, BoxRecorder(1), (0,), (8,), (1,))
        exec_ctx.finish()
    mp = multiprocessing.get_context("fork")
    queue = mp.Queue()
    child = mp.Process(target=_launch_in_child, args=(queue,))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert queue.get(timeout=5) == 32


# Launches of alternating sizes, back to back, with more pool threads than cores:
# workers often wake for a launch that the caller has already finished alone. Such a
# worker must not take the next launch's chunk count with the finished launch's
# generation (it ran a stale chunk on the next launch's words and counted it there:
# a segfault or a caller waiting forever). Run in a child so a crash or a hang is a
# failure, not the end of the test session.
_BACK_TO_BACK = """
import numpy as np
import disc_ir
graph = '''
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mhlo.tanh %x : tensor<?xf32>
  %1 = mhlo.multiply %0, %x : tensor<?xf32>
  return %1 : tensor<?xf32>
}
'''
exe = disc_ir.compile(graph, num_threads=16)
xs = [np.linspace(-2.0, 2.0, n, dtype=np.float32) for n in range(17)]
wants = [np.tanh(x) * x for x in xs]
wrong = 0
for i in range(CALLS):
    (out,) = exe(xs[i % 17])
    wrong += not np.allclose(out, wants[i % 17], rtol=1e-5, atol=1e-6)
print("wrong", wrong)
"""


def test_back_to_back_launches_of_different_sizes():
    import subprocess
    import sys

    script = _BACK_TO_BACK.replace("CALLS", "60000")
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=240
        )
    except subprocess.TimeoutExpired:
        pytest.fail("launches hung (a caller waiting for chunks no thread runs)")
    assert done.returncode == 0, f"the child ended with {done.returncode}: {done.stderr[-2000:]}"
    assert done.stdout.split()[-2:] == ["wrong", "0"], done.stdout[-500:]
