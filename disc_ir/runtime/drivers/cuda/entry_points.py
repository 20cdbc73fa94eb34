"""The CUDA driver's RAL entry points (BladeDISC's ``ral_base_cuda_*``).

Device ``gpu`` (BladeDISC's ``kRalGpu*`` names and signatures): memory
(``alloc``, ``dealloc``, ``ral_gpu_alloc_persistent``, ``raw_gpu_alloc``,
``raw_gpu_dealloc``, ``inc_ref``, ``ral_const``), copies (``d2d_``, ``d2h_``,
``h2d_``, ``ral_gpu_memset`` and the memref copies ``h2d``/``d2h``/``d2d``),
launches and streams (``ral_kernel_launch``, ``ral_gpu_get_stream``,
``ral_gpu_as_cu_stream``, ``sync_on_stream``, ``ral_gpu_sync_all``) and library
calls (``ral_transpose``, ``ral_gemm``). Device ``cpu`` in
``CUDA_IO_REGISTRY``: ``ral_recv_input`` and ``ral_send_output`` of CUDA
contexts (as BladeDISC's compiler emits them).
"""

from __future__ import annotations

import ctypes
from typing import Any

from disc_ir.runtime.abi import SCALAR_TYPES, ScalarType
from disc_ir.runtime.context import ExecutionContext, RalError, RalInputError
from disc_ir.runtime.drivers.buffers import reshaped_alias
from disc_ir.runtime.drivers.cuda.context import CUDA_IO_REGISTRY, cuda_context
from disc_ir.runtime.drivers.cuda.driver import gpu_driver, stream_driver
from disc_ir.runtime.kernels.cublas_gemm import TRANSPOSE_TYPES
from disc_ir.runtime.kernels.gemm import register_ral_gemm
from disc_ir.runtime.memref import MemRefDescriptor, numpy_dtype, numpy_view
from disc_ir.runtime.registry import I32, I64, CStr, Ctx, MemRef, Ptr, PVoid, Var, ral_api

N = Var("N")
M = Var("M")
T = Var("T")

MAX_RANK = 8
ALL_ELEMENTS = tuple(SCALAR_TYPES)
GEMM_ELEMENTS = ("f32", "f64", "f16", "bf16")


# ---------------------------------------------------------------------------
# Inputs and outputs (device "cpu", as BladeDISC's compiler emits them) for CUDA contexts
# ---------------------------------------------------------------------------


@ral_api(
    "ral_recv_input",
    "cpu",
    registry=CUDA_IO_REGISTRY,
    T=ALL_ELEMENTS,
    N=range(MAX_RANK + 1),
    skip_on_error=False,
)
def ral_cuda_recv_input(ctx: Ctx, index: I64, *, T: str, N: int) -> MemRef[N, T]:
    """Input ``index``: in device memory when placed on gpu, else the host array."""
    context = cuda_context(ctx)
    element = ScalarType(T)
    if context.input_placement(index) == "gpu":
        try:
            return context.cuda.recv_device_input(ctx, index, element, N)
        except RalInputError as err:
            ctx.signal_error(err)  # type: ignore[attr-defined]  # a Ctx spec arrives as the ExecutionContext
            return MemRefDescriptor(0, 0, 0, (0,) * N, (1,) * N, element)
    from disc_ir.runtime.drivers.cpu import cpu_driver

    return cpu_driver(ctx).recv_input(ctx, index, element, N)


@ral_api("ral_send_output", "cpu", registry=CUDA_IO_REGISTRY, T=ALL_ELEMENTS, N=range(MAX_RANK + 1))
def ral_cuda_send_output(ctx: Ctx, index: I64, value: MemRef[N, T]) -> None:
    """Output ``index``: collected as a DeviceArray when in device memory, else an ndarray."""
    context = cuda_context(ctx)
    placements = context.output_placements
    if placements is not None and index < len(placements):
        on_device = placements[index] == "gpu"
    else:
        on_device = context.cuda.is_device_address(ctx, value.aligned)  # type: ignore[attr-defined]  # a MemRef spec arrives as a MemRefDescriptor
    if on_device:
        context.cuda.send_output(ctx, index, value)
        return
    from disc_ir.runtime.drivers.cpu import cpu_driver

    cpu_driver(ctx).send_output(ctx, index, value)


# ---------------------------------------------------------------------------
# RAL APIs (device "gpu")
# ---------------------------------------------------------------------------


@ral_api("alloc", "gpu")
def ral_gpu_alloc(ctx: Ctx, nbytes: I64) -> PVoid:
    """``alloc___gpu___pvoid_i64___pvoid``: a device temporary of ``nbytes``."""
    return gpu_driver(ctx).alloc(ctx, nbytes)


@ral_api("dealloc", "gpu", skip_on_error=False)
def ral_gpu_dealloc(ctx: Ctx, ptr: PVoid) -> None:
    """``dealloc___gpu___pvoid_pvoid___void``: drops one reference to ``ptr``."""
    gpu_driver(ctx).dealloc(ctx, ptr)


