"""The CPU driver and its RAL APIs (BladeDISC's ``cpu_driver`` + ``ral_base_cpu``).

Memory: 64-byte aligned host buffers from a caching allocator (free blocks are
kept by size and reused; BladeDISC's ``InternalAllocator``). Each execution
counts references to the buffers it allocated (``alloc`` = 1, ``inc_ref`` + 1,
``dealloc`` - 1, freed at 0); buffers that become outputs are handed to the
returned ndarrays instead of being reused; constants are persistent.

Kernels: ``ral_kernel_launch`` runs a packed kernel
``void kernel(const int64_t* lb, const int64_t* ub, const int64_t* step, void** params)``
(what ``disc-outline-cpu-kernel`` + disc-to-llvm produce) over a parallel index
space, split into one partition per thread like BladeDISC's
``LoopParallelAssigner``; each task is a sub-box of the index space. The kernel
is called through ctypes, which releases the GIL, so partitions run in
parallel on a process-wide thread pool.

Registered names (device ``cpu``): ``alloc``, ``dealloc``,
``ral_cpu_alloc_persistent``, ``raw_cpu_alloc``, ``raw_cpu_dealloc``,
``ral_cpu_memcpy``, ``ral_cpu_memset``, ``ral_recv_input``, ``ral_send_output``,
``inc_ref``, ``ral_const``, ``sync_on_stream``, ``ral_kernel_launch``.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from disc_ir import config
from disc_ir.runtime.abi import SCALAR_TYPES, ScalarType
from disc_ir.runtime.constants import constant_view, materialize_constant
from disc_ir.runtime.context import (
    Driver,
    ExecutionContext,
    RalContext,
    RalError,
    RalInputError,
)
from disc_ir.runtime.device_api import CPU, get_device_api
from disc_ir.runtime.drivers.buffers import BufferRefcounts, reshaped_alias
from disc_ir.runtime.memory_plan import AllocationTrace, MemoryPlan
from disc_ir.runtime.memref import (
    MemRefDescriptor,
    numpy_dtype,
    numpy_view,
    write_contiguous_descriptor,
)
from disc_ir.runtime.native import (
    CONST_ENTRY_WORDS,
    CPU_LAUNCH_NAME,
    CPU_SHAPE_ASSERTION_NAME,
    WORD_FAST_ASSERT,
    WORD_FAST_LAUNCH,
    native_enabled,
    native_runtime,
)
from disc_ir.runtime.native import (
    MAX_WORKERS as NATIVE_MAX_WORKERS,
)
from disc_ir.runtime.registry import (
    I32,
    I64,
    CStr,
    Ctx,
    MemRef,
    Ptr,
    PVoid,
    Var,
    ral_api,
)

N = Var("N")
M = Var("M")
T = Var("T")

ALIGNMENT = 64
#: ral_const unique indices the native dispatcher caches per RAL context (more go through Python).
CONST_TABLE_ENTRIES = 256
MAX_RANK = 8
ALL_ELEMENTS = tuple(SCALAR_TYPES)
DRIVER_NAME = "cpu"


# ---------------------------------------------------------------------------
# Memory
# ---------------------------------------------------------------------------


@dataclass(eq=False)
class Block:
    """An aligned host buffer: ``array`` is a uint8 view of exactly ``size`` bytes."""

    array: np.ndarray
    address: int
    size: int
    persistent: bool = False


#: numpy asks the kernel for transparent huge pages on allocations of at least this many bytes
NUMPY_HUGEPAGE_BYTES = 1 << 22
_PAGE = 4096
_MADV_NOHUGEPAGE = 15


@functools.cache
def _madvise() -> Any:
    """libc's ``madvise`` (None where there is none, e.g. not Linux)."""
    try:
        fn = ctypes.CDLL(None, use_errno=True).madvise
    except (OSError, AttributeError):
        return None
    fn.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


def huge_pages_wanted() -> bool:
    """``DISC_CPU_HUGE_PAGES=1``: keep numpy's transparent-huge-page request on
    large RAL buffers (default off, see `aligned_empty`)."""
    return config.flag("DISC_CPU_HUGE_PAGES")


