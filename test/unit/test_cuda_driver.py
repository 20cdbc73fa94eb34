"""The CUDA RAL driver: everything GPU-free against a host-memory fake device, plus GPU
tests that run only where CUDA sees a device (tools/gpu_check.py runs them there)."""

from __future__ import annotations

import ctypes
import gc
import struct

import numpy as np
import pytest

from disc_ir.runtime import dlpack
from disc_ir.runtime.abi import KERNEL_BUFFER_ALIGNMENT, ScalarType
from disc_ir.runtime.context import RalError, RalInputError
from disc_ir.runtime.cuda_backend import DeviceBackend
from disc_ir.runtime.cuda_libs import (
    CUDA_ERROR_OUT_OF_MEMORY,
    CudaError,
    CudaUnavailableError,
    cuda_available,
)
from disc_ir.runtime.device_array import (
    DeviceArray,
    DeviceArrayError,
    from_dlpack,
    from_dlpack_capsule,
    parse_cuda_array_interface,
)
from disc_ir.runtime.dispatch import call_api
from disc_ir.runtime.drivers import cuda
from disc_ir.runtime.gpu_allocator import CachingDeviceAllocator, bin_size
from disc_ir.runtime.kernels.cublas_gemm import CUBLAS_OP_N, CUBLAS_OP_T, plan_row_major_gemm
from disc_ir.runtime.memref import MemRefDescriptor, contiguous_strides

HAS_GPU = cuda_available()
gpu = pytest.mark.skipif(not HAS_GPU, reason="no CUDA device")

LAUNCH = cuda.ral_gpu_kernel_launch.ral_api_names[0]


# ---------------------------------------------------------------------------
# A host-memory device
# ---------------------------------------------------------------------------


def _fake_vadd(grid, block, params):
    """The fake device's `vadd(float* a, float* b, float* c, uint32 n)`."""
    slots = (ctypes.c_void_p * 4).from_address(params)
    a, b, c = (ctypes.c_uint64.from_address(slots[i]).value for i in range(3))
    n = ctypes.c_uint32.from_address(slots[3]).value
    count = min(n, grid[0] * block[0])
    view = lambda p: np.ctypeslib.as_array((ctypes.c_float * count).from_address(p))  # noqa: E731
    view(c)[:] = view(a) + view(b)


class FakeBackend(DeviceBackend):
    """Device memory is host memory; kernels are Python functions found by name in the image."""

    kernels = {"vadd": _fake_vadd}

    def __init__(self, fail_allocs: int = 0):
        self.buffers: dict[int, np.ndarray] = {}
        self.streams = 0
        self.loads: list[bytes] = []
        self.launches: list[tuple] = []
        self.syncs = 0
        self.fail_allocs = fail_allocs

    def compute_capability(self):
        return (9, 0)

    def mem_alloc(self, nbytes):
        if self.fail_allocs:
            self.fail_allocs -= 1
            raise CudaError(
                "cuMemAlloc", CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "oom"
            )
        buf = np.zeros(nbytes, np.uint8)
        self.buffers[buf.ctypes.data] = buf
        return buf.ctypes.data

    def mem_free(self, address):
        del self.buffers[address]

    def memcpy_htod(self, dst, src, nbytes, stream):
        ctypes.memmove(dst, src, nbytes)

    memcpy_dtoh = memcpy_dtod = memcpy_htod

    def memset_d8(self, dst, value, nbytes, stream):
        ctypes.memset(dst, value, nbytes)

    def create_stream(self):
        self.streams += 1
        return 0x5000 + self.streams

    def destroy_stream(self, stream):
        pass

    def stream_synchronize(self, stream):
        self.syncs += 1

    def synchronize(self):
        self.syncs += 1

    def module_load(self, image):
        self.loads.append(image)
        return len(self.loads)

    def module_unload(self, module):
        pass

    def module_get_function(self, module, name):
        if f".entry {name}(".encode() not in self.loads[module - 1]:
            raise CudaError(
                f"cuModuleGetFunction('{name}')",
                500,
                "CUDA_ERROR_NOT_FOUND",
                "named symbol not found",
            )
        return self.kernels[name]

    def launch(self, function, grid, block, shared_mem, stream, params):
        self.launches.append((grid, block, shared_mem, stream))
        function(grid, block, params)

    def pointer_device(self, address):
        for base, buf in self.buffers.items():
            if base <= address < base + buf.nbytes:
                return 0
        return None


VADD_PTX = """
.version 7.0
.target sm_52
.address_size 64

.visible .entry vadd(.param .u64 a, .param .u64 b, .param .u64 c, .param .u32 n)
{
    .reg .pred %p<2>;
    .reg .b32 %r<6>;
    .reg .f32 %f<4>;
    .reg .b64 %rd<11>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [b];
    ld.param.u64 %rd3, [c];
    ld.param.u32 %r2, [n];
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mov.u32 %r5, %tid.x;
    mad.lo.s32 %r1, %r3, %r4, %r5;
    setp.ge.u32 %p1, %r1, %r2;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd4, %rd1;
    cvta.to.global.u64 %rd5, %rd2;
    cvta.to.global.u64 %rd6, %rd3;
    mul.wide.u32 %rd7, %r1, 4;
    add.s64 %rd8, %rd4, %rd7;
    add.s64 %rd9, %rd5, %rd7;
    add.s64 %rd10, %rd6, %rd7;
    ld.global.f32 %f1, [%rd8];
    ld.global.f32 %f2, [%rd9];
    add.f32 %f3, %f1, %f2;
    st.global.f32 [%rd10], %f3;
DONE:
    ret;
}
"""


