"""The `model.disc` artifact: a compiled graph in one zip file.

Members (all stored uncompressed, like PyTorch's `.pt2` archives):

* ``constants.bin`` -- first member; its data starts at a 64-byte aligned file
  offset (the local header's extra field is padded, as Android's zipalign
  does), so a loader maps it with ``mmap`` and the RAL reads the constants in
  place, without a copy;
* ``manifest.json`` -- the format name and version, the disc-ir version, the
  target (``cpu`` / ``cuda``), the LLVM target triple, CPU name and the CPU
  features the machine code was generated with, the GPU arch (``cuda``), the
  entry signature (names, element types, static dims or symbols, the
  equalities between dimensions, placements), the constants' table (offset,
  size, dtype, shape in ``constants.bin``), the exported symbols, and the
  SHA-256 of every other member;
* ``code/NNN.o`` -- the host code and CPU kernels as relocatable ELF objects
  (made by LLVM when the graph was compiled: loading links and relocates them,
  it does not run LLVM's optimizer or code generator);
* ``code/ral_native.o`` -- the RAL's native dispatcher (`disc_ir.runtime.native`)
  compiled for the target, used when this runtime's dispatcher IR has the
  digest the manifest records (`ral_native_ir_sha256`), else compiled at load;
* ``gpu/<kernel module>.ptx`` -- the PTX of each kernel module (``cuda``; the
  blobs the host code loads, cubin or PTX, are inside the host object);
* ``memory_plan.json`` -- the static memory plan (:mod:`disc_ir.runtime.memory_plan`).

:func:`write_artifact` writes one atomically (a temporary file, then
``os.replace``); :func:`read_artifact` reads and checks one, raising
:class:`ArtifactError` with a clear message for a file that is not an
artifact, is truncated or corrupted, or is of another format version.
Stdlib + numpy only: nothing of the compiler.
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FORMAT_NAME = "disc-ir-artifact"
#: bumped whenever a loader of the previous version could not read the new layout
FORMAT_VERSION = 1
CONSTANTS_MEMBER = "constants.bin"
MANIFEST_MEMBER = "manifest.json"
MEMORY_PLAN_MEMBER = "memory_plan.json"
#: the RAL's native dispatcher compiled for the target (`disc_ir.runtime.native`)
NATIVE_MEMBER = "code/ral_native.o"
#: alignment of the constants member's data in the file (bytes)
CONSTANTS_ALIGNMENT = 64
#: the extra-field header id zipalign uses for padding
_ALIGN_EXTRA_ID = 0xD935
_LOCAL_HEADER = struct.Struct("<IHHHHHIIIHH")
_LOCAL_HEADER_MAGIC = 0x04034B50


class ArtifactError(RuntimeError):
    """The file is not a loadable disc-ir artifact (the message says why)."""


def disc_ir_version() -> str:
    """The installed disc-ir distribution's version ("unknown" outside an install)."""
    try:
        from importlib.metadata import PackageNotFoundError, version

        return version("disc-ir")
    except PackageNotFoundError:
        return "unknown"


@dataclass
class ArtifactContents:
    """What an artifact holds, decoded.

    ``constants``: md5 key -> (dtype code, shape, data); the data are
    ``memoryview`` slices of ``constants_buffer`` (the mapped member) when read
    from a file.
    """

    manifest: dict[str, Any]
    objects: list[bytes]
    constants: dict[str, tuple[str, tuple[int, ...], Any]]
    gpu_kernels: dict[str, str] = field(default_factory=dict)
    memory_plan: dict[str, Any] | None = None
    constants_buffer: Any = None
    #: the RAL's native dispatcher as an object file (None: not stored)
    native_object: bytes | None = None

    @property
    def target(self) -> str:
        return str(self.manifest["target"])


