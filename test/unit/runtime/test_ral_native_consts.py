"""The native dispatcher answers CPU ``ral_const`` calls from the RAL context's
constants table once Python has loaded a constant, and holding shape assertions
without Python; the runtime module builds."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from disc_ir.runtime import native
from disc_ir.runtime.drivers.cpu import ral_cpu_const
from disc_ir.runtime.registry import GLOBAL_REGISTRY

# The zoo's layernorm+gelu export: its rank-0 constants stay outside the fused
# kernels on the CPU (no splat-const fusion there) and reach the RAL as
# ral_const calls, one per use and call.
GRAPH = Path(__file__).resolve().parents[2] / "models" / "layernorm_gelu_dyn.mlir"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pthreads via libc")
def test_native_runtime_builds() -> None:
    """A module that fails to build would silently send every call to Python."""
    assert native.native_runtime() is not None, native._RUNTIME_ERROR


@pytest.mark.skipif(native.native_runtime() is None, reason="no native runtime here")
def test_constants_are_answered_natively_after_the_first_call(monkeypatch) -> None:
    import disc_ir

    calls: list[str] = []
    for name in ral_cpu_const.ral_api_names:
        entry = GLOBAL_REGISTRY.find(name)
        stock = entry.invoke

        def counting(exec_ctx, slots, stock=stock, name=name):  # noqa: ANN001, ANN202
            calls.append(name)
            stock(exec_ctx, slots)

        monkeypatch.setattr(entry, "invoke", counting)
    exe = disc_ir.compile(GRAPH)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 768)).astype(np.float32)
    g, b = (rng.standard_normal(768).astype(np.float32) for _ in range(2))
    (first,) = exe(x, g, b)
    first_calls = len(calls)
    assert first_calls >= 2  # the constants went through the RAL
    (again,) = exe(x, g, b)
    (fewer,) = exe(x[:5], g, b)
    np.testing.assert_array_equal(again, first)
    np.testing.assert_array_equal(fewer, first[:5])  # row-wise: same rows, same values
    assert len(calls) == first_calls  # later calls never reached Python
    exe.close()


@pytest.mark.skipif(native.native_runtime() is None, reason="no native runtime here")
def test_holding_shape_assertions_skip_python_failing_ones_still_raise(monkeypatch) -> None:
    import disc_ir
    from disc_ir.runtime.kernels.assertion import ShapeAssertionError

    entry = GLOBAL_REGISTRY.find(native.CPU_SHAPE_ASSERTION_NAME)
    calls: list[int] = []
    stock = entry.invoke

    def counting(exec_ctx, slots):  # noqa: ANN001, ANN202
        calls.append(1)
        stock(exec_ctx, slots)

    monkeypatch.setattr(entry, "invoke", counting)
    exe = disc_ir.compile(GRAPH)  # jax's assertion: rows >= 1
    g = np.ones(768, np.float32)
    (out,) = exe(np.ones((2, 768), np.float32), g, g)
    assert out.shape == (2, 768) and calls == []
    with pytest.raises(
        ShapeAssertionError, match="Expected value >= 1 for dimension variable 'rows'"
    ):
        exe(np.ones((0, 768), np.float32), g, g)
    assert calls  # the failing one reached Python, which raised its message
    (out,) = exe(np.ones((3, 768), np.float32), g, g)
    assert out.shape == (3, 768)
    exe.close()
