"""Verification that names the failing op, innermost first."""

from __future__ import annotations

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, VerifyException

from disc_ir.ir.fingerprint import fingerprint, matches_fingerprint


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


class VerifyEach:
    """`first_verify_failure` after every pass, skipped where the pass left the IR as it was.

    After a root verifies, a snapshot of it (`disc_ir.ir.fingerprint`) is
    kept; the next `first_failure(root)` compares the root with it first and,
    when nothing changed (no op created, erased or moved, no operand,
    attribute, property or type replaced), returns None without verifying
    again: an unchanged IR verifies as it did. Roots are told apart by
    identity (the host and kernel modules of a split pipeline each keep
    their own snapshot).
    """

    def __init__(self) -> None:
        self._verified: dict[int, tuple[Operation, list[object]]] = {}

    def first_failure(self, root: Operation) -> tuple[str, str, Operation] | None:
        """`first_verify_failure(root)`, or None at once when `root` is unchanged
        since it last verified here."""
        known = self._verified.get(id(root))
        if known is not None and known[0] is root and matches_fingerprint(root, known[1]):
            return None
        failure = first_verify_failure(root)
        if failure is None:
            self._verified[id(root)] = (root, fingerprint(root))
        else:
            self._verified.pop(id(root), None)
        return failure


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
