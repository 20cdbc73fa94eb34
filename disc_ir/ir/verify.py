"""Verification that names the failing op, innermost first."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, VerifyException


def first_verify_failure(root: Operation) -> tuple[str, str, Operation] | None:
    """Verify `root`; on failure return (op name, message, op) of the culprit.

    xDSL's verifier raises for the first failing op without saying which; this
    re-verifies op by op (children before parents) to point at it.
    """
    try:
        root.verify()
        return None
    except (VerifyException, DiagnosticException) as exc:
        whole = str(exc)
    for op in _post_order(root):
        try:
            op.verify(verify_nested_ops=False)
        except (VerifyException, DiagnosticException) as exc:
            return op.name, _first_line(str(exc)), op
    return root.name, _first_line(whole), root


def _post_order(op: Operation):
    for region in op.regions:
        for block in region.blocks:
            for child in block.ops:
                yield from _post_order(child)
    yield op


def _first_line(text: str) -> str:
    """The first line of a message; a line ending in ':' (xDSL's "operand 'x'
    at position 0 does not verify:") is joined with the line it introduces."""
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    if not lines:
        return text
    out = lines[0]
    for line in lines[1:]:
        if not out.endswith(":"):
            break
        out = f"{out} {line}"
    return out
