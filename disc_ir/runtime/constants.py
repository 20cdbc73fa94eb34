"""Constants of a compiled module, read from its RAL metadata file.

The compiler (``disc-const-to-ral``) replaces each host constant by a call
``ral_const(ctx, stream, unique_name, unique_index)`` and writes the bytes to a
metadata file. ``unique_name`` is ``<md5 hex>_<i|f><bits>_<d0>x<d1>...`` (the
md5 of the hex-encoded data, the element type, the static shape); the file maps
the md5 to ``(dtype, shape, bytes)`` through
``disc_ir.runtime.ral_metadata.read_metadata`` (stdlib + numpy only, so a saved
artifact loads without the compiler). Data shorter than the shape needs is a
splat and is repeated, as in BladeDISC.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from disc_ir.runtime.abi import SCALAR_TYPES

#: md5 key -> (dtype code, shape, data); the data are ``bytes`` or, for a loaded
#: artifact, a ``memoryview`` of its mapped constants
ConstTable = dict[str, tuple[str, tuple[int, ...], bytes | memoryview]]
MetadataReader = Callable[[str], ConstTable]


class RalConstantError(LookupError):
    """A constant the compiled code asks for is missing or malformed."""


def default_metadata_reader() -> MetadataReader:
    """``disc_ir.runtime.ral_metadata.read_metadata`` (imported lazily)."""
    try:
        from disc_ir.runtime.ral_metadata import read_metadata
    except ImportError as err:  # pragma: no cover - depends on the checkout
        raise RalConstantError(
            "cannot read RAL metadata files: disc_ir.runtime.ral_metadata is not available"
        ) from err
    return read_metadata


def load_metadata_file(path: str, reader: MetadataReader | None = None) -> ConstTable:
    """Reads the constants table of the metadata file at ``path``."""
    return (reader or default_metadata_reader())(path)


@dataclass(frozen=True)
class ConstName:
    """A parsed ``ral_const`` unique name."""

    md5: str
    type_tag: str | None
    shape: tuple[int, ...] | None

    @property
    def width_in_bytes(self) -> int | None:
        """Element width from the type tag (``f32`` -> 4; ``i1`` -> 1)."""
        if not self.type_tag:
            return None
        return max(1, int(self.type_tag[1:]) // 8)


def parse_const_name(name: str) -> ConstName:
    """Splits ``<md5>_<type>_<shape>``; a bare md5 is accepted too."""
    parts = name.split("_")
    if len(parts) == 1:
        return ConstName(parts[0], None, None)
    if len(parts) != 3 or not parts[1] or parts[1][0] not in "if":
        raise RalConstantError(f"unexpected const unique_name format '{name}'")
    try:
        shape = tuple(int(d) for d in parts[2].split("x")) if parts[2] else ()
        int(parts[1][1:])
    except ValueError as err:
        raise RalConstantError(f"unexpected const unique_name format '{name}'") from err
    return ConstName(parts[0], parts[1], shape)


def _dtype_of(dtype: str) -> np.dtype:
    if dtype in SCALAR_TYPES:
        return np.dtype(SCALAR_TYPES[dtype][0])
    return np.dtype(dtype)


def constant_view(
    name: str, table: ConstTable, element_dtype: np.dtype, rank: int
) -> np.ndarray | None:
    """The constant ``name`` read in place from its table's buffer (a saved
    artifact's mapped constants), or None when it cannot be: the data are
    ``bytes`` (a compile's own table), a splat, or not aligned for
    ``element_dtype``. Checks as :func:`materialize_constant` does."""
    parsed = parse_const_name(name)
    item = table.get(parsed.md5, table.get(name))
    if item is None or not isinstance(item[2], memoryview):
        return None
    table_dtype, table_shape, data = item
    assert isinstance(data, memoryview)
    shape = parsed.shape if parsed.shape is not None else tuple(table_shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * element_dtype.itemsize
    if (
        len(shape) != rank
        or _dtype_of(table_dtype).itemsize != element_dtype.itemsize
        or len(data) != nbytes
        or nbytes == 0
    ):
        return None
    array = np.frombuffer(data, dtype=element_dtype).reshape(shape)
    if array.ctypes.data % element_dtype.alignment:
        return None
    return array


def materialize_constant(
    name: str, table: ConstTable, element_dtype: np.dtype, rank: int
) -> np.ndarray:
    """The constant ``name`` as a fresh C-contiguous array of ``element_dtype``.

    Checks rank and element width against what the compiled code expects and
    expands a splat.
    """
    parsed = parse_const_name(name)
    item = table.get(parsed.md5, table.get(name))
    if item is None:
        raise RalConstantError(f"const unique_name {name} not found in metadata file")
    table_dtype, table_shape, data = item
    shape = parsed.shape if parsed.shape is not None else tuple(table_shape)
    if len(shape) != rank:
        raise RalConstantError(
            f"const {name}: the compiled code expects rank {rank}, the constant has shape {shape}"
        )
    # The table is keyed by the MD5 of the bytes: constants of other types whose
    # bytes are the same (all-zero data, empty ones) share an entry, so the entry's
    # dtype may differ from the one asked for; the bytes are what count.
    count = int(np.prod(shape, dtype=np.int64))
    nbytes = count * element_dtype.itemsize
    raw = np.frombuffer(bytes(data), dtype=np.uint8)
    if raw.size != nbytes:
        # a splat stores one element
        if raw.size != element_dtype.itemsize:
            raise RalConstantError(
                f"const {name}: {raw.size} bytes of {table_dtype} data for {element_dtype} "
                f"elements of shape {shape} ({nbytes} bytes)"
            )
        raw = np.tile(raw, count)
    return raw.copy().view(element_dtype).reshape(shape)
