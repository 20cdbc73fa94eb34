"""Generate the table of environment switches in docs/guide.md from `disc_ir.config`.

    python -m disc_ir.tools.config_docs             # rewrite the table in docs/guide.md
    python -m disc_ir.tools.config_docs --check     # exit 1 when the table is stale
    python -m disc_ir.tools.config_docs -o -        # print the table to stdout

The table lies between the lines `<!-- switches:begin -->` and
`<!-- switches:end -->` of the guide; the rest of the file is left as it is.
Each row gives a switch of `disc_ir.config.SWITCHES`: its name, type,
default, what it does and where the name comes from.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from disc_ir.config import SWITCHES, Switch

REPO = Path(__file__).resolve().parents[2]
DEFAULT_GUIDE = REPO / "docs" / "guide.md"
BEGIN = "<!-- switches:begin -->"
END = "<!-- switches:end -->"
_COMMAND = "python -m disc_ir.tools.config_docs"


class MissingMarkers(Exception):
    """The guide lacks the begin/end markers of the switch table."""


def _default_cell(switch: Switch) -> str:
    if switch.default is None:
        return "unset"
    if isinstance(switch.default, bool):
        return "`1`" if switch.default else "`0`"
    return f"`{switch.default}`"


def _type_cell(switch: Switch) -> str:
    if switch.type == "choice":
        return "choice: " + ", ".join(f"`{c}`" for c in switch.choices)
    return switch.type


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def render_table() -> str:
    """The generated section: a note on its origin and one table row per declared switch."""
    lines = [
        f"<!-- generated from disc_ir/config.py by `{_COMMAND}`; do not edit -->",
        "",
        "| Variable | Type | Default | Effect | Name from |",
        "| --- | --- | --- | --- | --- |",
    ]
    for switch in SWITCHES.values():
        cells = [
            f"`{switch.name}`",
            _type_cell(switch),
            _default_cell(switch),
            _escape(switch.doc),
            _escape(switch.origin),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def update(text: str) -> str:
    """`text` (the guide) with the section between the markers replaced by `render_table()`."""
    start = text.find(BEGIN)
    end = text.find(END)
    if start < 0 or end < start:
        raise MissingMarkers(f"expected a line {BEGIN} followed by a line {END}")
    head = text[: start + len(BEGIN)]
    return head + "\n" + render_table() + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=_COMMAND, description=__doc__)
    parser.add_argument(
        "-o",
        "--output",
        default=str(DEFAULT_GUIDE),
        help="the guide to update, '-' to print the table to stdout",
    )
    parser.add_argument("--check", action="store_true", help="fail if the table is stale")
    args = parser.parse_args(argv)
    if args.output == "-":
        sys.stdout.write(render_table())
        return 0
    out = Path(args.output)
    current = out.read_text() if out.exists() else ""
    try:
        text = update(current)
    except MissingMarkers as err:
        print(f"error: {out}: {err}", file=sys.stderr)
        return 2
    if args.check:
        if current != text:
            print(
                f"error: the switch table of {out} is out of date; run `{_COMMAND}`",
                file=sys.stderr,
            )
            return 1
        print(f"{out}: the switch table is up to date ({len(SWITCHES)} switches)")
        return 0
    out.write_text(text)
    print(f"wrote the switch table of {out} ({len(SWITCHES)} switches)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
