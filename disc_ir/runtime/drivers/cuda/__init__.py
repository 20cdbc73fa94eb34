"""The CUDA driver and its RAL APIs (BladeDISC's ``GPUDriver`` + ``ral_base_cuda_*``).

One :class:`CudaDriver` per RAL context owns, as BladeDISC's
``BaseCudaContextState`` does: one stream (the context's own non-blocking
stream, or one the caller passes), the loaded kernel modules (loaded once per
context, keyed by the blob's address and, behind it, by the blob's bytes; one
function handle per (module, kernel name)), a caching device allocator
(:mod:`~disc_ir.runtime.gpu_allocator`), the persistent buffers (constants)
and a cuBLAS handle bound to the stream. Execution-level bookkeeping mirrors
the CPU driver: reference counts of the buffers a call allocates (``alloc`` 1,
``inc_ref`` +1, ``dealloc`` -1), outputs handed to the returned arrays.

Inputs and outputs: :class:`CudaRalContext` accepts numpy arrays (copied to
the device when the compiled code wants them there), any object with
``__cuda_array_interface__`` and any CUDA ``__dlpack__`` producer (CuPy,
PyTorch, JAX; no copy). Device outputs come back as
:class:`~disc_ir.runtime.device_array.DeviceArray` (zero-copy into CuPy /
PyTorch / JAX; ``.numpy()`` for a host copy). Which inputs and outputs live on
the device is BladeDISC's ``input_placements`` / ``output_placements``
(``"gpu"`` or ``"cpu"`` per argument), all ``"gpu"`` when not given.

A call returns without waiting for its GPU work when every output stays on the
device, every input is device memory of this context (or the context runs on a
stream of the caller's, ``CudaOptions.stream``) and device memory is cached
across calls: its output arrays are then *pending* on the context's stream
(:class:`~disc_ir.runtime.device_array.StreamWork`); ``.numpy()`` and
``__dlpack__`` wait for them, ``__cuda_array_interface__`` names the stream,
and later calls on the same context are ordered after them by the stream. In
every other case (host inputs or outputs, foreign device inputs that their
framework may reuse as soon as the call returns, an error) the call
synchronises the stream before it returns, as before.

The per-call APIs (``ral_recv_input``, ``ral_send_output``, ``alloc``,
``dealloc``, ``ral_kernel_launch``, ``ral_const``) have invokers that read and
write the ABI slots directly (:mod:`.fast_invokers`); kernel functions are
cached by (blob addresses, kernel name), so a launch does no module lookup.

The package's modules: :mod:`.driver` (:class:`CudaDriver`: memory, copies,
launches, constants), :mod:`.modules` (the kernel modules a context loaded),
:mod:`.blobs` (kernel images and launch arguments), :mod:`.state` (options and
one call's bookkeeping), :mod:`.context` (:class:`CudaRalContext`),
:mod:`.entry_points` (the RAL APIs) and :mod:`.fast_invokers`. Importing the
package registers the APIs and installs the fast invokers.

Registered names (device ``gpu``; BladeDISC's ``kRalGpu*`` names and
signatures): ``alloc``, ``dealloc``, ``ral_gpu_alloc_persistent``,
``raw_gpu_alloc``, ``raw_gpu_dealloc``, ``d2d_``, ``d2h_``, ``h2d_``,
``ral_gpu_memset``, ``ral_kernel_launch``, ``ral_gpu_get_stream``,
``sync_on_stream``, ``ral_gpu_sync_all``, ``ral_gpu_as_cu_stream``, the memref
copies ``h2d``/``d2h``/``d2d``, ``inc_ref``, ``ral_const`` and ``ral_gemm``.
"""

from disc_ir.runtime.drivers.cuda import fast_invokers as _fast_invokers  # noqa: F401
from disc_ir.runtime.drivers.cuda.blobs import (
    ELF_MAGIC,
    FATBIN_MAGIC,
    blob_extent,
    blob_image,
    pack_kernel_args,
)
from disc_ir.runtime.drivers.cuda.context import (
    CUDA_IO_REGISTRY,
    PLACEMENTS,
    CudaRalContext,
    cuda_context,
)
from disc_ir.runtime.drivers.cuda.driver import (
    DRIVER_NAME,
    UINT32_MAX,
    CudaDriver,
    gpu_driver,
    stream_driver,
)
from disc_ir.runtime.drivers.cuda.entry_points import (
    ALL_ELEMENTS,
    GEMM_ELEMENTS,
    MAX_RANK,
    ral_cuda_recv_input,
    ral_cuda_send_output,
    ral_gpu_alloc,
    ral_gpu_alloc_persistent,
    ral_gpu_as_cu_stream,
    ral_gpu_const,
    ral_gpu_d2d,
    ral_gpu_d2d_raw,
    ral_gpu_d2h,
    ral_gpu_d2h_raw,
    ral_gpu_dealloc,
    ral_gpu_gemm,
    ral_gpu_gemm_no_const_hint,
    ral_gpu_get_stream,
    ral_gpu_h2d,
    ral_gpu_h2d_raw,
    ral_gpu_inc_ref,
    ral_gpu_inc_ref_reshape,
    ral_gpu_kernel_launch,
    ral_gpu_memset,
    ral_gpu_sync_all,
    ral_gpu_sync_on_stream,
    ral_gpu_transpose,
    ral_raw_gpu_alloc,
    ral_raw_gpu_dealloc,
)
from disc_ir.runtime.drivers.cuda.modules import KernelModules
from disc_ir.runtime.drivers.cuda.state import BlockOwner, CudaExecState, CudaOptions

__all__ = [
    "ALL_ELEMENTS",
    "BlockOwner",
    "CUDA_IO_REGISTRY",
    "CudaDriver",
    "CudaExecState",
    "CudaOptions",
    "CudaRalContext",
    "KernelModules",
    "DRIVER_NAME",
    "ELF_MAGIC",
    "FATBIN_MAGIC",
    "GEMM_ELEMENTS",
    "MAX_RANK",
    "PLACEMENTS",
    "UINT32_MAX",
    "blob_extent",
    "blob_image",
    "cuda_context",
    "gpu_driver",
    "pack_kernel_args",
    "ral_cuda_recv_input",
    "ral_cuda_send_output",
    "ral_gpu_alloc",
    "ral_gpu_alloc_persistent",
    "ral_gpu_as_cu_stream",
    "ral_gpu_const",
    "ral_gpu_d2d",
    "ral_gpu_d2d_raw",
    "ral_gpu_d2h",
    "ral_gpu_d2h_raw",
    "ral_gpu_dealloc",
    "ral_gpu_gemm",
    "ral_gpu_gemm_no_const_hint",
    "ral_gpu_get_stream",
    "ral_gpu_h2d",
    "ral_gpu_h2d_raw",
    "ral_gpu_inc_ref",
    "ral_gpu_inc_ref_reshape",
    "ral_gpu_kernel_launch",
    "ral_gpu_memset",
    "ral_gpu_sync_all",
    "ral_gpu_sync_on_stream",
    "ral_gpu_transpose",
    "ral_raw_gpu_alloc",
    "ral_raw_gpu_dealloc",
    "stream_driver",
]
