"""Library kernels on cpu: gemm / batched gemm with transposes, conv in NCHW and
NHWC with strides, padding, dilation and groups (against direct references)."""

from __future__ import annotations

import numpy as np
import pytest

from disc_ir.runtime import RalContext, RalError
from disc_ir.runtime.dispatch import call_api
from disc_ir.runtime.kernels.numeric import bf16_to_f32, f32_to_bf16


@pytest.fixture()
def exec_ctx():
    ctx = RalContext()
    with ctx.create_execution_context([]) as ec:
        yield ec


def gemm_name(rank: int, code: str, with_const_flag: bool = True) -> str:
    m = f"m{rank}d{code}"
    flags = "i1_i1_i1" if with_const_flag else "i1_i1"
    return f"ral_gemm___cpu___pvoid_pvoid_{m}_{m}_{m}_{flags}___void"


@pytest.mark.parametrize("tp_a", [False, True])
@pytest.mark.parametrize("tp_b", [False, True])
@pytest.mark.parametrize("dtype,code", [(np.float32, "f32"), (np.float64, "f64")])
def test_gemm_transposes(exec_ctx, tp_a, tp_b, dtype, code):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((4, 6)).astype(dtype)
    b = rng.standard_normal((6, 5)).astype(dtype)
    a_in = np.ascontiguousarray(a.T) if tp_a else a
    b_in = np.ascontiguousarray(b.T) if tp_b else b
    c = np.zeros((4, 5), dtype=dtype)
    call_api(exec_ctx, gemm_name(2, code), exec_ctx, 0, a_in, b_in, c, tp_a, tp_b, False)
    np.testing.assert_allclose(c, a @ b, rtol=1e-6)


@pytest.mark.parametrize("rank", [3, 4])
def test_batched_gemm(exec_ctx, rank):
    rng = np.random.default_rng(3)
    batch = (2, 3)[: rank - 2]
    a = rng.standard_normal((*batch, 7, 4)).astype(np.float32)  # transposed lhs [k, m]
    b = rng.standard_normal((*batch, 7, 5)).astype(np.float32)
    c = np.zeros((*batch, 4, 5), dtype=np.float32)
    call_api(exec_ctx, gemm_name(rank, "f32", False), exec_ctx, 0, a, b, c, True, False)
    np.testing.assert_allclose(c, np.swapaxes(a, -1, -2) @ b, rtol=1e-5, atol=1e-5)


def test_gemm_half_and_bf16(exec_ctx):
    rng = np.random.default_rng(4)
    a = rng.standard_normal((3, 8)).astype(np.float16)
    b = rng.standard_normal((8, 2)).astype(np.float16)
    c = np.zeros((3, 2), dtype=np.float16)
    call_api(exec_ctx, gemm_name(2, "f16"), exec_ctx, 0, a, b, c, False, False, True)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    a16, b16 = f32_to_bf16(a.astype(np.float32)), f32_to_bf16(b.astype(np.float32))
    c16 = np.zeros((3, 2), dtype=np.uint16)
    call_api(exec_ctx, gemm_name(2, "bf16"), exec_ctx, 0, a16, b16, c16, False, False, True)
    np.testing.assert_allclose(bf16_to_f32(c16), ref, rtol=3e-2, atol=3e-2)


def test_gemm_shape_mismatch_is_an_error(exec_ctx):
    a = np.ones((2, 3), np.float32)
    b = np.ones((4, 2), np.float32)
    c = np.ones((2, 2), np.float32)
    with pytest.raises(RalError, match="mismatch contraction dim"):
        call_api(exec_ctx, gemm_name(2, "f32"), exec_ctx, 0, a, b, c, False, False, False)


def reference_conv_nchw(x, w, strides, pads, dilation, groups):
    """Direct loops over output positions: x [B,C,H,W], w [O,C/g,KH,KW]."""
    b, c, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), pads[0], pads[1]))
    oh = (xp.shape[2] - dilation[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (xp.shape[3] - dilation[1] * (kw - 1) - 1) // strides[1] + 1
    out = np.zeros((b, o, oh, ow), dtype=np.float64)
    og = o // groups
    for n in range(b):
        for f in range(o):
            g = f // og
            for i in range(oh):
                for j in range(ow):
                    hs = i * strides[0]
                    ws = j * strides[1]
                    patch = xp[
                        n,
                        g * cg : (g + 1) * cg,
                        hs : hs + dilation[0] * (kh - 1) + 1 : dilation[0],
                        ws : ws + dilation[1] * (kw - 1) + 1 : dilation[1],
                    ]
                    out[n, f, i, j] = np.sum(patch * w[f])
    return out


CONV4 = "ral_conv___cpu___pvoid_pvoid_m4df32_m4df32_m1di32_m4df32_m1di32___void"


@pytest.mark.parametrize(
    "strides,pads,dilation,groups",
    [
        ((1, 1), ((0, 0), (0, 0)), (1, 1), 1),
        ((2, 1), ((1, 1), (2, 0)), (1, 1), 1),
        ((1, 2), ((1, 2), (1, 1)), (2, 1), 2),
        ((2, 2), ((0, 1), (1, 0)), (1, 2), 4),
    ],
)
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_conv2d(exec_ctx, strides, pads, dilation, groups, layout):
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 4, 7, 6)).astype(np.float32)  # NCHW
    w = rng.standard_normal((8, 4 // groups, 3, 2)).astype(np.float32)  # OIHW
    ref = reference_conv_nchw(x, w, strides, pads, dilation, groups)
    if layout == "NCHW":
        inp, ker, out_shape = x, w, ref.shape
        meta = [0, 1, 2, 3, 1, 0, 2, 3, 0, 1, 2, 3]
    else:  # NHWC input, HWIO kernel, NHWC output
        inp = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        ker = np.ascontiguousarray(w.transpose(2, 3, 1, 0))
        out_shape = (ref.shape[0], ref.shape[2], ref.shape[3], ref.shape[1])
        meta = [0, 3, 1, 2, 2, 3, 0, 1, 0, 3, 1, 2]
    meta += [*strides, *dilation, 0]
    padding = np.array([pads[0][0], pads[0][1], pads[1][0], pads[1][1]], dtype=np.int32)
    out = np.zeros(out_shape, dtype=np.float32)
    call_api(exec_ctx, CONV4, exec_ctx, 0, inp, ker, padding, out, np.array(meta, np.int32))
    got = out if layout == "NCHW" else out.transpose(0, 3, 1, 2)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)


def test_conv1d_and_bad_output_shape(exec_ctx):
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, 2, 9)).astype(np.float32)
    w = rng.standard_normal((3, 2, 3)).astype(np.float32)
    ref = reference_conv_nchw(
        x[:, :, None, :], w[:, :, None, :], (1, 2), ((0, 0), (1, 1)), (1, 1), 1
    )
    out = np.zeros((1, 3, 5), np.float32)
    name = "ral_conv___cpu___pvoid_pvoid_m3df32_m3df32_m1di32_m3df32_m1di32___void"
    meta = np.array([0, 1, 2, 1, 0, 2, 0, 1, 2, 2, 1, 0], np.int32)
    call_api(exec_ctx, name, exec_ctx, 0, x, w, np.array([1, 1], np.int32), out, meta)
    np.testing.assert_allclose(out, ref[:, :, 0, :], rtol=1e-5, atol=1e-5)
    with pytest.raises(RalError, match="does not match the output buffer"):
        call_api(
            exec_ctx, name, exec_ctx, 0, x, w, np.array([1, 1], np.int32),
            np.zeros((1, 3, 4), np.float32), meta,
        )  # fmt: skip
