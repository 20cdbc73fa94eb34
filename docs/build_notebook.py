"""Regenerate docs/pass_pipeline.ipynb (executed, with outputs) from docs/pass_pipeline.md.

    python docs/build_notebook.py

The markdown file (jupytext) is the source; test/unit/test_notebook.py checks
that the .ipynb holds the same cells and that the notebook executes.
"""

from __future__ import annotations

from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

DOCS = Path(__file__).resolve().parent


def main() -> None:
    nb = jupytext.read(DOCS / "pass_pipeline.md")
    NotebookClient(
        nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(DOCS)}}
    ).execute()
    nbformat.write(nb, DOCS / "pass_pipeline.ipynb")
    print(f"wrote {DOCS / 'pass_pipeline.ipynb'}")


if __name__ == "__main__":
    main()
