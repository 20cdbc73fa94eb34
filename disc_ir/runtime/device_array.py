"""Device arrays: what a CUDA executable returns, and how foreign GPU arrays come in.

:class:`DeviceArray` is a C-contiguous (or explicitly strided) view of device
memory with a numpy dtype and shape. It exposes ``__cuda_array_interface__``
(v3) and ``__dlpack__`` / ``__dlpack_device__``, so CuPy (``cupy.asarray``),
PyTorch (``torch.as_tensor`` / ``torch.from_dlpack``), Numba and JAX
(``jax.dlpack.from_dlpack``) take it without a copy; ``.numpy()`` copies it to
the host. Its memory stays valid while the array (or a consumer's view of it)
lives.

The arrays a CUDA executable returns may still be being written by work queued
on the executable's stream (calls return without waiting for the GPU, as JAX,
CuPy and PyTorch do): such an array is *pending* (``pending``, a
:class:`StreamWork`). ``.numpy()`` and ``__dlpack__`` wait for that work, and
``__cuda_array_interface__`` names the stream (protocol v3) so consumers order
their work after it; :meth:`DeviceArray.synchronize` waits explicitly.

Foreign arrays come in through :func:`from_cuda_array_interface` (any object
with ``__cuda_array_interface__``) and :func:`from_dlpack` (any object with
``__dlpack__`` on a CUDA device), both without copies.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from disc_ir.runtime import dlpack

#: CUDA's special stream handles in the array-interface protocols.
LEGACY_DEFAULT_STREAM = 1
PER_THREAD_DEFAULT_STREAM = 2


class DeviceArrayError(ValueError):
    """A device array that the runtime cannot use (layout, dtype, device)."""


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides (in elements) of ``shape``."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * max(1, shape[i + 1])
    return tuple(strides)


def is_c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...] | None) -> bool:
    """Whether ``strides`` (elements; None = contiguous) are row-major for ``shape``.

    Strides of dimensions of size 1 do not matter, and nothing matters for an
    empty array (as numpy's flag).
    """
    if strides is None or any(s == 0 for s in shape):
        return True
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


class StreamWork:
    """Work queued on a CUDA stream that the arrays it produces wait for.

    ``stream`` is the CUstream handle (0: the legacy default stream);
    ``wait()`` blocks until the work is done (``synchronize()``, called once:
    later waits return at once).
    """

    __slots__ = ("done", "stream", "synchronize")

    def __init__(self, stream: int, synchronize: Callable[[], None]):
        self.stream = stream
        self.synchronize = synchronize
        self.done = False

    @property
    def protocol_stream(self) -> int:
        """The stream as the array-interface protocols name it (0 is spelled 1, legacy)."""
        return self.stream or LEGACY_DEFAULT_STREAM

    def wait(self) -> None:
        if not self.done:
            self.synchronize()
            self.done = True

    def __repr__(self) -> str:
        return f"StreamWork(stream=0x{self.stream:x}, done={self.done})"


@dataclass(eq=False)
class DeviceArray:
    """A view of device memory (``ptr``) as an array of ``shape`` and ``dtype``.

    ``strides`` in elements, None for C-contiguous. ``owner`` keeps the memory
    alive (an allocator block handle, a consumed DLPack tensor, the foreign
    array). ``copy_to_host(dst_address, nbytes)`` copies device bytes to the
    host; None when the array was made without a device to copy from.
    ``pending``: the stream work that still writes the memory (None: ready).
    """

    ptr: int
    shape: tuple[int, ...]
    dtype: np.dtype
    device_id: int = 0
    strides: tuple[int, ...] | None = None
    owner: Any = None
    copy_to_host: Callable[[int, int, int], None] | None = None
    readonly: bool = False
    pending: StreamWork | None = None

    def __post_init__(self) -> None:
        self.shape = tuple(int(s) for s in self.shape)
        self.dtype = np.dtype(self.dtype)
        if self.strides is not None:
            self.strides = tuple(int(s) for s in self.strides)
            if is_c_contiguous(self.shape, self.strides):
                self.strides = None

    @classmethod
    def _trusted(
        cls,
        ptr: int,
        shape: tuple[int, ...],
        dtype: np.dtype,
        device_id: int,
        strides: tuple[int, ...] | None,
        owner: Any,
        copy_to_host: Callable[[int, int, int], None] | None,
        pending: StreamWork | None,
    ) -> DeviceArray:
        """A DeviceArray from fields already normalised (``shape`` a tuple of ints,
        ``dtype`` an np.dtype, ``strides`` None or not row-major): no checks, for
        the runtime's per-call outputs."""
        array = cls.__new__(cls)
        array.__dict__.update(
            ptr=ptr,
            shape=shape,
            dtype=dtype,
            device_id=device_id,
            strides=strides,
            owner=owner,
            copy_to_host=copy_to_host,
            readonly=False,
            pending=pending,
        )
        return array

    # -- stream ordering --------------------------------------------------------

    @property
    def ready(self) -> bool:
        """Whether no queued work still writes this array's memory (as far as known)."""
        pending = self.pending
        return pending is None or pending.done

    def synchronize(self) -> None:
        """Waits for the work that produces this array (nothing when it is ready)."""
        pending = self.pending
        if pending is not None:
            pending.wait()
            self.pending = None

    # -- array-like metadata (what the input checks read) -------------------

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        n = 1
        for s in self.shape:
            n *= s
        return n

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def is_contiguous(self) -> bool:
        return self.strides is None

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d device array")
        return self.shape[0]

    def __repr__(self) -> str:
        return (
            f"DeviceArray(shape={self.shape}, dtype={self.dtype}, device={self.device_id}, "
            f"ptr=0x{self.ptr:x})"
        )

    # -- protocols ------------------------------------------------------------

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        strides = (
            None if self.strides is None else tuple(s * self.dtype.itemsize for s in self.strides)
        )
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr if self.size else 0, self.readonly),
            "version": 3,
            "strides": strides,
            # Protocol v3: the stream consumers must order their reads after
            # (None: the data is ready).
            "stream": None if self.ready else self.pending.protocol_stream,  # type: ignore[union-attr]  # not ready: a pending stream work
        }

    def __dlpack_device__(self) -> tuple[int, int]:
        return (dlpack.KDL_CUDA, self.device_id)

    def __dlpack__(
        self,
        *,
        stream: int | None = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """A legacy ``"dltensor"`` capsule over this memory.

        The data is made ready for the consumer's ``stream`` (the protocol's
        handles: None or 1 the legacy default stream, 2 the per-thread one):
        when the array is still pending on another stream, this waits for that
        work; ``stream=-1`` asks for no synchronisation."""
        if dl_device is not None and tuple(dl_device) != self.__dlpack_device__():
            raise BufferError(f"DeviceArray lives on {self.__dlpack_device__()}, not {dl_device}")
        if copy:
            raise BufferError("DeviceArray.__dlpack__ cannot copy; use .numpy() for a host copy")
        if not self.ready and stream != -1:
            consumer = LEGACY_DEFAULT_STREAM if stream is None else int(stream)
            if consumer != self.pending.protocol_stream:  # type: ignore[union-attr]  # not ready: a pending stream work
                self.synchronize()
        return dlpack.make_capsule(
            self.ptr if self.size else 0,
            self.shape,
            self.strides,
            self.dtype,
            dlpack.KDL_CUDA,
            self.device_id,
            self,
        )

    # -- host copies ------------------------------------------------------------

    def numpy(self) -> np.ndarray:
        """A host copy (blocking)."""
        if self.strides is not None:
            raise DeviceArrayError(
                "numpy() of a non-contiguous device array is not supported; copy it on the "
                "device first"
            )
        out = np.empty(self.shape, dtype=self.dtype)
        if self.size:
            if self.copy_to_host is None:
                raise DeviceArrayError("this device array has no device to copy from")
            self.synchronize()
            self.copy_to_host(out.ctypes.data, self.ptr, self.nbytes)
        return out

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray:
        if copy is False:
            raise ValueError("a DeviceArray cannot be viewed as a host array without a copy")
        array = self.numpy()
        return array.astype(dtype) if dtype is not None else array


# ---------------------------------------------------------------------------
# Importing foreign arrays
# ---------------------------------------------------------------------------


def typestr_dtype(typestr: str) -> np.dtype:
    """The numpy dtype of an array-interface ``typestr`` ("<f4"); rejects structured types."""
    try:
        dtype = np.dtype(typestr)
    except TypeError as err:
        raise DeviceArrayError(f"unknown array-interface typestr {typestr!r}") from err
    if dtype.kind not in "biuf" or dtype.byteorder == ">":
        raise DeviceArrayError(f"unsupported array-interface typestr {typestr!r}")
    return dtype


def parse_cuda_array_interface(interface: dict[str, Any]) -> tuple[DeviceArray, int | None]:
    """Checks a ``__cuda_array_interface__`` dict; returns the array (no owner) and the
    stream the producer asks consumers to wait on (None: no wait needed)."""
    if not isinstance(interface, dict):
        raise DeviceArrayError("__cuda_array_interface__ is not a dict")
    version = interface.get("version")
    if version not in (0, 1, 2, 3):
        raise DeviceArrayError(f"unsupported __cuda_array_interface__ version {version!r}")
    try:
        shape = tuple(int(s) for s in interface["shape"])
        typestr = interface["typestr"]
        data = interface["data"]
    except (KeyError, TypeError) as err:
        raise DeviceArrayError(f"malformed __cuda_array_interface__: {err}") from err
    if any(s < 0 for s in shape):
        raise DeviceArrayError(f"__cuda_array_interface__ with negative shape {shape}")
    dtype = typestr_dtype(typestr)
    if interface.get("mask") is not None:
        raise DeviceArrayError("masked CUDA arrays are not supported")
    if not isinstance(data, tuple | list) or len(data) != 2:
        raise DeviceArrayError("__cuda_array_interface__ 'data' must be (pointer, read_only)")
    ptr, readonly = int(data[0] or 0), bool(data[1])
    size = 1
    for s in shape:
        size *= s
    if ptr == 0 and size:
        raise DeviceArrayError("__cuda_array_interface__ of a non-empty array has a null pointer")
    byte_strides = interface.get("strides")
    strides = None
    if byte_strides is not None:
        if len(byte_strides) != len(shape):
            raise DeviceArrayError(
                f"__cuda_array_interface__ strides {tuple(byte_strides)} do not match shape {shape}"
            )
        if any(int(s) % dtype.itemsize for s in byte_strides):
            raise DeviceArrayError(
                f"strides {tuple(byte_strides)} are not multiples of the item size {dtype.itemsize}"
            )
        strides = tuple(int(s) // dtype.itemsize for s in byte_strides)
    stream = interface.get("stream") if version == 3 else None
    if stream is not None:
        stream = int(stream)
        if stream == 0:
            raise DeviceArrayError(
                "__cuda_array_interface__ stream 0 is disallowed by the protocol"
            )
    array = DeviceArray(ptr, shape, dtype, strides=strides, readonly=readonly)
    return array, stream


def from_cuda_array_interface(
    obj: Any, wait_stream: Callable[[int], None] | None = None
) -> DeviceArray:
    """A DeviceArray viewing ``obj``'s memory (kept alive through ``owner``).

    ``wait_stream(stream)`` is called with the producer's stream when the
    interface names one, so the data is ready before the runtime reads it.
    """
    array, stream = parse_cuda_array_interface(obj.__cuda_array_interface__)
    if stream is not None and wait_stream is not None:
        wait_stream(stream)
    array.owner = obj
    return array


def array_from_dlpack_info(info: dlpack.DLTensorInfo, owner: Any) -> DeviceArray:
    """A DeviceArray over a parsed DLPack tensor; only CUDA devices are accepted."""
    if info.device_type not in (dlpack.KDL_CUDA, dlpack.KDL_CUDA_MANAGED):
        raise DeviceArrayError(
            f"the DLPack tensor is on {info.device_name} (device type {info.device_type}), "
            f"expected a CUDA device (kDLCUDA); pass host arrays as numpy arrays"
        )
    return DeviceArray(
        info.data,
        info.shape,
        info.dtype,
        device_id=info.device_id,
        strides=info.strides,
        owner=owner,
        readonly=info.read_only,
    )


def from_dlpack_capsule(capsule: Any) -> DeviceArray:
    """Consumes a DLPack capsule of a CUDA tensor into a DeviceArray (no copy).

    A capsule on another device is rejected before it is consumed (its
    producer then frees it as usual).
    """
    info = dlpack.read_capsule(capsule)
    array_from_dlpack_info(info, None)  # device check before taking ownership
    info, owner = dlpack.consume_capsule(capsule)
    return array_from_dlpack_info(info, owner)


def from_dlpack(obj: Any, stream: int | None = None) -> DeviceArray:
    """Imports ``obj`` through ``__dlpack__`` (asking the producer to make the data
    ready on ``stream``; CUDA's legacy default stream when None)."""
    device = getattr(obj, "__dlpack_device__", None)
    if device is not None:
        device_type, device_id = device()
        if int(device_type) not in (dlpack.KDL_CUDA, dlpack.KDL_CUDA_MANAGED):
            name = dlpack.DEVICE_TYPE_NAMES.get(int(device_type), str(device_type))
            raise DeviceArrayError(
                f"the DLPack tensor is on {name}, expected a CUDA device (kDLCUDA)"
            )
    consumer_stream = LEGACY_DEFAULT_STREAM if not stream else stream
    try:
        capsule = obj.__dlpack__(stream=consumer_stream, max_version=(1, 0))
    except TypeError:
        capsule = obj.__dlpack__(stream=consumer_stream)
    return from_dlpack_capsule(capsule)


def is_cuda_array(obj: Any) -> bool:
    """Whether ``obj`` is a GPU array the runtime can take without a copy."""
    if isinstance(obj, DeviceArray):
        return True
    if isinstance(obj, np.ndarray):
        return False
    try:
        if hasattr(obj, "__cuda_array_interface__"):
            return True
        device = getattr(obj, "__dlpack_device__", None)
        if device is None:
            return False
        device_type = int(device()[0])
    except Exception:  # noqa: BLE001 - a broken protocol means "not a CUDA array"
        return False
    return device_type in (dlpack.KDL_CUDA, dlpack.KDL_CUDA_MANAGED)
