"""``ral_conv`` on cpu: N-d convolution with any layout, strides, padding,
dilation and feature groups.

BladeDISC's signature (``ral_conv<T, N>``, common_context_impl_mkldnn.cc)::

    ral_conv(ctx, stream, input: memref<N x T>, kernel: memref<N x T>,
             padding: memref<? x i32>, output: memref<N x T>, metadata: memref<? x i32>)

``padding`` holds ``[lo_0, hi_0, lo_1, hi_1, ...]`` per spatial dim.
``metadata`` (built by disc-lower-to-library-call) holds, in order: the input
layout (batch dim, feature dim, spatial dims), the kernel layout (input-feature
dim, output-feature dim, spatial dims), the output layout (batch, feature,
spatial), the window strides, the rhs dilations and ``weight_is_const``. So
NCHW/OIHW and NHWC/HWIO (and any other permutation) go through one path.
``groups = input features / kernel input features``.

Computed as im2col + one batched matmul over groups: the padded input is
viewed (no copy) as ``[C, kernel spatial..., B, out spatial...]`` windows with
``np.lib.stride_tricks.as_strided``, copied once (the innermost run is an
output row) and contracted with the kernel.
"""

from __future__ import annotations

import numpy as np

from disc_ir.runtime.context import RalError
from disc_ir.runtime.kernels.blas import parallel_matmul
from disc_ir.runtime.kernels.numeric import FLOAT_ELEMENTS, compute_view, store
from disc_ir.runtime.memref import MemRefDescriptor, numpy_view
from disc_ir.runtime.registry import I32, Ctx, MemRef, PVoid, Var, ral_api

N = Var("N")
T = Var("T")
CONV_RANKS = (3, 4, 5)


