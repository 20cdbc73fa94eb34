"""Finding and calling NVIDIA's libraries (the CUDA driver, cuBLAS) through ctypes.

The CUDA driver library (``libcuda.so.1``) comes with the NVIDIA driver, not
with a Python package; cuBLAS comes with the CUDA toolkit or the
``nvidia-cublas-cu12`` wheel. Both are C libraries with a stable, documented
ABI, so the runtime calls them through ctypes: raw pointers (device addresses,
the ``void**`` kernel-parameter arrays compiled code builds) pass through
unchanged, and no binding package with a moving Python API is required.

Libraries are located in this order:

1. ``cuda.pathfinder.load_nvidia_dynamic_lib`` (the ``cuda-python`` /
   ``cuda-pathfinder`` package) when it is installed;
2. NVIDIA wheels in ``site-packages/nvidia/<lib>/lib`` (CUDA 12 wheels) or
   ``site-packages/nvidia/cu13/lib`` (CUDA 13 wheels);
3. ``$CUDA_HOME``/``$CUDA_PATH`` ``lib64``;
4. the system loader (``ldconfig`` paths, ``LD_LIBRARY_PATH``).

Errors: :class:`CudaUnavailableError` ("no CUDA device: ...") when a library
or a device is missing; :class:`CudaError` for a failed call, naming the call
and CUDA's error name and text.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import glob
import os
import site
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from disc_ir import config
from disc_ir.runtime.context import RalError

c_int = ctypes.c_int
c_uint = ctypes.c_uint
c_size_t = ctypes.c_size_t
c_void_p = ctypes.c_void_p
c_char_p = ctypes.c_char_p
CUdeviceptr = ctypes.c_uint64

CUDA_SUCCESS = 0
CUDA_ERROR_OUT_OF_MEMORY = 2
CUDA_ERROR_NO_DEVICE = 100
CUDA_ERROR_NO_BINARY_FOR_GPU = 209

CU_STREAM_NON_BLOCKING = 1
CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1
CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16
CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75
CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2
CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9
CU_MEMORYTYPE_HOST = 1
CU_MEMORYTYPE_DEVICE = 2
CU_MEMORYTYPE_UNIFIED = 4
CU_JIT_INFO_LOG_BUFFER = 3
CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
CU_JIT_ERROR_LOG_BUFFER = 5
CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6


class CudaUnavailableError(RalError):
    """No usable CUDA: the driver library, a device or cuBLAS is missing."""

    def __init__(self, reason: str):
        super().__init__(f"no CUDA device: {reason}")


class CudaError(RalError):
    """A CUDA driver or cuBLAS call failed."""

    def __init__(self, call: str, code: int, name: str, text: str):
        self.call = call
        self.code = code
        self.error_name = name
        super().__init__(f"{call} failed with {name} ({code}): {text}")


# ---------------------------------------------------------------------------
# Locating libraries
# ---------------------------------------------------------------------------


def _pathfinder_path(short_name: str) -> str | None:
    try:
        from cuda.pathfinder import load_nvidia_dynamic_lib
    except ImportError:
        return None
    try:
        loaded = load_nvidia_dynamic_lib(short_name)
    except Exception:  # noqa: BLE001 - any failure means "not found this way"
        return None
    return getattr(loaded, "abs_path", None)


def _site_dirs() -> list[str]:
    dirs = list(sys.path)
    try:
        dirs += site.getsitepackages()
    except AttributeError:  # pragma: no cover - virtualenv without it
        pass
    user = getattr(site, "getusersitepackages", None)
    if user is not None:
        dirs.append(user())
    return [d for d in dict.fromkeys(dirs) if d and os.path.isdir(d)]


def candidate_library_paths(
    short_name: str, sonames: tuple[str, ...], wheel_dir: str | None
) -> list[str]:
    """Where ``short_name`` (``"cublas"``) may be found, best first (existing files or sonames).

    ``sonames`` are the file names to try (``libcublas.so.12``); ``wheel_dir``
    the NVIDIA wheel's folder under ``site-packages/nvidia`` (``"cublas"``).
    The last entries are bare sonames for the system loader.
    """
    paths: list[str] = []
    found = _pathfinder_path(short_name)
    if found:
        paths.append(found)
    if wheel_dir is not None:
        for base in _site_dirs():
            for soname in sonames:
                # nvidia-<lib>-cu12 wheels: nvidia/<lib>/lib; CUDA 13 wheels: nvidia/cu13/lib
                for sub in (wheel_dir, "*"):
                    paths += sorted(glob.glob(os.path.join(base, "nvidia", sub, "lib", soname)))
    for var in ("CUDA_HOME", "CUDA_PATH"):
        root = config.get_str(var)
        if root:
            for soname in sonames:
                for sub in ("lib64", "lib", os.path.join("targets", "x86_64-linux", "lib")):
                    candidate = os.path.join(root, sub, soname)
                    if os.path.exists(candidate):
                        paths.append(candidate)
    paths += list(sonames)
    found_util = ctypes.util.find_library(short_name)
    if found_util:
        paths.append(found_util)
    return list(dict.fromkeys(paths))


def load_library(
    short_name: str, sonames: tuple[str, ...], wheel_dir: str | None, what: str
) -> ctypes.CDLL:
    """Loads the first loadable candidate; raises CudaUnavailableError naming what was tried."""
    errors: list[str] = []
    for path in candidate_library_paths(short_name, sonames, wheel_dir):
        try:
            return ctypes.CDLL(path)
        except OSError as err:
            errors.append(f"{path}: {err}")
    tried = "; ".join(errors[:4]) or "no candidate"
    raise CudaUnavailableError(f"cannot load {what} ({tried})")


class _CLibrary:
    """A C library's entry points bound from a table of prototypes.

    Subclasses set ``PROTOTYPES`` (name -> argument types; every entry point
    returns an ``int`` status code) and ``MISSING`` (the CudaUnavailableError
    text when ``{name}`` is absent, e.g. from an old driver). Each entry point
    becomes an attribute of the instance.
    """

    PROTOTYPES: dict[str, tuple[Any, ...]] = {}
    MISSING = "{name} is missing"

    if TYPE_CHECKING:  # the entry points are set per instance from PROTOTYPES

        def __getattr__(self, name: str) -> Callable[..., int]: ...

    def __init__(self, lib: ctypes.CDLL):
        self.lib = lib
        for name, argtypes in self.PROTOTYPES.items():
            try:
                fn = getattr(lib, name)
            except AttributeError as err:
                raise CudaUnavailableError(self.MISSING.format(name=name)) from err
            fn.argtypes = list(argtypes)
            fn.restype = c_int
            setattr(self, name, fn)


_LOADED: dict[str, Any] = {}
_LOAD_LOCK = threading.Lock()


def _load_once(key: str, load: Callable[[], Any]) -> Any:
    """``load()``'s result, computed once per process (thread-safe); a failed
    load raises and is retried on the next call."""
    lib = _LOADED.get(key)
    if lib is None:
        with _LOAD_LOCK:
            lib = _LOADED.get(key)
            if lib is None:
                lib = _LOADED[key] = load()
    return lib


# ---------------------------------------------------------------------------
# The driver API
# ---------------------------------------------------------------------------

_PROTOTYPES: dict[str, tuple[Any, ...]] = {
    "cuInit": (c_uint,),
    "cuDriverGetVersion": (ctypes.POINTER(c_int),),
    "cuDeviceGetCount": (ctypes.POINTER(c_int),),
    "cuDeviceGet": (ctypes.POINTER(c_int), c_int),
    "cuDeviceGetName": (c_char_p, c_int, c_int),
    "cuDeviceGetAttribute": (ctypes.POINTER(c_int), c_int, c_int),
    "cuDevicePrimaryCtxRetain": (ctypes.POINTER(c_void_p), c_int),
    "cuDevicePrimaryCtxRelease_v2": (c_int,),
    "cuCtxSetCurrent": (c_void_p,),
    "cuCtxSynchronize": (),
    "cuStreamCreate": (ctypes.POINTER(c_void_p), c_uint),
    "cuStreamDestroy_v2": (c_void_p,),
    "cuStreamSynchronize": (c_void_p,),
    "cuMemAlloc_v2": (ctypes.POINTER(CUdeviceptr), c_size_t),
    "cuMemFree_v2": (CUdeviceptr,),
    "cuMemGetInfo_v2": (ctypes.POINTER(c_size_t), ctypes.POINTER(c_size_t)),
    "cuMemcpyHtoDAsync_v2": (CUdeviceptr, c_void_p, c_size_t, c_void_p),
    "cuMemcpyDtoHAsync_v2": (c_void_p, CUdeviceptr, c_size_t, c_void_p),
    "cuMemcpyDtoDAsync_v2": (CUdeviceptr, CUdeviceptr, c_size_t, c_void_p),
    "cuMemsetD8Async": (CUdeviceptr, ctypes.c_ubyte, c_size_t, c_void_p),
    "cuModuleLoadDataEx": (
        ctypes.POINTER(c_void_p),
        c_void_p,
        c_uint,
        ctypes.POINTER(c_int),
        ctypes.POINTER(c_void_p),
    ),
    "cuModuleGetFunction": (ctypes.POINTER(c_void_p), c_void_p, c_char_p),
    "cuModuleUnload": (c_void_p,),
    # f, grid x/y/z, block x/y/z, shared bytes, stream, kernelParams, extra
    "cuLaunchKernel": (c_void_p, *(c_uint,) * 7, c_void_p, c_void_p, c_void_p),
    "cuPointerGetAttribute": (c_void_p, c_int, CUdeviceptr),
    "cuGetErrorName": (c_int, ctypes.POINTER(c_char_p)),
    "cuGetErrorString": (c_int, ctypes.POINTER(c_char_p)),
}


class LibCuda(_CLibrary):
    """Typed entry points of ``libcuda``; each returns the ``CUresult`` code."""

    PROTOTYPES = _PROTOTYPES
    MISSING = "the CUDA driver library has no {name} (driver too old?)"

    def error_text(self, code: int) -> tuple[str, str]:
        """CUDA's name and description of ``code``."""
        name = c_char_p()
        text = c_char_p()
        self.cuGetErrorName(code, ctypes.byref(name))
        self.cuGetErrorString(code, ctypes.byref(text))
        return (
            (name.value or b"CUDA_ERROR_UNKNOWN").decode(),
            (text.value or b"unknown error").decode(),
        )

    def check(self, call: str, code: int) -> None:
        """Raises CudaError unless ``code`` is CUDA_SUCCESS."""
        if code != CUDA_SUCCESS:
            name, text = self.error_text(code)
            raise CudaError(call, code, name, text)


