"""Parsing MLIR text into xDSL modules, with MLIR-style diagnostics.

`DiscParser` extends xDSL's parser where BladeDISC's IR needs it: generic ops
may carry their inherent attributes either in the attribute dictionary (the
MLIR of BladeDISC's time) or as properties `<{...}>` (today's MLIR); both land
where the op definition declares them.
"""

from __future__ import annotations

import functools
import math
import re
import struct
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    BFloat16Type,
    CallSiteLoc,
    ComplexType,
    DenseIntOrFPElementsAttr,
    FileLineColLoc,
    Float16Type,
    Float32Type,
    Float64Type,
    FusedLoc,
    IndexType,
    IntAttr,
    IntegerType,
    LocationAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    RankedStructure,
    StringAttr,
    UnknownLoc,
)
from xdsl.ir import Attribute, Operation
from xdsl.irdl import AttrConstraint, IRDLOperation, base
from xdsl.parser import Parser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import DiagnosticException, ParseError
from xdsl.utils.lexer import Input, Position, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from disc_ir.ir.walk import preorder_ops

_SOURCE_LOCATIONS: weakref.WeakKeyDictionary[Operation, tuple[int, int]] = (
    weakref.WeakKeyDictionary()
)


def source_location(op: Operation) -> tuple[int, int] | None:
    """(line, column) where `op` was parsed from, if it came from text."""
    return _SOURCE_LOCATIONS.get(op)


_FLOAT_BITS = {Float16Type: ("<e", "<H"), Float32Type: ("<f", "<I"), Float64Type: ("<d", "<Q")}


class _HexLiteralElement(Parser._TensorLiteralElement):
    """A tensor-literal element written in hex: for float types it gives the
    bit pattern (MLIR's `dense<0xFF800000> : tensor<f32>` is -inf)."""

    def to_float(self, parser, type=None):  # noqa: ANN001
        return float(self.value)

    def to_type(self, parser, type):  # noqa: ANN001
        if isinstance(type, AnyFloat):
            bits = int(self.value)
            if isinstance(type, BFloat16Type):
                return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]
            fmt = _FLOAT_BITS.get(builtin_type := type.__class__)
            if fmt is None:
                parser.raise_error(
                    f"hex float literal not supported for {builtin_type.__name__}",
                    at_position=self.span,
                )
            float_fmt, int_fmt = fmt
            width = struct.calcsize(int_fmt) * 8
            if bits >= 1 << width:
                parser.raise_error(f"hex literal does not fit {type}", at_position=self.span)
            return struct.unpack(float_fmt, struct.pack(int_fmt, bits))[0]
        return super().to_type(parser, type)


# The description of a placeholder for a location alias used before its
# definition (MLIR's deferred location aliases); resolved after parsing.
_DEFERRED = "\0deferred-location-alias:"
#: the locations JAX and MLIR print most, read in one match (xDSL takes 4 to 8
#: tokens each): `loc(unknown)`, `loc(#alias)`, `loc("name")`,
#: `loc("name"(#alias))`, `loc("file":line:col)` (a range's end, `to :col` or
#: `to line:col`, is dropped as `DiscParser._parse_location` drops it) and
#: `loc(callsite(#alias at #alias))`, with no escape in the string
_FAST_LOCATION = re.compile(
    r'loc\((?:(unknown)|(#[\w$.\-]+)|"([^"\\\n]*)"'
    r"(?::(\d+):(\d+)(?: to (?:\d+)?:\d+)?|\((#[\w$.\-]+)\))?"
    r"|callsite\((#[\w$.\-]+) at (#[\w$.\-]+)\))\)"
)


#: A ranked tensor / memref / vector type with static or dynamic sizes, a
#: plain element type and nothing else (no encoding, layout or memory space):
#: the text alone decides the type, so its parse is memoised by text.
_PLAIN_SHAPED_TYPE = re.compile(r"(?:tensor|memref|vector)<(?:(?:[0-9]+|\?)x)*[a-z]+[0-9]*>")
#: A function type over such types and scalars (`(tensor<?x768xf32>, f32) ->
#: tensor<?x768xf32>`, the tail of most StableHLO / MHLO ops), as printed
#: (", " between types): memoised by text likewise.
_PLAIN_TYPE_TEXT = r"(?:(?:tensor|memref|vector)<(?:(?:[0-9]+|\?)x)*[a-z]+[0-9]*>|[a-z]+[0-9]*)"
_PLAIN_TYPE_LIST = rf"\((?:{_PLAIN_TYPE_TEXT}(?:, {_PLAIN_TYPE_TEXT})*)?\)"
_PLAIN_FUNCTION_TYPE = re.compile(
    rf"{_PLAIN_TYPE_LIST} -> (?:{_PLAIN_TYPE_TEXT}|{_PLAIN_TYPE_LIST})(?![\w<.$-])"
)
_TYPE_MEMO: dict[str, Attribute] = {}
_TYPE_MEMO_LIMIT = 1 << 14


