"""Runs every FileCheck test under test/lit through lit, one pytest case per file."""

import subprocess
import sys
from pathlib import Path

import pytest

LIT_DIR = Path(__file__).parent / "lit"
LIT_FILES = sorted(p for p in LIT_DIR.rglob("*.mlir") if "Inputs" not in p.parts)


@pytest.mark.parametrize("path", LIT_FILES, ids=[str(p.relative_to(LIT_DIR)) for p in LIT_FILES])
def test_lit(path: Path) -> None:
    proc = subprocess.run(
        [str(Path(sys.executable).parent / "lit"), "-q", "-v", str(path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
