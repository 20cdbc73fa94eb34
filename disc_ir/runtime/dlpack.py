"""DLPack through ctypes: reading a producer's capsule, making one for a consumer.

The structs follow ``dlpack.h`` (v1.x): ``DLManagedTensor`` in a capsule named
``"dltensor"`` (legacy) and ``DLManagedTensorVersioned`` in one named
``"dltensor_versioned"``. A consumer renames the capsule ``"used_..."`` and
becomes responsible for calling the tensor's ``deleter``; a capsule that is
never consumed calls it from its destructor.

* :func:`read_capsule` parses a capsule into a :class:`DLTensorInfo` without
  taking ownership; :func:`consume_capsule` takes ownership (the returned
  :class:`DLPackOwner` calls the deleter when it is collected).
* :func:`make_capsule` exports memory (any object kept alive until the
  consumer's deleter runs) as a legacy ``"dltensor"`` capsule.
"""

from __future__ import annotations

import ctypes
import itertools
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

# Device types (DLDeviceType)
KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_ROCM = 10
KDL_CUDA_MANAGED = 13

DEVICE_TYPE_NAMES = {
    1: "kDLCPU",
    2: "kDLCUDA",
    3: "kDLCUDAHost",
    4: "kDLOpenCL",
    7: "kDLVulkan",
    8: "kDLMetal",
    9: "kDLVPI",
    10: "kDLROCM",
    11: "kDLROCMHost",
    12: "kDLExtDev",
    13: "kDLCUDAManaged",
    14: "kDLOneAPI",
    15: "kDLWebGPU",
    16: "kDLHexagon",
}

# Type codes (DLDataTypeCode)
KDL_INT = 0
KDL_UINT = 1
KDL_FLOAT = 2
KDL_BFLOAT = 4
KDL_BOOL = 6

FLAG_READ_ONLY = 1 << 0

LEGACY_NAME = b"dltensor"
VERSIONED_NAME = b"dltensor_versioned"
USED_LEGACY_NAME = b"used_dltensor"
USED_VERSIONED_NAME = b"used_dltensor_versioned"


class DLPackError(ValueError):
    """A DLPack tensor that cannot be used (wrong device, dtype, layout, capsule)."""


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [
        ("dl_tensor", DLTensor),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", DELETER),
    ]


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", DELETER),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


# Python C-API entry points, declared privately (never by mutating ctypes.pythonapi's).
_PyCapsule_IsValid = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi)
)
_PyCapsule_GetPointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)
_PyCapsule_SetName = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.c_char_p)(
    ("PyCapsule_SetName", ctypes.pythonapi)
)
_CAPSULE_DESTRUCTOR = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_PyCapsule_New = ctypes.PYFUNCTYPE(
    ctypes.py_object, ctypes.c_void_p, ctypes.c_char_p, _CAPSULE_DESTRUCTOR
)(("PyCapsule_New", ctypes.pythonapi))
# In a destructor the capsule is being freed: pass it as a raw pointer.
_PyCapsule_IsValid_raw = ctypes.PYFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_IsValid", ctypes.pythonapi)
)
_PyCapsule_GetPointer_raw = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p, ctypes.c_char_p)(
    ("PyCapsule_GetPointer", ctypes.pythonapi)
)


@dataclass(frozen=True)
class DLTensorInfo:
    """What a DLTensor describes: ``data`` already includes ``byte_offset``;
    ``strides`` in elements (None: C-contiguous)."""

    data: int
    device_type: int
    device_id: int
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None
    dtype: np.dtype
    read_only: bool
    versioned: bool

    @property
    def device_name(self) -> str:
        return DEVICE_TYPE_NAMES.get(self.device_type, f"device type {self.device_type}")


def dtype_from_dl(dtype: DLDataType) -> np.dtype:
    """The numpy dtype of a DLDataType (bfloat16 as uint16 bit patterns)."""
    if dtype.lanes != 1:
        raise DLPackError(f"DLPack vector dtypes (lanes={dtype.lanes}) are not supported")
    code, bits = dtype.code, dtype.bits
    table = {
        (KDL_INT, 8): "int8",
        (KDL_INT, 16): "int16",
        (KDL_INT, 32): "int32",
        (KDL_INT, 64): "int64",
        (KDL_UINT, 8): "uint8",
        (KDL_UINT, 16): "uint16",
        (KDL_UINT, 32): "uint32",
        (KDL_UINT, 64): "uint64",
        (KDL_FLOAT, 16): "float16",
        (KDL_FLOAT, 32): "float32",
        (KDL_FLOAT, 64): "float64",
        (KDL_BFLOAT, 16): "uint16",
        (KDL_BOOL, 8): "bool",
    }
    name = table.get((code, bits))
    if name is None:
        raise DLPackError(f"unsupported DLPack dtype (code {code}, {bits} bits)")
    return np.dtype(name)


def dl_from_dtype(dtype: np.dtype) -> DLDataType:
    """The DLDataType of a numpy dtype."""
    dtype = np.dtype(dtype)
    kinds = {"i": KDL_INT, "u": KDL_UINT, "f": KDL_FLOAT, "b": KDL_BOOL}
    if dtype.kind not in kinds:
        raise DLPackError(f"dtype {dtype} has no DLPack equivalent")
    return DLDataType(kinds[dtype.kind], dtype.itemsize * 8, 1)


