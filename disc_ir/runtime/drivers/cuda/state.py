"""The CUDA driver's options and one call's device bookkeeping."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from disc_ir.runtime.device_array import DeviceArray, StreamWork
from disc_ir.runtime.drivers.buffers import BufferRefcounts
from disc_ir.runtime.gpu_allocator import DeviceBlock

if TYPE_CHECKING:
    from disc_ir.runtime.drivers.cuda.driver import CudaDriver


class CudaExecState(BufferRefcounts):
    """One call's device bookkeeping (BladeDISC's ``device_ptr_map`` and friends):
    the reference counts of the buffers it allocated, and

    ``driver``: the CUDA driver (so the per-call APIs need no lookup).
    ``device_inputs``: the caller's device arrays by input index.
    ``staged_inputs``: device copies of host inputs by input index (freed when
    the call ends). ``must_sync``: the call must wait for its GPU work before it
    returns (host memory or a foreign framework's device memory takes part).
    ``synced``: it did. ``work``: the call's :class:`StreamWork`, shared by the
    device arrays it returns.
    """

    __slots__ = (
        "device_inputs",
        "driver",
        "must_sync",
        "staged_inputs",
        "synced",
        "work",
    )

    def __init__(self, driver: CudaDriver | None = None):
        super().__init__()
        self.driver = driver
        self.device_inputs: dict[int, DeviceArray] = {}
        self.staged_inputs: dict[int, DeviceBlock] = {}
        self.synced = False
        self.must_sync = False
        self.work: StreamWork | None = None


class BlockOwner:
    """Keeps an output's device block alive; gives it back to the driver when collected."""

    def __init__(self, driver: CudaDriver, block: DeviceBlock):
        self.driver = driver
        self.block = block

    def __del__(self) -> None:
        try:
            self.driver.recycle_block(self.block)
        except Exception:  # noqa: BLE001 - never raise from a finalizer
            pass


@dataclass
class CudaOptions:
    """Options of the CUDA driver.

    ``device_id``: the device ordinal. ``stream``: a CUstream handle to run on
    (e.g. ``torch.cuda.current_stream().cuda_stream``); None creates one per
    context. ``cache_across_executions``: keep freed device blocks cached after a
    call (BladeDISC releases them unless ``cache_workspace_mem_across_execution``;
    here caching is the default, as a framework allocator would).
    """

    device_id: int = 0
    stream: int | None = None
    cache_across_executions: bool = True
