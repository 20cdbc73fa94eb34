"""Shared fixtures of the runtime tests: JIT-compiled hand-written RAL modules."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from _ral_ir_builder import Module, memref_type  # noqa: E402

RECV_2D_F32 = "ral_recv_input___cpu___pvoid_i64___m2df32"
SEND_2D_F32 = "ral_send_output___cpu___pvoid_i64_m2df32___void"
ALLOC = "alloc___cpu___pvoid_i64___pvoid"
DEALLOC = "dealloc___cpu___pvoid_pvoid___void"
GEMM = "ral_gemm___cpu___pvoid_pvoid_m2df32_m2df32_m2df32_i1_i1___void"
LAUNCH = "ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void"
RECORD = "test_record_thread___cpu___pvoid_i64___void"
M2 = memref_type(2)
M1 = memref_type(1)


def gemm_module_text(gemm_name: str = GEMM) -> str:
    """``main(ctx)``: out0 = in0 @ in1^T through recv_input, alloc, ral_gemm, send_output."""
    m = Module()
    f = m.func("main", "ptr %ctx")
    ctx = ("ptr", "%ctx")
    a = f.ral_call(m, "%ctx", RECV_2D_F32, [ctx, ("i64", "0")], M2)
    b = f.ral_call(m, "%ctx", RECV_2D_F32, [ctx, ("i64", "1")], M2)
    rows = f.op(f"extractvalue {M2} {a}, 3, 0")
    cols = f.op(f"extractvalue {M2} {b}, 3, 0")
    count = f.op(f"mul i64 {rows}, {cols}")
    nbytes = f.op(f"mul i64 {count}, 4")
    data = f.ral_call(m, "%ctx", ALLOC, [ctx, ("i64", nbytes)], "ptr")
    c = f.make_memref(data, [rows, cols], [cols, "1"])
    operands = [ctx, ("ptr", "null")]
    operands += f.memref_fields(a, 2) + f.memref_fields(b, 2) + f.memref_fields(c, 2)
    operands += [("i1", "0"), ("i1", "1")]
    f.ral_call(m, "%ctx", gemm_name, operands)
    # A scratch buffer allocated and freed again, as buffer deallocation emits.
    scratch = f.ral_call(m, "%ctx", ALLOC, [ctx, ("i64", "256")], "ptr")
    f.ral_call(m, "%ctx", DEALLOC, [ctx, ("ptr", scratch)])
    f.ral_call(m, "%ctx", SEND_2D_F32, [ctx, ("i64", "0")] + f.memref_fields(c, 2))
    return m.text()


# A packed kernel as disc-to-llvm generates it for a 2-D scf.parallel:
#   void packed_affine(i64* lb, i64* ub, i64* step, void** params)
# params: [0] -> ctx, [1] -> in data ptr, [2] -> out data ptr, [3] -> row length.
# Body: out[i, j] = in[i, j] * 2 + 1 over the box; it also reports lb[0] through a
# disc_ral_call from whatever thread runs it.
PACKED_KERNEL = """
define void @packed_affine(ptr %lb, ptr %ub, ptr %st, ptr %params) {
entry:
  %p0 = getelementptr ptr, ptr %params, i64 0
  %ctxp = load ptr, ptr %p0
  %ctx = load ptr, ptr %ctxp
  %p1 = getelementptr ptr, ptr %params, i64 1
  %inp = load ptr, ptr %p1
  %in = load ptr, ptr %inp
  %p2 = getelementptr ptr, ptr %params, i64 2
  %outp = load ptr, ptr %p2
  %out = load ptr, ptr %outp
  %p3 = getelementptr ptr, ptr %params, i64 3
  %ncp = load ptr, ptr %p3
  %ncols = load i64, ptr %ncp
  %lb1p = getelementptr i64, ptr %lb, i64 1
  %ub1p = getelementptr i64, ptr %ub, i64 1
  %st1p = getelementptr i64, ptr %st, i64 1
  %lb0 = load i64, ptr %lb
  %ub0 = load i64, ptr %ub
  %st0 = load i64, ptr %st
  %lb1 = load i64, ptr %lb1p
  %ub1 = load i64, ptr %ub1p
  %st1 = load i64, ptr %st1p
  %rs = alloca { ptr, i64 }
  %ra = alloca [2 x ptr]
  %rf0 = getelementptr { ptr, i64 }, ptr %rs, i32 0, i32 0
  store ptr %ctx, ptr %rf0
  %rf1 = getelementptr { ptr, i64 }, ptr %rs, i32 0, i32 1
  store i64 %lb0, ptr %rf1
  %ra0 = getelementptr [2 x ptr], ptr %ra, i32 0, i32 0
  store ptr %rf0, ptr %ra0
  %ra1 = getelementptr [2 x ptr], ptr %ra, i32 0, i32 1
  store ptr %rf1, ptr %ra1
  call void @disc_ral_call(ptr %ctx, ptr @record_name, ptr %ra)
  br label %outer
outer:
  %i = phi i64 [ %lb0, %entry ], [ %inext, %outer_latch ]
  %icond = icmp slt i64 %i, %ub0
  br i1 %icond, label %inner_pre, label %exit
inner_pre:
  br label %inner
inner:
  %j = phi i64 [ %lb1, %inner_pre ], [ %jnext, %inner ]
  %row = mul i64 %i, %ncols
  %idx = add i64 %row, %j
  %src = getelementptr float, ptr %in, i64 %idx
  %x = load float, ptr %src
  %y = fmul float %x, 2.0
  %z = fadd float %y, 1.0
  %dst = getelementptr float, ptr %out, i64 %idx
  store float %z, ptr %dst
  %jnext = add i64 %j, %st1
  %jcond = icmp slt i64 %jnext, %ub1
  br i1 %jcond, label %inner, label %outer_latch
outer_latch:
  %inext = add i64 %i, %st0
  br label %outer
exit:
  ret void
}
"""


def launch_module_text() -> str:
    """``main(ctx)``: out0 = in0 * 2 + 1 by ral_kernel_launch of ``packed_affine``."""
    m = Module()
    record = m.string(RECORD)
    m.raw.append(PACKED_KERNEL.replace("@record_name", record))
    f = m.func("main", "ptr %ctx")
    ctx = ("ptr", "%ctx")
    a = f.ral_call(m, "%ctx", RECV_2D_F32, [ctx, ("i64", "0")], M2)
    rows = f.op(f"extractvalue {M2} {a}, 3, 0")
    cols = f.op(f"extractvalue {M2} {a}, 3, 1")
    in_data = f.op(f"extractvalue {M2} {a}, 1")
    count = f.op(f"mul i64 {rows}, {cols}")
    nbytes = f.op(f"mul i64 {count}, 4")
    out_data = f.ral_call(m, "%ctx", ALLOC, [ctx, ("i64", nbytes)], "ptr")
    out = f.make_memref(out_data, [rows, cols], [cols, "1"])
    bounds = []
    for values in (["0", "0"], [rows, cols], ["1", "1"]):
        buf = f.op("alloca [2 x i64]")
        for i, v in enumerate(values):
            slot = f.op(f"getelementptr [2 x i64], ptr {buf}, i32 0, i32 {i}")
            f.emit(f"store i64 {v}, ptr {slot}")
        bounds.append(f.make_memref(buf, ["2"], ["1"]))
    # Packed kernel params: struct {ctx, in, out, ncols} + array of field pointers.
    pstruct = "{ ptr, ptr, ptr, i64 }"
    storage = f.op(f"alloca {pstruct}")
    params = f.op("alloca [4 x ptr]")
    for i, (ty, value) in enumerate(
        [("ptr", "%ctx"), ("ptr", in_data), ("ptr", out_data), ("i64", cols)]
    ):
        fp = f.op(f"getelementptr {pstruct}, ptr {storage}, i32 0, i32 {i}")
        f.emit(f"store {ty} {value}, ptr {fp}")
        sp = f.op(f"getelementptr [4 x ptr], ptr {params}, i32 0, i32 {i}")
        f.emit(f"store ptr {fp}, ptr {sp}")
    kname = m.string("main_kernel_0")
    operands = [ctx, ("ptr", kname)]
    for bound in bounds:
        operands += f.memref_fields(bound, 1)
    operands += [("i64", "1"), ("ptr", "@packed_affine"), ("ptr", params)]
    f.ral_call(m, "%ctx", LAUNCH, operands)
    f.ral_call(m, "%ctx", SEND_2D_F32, [ctx, ("i64", "0")] + f.memref_fields(out, 2))
    return m.text()


@pytest.fixture(scope="session")
def gemm_jit():
    from disc_ir.runtime.jit import JitModule

    return JitModule(gemm_module_text())


@pytest.fixture(scope="session")
def launch_jit():
    from disc_ir.runtime.jit import JitModule

    return JitModule(launch_module_text())