def _load_libcuda() -> LibCuda:
    lib = load_library(
        "cuda", ("libcuda.so.1", "libcuda.so"), None, "the CUDA driver (libcuda.so.1)"
    )
    api = LibCuda(lib)
    code = api.cuInit(0)
    if code == CUDA_ERROR_NO_DEVICE:
        raise CudaUnavailableError("cuInit reports no CUDA-capable device")
    if code != CUDA_SUCCESS:
        name, text = api.error_text(code)
        raise CudaUnavailableError(f"cuInit failed with {name}: {text}")
    count = c_int()
    api.check("cuDeviceGetCount", api.cuDeviceGetCount(ctypes.byref(count)))
    if count.value == 0:
        raise CudaUnavailableError("the CUDA driver sees no device")
    return api


def libcuda() -> LibCuda:
    """The process's CUDA driver library, loaded and ``cuInit``-ed once."""
    return _load_once("cuda", _load_libcuda)


def cuda_available() -> bool:
    """True when the CUDA driver loads and sees at least one device."""
    try:
        libcuda()
    except CudaUnavailableError:
        return False
    return True


def _device_attributes(ordinal: int, attrs: tuple[int, ...]) -> list[int] | None:
    """The driver's attributes `attrs` of CUDA device `ordinal`; None without
    a CUDA device. Needs no CUDA context."""
    try:
        api = libcuda()
    except CudaUnavailableError:
        return None
    device = c_int()
    api.check("cuDeviceGet", api.cuDeviceGet(ctypes.byref(device), ordinal))
    values = []
    for attr in attrs:
        value = c_int()
        get = api.cuDeviceGetAttribute
        api.check("cuDeviceGetAttribute", get(ctypes.byref(value), attr, device.value))
        values.append(value.value)
    return values


