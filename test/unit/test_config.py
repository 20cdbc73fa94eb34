"""disc_ir.config: the declared environment switches, their parsing, the warnings, the docs."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from disc_ir import config
from disc_ir.config import SWITCHES, DiscConfigWarning, Switch
from disc_ir.tools import config_docs

REPO = Path(__file__).resolve().parents[2]
_NAME = re.compile(r"^DISC_[A-Z0-9_]+$")


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No switch (nor unknown `DISC_*` variable) set, and the once-per-process warnings armed again."""
    for name in [*SWITCHES, *config.unknown_switches()]:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(config, "_unknown_checked", False)
    monkeypatch.setattr(config, "_warned_invalid", set())
    return monkeypatch


# -- declarations and defaults -----------------------------------------------------------


def test_declarations_are_consistent() -> None:
    for name, switch in SWITCHES.items():
        assert switch.name == name
        assert switch.doc and "\n" not in switch.doc
        assert switch.origin
        if switch.default is not None:
            expected = {"bool": bool, "int": int, "float": float}.get(switch.type, str)
            assert type(switch.default) is expected, name
        if switch.type == "choice":
            assert switch.default is None or switch.default in switch.choices


def test_unset_switches_give_their_defaults(clean_env: pytest.MonkeyPatch) -> None:
    for name, switch in SWITCHES.items():
        assert config.get(name) == switch.default, name
    assert config.flag("DISC_ENABLE_STITCH") is True
    assert config.flag("DISC_ENABLE_TRANSFORM_SCHEDULE") is False
    assert config.get_int("DISC_REDUCTION_TILE_SIZE") == 128
    assert config.get_int("DISC_CPU_LARGE_CONCAT_NUM_OPERANDS") == 32
    assert config.get_optional_int("DISC_EXPECTED_KERNELS_IN_UT") is None
    assert config.get_str("DISC_CUDA_CC") is None
    assert not config.is_set("DISC_CUDA_CC")


