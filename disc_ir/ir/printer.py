"""An xDSL printer that prints the way `mlir-opt` (and so BladeDISC's tests) expect.

Differences from xDSL's default printer:

* values are renamed as MLIR renames them (see `naming.py`), results of
  multi-result ops print as `%N:k` and are used as `%N#i`;
* attribute and property dictionaries are sorted by name (MLIR's
  `DictionaryAttr` is sorted);
* `builtin.module` prints as `module`, and ops of a region's default dialect
  drop their prefix (`func.return` -> `return` inside `func.func`);
* affine maps and sets printed as attributes get aliases as MLIR's builtin
  dialect gives them: a top-level op is preceded by `#map = affine_map<...>`,
  `#map1 = ...`, `#set = affine_set<...>` lines (in the order the printer meets
  them, as MLIR's alias initializer records them) and prints `#map`, `#map1`,
  `#set` where they are used; maps printed inline by an op's custom syntax
  (affine.load subscripts, say) are not aliased, as in MLIR;
* the blobs of the `dense_resource<...>` attributes printed follow the module
  in MLIR's `{-# dialect_resources: {builtin: {...}} #-}` section;
* block labels carry MLIR's predecessor comment: `^bb1:  // pred: ^bb0`,
  `^bb3:  // 2 preds: ^bb1, ^bb2` (sorted by block order), and
  `// no predecessors` on an unreachable non-entry block.
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.dialects.builtin import AffineMapAttr, AffineSetAttr, ModuleOp, UnitAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, IsTerminator

from disc_ir.ir.naming import MlirNames, compute_mlir_names
from disc_ir.ir.resources import resource_section

# Ops whose regions imply a default dialect, as MLIR's OpAsmOpInterface says.
_DEFAULT_DIALECT_OF_REGION_OWNER = {"func.func": "func"}


@dataclass(eq=False, repr=False)
class MlirPrinter(Printer):
    """Printer producing mlir-opt compatible text (names, sorted dictionaries)."""

    mlir_names: bool = field(default=True)
    alias_attributes: bool = field(default=True)
    _names: MlirNames | None = field(default=None, init=False)
    _aliases: dict[Attribute, str] | None = field(default=None, init=False)
    _recorded: list[Attribute] | None = field(default=None, init=False)
    #: the builtin resource handles printed, in order of first use
    resource_handles: dict[str, None] = field(default_factory=dict, init=False)

    def print_resource_handle(self, dialect: str, handle: str) -> None:
        if dialect == "builtin":
            self.resource_handles.setdefault(handle)
        super().print_resource_handle(dialect, handle)

    # -- aliases ------------------------------------------------------------
    def _init_aliases(self, root: Operation) -> None:
        """Record the aliasable attributes `root` prints, name them, print their definitions."""
        recorder = MlirPrinter(
            stream=io.StringIO(),
            print_generic_format=self.print_generic_format,
            print_properties_as_attributes=self.print_properties_as_attributes,
            mlir_names=self.mlir_names,
        )
        recorder._recorded = []
        recorder._aliases = {}
        recorder.print_op(root)
        aliases: dict[Attribute, str] = {}
        counters: dict[str, int] = {}
        for attr in recorder._recorded:
            prefix = "map" if isinstance(attr, AffineMapAttr) else "set"
            count = counters.get(prefix, 0)
            counters[prefix] = count + 1
            aliases[attr] = prefix if count == 0 else f"{prefix}{count}"
        self._aliases = {}
        for attr, name in aliases.items():
            self.print_string(f"#{name} = ")
            self.print_attribute(attr)
            self.print_string("\n")
        self._aliases = aliases

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, AffineMapAttr | AffineSetAttr):
            if self._recorded is not None:
                if attribute not in self._recorded:
                    self._recorded.append(attribute)
            elif self._aliases and (name := self._aliases.get(attribute)) is not None:
                self.print_string(f"#{name}")
                return
        super().print_attribute(attribute)

    # -- blocks -------------------------------------------------------------
    def print_block(
        self,
        block: Block,
        print_block_args: bool = True,
        print_block_terminator: bool = True,
    ) -> None:
        """xDSL's block printing with MLIR's predecessor comment after the label."""
        if print_block_args:
            self._print_new_line()
            if block not in self._blocks:
                self._populate_block_name(block)
            self.print_block_name(block)
            if block.args:
                with self.in_parens():
                    self.print_list(block.args, self.print_block_argument)
            self.print_string(":")
            self._print_predecessors(block)
        with self.indented():
            for op in block.ops:
                if not print_block_terminator and op.has_trait(
                    IsTerminator, value_if_unregistered=False
                ):
                    continue
                self._print_new_line()
                self.print_op(op)

    def _print_predecessors(self, block: Block) -> None:
        region = block.parent
        if region is None:
            self.print_string("  // block is not in a region!")
            return
        preds = list(block.predecessors())
        if not preds:
            if region.blocks.first is not block:
                self.print_string("  // no predecessors")
            return
        if len(preds) == 1:
            self.print_string("  // pred: ")
            self.print_block_name(preds[0])
            return
        order = {b: i for i, b in enumerate(region.blocks)}
        preds.sort(key=lambda b: order.get(b, len(order)))
        self.print_string(f"  // {len(preds)} preds: ")
        self.print_list(preds, self.print_block_name)

    # -- values -------------------------------------------------------------
    def _ensure_names(self, op: Operation) -> None:
        if self.mlir_names and self._names is None:
            root = op
            while root.parent_op() is not None:
                root = root.parent_op()  # type: ignore[assignment]  # loop condition: parent_op() is not None
            self._names = compute_mlir_names(root)

    def print_ssa_value(self, value: SSAValue) -> str:
        if self._names is not None and value in self._names.names:
            name = self._names.names[value]
            self._ssa_values[value] = name
            self.print_string(f"%{name}")
            return name
        return super().print_ssa_value(value)

    def _print_results(self, op: Operation) -> None:
        if self._names is not None and op in self._names.grouped:
            self.print_string(f"%{self._names.grouped[op]}:{len(op.results)} = ")
            return
        super()._print_results(op)

    def print_float(self, value: float, type) -> None:  # noqa: ANN001
        """As xDSL, but non-finite values in MLIR's upper-case hex (`0xFF800000`)."""
        if math.isnan(value) or math.isinf(value):
            raw = type.pack((value,))
            self.print_string(f"0x{raw[::-1].hex().upper()}")
            return
        super().print_float(value, type)

    # -- dictionaries -------------------------------------------------------
    def print_attr_dict(self, attr_dict: Mapping[str, Attribute]) -> None:
        super().print_attr_dict(dict(sorted(attr_dict.items())))

    def _print_attr_string(self, attr_tuple: tuple[str, Attribute]) -> None:
        self.print_identifier_or_string_literal(attr_tuple[0])
        if not isinstance(attr_tuple[1], UnitAttr):
            self.print_string(" = ")
            self.print_attribute(attr_tuple[1])

    # -- ops ----------------------------------------------------------------
    def _printed_name(self, op: Operation) -> str:
        parent = op.parent_op()
        if parent is not None:
            default = _DEFAULT_DIALECT_OF_REGION_OWNER.get(parent.name)
            if default and op.name.startswith(default + ".") and not self.print_generic_format:
                return op.name[len(default) + 1 :]
        return op.name

    def print_op(self, op: Operation) -> None:
        self._ensure_names(op)
        if self.alias_attributes and self._aliases is None and op.parent is None:
            self._init_aliases(op)
        if isinstance(op, ModuleOp) and not self.print_generic_format:
            self._print_module(op)
            return
        if self.print_generic_format or Operation.print is type(op).print:
            super().print_op(op)
            return
        if _is_empty_parallel_terminator(op):
            # BladeDISC's MLIR ended every `scf.parallel` body with `scf.yield`
            # (today's MLIR: an implicit empty `scf.reduce`); both parse.
            self.print_string("scf.yield")
            return
        scope = bool(op.get_traits_of_type(IsolatedFromAbove))
        self._print_results(op)
        if scope:
            self.enter_scope()
        self.print_string(self._printed_name(op))
        op.print(self)
        if self.print_debuginfo:
            self.print_string(" ")
            self.print_attribute(op.location)
        if scope:
            self.exit_scope()

    def _print_module(self, op: ModuleOp) -> None:
        self.print_string("module")
        if op.sym_name is not None:
            self.print_string(" ")
            self.print_symbol_name(op.sym_name.data)
        if op.attributes:
            self.print_op_attributes(op.attributes, print_keyword=True)
        if not op.body.block.ops:
            self.print_string(" {\n")
            self.print_string("}")
        else:
            self.print_string(" ")
            self.print_region(op.body)


def print_module(op: Operation, stream, *, generic: bool = False) -> None:
    """Print `op` (usually a module) to `stream` as mlir-opt would, with a newline."""
    printer = MlirPrinter(stream=stream, print_generic_format=generic)
    printer.print_op(op)
    stream.write("\n")
    # the blobs of the `dense_resource<...>` attributes printed, as MLIR's trailing section
    stream.write(resource_section(printer.resource_handles))


def module_text(op: Operation, *, generic: bool = False) -> str:
    """`op` (usually a module) as MLIR text, with a newline: what disc-opt prints
    and `disc_ir.api.print_module` / `Executable.mlir_after` return."""
    buf = io.StringIO()
    print_module(op, buf, generic=generic)
    return buf.getvalue()


def _is_empty_parallel_terminator(op: Operation) -> bool:
    """An operand-less `scf.reduce` ending an `scf.parallel` body."""
    parent = op.parent_op()
    return (
        op.name == "scf.reduce"
        and not op.operands
        and parent is not None
        and parent.name == "scf.parallel"
    )
