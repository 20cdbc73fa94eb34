"""lit configuration: FileCheck tests of disc-opt (run by `pytest` or `lit test/lit`)."""

import os
import shutil
import sys

import lit.formats

config.name = "disc-ir"  # noqa: F821
config.test_format = lit.formats.ShTest()  # noqa: F821
config.suffixes = [".mlir"]  # noqa: F821
config.test_source_root = os.path.dirname(__file__)  # noqa: F821
config.excludes = ["Inputs"]  # noqa: F821

bin_dir = os.path.dirname(sys.executable)


def _tool(name: str) -> str:
    local = os.path.join(bin_dir, name)
    if os.path.exists(local):
        return local
    found = shutil.which(name)
    if not found:
        raise RuntimeError(f"lit: '{name}' not found next to {sys.executable} or on PATH")
    return found


config.substitutions.append(("disc-opt", _tool("disc-opt")))  # noqa: F821
config.substitutions.append(("FileCheck", _tool("filecheck")))  # noqa: F821
config.environment["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")  # noqa: F821
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]  # noqa: F821
