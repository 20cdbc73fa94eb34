"""The RAL call ABI: type codes, encoded API names and argument slot layout.

Every runtime call that compiled code makes goes through one C symbol,
``void disc_ral_call(void* ctx, const char* api_name, void** args)``. The
``api_name`` says what ``args`` holds, in BladeDISC's encoding (``TAO_RAL_API``
on the runtime side, ``getDispatchOpSignatureEncoding`` on the compiler side)::

    api_name = "___".join([target, device, "_".join(arg codes), "_".join(result codes)])

with ``"void"`` standing for an empty result list. Type codes:

* scalars ``i1 ui8 i8 ui16 i16 bf16 f16 ui32 i32 i64 f32 f64`` (plus ``ui64``,
  which the compiler's encoder emits for unsigned 64-bit integers);
* ``pvoid`` for a context or any raw pointer, ``p`` + T for a pointer to T
  (``ppvoid`` is ``void**``);
* ``m{N}d{T}`` for a memref of rank N and element type T (``m2df32``).

Slot layout of ``args``: a memref operand takes ``3 + 2N`` slots (allocated
pointer, aligned pointer, offset, sizes[N], strides[N]); any other operand one
slot; then one slot per result, a memref result being one descriptor struct.
Slot ``i`` holds the *address* of the value.

This module is pure Python (no numpy, no xDSL) so both the compiler and a
loaded artifact can use it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

SEPARATOR = "___"
TYPE_SEPARATOR = "_"

#: Host functions named ``<prefix>call.<api_name>`` / ``<prefix>launch.<kernel>``
#: hold one RAL call's argument packing and its ``disc_ral_call``, shared by
#: every call of that signature (``disc-to-llvm{outline-ral-calls=true}``);
#: backends compile them with the entry, as host code.
HOST_GLUE_PREFIX = "__disc_ral."

#: Bytes every device buffer a GPU kernel is launched with is aligned to: the
#: compiler tells LLVM so (``{llvm.align = 16}`` on each memref argument's
#: aligned pointer, which lets it use vector loads and stores); the CUDA driver
#: guarantees it (its blocks come from ``cuMemAlloc``; a caller's GPU array at
#: another alignment is read from an aligned copy).
KERNEL_BUFFER_ALIGNMENT = 16

#: Scalar type code -> (numpy dtype name used for storage, size in bytes).
#: ``bf16`` has no numpy dtype; its 16-bit patterns are stored as ``uint16``.
SCALAR_TYPES: dict[str, tuple[str, int]] = {
    "i1": ("bool", 1),
    "ui8": ("uint8", 1),
    "i8": ("int8", 1),
    "ui16": ("uint16", 2),
    "i16": ("int16", 2),
    "bf16": ("uint16", 2),
    "f16": ("float16", 2),
    "ui32": ("uint32", 4),
    "i32": ("int32", 4),
    "ui64": ("uint64", 8),
    "i64": ("int64", 8),
    "f32": ("float32", 4),
    "f64": ("float64", 8),
}

#: The type codes the RAL type-name helper defines, in its order.
TYPE_CODES: tuple[str, ...] = (
    "i1",
    "ui8",
    "i8",
    "ui16",
    "i16",
    "bf16",
    "f16",
    "ui32",
    "i32",
    "i64",
    "f32",
    "f64",
    "void",
)

POINTER_SIZE = 8


class RalAbiError(ValueError):
    """An API name or type code that does not follow the RAL encoding."""


@dataclass(frozen=True)
class RalType:
    """Base class of the types that can cross the RAL ABI."""

    @property
    def code(self) -> str:  # pragma: no cover - overridden
        raise NotImplementedError

    @property
    def num_slots(self) -> int:
        """How many ``args`` slots an operand of this type occupies."""
        return 1

    @property
    def byte_size(self) -> int:
        """Size in bytes of the value (a memref: of its descriptor struct)."""
        return POINTER_SIZE

    def __str__(self) -> str:
        return self.code


@dataclass(frozen=True)
class ScalarType(RalType):
    """A scalar (``i32``, ``f16``, ...) or ``void`` (only as a pointee or no result)."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in SCALAR_TYPES and self.name != "void":
            raise RalAbiError(f"unknown RAL scalar type code '{self.name}'")

    @property
    def code(self) -> str:
        return self.name

    @property
    def is_void(self) -> bool:
        return self.name == "void"

    @property
    def numpy_dtype_name(self) -> str:
        """The numpy dtype that stores this scalar (``bf16`` is stored as ``uint16``)."""
        if self.is_void:
            raise RalAbiError("void has no storage type")
        return SCALAR_TYPES[self.name][0]

    @property
    def byte_size(self) -> int:
        if self.is_void:
            return 0
        return SCALAR_TYPES[self.name][1]


@dataclass(frozen=True)
class PointerType(RalType):
    """A pointer to ``pointee``; ``PointerType(VOID)`` is ``pvoid``."""

    pointee: RalType

    @property
    def code(self) -> str:
        return "p" + self.pointee.code


