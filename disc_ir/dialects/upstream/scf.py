"""The upstream `scf` dialect as disc-ir registers it.

xDSL's `scf.for`, `scf.while`, `scf.yield`, `scf.condition`,
`scf.index_switch` print as MLIR does and are kept. Replaced here (subclasses
of xDSL's classes, same op names):

* `scf.parallel (%i, %j) = (%a, %b) to (%c, %d) step (%e, %f) [init (%x) -> T] { ... }`
  -- xDSL has no custom syntax for it. The loop is held in today's MLIR form:
  the body ends with one `scf.reduce` that carries every reduced value and a
  region per value. BladeDISC's MLIR wrote each reduction as a
  `scf.reduce(%v) : T { ... }` op inside the body and ended the body with an
  (implicit) `scf.yield`; such input is read and normalized to today's form.
  An empty terminator prints as BladeDISC's MLIR printed it, `scf.yield`
  (disc_ir.ir.printer; both MLIR versions parse that form);
* `scf.reduce(%v : T) { ... }` (today) and `scf.reduce(%v) : T { ... }`
  (BladeDISC's MLIR) are both read; today's form is printed;
* `scf.if` / `scf.execute_region` -- print their attribute dictionary as
  MLIR does (` {attr}` after the regions; xDSL omits the space, and drops
  the dictionary of `scf.execute_region` when parsing), and
  `scf.execute_region -> T` without parentheses around a single type.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects import scf as xscf
from xdsl.dialects.builtin import IndexType, i1
from xdsl.dialects.utils import parse_assignment
from xdsl.ir import Attribute, Block, Dialect, Operation, Region, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import SingleBlockImplicitTerminator, ensure_terminator


def _parse_arrow_type_list(parser: Parser) -> list[Attribute]:
    """MLIR's `parseArrowTypeList` after the `->`: `(T1, T2)`, `()` or a single `T`."""
    types = parser.parse_optional_comma_separated_list(parser.Delimiter.PAREN, parser.parse_type)
    return list(types) if types is not None else [parser.parse_type()]


def _print_types_arrow(printer: Printer, types: tuple[Attribute, ...]) -> None:
    """MLIR's `printOptionalArrowTypeList`."""
    if not types:
        return
    printer.print_string(" -> ")
    if len(types) > 1:
        printer.print_string("(")
    printer.print_list(types, printer.print_attribute)
    if len(types) > 1:
        printer.print_string(")")