def _context(backend=None, **kwargs):
    return cuda.CudaRalContext(backend=backend or FakeBackend(), **kwargs)


def _launch_vadd(exec_ctx, blob_buffers, a, b, c, n, block=128):
    blobs = (ctypes.c_void_p * len(blob_buffers))(*[ctypes.addressof(x) for x in blob_buffers])
    params, keep = cuda.pack_kernel_args([("ptr", a), ("ptr", b), ("ptr", c), ("ui32", n)])
    grid = -(-n // block)
    call_api(
        exec_ctx,
        LAUNCH,
        exec_ctx,
        ctypes.addressof(blobs),
        len(blob_buffers),
        "vadd",
        grid,
        1,
        1,
        block,
        1,
        1,
        0,
        0,
        4,
        params,
    )
    del keep


# ---------------------------------------------------------------------------
# __cuda_array_interface__ and DLPack
# ---------------------------------------------------------------------------


def _foreign_cai(host: np.ndarray) -> object:
    """A foreign array exposing `host`'s memory through __cuda_array_interface__
    (host memory posing as device memory)."""
    cai = DeviceArray(host.ctypes.data, host.shape, host.dtype).__cuda_array_interface__
    return type("Foreign", (), {"__cuda_array_interface__": cai})()


def test_cuda_array_interface_parsing():
    arr, stream = parse_cuda_array_interface(
        {
            "shape": (2, 3),
            "typestr": "<f4",
            "data": (4096, False),
            "version": 3,
            "strides": (12, 4),
            "stream": 7,
        }
    )
    assert (arr.ptr, arr.shape, arr.dtype, arr.strides, stream) == (
        4096,
        (2, 3),
        np.float32,
        None,
        7,
    )
    arr, _ = parse_cuda_array_interface(
        {"shape": (2, 3), "typestr": "<f4", "data": (4096, True), "version": 2, "strides": (4, 8)}
    )
    assert arr.strides == (1, 2) and not arr.is_contiguous and arr.readonly
    bad = [
        ({"shape": (2,), "typestr": "|V8", "data": (1, False), "version": 3}, "typestr"),
        ({"shape": (2,), "typestr": "<f4", "data": (0, False), "version": 3}, "null pointer"),
        (
            {"shape": (2,), "typestr": "<f4", "data": (8, False), "version": 3, "stream": 0},
            "stream 0",
        ),
        ({"shape": (2,), "typestr": "<f4", "data": (8, False), "version": 9}, "version"),
        (
            {"shape": (2,), "typestr": "<f4", "data": (8, False), "version": 3, "mask": object()},
            "masked",
        ),
        (
            {"shape": (2,), "typestr": "<f4", "data": (8, False), "version": 3, "strides": (3,)},
            "multiples",
        ),
    ]
    for interface, message in bad:
        with pytest.raises(DeviceArrayError, match=message):
            parse_cuda_array_interface(interface)


def test_dlpack_capsules_from_numpy_parse_and_cpu_is_rejected():
    host = np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::2]
    for capsule, versioned in (
        (host.__dlpack__(), False),
        (host.__dlpack__(max_version=(1, 0)), True),
    ):
        info = dlpack.read_capsule(capsule)
        assert info.device_type == dlpack.KDL_CPU and info.versioned == versioned
        assert (info.data, info.shape, info.strides, info.dtype) == (
            host.ctypes.data,
            (3, 2),
            (4, 2),
            np.float32,
        )
        with pytest.raises(DeviceArrayError, match="kDLCPU.*expected a CUDA device"):
            from_dlpack_capsule(capsule)
        dlpack.read_capsule(capsule)  # rejected before being consumed
    with pytest.raises(DeviceArrayError, match="kDLCPU"):
        from_dlpack(host)


def test_device_array_exports_dlpack_and_cuda_array_interface():
    backing = np.arange(6, dtype=np.float64)
    arr = DeviceArray(backing.ctypes.data, (2, 3), np.float64, device_id=0, owner=backing)
    interface = arr.__cuda_array_interface__
    assert interface["data"] == (backing.ctypes.data, False) and interface["typestr"] == "<f8"
    assert parse_cuda_array_interface(interface)[0].shape == (2, 3)
    before = dlpack.num_live_exports()
    imported = from_dlpack_capsule(arr.__dlpack__(stream=1))
    assert (imported.ptr, imported.shape, imported.dtype) == (arr.ptr, (2, 3), np.float64)
    assert arr.__dlpack_device__() == (dlpack.KDL_CUDA, 0)
    assert dlpack.num_live_exports() == before + 1
    del imported
    gc.collect()
    assert dlpack.num_live_exports() == before  # the consumer's deleter ran
    capsule = arr.__dlpack__()
    del capsule
    gc.collect()
    assert dlpack.num_live_exports() == before  # an unconsumed capsule frees itself


# ---------------------------------------------------------------------------
# Allocator
# ---------------------------------------------------------------------------