@dataclass(frozen=True)
class MemRefType(RalType):
    """A memref of ``rank`` dimensions and element type ``element``."""

    rank: int
    element: ScalarType

    def __post_init__(self) -> None:
        if self.rank < 0:
            raise RalAbiError(f"negative memref rank {self.rank}")
        if self.element.is_void:
            raise RalAbiError("a memref element type cannot be void")

    @property
    def code(self) -> str:
        return f"m{self.rank}d{self.element.code}"

    @property
    def num_slots(self) -> int:
        return 3 + 2 * self.rank

    @property
    def byte_size(self) -> int:
        return 8 * (3 + 2 * self.rank)


VOID = ScalarType("void")
PVOID = PointerType(VOID)

_MEMREF_RE = re.compile(r"m(\d+)d([a-z0-9]+)")


def scalar(code: str) -> ScalarType:
    """The scalar type with code ``code`` (``"f32"``)."""
    return ScalarType(code)


def memref(rank: int, element: str | ScalarType) -> MemRefType:
    """The memref type of ``rank`` and ``element`` (a code or a ScalarType)."""
    elem = element if isinstance(element, ScalarType) else ScalarType(element)
    return MemRefType(rank, elem)


def pointer(pointee: str | RalType) -> PointerType:
    """A pointer to ``pointee`` (a code or a RalType)."""
    return PointerType(parse_type_code(pointee) if isinstance(pointee, str) else pointee)


def parse_type_code(code: str) -> RalType:
    """Parses one type code (``"m2df32"``, ``"pvoid"``, ``"ppvoid"``, ``"i1"``)."""
    if not code:
        raise RalAbiError("empty RAL type code")
    if code in SCALAR_TYPES or code == "void":
        return ScalarType(code)
    match = _MEMREF_RE.fullmatch(code)
    if match is not None:
        elem = match.group(2)
        if elem not in SCALAR_TYPES:
            raise RalAbiError(f"unknown memref element type '{elem}' in RAL type code '{code}'")
        return MemRefType(int(match.group(1)), ScalarType(elem))
    if code.startswith("p"):
        try:
            return PointerType(parse_type_code(code[1:]))
        except RalAbiError as err:
            raise RalAbiError(f"unknown RAL type code '{code}'") from err
    raise RalAbiError(f"unknown RAL type code '{code}'")


def _as_type(t: RalType | str) -> RalType:
    return parse_type_code(t) if isinstance(t, str) else t


def encode_type_list(types: Sequence[RalType | str]) -> str:
    """Joins the codes of ``types`` with ``_``."""
    return TYPE_SEPARATOR.join(_as_type(t).code for t in types)


def encode_ral_api_name(
    target: str,
    device: str,
    arg_types: list[RalType | str] | tuple[RalType | str, ...],
    result_types: list[RalType | str] | tuple[RalType | str, ...] = (),
) -> str:
    """The encoded name ``target___device___<args>___<results or void>``.

    ``arg_types`` includes the leading context argument (``pvoid``), as in
    BladeDISC. A void result may be given as ``()`` or ``("void",)``.
    """
    if SEPARATOR in target or SEPARATOR in device or not target or not device:
        raise RalAbiError(f"invalid RAL api target/device '{target}'/'{device}'")
    results = [r for r in (_as_type(t) for t in result_types) if r != VOID]
    result_code = encode_type_list(results) if results else "void"
    return SEPARATOR.join([target, device, encode_type_list(arg_types), result_code])


def decode_type_list(text: str) -> tuple[RalType, ...]:
    """Inverse of :func:`encode_type_list` (``""`` -> ``()``)."""
    if not text:
        return ()
    return tuple(parse_type_code(code) for code in text.split(TYPE_SEPARATOR))


def decode_ral_api_name(
    name: str,
) -> tuple[str, str, tuple[RalType, ...], tuple[RalType, ...]]:
    """Splits an encoded API name into ``(target, device, arg_types, result_types)``.

    ``result_types`` is ``()`` for ``void``. Raises :class:`RalAbiError` on a
    name that does not follow the encoding.
    """
    parts = name.rsplit(SEPARATOR, 3)
    if len(parts) != 4 or not parts[0] or not parts[1]:
        raise RalAbiError(
            f"'{name}' is not an encoded RAL api name (target___device___args___results)"
        )
    target, device, args, results = parts
    try:
        arg_types = decode_type_list(args)
        result_types = () if results == "void" else decode_type_list(results)
    except RalAbiError as err:
        raise RalAbiError(f"in RAL api name '{name}': {err}") from err
    if any(t == VOID for t in arg_types + result_types):
        raise RalAbiError(f"in RAL api name '{name}': void used as a value type")
    return target, device, arg_types, result_types


def num_arg_slots(arg_types: tuple[RalType, ...] | list[RalType]) -> int:
    """Number of ``args`` slots the operands take (results not counted)."""
    return sum(t.num_slots for t in arg_types)
