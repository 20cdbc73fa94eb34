"""DeviceAPI (TVM's): CPU and CUDA implementations, and the RAL drivers using them."""

from __future__ import annotations

import ctypes
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from disc_ir.runtime.device_api import (
    CPU,
    CpuDeviceAPI,
    CudaDeviceAPI,
    Device,
    DeviceAPIError,
    get_device_api,
)


def _fake_backend_class():
    path = Path(__file__).resolve().parents[1] / "test_cuda_driver.py"
    spec = importlib.util.spec_from_file_location("cuda_driver_tests", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.FakeBackend


def test_cpu_data_space_copy_and_free() -> None:
    api = get_device_api("cpu")
    assert isinstance(api, CpuDeviceAPI) and get_device_api(CPU) is api
    a = api.alloc_data_space(CPU, 100, alignment=128)
    b = api.alloc_data_space(CPU, 100)
    assert a % 128 == 0 and b % 64 == 0
    src = np.arange(25, dtype=np.float32)
    api.copy_data_from_to(src.ctypes.data, 0, a, 0, src.nbytes, CPU, CPU)
    api.copy_data_from_to(a, 8, b, 0, 16, CPU, CPU)
    got = np.ctypeslib.as_array((ctypes.c_float * 4).from_address(b))
    assert got.tolist() == [2.0, 3.0, 4.0, 5.0]
    api.free_data_space(CPU, a)
    with pytest.raises(DeviceAPIError, match="was not allocated here"):
        api.free_data_space(CPU, a)
    api.free_data_space(CPU, b)
    assert api.create_stream(CPU) == 0
    api.stream_sync(CPU, 0)
    assert api.get_attr(CPU, "exist") is True
    with pytest.raises(DeviceAPIError, match="unknown device attribute"):
        api.get_attr(CPU, "warp_size")
    with pytest.raises(DeviceAPIError, match="was given device cuda:0"):
        api.alloc_data_space(Device("cuda"), 8)


def test_workspaces_are_pooled() -> None:
    api = CpuDeviceAPI()
    w = api.alloc_workspace(CPU, 1000)
    api.free_workspace(CPU, w)
    assert api.alloc_workspace(CPU, 3000) == w  # the same page-rounded size: reused
    w2 = api.alloc_workspace(CPU, 5000)
    assert w2 != w
    with pytest.raises(DeviceAPIError, match="not a workspace block"):
        api.free_workspace(CPU, 12345)
    api.free_workspace(CPU, w)
    api.free_workspace(CPU, w2)
    api.release_workspaces(CPU)
    with pytest.raises(DeviceAPIError):
        api.free_data_space(CPU, w)  # released already


def test_device_parse() -> None:
    assert Device.parse("cuda:1") == Device("cuda", 1)
    assert Device.parse("cpu") == CPU
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        Device.parse("tpu")


def test_cuda_device_api_over_a_backend() -> None:
    backend = _fake_backend_class()()
    api = get_device_api("cuda:0", backend=backend)
    assert isinstance(api, CudaDeviceAPI)
    gpu = Device("cuda", 0)
    assert api.get_attr(gpu, "compute_version") == "9.0"
    d = api.alloc_data_space(gpu, 64)
    host = np.arange(16, dtype=np.float32)
    back = np.zeros(16, np.float32)
    stream = api.create_stream(gpu)
    api.copy_data_from_to(host.ctypes.data, 0, d, 0, 64, CPU, gpu, stream)
    d2 = api.alloc_data_space(gpu, 64)
    api.copy_data_from_to(d, 0, d2, 0, 64, gpu, gpu, stream)
    api.copy_data_from_to(d2, 0, back.ctypes.data, 0, 64, gpu, CPU, stream)
    api.stream_sync(gpu, stream)
    api.free_stream(gpu, stream)
    assert back.tolist() == host.tolist()
    api.free_data_space(gpu, d)
    api.free_data_space(gpu, d2)
    with pytest.raises(DeviceAPIError, match="serves device 0, not 1"):
        api.alloc_data_space(Device("cuda", 1), 8)


def test_drivers_allocate_through_the_device_api(monkeypatch: pytest.MonkeyPatch) -> None:
    from disc_ir.runtime.drivers import cpu

    calls: list[int] = []
    original = CpuDeviceAPI.alloc_block

    def counting(self, device, nbytes, alignment=64):  # noqa: ANN001, ANN202
        calls.append(nbytes)
        return original(self, device, nbytes, alignment)

    monkeypatch.setattr(CpuDeviceAPI, "alloc_block", counting)
    allocator = cpu.CachingAllocator()
    block = allocator.alloc(300)
    assert calls == [300] and block.address % 64 == 0
    allocator.free(block.address)
    assert allocator.alloc(300).address == block.address and calls == [300]  # cached

    from disc_ir.runtime.drivers import cuda

    backend = _fake_backend_class()()
    ctx = cuda.CudaRalContext(backend=backend)
    driver = ctx.get_driver("gpu")
    assert isinstance(driver.device_api, CudaDeviceAPI) and driver.device_api.backend is backend
    seen: list[int] = []
    original_alloc = CudaDeviceAPI.alloc_data_space

    def counting_alloc(self, device, nbytes, alignment=64, type_hint=None):  # noqa: ANN001, ANN202
        seen.append(nbytes)
        return original_alloc(self, device, nbytes, alignment, type_hint)

    monkeypatch.setattr(CudaDeviceAPI, "alloc_data_space", counting_alloc)
    address = driver.raw_alloc(1000)
    assert seen and address in backend.buffers
    driver.raw_dealloc(address)
    ctx.close()
