"""The walkthrough notebook (docs/pass_pipeline.md, jupytext) executes and its
paired .ipynb holds the same cells.

Each cell asserts what its text claims, so executing the notebook is the test.
Regenerate the .ipynb (with outputs) with
`python docs/build_notebook.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

jupytext = pytest.importorskip("jupytext")
nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

DOCS = Path(__file__).resolve().parents[2] / "docs"
SOURCE = DOCS / "pass_pipeline.md"
PAIRED = DOCS / "pass_pipeline.ipynb"


def _cells(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source.strip()) for c in nb.cells]


def test_paired_ipynb_matches_the_markdown_source() -> None:
    source = jupytext.read(SOURCE)
    paired = nbformat.read(PAIRED, as_version=4)
    assert _cells(paired) == _cells(source), (
        "docs/pass_pipeline.ipynb is stale: run `python docs/build_notebook.py`"
    )


def test_notebook_executes_and_its_checks_hold() -> None:
    nb = jupytext.read(SOURCE)
    client = nbclient.NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(DOCS)}}
    )
    client.execute()  # raises CellExecutionError naming the failing cell
    errors = [
        o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"
    ]
    assert not errors