def test_allocator_bins_and_caches():
    assert [bin_size(n) for n in (0, 1, 512, 513, 4096, 4097, 5000, 8192, 10**6)] == [
        512,
        512,
        512,
        1024,
        4096,
        5120,
        5120,
        8192,
        1048576,
    ]
    assert all(n <= bin_size(n) <= max(512, n * 1.25) for n in range(1, 200000, 997))
    backend = FakeBackend()
    alloc = CachingDeviceAllocator(backend.mem_alloc, backend.mem_free)
    a = alloc.alloc(4097)
    alloc.free(a.address)
    b = alloc.alloc(5000)  # same bin: reused
    assert b.address == a.address and alloc.stats.cache_hits == 1 and alloc.stats.device_allocs == 1
    c = alloc.alloc(100)
    assert alloc.stats.bytes_in_use == 5120 + 512 and alloc.owner_of(c.address + 10) is c
    alloc.free(b.address)
    alloc.free(c.address)
    assert alloc.num_cached == 2 and alloc.release_free() == 2 and not backend.buffers
    # Out of memory with blocks cached: the cache is released and the allocation retried.
    alloc.free(alloc.alloc(1 << 20).address)
    backend.fail_allocs = 1
    alloc.alloc(1 << 16)
    assert alloc.stats.oom_retries == 1 and alloc.num_cached == 0
    backend.fail_allocs = 1
    with pytest.raises(CudaError, match="OUT_OF_MEMORY"):
        alloc.alloc(1 << 16)


# ---------------------------------------------------------------------------
# Blobs, argument packing, launch through the RAL ABI
# ---------------------------------------------------------------------------


def test_blob_extent_ptx_fatbin_elf():
    ptx = ctypes.create_string_buffer(VADD_PTX.encode())
    assert cuda.blob_image(ctypes.addressof(ptx)) == VADD_PTX.encode()
    fat = ctypes.create_string_buffer(
        struct.pack("<IHHQ", cuda.FATBIN_MAGIC, 1, 16, 40) + b"x" * 60
    )
    assert cuda.blob_extent(ctypes.addressof(fat)) == 56
    # A 64-bit ELF: header, one section of 100 bytes at 64, section table at 200.
    elf = bytearray(200 + 2 * 64)
    elf[:5] = b"\x7fELF\x02"
    struct.pack_into("<QQ", elf, 0x20, 0, 200)
    struct.pack_into("<HHHH", elf, 0x36, 56, 0, 64, 2)
    struct.pack_into("<IIQQQQ", elf, 264, 0, 1, 0, 0, 64, 100)
    elf_buf = ctypes.create_string_buffer(bytes(elf))
    assert cuda.blob_extent(ctypes.addressof(elf_buf)) == 328


def test_pack_kernel_args():
    params, keep = cuda.pack_kernel_args([("ptr", 0xDEAD0000), ("i32", -3), ("f32", 1.5)])
    slots = (ctypes.c_void_p * 3).from_address(params)
    assert ctypes.c_uint64.from_address(slots[0]).value == 0xDEAD0000
    assert ctypes.c_int32.from_address(slots[1]).value == -3
    assert ctypes.c_float.from_address(slots[2]).value == 1.5
    with pytest.raises(RalError, match="unknown argument type"):
        cuda.pack_kernel_args([("m2df32", 0)])


def test_kernel_launch_through_the_ral_abi_loads_modules_once():
    backend = FakeBackend()
    with _context(backend) as ctx, ctx.create_execution_context([]) as exec_ctx:
        n = 1000
        a, b = np.random.rand(n).astype(np.float32), np.random.rand(n).astype(np.float32)
        alloc = cuda.ral_gpu_alloc.ral_api_names[0]
        da, db, dc = (call_api(exec_ctx, alloc, exec_ctx, 4 * n) for _ in range(3))
        h2d = cuda.ral_gpu_h2d_raw.ral_api_names[0]
        call_api(exec_ctx, h2d, exec_ctx, 0, a.ctypes.data, da, 4 * n)
        call_api(exec_ctx, h2d, exec_ctx, 0, b.ctypes.data, db, 4 * n)
        blob = ctypes.create_string_buffer(VADD_PTX.encode())
        same_bytes = ctypes.create_string_buffer(VADD_PTX.encode())
        _launch_vadd(exec_ctx, [blob], da, db, dc, n)
        _launch_vadd(exec_ctx, [same_bytes], da, db, dc, n)
        out = np.empty(n, np.float32)
        call_api(
            exec_ctx, cuda.ral_gpu_d2h_raw.ral_api_names[0], exec_ctx, 0, dc, out.ctypes.data, 4 * n
        )
        np.testing.assert_array_equal(out, a + b)
        assert len(backend.loads) == 1 and backend.loads[0] == VADD_PTX.encode()
        assert backend.launches[0] == ((8, 1, 1), (128, 1, 1), 0, ctx.cuda.stream)
        _launch_vadd(exec_ctx, [blob], da, db, dc, 0)  # an empty launch is skipped
        assert len(backend.launches) == 2
        with pytest.raises(RalError, match="multi-stream"):
            call_api(exec_ctx, h2d, exec_ctx, 1, a.ctypes.data, da, 4)
    with _context(backend) as ctx, ctx.create_execution_context([]) as exec_ctx:
        params, keep = cuda.pack_kernel_args([])
        blobs = (ctypes.c_void_p * 1)(ctypes.addressof(blob))
        with pytest.raises(CudaError, match="NOT_FOUND"):
            call_api(
                exec_ctx,
                LAUNCH,
                exec_ctx,
                ctypes.addressof(blobs),
                1,
                "missing",
                1,
                1,
                1,
                1,
                1,
                1,
                0,
                0,
                0,
                params,
            )


