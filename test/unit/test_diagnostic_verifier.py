"""`disc-opt -verify-diagnostics`: the designator syntax, the matching rules
(counts, severities, unknown locations) and MLIR's failure messages."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.passes.registry import register_pass
from disc_ir.tools.diagnostic_verifier import (
    EmittedDiagnostic,
    parse_expectations,
    verify_diagnostics,
)
from disc_ir.tools.disc_opt import run

TEXT = """\
op one
// expected-error@-1 2 {{twice}}
// expected-warning@below 1+ {{at least once}}
// expected-note {{a note}}
op two
// expected-remark@unknown {{nowhere}}
// expected-error@above {{above}}
"""


def _check(emitted: list[EmittedDiagnostic], text: str = TEXT) -> list[str]:
    expectations = parse_expectations(text, "f.mlir")
    return verify_diagnostics(expectations, emitted, {"f.mlir": text.split("\n")})


def _diag(severity: str, line: int, message: str) -> EmittedDiagnostic:
    return EmittedDiagnostic(severity, "f.mlir", line, 1, message)  # type: ignore[arg-type]


ALL_MET = [
    _diag("error", 1, "seen twice"),
    _diag("error", 1, "seen twice"),
    _diag("warning", 5, "at least once"),
    _diag("warning", 5, "at least once more"),
    _diag("note", 4, "a note here"),
    _diag("remark", 0, "nowhere to be found"),
    _diag("error", 5, "above"),
]


def test_designator_lines() -> None:
    lines = {(e.severity, e.line) for e in parse_expectations(TEXT, "f.mlir").diagnostics}
    assert lines == {("error", 1), ("warning", 5), ("note", 4), ("remark", 0), ("error", 5)}
    # a chunk's lines count from its offset in the whole file
    shifted = parse_expectations("// expected-error@+1 {{x}}\nop\n", "f.mlir", line_offset=10)
    assert [e.line for e in shifted.diagnostics] == [12]
    # `@below` with no line after it: the buffer's last line
    dangling = parse_expectations("op\n// expected-error@below {{x}}", "f.mlir")
    assert [e.line for e in dangling.diagnostics] == [2]


def test_all_expectations_met() -> None:
    assert _check(ALL_MET) == []


def test_count_is_exact() -> None:
    once = [d for d in ALL_MET if d.message != "seen twice"] + [_diag("error", 1, "seen twice")]
    assert _check(once) == [
        'f.mlir:2:4: error: expected error "twice" was produced 1 time, expected 2\n'
        "// expected-error@-1 2 {{twice}}\n   ^"
    ]
    thrice = ALL_MET + [_diag("error", 1, "seen twice")]
    assert _check(thrice) == ["f.mlir:1:1: error: unexpected error: seen twice\nop one\n^"]


def test_unexpected_near_miss_and_unknown() -> None:
    failures = _check(
        ALL_MET
        + [
            _diag("error", 4, "a note here"),
            _diag("error", 0, "somewhere"),
            _diag("error", 3, "a note here"),
        ]
    )
    assert failures == [
        "f.mlir:4:4: error: 'error' diagnostic emitted when expecting a 'note'\n"
        "// expected-note {{a note}}\n   ^",
        "f.mlir: error: unexpected error: somewhere",
        "f.mlir:3:1: error: unexpected error: a note here\n"
        "// expected-warning@below 1+ {{at least once}}\n^",
    ]


def test_regex_blocks() -> None:
    text = "op\n// expected-error-re@-1 {{value {{[0-9]+}} (of {{.*}})}}\n"
    assert _check([_diag("error", 1, "the value 42 (of 7) is bad")], text) == []
    assert _check([_diag("error", 1, "the value x (of 7)")], text)[0].startswith(
        "f.mlir:1:1: error: unexpected error: the value x (of 7)"
    )
    bad = parse_expectations("// expected-error-re {{a {{(}} b}}\n", "f.mlir")
    assert bad.diagnostics == []
    assert bad.problems[0].startswith("f.mlir:1:4: error: invalid regex: ")


@register_pass
@dataclass(frozen=True)
class _FailWithDiagnosticPass(ModulePass):
    """Test-only pass: fails with a diagnostic that names no location."""

    name = "test-fail-with-diagnostic"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        raise DiagnosticException("the pass gives up")


def _run(args: list[str], text: str, tmp_path: Path) -> tuple[int, str]:
    src = tmp_path / "in.mlir"
    src.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    code = run([*args, str(src)], out, err)  # type: ignore[arg-type]
    return code, err.getvalue()


def test_pass_failure_matches_unknown_location(tmp_path: Path) -> None:
    text = "// expected-error@unknown {{the pass gives up}}\nfunc.func @f() {\n  return\n}\n"
    args = ["-test-fail-with-diagnostic", "-verify-diagnostics"]
    assert _run(args, text, tmp_path) == (0, "")
    code, err = _run(args, text.replace("@unknown", "@+1"), tmp_path)
    assert code == 1
    assert (
        "error: unexpected error: pass 'test-fail-with-diagnostic' failed: the pass gives up" in err
    )
    assert 'in.mlir:1:4: error: expected error "the pass gives up" was not produced' in err


def test_flag_spellings_and_no_expectations(tmp_path: Path) -> None:
    valid = "func.func @f() {\n  return\n}\n"
    for flag in ("-verify-diagnostics", "--verify-diagnostics", "--verify-diagnostics=true"):
        assert _run([flag], valid, tmp_path) == (0, "")
    code, err = _run(["-verify-diagnostics"], "func.func @f( {\n", tmp_path)
    assert code == 1 and "in.mlir:1:15: error: unexpected error: " in err
