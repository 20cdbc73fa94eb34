"""Host buffers of a compiled graph served by the C caller's allocator.

`install_allocator(ffi, compiled, alloc, dealloc)` gives the executable's CPU
driver a `CallbackAllocator`: every buffer the compiled code allocates
(temporaries, outputs) and the contiguous copies of strided inputs come from
the context's `allocator(size)` and return through its `deallocator(ptr)` once
nothing references them.
"""

from __future__ import annotations

import ctypes
import weakref
from typing import Any

import numpy as np

from disc_ir.runtime.drivers.cpu import ALIGNMENT, Block, CachingAllocator


class CallbackAllocator(CachingAllocator):
    """A `CachingAllocator` whose system allocations are the C context's."""

    def __init__(self, ffi: Any, alloc: Any, dealloc: Any):
        super().__init__()
        self._ffi = ffi
        self._alloc = alloc
        self._dealloc = dealloc

    def system_alloc(self, nbytes: int, alignment: int = ALIGNMENT) -> Block:
        """A new aligned block from the C allocator, handed back to the C
        deallocator when its last view is gone."""
        nbytes = max(1, int(nbytes))
        total = nbytes + alignment
        ptr = self._alloc(total)
        if ptr == self._ffi.NULL:
            raise MemoryError(f"the context's allocator returned NULL for {total} bytes")
        address = int(self._ffi.cast("uintptr_t", ptr))
        raw = (ctypes.c_uint8 * total).from_address(address)
        weakref.finalize(raw, self._dealloc, ptr)
        shift = (-address) % alignment
        view = np.frombuffer(memoryview(raw).cast("B"), np.uint8)[shift : shift + nbytes]
        return Block(view, address + shift, nbytes)

    def alloc(self, nbytes: int, persistent: bool = False) -> Block:
        nbytes = max(1, int(nbytes))
        with self.lock:
            free = self._free.get(nbytes)
            if free:
                block = free.pop()
            else:
                block = self.system_alloc(nbytes)
                self.num_system_allocs += 1
            block.persistent = persistent
            self.live[block.address] = block
            return block

    def empty(self, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
        """An uninitialized array whose memory comes from the C allocator."""
        dtype = np.dtype(dtype)
        block = self.system_alloc(int(np.prod(shape, dtype=np.int64)) * dtype.itemsize)
        return block.array.view(dtype)[: int(np.prod(shape, dtype=np.int64))].reshape(shape)


def install_allocator(ffi: Any, compiled: Any, alloc: Any, dealloc: Any) -> CallbackAllocator:
    """Routes the host allocations of `compiled` (a GraphExecutable) through `alloc`/`dealloc`."""
    allocator = CallbackAllocator(ffi, alloc, dealloc)
    driver = compiled.executable._ral.get_driver("cpu")  # noqa: SLF001 - the RAL context is the Executable's
    driver.allocator = allocator
    compiled.staging = allocator.empty
    return allocator
