"""The API registry: @ral_api expansion of generic entries, dispatch from Python,
native entries, unknown names."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from disc_ir.runtime import RalContext, UnknownRalApiError
from disc_ir.runtime.dispatch import call_api
from disc_ir.runtime.registry import (
    F16,
    F32,
    F64,
    GLOBAL_REGISTRY,
    I1,
    I32,
    I64,
    ApiRegistry,
    CStr,
    Ctx,
    MemRef,
    Ptr,
    PVoid,
    Var,
    ral_api,
)

N = Var("N")
T = Var("T")


def test_generic_entry_expands_to_one_name_per_signature():
    registry = ApiRegistry()

    @ral_api("ral_gemm", "cpu", registry=registry, T=("f32", "f64", "f16"))
    def gemm(ctx: Ctx, s: PVoid, a: MemRef[2, T], b: MemRef[2, T], c: MemRef[2, T], x: I1, y: I1):
        pass

    assert sorted(gemm.ral_api_names) == sorted(
        f"ral_gemm___cpu___pvoid_pvoid_m2d{t}_m2d{t}_m2d{t}_i1_i1___void"
        for t in ("f32", "f64", "f16")
    )
    assert len(registry) == 3
    with pytest.raises(ValueError, match="already registered"):
        ral_api("ral_gemm", "cpu", registry=registry, T=("f32",))(gemm)


def test_scalar_pointer_string_and_tuple_results():
    registry = ApiRegistry(GLOBAL_REGISTRY)

    @ral_api("scale", "cpu", registry=registry, N=(1, 2))
    def scale(ctx: Ctx, x: MemRef[N, F32], factor: F64, name: CStr) -> tuple[I64, F16, PVoid]:
        from disc_ir.runtime.memref import numpy_view

        numpy_view(x)[...] *= factor
        return x.num_elements, 0.5, 1234

    ctx = RalContext(registry=registry)
    with ctx.create_execution_context([]) as ec:
        x = np.arange(6, dtype=np.float32).reshape(2, 3)
        name = "scale___cpu___pvoid_m2df32_f64_pvoid___i64_f16_pvoid"
        assert name in scale.ral_api_names
        assert call_api(ec, name, ec, x, 3.0, "hello") == (6, 0.5, 1234)
        np.testing.assert_array_equal(x, np.arange(6).reshape(2, 3) * 3)


def test_unknown_name_error_lists_closest():
    ctx = RalContext()
    with ctx.create_execution_context([]) as ec:
        with pytest.raises(UnknownRalApiError) as info:
            call_api(ec, "alloc___cpu___pvoid_i32___pvoid", ec, 4)
    assert "alloc___cpu___pvoid_i32___pvoid" in str(info.value)
    assert info.value.closest[0] == "alloc___cpu___pvoid_i64___pvoid"


def test_ral_debug_names_are_ignored():
    ctx = RalContext()
    with ctx.create_execution_context([]) as ec:
        assert call_api(ec, "ral_debug_print___cpu___pvoid___void", ec) is None
        assert ec.error is None


def test_native_entry():
    """A C-level ``void f(void** args)`` entry: here a JIT'd function adding two i32."""
    from disc_ir.runtime.jit import JitModule

    jit = JitModule(
        """
define void @add_i32(ptr %args) {
  %p1 = getelementptr ptr, ptr %args, i64 1
  %p2 = getelementptr ptr, ptr %args, i64 2
  %p3 = getelementptr ptr, ptr %args, i64 3
  %a1 = load ptr, ptr %p1
  %a2 = load ptr, ptr %p2
  %r = load ptr, ptr %p3
  %x = load i32, ptr %a1
  %y = load i32, ptr %a2
  %s = add i32 %x, %y
  store i32 %s, ptr %r
  ret void
}
"""
    )
    registry = ApiRegistry(GLOBAL_REGISTRY)
    name = "add___cpu___pvoid_i32_i32___i32"
    registry.register_native(name, jit.function_address("add_i32"))
    ctx = RalContext(registry=registry)
    with ctx.create_execution_context([]) as ec:
        assert call_api(ec, name, ec, 40, 2) == 42


def test_alloc_dealloc_caching_and_inc_ref():
    ctx = RalContext()
    driver = ctx.get_driver("cpu")
    with ctx.create_execution_context([]) as ec:
        p = call_api(ec, "alloc___cpu___pvoid_i64___pvoid", ec, 100)
        assert p % 64 == 0
        call_api(ec, "dealloc___cpu___pvoid_pvoid___void", ec, p)
        q = call_api(ec, "alloc___cpu___pvoid_i64___pvoid", ec, 100)
        assert q == p  # reused from the cache
        arr = np.ndarray((25,), np.float32, buffer=(ctypes.c_char * 100).from_address(q))
        arr[...] = 1.5
        from disc_ir.runtime.memref import MemRefDescriptor

        desc = MemRefDescriptor(q, q, 0, (25,), (1,), I32.resolve({}))  # type: ignore[arg-type]
        shape = np.array([5, 5], dtype=np.int64)
        view = call_api(
            ec, "inc_ref___cpu___pvoid_pvoid_m1di32_m1di64___m2di32", ec, 0, desc, shape
        )
        assert view.sizes == (5, 5) and view.strides == (5, 1) and view.aligned == q
        call_api(ec, "dealloc___cpu___pvoid_pvoid___void", ec, q)
        assert q in driver.allocator.live  # one reference left
        call_api(ec, "dealloc___cpu___pvoid_pvoid___void", ec, q)
        assert q not in driver.allocator.live
    _ = Ptr  # exported marker


def test_annotation_required():
    registry = ApiRegistry()
    with pytest.raises(TypeError, match="needs an ABI annotation"):

        @ral_api("bad", "cpu", registry=registry)
        def bad(ctx, x: I32):  # noqa: ANN001
            pass
