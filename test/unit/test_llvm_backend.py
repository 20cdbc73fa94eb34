"""The host backend end to end: func/arith/math/memref/scf -> (convert-scf-to-cf,
disc-to-llvm) -> LLVM IR -> MCJIT at O3 -> run through the RAL runtime, checked
against numpy."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from disc_ir.backend.jit import HostJit
from disc_ir.backend.optimize import optimize_llvm_ir
from disc_ir.backend.target import BackendError, parse_llvm_ir
from disc_ir.backend.translate import module_to_llvm_ir
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import DiscParser
from disc_ir.passes.registry import get_pass
from disc_ir.runtime import RalContext, RalContextOptions, RalInputError


def lower(
    source: str, passes: tuple[str, ...] = ("lower-affine", "convert-scf-to-cf", "disc-to-llvm")
):
    ctx = make_context()
    module = DiscParser(ctx, source).parse_module()
    for name in passes:
        cls = get_pass(name)
        assert cls is not None, name
        cls().apply(ctx, module)
    module.verify()
    return module


def compile_source(source: str, passes: tuple[str, ...] | None = None) -> HostJit:
    module = lower(source) if passes is None else lower(source, passes)
    return HostJit(module_to_llvm_ir(module))


def run(source: str, inputs: list[np.ndarray], entry: str = "main", **kw) -> list[np.ndarray]:
    jit = compile_source(source, **kw)
    with RalContext(RalContextOptions(num_threads=4)) as rc:
        return rc.execute(jit.function_address(entry), inputs)


ELEMENTWISE = """
func.func @main(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?xf32>
  %b = "disc_ral.recv_input"(%ctx, %c1) : (!disc_ral.context, index) -> memref<?xf32>
  %n = memref.dim %a, %c0 : memref<?xf32>
  %out = memref.alloc(%n) : memref<?xf32>
  %tmp = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    %y = memref.load %b[%i] : memref<?xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %tmp[%i] : memref<?xf32>
  }
  scf.for %i = %c0 to %n step %c1 {
    %s = memref.load %tmp[%i] : memref<?xf32>
    %e = math.exp %s : f32
    %m = arith.mulf %e, %s : f32
    memref.store %m, %out[%i] : memref<?xf32>
  }
  memref.dealloc %tmp : memref<?xf32>
  "disc_ral.send_output"(%ctx, %c0, %out) : (!disc_ral.context, index, memref<?xf32>) -> ()
  return
}
"""


def test_elementwise_alloc_dealloc_through_ral():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(1037).astype(np.float32)
    b = rng.standard_normal(1037).astype(np.float32)
    jit = compile_source(ELEMENTWISE)
    with RalContext() as rc:
        driver = rc.get_driver("cpu")
        (out,) = rc.execute(jit.function_address("main"), [a, b])
        # Same code, other sizes: dynamic shapes.
        (out2,) = rc.execute(jit.function_address("main"), [a[:5], b[:5]])
        # The temporary went back to the caching allocator; nothing is leaked.
        assert not driver.allocator.live
    s = a + b
    np.testing.assert_allclose(out, np.exp(s) * s, rtol=1e-5)
    np.testing.assert_allclose(out2, (np.exp(s) * s)[:5], rtol=1e-5)


def test_llvm_ir_has_no_malloc_and_uses_disc_ral_call():
    text = module_to_llvm_ir(lower(ELEMENTWISE))
    assert "malloc" not in text and "@free" not in text
    assert 'declare void @"disc_ral_call"(ptr' in text or "declare void @disc_ral_call(ptr" in text
    assert "alloc___cpu___pvoid_i64___pvoid" in text
    assert "dealloc___cpu___pvoid_pvoid___void" in text
    assert "ral_recv_input___cpu___pvoid_i64___m1df32" in text


def test_loops_vectorize_for_the_host():
    source = ELEMENTWISE.replace("%e = math.exp %s : f32", "%e = arith.addf %s, %s : f32")
    optimized = optimize_llvm_ir(module_to_llvm_ir(lower(source)))
    assert "x float>" in optimized  # e.g. <8 x float> with AVX2, <4 x float> with SSE


ROW_SUM = """
func.func @main(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?x?xf32>
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %m = memref.dim %a, %c1 : memref<?x?xf32>
  %out = memref.alloc(%n) : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %s = scf.parallel (%j) = (%c0) to (%m) step (%c1) init (%zero) -> f32 {
      %x = memref.load %a[%i, %j] : memref<?x?xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %r: f32):
        %t = arith.addf %l, %r : f32
        scf.reduce.return %t : f32
      }
    }
    memref.store %s, %out[%i] : memref<?xf32>
    scf.reduce
  }
  "disc_ral.send_output"(%ctx, %c0, %out) : (!disc_ral.context, index, memref<?xf32>) -> ()
  return
}
"""


def test_parallel_row_reduction():
    a = np.random.default_rng(1).standard_normal((37, 129)).astype(np.float32)
    (out,) = run(ROW_SUM, [a])
    np.testing.assert_allclose(out, a.sum(axis=1), rtol=1e-4, atol=1e-4)


INT_OPS = """
func.func @main(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %a = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?xi32>
  %b = "disc_ral.recv_input"(%ctx, %c1) : (!disc_ral.context, index) -> memref<?xi32>
  %n = memref.dim %a, %c0 : memref<?xi32>
  %out = memref.alloc(%n, %c6) : memref<?x?xi64>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xi32>
    %y = memref.load %b[%i] : memref<?xi32>
    %xi = arith.index_cast %x : i32 to index
    %yi = arith.index_cast %y : i32 to index
    %fd = arith.floordivsi %xi, %yi : index
    %cd = arith.ceildivsi %xi, %yi : index
    %rem = arith.remsi %x, %y : i32
    %mx = arith.maxsi %x, %y : i32
    %lt = arith.cmpi slt, %x, %y : i32
    %sel = arith.select %lt, %x, %y : i32
    %v0 = arith.index_cast %fd : index to i64
    %v1 = arith.index_cast %cd : index to i64
    %v2 = arith.extsi %rem : i32 to i64
    %v3 = arith.extsi %mx : i32 to i64
    %v4 = arith.extsi %sel : i32 to i64
    %v5 = arith.extui %lt : i1 to i64
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    memref.store %v0, %out[%i, %c0] : memref<?x?xi64>
    memref.store %v1, %out[%i, %c1] : memref<?x?xi64>
    memref.store %v2, %out[%i, %c2] : memref<?x?xi64>
    memref.store %v3, %out[%i, %c3] : memref<?x?xi64>
    memref.store %v4, %out[%i, %c4] : memref<?x?xi64>
    memref.store %v5, %out[%i, %c5] : memref<?x?xi64>
  }
  "disc_ral.send_output"(%ctx, %c0, %out) : (!disc_ral.context, index, memref<?x?xi64>) -> ()
  return
}
"""


def test_integer_arith():
    a = np.array([7, -7, 7, -7, 0, 9, -1], dtype=np.int32)
    b = np.array([2, 2, -2, -2, 3, 3, 5], dtype=np.int32)
    (out,) = run(INT_OPS, [a, b])
    expected = np.stack(
        [
            np.floor_divide(a, b),
            -np.floor_divide(-a, b),
            np.fmod(a, b),
            np.maximum(a, b),
            np.minimum(a, b),
            (a < b).astype(np.int64),
        ],
        axis=1,
    ).astype(np.int64)
    np.testing.assert_array_equal(out, expected)


MATH = """
func.func @main(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  %a = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?xf64>
  %n = memref.dim %a, %c0 : memref<?xf64>
  %out = memref.alloc(%n) : memref<7x?xf64>
  %half = arith.constant 0.5 : f64
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf64>
    %t = math.tanh %x : f64
    %e = math.erf %x : f64
    %ax = math.absf %x : f64
    %l = math.log1p %ax : f64
    %p1 = arith.addf %ax, %half : f64
    %r = math.rsqrt %p1 : f64
    %pw = math.powf %p1, %half : f64
    %neg = arith.cmpf olt, %x, %half : f64
    %nf = arith.uitofp %neg : i1 to f64
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %fl = math.floor %x : f64
    memref.store %t, %out[%c0, %i] : memref<7x?xf64>
    memref.store %e, %out[%c1, %i] : memref<7x?xf64>
    memref.store %l, %out[%c2, %i] : memref<7x?xf64>
    memref.store %r, %out[%c3, %i] : memref<7x?xf64>
    memref.store %pw, %out[%c4, %i] : memref<7x?xf64>
    memref.store %nf, %out[%c5, %i] : memref<7x?xf64>
    memref.store %fl, %out[%c6, %i] : memref<7x?xf64>
  }
  "disc_ral.send_output"(%ctx, %c0, %out) : (!disc_ral.context, index, memref<7x?xf64>) -> ()
  return
}
"""


def test_math_intrinsics_and_libm():
    x = np.linspace(-3, 3, 25)
    (out,) = run(MATH, [x])
    erf = np.vectorize(math.erf)
    ax = np.abs(x)
    np.testing.assert_allclose(out[0], np.tanh(x), rtol=1e-12)
    np.testing.assert_allclose(out[1], erf(x), rtol=1e-12)
    np.testing.assert_allclose(out[2], np.log1p(ax), rtol=1e-12)
    np.testing.assert_allclose(out[3], 1 / np.sqrt(ax + 0.5), rtol=1e-12)
    np.testing.assert_allclose(out[4], np.power(ax + 0.5, 0.5), rtol=1e-12)
    np.testing.assert_array_equal(out[5], (x < 0.5).astype(np.float64))
    np.testing.assert_array_equal(out[6], np.floor(x))


VIEWS = """
func.func @main(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<4x6xf32>
  %sub = memref.subview %a[1, 2] [2, 3] [1, 1] : memref<4x6xf32> to memref<2x3xf32, strided<[6, 1], offset: 8>>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<4x6xf32> into memref<24xf32>
  %re = memref.reinterpret_cast %flat to offset: [0], sizes: [6, 4], strides: [4, 1] : memref<24xf32> to memref<6x4xf32>
  %out = memref.alloc() : memref<2x3xf32>
  %out2 = memref.alloc() : memref<6x4xf32>
  %buf = memref.alloca() : memref<2xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %x = memref.load %sub[%i, %j] : memref<2x3xf32, strided<[6, 1], offset: 8>>
      memref.store %x, %buf[%j] : memref<2xf32>
      %y = memref.load %buf[%j] : memref<2xf32>
      memref.store %y, %out[%i, %j] : memref<2x3xf32>
    }
    %x2 = memref.load %sub[%i, %c2] : memref<2x3xf32, strided<[6, 1], offset: 8>>
    memref.store %x2, %out[%i, %c2] : memref<2x3xf32>
  }
  memref.copy %re, %out2 : memref<6x4xf32> to memref<6x4xf32>
  "disc_ral.send_output"(%ctx, %c0, %out) : (!disc_ral.context, index, memref<2x3xf32>) -> ()
  "disc_ral.send_output"(%ctx, %c1, %out2) : (!disc_ral.context, index, memref<6x4xf32>) -> ()
  return
}
"""


def test_views_alloca_and_copy():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    out, out2 = run(VIEWS, [a])
    np.testing.assert_array_equal(out, a[1:3, 2:5])
    np.testing.assert_array_equal(out2, a.reshape(6, 4))


ATOMIC_AND_SWITCH = """
func.func @main(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?xi32>
  %n = memref.dim %a, %c0 : memref<?xi32>
  %acc = memref.alloc() : memref<3xf32>
  memref.store %zero, %acc[%c0] : memref<3xf32>
  memref.store %zero, %acc[%c1] : memref<3xf32>
  %c2 = arith.constant 2 : index
  memref.store %zero, %acc[%c2] : memref<3xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xi32>
    %xi = arith.index_cast %x : i32 to index
    %v = scf.index_switch %xi -> f32
    case 1 {
      %one = arith.constant 1.0 : f32
      scf.yield %one : f32
    }
    case 2 {
      %ten = arith.constant 10.0 : f32
      scf.yield %ten : f32
    }
    default {
      %h = arith.constant 100.0 : f32
      scf.yield %h : f32
    }
    %old = memref.atomic_rmw addf %v, %acc[%c0] : (f32, memref<3xf32>) -> f32
    %old2 = memref.atomic_rmw maxnumf %v, %acc[%c1] : (f32, memref<3xf32>) -> f32
  }
  "disc_ral.send_output"(%ctx, %c0, %acc) : (!disc_ral.context, index, memref<3xf32>) -> ()
  return
}
"""


def test_atomic_rmw_and_switch():
    a = np.array([1, 2, 2, 5, 1, 1], dtype=np.int32)
    (out,) = run(ATOMIC_AND_SWITCH, [a])
    np.testing.assert_array_equal(out, np.array([123.0, 100.0, 0.0], dtype=np.float32))


GLOBAL = """
"memref.global"() <{sym_name = "table", sym_visibility = "private", type = memref<2x3xf32>, initial_value = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>, constant}> : () -> ()
func.func @main(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %g = memref.get_global @table : memref<2x3xf32>
  %out = memref.alloc() : memref<2x3xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      %x = memref.load %g[%i, %j] : memref<2x3xf32>
      %y = arith.mulf %x, %x : f32
      memref.store %y, %out[%i, %j] : memref<2x3xf32>
    }
  }
  "disc_ral.send_output"(%ctx, %c0, %out) : (!disc_ral.context, index, memref<2x3xf32>) -> ()
  return
}
"""


def test_memref_global():
    (out,) = run(GLOBAL, [])
    np.testing.assert_array_equal(out, np.arange(1, 7, dtype=np.float32).reshape(2, 3) ** 2)


CALLS = """
func.func @scale(%m: memref<?xf32>, %i: index, %f: f32) -> (f32, index) {
  %x = memref.load %m[%i] : memref<?xf32>
  %y = arith.mulf %x, %f : f32
  %c1 = arith.constant 1 : index
  %j = arith.addi %i, %c1 : index
  return %y, %j : f32, index
}
func.func @main(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 3.0 : f32
  %a = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?xf32>
  %n = memref.dim %a, %c0 : memref<?xf32>
  %out = memref.alloc(%n) : memref<?xf32>
  %end = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%i: index):
    %y, %next = func.call @scale(%a, %i, %f) : (memref<?xf32>, index, f32) -> (f32, index)
    memref.store %y, %out[%i] : memref<?xf32>
    scf.yield %next : index
  }
  "disc_ral.send_output"(%ctx, %c0, %out) : (!disc_ral.context, index, memref<?xf32>) -> ()
  return
}
"""


def test_calls_with_memref_arguments_and_multiple_results():
    a = np.arange(9, dtype=np.float32)
    (out,) = run(CALLS, [a])
    np.testing.assert_array_equal(out, a * 3)


def test_input_errors_surface_from_execute():
    jit = compile_source(ELEMENTWISE)
    with RalContext() as rc, pytest.raises(RalInputError, match="input #1"):
        rc.execute(jit.function_address("main"), [np.zeros(3, np.float32), np.zeros(3, np.int32)])


CPU_LAUNCH = """
func.func @main(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?x?xf32>
  %n = memref.dim %a, %c0 : memref<?x?xf32>
  %m = memref.dim %a, %c1 : memref<?x?xf32>
  %out = memref.alloc(%n, %m) : memref<?x?xf32>
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %m) step (%c1, %c1) {
    %x = memref.load %a[%i, %j] : memref<?x?xf32>
    %y = arith.mulf %x, %x : f32
    %z = math.sqrt %y : f32
    memref.store %z, %out[%i, %j] : memref<?x?xf32>
  }
  "disc_ral.send_output"(%ctx, %c0, %out) : (!disc_ral.context, index, memref<?x?xf32>) -> ()
  return
}
"""


@pytest.mark.skipif(
    get_pass("disc-outline-cpu-kernel") is None, reason="no disc-outline-cpu-kernel"
)
def test_cpu_kernel_launch_end_to_end():
    passes = ("disc-outline-cpu-kernel", "convert-scf-to-cf", "disc-to-llvm")
    module = lower(CPU_LAUNCH, passes)
    text = module_to_llvm_ir(module)
    assert (
        "ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void" in text
    )
    jit = HostJit(text)
    a = np.random.default_rng(2).standard_normal((301, 67)).astype(np.float32)
    with RalContext(RalContextOptions(num_threads=4)) as rc:
        for _ in range(2):
            (out,) = rc.execute(jit.function_address("main"), [a])
            np.testing.assert_allclose(out, np.abs(a), rtol=1e-6)


def test_backend_translates_extension_ops():
    source = """
    llvm.func @f(%v: vector<4xf32>, %i: i64, %p: !llvm.ptr, %x: f32, %k: i32) -> f32 {
      %e = llvm.extractelement %v[%i : i64] : vector<4xf32>
      %old = llvm.atomicrmw fadd %p, %e acq_rel : !llvm.ptr, f32
      %c = llvm.cmpxchg %p, %k, %k acq_rel monotonic : !llvm.ptr, i32
      %t = llvm.fcmp "_true" %x, %x : f32
      %s = llvm.fptosi %x : f32 to i32
      %u = llvm.uitofp %s : i32 to f32
      %q = llvm.inttoptr %k : i32 to !llvm.ptr<i8>
      %q3 = llvm.inttoptr %k : i32 to !llvm.ptr<f32, 3>
      llvm.return %u : f32
    }
    """
    ctx = make_context()
    module = DiscParser(ctx, source).parse_module()
    module.verify()
    text = module_to_llvm_ir(module)
    for fragment in (
        "extractelement <4 x float>",
        "atomicrmw fadd ptr",
        "cmpxchg ptr",
        "fcmp true float",
        "fptosi float",
        "uitofp i32",
    ):
        assert fragment in text, fragment
    # typed pointers (`!llvm.ptr<i8>`) are opaque in LLVM IR
    assert re.search(r"= inttoptr i32 %\S+ to ptr\n", text)
    assert re.search(r"= inttoptr i32 %\S+ to ptr addrspace\(3\)\n", text)
    parse_llvm_ir(text)


def test_invalid_llvm_ir_is_a_backend_error():
    with pytest.raises(BackendError):
        parse_llvm_ir("define void @f() { ret i32 0 }")


def test_views_through_expand_strided_metadata():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    passes = ("expand-strided-metadata", "convert-scf-to-cf", "disc-to-llvm")
    out, out2 = run(VIEWS, [a], passes=passes)
    np.testing.assert_array_equal(out, a[1:3, 2:5])
    np.testing.assert_array_equal(out2, a.reshape(6, 4))
