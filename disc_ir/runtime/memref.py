"""MLIR memref descriptors in memory, and numpy views of them.

A rank-N memref crosses the RAL ABI as MLIR's descriptor: allocated pointer,
aligned pointer, offset, sizes[N], strides[N] (all 64-bit; offset and strides
count elements). :class:`MemRefDescriptor` is that descriptor in Python;
:func:`numpy_view` makes an ndarray over the described memory without copying.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from disc_ir.runtime.abi import MemRefType, ScalarType

_I64 = ctypes.c_int64
_U64 = ctypes.c_uint64
#: descriptor words of ranks 0..8
_WORDS = [_U64 * (3 + 2 * rank) for rank in range(9)]


_NUMPY_DTYPES: dict[str, np.dtype] = {}


def numpy_dtype(elem: ScalarType) -> np.dtype:
    """The numpy dtype that stores elements of ``elem`` (bf16 as uint16 bit patterns)."""
    dtype = _NUMPY_DTYPES.get(elem.name)
    if dtype is None:
        dtype = _NUMPY_DTYPES[elem.name] = np.dtype(elem.numpy_dtype_name)
    return dtype


@dataclass
class MemRefDescriptor:
    """A memref descriptor: pointers are integer addresses, offset/strides in elements."""

    allocated: int
    aligned: int
    offset: int
    sizes: tuple[int, ...]
    strides: tuple[int, ...]
    element: ScalarType

    @property
    def rank(self) -> int:
        return len(self.sizes)

    @property
    def data_address(self) -> int:
        """Address of the first element (aligned pointer plus offset)."""
        return self.aligned + self.offset * numpy_dtype(self.element).itemsize

    @property
    def num_elements(self) -> int:
        n = 1
        for s in self.sizes:
            n *= s
        return n

    @staticmethod
    def read_slots(slots: Any, start: int, mtype: MemRefType) -> MemRefDescriptor:
        """Reads a memref operand spread over ``3 + 2N`` slots beginning at ``start``.

        ``slots`` is the ``void**`` array; each slot holds the address of one field.
        """
        rank = mtype.rank
        read = _I64.from_address
        words = [read(address).value for address in slots[start : start + 3 + 2 * rank]]
        return MemRefDescriptor(
            words[0] & 0xFFFFFFFFFFFFFFFF,
            words[1] & 0xFFFFFFFFFFFFFFFF,
            words[2],
            tuple(words[3 : 3 + rank]),
            tuple(words[3 + rank :]),
            mtype.element,
        )

    @staticmethod
    def read_struct(address: int, mtype: MemRefType) -> MemRefDescriptor:
        """Reads a descriptor stored as one struct at ``address``."""
        rank = mtype.rank
        words = (_I64 * (3 + 2 * rank)).from_address(address)
        return MemRefDescriptor(
            ctypes.c_uint64(words[0]).value,
            ctypes.c_uint64(words[1]).value,
            words[2],
            tuple(words[3 : 3 + rank]),
            tuple(words[3 + rank : 3 + 2 * rank]),
            mtype.element,
        )

    def write_struct(self, address: int) -> None:
        """Stores the descriptor as one struct ``{ptr, ptr, i64, [N x i64], [N x i64]}``."""
        rank = len(self.sizes)
        if len(self.strides) != rank:
            raise ValueError(f"memref with sizes {self.sizes} and strides {self.strides}")
        words_type = _WORDS[rank] if rank < len(_WORDS) else _U64 * (3 + 2 * rank)
        # ctypes stores integers modulo 2**64: negative fields keep their bits.
        words_type.from_address(address)[:] = (  # type: ignore[call-overload]  # an integer array's slice takes a tuple of ints
            self.allocated,
            self.aligned,
            self.offset,
            *self.sizes,
            *self.strides,
        )

    @staticmethod
    def from_array(array: np.ndarray, element: ScalarType) -> MemRefDescriptor:
        """A descriptor over ``array``'s memory (no copy); strides must be whole elements."""
        itemsize = array.dtype.itemsize
        if any(s % itemsize for s in array.strides):
            raise ValueError("array strides are not a multiple of its item size")
        address = array.ctypes.data if array.size else 0
        return MemRefDescriptor(
            address,
            address,
            0,
            tuple(int(s) for s in array.shape),
            tuple(int(s) // itemsize for s in array.strides),
            element,
        )

    def with_contiguous_strides(self) -> MemRefDescriptor:
        """The same descriptor with row-major strides recomputed from the sizes."""
        strides = [1] * self.rank
        for i in range(self.rank - 2, -1, -1):
            strides[i] = strides[i + 1] * self.sizes[i + 1]
        return MemRefDescriptor(
            self.allocated, self.aligned, self.offset, self.sizes, tuple(strides), self.element
        )


def numpy_view(desc: MemRefDescriptor, readonly: bool = False) -> np.ndarray:
    """An ndarray viewing the memory ``desc`` describes (no copy).

    The array does not own the memory: the caller keeps it alive. A memref with
    a zero size yields an empty array.
    """
    dtype = numpy_dtype(desc.element)
    itemsize = dtype.itemsize
    if any(s < 0 for s in desc.sizes):
        raise ValueError(f"memref with negative size {desc.sizes}")
    if desc.num_elements == 0:
        return np.empty(desc.sizes, dtype=dtype)
    if desc.aligned == 0:
        raise ValueError(f"memref of shape {desc.sizes} has a null data pointer")
    lo = sum(min(0, (s - 1) * st) for s, st in zip(desc.sizes, desc.strides, strict=True))
    hi = sum(max(0, (s - 1) * st) for s, st in zip(desc.sizes, desc.strides, strict=True))
    base = desc.aligned + (desc.offset + lo) * itemsize
    span = (hi - lo + 1) * itemsize
    buffer = (ctypes.c_char * span).from_address(base)
    array = np.ndarray(
        shape=desc.sizes,
        dtype=dtype,
        buffer=buffer,  # type: ignore[arg-type]  # any buffer-protocol object, as numpy documents
        offset=-lo * itemsize,
        strides=tuple(st * itemsize for st in desc.strides),
    )
    if readonly:
        array.flags.writeable = False
    return array


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """The row-major strides (in elements) of a dense buffer of ``shape``."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * int(shape[i + 1])
    return tuple(strides)


#: signed descriptor words of ranks 0..8
_I64_WORDS = [_I64 * (3 + 2 * rank) for rank in range(9)]


def write_contiguous_descriptor(address: int, data: int, shape: tuple[int, ...]) -> None:
    """Stores the descriptor ``{data, data, 0, shape, row-major strides}`` at ``address``."""
    rank = len(shape)
    words = _I64_WORDS[rank] if rank < len(_I64_WORDS) else _I64 * (3 + 2 * rank)
    if rank == 1:
        words.from_address(address)[:] = (data, data, 0, shape[0], 1)  # type: ignore[call-overload]  # an integer array's slice takes a tuple of ints
    elif rank == 2:
        words.from_address(address)[:] = (data, data, 0, shape[0], shape[1], shape[1], 1)  # type: ignore[call-overload]  # an integer array's slice takes a tuple of ints
    else:
        words.from_address(address)[:] = (data, data, 0, *shape, *contiguous_strides(shape))  # type: ignore[call-overload]  # an integer array's slice takes a tuple of ints