def aligned_empty(nbytes: int, alignment: int = ALIGNMENT) -> Block:
    """A new ``alignment``-aligned buffer of ``nbytes`` (at least 1) bytes.

    Its pages are the system allocator's ordinary ones, as XLA's CPU runtime
    and ``malloc`` get: numpy marks its large allocations ``MADV_HUGEPAGE``,
    which this undoes before anything touches the buffer (unless
    `huge_pages_wanted`). Where the kernel compacts memory synchronously for
    such regions (``transparent_hugepage/defrag = madvise``), a call's first
    writes to a fresh output stalled on that compaction, for a time that
    varied from one process to the next, where ordinary pages fault in
    steadily.
    """
    nbytes = max(1, nbytes)
    owner = np.empty(nbytes + alignment, dtype=np.uint8)
    if owner.nbytes >= NUMPY_HUGEPAGE_BYTES and not huge_pages_wanted():
        madvise = _madvise()
        if madvise is not None:
            start = owner.ctypes.data
            first = start + (-start) % _PAGE
            madvise(first, start + owner.nbytes - first, _MADV_NOHUGEPAGE)
    base = owner.__array_interface__["data"][0]
    shift = (-base) % alignment
    return Block(owner[shift : shift + nbytes], base + shift, nbytes)


#: where the CPU driver's memory comes from (TVM's `DeviceAPI` of the host)
_CPU_API: Any = get_device_api(CPU)