# ---------------------------------------------------------------------------
# gemm: the cuBLAS call for row-major operands, checked by a column-major reference
# ---------------------------------------------------------------------------


def _column_major(address, rows, cols, ld, stride, batch, dtype):
    """A column-major `rows x cols` matrix batch at `address` (leading dim `ld`) as an ndarray view."""
    item = np.dtype(dtype).itemsize
    span = ((batch - 1) * stride + (cols - 1) * ld + rows) * item
    buffer = (ctypes.c_char * span).from_address(address)
    return np.ndarray((batch, rows, cols), dtype, buffer, strides=(stride * item, item, ld * item))


def _column_major_gemm(call, dtype):
    """What cuBLAS computes for `call` (column-major, strided batches), on host memory."""
    ta, tb = call.transa == CUBLAS_OP_T, call.transb == CUBLAS_OP_T
    a = _column_major(
        call.a,
        *((call.k, call.m) if ta else (call.m, call.k)),
        call.lda,
        call.stride_a,
        call.batch,
        dtype,
    )
    b = _column_major(
        call.b,
        *((call.n, call.k) if tb else (call.k, call.n)),
        call.ldb,
        call.stride_b,
        call.batch,
        dtype,
    )
    a = np.swapaxes(a, -1, -2) if ta else a
    b = np.swapaxes(b, -1, -2) if tb else b
    c = _column_major(call.c, call.m, call.n, call.ldc, call.stride_c, call.batch, dtype)
    c[...] = (a.astype(np.float64) @ b.astype(np.float64)).astype(dtype)


class FakeGemm:
    def __init__(self, dtype):
        self.dtype = dtype
        self.calls = []

    def run(self, call):
        self.calls.append(call)
        _column_major_gemm(call, self.dtype)


def _desc(array, element):
    return MemRefDescriptor.from_array(array, ScalarType(element))


@pytest.mark.parametrize("tp_a", [False, True])
@pytest.mark.parametrize("tp_b", [False, True])
@pytest.mark.parametrize("batch", [(), (3,), (2, 2)])
def test_row_major_gemm_maps_to_cublas(tp_a, tp_b, batch):
    rng = np.random.default_rng(0)
    m, n, k = 5, 7, 4
    a = rng.standard_normal((*batch, *((k, m) if tp_a else (m, k)))).astype(np.float32)
    b = rng.standard_normal((*batch, *((n, k) if tp_b else (k, n)))).astype(np.float32)
    c = np.zeros((*batch, m, n), np.float32)
    runner = FakeGemm(np.float32)
    with _context(gemm_runner=runner) as ctx, ctx.create_execution_context([]) as exec_ctx:
        name = next(x for x in cuda.ral_gpu_gemm.ral_api_names if f"_m{c.ndim}df32_" in x)
        call_api(exec_ctx, name, exec_ctx, 0, a, b, c, tp_a, tp_b, False)
    ref = (np.swapaxes(a, -1, -2) if tp_a else a) @ (np.swapaxes(b, -1, -2) if tp_b else b)
    np.testing.assert_allclose(c, ref, rtol=1e-5, atol=1e-5)
    (call,) = runner.calls
    assert (call.m, call.n, call.k) == (n, m, k)  # swapped: C^T = op(B)^T op(A)^T
    assert call.transa == (CUBLAS_OP_T if tp_b else CUBLAS_OP_N)
    assert call.batch == int(np.prod(batch))


def test_gemm_transposed_storage_and_errors():
    a = np.asfortranarray(np.random.rand(6, 3))  # row stride 1: stored transposed
    b = np.random.rand(3, 2)
    c = np.zeros((6, 2))
    call = plan_row_major_gemm(_desc(a, "f64"), _desc(b, "f64"), _desc(c, "f64"), False, False)
    _column_major_gemm(call, np.float64)
    np.testing.assert_allclose(c, a @ b)
    with pytest.raises(RalError, match="contraction"):
        plan_row_major_gemm(
            _desc(a, "f64"), _desc(np.zeros((4, 2)), "f64"), _desc(c, "f64"), False, False
        )
    with pytest.raises(RalError, match="not supported"):
        z = np.zeros((2, 2), np.int32)
        plan_row_major_gemm(_desc(z, "i32"), _desc(z, "i32"), _desc(z, "i32"), False, False)
    assert (
        plan_row_major_gemm(
            _desc(np.zeros((0, 3)), "f64"),
            _desc(b, "f64"),
            _desc(np.zeros((0, 2)), "f64"),
            False,
            False,
        )
        is None
    )


# ---------------------------------------------------------------------------
# transpose: cuBLAS geam on row-major buffers, checked by a column-major model
# ---------------------------------------------------------------------------


class FakeGeamCublas:
    """cublasCreate / SetStream and a column-major ``cublas<t>geam`` (transb N, beta 0) on host memory."""

    def __init__(self):
        self.calls = []

    def cublasCreate_v2(self, handle):
        return 0

    def cublasSetStream_v2(self, handle, stream):
        return 0

    def _geam(self, dtype, handle, transa, transb, m, n, alpha, a, lda, beta, b, ldb, c, ldc):
        self.calls.append((transa, transb, m, n, lda, ldb, ldc))
        assert transb == CUBLAS_OP_N and b == c and ldb == ldc
        a_rows, a_cols = (n, m) if transa == CUBLAS_OP_T else (m, n)
        av = _column_major(a, a_rows, a_cols, lda, 0, 1, dtype)[0]
        cv = _column_major(c, m, n, ldc, 0, 1, dtype)[0]
        cv[...] = av.T if transa == CUBLAS_OP_T else av
        return 0

    def cublasSgeam(self, *args):
        return self._geam(np.float32, *args)

    def cublasDgeam(self, *args):
        return self._geam(np.float64, *args)

    @staticmethod
    def check(call, code):
        assert code == 0, call