def device_compute_capability(ordinal: int = 0) -> tuple[int, int] | None:
    """``(major, minor)`` of CUDA device ``ordinal``; None without a CUDA device."""
    values = _device_attributes(
        ordinal,
        (
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
        ),
    )
    return None if values is None else (values[0], values[1])


def device_core_limits(ordinal: int = 0) -> tuple[int, int, int] | None:
    """(multiprocessors, max threads per multiprocessor, max threads per block)
    of CUDA device ``ordinal``; None without a CUDA device."""
    values = _device_attributes(
        ordinal,
        (
            CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
            CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
        ),
    )
    return None if values is None else (values[0], values[1], values[2])


def cuda_unavailable_reason() -> str | None:
    """Why :func:`cuda_available` is False (None when it is True)."""
    try:
        libcuda()
    except CudaUnavailableError as err:
        return str(err)
    return None


# ---------------------------------------------------------------------------
# cuBLAS
# ---------------------------------------------------------------------------

CUBLAS_STATUS_NAMES = {
    0: "CUBLAS_STATUS_SUCCESS",
    1: "CUBLAS_STATUS_NOT_INITIALIZED",
    3: "CUBLAS_STATUS_ALLOC_FAILED",
    7: "CUBLAS_STATUS_INVALID_VALUE",
    8: "CUBLAS_STATUS_ARCH_MISMATCH",
    11: "CUBLAS_STATUS_MAPPING_ERROR",
    13: "CUBLAS_STATUS_EXECUTION_FAILED",
    14: "CUBLAS_STATUS_INTERNAL_ERROR",
    15: "CUBLAS_STATUS_NOT_SUPPORTED",
    16: "CUBLAS_STATUS_LICENSE_ERROR",
}