class CachingAllocator:
    """Aligned host memory cached by size (thread-safe).

    ``alloc`` reuses a free block of the same size when there is one;
    ``free`` returns a block to the cache; ``release_free`` drops the cache.
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.live: dict[int, Block] = {}
        self._free: dict[int, list[Block]] = {}
        self.num_system_allocs = 0

    def alloc(self, nbytes: int, persistent: bool = False) -> Block:
        nbytes = max(1, int(nbytes))
        with self.lock:
            free = self._free.get(nbytes)
            if free:
                block = free.pop()
            else:
                block = _CPU_API.alloc_block(CPU, nbytes)
                self.num_system_allocs += 1
            block.persistent = persistent
            self.live[block.address] = block
            return block

    def free(self, address: int) -> bool:
        """Returns the live block at ``address`` to the cache; False if there is none."""
        with self.lock:
            block = self.live.pop(address, None)
            if block is None:
                return False
            block.persistent = False
            self._free.setdefault(block.size, []).append(block)
            return True

    def detach(self, address: int) -> Block | None:
        """Removes the live block at ``address`` from the allocator (it is never reused)."""
        with self.lock:
            return self.live.pop(address, None)

    def release_free(self) -> None:
        with self.lock:
            self._free.clear()

    @property
    def num_cached(self) -> int:
        with self.lock:
            return sum(len(v) for v in self._free.values())


class CpuExecState(BufferRefcounts):
    """Per-execution CPU bookkeeping: reference counts of the buffers it allocated
    (``given`` holds the blocks handed to returned output arrays) and the addresses
    of its inputs."""

    __slots__ = (
        "arena",
        "input_addresses",
        "occupant",
        "plan_cursor",
        "planned_refs",
        "released",
        "trace",
        "trace_index",
    )

    def __init__(self) -> None:
        super().__init__()
        self.input_addresses: set[int] = set()
        # the static memory plan's progress in this call (see CpuDriver.set_memory_plan):
        # the next allocation's index (-1: the plan was left), the arena, reference
        # counts of planned addresses (address -> [allocation index, count]), each
        # storage's current occupant and the allocations released so far
        self.plan_cursor = 0
        self.arena: Block | None = None
        self.planned_refs: dict[int, list[int]] = {}
        self.occupant: dict[int, int] = {}
        self.released: set[int] = set()
        # recording an allocation trace: the trace, address -> allocation index
        self.trace: AllocationTrace | None = None
        self.trace_index: dict[int, int] = {}


# ---------------------------------------------------------------------------
# Parallel launch
# ---------------------------------------------------------------------------

_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_POOL_LOCK = threading.Lock()


def default_num_threads() -> int:
    """``OMP_NUM_THREADS`` if set (as BladeDISC reads it), else the number of cores."""
    n = config.get_optional_int("OMP_NUM_THREADS")
    if n is not None and n > 0:
        return n
    return os.cpu_count() or 1


def thread_pool(min_workers: int) -> ThreadPoolExecutor:
    """The process-wide launch pool, grown to at least ``min_workers`` workers."""
    global _POOL, _POOL_SIZE
    with _POOL_LOCK:
        if _POOL is None or _POOL_SIZE < min_workers:
            old = _POOL
            _POOL_SIZE = max(min_workers, _POOL_SIZE)
            _POOL = ThreadPoolExecutor(max_workers=_POOL_SIZE, thread_name_prefix="disc-ral-cpu")
            if old is not None:
                old.shutdown(wait=False)
        return _POOL


Task = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]


def _min_units_per_core() -> int:
    return max(1, config.get_int("DISC_MIN_NUM_UNIT_PER_CORE"))


def partition_index_space(
    lower: tuple[int, ...],
    upper: tuple[int, ...],
    step: tuple[int, ...],
    num_cores: int,
    unit_workload_hint: int = 1,
) -> list[list[Task]]:
    """Splits the box ``[lower, upper)`` / ``step`` into balanced partitions of sub-boxes.

    Returns one list of tasks ``(lb, ub, step)`` per partition (at most
    ``num_cores``, none for an empty space). The split dimension is the
    outermost one at which the iteration count of the leading dimensions
    reaches the number of partitions; each partition covers a contiguous
    range of that prefix, decomposed into boxes.
    """
    if any(s <= 0 for s in step):
        raise RalError(f"ral_kernel_launch: non-positive loop step {step}")
    dims = [max(0, -(-(u - lo) // s)) for lo, u, s in zip(lower, upper, step, strict=True)]
    total = 1
    for d in dims:
        total *= d
    if total == 0:
        return []
    parts = min(num_cores, total, max(1, (total * unit_workload_hint) // _min_units_per_core()))
    if parts < 2 or not dims:
        return [[(tuple(lower), tuple(upper), tuple(step))]]
    prefix = 1
    k = 0
    while k < len(dims):
        prefix *= dims[k]
        if prefix >= parts:
            break
        k += 1
    inner = dims[k]
    plan: list[list[Task]] = []
    for p in range(parts):
        start = p * prefix // parts
        end = (p + 1) * prefix // parts
        tasks: list[Task] = []
        pos = start
        while pos < end:
            outer, first = divmod(pos, inner)
            stop = min(end, (outer + 1) * inner)
            last = stop - outer * inner
            idx = []
            rem = outer
            for d in reversed(dims[:k]):
                rem, r = divmod(rem, d)
                idx.append(r)
            idx.reverse()
            lb = list(lower)
            ub = list(upper)
            for d, i in enumerate(idx):
                lb[d] = lower[d] + step[d] * i
                ub[d] = min(upper[d], lb[d] + step[d])
            lb[k] = lower[k] + step[k] * first
            ub[k] = min(upper[k], lower[k] + step[k] * last)
            tasks.append((tuple(lb), tuple(ub), tuple(step)))
            pos = stop
        plan.append(tasks)
    return plan


PACKED_KERNEL_TYPE = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p
)


def _run_tasks(kernel: Any, tasks: list[Task], params: int) -> None:
    for lb, ub, st in tasks:
        n = len(lb)
        arr = ctypes.c_int64 * n
        a, b, c = arr(*lb), arr(*ub), arr(*st)
        kernel(ctypes.addressof(a), ctypes.addressof(b), ctypes.addressof(c), params)


# ---------------------------------------------------------------------------
# The driver
# ---------------------------------------------------------------------------


class CpuDriver(Driver):
    """Host memory, CPU kernel launch and synchronisation for one RalContext."""

    name = DRIVER_NAME

    def __init__(self, context: RalContext):
        self.context = context
        self.allocator = CachingAllocator()
        self.num_threads = context.options.num_threads or default_num_threads()
        self._kernels: dict[int, Any] = {}
        self._kernels_lock = threading.Lock()
        self._consts: dict[tuple[str, str], np.ndarray] = {}
        self._consts_lock = threading.Lock()
        self._min_units = _min_units_per_core()
        # Whether ral_kernel_launch runs in the native dispatcher (decided on first use).
        self._native_launch: bool | None = None
        # Whether holding shape assertions return in the native dispatcher.
        self._native_assert: bool | None = None
        # NativeContext words WORD_FAST_LAUNCH..WORD_FAST_ASSERT (once the above are known)
        self._native_words: tuple[int, ...] | None = None
        # ral_const results by unique_index, answered by the native dispatcher
        # once the Python entry filled them (see native.CONST_ENTRY_WORDS).
        self.const_table = (ctypes.c_int64 * (1 + CONST_TABLE_ENTRIES * CONST_ENTRY_WORDS))()
        self.const_table[0] = CONST_TABLE_ENTRIES
        #: the static memory plan calls follow (None: the caching allocator only)
        self.memory_plan: MemoryPlan | None = None
        self._arenas: list[Block] = []
        #: counters: allocations served from the plan's arena, calls that left the plan
        self.planned_allocs = 0
        self.plan_departures = 0
        self._trace: AllocationTrace | None = None

    # -- the static memory plan -------------------------------------------------

    def set_memory_plan(self, plan: MemoryPlan | None) -> None:
        """Serve allocations from `plan`'s arena (`disc_ir.runtime.memory_plan`)."""
        with self.allocator.lock:
            self.memory_plan = plan
            self._arenas.clear()

    def record_allocations(self, trace: AllocationTrace | None) -> None:
        """Record the allocations of the next call that starts into `trace`
        (that one call only: concurrent calls are not mixed in)."""
        with self.allocator.lock:
            self._trace = trace

    def _planned_alloc(self, state: CpuExecState, plan: MemoryPlan, nbytes: int) -> int:
        """The address of the call's next allocation in the arena, or 0 (caching
        allocator; a deviation from the plan ends its use for the call)."""
        k = state.plan_cursor
        if k >= len(plan.sizes) or plan.sizes[k] != nbytes:
            state.plan_cursor = -1
            self.plan_departures += 1
            return 0
        state.plan_cursor = k + 1
        sid = plan.storage[k]
        if sid is None:
            return 0
        previous = state.occupant.get(sid)
        if previous is not None and previous not in state.released:
            state.plan_cursor = -1  # still live in this call: the trace does not hold
            self.plan_departures += 1
            return 0
        if state.arena is None:
            state.arena = self._arenas.pop() if self._arenas else aligned_empty(plan.arena_bytes)
        address = state.arena.address + plan.offsets[sid]
        state.occupant[sid] = k
        state.planned_refs[address] = [k, 1]
        self.planned_allocs += 1
        return address

    # -- per execution --------------------------------------------------------

    def state(self, exec_ctx: ExecutionContext) -> CpuExecState:
        return exec_ctx.driver_state[self.name]

    def on_execution_start(self, exec_ctx: ExecutionContext) -> None:
        state = exec_ctx.driver_state[self.name] = CpuExecState()
        if self._trace is not None:
            with self.allocator.lock:
                state.trace, self._trace = self._trace, None
        if self._native_launch is None:
            self._native_launch = self._can_launch_natively()
        if self._native_launch:
            runtime = native_runtime()
            if runtime is not None and runtime.num_workers < min(
                self.num_threads - 1, NATIVE_MAX_WORKERS
            ):
                runtime.ensure_workers(self.num_threads - 1)  # e.g. in a forked child
        if self._native_assert is None:
            self._native_assert = self._stock_shape_assertion()
        words = self._native_words
        if words is None:
            words = self._native_words = (
                int(self._native_launch),
                self.num_threads,
                self._min_units,
                ctypes.addressof(self.const_table),
                int(self._native_assert),
            )
        exec_ctx.native[WORD_FAST_LAUNCH : WORD_FAST_ASSERT + 1] = words

    def _stock_shape_assertion(self) -> bool:
        """True when this context's registry has the stock CPU ral_shape_assertion
        (the native dispatcher may then answer the holding ones)."""
        from disc_ir.runtime.kernels.assertion import ral_shape_assertion

        entry = self.context.registry.find(CPU_SHAPE_ASSERTION_NAME)
        return entry is not None and entry.python_function is ral_shape_assertion

    def _can_launch_natively(self) -> bool:
        """True when launches may bypass Python: the native runtime runs, and this
        context's registry has the stock CPU launch entry (not an override)."""
        runtime = native_runtime() if native_enabled() else None
        if runtime is None:
            return False
        entry = self.context.registry.find(CPU_LAUNCH_NAME)
        if entry is None or entry.python_function is not ral_cpu_kernel_launch:
            return False
        runtime.ensure_workers(self.num_threads - 1)
        return True

    def on_execution_finish(self, exec_ctx: ExecutionContext) -> None:
        state: CpuExecState | None = exec_ctx.driver_state.pop(self.name, None)
        if state is None:
            return
        if state.arena is not None:
            with self.allocator.lock:
                if (
                    self.memory_plan is not None
                    and state.arena.size == self.memory_plan.arena_bytes
                ):
                    self._arenas.append(state.arena)
            state.arena = None
        cached = self.allocator._free  # noqa: SLF001 - an unlocked peek: empty means no work
        if not state.refcounts and (
            self.context.options.cache_workspace_mem_across_execution or not cached
        ):
            return
        with self.allocator.lock:
            # Temporaries the compiled code did not free (and outputs never collected,
            # e.g. after an error) end with the call.
            for address in state.drain():
                self.allocator.free(address)
            if not self.context.options.cache_workspace_mem_across_execution:
                self.allocator.release_free()

    # -- memory ---------------------------------------------------------------

    def alloc(self, exec_ctx: ExecutionContext, nbytes: int) -> int:
        state = self.state(exec_ctx)
        with self.allocator.lock:
            plan = self.memory_plan
            if plan is not None and state.plan_cursor >= 0 and state.trace is None:
                address = self._planned_alloc(state, plan, nbytes)
                if address:
                    return address
            block = self.allocator.alloc(nbytes)
            state.track(block.address)
            if state.trace is not None:
                state.trace_index[block.address] = state.trace.on_alloc(nbytes)
            return block.address

    def alloc_persistent(self, nbytes: int) -> Block:
        return self.allocator.alloc(nbytes, persistent=True)

    def dealloc(self, exec_ctx: ExecutionContext, address: int) -> None:
        if not address:
            return
        state = self.state(exec_ctx)
        with self.allocator.lock:
            planned = state.planned_refs.get(address)
            if planned is not None:
                planned[1] -= 1
                if planned[1] == 0:
                    state.released.add(planned[0])
                    del state.planned_refs[address]
                return
            block = self.allocator.live.get(address)
            if block is not None and block.persistent:
                return
            if state.drop_reference(address):
                if state.trace is not None and address in state.trace_index:
                    state.trace.on_release(state.trace_index.pop(address))
                self.allocator.free(address)

    def inc_ref(self, exec_ctx: ExecutionContext, address: int) -> None:
        if not address:
            return
        state = self.state(exec_ctx)
        with self.allocator.lock:
            planned = state.planned_refs.get(address)
            if planned is not None:
                planned[1] += 1
                return
            # Inputs and persistent buffers are borrowed: never counted.
            state.add_reference(address)

    def raw_alloc(self, nbytes: int) -> int:
        return self.allocator.alloc(nbytes, persistent=True).address

    def raw_dealloc(self, address: int) -> None:
        if address:
            self.allocator.free(address)

    # -- inputs / outputs -----------------------------------------------------

    def recv_input(
        self, exec_ctx: ExecutionContext, index: int, element: ScalarType, rank: int
    ) -> MemRefDescriptor:
        """Input ``index`` as a descriptor over the caller's array (copied only if
        not C-contiguous). A wrong dtype/rank is signalled and a zero-filled
        stand-in is returned so the compiled code can run to its end safely."""
        try:
            array = exec_ctx.input(index, element, rank)
        except RalInputError as err:
            exec_ctx.signal_error(err)
            sizes: tuple[int, ...] = (0,) * rank
            if 0 <= index < len(exec_ctx.inputs) and exec_ctx.inputs[index].ndim == rank:
                sizes = tuple(exec_ctx.inputs[index].shape)
            stand_in = np.zeros(sizes, dtype=numpy_dtype(element))
            exec_ctx.keep_alive(stand_in)
            return MemRefDescriptor.from_array(stand_in, element)
        if not array.flags.c_contiguous:
            array = np.ascontiguousarray(array)
            exec_ctx.keep_alive(array)
        state = self.state(exec_ctx)
        state.input_addresses.add(array.ctypes.data)
        state.kept.append(array)
        return MemRefDescriptor.from_array(array, element).with_contiguous_strides()

    def send_output(self, exec_ctx: ExecutionContext, index: int, desc: MemRefDescriptor) -> None:
        state = self.state(exec_ctx)
        with self.allocator.lock:
            state.mark_output(desc.aligned)
            if state.trace is not None and desc.aligned in state.trace_index:
                state.trace.outputs.add(state.trace_index[desc.aligned])
            planned = state.planned_refs.get(desc.aligned)
            if planned is not None:
                # an arena buffer sent out (the plan never gives one to an
                # output): it stays live, and collect_output copies it
                planned[1] += 1
        exec_ctx.outputs[index] = (self.name, desc)

    def collect_output(self, exec_ctx: ExecutionContext, index: int, value: Any) -> np.ndarray:
        """The output as an ndarray that no other array of the program shares: owning
        the buffer the code allocated (no copy; the allocator never reuses it), else
        a copy: of an input forwarded as is, of a constant, of a buffer an earlier
        output of the call already owns, of foreign memory."""
        desc: MemRefDescriptor = value
        state = self.state(exec_ctx)
        dtype = numpy_dtype(desc.element)
        if desc.num_elements == 0:
            return np.empty(desc.sizes, dtype=dtype)
        with self.allocator.lock:
            block = None
            if desc.aligned in state.output_blocks:
                block = self.allocator.live.get(desc.aligned)
                if block is not None and not block.persistent:
                    self.allocator.detach(desc.aligned)
                    state.hand_over(desc.aligned, block)
                else:
                    block = None
        if block is not None:
            itemsize = dtype.itemsize
            return np.ndarray(
                shape=desc.sizes,
                dtype=dtype,
                buffer=block.array,
                offset=desc.offset * itemsize,
                strides=tuple(s * itemsize for s in desc.strides),
            )
        return numpy_view(desc).copy()

    # -- constants ------------------------------------------------------------

    def const(
        self, exec_ctx: ExecutionContext, name: str, element: ScalarType, rank: int
    ) -> MemRefDescriptor:
        """The constant ``name``, loaded once per RAL context into a persistent buffer."""
        key = (name, element.code)
        array = self._consts.get(key)
        if array is None:
            with self._consts_lock:
                array = self._consts.get(key)
                if array is None:
                    table = self.context.constants_table()
                    # a saved artifact's constants are read in place from the mapped file
                    array = constant_view(name, table, numpy_dtype(element), rank)
                    if array is None:
                        value = materialize_constant(name, table, numpy_dtype(element), rank)
                        block = self.alloc_persistent(value.nbytes)
                        array = np.ndarray(value.shape, value.dtype, buffer=block.array)
                        array[...] = value
                    self._consts[key] = array
        if array.ndim != rank:
            raise RalError(f"const {name}: expected rank {rank}, has shape {array.shape}")
        return MemRefDescriptor.from_array(array, element)

    # -- kernels --------------------------------------------------------------

    def kernel(self, address: int) -> Any:
        """The ctypes callable of the packed kernel at ``address`` (created once)."""
        fn = self._kernels.get(address)
        if fn is None:
            with self._kernels_lock:
                fn = self._kernels.setdefault(address, PACKED_KERNEL_TYPE(address))
        return fn

    def launch(
        self,
        kernel_name: str | None,
        lower: tuple[int, ...],
        upper: tuple[int, ...],
        step: tuple[int, ...],
        unit_workload_hint: int,
        kernel_address: int,
        params: int,
    ) -> None:
        """Runs the packed kernel over the index space, in parallel when worthwhile."""
        if not kernel_address:
            raise RalError(f"ral_kernel_launch: null kernel pointer for '{kernel_name}'")
        if not (len(lower) == len(upper) == len(step)):
            raise RalError(f"ral_kernel_launch: bound ranks differ for '{kernel_name}'")
        if not lower:
            return
        kernel = self.kernel(kernel_address)
        plan = partition_index_space(lower, upper, step, self.num_threads, unit_workload_hint)
        if not plan:
            return
        if len(plan) == 1:
            _run_tasks(kernel, plan[0], params)
            return
        pool = thread_pool(self.num_threads)
        futures: list[Future[None]] = [
            pool.submit(_run_tasks, kernel, tasks, params) for tasks in plan[1:]
        ]
        _run_tasks(kernel, plan[0], params)
        for future in futures:
            future.result()

    def close(self) -> None:
        with self._consts_lock:
            self._consts.clear()
        self.allocator.release_free()


