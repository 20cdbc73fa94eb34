"""The upstream `gpu` dialect as disc-ir registers it.

xDSL 0.74's gpu ops have no custom syntax; BladeDISC's IR is written in
MLIR's. This module keeps xDSL's op classes (so code matching on them keeps
working) and gives them MLIR's assembly:

* `gpu.module @name attributes {...} { ... }`
* `gpu.func @k(%a: t) workgroup(%w: t) private(%p: t) kernel attributes {...} { ... }`
  -- workgroup and private attributions are entry-block arguments after the
  function inputs, counted by the `workgroup_attributions` attribute (as MLIR);
* `gpu.launch_func  @m::@k blocks in (%a, %b, %c) threads in (%d, %e, %f) args(%x : t)`
  (also `clusters in (...)`, `dynamic_shared_memory_size %s`, `async [%deps]`);
* `gpu.launch blocks(%bx, %by, %bz) in (%gx = %a, ...) threads(...) in (...) { ... }`;
* `gpu.thread_id x`, `gpu.block_id y`, `gpu.block_dim z`, `gpu.grid_dim x`, ...;
* `gpu.barrier`, `gpu.return [%v : t]`, `gpu.terminator`, `gpu.yield`;

and adds what xDSL lacks: `gpu.shuffle` (`%r, %valid = gpu.shuffle xor %v,
%offset, %width : f32`) and the `#gpu.address_space<global|workgroup|private>`
memory-space attribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Self

from xdsl.dialects import gpu as xgpu
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    SymbolRefAttr,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import (
    Attribute,
    Block,
    Dialect,
    Operation,
    SpacedOpaqueSyntaxAttribute,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import AttrParser, Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

# --------------------------------------------------------------------------
# Attributes
# --------------------------------------------------------------------------


class AddressSpace(StrEnum):
    """GPU memory address spaces (MLIR's `gpu::AddressSpace`)."""

    GLOBAL = "global"
    WORKGROUP = "workgroup"
    PRIVATE = "private"


@irdl_attr_definition
class AddressSpaceAttr(EnumAttribute[AddressSpace]):
    """`#gpu.address_space<global>`: a memref memory space."""

    name = "gpu.address_space"

    def print_parameter(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.data.value)

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> AddressSpace:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(AddressSpace)


class ShuffleMode(StrEnum):
    """Lane selection of `gpu.shuffle`."""

    XOR = "xor"
    UP = "up"
    DOWN = "down"
    IDX = "idx"


@irdl_attr_definition
class ShuffleModeAttr(EnumAttribute[ShuffleMode], SpacedOpaqueSyntaxAttribute):
    """`#gpu<shuffle_mode xor>`; printed as the bare keyword in `gpu.shuffle`."""

    name = "gpu.shuffle_mode"


KERNEL_ATTR = "gpu.kernel"
CONTAINER_MODULE_ATTR = "gpu.container_module"


# --------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------


def _parse_index_triple(parser: Parser) -> list[UnresolvedOperand]:
    ops = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_unresolved_operand)
    if len(ops) != 3:
        parser.raise_error(f"expected 3 sizes, got {len(ops)}")
    return ops


def _print_triple(printer: Printer, values: Sequence[SSAValue]) -> None:
    printer.print_string("(")
    printer.print_list(values, printer.print_operand)
    printer.print_string(")")


def _parse_async_dependencies(parser: Parser) -> tuple[bool, list[SSAValue]]:
    is_async = parser.parse_optional_keyword("async") is not None
    deps = parser.parse_optional_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_operand(xgpu.AsyncTokenType())
    )
    return is_async, list(deps or [])


def _print_async_dependencies(
    printer: Printer, token: SSAValue | None, deps: Sequence[SSAValue]
) -> None:
    # MLIR's `printAsyncDependencies`, which the format precedes by a space.
    printer.print_string(" ")
    if token is not None:
        printer.print_string("async")
    if deps:
        if token is not None:
            printer.print_string(" ")
        printer.print_string("[")
        printer.print_list(deps, printer.print_operand)
        printer.print_string("]")


