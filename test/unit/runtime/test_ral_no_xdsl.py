"""The runtime loads and runs with xDSL (and the compiler packages) unavailable."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import importlib.abc
    import sys

    BLOCKED = ("xdsl", "disc_ir.ir", "disc_ir.dialects", "disc_ir.transforms", "disc_ir.tools")

    class Blocker(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if any(name == b or name.startswith(b + ".") for b in BLOCKED):
                raise ImportError(f"blocked import of {name}")
            return None

    sys.meta_path.insert(0, Blocker())

    import numpy as np

    import disc_ir.runtime as rt
    from disc_ir.runtime.jit import JitModule

    sys.path.insert(0, sys.argv[1])
    from conftest import gemm_module_text

    jit = JitModule(gemm_module_text())
    ctx = rt.RalContext()
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    (out,) = ctx.execute(jit.function_address("main"), [a, a])
    assert np.allclose(out, a @ a.T)

    # Constants from a metadata file (the reader is stdlib-only).
    import os, tempfile
    from disc_ir.runtime import ral_metadata
    from disc_ir.runtime.dispatch import call_api
    from disc_ir.runtime.memref import numpy_view

    path = os.path.join(tempfile.mkdtemp(), "m.metadata")
    ral_metadata.write_metadata(path, {"ab" * 16: ("i64", (3,), np.arange(3).tobytes())})
    ctx = rt.RalContext(metadata_path=path)
    with ctx.create_execution_context([]) as ec:
        name = "ral_const___cpu___pvoid_pvoid_pvoid_i32___m1di64"
        desc = call_api(ec, name, ec, 0, "ab" * 16 + "_i64_3", 0)
        assert list(numpy_view(desc)) == [0, 1, 2]

    try:
        import xdsl  # noqa: F401
    except ImportError:
        pass
    else:
        raise AssertionError("the xdsl blocker does not work")
    assert not any(m == "xdsl" or m.startswith("xdsl.") for m in sys.modules)
    print("ok")
    """
)


def test_runtime_runs_without_xdsl():
    here = os.path.dirname(__file__)
    # conftest imports pytest; that is allowed (it is not part of the compiler).
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, here],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"
