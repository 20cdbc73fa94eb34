"""`python -m bench.rss SPEC_JSON`: peak RSS of one system compiling and running one model.

SPEC_JSON: {"system", "model", "sizes", "threads"?, "source"?}. `source` is a
file with the text to compile (disc-ir: the source the parent compiled; iree:
the static export), so this process imports only the system under test (not
jax, unless the system is xla). Prints one JSON line: `baseline_mb`
(peak RSS after importing the system's libraries and making the inputs)
and `peak_mb` (after compiling and one call), or `error`.
"""

from __future__ import annotations

import importlib
import json
import resource
import sys
from pathlib import Path

#: the libraries each system imports before the baseline is taken
IMPORTS = {
    "disc-ir": ["disc_ir"],
    "xla": ["jax"],
    "torch.compile": ["torch"],
    "iree": ["iree.compiler", "iree.runtime"],
    "numpy": [],
}


def _rss_mb() -> float:
    """This process's peak RSS in MiB: VmHWM (the high-water mark of this
    address space). `ru_maxrss` is the fallback only: on Linux it carries the
    parent's peak over fork + exec, so a child of a large parent reads the
    parent's figure."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024.0  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # KiB on Linux


def main(argv: list[str]) -> int:
    spec = json.loads(argv[0])
    system = spec["system"]
    try:
        from bench import models as M
        from bench.systems import configure_jax, make_system

        if system == "xla":
            configure_jax()
        for module in IMPORTS.get(system, []):
            importlib.import_module(module)
        model = M.bench_model(spec["model"])
        args = model.make_args(spec["sizes"])
        baseline = _rss_mb()
        sources = {model.name: Path(spec["source"])} if spec.get("source") else None
        runner = make_system(system, sources=sources, threads=spec.get("threads"), use_jax=False)
        prepared = runner.prepare(model, spec["sizes"], args)
        prepared.call()
        print(json.dumps({"baseline_mb": baseline, "peak_mb": _rss_mb()}))
    except Exception as exc:  # noqa: BLE001 - the parent reports it
        from bench.systems import error_text

        print(json.dumps({"error": error_text(exc)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