@pytest.mark.parametrize("element,dtype", [("f32", np.float32), ("f64", np.float64)])
@pytest.mark.parametrize("shape", [(5, 7), (3, 4, 6), (1, 1), (0, 3)])
def test_gpu_transpose_maps_to_cublas_geam(element, dtype, shape):
    from disc_ir.runtime.kernels.cublas_gemm import CublasHandle

    lib = FakeGeamCublas()
    runner = CublasHandle(0, lib=lib)
    perm = (1, 0) if len(shape) == 2 else (0, 2, 1)
    with _context(gemm_runner=runner) as ctx:
        src = np.random.default_rng(0).standard_normal(shape).astype(dtype)
        dst = np.full(tuple(shape[p] for p in perm), np.nan, dtype)
        ctx.cuda.transpose(_desc(src, element), perm, _desc(dst, element))
        np.testing.assert_array_equal(dst, np.transpose(src, perm))
        batch = shape[0] if len(shape) == 3 else 1
        assert len(lib.calls) == (batch if src.size else 0)


def test_gpu_transpose_errors():
    with _context(gemm_runner=object()) as ctx:
        a = _desc(np.zeros((2, 3), np.float32), "f32")
        with pytest.raises(RalError, match="output shape"):
            ctx.cuda.transpose(a, (1, 0), _desc(np.zeros((2, 3), np.float32), "f32"))
        with pytest.raises(RalError, match="not supported on the GPU"):
            b = _desc(np.zeros((2, 3, 4), np.float32), "f32")
            ctx.cuda.transpose(b, (2, 1, 0), _desc(np.zeros((4, 3, 2), np.float32), "f32"))
        with pytest.raises(RalError, match="row-major"):
            t = np.zeros((3, 2), np.float32).T
            ctx.cuda.transpose(_desc(t, "f32"), (1, 0), _desc(np.zeros((3, 2), np.float32), "f32"))
    names = cuda.ral_gpu_transpose.ral_api_names
    assert "ral_transpose___gpu___pvoid_pvoid_m2df32_m1di32_m2df32___void" in names
    assert "ral_transpose___gpu___pvoid_pvoid_m3df64_m1di32_m3df64___void" in names


# ---------------------------------------------------------------------------
# Rank-0 values keep rank 0 (np.ascontiguousarray would make them vectors)
# ---------------------------------------------------------------------------


def test_rank0_constants_and_device_arrays_keep_rank_0():
    md5 = "ab" * 16
    table = {md5: ("f32", (), np.float32(2.5).tobytes())}
    with _context(constants=table) as ctx, ctx.create_execution_context([]) as exec_ctx:
        desc = ctx.cuda.const(exec_ctx, f"{md5}_f32_", ScalarType("f32"), 0)
        assert desc.rank == 0 and desc.sizes == ()
        assert ctypes.c_float.from_address(desc.aligned).value == 2.5
        assert ctx.cuda.const(exec_ctx, f"{md5}_f32_", ScalarType("f32"), 0) is desc
        scalar = ctx.device_array(np.array(3.0, np.float32))
        assert scalar.shape == () and scalar.numpy() == np.float32(3.0)


# ---------------------------------------------------------------------------
# Executions: inputs (numpy / device arrays), outputs as DeviceArrays, bookkeeping
# ---------------------------------------------------------------------------


def _vadd_entry(exec_ctx_handle, blob):
    from disc_ir.runtime.context import execution_context_from_handle

    ec = execution_context_from_handle(exec_ctx_handle)
    recv = next(x for x in cuda.ral_cuda_recv_input.ral_api_names if x.endswith("m1df32"))
    x = call_api(ec, recv, ec, 0)
    y = call_api(ec, recv, ec, 1)
    n = x.sizes[0]
    out = call_api(ec, cuda.ral_gpu_alloc.ral_api_names[0], ec, 4 * n)
    _launch_vadd(ec, [blob], x.aligned, y.aligned, out, n)
    send = next(x for x in cuda.ral_cuda_send_output.ral_api_names if "m1df32" in x)
    call_api(ec, send, ec, 0, MemRefDescriptor(out, out, 0, (n,), (1,), ScalarType("f32")))
    call_api(ec, send, ec, 1, y)  # forwards input #1


