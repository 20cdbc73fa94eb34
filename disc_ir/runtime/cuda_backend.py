"""Device backends for the CUDA RAL driver: what the driver asks of a GPU.

:class:`DeviceBackend` is the small set of operations the driver needs
(memory, copies, one stream, modules, launch). :class:`CudaBackend` implements
it with the CUDA driver API (``libcuda`` through ctypes, see
:mod:`~disc_ir.runtime.cuda_libs`) on a device's primary context, the context
CUDA runtime users (CuPy, PyTorch, JAX) share, so pointers cross between them
without copies. Tests substitute a host-memory backend to check the driver's
logic on machines without a GPU.

Addresses are Python ints; a stream is an opaque int handle (0 is CUDA's
legacy default stream).
"""

from __future__ import annotations

import ctypes
import threading
from typing import Any

from disc_ir.runtime.cuda_libs import (
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
    CU_JIT_ERROR_LOG_BUFFER,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    CU_JIT_INFO_LOG_BUFFER,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
    CU_MEMORYTYPE_DEVICE,
    CU_MEMORYTYPE_UNIFIED,
    CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
    CU_STREAM_NON_BLOCKING,
    CUDA_SUCCESS,
    CudaError,
    CudaUnavailableError,
    CUdeviceptr,
    LibCuda,
    libcuda,
)


