"""An xDSL printer that prints the way `mlir-opt` (and so BladeDISC's tests) expect.

Differences from xDSL's default printer:

* values are renamed as MLIR renames them (see `naming.py`), results of
  multi-result ops print as `%N:k` and are used as `%N#i`;
* attribute and property dictionaries are sorted by name (MLIR's
  `DictionaryAttr` is sorted);
* `builtin.module` prints as `module`, and ops of a region's default dialect
  drop their prefix (`func.return` -> `return` inside `func.func`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove

from disc_ir.ir.naming import MlirNames, compute_mlir_names

# Ops whose regions imply a default dialect, as MLIR's OpAsmOpInterface says.
_DEFAULT_DIALECT_OF_REGION_OWNER = {"func.func": "func"}


@dataclass(eq=False, repr=False)
class MlirPrinter(Printer):
    """Printer producing mlir-opt compatible text (names, sorted dictionaries)."""

    mlir_names: bool = field(default=True)
    _names: MlirNames | None = field(default=None, init=False)

    # -- values -------------------------------------------------------------
    def _ensure_names(self, op: Operation) -> None:
        if self.mlir_names and self._names is None:
            root = op
            while root.parent_op() is not None:
                root = root.parent_op()  # type: ignore[assignment]
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
        if isinstance(op, ModuleOp) and not self.print_generic_format:
            self._print_module(op)
            return
        if self.print_generic_format or Operation.print is type(op).print:
            super().print_op(op)
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
