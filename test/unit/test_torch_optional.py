"""torch and torch-mlir are optional: `import disc_ir` never imports them, and
`import disc_ir.torch` without them names the `torch` extra."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_torch_is_optional() -> None:
    proc = _python(
        """
        import sys
        import disc_ir
        disc_ir.compile  # the lazy API import
        assert "torch" not in sys.modules, "import disc_ir imported torch"
        assert "torch_mlir" not in sys.modules, "import disc_ir imported torch_mlir"
        sys.modules["torch_mlir"] = None  # as if torch-mlir were not installed
        try:
            import disc_ir.torch
        except ImportError as exc:
            print("ImportError:", exc)
        """
    )
    assert proc.returncode == 0, proc.stderr
    assert "ImportError: disc_ir.torch needs torch and torch-mlir" in proc.stdout
    assert "disc-ir[torch]" in proc.stdout