# --------------------------------------------------------------------------
# Module / function / return
# --------------------------------------------------------------------------


class ModuleOp(xgpu.ModuleOp):
    """`gpu.module @name attributes {...} { ... }`: a module of kernels."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        name = parser.parse_symbol_name()
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region()
        if not region.blocks:
            region.add_block(Block())
        op = cls(name, region)  # type: ignore[arg-type]  # xDSL annotates SymbolRefAttr, but sym_name must be a StringAttr
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False, print_empty_block=False)


class FuncOp(xgpu.FuncOp):
    """`gpu.func`: a GPU function, a kernel if it carries `kernel`.

    The entry block holds the function inputs, then `workgroup_attributions`
    workgroup buffers, then private buffers (MLIR's attributions).
    """

    WORKGROUP_ATTRIBUTIONS = "workgroup_attributions"
    _RESERVED = (
        "sym_name",
        "function_type",
        "kernel",
        KERNEL_ATTR,
        WORKGROUP_ATTRIBUTIONS,
        "arg_attrs",
        "res_attrs",
    )

    @property
    def num_workgroup_attributions(self) -> int:
        attr = self.attributes.get(self.WORKGROUP_ATTRIBUTIONS)
        return attr.value.data if isinstance(attr, IntegerAttr) else 0

    @property
    def workgroup_attributions(self) -> tuple[SSAValue, ...]:
        num_inputs = len(self.function_type.inputs)
        return tuple(
            self.body.blocks[0].args[num_inputs : num_inputs + self.num_workgroup_attributions]
        )

    @property
    def private_attributions(self) -> tuple[SSAValue, ...]:
        start = len(self.function_type.inputs) + self.num_workgroup_attributions
        return tuple(self.body.blocks[0].args[start:])

    @property
    def is_kernel(self) -> bool:
        return self.kernel is not None or KERNEL_ATTR in self.attributes

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)
        if not self.body.blocks:
            return
        inputs = self.function_type.inputs.data
        arg_types = self.body.blocks[0].arg_types
        if arg_types[: len(inputs)] != inputs:
            raise VerifyException(
                "'gpu.func' op expected the entry block arguments to start with the function "
                "input types"
            )
        if len(inputs) + self.num_workgroup_attributions > len(arg_types):
            raise VerifyException(
                f"'gpu.func' op expected at least {len(inputs) + self.num_workgroup_attributions} "
                "entry block arguments (inputs and workgroup attributions)"
            )
        for kind, space, values in (
            ("workgroup", AddressSpace.WORKGROUP, self.workgroup_attributions),
            ("private", AddressSpace.PRIVATE, self.private_attributions),
        ):
            for value in values:
                memory_space = getattr(value.type, "memory_space", None)
                if memory_space != AddressSpaceAttr(space):
                    raise VerifyException(
                        f"'gpu.func' op expected {kind} attribution to be a memref in the "
                        f"#gpu.address_space<{space.value}> memory space, got {value.type}"
                    )
        if self.is_kernel and self.function_type.outputs.data:
            raise VerifyException("'gpu.func' op expected void return type for kernel function")

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        name = parser.parse_symbol_name()

        arg_attr_dicts: list[DictionaryAttr] = []

        def parse_arg() -> Parser.Argument:
            arg = parser.parse_argument()
            arg_attr_dicts.append(DictionaryAttr(parser.parse_optional_dictionary_attr_dict()))
            return arg

        args = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_arg)
        outputs: list[Attribute] = []
        if parser.parse_optional_punctuation("->"):
            results = parser.parse_optional_comma_separated_list(
                parser.Delimiter.PAREN, parser.parse_type
            )
            outputs = list(results) if results is not None else [parser.parse_type()]

        def attributions(keyword: str) -> list[Parser.Argument]:
            if parser.parse_optional_keyword(keyword) is None:
                return []
            return parser.parse_comma_separated_list(parser.Delimiter.PAREN, parser.parse_argument)

        workgroup = attributions("workgroup")
        private = attributions("private")
        kernel = parser.parse_optional_keyword("kernel") is not None
        attrs = parser.parse_optional_attr_dict_with_keyword()
        region = parser.parse_region(arguments=[*args, *workgroup, *private])

        op = cls(name.data, ([a.type for a in args], outputs), region, kernel=kernel)
        if attrs is not None:
            extra = dict(attrs.data)
            if KERNEL_ATTR in extra:
                extra.pop(KERNEL_ATTR)
                op.kernel = UnitAttr()
            op.attributes |= extra
        if workgroup:
            op.attributes[cls.WORKGROUP_ATTRIBUTIONS] = IntegerAttr(len(workgroup), i64)
        if any(d.data for d in arg_attr_dicts):
            op.attributes["arg_attrs"] = ArrayAttr(arg_attr_dicts)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        num_inputs = len(self.function_type.inputs)
        block = self.body.blocks[0] if self.body.blocks else None
        arg_attrs = self.attributes.get("arg_attrs")
        printer.print_string("(")
        if block is not None:
            for i, arg in enumerate(block.args[:num_inputs]):
                if i:
                    printer.print_string(", ")
                printer.print_block_argument(arg)
                if isinstance(arg_attrs, ArrayAttr) and arg_attrs.data[i].data:
                    printer.print_string(" ")
                    printer.print_attr_dict(arg_attrs.data[i].data)
        else:
            printer.print_list(self.function_type.inputs, printer.print_attribute)
        printer.print_string(")")
        outputs = self.function_type.outputs.data
        if outputs:
            printer.print_string(" -> ")
            if len(outputs) > 1:
                printer.print_string("(")
            printer.print_list(outputs, printer.print_attribute)
            if len(outputs) > 1:
                printer.print_string(")")
        for keyword, values in (
            ("workgroup", self.workgroup_attributions),
            ("private", self.private_attributions),
        ):
            if values:
                printer.print_string(f" {keyword}(")
                printer.print_list(values, printer.print_block_argument)  # type: ignore[arg-type]  # attribution values are block arguments
                printer.print_string(")")
        if self.is_kernel:
            printer.print_string(" kernel")
        printer.print_op_attributes(
            self.attributes, reserved_attr_names=self._RESERVED, print_keyword=True
        )
        if self.body.blocks:
            printer.print_string(" ")
            printer.print_region(self.body, print_entry_block_args=False)


class _TerminatorSyntax:
    """`attr-dict ($operands^ : type($operands))?`, the form of `gpu.return`
    and `gpu.yield` (mixed in before the xDSL op class)."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        attrs = parser.parse_optional_attr_dict()
        operands = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        )
        values: Sequence[SSAValue] = []
        if operands:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(parser.Delimiter.NONE, parser.parse_type)
            values = parser.resolve_operands(operands, types, parser.pos)
        op = cls(values)  # type: ignore[call-arg]  # a mixin: `cls` is the op class it is mixed into
        op.attributes |= attrs  # type: ignore[attr-defined]  # a mixin: `cls` is the op class it is mixed into
        return op

    def print(self, printer: Printer) -> None:
        op: Operation = self  # type: ignore[assignment]  # a mixin: `self` is the op it is mixed into
        printer.print_op_attributes(op.attributes)
        if op.operands:
            printer.print_string(" ")
            printer.print_list(op.operands, printer.print_operand)
            printer.print_string(" : ")
            printer.print_list(op.operand_types, printer.print_attribute)


