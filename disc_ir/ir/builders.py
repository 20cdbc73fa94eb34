"""Cheap constructors for the ops the passes create most.

xDSL's IRDL constructors check and convert every argument (for the IRDL-built
index constant the `index` type, the integer attribute and the op are each
built and verified; an IRDL-built `memref.load` costs several times its
`Operation.create`); these build the very same ops -- operands,
result types, properties and attributes equal to what the IRDL constructor
makes -- with `Operation.create` from shared, immutable attributes. They
check nothing: the verifier does, where verification is on.

`make(cls, operands=[a, [b, c]], ...)` takes the IRDL constructor's grouped
operands (a list per variadic definition, None for an absent optional one)
and adds the `operandSegmentSizes` the op's definition asks for;
`init_op(self, ...)` is the same for the `__init__` of an op class of ours.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from functools import cache, lru_cache
from typing import TypeVar

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    FloatAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.irdl import AttrSizedOperandSegments, IRDLOperation

_Op = TypeVar("_Op", bound=Operation)
#: an IRDL constructor's operand argument: a value, a group of values (a
#: variadic definition) or None (an absent optional one)
Operands = Sequence[SSAValue | Operation | Sequence[SSAValue | Operation] | None]

#: the `index` type (one instance serves every op)
INDEX = IndexType()


@lru_cache(maxsize=4096)
def index_attr(value: int) -> IntegerAttr:
    """`value : index`, shared."""
    return IntegerAttr(value, INDEX)


def constant(value: IntegerAttr | FloatAttr) -> arith.ConstantOp:
    """`arith.constant value` of a scalar attribute (`arith.ConstantOp(value)`)."""
    return arith.ConstantOp.create(properties={"value": value}, result_types=[value.type])


def index_constant(value: int) -> arith.ConstantOp:
    """`arith.constant value : index`: the op xDSL's `arith.ConstantOp` makes
    of an `IntegerAttr(value, IndexType())`."""
    return arith.ConstantOp.create(properties={"value": index_attr(value)}, result_types=[INDEX])


@lru_cache(maxsize=1024)
def segment_sizes(sizes: tuple[int, ...]) -> DenseArrayBase:
    """The `array<i32: ...>` of segment sizes, shared."""
    return DenseArrayBase.from_list(i32, sizes)


@cache
def _operand_segments(cls: type[Operation]) -> AttrSizedOperandSegments | None:
    """The operand-segment option of `cls`'s IRDL definition, if it has one."""
    if not issubclass(cls, IRDLOperation):
        return None
    for option in cls.get_irdl_definition().options:
        if isinstance(option, AttrSizedOperandSegments):
            return option
    return None


#: the classes of almost every value: checked first, as isinstance against
#: xDSL's SSAValue (an ABC) costs more when the class is a subclass
_VALUE_CLASSES = frozenset({OpResult, BlockArgument})


def _flatten(
    cls: type[Operation],
    operands: Operands,
    properties: Mapping[str, Attribute | None] | None,
    attributes: Mapping[str, Attribute | None] | None,
) -> tuple[list[SSAValue], dict[str, Attribute], dict[str, Attribute]]:
    flat: list[SSAValue] = []
    sizes: list[int] = []
    for group in operands:
        if group is None:
            sizes.append(0)
        elif group.__class__ in _VALUE_CLASSES or isinstance(group, SSAValue):
            flat.append(group)
            sizes.append(1)
        elif isinstance(group, Operation):
            flat.append(SSAValue.get(group))
            sizes.append(1)
        else:
            flat.extend(
                v if v.__class__ in _VALUE_CLASSES or isinstance(v, SSAValue) else SSAValue.get(v)
                for v in group
            )
            sizes.append(len(group))
    # as IRDL does, a property or attribute given as None is left out
    props = {k: v for k, v in properties.items() if v is not None} if properties else {}
    attrs = {k: v for k, v in attributes.items() if v is not None} if attributes else {}
    option = _operand_segments(cls)
    if option is not None:
        target = props if option.as_property else attrs
        target[option.attribute_name] = segment_sizes(tuple(sizes))
    return flat, props, attrs


def make(
    cls: type[_Op],
    operands: Operands = (),
    result_types: Sequence[Attribute] = (),
    properties: Mapping[str, Attribute | None] | None = None,
    attributes: Mapping[str, Attribute | None] | None = None,
    successors: Sequence[Block] = (),
    regions: Sequence[Region] = (),
) -> _Op:
    """`cls(operands=..., result_types=..., ...)` as IRDL builds it, unchecked
    (results, successors and regions flat: no segments of them)."""
    flat, props, attrs = _flatten(cls, operands, properties, attributes)
    return cls.create(
        operands=flat,
        result_types=result_types,
        properties=props,
        attributes=attrs,
        successors=successors,
        regions=regions,
    )


def init_op(
    op: Operation,
    operands: Operands = (),
    result_types: Sequence[Attribute] = (),
    properties: Mapping[str, Attribute | None] | None = None,
    attributes: Mapping[str, Attribute | None] | None = None,
) -> None:
    """What `IRDLOperation.__init__(op, operands=..., ...)` makes of `op`,
    unchecked: for the constructors of op classes whose arguments are known
    to fit their definitions."""
    flat, props, attrs = _flatten(type(op), operands, properties, attributes)
    Operation.__init__(
        op, operands=flat, result_types=result_types, properties=props, attributes=attrs
    )


