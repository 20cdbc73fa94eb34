"""disc_ral_call from JIT-compiled, hand-written LLVM IR: recv_input, alloc, a library
gemm, send_output; errors raised after the entry returns."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import GEMM, gemm_module_text

from disc_ir.runtime import (
    InputSpec,
    RalContext,
    RalInputError,
    UnknownRalApiError,
)
from disc_ir.runtime.jit import JitModule


def test_gemm_module_matches_numpy(gemm_jit):
    ctx = RalContext()
    main = gemm_jit.function_address("main")
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 7), dtype=np.float32)
    b = rng.standard_normal((3, 7), dtype=np.float32)
    (out,) = ctx.execute(main, [a, b])
    np.testing.assert_allclose(out, a @ b.T, rtol=1e-5, atol=1e-5)
    assert out.dtype == np.float32 and out.shape == (5, 3)
    # The output owns its buffer: a later call does not overwrite it.
    kept = out.copy()
    (out2,) = ctx.execute(main, [a * 2, b])
    np.testing.assert_array_equal(out, kept)
    np.testing.assert_allclose(out2, 2 * (a @ b.T), rtol=1e-5, atol=1e-5)
    ctx.close()


def test_dynamic_shapes_one_context(gemm_jit):
    ctx = RalContext()
    main = gemm_jit.function_address("main")
    for m, n, k in [(1, 1, 1), (8, 4, 16), (33, 17, 9), (0, 3, 4)]:
        a = np.arange(m * k, dtype=np.float32).reshape(m, k)
        b = np.ones((n, k), dtype=np.float32)
        (out,) = ctx.execute(main, [a, b])
        np.testing.assert_allclose(out, a @ b.T)


def test_non_contiguous_input_is_accepted(gemm_jit):
    ctx = RalContext()
    a = np.arange(40, dtype=np.float32).reshape(5, 8)[:, ::2]
    b = np.ones((2, 4), dtype=np.float32)
    (out,) = ctx.execute(gemm_jit.function_address("main"), [a, b])
    np.testing.assert_allclose(out, a @ b.T)


def test_wrong_input_dtype_names_input_expected_and_actual(gemm_jit):
    ctx = RalContext()
    a = np.ones((2, 3), dtype=np.float64)
    b = np.ones((2, 3), dtype=np.float32)
    with pytest.raises(RalInputError) as info:
        ctx.execute(gemm_jit.function_address("main"), [a, b])
    message = str(info.value)
    assert "input #0" in message and "f32" in message and "float64" in message
    # The failed call released everything it allocated.
    assert ctx.get_driver("cpu").allocator.live == {}


def test_wrong_input_rank_names_input_expected_and_actual(gemm_jit):
    ctx = RalContext()
    a = np.ones((2, 3), dtype=np.float32)
    b = np.ones((2, 3, 1), dtype=np.float32)
    with pytest.raises(RalInputError, match=r"input #1: expected a rank-2 f32.*rank-3"):
        ctx.execute(gemm_jit.function_address("main"), [a, b])


def test_input_specs_checked_before_running(gemm_jit):
    specs = [InputSpec("f32", 2, "lhs"), InputSpec("f32", 2, "rhs")]
    ctx = RalContext(input_specs=specs)
    with pytest.raises(RalInputError, match=r"input #1 'rhs'.*rank-2 f32.*int32"):
        ctx.execute(
            gemm_jit.function_address("main"),
            [np.ones((2, 2), np.float32), np.ones((2, 2), np.int32)],
        )
    with pytest.raises(RalInputError, match="expected 2 inputs, got 1"):
        ctx.execute(gemm_jit.function_address("main"), [np.ones((2, 2), np.float32)])


def test_unknown_api_in_compiled_code_is_reported():
    bad = GEMM.replace("_i1_i1___", "_i1_i1_i1_i1___")
    jit = JitModule(gemm_module_text(bad))
    ctx = RalContext()
    with pytest.raises(UnknownRalApiError) as info:
        ctx.execute(
            jit.function_address("main"),
            [np.ones((2, 2), np.float32), np.ones((2, 2), np.float32)],
        )
    assert bad in str(info.value)
    assert GEMM in info.value.closest


def test_const_loading_from_compiled_code(tmp_path):
    """ral_const called from JIT code: loaded once, the same buffer on every call."""
    from _ral_ir_builder import Module, memref_type

    name = "0123456789abcdef0123456789abcdef_f32_2x3"
    m = Module()
    f = m.func("main", "ptr %ctx")
    ctx = ("ptr", "%ctx")
    cname = m.string(name)
    c = f.ral_call(
        m,
        "%ctx",
        "ral_const___cpu___pvoid_pvoid_pvoid_i32___m2df32",
        [ctx, ("ptr", "null"), ("ptr", cname), ("i32", "0")],
        memref_type(2),
    )
    f.ral_call(
        m,
        "%ctx",
        "ral_send_output___cpu___pvoid_i64_m2df32___void",
        [ctx, ("i64", "0")] + f.memref_fields(c, 2),
    )
    jit = JitModule(m.text())
    values = np.arange(6, dtype=np.float32).reshape(2, 3)
    table = {name.split("_")[0]: ("f32", (2, 3), values.tobytes())}
    rctx = RalContext(constants=table)
    (out,) = rctx.execute(jit.function_address("main"), [])
    np.testing.assert_array_equal(out, values)
    out[...] = -1  # the caller's copy; the constant is untouched
    (again,) = rctx.execute(jit.function_address("main"), [])
    np.testing.assert_array_equal(again, values)