class ReturnOp(_TerminatorSyntax, xgpu.ReturnOp):
    """`gpu.return [%v, ... : t, ...]`: terminates a `gpu.func`."""

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)
        func = self.parent_op()
        if isinstance(func, xgpu.FuncOp):
            expected = func.function_type.outputs.data
            if tuple(self.args.types) != tuple(expected):
                raise VerifyException(
                    "'gpu.return' op returned types do not match the function result types: "
                    f"expected ({', '.join(map(str, expected))}), "
                    f"got ({', '.join(map(str, self.args.types))})"
                )


# --------------------------------------------------------------------------
# Launches
# --------------------------------------------------------------------------


class LaunchFuncOp(xgpu.LaunchFuncOp):
    """`gpu.launch_func  @module::@kernel blocks in (...) threads in (...) args(...)`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        is_async, deps = _parse_async_dependencies(parser)
        kernel = parser.parse_attribute()
        if not isinstance(kernel, SymbolRefAttr):
            parser.raise_error("expected the kernel symbol (@module::@kernel)")
        clusters = None
        if parser.parse_optional_keyword("clusters") is not None:
            parser.parse_keyword("in")
            clusters = _parse_index_triple(parser)
        parser.parse_keyword("blocks")
        parser.parse_keyword("in")
        grid = _parse_index_triple(parser)
        parser.parse_keyword("threads")
        parser.parse_keyword("in")
        block = _parse_index_triple(parser)
        dim_type: Attribute = IndexType()
        if parser.parse_optional_punctuation(":"):
            dim_type = parser.parse_type()
        shmem = None
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            shmem = parser.parse_operand(i32)
        operands: list[SSAValue] = []
        if parser.parse_optional_keyword("args") is not None:

            def parse_arg() -> SSAValue:
                unresolved = parser.parse_unresolved_operand()
                parser.parse_punctuation(":")
                return parser.resolve_operand(unresolved, parser.parse_type())

            operands = parser.parse_comma_separated_list(parser.Delimiter.PAREN, parse_arg)
        attrs = parser.parse_optional_attr_dict()

        def resolve(values: list[UnresolvedOperand]) -> list[SSAValue]:
            return [parser.resolve_operand(v, dim_type) for v in values]

        op = cls(
            kernel,
            resolve(grid),
            resolve(block),
            resolve(clusters) if clusters is not None else None,
            operands,
            async_launch=is_async,
            asyncDependencies=deps,
            dynamicSharedMemorySize=shmem,
        )
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        _print_async_dependencies(printer, self.asyncToken, tuple(self.asyncDependencies))
        printer.print_string(" ")
        printer.print_attribute(self.kernel)
        if self.clusterSizeX is not None:
            printer.print_string(" clusters in ")
            _print_triple(printer, (self.clusterSizeX, self.clusterSizeY, self.clusterSizeZ))  # type: ignore[arg-type]  # the cluster sizes come as all three or none (checked above)
        printer.print_string(" blocks in ")
        _print_triple(printer, (self.gridSizeX, self.gridSizeY, self.gridSizeZ))
        printer.print_string(" threads in ")
        _print_triple(printer, (self.blockSizeX, self.blockSizeY, self.blockSizeZ))
        if not isinstance(self.gridSizeX.type, IndexType):
            printer.print_string(" : ")
            printer.print_attribute(self.gridSizeX.type)
        if self.dynamicSharedMemorySize is not None:
            printer.print_string(" dynamic_shared_memory_size ")
            printer.print_operand(self.dynamicSharedMemorySize)
        if self.kernelOperands:
            printer.print_string(" args(")
            printer.print_list(
                self.kernelOperands,
                lambda v: (
                    printer.print_operand(v),  # type: ignore[func-returns-value]  # the lambda only prints
                    printer.print_string(" : "),  # type: ignore[func-returns-value]  # the lambda only prints
                    printer.print_attribute(v.type),  # type: ignore[func-returns-value]  # the lambda only prints
                ),
            )
            printer.print_string(")")
        printer.print_op_attributes(self.attributes)

    def verify_(self) -> None:
        type(self).get_irdl_definition().verify(self)
        module = self.parent_op()
        while module is not None and CONTAINER_MODULE_ATTR not in module.attributes:
            module = module.parent_op()
        if module is None:
            raise VerifyException(
                "'gpu.launch_func' op expected the closest surrounding module to have the "
                "'gpu.container_module' attribute"
            )


class LaunchOp(xgpu.LaunchOp):
    """`gpu.launch blocks(%bx, %by, %bz) in (%gx = %a, ...) threads(...) in (...) { ... }`.

    The body's 12 index arguments are block ids, thread ids, grid sizes and
    block sizes (in that order, as MLIR's `gpu.launch`).
    """

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        is_async, deps = _parse_async_dependencies(parser)

        def parse_ids_and_sizes(keyword: str):
            parser.parse_keyword(keyword)
            ids = parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=False)
            )
            parser.parse_keyword("in")

            def assignment():
                arg = parser.parse_argument(expect_type=False)
                parser.parse_punctuation("=")
                return arg, parser.parse_operand(IndexType())

            sizes = parser.parse_comma_separated_list(parser.Delimiter.PAREN, assignment)
            if len(ids) != 3 or len(sizes) != 3:
                parser.raise_error(f"expected 3 {keyword} ids and sizes")
            return ids, sizes

        block_ids, grid = parse_ids_and_sizes("blocks")
        thread_ids, block = parse_ids_and_sizes("threads")
        shmem = None
        if parser.parse_optional_keyword("dynamic_shared_memory_size") is not None:
            shmem = parser.parse_operand(i32)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        index = IndexType()
        region_args = [
            a.resolve(index)
            for a in [*block_ids, *thread_ids, *(g[0] for g in grid), *(b[0] for b in block)]
        ]
        body = parser.parse_region(arguments=region_args)
        op = cls(
            body,
            [g[1] for g in grid],
            [b[1] for b in block],
            async_launch=is_async,
            asyncDependencies=deps,
            dynamicSharedMemorySize=shmem,
        )
        if attrs is not None:
            op.attributes |= attrs.data
        return op

    def print(self, printer: Printer) -> None:
        if self.asyncToken is not None or self.asyncDependencies:
            _print_async_dependencies(printer, self.asyncToken, tuple(self.asyncDependencies))
        args = self.body.blocks[0].args

        def ids_and_sizes(keyword: str, ids, size_args, sizes) -> None:
            printer.print_string(f" {keyword}(")
            printer.print_list(ids, printer.print_operand)
            printer.print_string(") in (")
            printer.print_list(
                list(zip(size_args, sizes, strict=True)),
                lambda p: (
                    printer.print_operand(p[0]),  # type: ignore[func-returns-value]  # the lambda only prints
                    printer.print_string(" = "),  # type: ignore[func-returns-value]  # the lambda only prints
                    printer.print_operand(p[1]),  # type: ignore[func-returns-value]  # the lambda only prints
                ),
            )
            printer.print_string(")")

        ids_and_sizes(
            "blocks", args[0:3], args[6:9], (self.gridSizeX, self.gridSizeY, self.gridSizeZ)
        )
        ids_and_sizes(
            "threads", args[3:6], args[9:12], (self.blockSizeX, self.blockSizeY, self.blockSizeZ)
        )
        if self.dynamicSharedMemorySize is not None:
            printer.print_string(" dynamic_shared_memory_size ")
            printer.print_operand(self.dynamicSharedMemorySize)
        printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


class TerminatorOp(xgpu.TerminatorOp):
    """`gpu.terminator`: ends the body of a `gpu.launch`."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls()
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)


