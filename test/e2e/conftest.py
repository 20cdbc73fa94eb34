"""Helpers of the end-to-end suite: compile MHLO text once, run it at many shapes.

Every graph of the suite is MHLO text with dynamic shapes (`@main`, without a
`tf.entry_function` attribute: `disc_ir.compile` adds the default one). It is compiled once
per test module (`compiled(text)` caches by text; module-scoped fixtures call
it) through `disc_ir.compile(text, target="cpu")` and run at several input
shapes -- 1-sized, odd and, where cheap, larger than a million elements --
against a numpy reference.

Every executable `compiled` returns is cross-checked against the
kernel-launch mode (`disc_ir.compile(text, mode="kernel-launch")`, the graph
run op by op through OKL, each op compiled alone): its first
`CROSS_CHECK_CALLS` calls that succeed also run the graph op by op and
compare (`check_same`); the op kernels are shared across graphs by the
per-op compile cache.

Tolerances: `check` defaults to rtol=1e-5, atol=1e-6 (f32 elementwise work);
tests that reduce over large extents or use polynomial approximations of
transcendental functions pass a looser rtol (at most 1e-4) and say why.
Inputs are seeded random data, never all zeros.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

RTOL = 1e-5
ATOL = 1e-6
#: the loosest relative tolerance any test may use
MAX_RTOL = 1e-4

#: calls of each graph's executable checked against the kernel-launch mode
CROSS_CHECK_CALLS = 2

_CACHE: dict[str, Any] = {}


def check_same(fused: np.ndarray, op_by_op: np.ndarray, what: str) -> None:
    """The fused and kernel-launch outputs agree: same shape and dtype, equal
    integers and booleans, floats within rtol 1e-4 (atol 1e-5 of the largest
    magnitude; NaN where NaN)."""
    assert fused.shape == op_by_op.shape, f"{what}: shape {fused.shape} != {op_by_op.shape}"
    assert fused.dtype == op_by_op.dtype, f"{what}: dtype {fused.dtype} != {op_by_op.dtype}"
    if fused.dtype.kind in "biu":
        np.testing.assert_array_equal(fused, op_by_op, err_msg=what)
        return
    finite = np.abs(fused[np.isfinite(fused)]).astype(np.float64)
    scale = float(finite.max()) if finite.size else 0.0
    np.testing.assert_allclose(
        fused, op_by_op, rtol=MAX_RTOL, atol=1e-5 * scale, equal_nan=True, err_msg=what
    )


class CrossChecked:
    """A graph's fused executable whose first `CROSS_CHECK_CALLS` successful
    calls are repeated in the kernel-launch mode and compared (`check_same`).
    Everything else is the executable's (`exe.close()`, `exe.llvm_ir`...)."""

    def __init__(self, text: str, exe: Any) -> None:
        self._text = text
        self._exe = exe
        self._checked = 0
        self._op_by_op: Any = None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._exe, name)

    def __call__(self, *inputs: Any) -> Any:
        out = self._exe(*inputs)
        if self._checked < CROSS_CHECK_CALLS:
            self._checked += 1
            if self._op_by_op is None:
                import disc_ir

                self._op_by_op = disc_ir.compile(self._text, mode="kernel-launch")
            reference = self._op_by_op(*inputs)
            assert len(reference) == len(out)
            for i, (a, b) in enumerate(zip(out, reference, strict=True)):
                check_same(np.asarray(a), np.asarray(b), f"kernel-launch mode, output #{i}")
        return out


def compiled(text: str) -> Callable[..., tuple[np.ndarray, ...]]:
    """The executable of graph `text` for the CPU, compiled once per process
    (cross-checked against the kernel-launch mode: `CrossChecked`)."""
    exe = _CACHE.get(text)
    if exe is None:
        import disc_ir

        exe = CrossChecked(text, disc_ir.compile(text, target="cpu", keep_ir=False))
        _CACHE[text] = exe
    return exe


def run(exe: Callable[..., Any], *inputs: np.ndarray) -> tuple[np.ndarray, ...]:
    """Runs `exe` and returns its outputs as a tuple of ndarrays."""
    out = exe(*inputs)
    if isinstance(out, np.ndarray):
        return (out,)
    return tuple(np.asarray(o) for o in out)


def rng(*key: Any) -> np.random.Generator:
    """A generator seeded from `key` (test name, shape...), so data is reproducible."""
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def rand(
    gen: np.random.Generator,
    shape: Sequence[int],
    dtype: Any = np.float32,
    low: float = -2.0,
    high: float = 2.0,
) -> np.ndarray:
    """Random data of `shape`/`dtype` in [low, high); integers never all zero, bools mixed."""
    dtype = np.dtype(dtype)
    shape = tuple(shape)
    if dtype == np.bool_:
        return gen.random(shape) < 0.5
    if dtype.kind in "iu":
        lo, hi = int(low), int(high)
        if hi - lo < 2:
            lo, hi = lo - 5, hi + 5
        return gen.integers(lo, hi, size=shape, dtype=dtype)
    return gen.uniform(low, high, size=shape).astype(dtype)


def check(
    actual: np.ndarray,
    expected: np.ndarray,
    rtol: float = RTOL,
    atol: float = ATOL,
) -> None:
    """Same shape and dtype, and values close (exact for integers and booleans)."""
    assert rtol <= MAX_RTOL, "tolerances above 1e-4 are not allowed in the e2e suite"
    expected = np.asarray(expected)
    assert actual.shape == expected.shape, f"shape {actual.shape} != expected {expected.shape}"
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != expected {expected.dtype}"
    if expected.dtype.kind in "biu":
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


@pytest.fixture(scope="session")
def compile_graph() -> Callable[[str], Callable[..., Any]]:
    """`compile_graph(text)`: the cached executable of an MHLO graph."""
    return compiled
