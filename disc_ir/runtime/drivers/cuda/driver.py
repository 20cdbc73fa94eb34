"""The CUDA driver (BladeDISC's ``GPUDriver`` / ``BaseCudaContextState``).

One :class:`CudaDriver` per RAL context owns: one stream (the context's own
non-blocking stream, or one the caller passes), the loaded kernel modules
(:class:`~disc_ir.runtime.drivers.cuda.modules.KernelModules`), a caching device
allocator (:mod:`~disc_ir.runtime.gpu_allocator`), the persistent buffers
(constants) and a cuBLAS handle bound to the stream. Each call's buffers are
counted as on the CPU (:mod:`~disc_ir.runtime.drivers.buffers`); its outputs
are handed to the returned device arrays.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

from disc_ir.runtime.abi import KERNEL_BUFFER_ALIGNMENT, ScalarType
from disc_ir.runtime.constants import materialize_constant
from disc_ir.runtime.context import Driver, ExecutionContext, RalContext, RalError
from disc_ir.runtime.cuda_backend import DeviceBackend
from disc_ir.runtime.cuda_libs import CudaError
from disc_ir.runtime.device_api import CudaDeviceAPI, Device
from disc_ir.runtime.device_array import LEGACY_DEFAULT_STREAM, DeviceArray, StreamWork
from disc_ir.runtime.drivers.cuda.modules import KernelModules
from disc_ir.runtime.drivers.cuda.state import BlockOwner, CudaExecState, CudaOptions
from disc_ir.runtime.gpu_allocator import CachingDeviceAllocator, DeviceBlock
from disc_ir.runtime.kernels.cublas_gemm import CublasGemmCall, CublasHandle, plan_row_major_gemm
from disc_ir.runtime.memref import MemRefDescriptor, contiguous_strides, numpy_dtype

#: the driver's name in a RAL context, and the device of its RAL APIs
DRIVER_NAME = "gpu"
UINT32_MAX = 2**32 - 1


# ---------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------


class CudaDriver(Driver):
    """Device memory, kernel launch, copies and synchronisation for one RalContext."""

    name = DRIVER_NAME

    def __init__(
        self,
        context: RalContext,
        backend: DeviceBackend,
        options: CudaOptions | None = None,
        gemm_runner: Any = None,
    ):
        self.context = context
        self.backend = backend
        self.options = options or CudaOptions()
        backend.make_current()
        #: memory, copies and the stream go through the device's DeviceAPI
        self.device = Device("cuda", backend.device_id)
        self.device_api = CudaDeviceAPI(backend)
        self.owns_stream = self.options.stream is None
        self.stream = (
            self.device_api.create_stream(self.device)
            if self.owns_stream
            else int(self.options.stream or 0)
        )
        self.allocator = CachingDeviceAllocator(self._alloc_data_space, self._free_data_space)
        self.persistent: set[int] = set()
        self._lock = threading.RLock()
        self.modules = KernelModules(backend, self._lock)
        self._consts: dict[tuple[str, str], MemRefDescriptor] = {}
        self._gemm_runner = gemm_runner
        self.closed = False

    def _alloc_data_space(self, nbytes: int) -> int:
        return self.device_api.alloc_data_space(self.device, nbytes)

    def _free_data_space(self, address: int) -> None:
        self.device_api.free_data_space(self.device, address)

    def _copy(self, src: int, dst: int, nbytes: int, src_type: str, dst_type: str) -> None:
        host = Device("cpu")
        self.device_api.copy_data_from_to(
            src,
            0,
            dst,
            0,
            nbytes,
            self.device if src_type == "cuda" else host,
            self.device if dst_type == "cuda" else host,
            self.stream,
        )

    @property
    def num_module_loads(self) -> int:
        """Kernel modules this context loaded so far."""
        return self.modules.num_loads

    # -- per execution --------------------------------------------------------

    def state(self, exec_ctx: ExecutionContext) -> CudaExecState:
        state = exec_ctx.driver_state.get(self.name)
        if state is None:
            raise RalError("the CUDA driver has no state for this execution")
        return state

    def on_execution_start(self, exec_ctx: ExecutionContext) -> None:
        self.backend.make_current()
        exec_ctx.driver_state[DRIVER_NAME] = CudaExecState(self)

    def synchronize(self, exec_ctx: ExecutionContext | None = None) -> None:
        """Waits for the context's stream (once per execution when ``exec_ctx`` is given)."""
        if exec_ctx is not None:
            self._synchronize_state(self.state(exec_ctx))
            return
        self.device_api.stream_sync(self.device, self.stream)

    def _synchronize_state(self, state: CudaExecState) -> None:
        if state.synced:
            return
        state.synced = True
        if state.work is not None:
            state.work.done = True
        self.device_api.stream_sync(self.device, self.stream)

    def _wait_stream(self) -> None:
        """Waits for everything queued on the stream so far (a returned array's
        :class:`StreamWork`; nothing once the context closed: closing waited)."""
        if self.closed:
            return
        self.backend.make_current()
        self.device_api.stream_sync(self.device, self.stream)

    def _must_wait(self, exec_ctx: ExecutionContext, state: CudaExecState) -> bool:
        """Whether the call must wait for its GPU work before it returns.

        Blocks handed back to the allocator are only reused by work queued later on
        this same stream, so it need not, unless host memory or a foreign framework's
        device memory takes part, it failed, or blocks go back to the device."""
        return (
            state.must_sync
            or exec_ctx.error is not None
            or not self.options.cache_across_executions
            or any(driver != DRIVER_NAME for driver, _ in exec_ctx.outputs.values())
        )

    def execution_work(self, state: CudaExecState) -> StreamWork:
        """The call's stream work (created on first use), what its outputs wait for."""
        work = state.work
        if work is None:
            work = state.work = StreamWork(self.stream, self._wait_stream)
            work.done = state.synced
        return work

    def on_execution_finish(self, exec_ctx: ExecutionContext) -> None:
        state: CudaExecState | None = exec_ctx.driver_state.pop(DRIVER_NAME, None)
        if state is None:
            return
        if not state.synced and self._must_wait(exec_ctx, state):
            try:
                self._synchronize_state(state)
            except CudaError as err:
                exec_ctx.signal_error(err)
        if state.refcounts or state.staged_inputs or not self.options.cache_across_executions:
            with self.allocator.lock:
                for address in state.drain():
                    self.allocator.free(address)
                for block in state.staged_inputs.values():
                    self.allocator.free(block.address)
                state.staged_inputs.clear()
                if not self.options.cache_across_executions:
                    self.allocator.release_free()
        state.kept.clear()

    # -- memory ---------------------------------------------------------------

    def alloc(self, exec_ctx: ExecutionContext, nbytes: int) -> int:
        return self.alloc_for(self.state(exec_ctx), nbytes)

    def alloc_for(self, state: CudaExecState, nbytes: int) -> int:
        """``alloc`` for the execution whose state is ``state`` (only its own thread
        touches the reference counts before the call ends)."""
        address = self.allocator.alloc(max(1, nbytes)).address
        state.track(address)
        return address

    def alloc_persistent(self, nbytes: int) -> int:
        with self.allocator.lock:
            block = self.allocator.alloc(max(1, nbytes), persistent=True)
            self.persistent.add(block.address)
            return block.address

    def dealloc(self, exec_ctx: ExecutionContext, address: int) -> None:
        if not address or address in self.persistent:
            return
        self.dealloc_for(self.state(exec_ctx), address)

    def dealloc_for(self, state: CudaExecState, address: int) -> None:
        """``dealloc`` for the execution whose state is ``state``."""
        if not address or address in self.persistent:
            return
        with self.allocator.lock:
            # Inputs and buffers of other contexts are borrowed: not counted.
            if state.drop_reference(address):
                self.allocator.free(address)

    def inc_ref(self, exec_ctx: ExecutionContext, address: int) -> None:
        if not address:
            return
        state = self.state(exec_ctx)
        with self.allocator.lock:
            state.add_reference(address)

    def raw_alloc(self, nbytes: int) -> int:
        return self.allocator.alloc(max(1, nbytes)).address

    def raw_dealloc(self, address: int) -> None:
        if address:
            self.allocator.free(address)

    def recycle_block(self, block: DeviceBlock) -> None:
        """Takes back a block an output array owned (freed outright once the context closed)."""
        with self.allocator.lock:
            if self.closed:
                self._free_data_space(block.address)
                return
            self.allocator.recycle(block)

    # -- copies ---------------------------------------------------------------

    def check_stream(self, stream: int, api: str) -> None:
        """BladeDISC's single-stream rule: only stream index 0 (the context's stream)."""
        if stream:
            raise RalError(
                f"{api}: stream index {stream} is not valid (multi-stream not supported)"
            )

    def h2d(self, src: int, dst: int, nbytes: int) -> None:
        self._copy(src, dst, nbytes, "cpu", "cuda")

    def d2h(self, src: int, dst: int, nbytes: int) -> None:
        self._copy(src, dst, nbytes, "cuda", "cpu")

    def d2d(self, src: int, dst: int, nbytes: int) -> None:
        self._copy(src, dst, nbytes, "cuda", "cuda")

    def memset(self, dst: int, value: int, nbytes: int) -> None:
        self.backend.memset_d8(dst, value, nbytes, self.stream)

    def copy_to_host(self, dst: int, src: int, nbytes: int) -> None:
        """Blocking device-to-host copy (what :meth:`DeviceArray.numpy` uses)."""
        self.backend.make_current()
        self._copy(src, dst, nbytes, "cuda", "cpu")
        self.device_api.stream_sync(self.device, self.stream)

    def device_array_from_host(self, array: np.ndarray) -> DeviceArray:
        """A new device array holding a copy of ``array`` (blocking)."""
        array = np.require(array, requirements="C")  # keeps rank 0
        self.backend.make_current()
        block = self.allocator.alloc(max(1, array.nbytes))
        self.allocator.detach(block.address)
        self._copy(array.ctypes.data, block.address, array.nbytes, "cpu", "cuda")
        self.device_api.stream_sync(self.device, self.stream)
        return DeviceArray(
            block.address,
            array.shape,
            array.dtype,
            device_id=self.backend.device_id,
            owner=BlockOwner(self, block),
            copy_to_host=self.copy_to_host,
        )

    def wait_foreign_stream(self, stream: int) -> None:
        """Makes data a producer wrote on ``stream`` visible (protocol stream handles:
        1 legacy default, 2 per-thread default)."""
        self.backend.stream_synchronize(0 if stream == LEGACY_DEFAULT_STREAM else stream)

    # -- kernels --------------------------------------------------------------

    def launch(
        self,
        blobs: list[int],
        kernel_name: str,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        shared_mem: int,
        params: int,
    ) -> None:
        """``ral_base_cuda_launch``: empty launches are skipped; dims must fit CUDA's."""
        if not blobs:
            raise RalError(f"ral_kernel_launch: no kernel blob for '{kernel_name}'")
        if any(d <= 0 for d in grid + block):
            if any(d < 0 for d in grid + block):
                raise RalError(
                    f"ral_kernel_launch '{kernel_name}': negative grid {grid} or block {block}"
                )
            return
        if any(d > UINT32_MAX for d in grid + block) or not 0 <= shared_mem <= UINT32_MAX:
            raise RalError(
                f"ral_kernel_launch '{kernel_name}': grid {grid} / block {block} / shared "
                f"memory {shared_mem} out of range"
            )
        fn = self.modules.launch_function(blobs, kernel_name)
        self.backend.launch(fn, grid, block, shared_mem, self.stream, params)

    # -- gemm ---------------------------------------------------------------------

    @property
    def gemm_runner(self) -> Any:
        """The cuBLAS handle on this context's stream (created on first use)."""
        if self._gemm_runner is None:
            with self._lock:
                if self._gemm_runner is None:
                    self._gemm_runner = CublasHandle(self.stream)
        return self._gemm_runner

    def gemm(
        self,
        a: MemRefDescriptor,
        b: MemRefDescriptor,
        c: MemRefDescriptor,
        tp_a: bool,
        tp_b: bool,
    ) -> CublasGemmCall | None:
        call = plan_row_major_gemm(a, b, c, tp_a, tp_b)
        if call is not None:
            self.gemm_runner.run(call)
        return call

    # -- inputs / outputs -----------------------------------------------------

    def recv_device_input(
        self, exec_ctx: ExecutionContext, index: int, element: ScalarType, rank: int
    ) -> MemRefDescriptor:
        """Input ``index`` in device memory: the caller's device array as is, or a numpy
        input copied to a device block that lives until the call ends."""
        state = self.state(exec_ctx)
        device = state.device_inputs.get(index)
        if device is None:
            block = state.staged_inputs.get(index)
            host = exec_ctx.input(index, element, rank)
            if block is None:
                host = np.require(host, requirements="C")
                state.kept.append(host)
                state.must_sync = True  # the copy reads host memory
                block = self.allocator.alloc(max(1, host.nbytes))
                state.staged_inputs[index] = block
                self.h2d(host.ctypes.data, block.address, host.nbytes)
            return MemRefDescriptor(
                block.address,
                block.address,
                0,
                tuple(int(s) for s in host.shape),
                contiguous_strides(host.shape),
                element,
            )
        name = None
        specs = exec_ctx.context.input_specs
        if specs is not None and index < len(specs):
            name = specs[index].name
        from disc_ir.runtime.context import check_input

        check_input(index, device, element.code, rank, name)  # type: ignore[arg-type]  # a device input is checked like an ndarray (shape, dtype)
        address = device.ptr
        if address % KERNEL_BUFFER_ALIGNMENT and device.nbytes:
            # Kernels assume aligned buffers (their pointer arguments say so to
            # LLVM, which then uses vector accesses): a caller's array at another
            # alignment (a slice of a bigger one) is read from an aligned copy.
            address = self.alloc_for(state, device.nbytes)
            self.d2d(device.ptr, address, device.nbytes)
        return MemRefDescriptor(
            address, address, 0, device.shape, contiguous_strides(device.shape), element
        )

    def send_output(self, exec_ctx: ExecutionContext, index: int, desc: MemRefDescriptor) -> None:
        state = self.state(exec_ctx)
        with self.allocator.lock:
            state.mark_output(desc.aligned)
        exec_ctx.outputs[index] = (self.name, desc)

    def is_device_address(self, exec_ctx: ExecutionContext, address: int) -> bool:
        """Whether ``address`` is device memory this call knows of (or CUDA says so)."""
        if not address:
            return False
        if self.allocator.owner_of(address) is not None:
            return True
        for array in self.state(exec_ctx).device_inputs.values():
            if array.ptr <= address < array.ptr + max(1, array.nbytes):
                return True
        return self.backend.pointer_device(address) is not None

    def collect_output(self, exec_ctx: ExecutionContext, index: int, value: Any) -> DeviceArray:  # type: ignore[override]  # CUDA outputs stay on the device: a DeviceArray, not an ndarray
        """The output as a DeviceArray: owning the block the code allocated (no copy),
        the caller's device input when forwarded, else (constants, staged inputs) a copy."""
        desc: MemRefDescriptor = value
        state = self.state(exec_ctx)
        if not state.synced and self._must_wait(exec_ctx, state):
            self._synchronize_state(state)  # here, so that a failure raises to the caller
        dtype = numpy_dtype(desc.element)
        sizes = desc.sizes
        if type(sizes) is not tuple:
            sizes = tuple(int(s) for s in sizes)
        num_elements = 1
        for size in sizes:
            num_elements *= size
        strides = None if num_elements == 0 or _is_contiguous(desc) else tuple(desc.strides)
        work = self.execution_work(state)
        device_id = self.backend.device_id
        copy_to_host = self.copy_to_host

        def make(ptr: int, owner: Any) -> DeviceArray:
            return DeviceArray._trusted(  # noqa: SLF001 - normalised fields
                ptr, sizes, dtype, device_id, strides, owner, copy_to_host, work
            )

        if num_elements == 0:
            return make(0, None)
        aligned = desc.aligned
        data = aligned + desc.offset * dtype.itemsize
        owner = state.given.get(aligned)
        if owner is None and aligned in state.output_blocks:
            with self.allocator.lock:
                block = self.allocator.detach(aligned)
                if block is not None and not block.persistent:
                    owner = BlockOwner(self, block)
                    state.hand_over(aligned, owner)
                elif block is not None:
                    self.allocator.live[aligned] = block
        if owner is not None:
            return make(data, owner)
        for array in state.device_inputs.values():
            if array.ptr <= data < array.ptr + max(1, array.nbytes):
                return make(data, array.owner if array.owner is not None else array)
        # Constants, staged inputs, memory of unknown lifetime: a private copy.
        nbytes = _span_bytes(desc)
        block = self.allocator.alloc(max(1, nbytes))
        self.allocator.detach(block.address)
        self.d2d(desc.data_address, block.address, nbytes)
        self.device_api.stream_sync(self.device, self.stream)
        return make(block.address, BlockOwner(self, block))

    # -- transpose ------------------------------------------------------------

    def transpose(
        self, src: MemRefDescriptor, perm: tuple[int, ...], dst: MemRefDescriptor
    ) -> None:
        """``dst = transpose(src, perm)`` by cuBLAS geam on the context's stream: a 2-D
        transpose, or a [0, 2, 1] 3-D one (one geam per batch)."""
        rank = src.rank
        if perm not in ((1, 0), (0, 2, 1)) or len(perm) != rank or dst.rank != rank:
            raise RalError(
                f"ral_transpose: permutation {list(perm)} of a rank-{rank} buffer is not "
                "supported on the GPU (only [1, 0] and [0, 2, 1])"
            )
        want = tuple(src.sizes[p] for p in perm)
        if tuple(dst.sizes) != want:
            raise RalError(f"ral_transpose: output shape {dst.sizes}, expected {want}")
        if 0 in src.sizes:
            return
        for name, desc in (("input", src), ("output", dst)):
            dense = contiguous_strides(desc.sizes)
            if any(
                n > 1 and s != d for n, s, d in zip(desc.sizes, desc.strides, dense, strict=True)
            ):
                raise RalError(f"ral_transpose: the {name} is not row-major contiguous")
        batch, rows, cols = (1, *src.sizes) if rank == 2 else src.sizes
        itemsize = numpy_dtype(src.element).itemsize
        matrix = rows * cols * itemsize
        src_base = src.aligned + src.offset * itemsize
        dst_base = dst.aligned + dst.offset * itemsize
        for b in range(batch):
            self.gemm_runner.transpose(
                src.element.code, src_base + b * matrix, dst_base + b * matrix, rows, cols
            )

    # -- constants ------------------------------------------------------------

    def const(
        self, exec_ctx: ExecutionContext, name: str, element: ScalarType, rank: int
    ) -> MemRefDescriptor:
        """The constant ``name`` in a persistent device buffer, uploaded once per context."""
        key = (name, element.code)
        desc = self._consts.get(key)
        if desc is None:
            with self._lock:
                desc = self._consts.get(key)
                if desc is None:
                    # np.require, not np.ascontiguousarray: that one makes a rank-0
                    # constant a 1-element vector.
                    value = np.require(
                        materialize_constant(
                            name, self.context.constants_table(), numpy_dtype(element), rank
                        ),
                        requirements="C",
                    )
                    address = self.alloc_persistent(value.nbytes)
                    self.h2d(value.ctypes.data, address, value.nbytes)
                    self.device_api.stream_sync(self.device, self.stream)
                    desc = MemRefDescriptor(
                        address,
                        address,
                        0,
                        tuple(int(s) for s in value.shape),
                        contiguous_strides(value.shape),
                        element,
                    )
                    self._consts[key] = desc
        if desc.rank != rank:
            raise RalError(f"const {name}: expected rank {rank}, has shape {desc.sizes}")
        return desc

    # -- teardown -------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            if self.closed:
                return
            try:
                self.backend.make_current()
                self.device_api.stream_sync(self.device, self.stream)
            finally:
                self.closed = True
                self.modules.unload_all()
                self._consts.clear()
                self.persistent.clear()
                self.allocator.release_all()
                runner = self._gemm_runner
                if runner is not None and hasattr(runner, "close"):
                    runner.close()
                if self.owns_stream:
                    self.device_api.free_stream(self.device, self.stream)


