"""Dialect resource blobs: the data behind MLIR's `dense_resource<key>` attributes.

MLIR keeps large constants out of the IR: a `dense_resource<key> : tensor<...>`
attribute names a blob that the file's trailing metadata section defines,

    {-#
      dialect_resources: {
        builtin: {
          key: "0x04000000<hex bytes>"
        }
      }
    #-}

where the string is the blob's alignment (a little-endian u32) followed by its
bytes. torch-mlir's importer writes a module's parameters this way.

As in MLIR (`DialectResourceBlobManager`), the blobs belong to the context:
`make_context` gives each context its own builtin dialect whose
`OpAsmDialectInterface` is a `DenseResourceBlobManager`. xDSL's parser
declares every handle it meets there and hands it the section's strings;
the manager decodes each string once into bytes (`DenseResourceBlob.data`
views them past the alignment word, no copy). A handle already taken by a live
blob of any context is renamed `<key>_<n>`, so a handle names one blob
process-wide and `lookup_blob(handle)` finds it without the context (the
printer and the passes only see the IR). A blob lives as long as its context.
"""

from __future__ import annotations

import struct
import weakref
from collections.abc import Iterable

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import Builtin
from xdsl.ir import Dialect

#: every blob of a live context, by handle
_LIVE: weakref.WeakValueDictionary[str, DenseResourceBlob] = weakref.WeakValueDictionary()


class DenseResourceBlob:
    """One resource: `alignment` (bytes) and `data` (None until its section entry is read)."""

    __slots__ = ("__weakref__", "alignment", "data", "handle")

    def __init__(self, handle: str) -> None:
        self.handle = handle
        self.alignment = 1
        self.data: memoryview | None = None

    @classmethod
    def from_hex(cls, handle: str, text: str) -> DenseResourceBlob:
        """A blob from its section string `0x<alignment u32 LE><bytes>`; ValueError when malformed."""
        blob = cls(handle)
        blob.set_hex(text)
        return blob

    def set_hex(self, text: str) -> None:
        """Reads the section string `0x<alignment u32 LE><bytes>` (MLIR's blob encoding)."""
        if not text.startswith("0x"):
            raise ValueError("expected a hex string '0x...'")
        try:
            raw = bytes.fromhex(text[2:])
        except ValueError:
            raise ValueError("malformed hex data (odd length or a non-hex digit)") from None
        if len(raw) < 4:
            raise ValueError("expected the 4-byte alignment before the data")
        (alignment,) = struct.unpack_from("<I", raw)
        if alignment == 0 or alignment & (alignment - 1):
            raise ValueError(f"alignment {alignment} is not a power of two")
        self.alignment = alignment
        self.data = memoryview(raw)[4:]

    def to_hex(self) -> str:
        """The section string of this blob (uppercase hex, as MLIR prints it)."""
        if self.data is None:
            raise ValueError(f"resource '{self.handle}' has no data")
        return "0x" + struct.pack("<I", self.alignment).hex().upper() + self.data.hex().upper()


class DenseResourceBlobManager(OpAsmDialectInterface):
    """The builtin dialect's resource storage of one context (MLIR's blob manager).

    xDSL's parser calls `declare_resource` for every handle it meets and
    `parse_resource` for each section entry; the printer asks `build_resources`.
    """

    def __init__(self) -> None:
        super().__init__()
        self._blobs: dict[str, DenseResourceBlob] = {}

    def declare_resource(self, key: str) -> str:
        """Declares `key` (renamed `<key>_<n>` when a live blob has it); returns the handle used."""
        handle = key
        counter = 0
        while handle in self._blobs or handle in _LIVE:
            handle = f"{key}_{counter}"
            counter += 1
        blob = DenseResourceBlob(handle)
        self._blobs[handle] = blob
        _LIVE[handle] = blob
        return handle

    def parse_resource(self, key: str, val: str) -> None:
        """Sets the data of the declared `key` from its section string."""
        blob = self._blobs.get(key)
        if blob is None:
            raise KeyError("not declared")
        if blob.data is not None:
            raise ValueError("defined twice")
        blob.set_hex(val)

    def insert(self, key: str, data: bytes | memoryview, alignment: int = 1) -> str:
        """Adds a blob built in memory; returns its handle (`key`, renamed when taken)."""
        if alignment <= 0 or alignment & (alignment - 1):
            raise ValueError(f"resource '{key}': alignment {alignment} is not a power of two")
        handle = self.declare_resource(key)
        blob = self._blobs[handle]
        blob.alignment = alignment
        blob.data = memoryview(data).cast("B")
        return handle

    def lookup(self, key: str) -> str | None:
        blob = self._blobs.get(key)
        return None if blob is None or blob.data is None else blob.to_hex()

    def blob(self, key: str) -> DenseResourceBlob | None:
        """The blob of handle `key` in this context."""
        return self._blobs.get(key)

    def build_resources(self, keys: Iterable[str]) -> dict[str, str]:
        return {key: text for key in keys if (text := self.lookup(key)) is not None}


def lookup_blob(handle: str) -> DenseResourceBlob | None:
    """The blob a `dense_resource<handle>` refers to, if its context is alive and defined it."""
    blob = _LIVE.get(handle)
    return blob if blob is not None and blob.data is not None else None


def builtin_dialect() -> Dialect:
    """xDSL's builtin dialect with a resource manager of its own (one per context)."""
    return Dialect(
        Builtin.name,
        list(Builtin.operations),
        list(Builtin.attributes),
        [DenseResourceBlobManager()],
    )


def blob_manager(dialect: Dialect) -> DenseResourceBlobManager | None:
    """The resource manager of a builtin dialect made by `builtin_dialect`."""
    interface = dialect.get_interface(OpAsmDialectInterface)
    return interface if isinstance(interface, DenseResourceBlobManager) else None


def resource_section(handles: Iterable[str]) -> str:
    """The `{-# dialect_resources: ... #-}` section defining `handles` (those with data), or ''."""
    entries = []
    for handle in dict.fromkeys(handles):
        blob = lookup_blob(handle)
        if blob is not None:
            entries.append(f'      {handle}: "{blob.to_hex()}"')
    if not entries:
        return ""
    body = ",\n".join(entries)
    return "\n{-#\n  dialect_resources: {\n    builtin: {\n" + body + "\n    }\n  }\n#-}\n"


__all__ = [
    "DenseResourceBlob",
    "DenseResourceBlobManager",
    "blob_manager",
    "builtin_dialect",
    "lookup_blob",
    "resource_section",
]
