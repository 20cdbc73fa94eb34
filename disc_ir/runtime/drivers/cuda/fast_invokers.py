"""Fast invokers for the per-call CUDA APIs.

The generic invoker of an entry (registry.make_python_entry) decodes every
operand into Python objects (MemRefDescriptor, str) and re-encodes the
results. The APIs below (``ral_recv_input``, ``ral_send_output``, ``alloc``,
``dealloc``, ``ral_const``, ``ral_kernel_launch``) run on every call of a CUDA
executable, so their entries read and write the slots directly, and fall back
to the generic invoker (which reports errors as before) for anything unusual:
no CUDA driver, a stream index other than 0, bad launch dimensions, a kernel
not launched before, a missing input. Importing this module installs them.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable
from typing import Any

import numpy as np

from disc_ir.runtime.abi import KERNEL_BUFFER_ALIGNMENT, SCALAR_TYPES, ScalarType
from disc_ir.runtime.context import ExecutionContext
from disc_ir.runtime.drivers.cuda.context import CUDA_IO_REGISTRY
from disc_ir.runtime.drivers.cuda.driver import DRIVER_NAME, UINT32_MAX
from disc_ir.runtime.drivers.cuda.entry_points import (
    ral_cuda_recv_input,
    ral_cuda_send_output,
    ral_gpu_alloc,
    ral_gpu_const,
    ral_gpu_dealloc,
    ral_gpu_kernel_launch,
)
from disc_ir.runtime.drivers.cuda.state import CudaExecState
from disc_ir.runtime.memref import MemRefDescriptor, write_contiguous_descriptor
from disc_ir.runtime.registry import GLOBAL_REGISTRY, ApiRegistry

_U64 = ctypes.c_uint64
_I64C = ctypes.c_int64
_I32C = ctypes.c_int32
_LAUNCH_SLOTS = 14  # ctx, blobs, num_blobs, name, grid xyz, block xyz, smem, stream, nargs, params


def _fast_recv_input(generic: Any, dtype: np.dtype, rank: int) -> Any:
    def invoke(exec_ctx: ExecutionContext, slots: Any) -> None:
        state = exec_ctx.driver_state.get(DRIVER_NAME)
        if state is not None:
            device = state.device_inputs.get(_I64C.from_address(slots[1]).value)
            if (
                device is not None
                and (device.dtype is dtype or device.dtype == dtype)
                and len(device.shape) == rank
                and not device.ptr % KERNEL_BUFFER_ALIGNMENT
            ):
                # device_inputs hold contiguous arrays on this device, placed on the
                # gpu (a misaligned one takes the generic path: an aligned copy).
                write_contiguous_descriptor(slots[2], device.ptr, device.shape)
                return
        generic(exec_ctx, slots)

    return invoke


def _fast_send_output(generic: Any, element: ScalarType, rank: int) -> Any:
    count = 3 + 2 * rank

    def invoke(exec_ctx: ExecutionContext, slots: Any) -> None:
        state = exec_ctx.driver_state.get(DRIVER_NAME)
        placements = exec_ctx.context.output_placements  # type: ignore[attr-defined]  # installed on the CUDA context only, which has output_placements
        index = _I64C.from_address(slots[1]).value
        if (
            state is None
            or placements is None
            or not 0 <= index < len(placements)
            or placements[index] != "gpu"
        ):
            generic(exec_ctx, slots)
            return
        fields = [_I64C.from_address(a).value for a in slots[2 : 2 + count]]
        aligned = fields[1] & 0xFFFFFFFFFFFFFFFF
        desc = MemRefDescriptor(
            fields[0] & 0xFFFFFFFFFFFFFFFF,
            aligned,
            fields[2],
            tuple(fields[3 : 3 + rank]),
            tuple(fields[3 + rank :]),
            element,
        )
        if aligned in state.refcounts:
            with state.driver.allocator.lock:
                state.mark_output(aligned)
        exec_ctx.outputs[index] = (DRIVER_NAME, desc)

    return invoke


def _with_cuda_state(generic: Any, run: Callable[[CudaExecState, Any], None]) -> Any:
    """An entry that runs `run(state, slots)` when the call has CUDA state, else `generic`."""

    def invoke(exec_ctx: ExecutionContext, slots: Any) -> None:
        state = exec_ctx.driver_state.get(DRIVER_NAME)
        if state is None:
            generic(exec_ctx, slots)
        else:
            run(state, slots)

    return invoke


def _alloc_into_slots(state: CudaExecState, slots: Any) -> None:
    nbytes = _I64C.from_address(slots[1]).value
    _U64.from_address(slots[2]).value = state.driver.alloc_for(state, nbytes)  # type: ignore[union-attr]  # the driver makes its exec states with itself (CudaExecState(self))


def _dealloc_from_slots(state: CudaExecState, slots: Any) -> None:
    state.driver.dealloc_for(state, _U64.from_address(slots[1]).value)  # type: ignore[union-attr]  # the driver makes its exec states with itself (CudaExecState(self))


def _fast_const(generic: Any, code: str, rank: int) -> Any:
    read_str = ctypes.c_char_p.from_address

    def invoke(exec_ctx: ExecutionContext, slots: Any) -> None:
        state = exec_ctx.driver_state.get(DRIVER_NAME)
        name = read_str(slots[2]).value  # unique_name's bytes (None when null)
        if state is not None and name is not None:
            desc = state.driver._consts.get((name.decode(), code))  # noqa: SLF001
            if desc is not None and desc.rank == rank:
                desc.write_struct(slots[4])
                return
        generic(exec_ctx, slots)  # loads the constant (or reports why not)

    return invoke


def _fast_launch(generic: Any) -> Any:
    read_i64 = _I64C.from_address
    read_u64 = _U64.from_address
    read_i32 = _I32C.from_address
    read_str = ctypes.c_char_p.from_address

    def invoke(exec_ctx: ExecutionContext, slots: Any) -> None:
        state = exec_ctx.driver_state.get(DRIVER_NAME)
        if state is None:
            generic(exec_ctx, slots)
            return
        a = slots[1:_LAUNCH_SLOTS]
        blobs = read_u64(a[0]).value
        num_blobs = read_i64(a[1]).value
        dims = [read_i64(x).value for x in a[3:9]]  # grid x, y, z, block x, y, z
        shared_mem = read_i32(a[9]).value
        num_args = read_i32(a[11]).value
        params = read_u64(a[12]).value
        fn = None
        if (
            not read_u64(a[10]).value  # stream index 0
            and blobs
            and num_blobs > 0
            and (params or not num_args)
            and 0 <= shared_mem
            and 0 < min(dims)
            and max(dims) <= UINT32_MAX
        ):
            name = read_str(a[2]).value  # the kernel name's bytes (None when null)
            if name is not None:
                blob_key: Any = (
                    read_u64(blobs).value
                    if num_blobs == 1
                    else tuple((_U64 * num_blobs).from_address(blobs))
                )
                fn = state.driver.modules.launch_cache.get((blob_key, name))
        if fn is None:
            generic(exec_ctx, slots)  # checks, loads the module, fills the cache
            return
        driver = state.driver
        driver.backend.launch(
            fn,
            (dims[0], dims[1], dims[2]),
            (dims[3], dims[4], dims[5]),
            shared_mem,
            driver.stream,
            params,
        )

    return invoke


def _install_fast_invokers() -> None:
    def entries(fn: Any, registry: ApiRegistry) -> list[Any]:
        found = [registry.find(n) for n in fn.ral_api_names]
        return [e for e in found if e is not None and e.python_function is fn]

    for entry in entries(ral_cuda_recv_input, CUDA_IO_REGISTRY):
        b = entry.bindings
        dtype = np.dtype(SCALAR_TYPES[b["T"]][0])
        entry.invoke = _fast_recv_input(entry.invoke, dtype, b["N"])
    for entry in entries(ral_cuda_send_output, CUDA_IO_REGISTRY):
        b = entry.bindings
        entry.invoke = _fast_send_output(entry.invoke, ScalarType(b["T"]), b["N"])
    for entry in entries(ral_gpu_alloc, GLOBAL_REGISTRY):
        entry.invoke = _with_cuda_state(entry.invoke, _alloc_into_slots)
    for entry in entries(ral_gpu_dealloc, GLOBAL_REGISTRY):
        entry.invoke = _with_cuda_state(entry.invoke, _dealloc_from_slots)
    for entry in entries(ral_gpu_const, GLOBAL_REGISTRY):
        b = entry.bindings
        entry.invoke = _fast_const(entry.invoke, b["T"], b["N"])
    for entry in entries(ral_gpu_kernel_launch, GLOBAL_REGISTRY):
        entry.invoke = _fast_launch(entry.invoke)


_install_fast_invokers()
