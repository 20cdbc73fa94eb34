"""Diagnostics the compiler raises about its input (`RejectedInput`).

The input-checking passes (`disc-reject-unsupported-element-types`,
`disc-reject-unlowered-tensor-ops`, the importers and the run-time check
inserters) raise it with a message that names the offending op and its input
line. It is a `DiagnosticException`, so disc-opt prints it as any pass
failure; `disc_ir.compile` reports its message as is (a `CompileError`
without the "pass ... failed" prefix), since it describes the program, not
the pass.
"""

from __future__ import annotations

from xdsl.utils.exceptions import DiagnosticException


class RejectedInput(DiagnosticException):
    """The program uses something the pipeline does not compile (see the message)."""


__all__ = ["RejectedInput"]
