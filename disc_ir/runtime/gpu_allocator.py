"""A caching device-memory allocator with size bins (BladeDISC's ``InternalAllocator``
role, binned so dynamic shapes reuse blocks).

Requests are rounded up to a bin: multiples of 512 bytes up to 4 KiB, then
four bins per power of two (``2^k``, ``1.25 * 2^k``, ``1.5 * 2^k``,
``1.75 * 2^k``), so a cached block is at most 25 % larger than the request it
serves. Freed blocks go to a free list per bin and are reused by any request of
the same bin; device memory is returned (``free_fn``) only by
:meth:`CachingDeviceAllocator.release_free`, or when an allocation fails and
the cache is released before one retry.

Reuse is stream-ordered: all work of a RAL context runs on one stream, so a
block freed by earlier work may be handed to later work on that stream without
a synchronisation.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from disc_ir.runtime.cuda_libs import CUDA_ERROR_OUT_OF_MEMORY, CudaError

MIN_BLOCK = 512
SMALL_LIMIT = 4096
SUB_BINS = 4


def bin_size(nbytes: int) -> int:
    """The bin (block size) a request of ``nbytes`` is served from."""
    n = max(1, int(nbytes))
    if n <= SMALL_LIMIT:
        return -(-n // MIN_BLOCK) * MIN_BLOCK
    power = 1 << (n - 1).bit_length() - 1  # largest power of two < n
    step = power // SUB_BINS
    return -(-n // step) * step


# Request size -> bin, for the sizes seen lately (calls repeat their sizes).
_BIN_CACHE: dict[int, int] = {}
_BIN_CACHE_LIMIT = 4096


def _cached_bin_size(nbytes: int) -> int:
    size = _BIN_CACHE.get(nbytes)
    if size is None:
        size = bin_size(nbytes)
        if len(_BIN_CACHE) >= _BIN_CACHE_LIMIT:
            _BIN_CACHE.clear()
        _BIN_CACHE[nbytes] = size
    return size


@dataclass
class AllocatorStats:
    """Counters of a :class:`CachingDeviceAllocator` (bytes are block sizes)."""

    device_allocs: int = 0
    device_frees: int = 0
    cache_hits: int = 0
    requests: int = 0
    bytes_in_use: int = 0
    bytes_cached: int = 0
    peak_bytes_in_use: int = 0
    oom_retries: int = 0

    def as_dict(self) -> dict[str, int]:
        return dict(self.__dict__)


@dataclass
class DeviceBlock:
    """A device allocation: ``address`` of ``size`` bytes (a bin size)."""

    address: int
    size: int
    requested: int = 0
    persistent: bool = False


@dataclass
class CachingDeviceAllocator:
    """Size-binned caching allocator over ``alloc_fn(nbytes) -> address`` / ``free_fn(address)``.

    Thread-safe. ``live`` maps the address of every block handed out to it.
    """

    alloc_fn: Callable[[int], int]
    free_fn: Callable[[int], None]
    stats: AllocatorStats = field(default_factory=AllocatorStats)
    live: dict[int, DeviceBlock] = field(default_factory=dict)
    _free: dict[int, list[DeviceBlock]] = field(default_factory=dict)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def alloc(self, nbytes: int, persistent: bool = False) -> DeviceBlock:
        """A block of at least ``nbytes`` (at least 1), from the cache when one fits."""
        nbytes = int(nbytes)
        size = _cached_bin_size(nbytes)
        with self.lock:
            stats = self.stats
            stats.requests += 1
            free = self._free.get(size)
            if free:
                block = free.pop()
                stats.cache_hits += 1
                stats.bytes_cached -= size
            else:
                block = DeviceBlock(self._device_alloc(size), size)
            block.requested = nbytes
            block.persistent = persistent
            self.live[block.address] = block
            in_use = stats.bytes_in_use + size
            stats.bytes_in_use = in_use
            if in_use > stats.peak_bytes_in_use:
                stats.peak_bytes_in_use = in_use
            return block

    def _device_alloc(self, size: int) -> int:
        try:
            address = self.alloc_fn(size)
        except CudaError as err:
            if err.code != CUDA_ERROR_OUT_OF_MEMORY or not self.num_cached:
                raise
            # Out of memory with blocks cached: give them back and retry once.
            self.stats.oom_retries += 1
            self.release_free()
            address = self.alloc_fn(size)
        self.stats.device_allocs += 1
        return address

    def free(self, address: int) -> bool:
        """Returns the live block at ``address`` to its bin; False if there is none."""
        with self.lock:
            block = self.live.pop(address, None)
            if block is None:
                return False
            block.persistent = False
            size = block.size
            free = self._free.get(size)
            if free is None:
                self._free[size] = [block]
            else:
                free.append(block)
            stats = self.stats
            stats.bytes_in_use -= size
            stats.bytes_cached += size
            return True

    def detach(self, address: int) -> DeviceBlock | None:
        """Hands the live block at ``address`` to an owner outside the allocator (an
        output array); it still counts as in use until :meth:`recycle`."""
        with self.lock:
            return self.live.pop(address, None)

    def recycle(self, block: DeviceBlock) -> None:
        """Takes back a detached block into its bin's free list."""
        with self.lock:
            block.persistent = False
            self._free.setdefault(block.size, []).append(block)
            self.stats.bytes_in_use -= block.size
            self.stats.bytes_cached += block.size

    def owner_of(self, address: int) -> DeviceBlock | None:
        """The live block containing ``address`` (not only starting at it), else None."""
        with self.lock:
            block = self.live.get(address)
            if block is not None:
                return block
            for block in self.live.values():
                if block.address <= address < block.address + block.size:
                    return block
            return None

    def release_free(self) -> int:
        """Returns every cached block to the device; the number of blocks freed."""
        with self.lock:
            blocks = [b for bucket in self._free.values() for b in bucket]
            self._free.clear()
            for block in blocks:
                self.free_fn(block.address)
                self.stats.device_frees += 1
                self.stats.bytes_cached -= block.size
            return len(blocks)

    def release_all(self) -> None:
        """Frees cached and live blocks alike (the owning context is closing)."""
        with self.lock:
            self.release_free()
            for block in list(self.live.values()):
                self.free_fn(block.address)
                self.stats.device_frees += 1
                self.stats.bytes_in_use -= block.size
            self.live.clear()

    @property
    def num_cached(self) -> int:
        with self.lock:
            return sum(len(v) for v in self._free.values())
