"""One call's reference counts of the RAL buffers it allocated (every driver's).

As BladeDISC's drivers do (``ral_base_cpu`` / ``ral_base_cuda``), a call counts
the references to each buffer it allocated: ``alloc`` makes one, ``inc_ref``
(an aliasing bitcast or reshape) adds one, ``dealloc`` drops one and the buffer
is freed when the last goes, unless it became an output: then it is handed to
the returned array instead. Inputs and persistent buffers (constants) are
borrowed: never counted, never freed by the call. Buffers still referenced when
the call ends (the code did not free them, e.g. after an error) are freed then.

:class:`BufferRefcounts` holds this bookkeeping; the CPU and CUDA drivers'
per-call states derive from it and add their own fields. It does no locking:
each driver calls it under the lock it guards its allocator with.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from disc_ir.runtime.context import RalError
from disc_ir.runtime.memref import MemRefDescriptor, contiguous_strides, numpy_view


class BufferRefcounts:
    """The reference counts of the buffers one call allocated.

    ``refcounts``: references per buffer address. ``output_blocks``: counted
    buffers that became outputs (not freed when their count drops to 0).
    ``given``: owner per buffer address handed to a returned array. ``kept``:
    objects kept alive until the call ends.
    """

    __slots__ = ("given", "kept", "output_blocks", "refcounts")

    def __init__(self) -> None:
        self.refcounts: dict[int, int] = {}
        self.output_blocks: set[int] = set()
        self.given: dict[int, Any] = {}
        self.kept: list[Any] = []

    def track(self, address: int) -> None:
        """A buffer the call allocated (``alloc``): one reference."""
        self.refcounts[address] = 1

    def add_reference(self, address: int) -> None:
        """One more reference to ``address`` (``inc_ref``) if the call counts it."""
        if address in self.refcounts:
            self.refcounts[address] += 1

    def drop_reference(self, address: int) -> bool:
        """One reference less to ``address`` (``dealloc``).

        True when that was its last one and it is no output: the caller frees it.
        A buffer the call does not count (borrowed) is left alone.
        """
        count = self.refcounts.get(address)
        if count is None:
            return False
        if count > 1:
            self.refcounts[address] = count - 1
            return False
        del self.refcounts[address]
        return address not in self.output_blocks

    def mark_output(self, address: int) -> None:
        """``address`` is sent as an output: if the call counts it, it is handed to
        the returned array instead of being freed."""
        if address in self.refcounts:
            self.output_blocks.add(address)

    def hand_over(self, address: int, owner: Any) -> None:
        """The output buffer at ``address`` now belongs to ``owner`` (what keeps the
        returned array's memory alive): the call no longer counts it."""
        self.refcounts.pop(address, None)
        self.output_blocks.discard(address)
        self.given[address] = owner

    def drain(self) -> list[int]:
        """The buffers still referenced at the end of the call (the caller frees
        them), forgotten."""
        addresses = list(self.refcounts)
        self.refcounts.clear()
        return addresses


def reshaped_alias(value: MemRefDescriptor, shape: MemRefDescriptor, rank: int) -> MemRefDescriptor:
    """``inc_ref``'s aliasing reshape: ``value``'s contiguous buffer with the sizes in
    the host memref ``shape`` (RalError unless there are ``rank`` of them and they
    hold as many elements). The caller adds the reference."""
    sizes = tuple(int(v) for v in numpy_view(shape))
    if len(sizes) != rank:
        raise RalError(f"inc_ref: target shape {sizes} is not of rank {rank}")
    if int(np.prod(sizes, dtype=np.int64)) != value.num_elements:
        raise RalError(f"inc_ref: cannot reshape {value.sizes} to {sizes}")
    return MemRefDescriptor(
        value.allocated,
        value.aligned,
        value.offset,
        sizes,
        contiguous_strides(sizes),
        value.element,
    )