def _is_contiguous(desc: MemRefDescriptor) -> bool:
    sizes = desc.sizes
    strides = desc.strides
    rank = len(sizes)
    if rank == 2 and strides[1] == 1 and strides[0] == sizes[1]:
        return True
    if rank == 1 and strides[0] == 1:
        return True
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _span_bytes(desc: MemRefDescriptor) -> int:
    """Bytes from the first element to one past the last (contiguous memrefs)."""
    if not _is_contiguous(desc):
        raise RalError(
            f"cannot copy the non-contiguous device output (sizes {desc.sizes}, "
            f"strides {desc.strides})"
        )
    return desc.num_elements * numpy_dtype(desc.element).itemsize


def gpu_driver(exec_ctx: ExecutionContext) -> CudaDriver:
    """The CUDA driver of ``exec_ctx``'s RAL context."""
    return exec_ctx.context.get_driver(DRIVER_NAME)  # type: ignore[return-value]  # the context registered this driver under DRIVER_NAME


def stream_driver(exec_ctx: ExecutionContext, stream: int, api: str) -> CudaDriver:
    """:func:`gpu_driver`, once ``stream`` is checked to be the context's stream
    (RalError naming ``api`` otherwise)."""
    driver = gpu_driver(exec_ctx)
    driver.check_stream(stream, api)
    return driver
