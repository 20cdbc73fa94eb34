"""`disc-opt -verify-diagnostics`: check the diagnostics a run emits against
the `expected-*` comments of its input.

The syntax and the messages follow MLIR's `SourceMgrDiagnosticVerifierHandler`
(mlir/lib/IR/Diagnostics.cpp):

- `// expected-error {{message}}` (also `expected-warning`, `expected-note`,
  `expected-remark`): a diagnostic of that severity whose text contains
  `message` is emitted on this line;
- `@+N` / `@-N` (N lines below / above), `@above` (the last line that is not
  a designator), `@below` (the next such line), `@unknown` (a diagnostic with
  no source location) after the severity;
- `expected-error-re {{a {{[0-9]+}} b}}`: the text outside the inner `{{...}}`
  is matched literally, the text inside as a regular expression;
- a count after the location, as clang's `-verify` has it:
  `expected-error 2 {{...}}` must match exactly twice, `2+` at least twice
  (without a count, at least once).

Every emitted diagnostic must match an expectation on its line, and every
expectation must be matched; failures are reported as MLIR reports them
(`expected error "..." was not produced`, `unexpected error: ...`,
`'warning' diagnostic emitted when expecting a 'error'`), each at
`file:line:col` with its source line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Severity = Literal["error", "warning", "note", "remark"]

#: one designator per line, the line ending with its `}}` (MLIR's pattern, with
#: clang's optional count between the location and the message)
_DESIGNATOR = re.compile(
    r"expected-(error|note|remark|warning)(-re)? *"
    r"(@(?:[+-][0-9]+|above|below|unknown))? *"
    r"(?:([0-9]+)(\+)? *)?"
    r"\{\{(.*)\}\}$"
)


@dataclass(frozen=True)
class EmittedDiagnostic:
    """A diagnostic the tool produced; `line` 0 means no source location."""

    severity: Severity
    filename: str
    line: int
    column: int
    message: str


@dataclass
class ExpectedDiagnostic:
    """One `expected-*` designator and how often it has matched so far."""

    severity: Severity
    line: int  # the line (1-based, in the whole file) the diagnostic must be on; 0: @unknown
    designator_line: int  # where the designator itself is written
    designator_column: int
    text: str
    pattern: re.Pattern[str] | None = None
    min_count: int = 1
    max_count: int | None = None  # None: no upper bound
    seen: int = 0

    def matches(self, message: str) -> bool:
        """Whether `message` contains the expected text (or matches its regex)."""
        if self.pattern is not None:
            return self.pattern.search(message) is not None
        return self.text in message


@dataclass
class Expectations:
    """The designators of one buffer, plus the problems found reading them."""

    diagnostics: list[ExpectedDiagnostic] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _expected_regex(text: str) -> re.Pattern[str] | str:
    """`text` with its `{{...}}` blocks as regex and the rest literal, compiled;
    a string stating the problem when a block is unterminated or invalid."""
    parts: list[str] = []
    rest = text
    while rest:
        start = rest.find("{{")
        if start < 0:
            parts.append(re.escape(rest))
            break
        parts.append(re.escape(rest[:start]))
        rest = rest[start + 2 :]
        end = rest.find("}}")
        if end < 0:
            return "found start of regex with no end '}}'"
        block = rest[:end]
        try:
            re.compile(block)
        except re.error as exc:
            return f"invalid regex: {exc}"
        parts.append(f"({block})")
        rest = rest[end + 2 :]
    return re.compile("".join(parts))


def _located(filename: str, line: int, column: int, message: str, source_line: str) -> str:
    """`file:line:col: error: message`, then the source line and a caret under `column`."""
    text = f"{filename}:{line}:{column}: error: {message}"
    if source_line:
        text += "\n" + source_line + "\n" + " " * max(0, column - 1) + "^"
    return text


def parse_expectations(text: str, filename: str, line_offset: int = 0) -> Expectations:
    """The designators in `text`, a buffer whose first line is line
    `line_offset + 1` of `filename`."""
    found = Expectations()
    lines = text.split("\n")
    last_plain_line = 0  # 0-based, in `text`
    pending_below: list[ExpectedDiagnostic] = []
    for index, raw in enumerate(lines):
        line = raw.rstrip()
        match = _DESIGNATOR.search(line)
        if match is None:
            for expected in pending_below:
                expected.line = line_offset + index + 1
            pending_below.clear()
            last_plain_line = index
            continue
        kind, is_regex, where, count, at_least, body = match.groups()
        expected = ExpectedDiagnostic(
            severity=kind,  # type: ignore[arg-type]  # the regex admits only error|warning|note|remark
            line=line_offset + index + 1,
            designator_line=line_offset + index + 1,
            designator_column=match.start() + 1,
            text=body,
        )
        if is_regex:
            compiled = _expected_regex(body)
            if isinstance(compiled, str):
                found.problems.append(
                    _located(filename, expected.line, expected.designator_column, compiled, raw)
                )
                continue
            expected.pattern = compiled
        if count is not None:
            expected.min_count = int(count)
            expected.max_count = None if at_least else int(count)
        if where == "@unknown":
            expected.line = 0
        elif where == "@above":
            expected.line = line_offset + last_plain_line + 1
        elif where == "@below":
            expected.line = line_offset + len(lines)  # if nothing follows
            pending_below.append(expected)
        elif where is not None:
            offset = int(where[2:])
            expected.line += offset if where[1] == "+" else -offset
        found.diagnostics.append(expected)
    return found


def verify_diagnostics(
    expectations: Expectations,
    emitted: list[EmittedDiagnostic],
    source_lines: dict[str, list[str]],
) -> list[str]:
    """Match `emitted` against `expectations`; the failure messages, in MLIR's
    wording, each at `file:line:col` (empty when everything matched).

    `source_lines` maps a file name to its lines, to quote them.
    """

    def quote(filename: str, line: int) -> str:
        lines = source_lines.get(filename, [])
        return lines[line - 1] if 0 < line <= len(lines) else ""

    failures = list(expectations.problems)
    designator_file = next(iter(source_lines), "<stdin>")
    for diag in emitted:
        near_miss: ExpectedDiagnostic | None = None
        matched = False
        for expected in expectations.diagnostics:
            if expected.line != diag.line or not expected.matches(diag.message):
                continue
            if expected.severity != diag.severity:
                near_miss = expected
                continue
            if expected.max_count is not None and expected.seen >= expected.max_count:
                continue
            expected.seen += 1
            matched = True
            break
        if matched:
            continue
        if near_miss is not None:
            failures.append(
                _located(
                    designator_file,
                    near_miss.designator_line,
                    near_miss.designator_column,
                    f"'{diag.severity}' diagnostic emitted when expecting a '{near_miss.severity}'",
                    quote(designator_file, near_miss.designator_line),
                )
            )
        elif diag.line > 0:
            failures.append(
                _located(
                    diag.filename,
                    diag.line,
                    diag.column,
                    f"unexpected {diag.severity}: {diag.message}",
                    quote(diag.filename, diag.line),
                )
            )
        else:
            failures.append(f"{diag.filename}: error: unexpected {diag.severity}: {diag.message}")
    for expected in expectations.diagnostics:
        if expected.seen >= expected.min_count:
            continue
        if expected.seen == 0:
            problem = f'expected {expected.severity} "{expected.text}" was not produced'
        else:
            times = "time" if expected.seen == 1 else "times"
            problem = (
                f'expected {expected.severity} "{expected.text}" was produced '
                f"{expected.seen} {times}, expected {expected.min_count}"
            )
        failures.append(
            _located(
                designator_file,
                expected.designator_line,
                expected.designator_column,
                problem,
                quote(designator_file, expected.designator_line),
            )
        )
    return failures