class BarrierOp(xgpu.BarrierOp):
    """`gpu.barrier`: synchronizes the threads of a workgroup."""

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        op = cls()
        op.attributes |= parser.parse_optional_attr_dict()
        return op

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)


class YieldOp(_TerminatorSyntax, xgpu.YieldOp):
    """`gpu.yield [%v : t]`."""


# --------------------------------------------------------------------------
# Index ops: `gpu.thread_id x`
# --------------------------------------------------------------------------


def _dimension_op(base: type[IRDLOperation]) -> type[IRDLOperation]:
    class DimensionOp(base):  # type: ignore[misc, valid-type]  # a class built on the xDSL op class given
        __doc__ = f"`{base.name} x|y|z`: an index of the launch grid."

        @classmethod
        def parse(cls, parser: Parser) -> Self:
            dim = parser.parse_keyword_in(("x", "y", "z"), "expected dimension x, y or z")
            op = cls(xgpu.DimensionAttr(xgpu.DimensionEnum(dim)))
            op.attributes |= parser.parse_optional_attr_dict()
            return op

        def print(self, printer: Printer) -> None:
            printer.print_string(f" {self.dimension.data.value}")
            printer.print_op_attributes(self.attributes)

    DimensionOp.__name__ = DimensionOp.__qualname__ = base.__name__
    return DimensionOp