# cublas*GemmEx arguments: handle, transa, transb, m, n, k, alpha; then per
# matrix: pointer, cudaDataType, leading dimension (and a batch stride).
_GEMM_HEAD = (c_void_p, c_int, c_int, c_int, c_int, c_int, c_void_p)
_MATRIX = (c_void_p, c_int, c_int)
_STRIDED_MATRIX = (*_MATRIX, ctypes.c_longlong)

_CUBLAS_PROTOTYPES: dict[str, tuple[Any, ...]] = {
    "cublasCreate_v2": (ctypes.POINTER(c_void_p),),
    "cublasDestroy_v2": (c_void_p,),
    "cublasSetStream_v2": (c_void_p, c_void_p),
    # handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta,
    # C, Ctype, ldc, computeType, algo
    "cublasGemmEx": (*_GEMM_HEAD, *_MATRIX * 2, c_void_p, *_MATRIX, c_int, c_int),
    # as above with a stride (long long) after each matrix's ld, then batchCount
    "cublasGemmStridedBatchedEx": (
        *_GEMM_HEAD,
        *_STRIDED_MATRIX * 2,
        c_void_p,
        *_STRIDED_MATRIX,
        c_int,
        c_int,
        c_int,
    ),
}


# cublas<t>geam: handle, transa, transb, m, n, alpha, A, lda, beta, B, ldb, C, ldc
_GEAM = (
    c_void_p,
    c_int,
    c_int,
    c_int,
    c_int,
    c_void_p,
    c_void_p,
    c_int,
    c_void_p,
    c_void_p,
    c_int,
    c_void_p,
    c_int,
)
_CUBLAS_PROTOTYPES["cublasSgeam"] = _GEAM
_CUBLAS_PROTOTYPES["cublasDgeam"] = _GEAM


class LibCublas(_CLibrary):
    """Typed entry points of cuBLAS; each returns the ``cublasStatus_t`` code."""

    PROTOTYPES = _CUBLAS_PROTOTYPES
    MISSING = "cuBLAS has no {name} (CUDA < 11?)"

    @staticmethod
    def check(call: str, code: int) -> None:
        if code != 0:
            name = CUBLAS_STATUS_NAMES.get(code, "CUBLAS_STATUS_UNKNOWN")
            raise CudaError(call, code, name, "cuBLAS call failed")


def libcublas() -> LibCublas:
    """cuBLAS, loaded once (see the module docstring for where it is looked for)."""

    def load() -> LibCublas:
        lib = load_library(
            "cublas",
            ("libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"),
            "cublas",
            "cuBLAS (install nvidia-cublas-cu12 or the CUDA toolkit)",
        )
        return LibCublas(lib)

    return _load_once("cublas", load)