def _tensor_info(tensor: DLTensor, versioned: bool, flags: int) -> DLTensorInfo:
    ndim = tensor.ndim
    if ndim < 0:
        raise DLPackError(f"DLPack tensor with negative ndim {ndim}")
    shape = tuple(int(tensor.shape[i]) for i in range(ndim)) if ndim else ()
    strides = None
    if ndim and tensor.strides:
        strides = tuple(int(tensor.strides[i]) for i in range(ndim))
    dtype = dtype_from_dl(tensor.dtype)
    return DLTensorInfo(
        data=(tensor.data or 0) + int(tensor.byte_offset),
        device_type=tensor.device.device_type,
        device_id=tensor.device.device_id,
        shape=shape,
        strides=strides,
        dtype=dtype,
        read_only=bool(flags & FLAG_READ_ONLY),
        versioned=versioned,
    )


def _capsule_kind(capsule: Any) -> bytes:
    if _PyCapsule_IsValid(capsule, VERSIONED_NAME):
        return VERSIONED_NAME
    if _PyCapsule_IsValid(capsule, LEGACY_NAME):
        return LEGACY_NAME
    raise DLPackError(
        "not an unconsumed DLPack capsule (expected a PyCapsule named 'dltensor' or "
        "'dltensor_versioned'; a capsule can be consumed only once)"
    )


def read_capsule(capsule: Any) -> DLTensorInfo:
    """Parses a DLPack capsule without consuming it."""
    kind = _capsule_kind(capsule)
    address = _PyCapsule_GetPointer(capsule, kind)
    if kind == VERSIONED_NAME:
        managed = DLManagedTensorVersioned.from_address(address)
        if managed.version.major != 1:
            raise DLPackError(f"unsupported DLPack major version {managed.version.major}")
        return _tensor_info(managed.dl_tensor, True, int(managed.flags))
    return _tensor_info(DLManagedTensor.from_address(address).dl_tensor, False, 0)


class DLPackOwner:
    """Owns a consumed DLPack tensor: calls its deleter once, when released or collected."""

    def __init__(self, address: int, versioned: bool):
        self.address = address
        self.versioned = versioned
        self._lock = threading.Lock()
        self._released = False

    def release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
        struct_type = DLManagedTensorVersioned if self.versioned else DLManagedTensor
        managed = struct_type.from_address(self.address)
        if managed.deleter:
            managed.deleter(self.address)

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


def consume_capsule(capsule: Any) -> tuple[DLTensorInfo, DLPackOwner]:
    """Parses a capsule and takes ownership of its tensor (the capsule is marked used)."""
    info = read_capsule(capsule)
    kind = VERSIONED_NAME if info.versioned else LEGACY_NAME
    address = _PyCapsule_GetPointer(capsule, kind)
    used = USED_VERSIONED_NAME if info.versioned else USED_LEGACY_NAME
    if _PyCapsule_SetName(capsule, used) != 0:
        raise DLPackError("could not mark the DLPack capsule as consumed")
    return info, DLPackOwner(address, info.versioned)


# ---------------------------------------------------------------------------
# Export
# ---------------------------------------------------------------------------

_EXPORTED: dict[int, tuple[Any, ...]] = {}
_EXPORTED_LOCK = threading.Lock()
_IDS = itertools.count(1)


def _deleter(address: int | None) -> None:
    with _EXPORTED_LOCK:
        _EXPORTED.pop(int(address or 0), None)


_DELETER_FN = DELETER(_deleter)


def _capsule_destructor(capsule: int | None) -> None:
    # Unconsumed capsule: the producer's deleter must run now.
    if capsule and _PyCapsule_IsValid_raw(capsule, LEGACY_NAME):
        address = _PyCapsule_GetPointer_raw(capsule, LEGACY_NAME)
        if address:
            _deleter(address)


_DESTRUCTOR_FN = _CAPSULE_DESTRUCTOR(_capsule_destructor)


def make_capsule(
    data: int,
    shape: tuple[int, ...],
    strides: tuple[int, ...] | None,
    dtype: np.dtype,
    device_type: int,
    device_id: int,
    owner: Any,
) -> Any:
    """A legacy ``"dltensor"`` capsule over ``data``; ``owner`` lives until the deleter runs.

    ``strides`` are in elements (None: C-contiguous).
    """
    ndim = len(shape)
    shape_arr = (ctypes.c_int64 * max(1, ndim))(*shape)
    strides_arr = (ctypes.c_int64 * max(1, ndim))(*(strides or ()))
    managed = DLManagedTensor()
    managed.dl_tensor.data = data or None
    managed.dl_tensor.device = DLDevice(device_type, device_id)
    managed.dl_tensor.ndim = ndim
    managed.dl_tensor.dtype = dl_from_dtype(dtype)
    managed.dl_tensor.shape = ctypes.cast(shape_arr, ctypes.POINTER(ctypes.c_int64))
    managed.dl_tensor.strides = (
        ctypes.cast(strides_arr, ctypes.POINTER(ctypes.c_int64)) if strides is not None else None
    )
    managed.dl_tensor.byte_offset = 0
    managed.manager_ctx = next(_IDS)
    managed.deleter = _DELETER_FN
    address = ctypes.addressof(managed)
    with _EXPORTED_LOCK:
        _EXPORTED[address] = (managed, shape_arr, strides_arr, owner)
    return _PyCapsule_New(address, LEGACY_NAME, _DESTRUCTOR_FN)


def num_live_exports() -> int:
    """How many exported tensors have not been deleted yet (tests, leak checks)."""
    with _EXPORTED_LOCK:
        return len(_EXPORTED)
