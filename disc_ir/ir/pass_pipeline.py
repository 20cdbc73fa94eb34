"""MLIR's textual pass pipelines, nesting included.

Grammar (as `mlir-opt -pass-pipeline=` accepts it)::

    pipeline  ::= element (`,` element)*
    element   ::= op-name `(` pipeline? `)`        -- a nested pass manager
                | pass-name (`{` options `}`)?
    options   ::= option (ws option)*              -- also `,` between options
    option    ::= key (`=` value)?
    value     ::= `{` balanced `}` | `"` string `"` | `'` string `'` | chars

`parse_pass_pipeline` returns a tree of `PassSpec` / `NestedPipeline`;
`build_pass` turns a spec into a configured pass of the registry, converting
the textual option values to the types the pass's dataclass fields declare.
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from types import NoneType, UnionType
from typing import Any, Union

from xdsl.passes import ModulePass

from disc_ir.passes.registry import (
    closest_pass_names,
    get_pass,
    pass_options,
    type_hints,
)


class PipelineError(Exception):
    """A malformed pipeline, an unknown pass or a bad option value."""


@dataclass
class PassSpec:
    name: str
    options: dict[str, str] = field(default_factory=dict)

    def __str__(self) -> str:
        if not self.options:
            return self.name
        opts = " ".join(f"{k}={v}" if v is not None else k for k, v in self.options.items())
        return f"{self.name}{{{opts}}}"


@dataclass
class NestedPipeline:
    anchor: str
    elements: list[PassSpec | NestedPipeline] = field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.anchor}({','.join(str(e) for e in self.elements)})"


class _Reader:
    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def error(self, msg: str) -> PipelineError:
        return PipelineError(f"{msg} at position {self.pos} in pipeline '{self.text}'")

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def eat(self, ch: str) -> bool:
        self.skip_ws()
        if self.peek() == ch:
            self.pos += 1
            return True
        return False

    def ident(self) -> str:
        self.skip_ws()
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "_-.$"
        ):
            self.pos += 1
        if start == self.pos:
            raise self.error("expected a pass or operation name")
        return self.text[start : self.pos]

    def brace_group(self) -> str:
        """The inside of the balanced `{...}` at the current position."""
        depth, start = 0, self.pos
        while self.pos < len(self.text):
            c = self.text[self.pos]
            depth += c == "{"
            depth -= c == "}"
            self.pos += 1
            if depth == 0:
                return self.text[start + 1 : self.pos - 1]
        raise self.error("unbalanced '{' in pass options")

    def option_value(self) -> str:
        """A value: balanced braces (stripped when they enclose the whole value), a
        quoted string, or chars up to ws/`}` (braces inside kept balanced, as in
        MLIR's `{anonymous}::Pattern` labels)."""
        ch = self.peek()
        if ch == "{":
            start = self.pos
            inside = self.brace_group()
            after = self.peek()
            if not after or after.isspace() or after == "}":
                return inside
            self.pos = start  # `{x}::y`: braces are part of the value
        if ch and ch in "\"'":
            end = self.text.find(ch, self.pos + 1)
            if end < 0:
                raise self.error("unterminated string in option value")
            value = self.text[self.pos + 1 : end]
            self.pos = end + 1
            return value
        start = self.pos
        depth = 0
        while self.pos < len(self.text):
            c = self.text[self.pos]
            if c.isspace() or (c == "}" and depth == 0):
                break
            if c in "[({":
                depth += 1
            elif c in "])}":
                depth -= 1
            self.pos += 1
        return self.text[start : self.pos]


def parse_options(text: str) -> dict[str, str]:
    """Parse `a=1 b=x,y c` (the inside of `{...}` or a quoted flag value)."""
    r = _Reader(text)
    opts: dict[str, str] = {}
    while True:
        r.skip_ws()
        if not r.peek():
            return opts
        if r.peek() == ",":
            r.pos += 1
            continue
        key = r.ident()
        r.skip_ws()
        if r.peek() == "=":
            r.pos += 1
            r.skip_ws()
            opts[key] = r.option_value()
        else:
            opts[key] = "true"


def _parse_elements(r: _Reader, closing: str) -> list[PassSpec | NestedPipeline]:
    elements: list[PassSpec | NestedPipeline] = []
    r.skip_ws()
    if r.peek() == closing or (not closing and not r.peek()):
        return elements
    while True:
        name = r.ident()
        r.skip_ws()
        if r.peek() == "(":
            r.pos += 1
            nested = NestedPipeline(name, _parse_elements(r, ")"))
            if not r.eat(")"):
                raise r.error("expected ')'")
            elements.append(nested)
        elif r.peek() == "{":
            text = r.brace_group()
            elements.append(PassSpec(name, parse_options(text)))
        else:
            elements.append(PassSpec(name))
        r.skip_ws()
        if r.peek() == ",":
            r.pos += 1
            continue
        if r.peek() == closing or (not closing and not r.peek()):
            return elements
        if not r.peek():
            raise r.error(f"expected '{closing}'")
        raise r.error(f"unexpected '{r.peek()}'")


def parse_pass_pipeline(text: str) -> list[PassSpec | NestedPipeline]:
    """Parse an MLIR textual pipeline (`builtin.module(func.func(a{x=1},b))`)."""
    r = _Reader(text.strip())
    elements = _parse_elements(r, "")
    r.skip_ws()
    if r.peek():
        raise r.error("trailing characters")
    return elements


# -- option conversion ------------------------------------------------------------

_TRUE = {"true", "1", "on", "yes"}
_FALSE = {"false", "0", "off", "no"}


def _convert(value: str, typ: Any, where: str) -> Any:
    origin = typing.get_origin(typ)
    if origin in (Union, UnionType):
        args = [a for a in typing.get_args(typ) if a is not NoneType]
        for a in args:
            try:
                return _convert(value, a, where)
            except PipelineError:
                continue
        raise PipelineError(f"{where}: cannot read '{value}' as {typ}")
    if origin is tuple:
        (elem, *_rest) = typing.get_args(typ)
        parts = [p.strip() for p in value.strip("[]").split(",") if p.strip()]
        return tuple(_convert(p, elem, where) for p in parts)
    if typ is bool:
        v = value.lower()
        if v in _TRUE:
            return True
        if v in _FALSE:
            return False
        raise PipelineError(f"{where}: expected true or false, got '{value}'")
    if typ is int:
        try:
            return int(value, 0)
        except ValueError:
            raise PipelineError(f"{where}: expected an integer, got '{value}'") from None
    if typ is float:
        try:
            return float(value)
        except ValueError:
            raise PipelineError(f"{where}: expected a number, got '{value}'") from None
    if typ is str:
        return value
    raise PipelineError(f"{where}: unsupported option type {typ}")


def build_pass(spec: PassSpec) -> ModulePass:
    """Instantiate the registered pass `spec.name` with its textual options."""
    cls = get_pass(spec.name)
    if cls is None:
        close = closest_pass_names(spec.name)
        hint = f" (did you mean: {', '.join(close)}?)" if close else ""
        raise PipelineError(f"unknown pass '{spec.name}'{hint}")
    options = {o.name: o for o in pass_options(cls)}
    hints = type_hints(cls)
    kwargs: dict[str, Any] = {}
    for key, value in spec.options.items():
        opt = options.get(key) or options.get(key.replace("_", "-"))
        if opt is None:
            known = ", ".join(sorted(options)) or "none"
            raise PipelineError(f"pass '{spec.name}' has no option '{key}' (options: {known})")
        kwargs[opt.field_name] = _convert(
            value, hints[opt.field_name], f"option '{key}' of pass '{spec.name}'"
        )
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as err:
        raise PipelineError(f"pass '{spec.name}': {err}") from None


def flatten(elements: list[PassSpec | NestedPipeline]) -> list[tuple[str, PassSpec]]:
    """The passes in run order with the anchor op each was nested under."""
    out: list[tuple[str, PassSpec]] = []

    def walk(items: list[PassSpec | NestedPipeline], anchor: str) -> None:
        for item in items:
            if isinstance(item, NestedPipeline):
                walk(item.elements, item.anchor)
            else:
                out.append((anchor, item))

    walk(elements, "builtin.module")
    return out


def pass_spec_text(p: ModulePass) -> str:
    """The textual form `name{opt=v ...}` of a configured pass (non-defaults only)."""
    parts = []
    for f in dataclasses.fields(p):
        if not f.init or f.name == "name":
            continue
        v = getattr(p, f.name)
        if f.default is not dataclasses.MISSING and v == f.default:
            continue
        if isinstance(v, bool):
            v = str(v).lower()
        elif isinstance(v, tuple):
            v = ",".join(str(x) for x in v)
        parts.append(f"{f.name.replace('_', '-')}={v}")
    return p.name + (f"{{{' '.join(parts)}}}" if parts else "")