class ReduceOp(xscf.ReduceOp):
    """`scf.reduce(%a, %b : f32, i32) {^bb0(%l: f32, %r: f32): ...}, {...}`.

    The terminator of `scf.parallel`: one region per reduced operand, each
    combining two partial values with `scf.reduce.return`. BladeDISC's MLIR
    spelled a single reduction `scf.reduce(%a) : f32 { ... }`.
    """

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        operands: Sequence[SSAValue] = []
        if parser.parse_optional_punctuation("("):
            unresolved: list[UnresolvedOperand] = parser.parse_comma_separated_list(
                parser.Delimiter.NONE, parser.parse_unresolved_operand
            )
            if parser.parse_optional_punctuation(")"):
                # BladeDISC's MLIR: `scf.reduce(%v) : T`
                parser.parse_punctuation(":")
                types = [parser.parse_type()]
            else:
                parser.parse_punctuation(":")
                types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
                parser.parse_punctuation(")")
            operands = parser.resolve_operands(unresolved, types, parser.pos)
        regions: list[Region] = []
        region = parser.parse_optional_region()
        while region is not None:
            regions.append(region)
            if parser.parse_optional_punctuation(",") is None:
                break
            region = parser.parse_region()
        op = cls(operands, regions)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        if self.args:
            printer.print_string("(")
            printer.print_list(self.args, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list(self.args.types, printer.print_attribute)
            printer.print_string(")")
        for i, region in enumerate(self.reductions):
            printer.print_string(", " if i else " ")
            printer.print_region(region)
        printer.print_op_attributes(self.attributes)


class ParallelOp(xscf.ParallelOp):
    """`scf.parallel (%i) = (%lb) to (%ub) step (%s) [init (%x) -> T] { ... }`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        ivs = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
        )
        parser.parse_punctuation("=")
        index = IndexType()

        def index_list() -> list[SSAValue]:
            return parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parser.parse_operand(index)
            )

        lower = index_list()
        parser.parse_keyword("to")
        upper = index_list()
        parser.parse_keyword("step")
        steps = index_list()
        init_unresolved: list[UnresolvedOperand] = []
        if parser.parse_optional_keyword("init") is not None:
            init_unresolved = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_unresolved_operand
            )
        result_types: list[Attribute] = []
        pos = parser.pos
        if parser.parse_optional_punctuation("->"):
            types = parser.parse_optional_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
            result_types = list(types) if types is not None else [parser.parse_type()]
        if len(result_types) != len(init_unresolved):
            parser.raise_error(
                f"expected {len(init_unresolved)} result types for the init values, "
                f"got {len(result_types)}",
                at_position=pos,
            )
        inits = parser.resolve_operands(init_unresolved, result_types, pos)
        body = parser.parse_region([iv.resolve(index) for iv in ivs])
        attrs = parser.parse_optional_attr_dict()
        if not body.blocks:
            body.add_block(Block(arg_types=[index] * len(ivs)))
        cls._normalize_reductions(body.block)
        op = cls(lower, upper, steps, body, inits)
        op.attributes |= attrs
        return op

    @staticmethod
    def _normalize_reductions(block: Block) -> None:
        """Rewrite the body into today's form: a single `scf.reduce` terminator.

        BladeDISC's MLIR kept each reduction as a separate `scf.reduce` op in
        the body, terminated by `scf.yield`; their operands and regions are
        moved, in order, to one terminating `scf.reduce`.
        """
        last = block.last_op
        if isinstance(last, xscf.ReduceOp):
            return
        if isinstance(last, xscf.YieldOp) and not last.operands:
            block.erase_op(last)
        reduces = [op for op in block.ops if isinstance(op, xscf.ReduceOp)]
        args: list[SSAValue] = []
        regions: list[Region] = []
        for reduce in reduces:
            args.extend(reduce.args)
            for region in reduce.reductions:
                moved = Region()
                region.move_blocks(moved)
                regions.append(moved)
            block.erase_op(reduce)
        block.add_op(ReduceOp(args, regions))

    def print(self, printer: Printer) -> None:
        printer.print_string(" (")
        printer.print_list(self.body.block.args, printer.print_operand)
        printer.print_string(") = (")
        printer.print_list(self.lowerBound, printer.print_operand)
        printer.print_string(") to (")
        printer.print_list(self.upperBound, printer.print_operand)
        printer.print_string(") step (")
        printer.print_list(self.step, printer.print_operand)
        printer.print_string(")")
        if self.initVals:
            printer.print_string(" init (")
            printer.print_list(self.initVals, printer.print_operand)
            printer.print_string(")")
        _print_types_arrow(printer, tuple(self.res.types))
        printer.print_string(" ")
        printer.print_region(
            self.body,
            print_entry_block_args=False,
            print_block_terminators=True,
        )
        printer.print_op_attributes(self.attributes)


class IfOp(xscf.IfOp):
    """`scf.if %c [-> (T)] { ... } [else { ... }] [{attrs}]`.

    As MLIR's parser, a single result type may be written without parentheses
    (`-> T`); the printer always writes `-> (T, ...)` as MLIR's `IfOp::print`.
    """

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        cond = parser.parse_operand(i1)
        return_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            return_types = _parse_arrow_type_list(parser)
        then_region = cls.parse_region_with_yield(parser)
        else_region = (
            cls.parse_region_with_yield(parser)
            if parser.parse_optional_keyword("else")
            else Region()
        )
        attr_dict = parser.parse_optional_attr_dict()
        return cls(cond, return_types, then_region, else_region, attr_dict)

    def print(self, printer: Printer) -> None:
        attrs = self.attributes
        self.attributes = {}
        try:
            super().print(printer)
        finally:
            self.attributes = attrs
        printer.print_op_attributes(attrs)


class ForOp(xscf.ForOp):
    """`scf.for %i = %lb to %ub step %s [iter_args(%a = %x) -> (T)] [: type] { ... }`.

    As MLIR's parser, the iter_args result types may be a single type without
    parentheses (`-> T`); the printer writes `-> (T, ...)` as MLIR's `ForOp::print`.
    """

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        indvar = parser.parse_argument(expect_type=False)
        parser.parse_punctuation("=")
        lb = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        ub = parser.parse_unresolved_operand()
        parser.parse_keyword("step")
        step = parser.parse_unresolved_operand()
        pos = parser.pos
        iter_args: list[Parser.UnresolvedArgument] = []
        inits: list[UnresolvedOperand] = []
        types: list[Attribute] = []
        if parser.parse_optional_keyword("iter_args"):
            for arg, init in parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, lambda: parse_assignment(parser)
            ):
                iter_args.append(arg)
                inits.append(init)
            parser.parse_punctuation("->")
            types = _parse_arrow_type_list(parser)
        init_values = parser.resolve_operands(inits, types, pos)
        block_args = [arg.resolve(t) for arg, t in zip(iter_args, types, strict=False)]
        indvar_type = parser.parse_type() if parser.parse_optional_punctuation(":") else IndexType()
        bounds = [parser.resolve_operand(v, indvar_type) for v in (lb, ub, step)]
        body = parser.parse_region((indvar.resolve(indvar_type), *block_args))
        attrs = parser.parse_optional_attr_dict()
        op = cls(bounds[0], bounds[1], bounds[2], init_values, body)
        op.attributes |= attrs
        if not iter_args:
            for trait in op.get_traits_of_type(SingleBlockImplicitTerminator):
                ensure_terminator(op, trait)
        return op


class ExecuteRegionOp(xscf.ExecuteRegionOp):
    """`scf.execute_region [-> T] { ... } [{attrs}]`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            types = parser.parse_optional_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
            result_types = list(types) if types is not None else [parser.parse_type()]
        region = parser.parse_region()
        op = cls(result_types, region)
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        _print_types_arrow(printer, tuple(self.outs.types))
        printer.print_string(" ")
        printer.print_region(self.region, print_entry_block_args=False)
        printer.print_op_attributes(self.attributes)


_REPLACED: dict[str, type[Operation]] = {
    op.name: op for op in (ParallelOp, ReduceOp, IfOp, ForOp, ExecuteRegionOp)
}

SCF = Dialect(
    "scf",
    [_REPLACED.get(op.name, op) for op in xscf.Scf.operations],
    list(xscf.Scf.attributes),
)
