"""`disc_ir.compile` is `disc-opt --disc-pipeline`: for every phase P and both
targets, `disc-opt '--disc-pipeline=target=T until=P' in.mlir` prints exactly
the IR `lower_to_llvm_ir(in.mlir, T).phase_ir[P]` (what `Executable.mlir_after(P)`
shows).

The tutorial runs the real command line (a subprocess per phase, disc-opt's
default verification on). Every zoo model (static and `_dyn`) runs disc-opt's
in-process driver (`disc_opt.main` with the same arguments, stdout captured,
`--verify-each=false`: verifying changes no IR) for each phase, from the
source, against one compile per model and target. The compile splits the CPU
kernels off for the JIT (`compile_kernels_ahead`, as `disc_ir.compile` does),
so the `llvm` phase also checks that the split leaves the module as disc-opt
makes it.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import pytest

from disc_ir.api import lower_to_llvm_ir, print_module
from disc_ir.pipeline import TARGETS, phase_names
from disc_ir.tools import disc_opt

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "examples" / "tutorial.mlir"
MODELS = sorted((ROOT / "test" / "models").glob("*.mlir"))


def _compiled_phases(path: Path, target: str) -> dict[str, str]:
    lowered = lower_to_llvm_ir(path, target, keep_ir=True, compile_kernels_ahead=target == "cpu")
    return {phase: print_module(m) for phase, m in lowered.phase_ir.items()}


def _disc_opt_in_process(args: list[str]) -> str:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = disc_opt.main(args)
    assert code == 0, err.getvalue()
    return out.getvalue()


def test_phases_start_with_input() -> None:
    for target in TARGETS:
        assert phase_names(target)[0] == "input"


@pytest.mark.parametrize("target", TARGETS)
def test_tutorial_every_phase_by_the_command_line(target: str) -> None:
    expected = _compiled_phases(TUTORIAL, target)
    assert list(expected) == phase_names(target)
    for phase, text in expected.items():
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "disc_ir.tools.disc_opt",
                f"--disc-pipeline=target={target} until={phase}",
                str(TUTORIAL),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout == text, f"{target}: the IR after '{phase}' differs"


@pytest.mark.parametrize("spelling", ["braces", "pass-pipeline"])
def test_other_spellings_of_the_pipeline_flag(spelling: str) -> None:
    phase = "bufferize"
    flag = (
        f"--disc-pipeline{{target=cuda until={phase}}}"
        if spelling == "braces"
        else f"-pass-pipeline=builtin.module(disc-pipeline{{target=cuda until={phase}}})"
    )
    expected = _compiled_phases(TUTORIAL, "cuda")[phase]
    assert _disc_opt_in_process([flag, str(TUTORIAL)]) == expected


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("model", MODELS, ids=[m.stem for m in MODELS])
def test_zoo_model_every_phase(model: Path, target: str) -> None:
    expected = _compiled_phases(model, target)
    assert list(expected) == phase_names(target)
    for phase, text in expected.items():
        got = _disc_opt_in_process(
            [f"--disc-pipeline=target={target} until={phase}", "--verify-each=false", str(model)]
        )
        assert got == text, f"{model.name} {target}: the IR after '{phase}' differs"