def test_execute_with_numpy_and_device_inputs():
    backend = FakeBackend()
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    with _context(backend) as ctx:
        x = np.arange(10, dtype=np.float32)
        y_dev = ctx.device_array(np.ones(10, np.float32))
        out, forwarded = ctx.execute(lambda h: _vadd_entry(h, blob), [x, y_dev])
        assert isinstance(out, DeviceArray) and out.shape == (10,)
        np.testing.assert_array_equal(out.numpy(), x + 1)
        assert forwarded.ptr == y_dev.ptr  # a device input comes back without a copy
        # In use: the output's block and y_dev's; x's staging copy went back with the call.
        assert ctx.cuda.allocator.stats.bytes_in_use == 1024 and ctx.cuda.allocator.num_cached == 1
        del out
        gc.collect()
        assert ctx.cuda.allocator.stats.bytes_in_use == 512  # the output gave its block back
        # A foreign array through __cuda_array_interface__ (here host memory posing as device).
        host = np.full(10, 2, np.float32)
        foreign = _foreign_cai(host)
        out, _ = ctx.execute(lambda h: _vadd_entry(h, blob), [x, foreign])
        np.testing.assert_array_equal(np.asarray(out), x + 2)
        with pytest.raises(RalInputError, match="non-contiguous"):
            strided = DeviceArray(host.ctypes.data, (5,), np.float32, strides=(2,))
            ctx.execute(lambda h: None, [x, strided])
        assert len(backend.loads) == 1


def test_misaligned_device_input_is_read_from_an_aligned_copy():
    """Kernels assume 16-byte aligned buffers (KERNEL_BUFFER_ALIGNMENT): a caller's
    array at another address (a slice of a bigger one) reaches them as a copy."""
    backend = FakeBackend()
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    with _context(backend) as ctx:
        x = np.arange(10, dtype=np.float32)
        raw = np.zeros(14, np.float32)
        start = next(k for k in range(1, 4) if (raw.ctypes.data + 4 * k) % 16)
        view = raw[start : start + 10]
        view[:] = np.arange(10, 20, dtype=np.float32)
        assert view.ctypes.data % KERNEL_BUFFER_ALIGNMENT
        out, forwarded = ctx.execute(lambda h: _vadd_entry(h, blob), [x, _foreign_cai(view)])
        np.testing.assert_array_equal(np.asarray(out), x + view)
        assert forwarded.ptr % KERNEL_BUFFER_ALIGNMENT == 0 and forwarded.ptr != view.ctypes.data
        np.testing.assert_array_equal(np.asarray(forwarded), view)
        # an aligned one is used in place, as before
        aligned = raw[next(k for k in range(4) if (raw.ctypes.data + 4 * k) % 16 == 0) :][:10]
        _, same = ctx.execute(lambda h: _vadd_entry(h, blob), [x, _foreign_cai(aligned)])
        assert same.ptr == aligned.ctypes.data


class StreamBackend(FakeBackend):
    """A FakeBackend that records which streams were synchronised."""

    def __init__(self):
        super().__init__()
        self.synced_streams = []

    def stream_synchronize(self, stream):
        super().stream_synchronize(stream)
        self.synced_streams.append(stream)


def _device_vadd(ctx, blob, x, y):
    return ctx.execute(lambda h: _vadd_entry(h, blob), [x, y])


def test_device_outputs_return_pending_and_wait_on_use():
    backend = StreamBackend()
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    with _context(backend) as ctx:
        x = ctx.device_array(np.arange(10, dtype=np.float32))
        y = ctx.device_array(np.ones(10, np.float32))
        before = backend.syncs
        out, forwarded = _device_vadd(ctx, blob, x, y)
        assert backend.syncs == before  # all on the device: the call did not wait
        assert not out.ready and out.pending is forwarded.pending  # one wait serves both
        stream = ctx.cuda.stream
        assert out.__cuda_array_interface__["stream"] == stream  # CAI v3: consumers order on it
        out.__dlpack__(stream=stream)  # the consumer's stream is ours: no wait
        out.__dlpack__(stream=-1)  # the consumer asked for no synchronisation
        assert backend.syncs == before and not out.ready
        np.testing.assert_array_equal(out.numpy(), np.arange(10) + 1)  # waits, then copies
        assert backend.synced_streams[before] == stream and out.ready
        assert out.__cuda_array_interface__["stream"] is None and forwarded.ready
        # The next call reads the pending output of this one on the same stream: no wait.
        out2, _ = _device_vadd(ctx, blob, out, y)
        synced = backend.syncs
        out3, _ = _device_vadd(ctx, blob, out2, y)
        assert backend.syncs == synced and not out3.ready
        out3.__dlpack__(stream=1)  # another stream (the legacy default one): waits
        assert backend.syncs == synced + 1 and out3.ready
        np.testing.assert_array_equal(out3.numpy(), np.arange(10) + 3)
        pending = _device_vadd(ctx, blob, x, y)[0]
    pending.synchronize()  # after close: closing waited for the stream
    assert pending.ready and backend.synced_streams[-1] == stream


def test_calls_with_host_memory_or_foreign_arrays_still_wait():
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    host = np.full(10, 2, np.float32)
    foreign = _foreign_cai(host)
    backend = StreamBackend()
    with _context(backend) as ctx:
        y = ctx.device_array(np.ones(10, np.float32))
        for x in (np.arange(10, dtype=np.float32), foreign):  # a host input, a framework's
            before = backend.syncs
            out, _ = _device_vadd(ctx, blob, x, y)
            assert backend.syncs == before + 1 and out.ready
            assert out.__cuda_array_interface__["stream"] is None
    # Blocks released to the device after each call: wait first.
    backend = StreamBackend()
    options = cuda.CudaOptions(cache_across_executions=False)
    with _context(backend, cuda_options=options) as ctx:
        x, y = (ctx.device_array(np.ones(10, np.float32)) for _ in range(2))
        before = backend.syncs
        out, _ = _device_vadd(ctx, blob, x, y)
        assert backend.syncs == before + 1 and out.ready
    # An output placed on the host is read as soon as the call returns.
    backend = StreamBackend()
    with _context(backend, output_placements=["gpu", "cpu"]) as ctx:
        x, y = (ctx.device_array(np.ones(10, np.float32)) for _ in range(2))
        before = backend.syncs
        out, _ = _device_vadd(ctx, blob, x, y)
        assert backend.syncs == before + 1 and out.ready


