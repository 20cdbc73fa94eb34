"""Bad text never crashes or hangs disc-opt (a property test with hypothesis).

Valid MLIR (the lit inputs under test/lit, the model files under test/models)
is mutated: tokens deleted, swapped or inserted, the text truncated, random
characters and non-UTF-8 bytes inserted, integers made huge, brackets,
parentheses and regions nested thousands deep, strings left unterminated.
disc-opt, run on the result, must exit 0, or exit 1 with a located
`file:line:col: error:` diagnostic: never a traceback, an internal error or a
hang (each run has a deadline).

The CI run is derandomized (the same examples every time). For a longer local
run with fresh random examples: `BAD_TEXT_EXAMPLES=2000 pytest test/unit/test_bad_text.py`.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from disc_ir.tools.disc_opt import main

ROOT = Path(__file__).resolve().parents[2]
CORPUS = sorted(
    [*ROOT.glob("test/lit/**/*.mlir"), *ROOT.glob("test/models/*.mlir")],
    key=lambda p: p.as_posix(),
)
TEXTS = [p.read_text(encoding="utf-8") for p in CORPUS]

#: examples of the in-process property (the CI default keeps the file well under a minute)
LOCAL_EXAMPLES = os.environ.get("BAD_TEXT_EXAMPLES")
EXAMPLES = int(LOCAL_EXAMPLES) if LOCAL_EXAMPLES else 800
#: a run that takes longer than this hangs
RUN_DEADLINE_S = 60

PROPERTY_SETTINGS = settings(
    max_examples=EXAMPLES,
    # the deadline a run must meet is RUN_DEADLINE_S, enforced by an alarm
    # (hypothesis' own deadline only measures an example after it returns)
    deadline=timedelta(seconds=RUN_DEADLINE_S),
    derandomize=LOCAL_EXAMPLES is None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

LOCATED_ERROR = re.compile(r"^.+:\d+:\d+: error: ", re.M)
HUGE_INTEGERS = ["999999999999999999999999", "18446744073709551616", "-9223372036854775809"]
TOKENS = [
    "(", ")", "{", "}", "[", "]", "<", ">", ",", ":", "=", "->", "?", "x", "%0", "%arg0",
    "^bb0", "^bb1:", "@f", "#map", "!disc_ral.context", "dense<", "tensor<", "memref<",
    "loc(", "#loc", "0x", "-", "...", '"', "\\", "// -----\n", "{-#", "#-}", "\t", "\n",
    "func.func", "mhlo.add", "\"mhlo.constant\"()", "index", "i0", "f8E4M3FN",
]  # fmt: skip
NUMBER = re.compile(r"(?<![\w%#^@])\d+")
SMALL_NUMBERS = ["0", "1", "2", "3", "-1", "?"]
ELEMENT_TYPE = re.compile(r"(?<![A-Za-wyz0-9_])(?:[if](?:1|8|16|32|64)|index|bf16)(?!\w)")
ELEMENT_TYPES = ["i1", "i8", "i32", "i64", "f16", "f32", "f64", "bf16", "index"]
REPEATED = ["x", "1x", "?x", "a", "0", "%", "#", "-", " ", ", i32", "\\n", "loc(", "tensor<"]
NESTERS = [
    ("(", ")"),
    ("[", "]"),
    ("{", "}"),
    ("<", ">"),
    ("tensor<", ">"),
    ("tuple<", ">"),
    ("{a = ", "}"),
    ('"scf.execute_region"() ({\n', '"scf.yield"() : () -> ()\n}) : () -> ()\n'),
]
ARGV = [
    [],
    ["-split-input-file"],
    ["--mlir-print-op-generic"],
    ["-split-input-file", "-canonicalize"],
    ["-split-input-file", "-cse"],
    ["-split-input-file", "-verify-diagnostics"],
]
TOKEN_SPLIT = re.compile(r"(\s+|[(){}\[\]<>,:=])")


@st.composite
def mutated_text(draw: st.DrawFn) -> bytes:
    """One corpus file with one to three mutations, as the bytes of the file."""
    text = draw(st.sampled_from(TEXTS))
    raw_bytes: list[tuple[int, bytes]] = []  # (position, non-UTF-8 bytes) put in at the end
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, len(text)))
        kind = draw(
            st.sampled_from(
                [
                    *("truncate", "delete", "swap", "insert", "chars", "bytes"),
                    *("huge", "number", "type", "nest", "repeat", "string"),
                ]
            )
        )
        if kind == "truncate":
            text = text[:at]
        elif kind == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif kind == "swap":
            tokens = TOKEN_SPLIT.split(text)
            i = draw(st.integers(0, len(tokens) - 1))
            j = draw(st.integers(0, len(tokens) - 1))
            tokens[i], tokens[j] = tokens[j], tokens[i]
            text = "".join(tokens)
        elif kind == "insert":
            text = text[:at] + draw(st.sampled_from(TOKENS)) + text[at:]
        elif kind == "chars":
            text = text[:at] + draw(st.text(min_size=1, max_size=8)) + text[at:]
        elif kind == "bytes":
            raw_bytes.append((at, draw(st.binary(min_size=1, max_size=4))))
        elif kind == "huge":
            numbers = [m.span() for m in NUMBER.finditer(text)]
            huge = draw(st.sampled_from(HUGE_INTEGERS))
            if numbers:
                start, end = numbers[draw(st.integers(0, len(numbers) - 1))]
                text = text[:start] + huge + text[end:]
            else:
                text = text[:at] + huge + text[at:]
        elif kind in ("number", "type"):
            # text that still parses, with a wrong value: for the verifiers and passes
            pattern = NUMBER if kind == "number" else ELEMENT_TYPE
            spans = [m.span() for m in pattern.finditer(text)]
            if spans:
                start, end = spans[draw(st.integers(0, len(spans) - 1))]
                values = SMALL_NUMBERS if kind == "number" else ELEMENT_TYPES
                text = text[:start] + draw(st.sampled_from(values)) + text[end:]
        elif kind == "repeat":
            # a long run of one piece (slow, backtracking patterns show here)
            piece = draw(st.sampled_from(REPEATED))
            text = text[:at] + piece * draw(st.sampled_from([1000, 50000])) + text[at:]
        elif kind == "nest":
            opener, closer = draw(st.sampled_from(NESTERS))
            depth = draw(st.sampled_from([50, 200, 1000, 5000]))
            closed = closer * depth if draw(st.booleans()) else ""
            text = text[:at] + opener * depth + closed + text[at:]
        else:
            text = text[:at] + '"unterminated ' + text[at:]
    data = text.encode("utf-8")
    for at, extra in raw_bytes:
        at = min(at, len(data))
        data = data[:at] + extra + data[at:]
    return data


class RunHung(BaseException):
    """Raised by the alarm when a run passes its deadline (a BaseException:
    disc-opt's driver turns every Exception into an internal error)."""


@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise RunHung in the main thread when the block runs past `seconds`."""

    def expire(signum: int, frame: object) -> None:
        raise RunHung(f"disc-opt ran past {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def check_outcome(code: int, stderr: str) -> None:
    """Exit 0, or exit 1 with a located error; never a traceback or internal error."""
    assert "Traceback" not in stderr, stderr
    assert "internal error" not in stderr, stderr
    assert code in (0, 1), (code, stderr)
    if code == 1:
        assert LOCATED_ERROR.search(stderr), stderr


@pytest.fixture(scope="module")
def work_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="bad_text_") as name:
        yield Path(name)


@PROPERTY_SETTINGS
@given(data=mutated_text(), argv=st.sampled_from(ARGV))
def test_disc_opt_in_process(work_dir: Path, data: bytes, argv: list[str]) -> None:
    source = work_dir / "mutated.mlir"
    source.write_bytes(data)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        with deadline(RUN_DEADLINE_S):
            code = main([*argv, str(source)])
    check_outcome(code, err.getvalue())


@settings(PROPERTY_SETTINGS, max_examples=4)
@given(data=mutated_text())
def test_disc_opt_subprocess(work_dir: Path, data: bytes) -> None:
    source = work_dir / "mutated_subprocess.mlir"
    source.write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-m", "disc_ir.tools.disc_opt", "-split-input-file", str(source)],
        capture_output=True,
        text=True,
        timeout=RUN_DEADLINE_S,
        cwd=ROOT,
    )
    check_outcome(done.returncode, done.stderr)


@pytest.mark.parametrize(
    "text, message",
    [
        ('"scf.execute_region"() ({\n' * 3000, "nesting too deep to parse"),
        ("func.func @f() -> " + "(" * 5000 + "i32", "nesting too deep to parse"),
        ("func.func @f() attributes {a = " + "[" * 5000 + "1", "nesting too deep to parse"),
        ('func.func @f() attributes {a = "unterminated ' + "x " * 40 + "} {\n", "string"),
        (
            "func.func @f() -> tensor<2xi32> {\n"
            "  %0 = arith.constant dense<999999999999999999999999> : tensor<2xi32>\n"
            "  return %0 : tensor<2xi32>\n}\n",
            "out of range for type i32",
        ),
        (
            "func.func @f() -> tensor<999999999999999999999999xf32> {\n"
            "  %0 = arith.constant dense<1.0> : tensor<999999999999999999999999xf32>\n"
            "  return %0 : tensor<999999999999999999999999xf32>\n}\n",
            "elements is too large",
        ),
        ("func.func @f() {\n  %c = arith.constant index : \n  return\n}\n", "index"),
        ("func.func @f(%a: tensor<" + "x" * 200000 + ") {\n", "Expected shape type"),
    ],
)
def test_known_bad_inputs(work_dir: Path, text: str, message: str) -> None:
    """Inputs that once crashed or hung: each a located error naming the problem."""
    source = work_dir / "known.mlir"
    source.write_text(text)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        with deadline(RUN_DEADLINE_S):
            code = main([str(source)])
    check_outcome(code, err.getvalue())
    assert code == 1 and message in err.getvalue(), err.getvalue()


def test_invalid_utf8_is_located(work_dir: Path) -> None:
    source = work_dir / "latin1.mlir"
    source.write_bytes(b"func.func @f() {\n  return \xff\n}\n")
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main([str(source)])
    assert code == 1
    assert err.getvalue().startswith(f"{source}:2:10: error: invalid UTF-8 byte 0xff"), err
