"""The layering of `disc_ir`'s packages, checked on every module's imports.

Each module's imports are read with `ast` (module-level and function-level
ones alike, relative imports resolved), so a lazy import breaks a rule as much
as a top-level one. The rules are those the package docstrings
(`disc_ir/<package>/__init__.py`) state:

- the runtime never imports the compiler: nothing of `xdsl`, nothing of
  `disc_ir` outside `disc_ir.runtime` but `disc_ir.config` (the environment
  switches), which itself imports nothing of `xdsl` or `disc_ir`;
- each library package imports only the packages below it (`ALLOWED`);
  in particular no analysis imports a pass or the pass registry, and
  `disc_ir.ir` imports no pass;
- a pass module (`disc_ir.transforms.*`) never imports another pass module,
  and no module outside `disc_ir.transforms` imports a pass module but the
  registry (`disc_ir.passes`), which loads them: pass modules are not libraries.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2] / "disc_ir"

#: the library packages and the `disc_ir` packages / top-level modules each may import
#: (besides itself); packages absent here (drivers: `tools`, and the
#: top-level modules `api`, `pipeline`, `jax`, `torch`, `introspection`) may import anything
_BASE = {"config"}
ALLOWED: dict[str, set[str]] = {
    "config": set(),
    "dialects": _BASE | {"ir"},
    "ir": _BASE | {"dialects", "passes"},
    "analysis": _BASE | {"ir", "dialects"},
    "rewriting": _BASE | {"ir", "dialects", "analysis"},
    "fusion": _BASE | {"ir", "dialects", "analysis"},
    "codegen": _BASE | {"ir", "dialects", "analysis", "fusion", "rewriting"},
    "conversion": _BASE | {"ir", "dialects", "analysis", "rewriting", "runtime"},
    "backend": _BASE | {"ir", "dialects", "runtime"},
    "frontends": _BASE | {"ir", "dialects", "analysis", "rewriting", "conversion"},
    "passes": {"transforms"},
    "transforms": _BASE
    | {
        "ir",
        "dialects",
        "analysis",
        "rewriting",
        "fusion",
        "codegen",
        "conversion",
        "frontends",
        "backend",
        "runtime",
        "passes",
        "pipeline",
    },
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> list[tuple[str, Path]]:
    return sorted((_module_name(p), p) for p in ROOT.rglob("*.py") if "__pycache__" not in p.parts)


MODULES = _modules()
_NAMES = {name for name, _ in MODULES}


def imports_of(name: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, imported module) for every import in the module, nested ones included.

    `from pkg import x` yields `pkg.x` when that is a module of disc_ir, else `pkg`.
    """
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                if not is_package:
                    anchor = anchor[:-1]
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                full = f"{base}.{alias.name}"
                yield node.lineno, full if full in _NAMES else base


def _package(module: str) -> str | None:
    """The `disc_ir` package or top-level module `module` belongs to (None outside disc_ir)."""
    parts = module.split(".")
    if parts[0] != "disc_ir":
        return None
    return parts[1] if len(parts) > 1 else ""


def test_every_package_has_a_docstring() -> None:
    """Every package folder says in its `__init__` what lives there and what it may import."""
    missing = [
        str(d.relative_to(ROOT.parent))
        for d in [ROOT, *ROOT.rglob("*")]
        if d.is_dir()
        and d.name != "__pycache__"
        and any(d.glob("*.py"))
        and (
            not (d / "__init__.py").exists()
            or ast.get_docstring(ast.parse((d / "__init__.py").read_text())) is None
        )
    ]
    assert not missing, f"packages without an __init__ docstring: {missing}"
    assert set(ALLOWED) <= {_package(n) for n, _ in MODULES}


@pytest.mark.parametrize(
    "name,path", [m for m in MODULES if m[0].startswith("disc_ir.runtime")], ids=lambda v: str(v)
)
def test_runtime_never_imports_the_compiler(name: str, path: Path) -> None:
    bad = [
        f"{path.name}:{line}: {mod}"
        for line, mod in imports_of(name, path)
        if mod == "xdsl"
        or mod.startswith("xdsl.")
        or (
            _package(mod) is not None
            and not mod.startswith("disc_ir.runtime")
            and mod != "disc_ir.config"
        )
    ]
    assert not bad, "the runtime imports the compiler:\n" + "\n".join(bad)


def test_config_imports_neither_xdsl_nor_the_compiler() -> None:
    """`disc_ir.config` is the one module outside the runtime the runtime imports."""
    path = ROOT / "config.py"
    bad = [
        f"config.py:{line}: {mod}"
        for line, mod in imports_of("disc_ir.config", path)
        if mod == "xdsl" or mod.startswith(("xdsl.", "disc_ir"))
    ]
    assert not bad, "disc_ir.config imports the compiler:\n" + "\n".join(bad)


def _library_modules() -> list[tuple[str, Path]]:
    return [(n, p) for n, p in MODULES if _package(n) in ALLOWED]


@pytest.mark.parametrize("name,path", _library_modules(), ids=lambda v: str(v))
def test_packages_import_only_lower_layers(name: str, path: Path) -> None:
    own = _package(name)
    assert own is not None
    allowed = ALLOWED[own] | {own}
    bad = [
        f"{path.relative_to(ROOT.parent)}:{line}: imports {mod}"
        for line, mod in imports_of(name, path)
        if (pkg := _package(mod)) is not None and pkg != "" and pkg not in allowed
    ]
    assert not bad, f"disc_ir.{own} may import only {sorted(allowed)}:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "name,path",
    [m for m in MODULES if m[0].startswith("disc_ir.transforms.")],
    ids=lambda v: str(v),
)
def test_pass_modules_import_no_other_pass_module(name: str, path: Path) -> None:
    bad = [
        f"{path.name}:{line}: imports {mod}"
        for line, mod in imports_of(name, path)
        if mod.startswith("disc_ir.transforms.") and mod != name
    ]
    assert not bad, "a pass module imports another pass module:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "name,path",
    [m for m in MODULES if not m[0].startswith(("disc_ir.transforms", "disc_ir.passes"))],
    ids=lambda v: str(v),
)
def test_only_the_registry_imports_pass_modules(name: str, path: Path) -> None:
    bad = [
        f"{path.relative_to(ROOT.parent)}:{line}: imports {mod}"
        for line, mod in imports_of(name, path)
        if mod.startswith("disc_ir.transforms")
    ]
    assert not bad, "a pass module used as a library:\n" + "\n".join(bad)


@pytest.mark.parametrize(
    "name,path",
    [m for m in MODULES if m[0].startswith("disc_ir.transforms.")],
    ids=lambda v: str(v),
)
def test_pass_modules_register_a_pass(name: str, path: Path) -> None:
    """`disc_ir/transforms/` holds only pass modules: each registers exactly one pass."""
    assert path.read_text().count("@register_pass") == 1, f"{path.name} registers no single pass"


def test_no_module_shadows_the_standard_library() -> None:
    import sys

    shadowing = [
        n for n, _ in MODULES if n.count(".") == 1 and n.split(".")[1] in sys.stdlib_module_names
    ]
    assert not shadowing, f"top-level modules named like stdlib modules: {shadowing}"