class FailingSyncBackend(FakeBackend):
    """A device whose queued work failed: waiting for the stream reports it."""

    fail = False

    def stream_synchronize(self, stream):
        super().stream_synchronize(stream)
        if self.fail:
            raise CudaError("cuStreamSynchronize", 700, "CUDA_ERROR_ILLEGAL_ADDRESS", "bad")


def test_a_failure_of_queued_work_reaches_the_caller():
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    backend = FailingSyncBackend()
    with _context(backend) as ctx:
        y = ctx.device_array(np.ones(10, np.float32))
        backend.fail = True
        with pytest.raises(CudaError, match="ILLEGAL_ADDRESS"):  # the call waits: it raises
            _device_vadd(ctx, blob, np.ones(10, np.float32), y)
        backend.fail = False
        x = ctx.device_array(np.ones(10, np.float32))
        out, _ = _device_vadd(ctx, blob, x, y)  # returns at once
        backend.fail = True
        with pytest.raises(CudaError, match="ILLEGAL_ADDRESS"):  # waiting for it raises
            out.numpy()
        backend.fail = False


def test_pending_input_from_another_context_is_waited_for():
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    backend = StreamBackend()
    with _context(backend) as first, _context(backend) as second:
        assert first.cuda.stream != second.cuda.stream
        x, y = (first.device_array(np.ones(10, np.float32)) for _ in range(2))
        out, _ = _device_vadd(first, blob, x, y)
        assert not out.ready
        before = len(backend.synced_streams)
        z = second.device_array(np.ones(10, np.float32))
        result, _ = _device_vadd(second, blob, out, z)
        # first's stream is waited for before second's kernels read `out`; `out` is
        # first's memory, so second also waits for itself before returning.
        assert first.cuda.stream in backend.synced_streams[before:] and out.ready
        assert result.ready
        np.testing.assert_array_equal(result.numpy(), np.full(10, 3, np.float32))


def test_caller_stream_0_is_the_legacy_default_stream_in_the_protocols():
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    with _context(cuda_options=cuda.CudaOptions(stream=0)) as ctx:
        x, y = (ctx.device_array(np.ones(4, np.float32)) for _ in range(2))
        out, _ = _device_vadd(ctx, blob, x, y)
        assert out.__cuda_array_interface__["stream"] == 1  # CAI forbids 0
        before = ctx.cuda.backend.syncs
        out.__dlpack__(stream=None)  # None is the legacy default stream: ours
        out.__dlpack__(stream=1)
        assert ctx.cuda.backend.syncs == before and not out.ready


class TwoKernelBackend(FakeBackend):
    kernels = {**FakeBackend.kernels, "vsub": None}

    def __init__(self):
        super().__init__()
        self.lookups = []

    def module_get_function(self, module, name):
        self.lookups.append(name)
        if name == "vsub":
            return _fake_vsub
        return super().module_get_function(module, name)


def _fake_vsub(grid, block, params):
    slots = (ctypes.c_void_p * 4).from_address(params)
    a, b, c = (ctypes.c_uint64.from_address(slots[i]).value for i in range(3))
    n = ctypes.c_uint32.from_address(slots[3]).value
    view = lambda p: np.ctypeslib.as_array((ctypes.c_float * n).from_address(p))  # noqa: E731
    view(c)[:] = view(a) - view(b)


def test_launches_cache_kernel_functions_by_blob_and_name():
    backend = TwoKernelBackend()
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    with _context(backend) as ctx, ctx.create_execution_context([]) as ec:
        n = 16
        a, b = np.arange(n, dtype=np.float32), np.full(n, 2, np.float32)
        alloc = cuda.ral_gpu_alloc.ral_api_names[0]
        h2d = cuda.ral_gpu_h2d_raw.ral_api_names[0]
        da, db, dc = (call_api(ec, alloc, ec, 4 * n) for _ in range(3))
        call_api(ec, h2d, ec, 0, a.ctypes.data, da, 4 * n)
        call_api(ec, h2d, ec, 0, b.ctypes.data, db, 4 * n)
        out = np.empty(n, np.float32)

        def result():
            call_api(ec, cuda.ral_gpu_d2h_raw.ral_api_names[0], ec, 0, dc, out.ctypes.data, 4 * n)
            return out.copy()

        for _ in range(3):
            _launch_vadd(ec, [blob], da, db, dc, n)
            np.testing.assert_array_equal(result(), a + b)
        assert backend.lookups == ["vadd"] and len(backend.launches) == 3
        # Same blob, another name: its own function, even if the name's buffer is reused.
        blobs = (ctypes.c_void_p * 1)(ctypes.addressof(blob))
        params, keep = cuda.pack_kernel_args([("ptr", da), ("ptr", db), ("ptr", dc), ("ui32", n)])
        launch = (ctypes.addressof(blobs), 1)
        for name in ("vsub", "vadd", "vsub"):
            call_api(ec, LAUNCH, ec, *launch, name, 1, 1, 1, n, 1, 1, 0, 0, 4, params)
            np.testing.assert_array_equal(result(), a - b if name == "vsub" else a + b)
        assert backend.lookups == ["vadd", "vsub"]
        # Launches the cache cannot take still get the generic checks.
        _launch_vadd(ec, [blob], da, db, dc, 0)  # empty: skipped
        assert len(backend.launches) == 6
        for grid, stream, message in ((-1, 0, "negative grid"), (1, 1, "multi-stream")):
            with (
                ctx.create_execution_context([]) as failing,
                pytest.raises(RalError, match=message),
            ):
                call_api(
                    failing,
                    LAUNCH,
                    failing,
                    ctypes.addressof(blobs),
                    1,
                    "vadd",
                    grid,
                    1,
                    1,
                    n,
                    1,
                    1,
                    0,
                    stream,
                    4,
                    params,
                )
        assert len(backend.launches) == 6
        del keep