def conv_nd(
    x: np.ndarray,
    w: np.ndarray,
    strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    dilation: tuple[int, ...],
    groups: int,
    num_threads: int = 1,
) -> np.ndarray:
    """Convolution of ``x`` [B, C, *S] with ``w`` [O, C/groups, *K] -> [B, O, *S_out]
    (the im2col matmul split over up to ``num_threads`` threads)."""
    batch, channels = x.shape[:2]
    out_features, group_channels = w.shape[:2]
    spatial = len(x.shape) - 2
    if groups < 1 or channels != group_channels * groups or out_features % groups:
        raise RalError(
            f"ral_conv: {channels} input features, kernel input features {group_channels}, "
            f"{out_features} output features do not form feature groups"
        )
    # Padding (negative padding crops).
    pad_width = [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding]
    if any(p != (0, 0) for p in pad_width):
        x = np.pad(x, pad_width)
    crop = [slice(None), slice(None)]
    for lo, hi in padding:
        crop.append(slice(-lo if lo < 0 else 0, hi if hi < 0 else None))
    x = x[tuple(crop)]
    ksizes = w.shape[2:]
    out_sizes = []
    for i in range(spatial):
        extent = dilation[i] * (ksizes[i] - 1) + 1
        out_sizes.append(max(0, (x.shape[2 + i] - extent) // strides[i] + 1))
    xs = x.strides
    # The im2col matrix is gathered transposed, [C, *K, B, *S_out], so the
    # copy's innermost run is an output row (contiguous in `x` at stride 1)
    # rather than a kernel row of a few taps.
    windows = np.lib.stride_tricks.as_strided(
        x,
        shape=(channels, *ksizes, batch, *out_sizes),
        strides=(
            xs[1],
            *(xs[2 + i] * dilation[i] for i in range(spatial)),
            xs[0],
            *(xs[2 + i] * strides[i] for i in range(spatial)),
        ),
        writeable=False,
    )
    positions = int(np.prod(out_sizes, dtype=np.int64))
    taps = int(np.prod(ksizes, dtype=np.int64))
    og = out_features // groups
    # [G*Cg, *K, B, *P] -> [G, Cg*K, B*P], viewed as [G, B*P, Cg*K]
    cols = np.ascontiguousarray(windows).reshape(groups, group_channels * taps, batch * positions)
    # [O, Cg, *K] -> [G, Og, Cg*K] -> [G, Cg*K, Og]
    kern = w.reshape(groups, og, group_channels * taps).transpose(0, 2, 1)
    out = np.empty((groups, batch * positions, og), dtype=np.result_type(cols, kern))
    parallel_matmul(cols.transpose(0, 2, 1), kern, out, num_threads)  # [G, B*P, Og]
    out = out.reshape(groups, batch, positions, og).transpose(1, 0, 3, 2)
    return out.reshape(batch, out_features, *out_sizes)


def ral_conv_impl(
    inp: MemRefDescriptor,
    kernel: MemRefDescriptor,
    padding: MemRefDescriptor,
    output: MemRefDescriptor,
    metadata: MemRefDescriptor,
    num_threads: int = 1,
) -> None:
    """Decodes the layouts/strides/dilations from ``metadata`` and runs the conv
    (its matmul split over up to ``num_threads`` threads). An empty contraction (no
    input channels or elements, or an empty window) sums nothing: zeros."""
    if output.num_elements == 0:
        return
    if inp.num_elements == 0 or kernel.num_elements == 0:
        store(output, np.zeros(output.sizes, dtype=np.float32))
        return
    rank = inp.rank
    spatial = rank - 2
    meta = [int(v) for v in numpy_view(metadata)]
    pads = [int(v) for v in numpy_view(padding)]
    if len(meta) < 3 * rank + 2 * spatial:
        raise RalError(
            f"ral_conv: metadata has {len(meta)} fields, expected {3 * rank + 2 * spatial + 1}"
        )
    if len(pads) < 2 * spatial:
        raise RalError(f"ral_conv: padding has {len(pads)} fields, expected {2 * spatial}")
    in_layout = meta[0:rank]
    k_layout = meta[rank : 2 * rank]
    out_layout = meta[2 * rank : 3 * rank]
    strides = tuple(meta[3 * rank : 3 * rank + spatial])
    dilation = tuple(meta[3 * rank + spatial : 3 * rank + 2 * spatial])
    for layout in (in_layout, k_layout, out_layout):
        if sorted(layout) != list(range(rank)):
            raise RalError(f"ral_conv: invalid layout {layout} in metadata")
    if any(s < 1 for s in strides) or any(d < 1 for d in dilation):
        raise RalError(f"ral_conv: invalid strides {strides} or dilations {dilation}")
    x = compute_view(inp).transpose(in_layout)
    # kernel layout: [input feature, output feature, spatial...] -> [O, I, spatial...]
    w = compute_view(kernel).transpose([k_layout[1], k_layout[0], *k_layout[2:]])
    groups = x.shape[1] // w.shape[1] if w.shape[1] else 0
    result = conv_nd(
        x,
        w,
        strides,
        tuple((pads[2 * i], pads[2 * i + 1]) for i in range(spatial)),
        dilation,
        groups,
        num_threads,
    )
    # Write through a transposed view of the output: [B, O, spatial...].
    out_view_shape = tuple(output.sizes[d] for d in out_layout)
    if result.shape != out_view_shape:
        raise RalError(
            f"ral_conv: computed output shape {result.shape} (NC...) does not match the "
            f"output buffer {out_view_shape}"
        )
    inverse = np.argsort(out_layout)
    store(output, result.transpose(inverse))


@ral_api("ral_conv", "cpu", T=FLOAT_ELEMENTS, N=CONV_RANKS)
def ral_cpu_conv(
    ctx: Ctx,
    stream: PVoid,
    inp: MemRef[N, T],
    kernel: MemRef[N, T],
    padding: MemRef[1, I32],
    output: MemRef[N, T],
    metadata: MemRef[1, I32],
) -> None:
    """``ral_conv___cpu___pvoid_pvoid_m4df32_m4df32_m1di32_m4df32_m1di32___void`` and friends."""
    from disc_ir.runtime.drivers.cpu import cpu_driver

    ral_conv_impl(inp, kernel, padding, output, metadata, cpu_driver(ctx).num_threads)
