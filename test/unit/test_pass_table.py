"""The lazy pass registry: the generated table is current, and naming a pass
imports only that pass's module (disc-opt's startup does not load every pass)."""

from __future__ import annotations

import subprocess
import sys

from disc_ir.passes import registry
from disc_ir.tools import gen_pass_table


def test_pass_table_is_up_to_date() -> None:
    current = gen_pass_table.DEFAULT_OUT.read_text()
    assert current == gen_pass_table.render(), (
        "disc_ir/passes/pass_table.py is stale: run `python -m disc_ir.tools.gen_pass_table`"
    )


def test_table_info_matches_the_loaded_classes() -> None:
    for name, cls in registry.builtin_passes().items():
        assert registry.pass_info(name) == registry.info_of(cls)
        assert registry.get_pass(name) is cls


def _modules_after(code: str) -> set[str]:
    script = (
        "import sys\n" + code + "\n"
        "print('\\n'.join(m for m in sys.modules if m.startswith('disc_ir')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    ).stdout
    return set(out.split())


def test_disc_opt_startup_imports_no_pass_module() -> None:
    loaded = _modules_after(
        "from disc_ir.tools import disc_opt\n"
        "import io\n"
        "disc_opt._list_passes(io.StringIO())\n"
        "disc_opt.parse_args(['-split-input-file', 'x.mlir'])"
    )
    passes = {m for m in loaded if m.startswith("disc_ir.transforms.")}
    assert passes <= {
        "disc_ir.transforms",
        "disc_ir.passes.registry",
        "disc_ir.passes.pass_table",
    }
    assert "disc_ir.runtime" not in loaded


def test_naming_a_pass_imports_its_module_only() -> None:
    loaded = _modules_after(
        "from disc_ir.tools import disc_opt\n"
        "opts = disc_opt.parse_args(['-disc-remove-dead-buffer'])\n"
        "assert opts.passes[0].name == 'disc-remove-dead-buffer'"
    )
    assert "disc_ir.transforms.disc_remove_dead_buffer" in loaded
    assert "disc_ir.transforms.disc_to_llvm" not in loaded
    assert "disc_ir.transforms.disc_fusion" not in loaded


def test_a_pass_missing_from_the_table_is_still_found(monkeypatch) -> None:
    table = dict(registry._table())
    del table["cse"]
    monkeypatch.setattr(registry, "_table", lambda: table)
    monkeypatch.delitem(registry._PASSES, "cse", raising=False)
    monkeypatch.delitem(sys.modules, "disc_ir.transforms.cse", raising=False)
    monkeypatch.setattr(registry, "_LOADED", False)
    cls = registry.get_pass("cse")
    assert cls is not None and cls.name == "cse"
    assert registry.is_pass_name("cse")


def test_unknown_pass_names_the_closest() -> None:
    assert registry.get_pass("canonicalise") is None
    assert registry.closest_pass_names("canonicalise")[0] == "canonicalize"
