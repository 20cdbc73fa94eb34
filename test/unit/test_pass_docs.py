"""docs/passes.md is generated from the pass registry and must be current."""

from __future__ import annotations

from disc_ir.passes.registry import builtin_passes
from disc_ir.tools import pass_docs


def test_passes_md_is_up_to_date() -> None:
    text = pass_docs.render()
    current = pass_docs.DEFAULT_OUT.read_text()
    assert current == text, "docs/passes.md is stale: run `python -m disc_ir.tools.pass_docs`"


def test_every_pass_has_a_walkthrough_section_and_entry() -> None:
    text = pass_docs.render()
    for name in builtin_passes():
        assert f"\n## {name}\n" in text
        assert name in pass_docs.SEED_SECTIONS


def test_check_mode_reports_stale_file(tmp_path, capsys) -> None:
    stale = tmp_path / "passes.md"
    stale.write_text("# old\n")
    assert pass_docs.main(["--check", "-o", str(stale)]) == 1
    assert "out of date" in capsys.readouterr().err
    assert pass_docs.main(["-o", str(stale)]) == 0
    assert pass_docs.main(["--check", "-o", str(stale)]) == 0