ThreadIdOp = _dimension_op(xgpu.ThreadIdOp)
BlockIdOp = _dimension_op(xgpu.BlockIdOp)
BlockDimOp = _dimension_op(xgpu.BlockDimOp)
GridDimOp = _dimension_op(xgpu.GridDimOp)
GlobalIdOp = _dimension_op(xgpu.GlobalIdOp)


# --------------------------------------------------------------------------
# Shuffle
# --------------------------------------------------------------------------


@irdl_op_definition
class ShuffleOp(IRDLOperation):
    """`%r, %valid = gpu.shuffle xor %value, %offset, %width : f32`.

    Exchanges `value` between the lanes of a subgroup; `valid` is false for
    lanes whose source lane is out of `width`.
    """

    name = "gpu.shuffle"

    value = operand_def(Attribute)
    offset = operand_def(IntegerType)
    width = operand_def(IntegerType)
    shuffleResult = result_def(Attribute)
    valid = result_def(i1)
    mode = prop_def(ShuffleModeAttr)

    traits = traits_def(Pure())

    def __init__(
        self,
        value: SSAValue | Operation,
        offset: SSAValue | Operation,
        width: SSAValue | Operation,
        mode: ShuffleMode | ShuffleModeAttr,
    ):
        if isinstance(mode, ShuffleMode):
            mode = ShuffleModeAttr(mode)
        value = SSAValue.get(value)
        super().__init__(
            operands=[value, offset, width],
            result_types=[value.type, i1],
            properties={"mode": mode},
        )

    def verify_(self) -> None:
        if self.shuffleResult.type != self.value.type:
            raise VerifyException(
                "'gpu.shuffle' op failed to verify that all of {value, shuffleResult} have "
                f"same type (got {self.value.type} and {self.shuffleResult.type})"
            )
        for name, operand in (("offset", self.offset), ("width", self.width)):
            if operand.type != i32:
                raise VerifyException(
                    f"'gpu.shuffle' op operand '{name}' must be 32-bit signless integer, "
                    f"got {operand.type}"
                )

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        mode = parser.parse_keyword_in([m.value for m in ShuffleMode], "expected shuffle mode")
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        offset = parser.parse_operand(i32)
        parser.parse_punctuation(",")
        width = parser.parse_operand(i32)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        value_type = parser.parse_type()
        op = cls(parser.resolve_operand(value, value_type), offset, width, ShuffleMode(mode))
        op.attributes |= attrs
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(f" {self.mode.data.value} ")
        printer.print_list((self.value, self.offset, self.width), printer.print_operand)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.value.type)


# --------------------------------------------------------------------------
# Dialect
# --------------------------------------------------------------------------

_REPLACEMENTS: dict[str, type[Operation]] = {
    op.name: op
    for op in (
        ModuleOp,
        FuncOp,
        ReturnOp,
        LaunchFuncOp,
        LaunchOp,
        TerminatorOp,
        BarrierOp,
        YieldOp,
        ThreadIdOp,
        BlockIdOp,
        BlockDimOp,
        GridDimOp,
        GlobalIdOp,
    )
}

GPU = Dialect(
    "gpu",
    [_REPLACEMENTS.get(op.name, op) for op in xgpu.GPU.operations] + [ShuffleOp],
    [*xgpu.GPU.attributes, AddressSpaceAttr, ShuffleModeAttr],
)

__all__ = [
    "GPU",
    "AddressSpace",
    "AddressSpaceAttr",
    "ShuffleMode",
    "ShuffleModeAttr",
    "ShuffleOp",
    "FuncOp",
    "ModuleOp",
    "LaunchFuncOp",
    "LaunchOp",
]