def cpu_driver(exec_ctx: ExecutionContext) -> CpuDriver:
    """The CPU driver of ``exec_ctx``'s RAL context."""
    return exec_ctx.context.get_driver(DRIVER_NAME)  # type: ignore[return-value]  # the context registered this driver under DRIVER_NAME


# ---------------------------------------------------------------------------
# RAL APIs (device "cpu")
# ---------------------------------------------------------------------------


@ral_api("alloc", "cpu")
def ral_cpu_alloc(ctx: Ctx, nbytes: I64) -> PVoid:
    """``alloc___cpu___pvoid_i64___pvoid``: an aligned temporary of ``nbytes``."""
    return cpu_driver(ctx).alloc(ctx, nbytes)


@ral_api("dealloc", "cpu", skip_on_error=False)
def ral_cpu_dealloc(ctx: Ctx, ptr: PVoid) -> None:
    """``dealloc___cpu___pvoid_pvoid___void``: drops one reference to ``ptr``."""
    cpu_driver(ctx).dealloc(ctx, ptr)


@ral_api("ral_cpu_alloc_persistent", "cpu")
def ral_cpu_alloc_persistent(ctx: Ctx, nbytes: I64) -> PVoid:
    """A buffer that lives as long as the RAL context."""
    return cpu_driver(ctx).alloc_persistent(nbytes).address


