"""Calling an `Executable` many times leaks no memory.

Each graph runs 100,000 times after a warm-up; the process's resident memory
(`/proc/self/statm`) may grow by at most `RSS_BOUND` over those calls: per-call
RAL state (execution contexts, native context records, buffers, ctypes
objects, caches keyed by shape) must all be released. What stays is the
allocator's high-water mark, reached in the warm-up. Calls that fail (a bad
input refused before running, a shape assertion failing inside the compiled
code) release what they held too.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import numpy as np
import pytest

import disc_ir
from disc_ir.runtime import RalInputError, ShapeAssertionError

pytestmark = pytest.mark.skipif(
    not os.path.exists("/proc/self/statm"), reason="reads the resident size from /proc"
)

CALLS = 100_000
WARM_UP = 3_000
#: how much the resident size may grow over `CALLS` calls after the warm-up
RSS_BOUND = 8 * 2**20

TANH_PLUS_ONE = """
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %s = shape.shape_of %x : tensor<?xf32> -> tensor<1xindex>
  %one = mhlo.constant dense<1.000000e+00> : tensor<f32>
  %ob = "mhlo.dynamic_broadcast_in_dim"(%one, %s) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
  %0 = mhlo.tanh %x : tensor<?xf32>
  %1 = mhlo.add %0, %ob : tensor<?xf32>
  return %1 : tensor<?xf32>
}
"""

# the output's length is a value of the input `n` (a data-dependent shape)
DYNAMIC_OUTPUT = """
func.func @main(%x: tensor<?xf32>, %n: tensor<1xi64>) -> tensor<?xf32> {
  %0 = "mhlo.dynamic_iota"(%n) {iota_dimension = 0 : i64} : (tensor<1xi64>) -> tensor<?xf32>
  %c0 = mhlo.constant dense<0> : tensor<1xi64>
  %c1 = mhlo.constant dense<1> : tensor<1xi64>
  %1 = mhlo.real_dynamic_slice %x, %c0, %n, %c1 : (tensor<?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<?xf32>
  %2 = mhlo.add %0, %1 : tensor<?xf32>
  return %2 : tensor<?xf32>
}
"""


def resident_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def growth_over(calls: int, call: Callable[[int], object]) -> int:
    """Resident bytes gained over `calls` calls of `call(i)`, after a warm-up."""
    for i in range(WARM_UP):
        call(i)
    before = resident_bytes()
    for i in range(calls):
        call(i)
    return resident_bytes() - before


@pytest.fixture(scope="module")
def x() -> np.ndarray:
    return np.linspace(-2.0, 2.0, 16, dtype=np.float32)


def test_tanh_plus_one_leaks_nothing(x):
    exe = disc_ir.compile(TANH_PLUS_ONE, keep_ir=False)
    want = np.tanh(x) + 1
    np.testing.assert_allclose(exe(x)[0], want, rtol=1e-6)
    grown = growth_over(CALLS, lambda i: exe(x))
    assert grown < RSS_BOUND, f"{CALLS} calls grew the resident size by {grown / 2**20:.1f} MiB"
    np.testing.assert_allclose(exe(x)[0], want, rtol=1e-6)


def test_dynamic_output_shape_leaks_nothing(x):
    exe = disc_ir.compile(DYNAMIC_OUTPUT, keep_ir=False)
    lengths = [np.array([k], np.int64) for k in range(x.size + 1)]  # 0 ... 16
    (out,) = exe(x, lengths[5])
    np.testing.assert_allclose(out, np.arange(5) + x[:5], rtol=1e-6)
    grown = growth_over(CALLS, lambda i: exe(x, lengths[i % len(lengths)]))
    assert grown < RSS_BOUND, f"{CALLS} calls grew the resident size by {grown / 2**20:.1f} MiB"


def test_failing_calls_leak_nothing(x):
    exe = disc_ir.compile(DYNAMIC_OUTPUT, keep_ir=False)
    too_long = np.array([x.size + 1], np.int64)
    wrong_dtype = x.astype(np.float64)
    refs_before = sys.getrefcount(x)

    def fail(i: int) -> None:
        try:
            if i % 2:
                exe(x, too_long)  # the compiled code's shape assertion fails
            else:
                exe(wrong_dtype, too_long)  # refused before running
        except (ShapeAssertionError, RalInputError):
            return
        raise AssertionError("the call did not fail")

    grown = growth_over(CALLS // 5, fail)
    assert grown < RSS_BOUND, f"failing calls grew the resident size by {grown / 2**20:.1f} MiB"
    assert sys.getrefcount(x) == refs_before  # no failed call keeps its input alive
