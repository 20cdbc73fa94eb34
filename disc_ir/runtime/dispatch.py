"""``disc_ral_call``: the one C symbol compiled code calls into the runtime.

``void disc_ral_call(void* ctx, const char* api_name, void** args)`` is a ctypes
callback; its address is given to LLVM (``llvmlite.binding.add_symbol``) so
code JIT-compiled afterwards resolves the symbol to it. ``ctx`` is an
execution-context handle, ``api_name`` an encoded name looked up in the RAL
context's registry (cached per context), ``args`` the slot array the entry
decodes.

Errors never unwind through compiled code: an exception raised by an API is
recorded on the execution context (the first one wins), the call's result
slots are zero-filled, later calls whose entries are ``skip_on_error`` (kernel
launches, library calls) are skipped, and the error is raised when the entry
function returns. Unknown names starting with ``ral_debug`` are ignored, as in
BladeDISC.

The symbol compiled code binds to is normally the native dispatcher of
:mod:`disc_ir.runtime.native`, which runs CPU kernel launches itself and
forwards every other call here.
"""

from __future__ import annotations

import ctypes
import sys
import threading
from typing import Any

from disc_ir.runtime.abi import RalAbiError, decode_ral_api_name, num_arg_slots
from disc_ir.runtime.context import _HANDLES, RalError, execution_context_from_handle
from disc_ir.runtime.registry import ApiEntry, UnknownRalApiError, zero_results

DISC_RAL_CALL = "disc_ral_call"

DISC_RAL_CALL_TYPE = ctypes.CFUNCTYPE(
    None, ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)
)
ENTRY_TYPE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def _zero_fill_by_name(name: str, slots: Any) -> None:
    try:
        _, _, arg_types, result_types = decode_ral_api_name(name)
    except RalAbiError:
        return
    zero_results(slots, num_arg_slots(arg_types), result_types)


def _lookup(exec_ctx: Any, name: bytes) -> tuple[ApiEntry, int]:
    """The entry for ``name`` and the index of its first result slot (cached per context)."""
    cache: dict[bytes, tuple[ApiEntry, int]] = exec_ctx.context.api_cache
    found = cache.get(name)
    if found is None:
        entry = exec_ctx.context.registry.lookup(name.decode())
        found = cache[name] = (entry, num_arg_slots(entry.arg_types))
    return found


def dispatch(ctx: int | None, api_name: bytes, slots: Any) -> None:
    """Runs the API ``api_name`` for the execution context with handle ``ctx``."""
    exec_ctx = _HANDLES.get(ctx or 0)
    if exec_ctx is None:
        try:
            exec_ctx = execution_context_from_handle(ctx)
        except RalError as err:
            # Nowhere to record it: report and leave the results untouched.
            print(f"disc_ral_call({api_name!r}): {err}", file=sys.stderr)
            return
    found = exec_ctx.context.api_cache.get(api_name)
    if found is None:
        try:
            found = _lookup(exec_ctx, api_name)
        except UnknownRalApiError as err:
            if api_name.startswith(b"ral_debug"):
                return
            exec_ctx.signal_error(err)
            _zero_fill_by_name(api_name.decode(errors="replace"), slots)
            return
    entry, first_result = found
    if exec_ctx.error is not None and entry.skip_on_error:
        zero_results(slots, first_result, entry.result_types)
        return
    try:
        entry.invoke(exec_ctx, slots)
    except BaseException as err:  # noqa: BLE001 - must not unwind into native code
        exec_ctx.signal_error(err)
        zero_results(slots, first_result, entry.result_types)


#: The C-callable ``disc_ral_call``; keep a reference so it is never collected.
DISC_RAL_CALL_CFUNC = DISC_RAL_CALL_TYPE(dispatch)
DISC_RAL_CALL_ADDRESS: int = ctypes.cast(DISC_RAL_CALL_CFUNC, ctypes.c_void_p).value or 0

_registered = False
_register_lock = threading.Lock()


def register_symbols() -> None:
    """Makes ``disc_ral_call`` resolvable by code LLVM JIT-compiles in this process.

    The symbol resolves to the native dispatcher (:mod:`disc_ir.runtime.native`:
    CPU kernel launches without Python, every other call forwarded to
    :data:`DISC_RAL_CALL_CFUNC`), or to that Python callback itself when the
    native runtime cannot be built or ``DISC_RAL_NATIVE=0``.
    """
    global _registered
    with _register_lock:
        if _registered:
            return
        import llvmlite.binding as llvm

        from disc_ir.runtime.native import native_enabled, native_runtime

        global _symbol_address
        runtime = native_runtime(DISC_RAL_CALL_ADDRESS) if native_enabled() else None
        address = runtime.dispatch_address if runtime is not None else DISC_RAL_CALL_ADDRESS
        llvm.add_symbol(DISC_RAL_CALL, address)
        _symbol_address = address
        _registered = True