def _sha256(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def _pack_constants(
    constants: Mapping[str, tuple[str, tuple[int, ...], bytes]],
) -> tuple[bytes, list[dict[str, Any]]]:
    """The constants concatenated (each 64-byte aligned) and their table."""
    chunks: list[bytes] = []
    table: list[dict[str, Any]] = []
    offset = 0
    for key in sorted(constants):
        dtype, shape, data = constants[key]
        pad = -offset % CONSTANTS_ALIGNMENT
        if pad:
            chunks.append(b"\0" * pad)
            offset += pad
        raw = bytes(data)
        table.append(
            {"key": key, "dtype": dtype, "shape": list(shape), "offset": offset, "nbytes": len(raw)}
        )
        chunks.append(raw)
        offset += len(raw)
    return b"".join(chunks), table


def write_artifact(
    path: str | os.PathLike[str],
    manifest: Mapping[str, Any],
    objects: Sequence[bytes],
    constants: Mapping[str, tuple[str, tuple[int, ...], bytes]],
    gpu_kernels: Mapping[str, str] | None = None,
    memory_plan: Mapping[str, Any] | None = None,
    native_object: bytes | None = None,
) -> None:
    """Writes an artifact to ``path`` atomically (a temporary file in the same
    directory, then ``os.replace``): a reader sees the old file or the new one.

    ``manifest`` holds the descriptive fields (target, signature, ...); the
    format fields, the member digests, the constants table and the object
    names are added here.
    """
    blob, table = _pack_constants(constants)
    members: dict[str, bytes] = {}
    for i, obj in enumerate(objects):
        members[f"code/{i:03d}.o"] = bytes(obj)
    for name, ptx in sorted((gpu_kernels or {}).items()):
        members[f"gpu/{name}.ptx"] = ptx.encode()
    if native_object is not None:
        members[NATIVE_MEMBER] = bytes(native_object)
    if memory_plan is not None:
        members[MEMORY_PLAN_MEMBER] = json.dumps(memory_plan, sort_keys=True).encode()
    full = dict(manifest)
    full.update(
        {
            "format": FORMAT_NAME,
            "format_version": FORMAT_VERSION,
            "objects": [f"code/{i:03d}.o" for i in range(len(objects))],
            "gpu_kernels": sorted((gpu_kernels or {}).keys()),
            "constants": table,
            "constants_sha256": _sha256(blob),
            "members": {name: _sha256(data) for name, data in members.items()},
        }
    )
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as fp, zipfile.ZipFile(fp, "w", zipfile.ZIP_STORED) as zf:
            info = zipfile.ZipInfo(CONSTANTS_MEMBER, date_time=(1980, 1, 1, 0, 0, 0))
            # local header (30 bytes) + name + extra at offset 0: pad the extra
            # field so the data starts at a multiple of CONSTANTS_ALIGNMENT
            used = _LOCAL_HEADER.size + len(CONSTANTS_MEMBER) + 4
            pad = -used % CONSTANTS_ALIGNMENT
            info.extra = struct.pack("<HH", _ALIGN_EXTRA_ID, pad) + b"\0" * pad
            zf.writestr(info, blob)
            zf.writestr(
                zipfile.ZipInfo(MANIFEST_MEMBER, date_time=(1980, 1, 1, 0, 0, 0)),
                json.dumps(full, indent=1, sort_keys=True),
            )
            for name, data in members.items():
                zf.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
            fp.flush()
            os.fsync(fp.fileno())
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would keep other users' servers out
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _data_offset(raw: mmap.mmap | bytes, info: zipfile.ZipInfo, path: str) -> int:
    """The file offset of a stored member's data (after its local header)."""
    start = info.header_offset
    header = bytes(raw[start : start + _LOCAL_HEADER.size])
    if len(header) != _LOCAL_HEADER.size:
        raise ArtifactError(f"{path}: truncated file (member '{info.filename}' header)")
    fields = _LOCAL_HEADER.unpack(header)
    if fields[0] != _LOCAL_HEADER_MAGIC:
        raise ArtifactError(f"{path}: corrupted file (member '{info.filename}' has no header)")
    return start + _LOCAL_HEADER.size + fields[9] + fields[10]


def _check_format(manifest: Any, path: str) -> dict[str, Any]:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_NAME:
        raise ArtifactError(f"{path}: not a disc-ir artifact (no '{FORMAT_NAME}' manifest)")
    version = manifest.get("format_version")
    if version != FORMAT_VERSION:
        made_by = manifest.get("disc_ir_version", "unknown")
        raise ArtifactError(
            f"{path}: artifact format version {version!r} (written by disc-ir {made_by}); "
            f"this runtime (disc-ir {disc_ir_version()}) reads format version "
            f"{FORMAT_VERSION} only: compile the graph again with this disc-ir"
        )
    return manifest


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The manifest of the artifact at ``path`` (format checked)."""
    name = os.fspath(path)
    try:
        with zipfile.ZipFile(name) as zf:
            return _check_format(json.loads(zf.read(MANIFEST_MEMBER)), name)
    except ArtifactError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, EOFError, zlib.error) as exc:
        raise ArtifactError(f"{name}: not a readable disc-ir artifact: {exc}") from None


def read_artifact(path: str | os.PathLike[str]) -> ArtifactContents:
    """Reads and checks the artifact at ``path``.

    Raises :class:`ArtifactError` for a missing file, a file that is not a
    zip or not an artifact, a truncated or corrupted one (a member's CRC or
    SHA-256 differs, the constants table points outside its member), or one
    of another format version. The constants stay in the mapped file.
    """
    name = os.fspath(path)
    try:
        fp = open(name, "rb")  # noqa: SIM115 - closed below or owned by the mapping
    except OSError as exc:
        raise ArtifactError(f"cannot open artifact '{name}': {exc.strerror}") from None
    try:
        size = os.fstat(fp.fileno()).st_size
        if size == 0:
            raise ArtifactError(f"{name}: empty file, not a disc-ir artifact")
        # private copy-on-write mapping: pages are shared with the page cache until written
        mapped = mmap.mmap(fp.fileno(), 0, access=mmap.ACCESS_COPY)
    except OSError as exc:
        fp.close()
        raise ArtifactError(f"{name}: cannot map the file: {exc.strerror}") from None
    finally:
        if not fp.closed:
            fp.close()
    try:
        return _decode(mapped, name)
    except ArtifactError:
        raise
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error) as exc:
        raise ArtifactError(f"{name}: truncated or corrupted artifact: {exc}") from None
    except (KeyError, ValueError, TypeError, OSError, struct.error) as exc:
        raise ArtifactError(f"{name}: corrupted artifact: {exc}") from None


class _MappedFile:
    """A read-only file object over a mapping (what ``zipfile`` reads)."""

    def __init__(self, mapped: mmap.mmap) -> None:
        self._view = memoryview(mapped)
        self._pos = 0

    def seek(self, offset: int, whence: int = 0) -> int:
        base = (0, self._pos, len(self._view))[whence]
        self._pos = base + offset
        return self._pos

    def tell(self) -> int:
        return self._pos

    def read(self, n: int = -1) -> bytes:
        end = len(self._view) if n is None or n < 0 else min(len(self._view), self._pos + n)
        data = self._view[self._pos : end].tobytes()
        self._pos = max(self._pos, end)
        return data

    def seekable(self) -> bool:
        return True

    def close(self) -> None:
        self._view.release()


def _decode(mapped: mmap.mmap, path: str) -> ArtifactContents:
    view = _MappedFile(mapped)
    try:
        with zipfile.ZipFile(view) as zf:
            if MANIFEST_MEMBER not in zf.namelist():
                raise ArtifactError(f"{path}: not a disc-ir artifact (a zip without a manifest)")
            manifest = _check_format(json.loads(zf.read(MANIFEST_MEMBER)), path)
            digests = manifest.get("members")
            if not isinstance(digests, dict):
                raise ArtifactError(f"{path}: corrupted manifest (no member digests)")

            def member(member_name: str) -> bytes:
                data = zf.read(member_name)  # checks the CRC
                if digests.get(member_name) != _sha256(data):
                    raise ArtifactError(
                        f"{path}: corrupted artifact: member '{member_name}' does not match "
                        "its SHA-256 in the manifest"
                    )
                return data

            objects = [member(n) for n in manifest["objects"]]
            gpu = {k: member(f"gpu/{k}.ptx").decode() for k in manifest.get("gpu_kernels", [])}
            native = member(NATIVE_MEMBER) if NATIVE_MEMBER in digests else None
            plan = None
            if MEMORY_PLAN_MEMBER in digests:
                plan = json.loads(member(MEMORY_PLAN_MEMBER))
            info = zf.getinfo(CONSTANTS_MEMBER)
            if info.compress_type != zipfile.ZIP_STORED:
                raise ArtifactError(f"{path}: the constants member is compressed")
    finally:
        view.close()
    start = _data_offset(mapped, info, path)
    if start + info.file_size > len(mapped):
        raise ArtifactError(f"{path}: truncated file (constants end past the end of the file)")
    buffer = memoryview(mapped)[start : start + info.file_size]
    if zlib.crc32(buffer) != info.CRC or _sha256(buffer) != manifest.get("constants_sha256"):
        raise ArtifactError(f"{path}: corrupted artifact: the constants do not match their digest")
    constants: dict[str, tuple[str, tuple[int, ...], Any]] = {}
    for entry in manifest["constants"]:
        offset, nbytes = int(entry["offset"]), int(entry["nbytes"])
        if offset < 0 or nbytes < 0 or offset + nbytes > len(buffer):
            raise ArtifactError(f"{path}: corrupted constants table (entry {entry['key']})")
        constants[str(entry["key"])] = (
            str(entry["dtype"]),
            tuple(int(d) for d in entry["shape"]),
            buffer[offset : offset + nbytes],
        )
    return ArtifactContents(manifest, objects, constants, gpu, plan, buffer, native)


__all__ = [
    "CONSTANTS_ALIGNMENT",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "ArtifactContents",
    "ArtifactError",
    "disc_ir_version",
    "read_artifact",
    "read_manifest",
    "write_artifact",
]