#: the most elements a dense literal may have: xDSL materialises a splat as a
#: Python list of that many values
_DENSE_ELEMENT_LIMIT = 1 << 26


class _DiscLexer(MLIRLexer):
    """xDSL's MLIR lexer, with a string-literal pattern that fails in linear
    time: xDSL's (`(?:[^"...]+|escape)*`, nested repetition) backtracks
    exponentially over an unterminated string. Here runs of plain characters
    are separated by escapes, which start with the only character a run
    excludes besides the quote: one way to match, so linear."""

    _unescaped_characters_regex = re.compile(
        r'"[^"\\\n\v\f]*(?:\\(?:["nt\\]|[0-9A-Fa-f]{2})[^"\\\n\v\f]*)*"'
    )


@functools.cache
def _dense_literal_type_constraint() -> AttrConstraint:
    """What xDSL's parser requires of a dense literal's type (built once)."""
    return base(RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType])  # type: ignore[misc]  # xDSL's own constraint; mypy cannot apply a generic type alias at run time


class DiscParser(Parser):
    """xDSL's parser, accepting inherent attributes as properties or attributes,
    and remembering where each op came from (for located verifier errors)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>") -> None:  # noqa: A002 - xDSL's signature
        # xDSL's constructor lexes the first token with its own lexer: give it
        # nothing to lex, then start over on `input` with `_DiscLexer`
        super().__init__(ctx, "", name)
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._parser_state = ParserState(_DiscLexer(Input(text, name)))
        #: (dialect, key as written) -> the handle its manager declared
        self._resource_handles: dict[tuple[str, str], str] = {}

    def _parse_dialect_resource_handle(
        self, dialect_name: str, interface: OpAsmDialectInterface
    ) -> str:
        """xDSL's, with every use of a key (and its section entry) mapped to the
        one handle declared for it: a key the context already holds is renamed
        once, not at each use."""
        key = self.parse_identifier(" for resource handle")
        found = self._resource_handles.get((dialect_name, key))
        if found is None:
            found = interface.declare_resource(key)
            self._resource_handles[dialect_name, key] = found
        return found

    def _parse_resource(self, dialect_name: str, interface: OpAsmDialectInterface) -> None:
        """xDSL's, with a malformed blob reported at its string."""
        key = self._parse_dialect_resource_handle(dialect_name, interface)
        self.parse_punctuation(":")
        span = self._current_token.span
        value = self.parse_str_literal()
        try:
            interface.parse_resource(key, value)
        except (ValueError, KeyError) as exc:
            message = exc.args[0] if exc.args else str(exc)
            raise ParseError(span, f"resource '{key}': {message}") from None

    def _parse_location(self):  # noqa: ANN202 - xDSL's LocationAttr
        token = self._current_token
        if token.kind == MLIRTokenKind.HASH_IDENT and token.text not in self.attribute_aliases:
            self._consume_token(MLIRTokenKind.HASH_IDENT)
            return NameLoc(StringAttr(_DEFERRED + token.text), NoneAttr())
        if token.kind == MLIRTokenKind.STRING_LIT:
            start = self.pos
            filename = self.parse_str_literal()
            if self.parse_optional_punctuation(":") is None:
                self._resume_from(start)
                return super()._parse_location()
            line = self.parse_integer(False, False)
            self.parse_punctuation(":")
            col = self.parse_integer(False, False)
            if self.parse_optional_keyword("to") is not None:
                # `to :C`, `to L:C`: the end of a range, dropped.
                if self.parse_optional_punctuation(":") is None:
                    self.parse_integer(False, False)
                    self.parse_punctuation(":")
                self.parse_integer(False, False)
            return FileLineColLoc(StringAttr(filename), IntAttr(line), IntAttr(col))
        return super()._parse_location()

    def _alias_location(self, name: str) -> Attribute | None:
        """Location alias `name` (`#...`): its value when defined (None when it
        is not a location), else a placeholder resolved at the module's end."""
        if name in self.attribute_aliases:
            value = self.attribute_aliases[name]
            return value if isinstance(value, LocationAttr) else None
        return NameLoc(StringAttr(_DEFERRED + name), NoneAttr())

    def parse_optional_location(self):  # noqa: ANN201 - xDSL's LocationAttr | None
        token = self._current_token
        if token.kind == MLIRTokenKind.BARE_IDENT and token.text == "loc":
            match = _FAST_LOCATION.match(self.lexer.input.content, token.span.start)
            if match is not None:
                unknown, alias, name, line, col, child, callee, caller = match.groups()
                loc: Attribute | None
                if unknown is not None:
                    loc = UnknownLoc()
                elif alias is not None:
                    loc = self._alias_location(alias)
                elif callee is not None:
                    parts = (self._alias_location(callee), self._alias_location(caller))
                    loc = None if None in parts else CallSiteLoc(*parts)
                elif line is not None:
                    loc = FileLineColLoc(StringAttr(name), IntAttr(int(line)), IntAttr(int(col)))
                elif child is not None:
                    inner = self._alias_location(child)
                    loc = None if inner is None else NameLoc(StringAttr(name), inner)
                else:
                    loc = NameLoc(StringAttr(name), NoneAttr())
                if loc is not None:
                    self._resume_from(match.end())
                    return loc
        return super().parse_optional_location()

    def parse_optional_type(self):  # noqa: ANN201 - xDSL's TypeAttribute | None
        # Large graphs spell the same few shaped and function types thousands
        # of times; xDSL lexes and builds each anew: a type seen before is
        # taken whole.
        token = self._current_token
        if token.kind == MLIRTokenKind.BARE_IDENT and token.text in ("tensor", "memref", "vector"):
            return self._memoised_type(_PLAIN_SHAPED_TYPE, super().parse_optional_type)
        return super().parse_optional_type()

    def parse_optional_function_type(self):  # noqa: ANN201 - xDSL's FunctionType | None
        # also reached from `parse_optional_type` and generic ops' signatures
        if self._current_token.kind != MLIRTokenKind.L_PAREN:
            return super().parse_optional_function_type()
        return self._memoised_type(_PLAIN_FUNCTION_TYPE, super().parse_optional_function_type)

    def _memoised_type(self, pattern: re.Pattern[str], parse: Callable[[], Attribute | None]):  # noqa: ANN202
        """`parse()`, or the type parsed before from the same text when
        `pattern` matches at the current token (then parsing resumes after it)."""
        content = self.lexer.input.content
        match = pattern.match(content, self._current_token.span.start)
        if match is None:
            return parse()
        text = match.group(0)
        found = _TYPE_MEMO.get(text)
        if found is not None:
            self._resume_from(match.end())
            return found
        parsed = parse()
        # kept only when the parse read exactly the matched text
        end = self._current_token.span.start
        if (
            parsed is not None
            and len(_TYPE_MEMO) < _TYPE_MEMO_LIMIT
            and end >= match.end()
            and not content[match.end() : end].strip()
        ):
            _TYPE_MEMO[text] = parsed
        return parsed

    def _get_op_by_name(self, name: str) -> type[Operation]:
        """xDSL's, with an unknown op's error at its name (not the token after it)."""
        found = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)
        if found is not None:
            return found
        here = self._current_token.span
        content = here.input.content
        start = content.rfind(name, 0, here.start)
        span = Span(start, start + len(name), here.input) if start >= 0 else here
        # an op of today's StableHLO / CHLO / mhlo that disc-ir refuses: say so
        from disc_ir.dialects.op_catalog import refusal_message

        refused = refusal_message(name)
        if refused is not None:
            raise ParseError(span, refused)
        # MLIR's messages for the three cases
        dialect = name.split(".", 1)[0]
        if start > 0 and content[start - 1] != '"':
            message = f"custom op '{name}' is unknown"
        elif dialect in self.ctx.registered_dialect_names:
            message = (
                f"unregistered operation '{name}' found in dialect ('{dialect}') that does "
                "not allow unknown operations"
            )
        else:
            message = (
                f"operation '{name}' being parsed with an unregistered dialect; if this is "
                "intended, use --allow-unregistered-dialect"
            )
        raise ParseError(span, message)

    def _parse_dialect_type_or_attribute_body(  # noqa: ANN202 - xDSL's signature
        self,
        attr_name: str,
        is_type: bool,
        is_opaque: bool,
        starting_opaque_pos: Position | None,
    ):
        """xDSL's, refusing by name the types of ops disc-ir does not support
        (`!stablehlo.token` ...) rather than calling them unregistered."""
        if is_type and self.ctx.get_optional_type(attr_name) is None:
            from disc_ir.dialects.op_catalog import type_refusal_message

            refused = type_refusal_message(attr_name)
            if refused is not None:
                self.raise_error(refused)
        return super()._parse_dialect_type_or_attribute_body(
            attr_name, is_type, is_opaque, starting_opaque_pos
        )

    def resolve_operand(self, operand, type):  # noqa: ANN001, ANN201, A002 - xDSL's signature
        """xDSL's, remembering where each value not yet defined is first used."""
        name = operand.operand_name
        if name not in self.ssa_values and name not in self.forward_ssa_references:
            self._first_uses[name] = operand.span
        return super().resolve_operand(operand, type)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        self._first_uses: dict[str, Span] = {}
        try:
            module = super().parse_module(allow_implicit_module)
        except ParseError as err:
            undefined = [n for n in self.forward_ssa_references if n in self._first_uses]
            if not undefined or "values used but not defined" not in str(err):
                raise
            # xDSL reports these at the end of the input: point at the first use
            name = min(undefined, key=lambda n: self._first_uses[n].start)
            raise ParseError(
                self._first_uses[name], f"use of undefined SSA value %{name}"
            ) from None
        self._resolve_deferred_locations(module)
        return module

    def _resolve_deferred_locations(self, module: ModuleOp) -> None:
        cache: dict[Attribute, Attribute] = {}

        def resolve(loc: Attribute, depth: int = 0) -> Attribute:
            if loc in cache:
                return cache[loc]
            out = loc
            if depth > 64:
                out = loc
            elif isinstance(loc, NameLoc) and loc.desc.data.startswith(_DEFERRED):
                alias = loc.desc.data[len(_DEFERRED) :]
                target = self.attribute_aliases.get(alias)
                if target is None:
                    raise ParseError(
                        self._current_token.span, f"undefined location alias '{alias}'"
                    )
                out = resolve(target, depth + 1)
            elif isinstance(loc, NameLoc) and not isinstance(loc.location, NoneAttr):
                out = NameLoc(loc.desc, resolve(loc.location, depth + 1))
            elif isinstance(loc, CallSiteLoc):
                out = CallSiteLoc(resolve(loc.callee, depth + 1), resolve(loc.caller, depth + 1))
            elif isinstance(loc, FusedLoc):
                # FusedLoc's converter takes the list
                out = FusedLoc(
                    [resolve(x, depth + 1) for x in cast(ArrayAttr, loc.locations).data],  # type: ignore[arg-type]
                    loc.metadata,
                )
            cache[loc] = out
            return out

        for op in preorder_ops(module):
            op.location = resolve(op.location)  # type: ignore[assignment]  # resolve() maps a location to a location
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        arg.location = resolve(arg.location)

    def _parse_tensor_literal_element(self) -> Parser._TensorLiteralElement:
        text = self._current_token.text
        element = super()._parse_tensor_literal_element()
        if (
            text[:2] in ("0x", "0X")
            and isinstance(element.value, int)
            and not isinstance(element.value, bool)
        ):
            return _HexLiteralElement(element.is_negative, element.value, element.span)
        return element

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        op = super().parse_operation()
        _SOURCE_LOCATIONS[op] = self._line_and_column(span)
        return op

    def _line_and_column(self, span: Span) -> tuple[int, int]:
        """`span.get_location()`'s line and column, counting the newlines from
        the previous op's start instead of from the start of the input (ops
        start in increasing order: parsing stays linear in the input size)."""
        source = span.input
        start = span.start
        state = self.__dict__.get("_disc_line_state")
        if state is None or state[0] is not source or start < state[1]:
            state = (source, 0, 0)
        newlines = state[2] + source.content.count(source.newline, state[1], start)
        self.__dict__["_disc_line_state"] = (source, start, newlines)
        column = start - source.get_start_of_line(start) + 1
        return newlines + 1 + span.line_offset, column

    def _parse_dense_literal_type(
        self,
    ) -> RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType]:
        # xDSL's, with the type constraint built once instead of per literal
        type = self.expect(self.parse_optional_type, "Dense attribute must be typed!")
        if not _dense_literal_type_constraint().verifies(type):
            self.raise_error(
                "Expected memref, vector or tensor type of integer, index, float, or complex type"
            )
        shape = list(type.get_shape())  # type: ignore[attr-defined]  # the constraint check above makes `type` shaped
        if any(dim == DYNAMIC_INDEX for dim in shape):
            self.raise_error("Dense literal attribute should have a static shape.")
        if math.prod(shape) > _DENSE_ELEMENT_LIMIT:
            self.raise_error(
                f"dense literal of {math.prod(shape)} elements is too large"
                f" (at most {_DENSE_ELEMENT_LIMIT})"
            )
        return type  # type: ignore[return-value]  # the constraint check above makes `type` a ranked structure

    def parse_dense_int_or_fp_elements_attr(
        self,
        type: RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType] | None,  # noqa: A002 - xDSL's signature
    ) -> DenseIntOrFPElementsAttr:
        """xDSL's, with a value that does not fit the element type (which xDSL
        raises as ValueError) reported as a parse error at the literal."""
        start = self._current_token.span.start
        try:
            return super().parse_dense_int_or_fp_elements_attr(type)
        except (ValueError, OverflowError, NotImplementedError, DiagnosticException) as exc:
            end = max(start + 1, self._current_token.span.start)
            raise ParseError(Span(start, end, self.lexer.input), str(exc)) from None

    def _parse_generic_operation(self, op_type: type[Operation]) -> Operation:
        op = super()._parse_generic_operation(op_type)
        if issubclass(op_type, IRDLOperation) and op.properties:
            op_def = op_type.get_irdl_definition()
            for name in list(op.properties):
                if name not in op_def.properties and name in op_def.attributes:
                    op.attributes.setdefault(name, op.properties.pop(name))
        return op


