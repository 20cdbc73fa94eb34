"""CUDA kernel images and launch arguments, as ``ral_kernel_launch`` receives them.

A kernel blob is a fatbin, a 64-bit ELF cubin or NUL-terminated PTX text at an
address the compiled code passes; :func:`blob_extent` finds its size (the
CUDA driver loads each image once per context, keyed by its bytes).
:func:`pack_kernel_args` builds the ``void**`` argument array ``cuLaunchKernel``
takes.
"""

from __future__ import annotations

import ctypes
import struct
from collections.abc import Sequence
from typing import Any

from disc_ir.runtime.abi import SCALAR_TYPES
from disc_ir.runtime.context import RalError

FATBIN_MAGIC = 0xBA55ED50
ELF_MAGIC = b"\x7fELF"


def blob_extent(address: int) -> int:
    """The size in bytes of the kernel image at ``address``.

    A fatbin (``0xBA55ED50`` header: magic, version, header size, fat size) and
    a 64-bit ELF cubin (the furthest of its section and program header tables
    and section contents) say their size; anything else is PTX text, ended by
    its NUL.
    """
    if not address:
        raise RalError("ral_kernel_launch: null kernel blob")
    head = ctypes.string_at(address, 4)
    if struct.unpack("<I", head)[0] == FATBIN_MAGIC:
        _, _, header_size, fat_size = struct.unpack("<IHHQ", ctypes.string_at(address, 16))
        return header_size + fat_size
    if head == ELF_MAGIC:
        header = ctypes.string_at(address, 64)
        if header[4] != 2:
            raise RalError("ral_kernel_launch: only 64-bit ELF cubins are supported")
        phoff, shoff = struct.unpack_from("<QQ", header, 0x20)
        phentsize, phnum, shentsize, shnum = struct.unpack_from("<HHHH", header, 0x36)
        end = max(64, phoff + phentsize * phnum, shoff + shentsize * shnum)
        for i in range(shnum):
            entry = ctypes.string_at(address + shoff + i * shentsize, shentsize)
            sh_type = struct.unpack_from("<I", entry, 4)[0]
            sh_offset, sh_size = struct.unpack_from("<QQ", entry, 0x18)
            if sh_type != 8:  # SHT_NOBITS occupies no file bytes
                end = max(end, sh_offset + sh_size)
        return end
    return len(ctypes.string_at(address))


def blob_image(address: int) -> bytes:
    """The bytes of the kernel image at ``address`` (PTX without its NUL)."""
    return ctypes.string_at(address, blob_extent(address))


def pack_kernel_args(args: Sequence[tuple[str, Any]]) -> tuple[int, list[Any]]:
    """A ``void*`` array pointing at each argument, as ``cuLaunchKernel`` takes it.

    ``args`` are ``(code, value)`` with ``code`` a scalar type code (``"i32"``,
    ``"f32"``...) or ``"ptr"`` for a device pointer. Returns the array's
    address and the objects to keep alive until the launch is enqueued.
    """
    from disc_ir.runtime.registry import write_scalar

    keep: list[Any] = []
    addresses = []
    for code, value in args:
        if code == "ptr":
            cell: Any = ctypes.c_uint64(int(value or 0))
        elif code in SCALAR_TYPES:
            cell = ctypes.create_string_buffer(8)
            write_scalar(ctypes.addressof(cell), code, value)
        else:
            raise RalError(f"pack_kernel_args: unknown argument type '{code}'")
        keep.append(cell)
        addresses.append(ctypes.addressof(cell))
    array = (ctypes.c_void_p * max(1, len(addresses)))(*addresses)
    keep.append(array)
    return ctypes.addressof(array), keep
