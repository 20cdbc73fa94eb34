"""The RAL metadata file: the constants `disc-const-to-ral` takes out of a module.

BladeDISC writes the contents of every `lmhlo.constant` it replaces by a
`ral_const` call to a metadata file that the runtime loads once per RAL
context. This module defines disc-ir's file format, its writer and its reader.
Reading needs only the standard library (numpy is not even needed), so a
saved artifact loads without the compiler or xDSL.

Each entry describes one constant:

- `key`: the MD5 hex digest (32 lowercase hex digits) of the hex-encoded raw
  data, BladeDISC's hash (`md5(toHex(rawData))`);
- `name`: the full unique name the compiled code passes to `ral_const`,
  `<md5>_<i|f><bits>_<d0>x<d1>...` (`<md5>_f32_100x100`; a 0-d constant ends
  with `_`);
- `device`: `cpu` or `gpu`, and `index`, its position among the constants of
  that device (the `const_idx` operand of the `ral_const` call);
- `dtype`: the RAL type code of the element type (`f32`, `bf16`, `i1`,
  `ui8`, `i64`, ...; `index` is stored as `i64`, `i1` one byte per element);
- `shape`: the static shape;
- `data`: the raw little-endian bytes. As in MLIR's raw data, a splat (all
  elements equal) holds ONE element: data shorter than the shape needs must
  be repeated by the reader.

Binary layout (little-endian):

    magic      8 bytes  b"DISCRALM"
    version    u32      1
    count      u32      number of entries
    entry * count:
      key      u32 length + UTF-8 bytes
      name     u32 length + UTF-8 bytes
      device   u8       0 = cpu, 1 = gpu
      index    u32
      dtype    u8 length + ASCII bytes
      rank     u32, then rank * i64 dims
      data     u64 length + bytes
    trailer    8 bytes  b"DISCEND\\0"

`read_metadata(path)` returns `{key: (dtype, shape, data)}` (an MD5 key names
the same bytes whatever the device; the first entry wins);
`read_metadata_entries(path)` returns every entry.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

MAGIC = b"DISCRALM"
TRAILER = b"DISCEND\0"
VERSION = 1
DEVICES = ("cpu", "gpu")


class MetadataFormatError(ValueError):
    """A metadata file that is not in the format above."""


@dataclass(frozen=True)
class MetadataEntry:
    """One constant of a metadata file (see the module docstring)."""

    key: str
    name: str
    device: str
    index: int
    dtype: str
    shape: tuple[int, ...]
    #: the bytes (a memoryview when they are a view of a resource blob)
    data: bytes | memoryview


#: bytes hex-encoded at a time when hashing (the hex of a large weight is never built whole)
_MD5_CHUNK = 1 << 20


def const_md5(data: bytes | memoryview) -> str:
    """BladeDISC's constant hash: the MD5 hex digest of the hex encoding of `data`.

    (llvm::toHex writes uppercase hex digits; the digest itself is lowercase.)
    """
    view = memoryview(data).cast("B")
    digest = hashlib.md5()
    for start in range(0, len(view), _MD5_CHUNK):
        digest.update(view[start : start + _MD5_CHUNK].hex().upper().encode("ascii"))
    return digest.hexdigest()


def const_unique_name(md5: str, type_tag: str, shape: Iterable[int]) -> str:
    """`<md5>_<type_tag>_<d0>x<d1>...` (BladeDISC's GenerateUniqueNameForConst)."""
    return f"{md5}_{type_tag}_" + "x".join(str(d) for d in shape)


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _pack_str(text: str, width: str = "<I") -> bytes:
    raw = text.encode("utf-8")
    return struct.pack(width, len(raw)) + raw


def _encoded_parts(items: list[MetadataEntry]) -> Iterable[bytes | memoryview]:
    """The pieces of the file holding `items`: each entry's data as given (not copied)."""
    yield MAGIC + struct.pack("<II", VERSION, len(items))
    for e in items:
        if e.device not in DEVICES:
            raise ValueError(f"metadata entry {e.name}: unknown device '{e.device}'")
        data = memoryview(e.data).cast("B")
        yield b"".join(
            (
                _pack_str(e.key),
                _pack_str(e.name),
                struct.pack("<BI", DEVICES.index(e.device), e.index),
                _pack_str(e.dtype, "<B"),
                struct.pack("<I", len(e.shape)),
                struct.pack(f"<{len(e.shape)}q", *e.shape),
                struct.pack("<Q", len(data)),
            )
        )
        yield data
    yield TRAILER


def encode_metadata(entries: Iterable[MetadataEntry]) -> bytes:
    """The bytes of a metadata file holding `entries` (in order)."""
    return b"".join(_encoded_parts(list(entries)))


def write_metadata(
    path: str,
    entries: Iterable[MetadataEntry] | Mapping[str, tuple[str, tuple[int, ...], bytes]],
) -> None:
    """Write a metadata file at `path`.

    `entries` are `MetadataEntry`s, or a mapping `key -> (dtype, shape, data)`
    (then every entry is a host constant named by its key, indexed in order).
    """
    if isinstance(entries, Mapping):
        items = [
            MetadataEntry(key, key, "cpu", i, dtype, tuple(shape), bytes(data))
            for i, (key, (dtype, shape, data)) in enumerate(entries.items())
        ]
    else:
        items = list(entries)
    parts = list(_encoded_parts(items))  # checked whole before the file is created
    with open(path, "wb") as f:
        f.writelines(parts)


# ---------------------------------------------------------------------------
# Reading
# ---------------------------------------------------------------------------


class _Reader:
    def __init__(self, data: bytes, path: str):
        self.data = data
        self.pos = 0
        self.path = path

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise MetadataFormatError(f"{self.path}: truncated RAL metadata file")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str) -> tuple[Any, ...]:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))

    def string(self, width: str = "<I") -> str:
        (n,) = self.unpack(width)
        return self.take(n).decode("utf-8")