@ral_api("ral_gpu_alloc_persistent", "gpu")
def ral_gpu_alloc_persistent(ctx: Ctx, nbytes: I64) -> PVoid:
    """A device buffer that lives as long as the RAL context."""
    return gpu_driver(ctx).alloc_persistent(nbytes)


@ral_api("raw_gpu_alloc", "gpu")
def ral_raw_gpu_alloc(ctx: Ctx, nbytes: I64) -> PVoid:
    """Untracked device memory; freed with ``raw_gpu_dealloc``."""
    return gpu_driver(ctx).raw_alloc(nbytes)


@ral_api("raw_gpu_dealloc", "gpu", skip_on_error=False)
def ral_raw_gpu_dealloc(ctx: Ctx, ptr: PVoid) -> None:
    """Frees memory from ``raw_gpu_alloc``."""
    gpu_driver(ctx).raw_dealloc(ptr)


@ral_api("d2d_", "gpu")
def ral_gpu_d2d_raw(ctx: Ctx, stream: PVoid, src: PVoid, dst: PVoid, nbytes: I64) -> None:
    """``d2d____gpu___pvoid_pvoid_pvoid_pvoid_i64___void``: device-to-device bytes."""
    stream_driver(ctx, stream, "d2d").d2d(src, dst, nbytes)


@ral_api("d2h_", "gpu")
def ral_gpu_d2h_raw(ctx: Ctx, stream: PVoid, src: PVoid, dst: PVoid, nbytes: I64) -> None:
    """Device-to-host bytes (asynchronous on the stream; ``sync_on_stream`` waits)."""
    stream_driver(ctx, stream, "d2h").d2h(src, dst, nbytes)


@ral_api("h2d_", "gpu")
def ral_gpu_h2d_raw(ctx: Ctx, stream: PVoid, src: PVoid, dst: PVoid, nbytes: I64) -> None:
    """Host-to-device bytes."""
    stream_driver(ctx, stream, "h2d").h2d(src, dst, nbytes)


@ral_api("ral_gpu_memset", "gpu")
def ral_gpu_memset(ctx: Ctx, stream: PVoid, buffer: PVoid, value: I32, nbytes: I64) -> None:
    """Sets ``nbytes`` device bytes at ``buffer`` to ``value``."""
    driver = gpu_driver(ctx)
    if not buffer and nbytes:
        raise RalError("ral_gpu_memset on a null pointer")
    driver.memset(buffer, value, nbytes)


def _copy_memref(
    ctx: ExecutionContext,
    stream: int,
    src: MemRefDescriptor,
    dst: MemRefDescriptor,
    kind: str,
) -> None:
    """Copies ``src`` into the same-shape ``dst`` on the context's stream;
    ``kind`` (``h2d``, ``d2h`` or ``d2d``) names the direction and the API."""
    copy = getattr(stream_driver(ctx, stream, kind), kind)
    if src.sizes != dst.sizes:
        raise RalError(f"{kind}: source shape {src.sizes} differs from destination {dst.sizes}")
    copy(src.data_address, dst.data_address, src.num_elements * numpy_dtype(src.element).itemsize)