def test_fast_recv_input_falls_back_for_a_wrong_dtype():
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    with _context() as ctx:
        x = ctx.device_array(np.ones(10, np.float64))  # the entry asks for f32
        y = ctx.device_array(np.ones(10, np.float32))
        with pytest.raises(RalInputError, match="expected a rank-1 f32 array"):
            _device_vadd(ctx, blob, x, y)


def test_no_gpu_gives_a_clear_error():
    if HAS_GPU:
        pytest.skip("a CUDA device is present")
    with pytest.raises(CudaUnavailableError, match="^no CUDA device: "):
        cuda.CudaRalContext()
    with pytest.raises(ValueError, match="placement"):
        cuda.CudaRalContext(backend=FakeBackend(), input_placements=["tpu"])


# ---------------------------------------------------------------------------
# On a GPU
# ---------------------------------------------------------------------------


@gpu
def test_gpu_ptx_vector_add():
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    with cuda.CudaRalContext() as ctx:
        for n in (1, 1000, 1 << 20):
            x = np.random.rand(n).astype(np.float32)
            y = np.random.rand(n).astype(np.float32)
            out, fwd = ctx.execute(lambda h: _vadd_entry(h, blob), [x, y])
            np.testing.assert_array_equal(out.numpy(), x + y)
            np.testing.assert_array_equal(fwd.numpy(), y)
        assert ctx.cuda.num_module_loads == 1


@gpu
@pytest.mark.parametrize(
    "dtype,element,tol",
    [(np.float32, "f32", 1e-4), (np.float64, "f64", 1e-10), (np.float16, "f16", 2e-2)],
)
def test_gpu_cublas_gemm(dtype, element, tol):
    rng = np.random.default_rng(1)
    with cuda.CudaRalContext() as ctx, ctx.create_execution_context([]) as ec:
        for tp_a, tp_b, batch in ((False, False, ()), (True, False, (3,)), (False, True, (2, 2))):
            m, n, k = 33, 17, 65
            a = rng.standard_normal((*batch, *((k, m) if tp_a else (m, k)))).astype(dtype)
            b = rng.standard_normal((*batch, *((n, k) if tp_b else (k, n)))).astype(dtype)
            da, db = ctx.device_array(a), ctx.device_array(b)
            dc = ctx.device_array(np.zeros((*batch, m, n), dtype))
            rank = a.ndim
            name = next(x for x in cuda.ral_gpu_gemm.ral_api_names if f"_m{rank}d{element}_" in x)

            def desc(d, element=element):
                return MemRefDescriptor(
                    d.ptr, d.ptr, 0, d.shape, contiguous_strides(d.shape), ScalarType(element)
                )

            call_api(ec, name, ec, 0, desc(da), desc(db), desc(dc), tp_a, tp_b, False)
            ctx.cuda.synchronize()
            ref = (np.swapaxes(a, -1, -2) if tp_a else a).astype(np.float64) @ (
                np.swapaxes(b, -1, -2) if tp_b else b
            ).astype(np.float64)
            np.testing.assert_allclose(dc.numpy().astype(np.float64), ref, rtol=tol, atol=tol * k)


def _pointer(array):
    return array.__cuda_array_interface__["data"][0]


@gpu
def test_gpu_zero_copy_with_cupy_and_torch():
    blob = ctypes.create_string_buffer(VADD_PTX.encode())
    frameworks = []
    try:
        import cupy

        frameworks.append(("cupy", lambda a: cupy.asarray(a), cupy.asarray))
    except ImportError:
        pass
    try:
        import torch

        if torch.cuda.is_available():
            frameworks.append(("torch", lambda a: torch.from_numpy(a).cuda(), torch.from_dlpack))
    except ImportError:
        pass
    if not frameworks:
        pytest.skip("neither cupy nor torch with CUDA is installed")
    with cuda.CudaRalContext() as ctx:
        for _name, to_device, from_ours in frameworks:
            x = np.random.rand(4096).astype(np.float32)
            y = np.random.rand(4096).astype(np.float32)
            dx, dy = to_device(x), to_device(y)
            out, fwd = ctx.execute(lambda h: _vadd_entry(h, blob), [dx, dy])
            assert fwd.ptr == _pointer(dy)  # the forwarded input is the caller's memory
            theirs = from_ours(out)
            np.testing.assert_allclose(
                np.asarray(theirs.cpu() if hasattr(theirs, "cpu") else theirs.get()), x + y
            )
