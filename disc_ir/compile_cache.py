"""The persistent compile cache: `disc_ir.compile(..., cache_dir=...)` / `DISC_CACHE_DIR`.

An entry is a `model.disc` artifact (`disc_ir.runtime.artifact`) named by a
key: the SHA-256 of the normalized graph text, the target and entry, the
compiler's environment switches that are set, the versions of disc-ir,
llvmlite and the artifact format, and this host's triple, CPU name and CPU
features. A hit loads the artifact (`Executable.load`: it links the stored
machine code, nothing is compiled); a miss compiles and stores it.

* Writes are atomic (`write_artifact`: a temporary file, then `os.replace`),
  so processes compiling the same graph at once each write a complete
  entry, and a reader sees a complete one.
* An entry that does not load (truncated, corrupted, another format) is
  compiled again and replaced.
* The cache is bounded (`DISC_CACHE_MAX_BYTES`): after a store, the least
  recently used entries (a hit refreshes an entry's modification time) are
  removed until the total fits.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from disc_ir import config
from disc_ir.runtime.artifact import FORMAT_VERSION, ArtifactError, disc_ir_version

if TYPE_CHECKING:
    from disc_ir.api import Executable

ENTRY_SUFFIX = ".disc"
#: switches that do not change the compiled code (the cache's own, run-time ones)
_NOT_IN_KEY = frozenset(
    {
        "DISC_CACHE_DIR",
        "DISC_CACHE_MAX_BYTES",
        "DISC_IR_DEBUG",
        "DISC_RAL_NATIVE",
        "DISC_CPU_HUGE_PAGES",
        "DISC_MIN_NUM_UNIT_PER_CORE",
        "OMP_NUM_THREADS",
    }
)
#: temporary files of interrupted writes older than this are removed (seconds)
_STALE_TEMPORARY_S = 3600.0


def normalize_source(text: str) -> str:
    """The graph text as the key reads it: line endings unified, trailing
    whitespace, blank lines and whole-line `//` comments dropped."""
    lines = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        stripped = line.rstrip()
        if not stripped or stripped.lstrip().startswith("//"):
            continue
        lines.append(stripped)
    return "\n".join(lines)


def _host_facts() -> dict[str, Any]:
    import llvmlite
    import llvmlite.binding as llvm

    return {
        "triple": llvm.get_process_triple(),
        "cpu": llvm.get_host_cpu_name(),
        "features": llvm.get_host_cpu_features().flatten(),
        "llvmlite": llvmlite.__version__,
    }


def cache_key(graph_text: str, target: str, entry: str) -> str:
    """The entry name of a graph compiled for `target` from function `entry` (hex)."""
    switches = {
        name: str(config.get(name))
        for name in sorted(config.SWITCHES)
        if name not in _NOT_IN_KEY and config.is_set(name)
    }
    facts = {
        "graph": hashlib.sha256(normalize_source(graph_text).encode()).hexdigest(),
        "target": target,
        "entry": entry,
        "switches": switches,
        "disc_ir": disc_ir_version(),
        "format": FORMAT_VERSION,
        **_host_facts(),
    }
    if target == "cuda":
        from disc_ir.pipeline import cuda_compute_capability

        facts["cuda_cc"] = list(cuda_compute_capability())
    return hashlib.sha256(json.dumps(facts, sort_keys=True).encode()).hexdigest()


class CompileCache:
    """A directory of artifacts keyed by `cache_key`, at most `max_bytes` in all."""

    def __init__(self, directory: str | PurePath, max_bytes: int | None = None) -> None:
        self.directory = Path(directory)
        self.max_bytes = (
            max_bytes if max_bytes is not None else config.get_int("DISC_CACHE_MAX_BYTES")
        )
        #: what the last `lookup` found: "hit", "miss" or "corrupt"
        self.last_lookup = ""

    @staticmethod
    def from_option(cache_dir: str | PurePath | None) -> CompileCache | None:
        """The cache `compile(cache_dir=...)` uses: `cache_dir`, else `DISC_CACHE_DIR`, else None."""
        if cache_dir is None:
            cache_dir = config.get_str("DISC_CACHE_DIR")
        return CompileCache(cache_dir) if cache_dir else None

    def path(self, key: str) -> Path:
        return self.directory / f"{key}{ENTRY_SUFFIX}"

    def lookup(self, key: str, num_threads: int | None = None) -> Executable | None:
        """The cached Executable of `key`, or None (a corrupt entry is removed)."""
        from disc_ir.api import Executable

        path = self.path(key)
        if not path.is_file():
            self.last_lookup = "miss"
            return None
        try:
            exe = Executable.load(path, num_threads=num_threads)
        except ArtifactError:
            self.last_lookup = "corrupt"
            try:
                path.unlink()
            except OSError:
                pass
            return None
        self.last_lookup = "hit"
        try:
            os.utime(path)  # most recently used
        except OSError:
            pass
        return exe

    def store(self, key: str, exe: Executable) -> None:
        """Saves `exe` under `key` (atomically), then keeps the cache within its bound."""
        self.directory.mkdir(parents=True, exist_ok=True)
        exe.save(self.path(key))
        self.trim(keep=key)

    def entries(self) -> list[Path]:
        """The entries, least recently used first."""
        found = []
        for p in self.directory.glob(f"*{ENTRY_SUFFIX}"):
            try:
                found.append((p.stat().st_mtime, p))
            except OSError:
                continue  # removed meanwhile by another process
        return [p for _, p in sorted(found)]

    def size(self) -> int:
        """Bytes held by the entries."""
        total = 0
        for p in self.entries():
            try:
                total += p.stat().st_size
            except OSError:
                pass
        return total

    def trim(self, keep: str | None = None) -> None:
        """Removes least recently used entries (never `keep`) until the cache fits
        its bound, and temporary files that interrupted writes left behind."""
        now = time.time()
        for tmp in self.directory.glob(".*.tmp"):
            try:
                if now - tmp.stat().st_mtime > _STALE_TEMPORARY_S:
                    tmp.unlink()
            except OSError:
                pass
        entries = self.entries()
        sizes = {}
        for p in entries:
            try:
                sizes[p] = p.stat().st_size
            except OSError:
                sizes[p] = 0
        total = sum(sizes.values())
        for p in entries:
            if total <= self.max_bytes:
                break
            if keep is not None and p.name == f"{keep}{ENTRY_SUFFIX}":
                continue
            try:
                p.unlink()
            except OSError:
                pass
            total -= sizes[p]


__all__ = ["CompileCache", "cache_key", "normalize_source"]
