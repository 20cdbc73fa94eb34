"""Generate docs/ops.md, the table of today's StableHLO / CHLO / mhlo ops, from
`disc_ir.dialects.op_catalog`.

    python -m disc_ir.tools.op_docs             # rewrite docs/ops.md
    python -m disc_ir.tools.op_docs --check     # exit 1 when docs/ops.md is stale
    python -m disc_ir.tools.op_docs -o -        # print it to stdout

One section per dialect, one row per op: its name, whether `disc_ir.compile`
compiles it (CPU target) or refuses it by name, and the catalog's note.
test/unit/test_op_catalog.py checks that each status is what the compiler does.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from disc_ir.dialects.op_catalog import COMPILED, OPS, UNSUPPORTED_TYPES, OpSupport

REPO = Path(__file__).resolve().parents[2]
DEFAULT_OUTPUT = REPO / "docs" / "ops.md"
_COMMAND = "python -m disc_ir.tools.op_docs"

_SECTIONS = (
    (
        "stablehlo",
        "StableHLO",
        "The ops of StableHLO's specification (`docs/spec.md` of openxla/stablehlo) and "
        "of its dialect (`StablehloOps.td`), as JAX and torch-mlir emit them. disc-ir "
        "imports each compiled op as its mhlo twin (`stablehlo-legalize-to-hlo`).",
    ),
    (
        "chlo",
        "CHLO",
        "The client ops of `ChloOps.td` (what `jax.jit(f).lower(x)` prints for `jnp.arcsin`, "
        "`lax.lgamma`, `lax.top_k` ...), expanded into mhlo by `chlo-legalize-to-hlo`.",
    ),
    (
        "mhlo",
        "mhlo beyond StableHLO",
        "Ops of today's mlir-hlo `mhlo` dialect (`hlo_ops.td`) that BladeDISC's pinned "
        "mlir-hlo lacks and StableHLO spells otherwise or not at all.",
    ),
)


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def _row(op: OpSupport) -> str:
    status = "compiled" if op.status == COMPILED else "**refused**"
    return f"| `{op.name}` | {status} | {_escape(op.note)} |"


def render() -> str:
    """docs/ops.md's text."""
    compiled = sum(op.status == COMPILED for op in OPS)
    lines = [
        f"<!-- generated from disc_ir/dialects/op_catalog.py by `{_COMMAND}`; do not edit -->",
        "",
        "# Ops of today's StableHLO, CHLO and mhlo",
        "",
        f'{len(OPS)} ops: {compiled} compiled by `disc_ir.compile(..., target="cpu")`, '
        f"{len(OPS) - compiled} refused. A refused op is an error that names it and says "
        "disc-ir does not support it (`CompileError: <source>:2:9: error: "
        "'stablehlo.cholesky' is not supported by disc-ir: ...`), at parse time when "
        "disc-ir has no definition of the op, else when the compiler finds it has no "
        "lowering (an op on complex numbers before anything is lowered; an op refused "
        "after the import is named in its mhlo form). "
        "test/unit/test_op_catalog.py compiles a minimal module of every op and checks "
        "the status below; test/e2e/test_newer_ops.py checks the numerics of the ops "
        "added for today's dialects against XLA.",
        "",
    ]
    for prefix, title, intro in _SECTIONS:
        ops = [op for op in OPS if op.name.split(".", 1)[0] == prefix]
        lines += [f"## {title}", "", intro, "", "| Op | Status | Notes |", "| --- | --- | --- |"]
        lines += [_row(op) for op in sorted(ops, key=lambda o: o.name)]
        lines.append("")
    lines += [
        "## Types",
        "",
        "Dialect types of refused ops are refused by name where they are parsed:",
        "",
        "| Type | Why |",
        "| --- | --- |",
    ]
    lines += [f"| `!{name}` | {_escape(why)} |" for name, why in UNSUPPORTED_TYPES.items()]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=_COMMAND, description=__doc__)
    parser.add_argument(
        "-o", "--output", default=str(DEFAULT_OUTPUT), help="the file to write, '-' for stdout"
    )
    parser.add_argument("--check", action="store_true", help="fail if the file is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.output == "-":
        sys.stdout.write(text)
        return 0
    out = Path(args.output)
    if args.check:
        if not out.exists() or out.read_text() != text:
            print(f"error: {out} is out of date; run `{_COMMAND}`", file=sys.stderr)
            return 1
        print(f"{out}: up to date ({len(OPS)} ops)")
        return 0
    out.write_text(text)
    print(f"wrote {out} ({len(OPS)} ops)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