def decode_metadata(data: bytes, path: str = "<bytes>") -> list[MetadataEntry]:
    """The entries of the metadata file contents `data`."""
    r = _Reader(data, path)
    if r.take(len(MAGIC)) != MAGIC:
        raise MetadataFormatError(f"{path}: not a RAL metadata file (bad magic)")
    version, count = r.unpack("<II")
    if version != VERSION:
        raise MetadataFormatError(f"{path}: unsupported RAL metadata version {version}")
    entries = []
    for _ in range(count):
        key = r.string()
        name = r.string()
        device_code, index = r.unpack("<BI")
        if device_code >= len(DEVICES):
            raise MetadataFormatError(f"{path}: bad device code {device_code} for {name}")
        dtype = r.string("<B")
        (rank,) = r.unpack("<I")
        shape = tuple(r.unpack(f"<{rank}q"))
        (size,) = r.unpack("<Q")
        entries.append(
            MetadataEntry(key, name, DEVICES[device_code], index, dtype, shape, r.take(size))
        )
    if r.take(len(TRAILER)) != TRAILER:
        raise MetadataFormatError(f"{path}: bad RAL metadata trailer")
    return entries


def read_metadata_entries(path: str) -> list[MetadataEntry]:
    """Every entry of the metadata file at `path`, in file order."""
    with open(path, "rb") as f:
        return decode_metadata(f.read(), path)


def read_metadata(path: str) -> dict[str, tuple[str, tuple[int, ...], bytes]]:
    """`{md5 key: (dtype, shape, data)}` of the metadata file at `path`.

    `data` of a splat holds one element (repeat it to fill `shape`).
    """
    table: dict[str, tuple[str, tuple[int, ...], bytes]] = {}
    for e in read_metadata_entries(path):
        table.setdefault(e.key, (e.dtype, e.shape, e.data))
    return table


# ---------------------------------------------------------------------------
# From IR attributes (xDSL objects, used duck-typed: no xDSL import here)
# ---------------------------------------------------------------------------


def element_type_code(element: Any) -> str | None:
    """The RAL type code of an xDSL element type (`index` -> `i64`), None if unsupported."""
    name = getattr(element, "name", "")
    if name == "index":
        return "i64"
    if name == "integer_type":
        width = element.width.data
        signedness = getattr(getattr(element, "signedness", None), "data", None)
        unsigned = getattr(signedness, "name", "") == "UNSIGNED"
        return f"{'ui' if unsigned else 'i'}{width}"
    codes = {"f16": "f16", "bf16": "bf16", "f32": "f32", "f64": "f64"}
    return codes.get(name)


def dense_raw_data(attr: Any) -> tuple[str, int, bytes, bool] | None:
    """MLIR's raw data of an xDSL `DenseIntOrFPElementsAttr`, with i1 widened to i8.

    Returns `(kind, bitwidth, data, is_splat)`, `kind` one of `int`, `uint`,
    `float`; a splat keeps one element. None for element types RAL lacks.
    """
    element = attr.get_element_type()
    code = element_type_code(element)
    if code is None:
        return None
    shape = attr.get_shape()
    count = 1
    for d in shape:
        count *= d
    raw = bytes(attr.data.data)
    if code == "i1":
        values = [1 if v else 0 for v in attr.get_values()]
        raw = bytes(values)
        width = 8
    else:
        width = int(code.lstrip("uifb")) if code != "bf16" else 16
    item = width // 8
    if count and len(raw) == item:
        splat = True
    elif count:
        first = raw[:item]
        splat = all(raw[i : i + item] == first for i in range(0, len(raw), item))
        if splat:
            raw = first
    else:
        splat = False
    kind = "float" if code.startswith(("f", "bf")) else "uint" if code.startswith("u") else "int"
    return kind, width, raw, splat


__all__ = [
    "MetadataEntry",
    "MetadataFormatError",
    "const_md5",
    "const_unique_name",
    "decode_metadata",
    "dense_raw_data",
    "element_type_code",
    "encode_metadata",
    "read_metadata",
    "read_metadata_entries",
    "write_metadata",
]
