"""The CPU driver's buffers: aligned, and on ordinary pages (numpy's huge-page request undone)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from disc_ir.runtime.drivers.cpu import ALIGNMENT, NUMPY_HUGEPAGE_BYTES, aligned_empty

SMAPS = Path("/proc/self/smaps")


def _vm_flags(address: int) -> set[str]:
    """The VmFlags of the mapping holding `address` (Linux smaps)."""
    inside = False
    for line in SMAPS.read_text().splitlines():
        head = line.split(maxsplit=1)[0]
        if "-" in head and all(c in "0123456789abcdef-" for c in head):
            lo, hi = (int(x, 16) for x in head.split("-"))
            inside = lo <= address < hi
        elif inside and line.startswith("VmFlags:"):
            return set(line.split()[1:])
    raise AssertionError(f"no mapping holds {address:#x}")


def test_buffers_are_aligned_and_sized() -> None:
    for nbytes in (0, 1, 63, 4096, NUMPY_HUGEPAGE_BYTES + 1):
        block = aligned_empty(nbytes)
        assert block.address % ALIGNMENT == 0
        assert block.size == max(1, nbytes) == block.array.nbytes
        assert block.array.ctypes.data == block.address


needs_smaps = pytest.mark.skipif(not SMAPS.exists(), reason="no /proc/self/smaps")
_MULTIARRAY = (getattr(np, "_core", None) or np.core).multiarray  # numpy 2 / 1.26
numpy_madvises = pytest.mark.skipif(
    not _MULTIARRAY._get_madvise_hugepage(),  # noqa: SLF001
    reason="numpy does not ask for huge pages here",
)


@needs_smaps
@numpy_madvises
def test_large_buffers_are_not_huge_page_regions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DISC_CPU_HUGE_PAGES", raising=False)
    block = aligned_empty(3 * NUMPY_HUGEPAGE_BYTES)
    flags = _vm_flags(block.address + NUMPY_HUGEPAGE_BYTES)
    assert "nh" in flags and "hg" not in flags, flags
    block.array.fill(7)  # still an ordinary, writable buffer
    assert int(block.array[-1]) == 7


@needs_smaps
@numpy_madvises
def test_huge_pages_on_request(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISC_CPU_HUGE_PAGES", "1")
    block = aligned_empty(3 * NUMPY_HUGEPAGE_BYTES)
    assert "hg" in _vm_flags(block.address + NUMPY_HUGEPAGE_BYTES)