class DeviceBackend:
    """The operations the CUDA driver needs from a device (all addresses are ints)."""

    device_id: int = 0
    name: str = "device"

    def compute_capability(self) -> tuple[int, int]:
        raise NotImplementedError

    def make_current(self) -> None:
        """Makes the device's context current on the calling thread."""

    def mem_alloc(self, nbytes: int) -> int:
        raise NotImplementedError

    def mem_free(self, address: int) -> None:
        raise NotImplementedError

    def memcpy_htod(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        raise NotImplementedError

    def memcpy_dtoh(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        raise NotImplementedError

    def memcpy_dtod(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        raise NotImplementedError

    def memset_d8(self, dst: int, value: int, nbytes: int, stream: int) -> None:
        raise NotImplementedError

    def create_stream(self) -> int:
        raise NotImplementedError

    def destroy_stream(self, stream: int) -> None:
        raise NotImplementedError

    def stream_synchronize(self, stream: int) -> None:
        raise NotImplementedError

    def synchronize(self) -> None:
        raise NotImplementedError

    def module_load(self, image: bytes) -> Any:
        """Loads a PTX (NUL-terminated), cubin or fatbin image; returns a module handle."""
        raise NotImplementedError

    def module_unload(self, module: Any) -> None:
        raise NotImplementedError

    def module_get_function(self, module: Any, name: str) -> Any:
        raise NotImplementedError

    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        shared_mem: int,
        stream: int,
        params: int,
    ) -> None:
        """Launches ``function``; ``params`` is the address of its ``void*`` argument array."""
        raise NotImplementedError

    def pointer_device(self, address: int) -> int | None:
        """The device ordinal owning ``address`` if it is device memory, None if unknown/host."""
        return None

    def mem_info(self) -> tuple[int, int]:
        """(free, total) device memory in bytes."""
        raise NotImplementedError

    def close(self) -> None:
        """Releases what the backend holds."""


class CudaBackend(DeviceBackend):
    """The CUDA driver API on device ``device_id``'s primary context."""

    def __init__(self, device_id: int = 0, api: LibCuda | None = None):
        self.api = api if api is not None else libcuda()
        count = ctypes.c_int()
        self.api.check("cuDeviceGetCount", self.api.cuDeviceGetCount(ctypes.byref(count)))
        if not 0 <= device_id < count.value:
            raise CudaUnavailableError(
                f"device ordinal {device_id} requested, {count.value} device(s) present"
            )
        dev = ctypes.c_int()
        self._check("cuDeviceGet", self.api.cuDeviceGet(ctypes.byref(dev), device_id))
        self.device = dev.value
        self.device_id = device_id
        name = ctypes.create_string_buffer(256)
        self._check("cuDeviceGetName", self.api.cuDeviceGetName(name, 256, self.device))
        self.name = name.value.decode(errors="replace")
        ctx = ctypes.c_void_p()
        self._check(
            "cuDevicePrimaryCtxRetain",
            self.api.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), self.device),
        )
        self.context = ctx.value
        self._closed = False
        self._lock = threading.Lock()
        self.make_current()

    def _check(self, call: str, code: int) -> None:
        if code != CUDA_SUCCESS:
            self.api.check(call, code)

    def compute_capability(self) -> tuple[int, int]:
        major, minor = ctypes.c_int(), ctypes.c_int()
        get = self.api.cuDeviceGetAttribute
        self._check(
            "cuDeviceGetAttribute",
            get(ctypes.byref(major), CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, self.device),
        )
        self._check(
            "cuDeviceGetAttribute",
            get(ctypes.byref(minor), CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, self.device),
        )
        return major.value, minor.value

    def make_current(self) -> None:
        self._check("cuCtxSetCurrent", self.api.cuCtxSetCurrent(self.context))

    def mem_alloc(self, nbytes: int) -> int:
        ptr = CUdeviceptr()
        self._check("cuMemAlloc", self.api.cuMemAlloc_v2(ctypes.byref(ptr), max(1, nbytes)))
        return ptr.value

    def mem_free(self, address: int) -> None:
        self._check("cuMemFree", self.api.cuMemFree_v2(address))

    def _enqueue(self, call: str, entry: str, nbytes: int, *args: int) -> None:
        """Calls the async driver entry point ``entry(*args)`` moving ``nbytes``
        bytes (nothing when 0); failures raise CudaError naming ``call``."""
        if nbytes:
            self._check(call, getattr(self.api, entry)(*args))

    def memcpy_htod(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self._enqueue("cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2", nbytes, dst, src, nbytes, stream)

    def memcpy_dtoh(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self._enqueue("cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2", nbytes, dst, src, nbytes, stream)

    def memcpy_dtod(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self._enqueue("cuMemcpyDtoDAsync", "cuMemcpyDtoDAsync_v2", nbytes, dst, src, nbytes, stream)

    def memset_d8(self, dst: int, value: int, nbytes: int, stream: int) -> None:
        self._enqueue(
            "cuMemsetD8Async", "cuMemsetD8Async", nbytes, dst, value & 0xFF, nbytes, stream
        )

    def create_stream(self) -> int:
        stream = ctypes.c_void_p()
        self._check(
            "cuStreamCreate",
            self.api.cuStreamCreate(ctypes.byref(stream), CU_STREAM_NON_BLOCKING),
        )
        return stream.value or 0

    def destroy_stream(self, stream: int) -> None:
        if stream:
            self._check("cuStreamDestroy", self.api.cuStreamDestroy_v2(stream))

    def stream_synchronize(self, stream: int) -> None:
        self._check("cuStreamSynchronize", self.api.cuStreamSynchronize(stream))

    def synchronize(self) -> None:
        self._check("cuCtxSynchronize", self.api.cuCtxSynchronize())

    def module_load(self, image: bytes) -> Any:
        """``cuModuleLoadDataEx`` with the JIT logs captured, so a bad PTX names its error."""
        log_size = 16384
        error_log = ctypes.create_string_buffer(log_size)
        info_log = ctypes.create_string_buffer(log_size)
        options = (ctypes.c_int * 4)(
            CU_JIT_ERROR_LOG_BUFFER,
            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
            CU_JIT_INFO_LOG_BUFFER,
            CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        )
        values = (ctypes.c_void_p * 4)(
            ctypes.addressof(error_log), log_size, ctypes.addressof(info_log), log_size
        )
        data = ctypes.create_string_buffer(image, len(image) + 1)
        module = ctypes.c_void_p()
        code = self.api.cuModuleLoadDataEx(
            ctypes.byref(module), ctypes.addressof(data), 4, options, values
        )
        if code != CUDA_SUCCESS:
            name, text = self.api.error_text(code)
            log = error_log.value.decode(errors="replace").strip()
            raise CudaError(
                "cuModuleLoadData", code, name, text + (f"; JIT log: {log}" if log else "")
            )
        return module.value

    def module_unload(self, module: Any) -> None:
        self._check("cuModuleUnload", self.api.cuModuleUnload(module))

    def module_get_function(self, module: Any, name: str) -> Any:
        function = ctypes.c_void_p()
        code = self.api.cuModuleGetFunction(ctypes.byref(function), module, name.encode())
        if code != CUDA_SUCCESS:
            err_name, text = self.api.error_text(code)
            raise CudaError(f"cuModuleGetFunction('{name}')", code, err_name, text)
        return function.value

    def launch(
        self,
        function: Any,
        grid: tuple[int, int, int],
        block: tuple[int, int, int],
        shared_mem: int,
        stream: int,
        params: int,
    ) -> None:
        self._check(
            "cuLaunchKernel",
            self.api.cuLaunchKernel(function, *grid, *block, shared_mem, stream, params, None),
        )

    def pointer_device(self, address: int) -> int | None:
        if not address:
            return None
        mem_type = ctypes.c_int()
        code = self.api.cuPointerGetAttribute(
            ctypes.byref(mem_type), CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address
        )
        if code != CUDA_SUCCESS or mem_type.value not in (
            CU_MEMORYTYPE_DEVICE,
            CU_MEMORYTYPE_UNIFIED,
        ):
            return None
        ordinal = ctypes.c_int()
        code = self.api.cuPointerGetAttribute(
            ctypes.byref(ordinal), CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, address
        )
        return ordinal.value if code == CUDA_SUCCESS else None

    def mem_info(self) -> tuple[int, int]:
        free, total = ctypes.c_size_t(), ctypes.c_size_t()
        self._check(
            "cuMemGetInfo",
            self.api.cuMemGetInfo_v2(ctypes.byref(free), ctypes.byref(total)),
        )
        return free.value, total.value

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self.api.cuDevicePrimaryCtxRelease_v2(self.device)