def test_empty_value_is_unset(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("DISC_ENABLE_STITCH", "")
    clean_env.setenv("DISC_REDUCTION_TILE_SIZE", "  ")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert config.flag("DISC_ENABLE_STITCH") is True
        assert config.get_int("DISC_REDUCTION_TILE_SIZE") == 128
    assert not config.is_set("DISC_REDUCTION_TILE_SIZE")


# -- typed parsing -----------------------------------------------------------------------


@pytest.mark.parametrize("raw", ["1", "true", "On", " YES "])
def test_true_spellings(clean_env: pytest.MonkeyPatch, raw: str) -> None:
    clean_env.setenv("DISC_CPU_HUGE_PAGES", raw)
    assert config.flag("DISC_CPU_HUGE_PAGES") is True


@pytest.mark.parametrize("raw", ["0", "false", "OFF", "no"])
def test_false_spellings(clean_env: pytest.MonkeyPatch, raw: str) -> None:
    clean_env.setenv("DISC_RAL_NATIVE", raw)
    assert config.flag("DISC_RAL_NATIVE") is False


def test_values_are_read_on_each_call(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("DISC_REDUCTION_TILE_SIZE", "64")
    assert config.get_int("DISC_REDUCTION_TILE_SIZE") == 64
    clean_env.setenv("DISC_REDUCTION_TILE_SIZE", "-1")
    assert config.get_int("DISC_REDUCTION_TILE_SIZE") == -1
    clean_env.setenv("DISC_CUDA_CC", "sm_90")
    assert config.get_str("DISC_CUDA_CC") == "sm_90"
    assert config.is_set("DISC_CUDA_CC")


def test_invalid_value_warns_once_and_uses_the_default(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("DISC_REDUCTION_TILE_SIZE", "banana")
    with pytest.warns(DiscConfigWarning, match=r"DISC_REDUCTION_TILE_SIZE='banana'.*an integer"):
        assert config.get_int("DISC_REDUCTION_TILE_SIZE") == 128
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert config.get_int("DISC_REDUCTION_TILE_SIZE") == 128
    clean_env.setenv("DISC_ENABLE_STITCH", "maybe")
    with pytest.warns(DiscConfigWarning, match=r"DISC_ENABLE_STITCH='maybe'.*boolean.*\(1\)"):
        assert config.flag("DISC_ENABLE_STITCH") is True


def test_float_and_choice_parsing() -> None:
    number = Switch("DISC_TEST_NUMBER", "float", 0.5, "a number")
    assert number.parse(" 2.5 ") == 2.5
    with pytest.raises(ValueError):
        number.parse("half")
    choice = Switch("DISC_TEST_CHOICE", "choice", "a", "a choice", choices=("a", "b"))
    assert choice.parse("b") == "b"
    with pytest.raises(ValueError):
        choice.parse("c")
    assert choice.expected() == "one of a, b"


def test_undeclared_name_is_a_key_error() -> None:
    with pytest.raises(KeyError, match="DISC_NOT_A_SWITCH is not a declared"):
        config.flag("DISC_NOT_A_SWITCH")
    with pytest.raises(KeyError):
        config.get("DISC_NOT_A_SWITCH")


def test_wrong_type_is_a_type_error(clean_env: pytest.MonkeyPatch) -> None:
    with pytest.raises(TypeError, match="int switch"):
        config.flag("DISC_REDUCTION_TILE_SIZE")
    with pytest.raises(TypeError, match="no default"):
        config.get_int("DISC_EXPECTED_KERNELS_IN_UT")
    with pytest.raises(TypeError):
        config.get_str("DISC_ENABLE_STITCH")


# -- unknown DISC_* variables -----------------------------------------------------------


def test_unknown_switch_warns_once_with_a_suggestion(clean_env: pytest.MonkeyPatch) -> None:
    clean_env.setenv("DISC_ENABLE_STICH", "1")
    with pytest.warns(DiscConfigWarning) as record:
        config.flag("DISC_ENABLE_STITCH")
    messages = [str(w.message) for w in record if w.category is DiscConfigWarning]
    assert messages == [
        "DISC_ENABLE_STICH is not a disc-ir switch; did you mean DISC_ENABLE_STITCH?"
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        config.flag("DISC_ENABLE_STITCH")
        config.warn_unknown_switches()


def test_unknown_switch_without_a_close_name() -> None:
    message = config.unknown_switch_message("DISC_QQQQQQQQQQQQQQQQQ")
    assert message.startswith("DISC_QQQQQQQQQQQQQQQQQ is not a disc-ir switch; see")
    env = {"DISC_ENABLE_STITCH": "1", "DISC_FOO": "1", "OTHER": "1"}
    assert config.unknown_switches(env) == ["DISC_FOO"]


def test_compile_warns_about_unknown_switches(clean_env: pytest.MonkeyPatch) -> None:
    import disc_ir

    clean_env.setenv("DISC_MEM_INTENSIVE_OPT_EXPERIMENTL", "0")
    with (
        pytest.warns(DiscConfigWarning, match="did you mean DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL"),
        pytest.raises(disc_ir.CompileError),
    ):
        disc_ir.compile("this is not MLIR")


def test_disc_opt_warns_about_unknown_switches() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(config.PREFIX)}
    env["DISC_ENABLE_STICH"] = "0"
    proc = subprocess.run(
        [sys.executable, "-m", "disc_ir.tools.disc_opt", "--help"],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    warning = "DISC_ENABLE_STICH is not a disc-ir switch; did you mean DISC_ENABLE_STITCH?"
    assert proc.stderr.count(warning) == 1, proc.stderr


def test_config_imports_no_compiler() -> None:
    code = (
        "import sys, disc_ir.config, disc_ir.runtime; "
        "bad = [m for m in sys.modules if m.startswith('xdsl') or m == 'disc_ir.pipeline']; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, timeout=120)


# -- documentation --------------------------------------------------------------------------


def test_guide_switch_table_is_current() -> None:
    guide = config_docs.DEFAULT_GUIDE.read_text()
    assert config_docs.update(guide) == guide, (
        "docs/guide.md's switch table is stale: run `python -m disc_ir.tools.config_docs`"
    )


def test_every_switch_is_documented_in_the_guide() -> None:
    guide = config_docs.DEFAULT_GUIDE.read_text()
    section = guide[guide.index(config_docs.BEGIN) : guide.index(config_docs.END)]
    for name, switch in SWITCHES.items():
        row = next(line for line in section.splitlines() if line.startswith(f"| `{name}` |"))
        assert switch.type in row


def test_config_docs_check_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    guide = tmp_path / "guide.md"
    guide.write_text(f"# Guide\n\n{config_docs.BEGIN}\nold\n{config_docs.END}\n\nmore\n")
    assert config_docs.main(["--check", "-o", str(guide)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert config_docs.main(["-o", str(guide)]) == 0
    assert config_docs.main(["--check", "-o", str(guide)]) == 0
    text = guide.read_text()
    assert text.startswith("# Guide\n") and text.endswith(f"{config_docs.END}\n\nmore\n")
    guide.write_text("no markers\n")
    assert config_docs.main(["-o", str(guide)]) == 2


# -- no undeclared switch in the source ------------------------------------------------------


def _python_sources() -> list[Path]:
    files = [
        *sorted((REPO / "disc_ir").rglob("*.py")),
        *sorted((REPO / "tools").rglob("*.py")),
        *sorted(p for p in (REPO / "bench").rglob("*.py") if "results" not in p.parts),
    ]
    launcher = REPO / "tools" / "disc-opt"
    if launcher.exists():
        files.append(launcher)
    return files


def _exported_names(tree: ast.Module) -> set[str]:
    """The strings of a module's `__all__`: names of Python objects, not switches."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                names |= {
                    c.value
                    for c in ast.walk(node)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                }
    return names


def test_every_disc_string_literal_is_a_declared_switch() -> None:
    undeclared: list[str] = []
    for path in _python_sources():
        tree = ast.parse(path.read_text(), filename=str(path))
        exported = _exported_names(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and _NAME.match(node.value)
                and node.value not in exported
                and node.value not in SWITCHES
            ):
                undeclared.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value}")
    assert not undeclared, "undeclared switches (declare them in disc_ir/config.py):\n" + "\n".join(
        undeclared
    )


def test_lit_run_lines_set_declared_switches() -> None:
    setting = re.compile(r"\b(DISC_[A-Z0-9_]+)=")
    undeclared = [
        f"{path.relative_to(REPO)}: {name}"
        for path in sorted((REPO / "test" / "lit").rglob("*.mlir"))
        for name in setting.findall(path.read_text())
        if name not in SWITCHES
    ]
    assert not undeclared, undeclared


def test_only_config_reads_the_environment() -> None:
    """Every switch is read through disc_ir.config: no other compiler or runtime module
    reads `os.environ` / `os.getenv` (writing it, e.g. a subprocess's env, is not checked)."""
    readers: list[str] = []
    for path in sorted((REPO / "disc_ir").rglob("*.py")):
        if path == REPO / "disc_ir" / "config.py":
            continue
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in ("environ", "getenv"):
                if isinstance(node.value, ast.Name) and node.value.id == "os":
                    readers.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not readers, "read switches through disc_ir.config instead:\n" + "\n".join(readers)