class Templates:
    """Properties and attributes of IRDL-built ops, learnt from the first op
    built for each key.

    For a constructor whose properties and attributes depend on the key alone
    (not on the operands; e.g. `llvm.AddOp(lhs, rhs)`, `llvm.ICmpOp(lhs, rhs,
    predicate)` keyed by the predicate), `make` builds the first op of a key
    with the constructor and every later one with `Operation.create` from
    what that first op holds. The caller gives the operands and result types
    the constructor would set.
    """

    def __init__(self) -> None:
        self._known: dict[
            Hashable, tuple[type[Operation], dict[str, Attribute], dict[str, Attribute]]
        ] = {}

    def make(
        self,
        key: Hashable,
        build: Callable[[], _Op],
        operands: Sequence[SSAValue],
        result_types: Sequence[Attribute],
    ) -> _Op:
        known = self._known.get(key)
        if known is None:
            op = build()
            self._known[key] = (type(op), dict(op.properties), dict(op.attributes))
            return op
        cls, properties, attributes = known
        return cls.create(  # type: ignore[return-value]  # the class recorded for this key is the op's own
            operands=operands,
            result_types=result_types,
            properties=properties,
            attributes=attributes,
        )


def load(ref: SSAValue, indices: Sequence[SSAValue]) -> memref.LoadOp:
    """`memref.load ref[indices]` (xDSL's `memref.LoadOp.get`)."""
    ref_type = ref.type
    assert isinstance(ref_type, MemRefType)
    return memref.LoadOp.create(operands=[ref, *indices], result_types=[ref_type.element_type])


def alloc(
    result_type: Attribute,
    dynamic_sizes: Sequence[SSAValue] = (),
    symbol_operands: Sequence[SSAValue] = (),
) -> memref.AllocOp:
    """`memref.alloc(dynamic_sizes)[symbol_operands] : result_type`
    (xDSL's `memref.AllocOp(dynamic_sizes, symbol_operands, result_type)`)."""
    return make(memref.AllocOp, [list(dynamic_sizes), list(symbol_operands)], [result_type])


@lru_cache(maxsize=1024)
def i64_array(values: tuple[int, ...]) -> DenseArrayBase:
    """The `array<i64: ...>` of `values`, shared."""
    return DenseArrayBase.from_list(i64, values)


def reinterpret_cast(
    source: SSAValue,
    offsets: Sequence[SSAValue | int],
    sizes: Sequence[SSAValue | int],
    strides: Sequence[SSAValue | int],
    result_type: Attribute,
) -> memref.ReinterpretCastOp:
    """`memref.reinterpret_cast` with each offset, size and stride static (an
    int) or dynamic (a value): xDSL's `memref.ReinterpretCastOp.from_dynamic`."""
    groups: list[list[SSAValue]] = []
    statics: list[DenseArrayBase] = []
    for entries in (offsets, sizes, strides):
        dynamic = [e for e in entries if isinstance(e, SSAValue)]
        groups.append(dynamic)
        statics.append(
            i64_array(tuple(DYNAMIC_INDEX if isinstance(e, SSAValue) else e for e in entries))
        )
    return make(
        memref.ReinterpretCastOp,
        [source, *groups],
        [result_type],
        {"static_offsets": statics[0], "static_sizes": statics[1], "static_strides": statics[2]},
    )


def binary(cls: type[_Op], lhs: SSAValue, rhs: SSAValue) -> _Op:
    """`cls(lhs, rhs)` of an arith binary op whose result has `lhs`'s type
    (`arith.addi`, `arith.muli`, `arith.mulf`, ...; default properties)."""
    return cls.create(operands=[lhs, rhs], result_types=[lhs.type])


def dim(cls: type[_Op], source: SSAValue, index: SSAValue) -> _Op:
    """`memref.dim` / `tensor.dim` (`cls`) of `source` at `index`."""
    return cls.create(operands=[source, index], result_types=[INDEX])


def store(value: SSAValue, ref: SSAValue, indices: Sequence[SSAValue]) -> memref.StoreOp:
    """`memref.store value, ref[indices]` (xDSL's `memref.StoreOp.get`)."""
    return memref.StoreOp.create(operands=[value, ref, *indices])


@lru_cache(maxsize=64)
def _cmpi_predicate(name: str) -> IntegerAttr:
    # xDSL's list of `arith.cmpi` predicates, in their numbering
    return IntegerAttr(arith.CMPI_COMPARISON_OPERATIONS.index(name), i64)


def cmpi(lhs: SSAValue, rhs: SSAValue, predicate: str) -> arith.CmpiOp:
    """`arith.cmpi predicate, lhs, rhs` on scalars (`arith.CmpiOp(lhs, rhs, predicate)`)."""
    return arith.CmpiOp.create(
        operands=[lhs, rhs], result_types=[i1], properties={"predicate": _cmpi_predicate(predicate)}
    )


def select(cond: SSAValue, true_value: SSAValue, false_value: SSAValue) -> arith.SelectOp:
    """`arith.select cond, true_value, false_value` (`arith.SelectOp(...)`)."""
    return arith.SelectOp.create(
        operands=[cond, true_value, false_value], result_types=[true_value.type]
    )


def dealloc(ref: SSAValue) -> memref.DeallocOp:
    """`memref.dealloc ref` (xDSL's `memref.DeallocOp.get`)."""
    return memref.DeallocOp.create(operands=[ref])


__all__ = [
    "INDEX",
    "Operands",
    "Templates",
    "alloc",
    "binary",
    "cmpi",
    "constant",
    "dealloc",
    "dim",
    "i64_array",
    "index_attr",
    "index_constant",
    "init_op",
    "load",
    "make",
    "reinterpret_cast",
    "segment_sizes",
    "select",
    "store",
]
