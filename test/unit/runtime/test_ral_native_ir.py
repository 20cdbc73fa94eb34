"""The native dispatcher's LLVM IR: the packaged template and its placeholders."""

from __future__ import annotations

import fnmatch
import importlib.resources
import pathlib
import re
import tomllib

import llvmlite.binding as llvm
import pytest

from disc_ir.runtime import native

ROOT = pathlib.Path(__file__).resolve().parents[3]


def test_template_is_a_package_resource():
    resource = importlib.resources.files("disc_ir.runtime").joinpath(native.IR_RESOURCE)
    assert resource.is_file()
    assert "define void @disc_rt_dispatch" in resource.read_text(encoding="utf-8")


def test_package_data_ships_the_runtime_resources():
    """Every non-Python file of disc_ir/runtime matches a setuptools package-data pattern."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["disc_ir.runtime"]
    runtime = ROOT / "disc_ir" / "runtime"
    resources = [
        p.relative_to(runtime).as_posix()
        for p in runtime.rglob("*")
        if p.is_file() and p.suffix not in (".py", ".pyc")
    ]
    assert native.IR_RESOURCE in resources
    for name in resources:
        assert any(fnmatch.fnmatch(name, pattern) for pattern in patterns), name


def test_rendered_ir_parses_and_verifies():
    text = native.native_module_ir()
    assert "{{" not in text and ";;" not in text
    assert f"%magic, {native.MAGIC}" in text
    module = llvm.parse_assembly(text)
    module.verify()
    assert {f.name for f in module.functions} >= {
        "disc_rt_dispatch",
        "disc_rt_init",
        "disc_rt_after_fork",
        "disc_rt_start_workers",
    }


def test_libc_declarations_match_the_bound_symbols():
    declared = re.findall(r"^declare i32 @disc_rt_libc_(\w+)\(", native.ir_template(), re.M)
    assert declared == list(native._LIBC_SYMBOLS)


def test_every_placeholder_has_a_value():
    used = set(re.findall(r"\{\{([A-Za-z0-9_]+)\}\}", native.ir_template()))
    assert used == set(native.ir_placeholder_values())


def test_llvm_c_string_escapes():
    assert native.llvm_c_string(b'ab"\\\0') == "ab\\22\\5C\\00"


def test_substitution_is_strict():
    assert native.substitute_placeholders("a {{X}} b {{X}}", {"X": "1"}) == "a 1 b 1"
    with pytest.raises(ValueError, match="no value for the placeholder"):
        native.substitute_placeholders("{{X}} {{Y}}", {"X": "1"})
    with pytest.raises(ValueError, match="values for no placeholder: Y"):
        native.substitute_placeholders("{{X}}", {"X": "1", "Y": "2"})
    with pytest.raises(ValueError, match="malformed placeholder at line 2"):
        native.substitute_placeholders("{{X}}\n{{ X }}", {"X": "1"})