_symbol_address = 0


def symbol_address() -> int:
    """The address ``disc_ral_call`` resolves to (native or Python dispatcher)."""
    register_symbols()
    return _symbol_address


_ENTRY_CACHE: dict[int, Any] = {}


def call_entry(address: int, handle: int) -> None:
    """Calls ``void entry(void* ctx)`` at ``address`` (the GIL is released meanwhile)."""
    cfunc = _ENTRY_CACHE.get(address)
    if cfunc is None:
        cfunc = _ENTRY_CACHE.setdefault(address, ENTRY_TYPE(address))
    cfunc(handle)


def _pack_value(rtype: Any, value: Any, exec_ctx: Any, keep: list[Any]) -> list[int]:
    """Addresses of freshly stored fields holding ``value`` as an operand of ``rtype``."""
    import numpy as np

    from disc_ir.runtime.abi import MemRefType, PointerType
    from disc_ir.runtime.context import ExecutionContext
    from disc_ir.runtime.memref import MemRefDescriptor
    from disc_ir.runtime.registry import write_scalar

    if isinstance(rtype, MemRefType):
        if isinstance(value, np.ndarray):
            keep.append(value)
            value = MemRefDescriptor.from_array(value, rtype.element)
        words: list[ctypes.c_uint64 | ctypes.c_int64] = [
            ctypes.c_uint64(value.allocated),
            ctypes.c_uint64(value.aligned),
        ]
        words.append(ctypes.c_int64(value.offset))
        words += [ctypes.c_int64(s) for s in value.sizes]
        words += [ctypes.c_int64(s) for s in value.strides]
        keep.extend(words)
        return [ctypes.addressof(w) for w in words]
    if isinstance(rtype, PointerType):
        if isinstance(value, ExecutionContext):
            value = value.handle
        elif isinstance(value, str | bytes):
            buf = ctypes.create_string_buffer(value.encode() if isinstance(value, str) else value)
            keep.append(buf)
            value = ctypes.addressof(buf)
        cell = ctypes.c_uint64(int(value or 0))
        keep.append(cell)
        return [ctypes.addressof(cell)]
    scalar_cell = ctypes.create_string_buffer(8)
    keep.append(scalar_cell)
    write_scalar(ctypes.addressof(scalar_cell), rtype.code, value)
    return [ctypes.addressof(scalar_cell)]


def call_api(exec_ctx: Any, name: str, *args: Any) -> Any:
    """Calls API ``name`` from Python as compiled code would (BladeDISC's ``DriverApiWrapper``).

    ``args`` are the operands including the context (an ExecutionContext, ndarray or
    MemRefDescriptor for memrefs, ints for pointers, str for ``const char*``). Returns
    None, the single result, or a tuple (memrefs as MemRefDescriptor). An error the
    call signals is raised.
    """
    from disc_ir.runtime.abi import MemRefType, PointerType
    from disc_ir.runtime.memref import MemRefDescriptor
    from disc_ir.runtime.registry import read_scalar

    _, _, arg_types, result_types = decode_ral_api_name(name)
    if len(args) != len(arg_types):
        raise TypeError(f"{name} takes {len(arg_types)} operands, got {len(args)}")
    keep: list[Any] = []
    addresses: list[int] = []
    for rtype, value in zip(arg_types, args, strict=True):
        addresses += _pack_value(rtype, value, exec_ctx, keep)
    result_cells = [ctypes.create_string_buffer(max(8, r.byte_size)) for r in result_types]
    addresses += [ctypes.addressof(c) for c in result_cells]
    slots = (ctypes.c_void_p * max(1, len(addresses)))(*addresses)
    previous = exec_ctx.error
    dispatch(exec_ctx.handle, name.encode(), ctypes.cast(slots, ctypes.POINTER(ctypes.c_void_p)))
    if exec_ctx.error is not None and exec_ctx.error is not previous:
        raise exec_ctx.error
    results: list[Any] = []
    for rtype, cell in zip(result_types, result_cells, strict=True):
        address = ctypes.addressof(cell)
        if isinstance(rtype, MemRefType):
            results.append(MemRefDescriptor.read_struct(address, rtype))
        elif isinstance(rtype, PointerType):
            results.append(ctypes.c_uint64.from_address(address).value)
        else:
            results.append(read_scalar(address, rtype.code))
    if not results:
        return None
    return results[0] if len(results) == 1 else tuple(results)
