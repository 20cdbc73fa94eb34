"""DeviceAPI: the per-device memory, copy and stream interface of the runtime (TVM's `DeviceAPI`).

One implementation per device type, found by `get_device_api("cpu" | "cuda", ...)`
(TVM looks up ``device_api.<target>``):

* `alloc_data_space` / `free_data_space`: device memory (addresses are ints);
* `copy_data_from_to`: copies between host and device, host and host, device
  and device, ordered on a stream;
* `create_stream` / `free_stream` / `stream_sync`;
* `alloc_workspace` / `free_workspace`: temporaries served from a per-device
  pool of freed blocks (TVM's `WorkspacePool`);
* `get_attr`: `exist`, `compute_version`, `total_global_memory`.

The RAL drivers allocate through it: the CPU driver's caching allocator gets
its blocks from `CpuDeviceAPI`, the CUDA driver its device memory, copies and
stream from `CudaDeviceAPI` (over the driver's `DeviceBackend`).
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from disc_ir.runtime.cuda_backend import DeviceBackend
    from disc_ir.runtime.drivers.cpu import Block

#: default alignment of data spaces (bytes)
ALIGNMENT = 64
#: workspace requests are rounded up to this (TVM's workspace pool page)
WORKSPACE_PAGE = 4096


@dataclass(frozen=True)
class Device:
    """A device: its type (`cpu`, `cuda`) and ordinal (TVM's `Device` / DLDevice)."""

    device_type: str
    device_id: int = 0

    @staticmethod
    def parse(text: str) -> Device:
        """`cpu`, `cuda`, `cuda:N` as a Device; ValueError otherwise."""
        kind, _, ordinal = text.partition(":")
        if kind not in ("cpu", "cuda") or (ordinal and not ordinal.isdigit()):
            raise ValueError(f"unknown device '{text}' (expected 'cpu', 'cuda' or 'cuda:N')")
        return Device(kind, int(ordinal or 0))


class DeviceAPIError(RuntimeError):
    """A DeviceAPI call was given something it cannot do (unknown pointer, device)."""


class WorkspacePool:
    """Freed workspace blocks of one device, reused by size (page-rounded)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._free: dict[int, list[int]] = {}
        self._size: dict[int, int] = {}

    def take(self, nbytes: int) -> int | None:
        size = -(-max(1, nbytes) // WORKSPACE_PAGE) * WORKSPACE_PAGE
        with self._lock:
            blocks = self._free.get(size)
            return blocks.pop() if blocks else None

    def give(self, ptr: int) -> None:
        with self._lock:
            size = self._size.get(ptr)
            if size is None:
                raise DeviceAPIError(f"free_workspace: {ptr:#x} is not a workspace block")
            self._free.setdefault(size, []).append(ptr)

    def record(self, ptr: int, nbytes: int) -> None:
        with self._lock:
            self._size[ptr] = -(-max(1, nbytes) // WORKSPACE_PAGE) * WORKSPACE_PAGE

    def page_size(self, nbytes: int) -> int:
        return -(-max(1, nbytes) // WORKSPACE_PAGE) * WORKSPACE_PAGE

    def drain(self) -> list[int]:
        """Every cached block (forgotten by the pool)."""
        with self._lock:
            out = [p for blocks in self._free.values() for p in blocks]
            for p in out:
                self._size.pop(p, None)
            self._free.clear()
            return out


class DeviceAPI:
    """The interface; subclasses implement one device type."""

    device_type = "none"

    def __init__(self) -> None:
        self._workspaces = WorkspacePool()

    def _check(self, device: Device) -> None:
        if device.device_type != self.device_type:
            raise DeviceAPIError(
                f"a {self.device_type} DeviceAPI was given device {device.device_type}:"
                f"{device.device_id}"
            )

    def set_device(self, device: Device) -> None:
        """Makes `device` current on the calling thread."""
        self._check(device)

    def get_attr(self, device: Device, kind: str) -> Any:
        """A device attribute (`exist`, `compute_version`, `total_global_memory`)."""
        raise DeviceAPIError(f"unknown device attribute '{kind}'")

    def alloc_data_space(
        self, device: Device, nbytes: int, alignment: int = ALIGNMENT, type_hint: Any = None
    ) -> int:
        raise NotImplementedError

    def free_data_space(self, device: Device, ptr: int) -> None:
        raise NotImplementedError

    def copy_data_from_to(
        self,
        src: int,
        src_offset: int,
        dst: int,
        dst_offset: int,
        nbytes: int,
        dev_from: Device,
        dev_to: Device,
        stream: int = 0,
    ) -> None:
        raise NotImplementedError

    def create_stream(self, device: Device) -> int:
        """A new stream (0 where the device has none)."""
        self._check(device)
        return 0

    def free_stream(self, device: Device, stream: int) -> None:
        self._check(device)

    def stream_sync(self, device: Device, stream: int) -> None:
        """Waits until the work queued on `stream` is done."""
        self._check(device)

    def alloc_workspace(self, device: Device, nbytes: int, type_hint: Any = None) -> int:
        """A temporary of at least `nbytes`, from the workspace pool when one is free."""
        ptr = self._workspaces.take(nbytes)
        if ptr is None:
            size = self._workspaces.page_size(nbytes)
            ptr = self.alloc_data_space(device, size, ALIGNMENT, type_hint)
            self._workspaces.record(ptr, size)
        return ptr

    def free_workspace(self, device: Device, ptr: int) -> None:
        """Returns a workspace to the pool (kept for the next `alloc_workspace`)."""
        self._workspaces.give(ptr)

    def release_workspaces(self, device: Device) -> None:
        """Frees every pooled workspace."""
        for ptr in self._workspaces.drain():
            self.free_data_space(device, ptr)


class CpuDeviceAPI(DeviceAPI):
    """Host memory: aligned blocks owned by numpy arrays (`drivers.cpu.aligned_empty`)."""

    device_type = "cpu"

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._blocks: dict[int, Block] = {}
        self._aligned_empty: Any = None

    def get_attr(self, device: Device, kind: str) -> Any:
        self._check(device)
        if kind == "exist":
            return device.device_id == 0
        return super().get_attr(device, kind)

    def alloc_block(self, device: Device, nbytes: int, alignment: int = ALIGNMENT) -> Block:
        """A new aligned block whose owner the caller keeps (no `free_data_space`
        needed: dropping the block frees it)."""
        if device.device_type != "cpu":
            self._check(device)
        allocate = self._aligned_empty
        if allocate is None:
            # imported on first use: the CPU driver imports this module
            from disc_ir.runtime.drivers.cpu import aligned_empty

            allocate = self._aligned_empty = aligned_empty
        return allocate(nbytes, alignment)

    def alloc_data_space(
        self, device: Device, nbytes: int, alignment: int = ALIGNMENT, type_hint: Any = None
    ) -> int:
        block = self.alloc_block(device, nbytes, alignment)
        with self._lock:
            self._blocks[block.address] = block
        return block.address

    def free_data_space(self, device: Device, ptr: int) -> None:
        self._check(device)
        with self._lock:
            if self._blocks.pop(ptr, None) is None:
                raise DeviceAPIError(f"free_data_space: {ptr:#x} was not allocated here")

    def copy_data_from_to(
        self,
        src: int,
        src_offset: int,
        dst: int,
        dst_offset: int,
        nbytes: int,
        dev_from: Device,
        dev_to: Device,
        stream: int = 0,
    ) -> None:
        self._check(dev_from)
        self._check(dev_to)
        if nbytes:
            ctypes.memmove(dst + dst_offset, src + src_offset, nbytes)


class CudaDeviceAPI(DeviceAPI):
    """CUDA device memory, copies and streams over a `DeviceBackend` (one device)."""

    device_type = "cuda"

    def __init__(self, backend: DeviceBackend) -> None:
        super().__init__()
        self.backend = backend

    def _check(self, device: Device) -> None:
        super()._check(device)
        if device.device_id != self.backend.device_id:
            raise DeviceAPIError(
                f"this CUDA DeviceAPI serves device {self.backend.device_id}, "
                f"not {device.device_id}"
            )

    def set_device(self, device: Device) -> None:
        self._check(device)
        self.backend.make_current()

    def get_attr(self, device: Device, kind: str) -> Any:
        self._check(device)
        if kind == "exist":
            return True
        if kind == "compute_version":
            major, minor = self.backend.compute_capability()
            return f"{major}.{minor}"
        if kind == "total_global_memory":
            return self.backend.mem_info()[1]
        return super().get_attr(device, kind)

    def alloc_data_space(
        self, device: Device, nbytes: int, alignment: int = ALIGNMENT, type_hint: Any = None
    ) -> int:
        self._check(device)
        return self.backend.mem_alloc(max(1, nbytes))  # cuMemAlloc: 256-byte aligned

    def free_data_space(self, device: Device, ptr: int) -> None:
        self._check(device)
        self.backend.mem_free(ptr)

    def copy_data_from_to(
        self,
        src: int,
        src_offset: int,
        dst: int,
        dst_offset: int,
        nbytes: int,
        dev_from: Device,
        dev_to: Device,
        stream: int = 0,
    ) -> None:
        if not nbytes:
            return
        s, d = src + src_offset, dst + dst_offset
        kinds = (dev_from.device_type, dev_to.device_type)
        if kinds == ("cpu", "cuda"):
            self._check(dev_to)
            self.backend.memcpy_htod(d, s, nbytes, stream)
        elif kinds == ("cuda", "cpu"):
            self._check(dev_from)
            self.backend.memcpy_dtoh(d, s, nbytes, stream)
        elif kinds == ("cuda", "cuda"):
            self._check(dev_from)
            self._check(dev_to)
            self.backend.memcpy_dtod(d, s, nbytes, stream)
        else:
            ctypes.memmove(d, s, nbytes)

    def create_stream(self, device: Device) -> int:
        self._check(device)
        return self.backend.create_stream()

    def free_stream(self, device: Device, stream: int) -> None:
        self._check(device)
        self.backend.destroy_stream(stream)

    def stream_sync(self, device: Device, stream: int) -> None:
        self._check(device)
        self.backend.stream_synchronize(stream)


_CPU = CpuDeviceAPI()


def get_device_api(device: Device | str, backend: DeviceBackend | None = None) -> DeviceAPI:
    """The DeviceAPI of `device` (TVM's `DeviceAPI::Get`): the process's CPU one,
    or a CUDA one over `backend` (default: a `CudaBackend` of the device)."""
    dev = Device.parse(device) if isinstance(device, str) else device
    if dev.device_type == "cpu":
        return _CPU
    if backend is None:
        from disc_ir.runtime.cuda_backend import CudaBackend

        backend = CudaBackend(dev.device_id)
    return CudaDeviceAPI(backend)


CPU = Device("cpu")

__all__ = [
    "CPU",
    "CpuDeviceAPI",
    "CudaDeviceAPI",
    "Device",
    "DeviceAPI",
    "DeviceAPIError",
    "WorkspacePool",
    "get_device_api",
]
