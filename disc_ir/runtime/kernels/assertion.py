"""Run-time checks the compiled code reports through the RAL.

``ral_shape_assertion`` (``ral_shape_assertion___cpu___pvoid_pvoid_m0di1_m1di64_pvoid___void``)
is what a jax.export ``shape_assertion`` custom call becomes
(``disc_ir.frontends.stablehlo``): a host ``custom_call_v2`` whose operands are
the predicate (``memref<i1>``) and the assertion's values (``memref<?xi64>``),
its ``custom_attrs`` (``{error_message = "..."}``, serialized as BladeDISC
serializes custom-call attributes) passed as the trailing pointer. When the
predicate is false it signals :class:`ShapeAssertionError` on the execution
context, carrying the message formatted with the values as JAX formats it
(``message.format(*values)``); the call then raises it to the Python caller.

:func:`decode_custom_attrs` reads the serialized attributes (the inverse of
``disc_lower_to_library_call.serialize_custom_attrs``) from memory.
"""

from __future__ import annotations

import ctypes
import struct
from typing import Any

from disc_ir.runtime.context import RalError
from disc_ir.runtime.memref import numpy_view
from disc_ir.runtime.registry import I1, I64, Ctx, MemRef, PVoid, ral_api


class ShapeAssertionError(RalError, ValueError):
    """A shape assertion of the compiled graph failed for the given inputs."""


class _Reader:
    def __init__(self, address: int):
        self.address = address
        self.offset = 0

    def take(self, n: int) -> bytes:
        data = ctypes.string_at(self.address + self.offset, n)
        self.offset += n
        return data

    def unpack(self, fmt: str) -> Any:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def string(self) -> bytes:
        return self.take(self.unpack("<q"))


def _decode(reader: _Reader, depth: int = 0) -> Any:
    if depth > 32:
        raise RalError("custom attributes nested too deeply")
    kind = reader.string()
    if kind == b"dict":
        count = reader.unpack("<q")
        out: dict[str, Any] = {}
        for _ in range(count):
            key = reader.string().decode("utf-8")
            out[key] = _decode(reader, depth + 1)
        return out
    if kind == b"str":
        return reader.string().decode("utf-8", "replace")
    if kind == b"int":
        return reader.unpack("<q")
    if kind == b"bool":
        return reader.unpack("<?")
    if kind == b"float":
        return reader.unpack("<d")
    if kind == b"intArray":
        return [reader.unpack("<q") for _ in range(reader.unpack("<q"))]
    if kind == b"array":
        return [_decode(reader, depth + 1) for _ in range(reader.unpack("<q"))]
    raise RalError(f"custom attributes of kind {kind!r} are not supported here")


def decode_custom_attrs(address: int) -> Any:
    """The custom-call attributes serialized at ``address`` (dicts, strings,
    ints, bools, floats, int arrays, arrays)."""
    if not address:
        return {}
    return _decode(_Reader(address))


def format_assertion_message(message: str, values: list[int]) -> str:
    """``message`` with its ``{0}``, ``{1}``... replaced by ``values`` (as JAX does)."""
    try:
        return message.format(*values)
    except (IndexError, KeyError, ValueError):
        return f"{message} (values: {', '.join(str(v) for v in values)})"


@ral_api("ral_shape_assertion", "cpu", skip_on_error=True)
def ral_shape_assertion(
    ctx: Ctx,
    stream: PVoid,
    pred: MemRef[0, I1],
    values: MemRef[1, I64],
    attrs: PVoid,
) -> None:
    """Signals ShapeAssertionError with the formatted message unless ``pred`` holds."""
    if bool(numpy_view(pred, readonly=True).reshape(())):
        return
    decoded = decode_custom_attrs(attrs)
    message = decoded.get("error_message", "") if isinstance(decoded, dict) else ""
    numbers = [int(v) for v in numpy_view(values, readonly=True)]
    raise ShapeAssertionError(
        format_assertion_message(message or "shape assertion failed", numbers)
    )


__all__ = [
    "ShapeAssertionError",
    "decode_custom_attrs",
    "format_assertion_message",
    "ral_shape_assertion",
]