@ral_api("h2d", "gpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1))
def ral_gpu_h2d(ctx: Ctx, stream: PVoid, src: MemRef[N, T], dst: MemRef[N, T]) -> None:
    """``h2d___gpu___pvoid_pvoid_m{N}d{T}_m{N}d{T}___void`` (``lmhlo_disc.h2d``)."""
    _copy_memref(ctx, stream, src, dst, "h2d")


@ral_api("d2h", "gpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1))
def ral_gpu_d2h(ctx: Ctx, stream: PVoid, src: MemRef[N, T], dst: MemRef[N, T]) -> None:
    """``d2h___gpu___pvoid_pvoid_m{N}d{T}_m{N}d{T}___void`` (``lmhlo_disc.d2h``)."""
    _copy_memref(ctx, stream, src, dst, "d2h")


@ral_api("d2d", "gpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1))
def ral_gpu_d2d(ctx: Ctx, stream: PVoid, src: MemRef[N, T], dst: MemRef[N, T]) -> None:
    """``d2d___gpu___pvoid_pvoid_m{N}d{T}_m{N}d{T}___void``."""
    _copy_memref(ctx, stream, src, dst, "d2d")


@ral_api("ral_kernel_launch", "gpu")
def ral_gpu_kernel_launch(
    ctx: Ctx,
    blobs: Ptr[PVoid],
    num_blobs: I64,
    kernel_name: CStr,
    grid_x: I64,
    grid_y: I64,
    grid_z: I64,
    block_x: I64,
    block_y: I64,
    block_z: I64,
    shared_mem: I32,
    stream: PVoid,
    num_args: I32,
    params: Ptr[PVoid],
) -> None:
    """``ral_kernel_launch___gpu___pvoid_ppvoid_i64_pvoid_i64_i64_i64_i64_i64_i64_i32_pvoid_i32_ppvoid___void``:
    launches ``kernel_name`` from the blob(s) (PTX, cubin or fatbin) with the packed
    ``params`` (``num_args`` pointers to the argument values)."""
    if kernel_name is None:
        raise RalError("ral_kernel_launch: null kernel name")
    if num_blobs <= 0 or not blobs:
        raise RalError(f"ral_kernel_launch '{kernel_name}': {num_blobs} kernel blobs")
    if num_args and not params:
        raise RalError(f"ral_kernel_launch '{kernel_name}': {num_args} args but null params")
    driver = stream_driver(ctx, stream, "ral_kernel_launch")
    addresses = list((ctypes.c_uint64 * num_blobs).from_address(blobs))
    driver.launch(
        addresses,
        kernel_name,
        (grid_x, grid_y, grid_z),
        (block_x, block_y, block_z),
        shared_mem,
        params,
    )


@ral_api("ral_gpu_get_stream", "gpu")
def ral_gpu_get_stream(ctx: Ctx, stream_id: I32) -> PVoid:
    """Stream handle ``stream_id``: only 0 (the context's stream) exists."""
    if stream_id < 0:
        raise RalError("ral_gpu_get_stream: not a valid stream_id")
    if stream_id > 0:
        raise RalError("ral_gpu_get_stream: multi-stream not supported")
    return 0


@ral_api("ral_gpu_as_cu_stream", "gpu")
def ral_gpu_as_cu_stream(ctx: Ctx, stream: PVoid) -> PVoid:
    """The CUstream behind stream index ``stream`` (for library calls)."""
    return gpu_driver(ctx).stream


@ral_api("sync_on_stream", "gpu")
def ral_gpu_sync_on_stream(ctx: Ctx, stream: PVoid) -> None:
    """``sync_on_stream___gpu___pvoid_pvoid___void``: waits for the context's stream."""
    driver = stream_driver(ctx, stream, "sync_on_stream")
    driver.backend.stream_synchronize(driver.stream)


@ral_api("ral_gpu_sync_all", "gpu")
def ral_gpu_sync_all(ctx: Ctx) -> None:
    """Waits for the whole device."""
    gpu_driver(ctx).backend.synchronize()


@ral_api("inc_ref", "gpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1))
def ral_gpu_inc_ref(ctx: Ctx, stream: PVoid, value: MemRef[N, T]) -> MemRef[N, T]:
    """``inc_ref___gpu___pvoid_pvoid_m{N}d{T}___m{N}d{T}`` (``ral_base_cuda_bitcast``)."""
    gpu_driver(ctx).inc_ref(ctx, value.aligned)  # type: ignore[attr-defined]  # a MemRef spec arrives as a MemRefDescriptor
    return value


@ral_api("inc_ref", "gpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1), M=range(MAX_RANK + 1))
def ral_gpu_inc_ref_reshape(
    ctx: Ctx, stream: PVoid, value: MemRef[N, T], shape: MemRef[1, I64], *, M: int
) -> MemRef[M, T]:
    """``inc_ref___gpu___pvoid_pvoid_m{N}d{T}_m1di64___m{M}d{T}``: an aliasing reshape; the
    target shape is a host memref."""
    reshaped = reshaped_alias(value, shape, M)
    gpu_driver(ctx).inc_ref(ctx, value.aligned)  # type: ignore[attr-defined]  # a MemRef spec arrives as a MemRefDescriptor
    return reshaped


@ral_api("ral_const", "gpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1), skip_on_error=False)
def ral_gpu_const(
    ctx: Ctx, stream: PVoid, unique_name: CStr, unique_index: I32, *, T: str, N: int
) -> MemRef[N, T]:
    """``ral_const___gpu___pvoid_pvoid_pvoid_i32___m{N}d{T}``: a metadata constant in a
    persistent device buffer, uploaded once per RAL context."""
    if unique_name is None:
        raise RalError("ral_const: null unique_name")
    return gpu_driver(ctx).const(ctx, unique_name, ScalarType(T), N)


@ral_api("ral_transpose", "gpu", T=tuple(TRANSPOSE_TYPES), N=(2, 3))
def ral_gpu_transpose(
    ctx: Ctx,
    stream: PVoid,
    src: MemRef[N, T],
    perm: MemRef[1, I32],
    dst: MemRef[N, T],
) -> None:
    """``ral_transpose___gpu___pvoid_pvoid_m{N}d{T}_m1di32_m{N}d{T}___void``
    (disc-lower-to-library-call's 2-D and [0, 2, 1] transposes; ``perm`` is a host
    buffer)."""
    order = tuple(int(p) for p in numpy_view(perm, readonly=True))
    stream_driver(ctx, stream, "ral_transpose").transpose(src, order, dst)


def _gpu_gemm(
    ctx: Any,
    stream: int,
    a: MemRefDescriptor,
    b: MemRefDescriptor,
    c: MemRefDescriptor,
    tp_a: bool,
    tp_b: bool,
) -> None:
    """``c = op(a) @ op(b)`` by cuBLAS on the context's stream."""
    stream_driver(ctx, stream, "ral_gemm").gemm(a, b, c, tp_a, tp_b)


ral_gpu_gemm, ral_gpu_gemm_no_const_hint = register_ral_gemm(
    "gpu", GEMM_ELEMENTS, _gpu_gemm, "ral_gpu_gemm"
)
