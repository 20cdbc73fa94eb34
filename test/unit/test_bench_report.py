"""docs/benchmarks.md is generated from bench/results by `python -m bench.report` and must be current."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

from bench import report, suites

RESULTS = sorted((report.ROOT / "bench" / "results").glob("*.json"))
PAGE = report.ROOT / "docs" / "benchmarks.md"


def test_report_runs_on_the_kept_results(tmp_path: Path) -> None:
    out = tmp_path / "benchmarks.md"
    assert report.main([*map(str, RESULTS), "-o", str(out), "--no-plots"]) == 0
    text = out.read_text()
    assert "## Summary" in text and "## CPU" in text and "## GPU" in text
    for path in RESULTS:
        assert f"`{report.display_path(path)}`" in text
    assert "No plot of this run" in text
    assert "#### Dynamic shapes against jax.jit" in text
    assert "#### BERT encoder compile scaling" in text
    for folder, (title, _render) in suites.SUITES.items():
        if list((report.ROOT / "bench" / "results" / folder).glob("*.json")):
            assert f"## {title}" in text


def test_benchmarks_page_is_current() -> None:
    """The committed page equals a fresh rendering (its PNGs' bytes are not compared)."""
    runs = report.load_runs(RESULTS)
    plots = {
        name: f"img/{Path(name).stem}.png"
        for name, _ in report.split_runs(runs)[0]
        if (PAGE.parent / "img" / f"{Path(name).stem}.png").exists()
    }
    text = report.build_page(runs, plots, report.command_line(runs, PAGE))
    assert PAGE.read_text() == text, (
        "docs/benchmarks.md is stale: run `python -m bench.report bench/results/*.json "
        "-o docs/benchmarks.md`"
    )


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="needs matplotlib")
def test_report_draws_one_plot_per_cpu_run(tmp_path: Path) -> None:
    out = tmp_path / "page" / "benchmarks.md"
    assert report.main([*map(str, RESULTS), "-o", str(out)]) == 0
    cpu = report.split_runs(report.load_runs(RESULTS))[0]
    for name, _ in cpu:
        png = out.parent / "img" / f"{Path(name).stem}.png"
        assert png.stat().st_size > 0
        assert f"(img/{png.name})" in out.read_text()


def _table_rows(text: str, heading: str) -> list[str]:
    """The Markdown table rows of the section under `heading`, separator rows left out."""
    section = text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]
    return [
        line for line in section.splitlines() if line.startswith("| ") and "| --- |" not in line
    ]


def test_readme_table_is_the_pages_summary() -> None:
    """Each row of the README's table is a row of the page's summary (dates dropped)."""
    readme = (report.ROOT / "README.md").read_text()
    summary = {
        re.sub(r" \(\d{4}-\d\d-\d\d\)", "", row)
        for row in _table_rows(PAGE.read_text(), "## Summary")
    }
    rows = _table_rows(readme, "## Where it stands")
    assert len(rows) >= 3
    for row in rows:
        assert row in summary, f"README row not in docs/benchmarks.md's summary: {row}"