@dataclass
class Diagnostic(Exception):
    """A user-facing error located in the source: `file:line:col: error: msg`."""

    filename: str
    line: int
    column: int
    message: str
    source_line: str = ""
    caret_len: int = 1

    def __str__(self) -> str:
        text = f"{self.filename}:{self.line}:{self.column}: error: {self.message}"
        if self.source_line:
            text += (
                "\n"
                + self.source_line
                + "\n"
                + " " * (self.column - 1)
                + "^" * max(1, self.caret_len)
            )
        return text


def diagnostic_from_parse_error(err: ParseError) -> Diagnostic:
    """Turn xDSL's ParseError into a located Diagnostic."""
    span = err.span
    loc = span.get_location()
    text = span.input.content
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    start = text.rfind("\n", 0, span.start) + 1
    end = text.find("\n", span.start)
    line = text[start : end if end >= 0 else len(text)]
    caret = max(1, min(span.end, end if end >= 0 else len(text)) - span.start)
    return Diagnostic(loc.file, loc.line, loc.col, err.msg.strip(), line, caret)


def parse_module(
    ctx: Context, text: str, filename: str = "<stdin>", line_offset: int = 0
) -> ModuleOp:
    """Parse `text` (optionally a chunk starting at `line_offset`) into a module.

    Raises `Diagnostic` with the file, line and column of the first error.
    """
    padded = "\n" * line_offset + text
    parser: DiscParser | None = None
    try:
        parser = DiscParser(ctx, padded, filename)
        return parser.parse_module()
    except ParseError as err:
        raise diagnostic_from_parse_error(err) from None
    except (
        RecursionError,
        MemoryError,
        ValueError,
        OverflowError,
        NotImplementedError,
        DiagnosticException,
        KeyError,
        IndexError,
        struct.error,
    ) as exc:
        # Python's stack (or memory) ran out in the recursive-descent parser,
        # or an xDSL constructor or constraint rejected a value the parser let
        # through: reported at the token reached, like any parse error
        if parser is None:
            raise
        if isinstance(exc, RecursionError):
            problem = "nesting too deep to parse (Python's recursion limit)"
        elif isinstance(exc, MemoryError):
            problem = "out of memory while parsing"
        elif isinstance(exc, LookupError):  # xDSL's parser met a state it does not expect
            problem = f"malformed input ({type(exc).__name__}: {exc})"
        elif isinstance(exc, struct.error):  # a value packed into too narrow a type
            problem = f"value does not fit its type ({exc})"
        else:
            problem = str(exc).strip() or type(exc).__name__
        raise diagnostic_from_parse_error(ParseError(parser._current_token.span, problem)) from None