@ral_api("raw_cpu_alloc", "cpu")
def ral_raw_cpu_alloc(ctx: Ctx, nbytes: I64) -> PVoid:
    """Untracked memory; the caller frees it with ``raw_cpu_dealloc``."""
    return cpu_driver(ctx).raw_alloc(nbytes)


@ral_api("raw_cpu_dealloc", "cpu", skip_on_error=False)
def ral_raw_cpu_dealloc(ctx: Ctx, ptr: PVoid) -> None:
    """Frees memory from ``raw_cpu_alloc``."""
    cpu_driver(ctx).raw_dealloc(ptr)


@ral_api("ral_cpu_memcpy", "cpu")
def ral_cpu_memcpy(ctx: Ctx, src: PVoid, dst: PVoid, nbytes: I64) -> None:
    """Copies ``nbytes`` from ``src`` to ``dst``."""
    if nbytes:
        ctypes.memmove(dst, src, nbytes)


@ral_api("ral_cpu_memset", "cpu")
def ral_cpu_memset(ctx: Ctx, dst: PVoid, value: I32, count: I64) -> None:
    """Sets ``count`` bytes at ``dst`` to ``value``."""
    if count:
        ctypes.memset(dst, value, count)


@ral_api("ral_recv_input", "cpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1), skip_on_error=False)
def ral_cpu_recv_input(ctx: Ctx, index: I64, *, T: str, N: int) -> MemRef[N, T]:
    """``ral_recv_input___cpu___pvoid_i64___m{N}d{T}``: input ``index`` without a copy."""
    return cpu_driver(ctx).recv_input(ctx, index, ScalarType(T), N)


@ral_api("ral_send_output", "cpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1))
def ral_cpu_send_output(ctx: Ctx, index: I64, value: MemRef[N, T]) -> None:
    """``ral_send_output___cpu___pvoid_i64_m{N}d{T}___void``: records output ``index``."""
    cpu_driver(ctx).send_output(ctx, index, value)


@ral_api("sync_on_stream", "cpu")
def ral_cpu_sync_on_stream(ctx: Ctx, stream: PVoid) -> None:
    """Waits for work queued on the stream: CPU launches are synchronous, so nothing to do."""


@ral_api("ral_kernel_launch", "cpu")
def ral_cpu_kernel_launch(
    ctx: Ctx,
    kernel_name: CStr,
    lower: MemRef[1, I64],
    upper: MemRef[1, I64],
    step: MemRef[1, I64],
    unit_workload_hint: I64,
    kernel: PVoid,
    params: Ptr[PVoid],
) -> None:
    """``ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void``."""
    bounds = [tuple(int(v) for v in numpy_view(m)) for m in (lower, upper, step)]
    cpu_driver(ctx).launch(
        kernel_name, bounds[0], bounds[1], bounds[2], unit_workload_hint, kernel, params
    )


@ral_api("inc_ref", "cpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1))
def ral_cpu_inc_ref(ctx: Ctx, stream: PVoid, value: MemRef[N, T]) -> MemRef[N, T]:
    """``inc_ref___cpu___pvoid_pvoid_m{N}d{T}___m{N}d{T}``: one more reference to the
    buffer (a bitcast that aliases it)."""
    cpu_driver(ctx).inc_ref(ctx, value.aligned)  # type: ignore[attr-defined]  # a MemRef spec arrives as a MemRefDescriptor
    return value


@ral_api("inc_ref", "cpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1), M=range(MAX_RANK + 1))
def ral_cpu_inc_ref_reshape(
    ctx: Ctx,
    stream: PVoid,
    value: MemRef[N, T],
    shape: MemRef[1, I64],
    *,
    M: int,
) -> MemRef[M, T]:
    """``inc_ref___cpu___pvoid_pvoid_m{N}d{T}_m1di64___m{M}d{T}``: an aliasing reshape of a
    contiguous buffer to the sizes in ``shape``."""
    reshaped = reshaped_alias(value, shape, M)
    cpu_driver(ctx).inc_ref(ctx, value.aligned)  # type: ignore[attr-defined]  # a MemRef spec arrives as a MemRefDescriptor
    return reshaped


@ral_api("ral_const", "cpu", T=ALL_ELEMENTS, N=range(MAX_RANK + 1), skip_on_error=False)
def ral_cpu_const(
    ctx: Ctx, stream: PVoid, unique_name: CStr, unique_index: I32, *, T: str, N: int
) -> MemRef[N, T]:
    """``ral_const___cpu___pvoid_pvoid_pvoid_i32___m{N}d{T}``: a constant of the metadata
    file, loaded once per RAL context."""
    if unique_name is None:
        raise RalError("ral_const: null unique_name")
    return cpu_driver(ctx).const(ctx, unique_name, ScalarType(T), N)


# ---------------------------------------------------------------------------
# Fast invokers for the per-call APIs
# ---------------------------------------------------------------------------
#
# The generic invoker of an entry (registry.make_python_entry) decodes every
# operand into Python objects (MemRefDescriptor, str) and re-encodes the
# results; the APIs below run on every call of every executable, so their
# entries get invokers that read and write the slots directly and fall back to
# the generic invoker for anything unusual (errors, empty or strided arrays).

_U64 = ctypes.c_uint64
_I64C = ctypes.c_int64
_I32C = ctypes.c_int32


def _fast_recv_input(generic: Any, dtype: np.dtype, rank: int) -> Any:
    def invoke(exec_ctx: ExecutionContext, slots: Any) -> None:
        index = _I64C.from_address(slots[1]).value
        inputs = exec_ctx.inputs
        if 0 <= index < len(inputs):
            array = inputs[index]
            if (
                array.dtype == dtype
                and array.ndim == rank
                and array.size
                and array.flags.c_contiguous
            ):
                state: CpuExecState = exec_ctx.driver_state[DRIVER_NAME]
                data = array.__array_interface__["data"][0]
                state.input_addresses.add(data)
                state.kept.append(array)
                write_contiguous_descriptor(slots[2], data, array.shape)
                return
        generic(exec_ctx, slots)

    return invoke


def _fast_alloc(exec_ctx: ExecutionContext, slots: Any) -> None:
    nbytes = _I64C.from_address(slots[1]).value
    _U64.from_address(slots[2]).value = cpu_driver(exec_ctx).alloc(exec_ctx, nbytes)


def _fast_dealloc(exec_ctx: ExecutionContext, slots: Any) -> None:
    cpu_driver(exec_ctx).dealloc(exec_ctx, _U64.from_address(slots[1]).value)


def _fast_const(generic: Any, element: ScalarType, rank: int) -> Any:
    def invoke(exec_ctx: ExecutionContext, slots: Any) -> None:
        name_address = _U64.from_address(slots[2]).value
        if not name_address:
            generic(exec_ctx, slots)
            return
        name = ctypes.string_at(name_address).decode()
        driver = cpu_driver(exec_ctx)
        key = (name, element.code)
        array = driver._consts.get(key)
        if array is None or array.ndim != rank or not array.size:
            generic(exec_ctx, slots)  # loads it (or reports why not)
            array = driver._consts.get(key)
            if array is None or array.ndim != rank or not array.size:
                return
        else:
            write_contiguous_descriptor(slots[4], array.ctypes.data, array.shape)
        index = _I32C.from_address(slots[3]).value
        _remember_const(driver, name_address, index, array.ctypes.data, array.shape)

    return invoke


def _remember_const(
    driver: CpuDriver, name_address: int, index: int, data: int, shape: tuple[int, ...]
) -> None:
    """Fills entry ``index`` of the driver's constants table (native fast path).

    The descriptor words are written before the key, so a thread reading the
    table concurrently sees either an empty entry or a complete one.
    """
    table = driver.const_table
    if not 0 <= index < table[0] or table[1 + index * CONST_ENTRY_WORDS]:
        return  # out of the table, or filled (by this name: indices are unique per name)
    base = 1 + index * CONST_ENTRY_WORDS
    rank = len(shape)
    table[base + 1] = rank
    write_contiguous_descriptor(ctypes.addressof(table) + (base + 2) * 8, data, shape)
    table[base] = name_address


def _fast_send_output(element: ScalarType, rank: int) -> Any:
    from disc_ir.runtime.abi import MemRefType

    mtype = MemRefType(rank, element)

    def invoke(exec_ctx: ExecutionContext, slots: Any) -> None:
        index = _I64C.from_address(slots[1]).value
        desc = MemRefDescriptor.read_slots(slots, 2, mtype)
        cpu_driver(exec_ctx).send_output(exec_ctx, index, desc)

    return invoke


def _install_fast_invokers() -> None:
    from disc_ir.runtime.registry import GLOBAL_REGISTRY

    def entries(fn: Any) -> list[Any]:
        found = [GLOBAL_REGISTRY.find(n) for n in fn.ral_api_names]
        return [e for e in found if e is not None and e.python_function is fn]

    for entry in entries(ral_cpu_recv_input):
        b = entry.bindings
        entry.invoke = _fast_recv_input(entry.invoke, np.dtype(SCALAR_TYPES[b["T"]][0]), b["N"])
    for entry in entries(ral_cpu_const):
        b = entry.bindings
        entry.invoke = _fast_const(entry.invoke, ScalarType(b["T"]), b["N"])
    for entry in entries(ral_cpu_send_output):
        b = entry.bindings
        entry.invoke = _fast_send_output(ScalarType(b["T"]), b["N"])
    for entry in entries(ral_cpu_alloc):
        entry.invoke = _fast_alloc
    for entry in entries(ral_cpu_dealloc):
        entry.invoke = _fast_dealloc


_install_fast_invokers()
