"""disc-opt's driver, run in-process: flags, pass errors, verification after passes."""

from __future__ import annotations

import io
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.dialects.builtin import IntegerAttr, i32
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from disc_ir.passes.registry import register_pass
from disc_ir.tools.disc_opt import run

SIMPLE = """
func.func @f(%a: i32) -> i32 {
  %0 = arith.addi %a, %a : i32
  return %0 : i32
}
"""


@register_pass
@dataclass(frozen=True)
class _BreakTypesPass(ModulePass):
    """Test-only pass: makes every arith.addi's result i64 (invalid IR)."""

    name = "test-break-types"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for inner in list(op.walk()):
            if isinstance(inner, arith.AddiOp):
                Rewriter.replace_value_with_new_type(inner.results[0], builtin.i64)


@register_pass
@dataclass(frozen=True)
class _AddConstantPass(ModulePass):
    """Test-only pass: inserts `arith.constant <value> : i32` at the top of each function."""

    name = "test-add-constant"
    value: int = 7

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for inner in list(op.walk()):
            if inner.name == "func.func":
                block = inner.regions[0].blocks.first
                block.insert_op_before(
                    arith.ConstantOp(IntegerAttr(self.value, i32)), block.first_op
                )


def _run(args: list[str], text: str, tmp_path: Path) -> tuple[int, str, str]:
    src = tmp_path / "in.mlir"
    src.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    code = run([*args, str(src)], out, err)
    return code, out.getvalue(), err.getvalue()


def test_pass_with_option_spellings(tmp_path: Path) -> None:
    for args in (
        ["-test-add-constant=value=3"],
        ["--test-add-constant{value=3}"],
        ["-test-add-constant='value=3'".replace("'", "")],
        ["-pass-pipeline=builtin.module(func.func(test-add-constant{value=3}))"],
    ):
        code, out, err = _run(args, SIMPLE, tmp_path)
        assert code == 0, err
        assert "%c3_i32 = arith.constant 3 : i32" in out, (args, out)


def test_verifier_failure_after_pass_names_pass_and_op(tmp_path: Path) -> None:
    code, out, err = _run(["-test-break-types"], SIMPLE, tmp_path)
    assert code == 1
    assert "verification failed after pass 'test-break-types'" in err
    assert "'arith.addi' op" in err
    assert out == ""


def test_verify_each_false_skips_verification(tmp_path: Path) -> None:
    code, out, _ = _run(["-test-break-types", "--verify-each=false"], SIMPLE, tmp_path)
    assert code == 0
    assert "-> i64" in out or ": i64" in out


def test_unknown_pass_and_option(tmp_path: Path) -> None:
    code, _, err = _run(["-test-add-constnt"], SIMPLE, tmp_path)
    assert code == 1 and "unknown option or pass '-test-add-constnt'" in err
    assert "test-add-constant" in err
    code, _, err = _run(["--test-add-constant{colour=3}"], SIMPLE, tmp_path)
    assert code == 1 and "has no option 'colour'" in err and "value" in err
    code, _, err = _run(["--test-add-constant{value=many}"], SIMPLE, tmp_path)
    assert code == 1 and "expected an integer" in err
    code, _, err = _run(
        ["-pass-pipeline=builtin.module(func.func(test-add-constant)"], SIMPLE, tmp_path
    )
    assert code == 1 and "expected ')'" in err


def test_print_ir_around_passes_and_timing(tmp_path: Path) -> None:
    code, out, err = _run(
        [
            "--mlir-print-ir-before-all",
            "--mlir-print-ir-after-all",
            "--mlir-timing",
            "-test-add-constant",
        ],
        SIMPLE,
        tmp_path,
    )
    assert code == 0
    before = err.index("// -----// IR Dump Before _AddConstantPass (test-add-constant) //----- //")
    after = err.index("// -----// IR Dump After _AddConstantPass (test-add-constant) //----- //")
    assert before < after
    assert "arith.constant 7" not in err[before:after]
    assert "arith.constant 7" in err[after:]
    assert (
        "Execution time report" in err
        and "test-add-constant" in err.split("Execution time report")[1]
    )


def test_output_file(tmp_path: Path) -> None:
    target = tmp_path / "out.mlir"
    code, out, _ = _run(["-o", str(target)], SIMPLE, tmp_path)
    assert code == 0 and out == ""
    assert target.read_text().startswith("module {")


def test_missing_input_file(tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run([str(tmp_path / "absent.mlir")], out, err) == 1
    assert "cannot read" in err.getvalue()


def test_cli_never_shows_a_traceback(tmp_path: Path) -> None:
    src = tmp_path / "bad.mlir"
    src.write_text("func.func @f(%a: i32) -> i32 {\n  return %a : i64\n}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "disc_ir.tools.disc_opt", str(src)], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    assert f"{src}:2:" in proc.stderr


def test_list_passes_shows_options() -> None:
    out, err = io.StringIO(), io.StringIO()
    assert run(["--list-passes"], out, err) == 0
    text = out.getvalue()
    assert "--test-add-constant  -  Test-only pass" in text
    assert "value=<int> (default: 7)" in text
