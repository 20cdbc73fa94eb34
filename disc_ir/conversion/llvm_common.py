"""Shared machinery of the `*-to-llvm` pattern modules (the disc-to-llvm conversion).

Conversion model (MLIR's dialect conversion with materializations, done in
place): a pattern replaces one op by LLVM-dialect ops. Operands that are not
LLVM values yet are obtained with `llvm_value`, which looks through a
`builtin.unrealized_conversion_cast` from the LLVM type or inserts one; results
whose type changes (`index` -> `i64`, memref -> descriptor struct, ...) are cast
back to the original type with `replace_op` so that unconverted users stay
valid. When every op is converted the casts pair up and
`reconcile-unrealized-casts` removes them.

Types (`convert_type`, MLIR's LLVMTypeConverter with index = i64):
`index` -> `i64`; `!disc_ral.context` -> `!llvm.ptr`; a ranked memref -> its
descriptor `!llvm.struct<(ptr, ptr, i64, array<N x i64>, array<N x i64>)>`
(rank 0: `!llvm.struct<(ptr, ptr, i64)>`); signed/unsigned integers ->
signless; 1-D vectors keep their shape with converted elements.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import cast

from xdsl.dialects import builtin, llvm
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    UnrealizedConversionCastOp,
    VectorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.conversion import llvm_builders as builders
from disc_ir.conversion.ral_dispatch_to_llvm import (
    llvm_type_for,
    lookup_top_level_symbol,
    memref_descriptor_type,
)
from disc_ir.dialects.disc_ral import RalExecutionContextType
from disc_ir.ir.types import memref_type

PTR = llvm.LLVMPointerType()
"""The opaque pointer `!llvm.ptr`."""


class LoweringError(DiagnosticException):
    """An op the conversion cannot lower (message names the op)."""


def get_attr(op: Operation, name: str) -> Attribute | None:
    """Inherent attribute `name` of `op`, as a property or in the attribute dict."""
    attr = op.properties.get(name)
    return attr if attr is not None else op.attributes.get(name)


def fail(op: Operation, message: str) -> LoweringError:
    """A LoweringError `'<op name>' op: <message>`."""
    return LoweringError(f"'{op.name}' op: {message}")


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


@lru_cache(maxsize=4096)
def convert_type(t: Attribute) -> Attribute:
    """The LLVM-dialect type of a value of type `t` (see the module docstring;
    memoized: types are immutable and the lowering asks for the same few)."""
    if isinstance(t, VectorType):
        elem = convert_type(t.get_element_type())
        if elem == t.get_element_type():
            return t
        return VectorType(elem, t.get_shape())
    return llvm_type_for(t)


def is_llvm_compatible(t: Attribute) -> bool:
    """True if `t` needs no conversion."""
    return convert_type(t) == t


def expanded_arg_types(t: Attribute) -> list[Attribute]:
    """MLIR's calling convention: a memref argument is passed as its descriptor
    fields (allocated, aligned, offset, sizes..., strides...); other types as
    one converted value."""
    if isinstance(t, MemRefType):
        rank = t.get_num_dims()
        return [PTR, PTR, i64, *([i64] * (2 * rank))]
    return [convert_type(t)]


def element_byte_size(t: Attribute) -> int:
    """Size in bytes of one memref element of type `t`."""
    if isinstance(t, IndexType):
        return 8
    if isinstance(t, IntegerType):
        return max(1, (t.width.data + 7) // 8)
    if isinstance(t, Float16Type | BFloat16Type):
        return 2
    if isinstance(t, Float32Type):
        return 4
    if isinstance(t, Float64Type):
        return 8
    if isinstance(t, VectorType):
        count = 1
        for d in t.get_shape():
            count *= d
        return count * element_byte_size(t.get_element_type())
    if isinstance(t, llvm.LLVMPointerType | RalExecutionContextType):
        return 8
    raise ValueError(f"no byte size for element type {t}")


def strides_and_offset(t: MemRefType) -> tuple[list[int | None], int | None]:
    """Static strides and offset of `t`'s layout (None where dynamic).

    The identity layout has row-major strides (static where every inner size is
    static) and offset 0; a `strided<...>` layout gives its own. Other layouts
    raise ValueError.
    """
    layout = t.layout
    shape = list(t.get_shape())
    if isinstance(layout, NoneAttr):
        strides: list[int | None] = [None] * len(shape)
        running: int | None = 1
        for i in range(len(shape) - 1, -1, -1):
            strides[i] = running
            if running is not None and shape[i] != DYNAMIC_INDEX:
                running *= shape[i]
            else:
                running = None
        return strides, 0
    if isinstance(layout, StridedLayoutAttr):
        strides = [None if s is None else int(s) for s in layout.get_strides()]
        off = layout.get_offset()
        return strides, None if off is None else int(off)
    raise ValueError(f"unsupported memref layout {layout}")


def has_identity_layout(t: MemRefType) -> bool:
    """True for the default (row-major, offset 0) layout."""
    if isinstance(t.layout, NoneAttr):
        return True
    try:
        strides, offset = strides_and_offset(t)
    except ValueError:
        return False
    identity = strides_and_offset(memref_type(t.get_element_type(), t.get_shape()))
    return offset == 0 and strides == identity[0] and None not in strides


# ---------------------------------------------------------------------------
# Materialization
# ---------------------------------------------------------------------------


def cast_value(
    value: SSAValue, type_: Attribute, rewriter: PatternRewriter, ip: InsertPoint
) -> SSAValue:
    """`value` as `type_`: looks through an unrealized cast from `type_`, else inserts one."""
    if value.type == type_:
        return value
    owner = value.owner
    if (
        isinstance(owner, UnrealizedConversionCastOp)
        and len(owner.inputs) == 1
        and owner.inputs[0].type == type_
    ):
        return owner.inputs[0]
    cast = UnrealizedConversionCastOp.create(operands=[value], result_types=[type_])
    rewriter.insert(cast, ip)
    return cast.results[0]


def llvm_value(value: SSAValue, rewriter: PatternRewriter, before: Operation) -> SSAValue:
    """`value` converted to its LLVM type, materialized before `before`."""
    return cast_value(value, convert_type(value.type), rewriter, InsertPoint.before(before))


def llvm_operands(op: Operation, rewriter: PatternRewriter) -> list[SSAValue]:
    """`op`'s operands as llvm-dialect values, cast in front of `op` where needed."""
    return [llvm_value(v, rewriter, op) for v in op.operands]


def fastmath_flags(op: Operation) -> llvm.FastMathAttr:
    """The llvm fastmath flags of an arith/math op's `fastmath` attribute."""
    attr = get_attr(op, "fastmath")
    flags = getattr(attr, "data", None)
    if not flags:
        return llvm.FastMathAttr(None)
    names = [f.value if hasattr(f, "value") else str(f) for f in flags]
    if "fast" in names:
        return llvm.FastMathAttr("fast")
    return llvm.FastMathAttr([llvm.FastMathFlag(n) for n in names if n != "none"])


def materialize_source(
    value: SSAValue, type_: Attribute, rewriter: PatternRewriter, before: Operation
) -> SSAValue:
    """The `disc_ral_call` lowering's materializer (both directions)."""
    return cast_value(value, type_, rewriter, InsertPoint.before(before))


def replace_op(
    op: Operation,
    rewriter: PatternRewriter,
    new_ops: Sequence[Operation],
    new_values: Sequence[SSAValue],
) -> None:
    """Inserts `new_ops` before `op` and replaces `op`'s results by `new_values`
    (LLVM-typed), cast back to the original result types where they differ."""
    rewriter.insert(list(new_ops), InsertPoint.before(op))
    results: list[SSAValue] = []
    for old, new in zip(op.results, new_values, strict=True):
        if old.type != new.type:
            cast = UnrealizedConversionCastOp.create(operands=[new], result_types=[old.type])
            rewriter.insert(cast, InsertPoint.before(op))
            new = cast.results[0]
        results.append(new)
    rewriter.replace(op, [], results)


def retype_block_args(block: Block, rewriter: PatternRewriter) -> None:
    """Gives every argument of `block` its LLVM type; users see a cast back."""
    for arg in list(block.args):
        target = convert_type(arg.type)
        if target == arg.type:
            continue
        original = arg.type
        new_arg = rewriter.replace_value_with_new_type(arg, target)
        cast = UnrealizedConversionCastOp.create(operands=[new_arg], result_types=[original])
        rewriter.insert(cast, InsertPoint.at_start(block))
        rewriter.replace_uses_with_if(
            new_arg,
            cast.results[0],
            lambda use, c=cast: use.operation is not c,  # type: ignore[misc]  # the default argument binds this cast op
        )


# ---------------------------------------------------------------------------
# Emitting ops
# ---------------------------------------------------------------------------


class Emitter:
    """Builds LLVM ops at a fixed insertion point (in order)."""

    def __init__(self, rewriter: PatternRewriter, ip: InsertPoint | Operation):
        self.rewriter = rewriter
        self.ip = ip if isinstance(ip, InsertPoint) else InsertPoint.before(ip)
        self._consts: dict[tuple[int, Attribute], SSAValue] = {}

    def emit(self, op: Operation) -> Operation:
        self.rewriter.insert(op, self.ip)
        return op

    def value(self, op: Operation) -> SSAValue:
        """Emits `op` and returns its single result."""
        self.emit(op)
        return op.results[0]

    def llvm(self, value: SSAValue) -> SSAValue:
        """`value` converted to its LLVM type."""
        return cast_value(value, convert_type(value.type), self.rewriter, self.ip)

    def cast(self, value: SSAValue, type_: Attribute) -> SSAValue:
        return cast_value(value, type_, self.rewriter, self.ip)

    # constants ---------------------------------------------------------------

    def const(self, value: int | float, type_: Attribute = i64) -> SSAValue:
        """A constant (one op per integer value and type for this emitter)."""
        if not isinstance(type_, IntegerType):
            return self.value(builders.constant(value, type_))
        key = (int(value), type_)
        cached = self._consts.get(key)
        if cached is None:
            cached = self.value(builders.constant(value, type_))
            self._consts[key] = cached
        return cached

    def i64(self, value: int) -> SSAValue:
        return self.const(value, i64)

    def index(self, value: int | SSAValue) -> SSAValue:
        """An i64 for a static (int) or dynamic (SSA, converted) index."""
        if isinstance(value, int):
            return self.i64(value)
        return self.llvm(value)

    # arithmetic on i64 (skips trivial operations, folds constants) -----------

    @staticmethod
    def constant_of(value: SSAValue) -> int | None:
        """The integer a value is known to hold (llvm/arith constants, through casts)."""
        owner = value.owner
        # exact classes first: isinstance against xDSL's IR classes (ABCs)
        # costs more on a miss
        while owner.__class__ is UnrealizedConversionCastOp and len(owner.inputs) == 1:
            owner = owner.inputs[0].owner
        if owner.__class__ is Block:
            return None
        if owner.name in ("llvm.mlir.constant", "arith.constant"):  # type: ignore[union-attr]  # an op
            attr = get_attr(cast(Operation, owner), "value")
            if isinstance(attr, IntegerAttr):
                return attr.value.data
        return None

    def add(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = self.constant_of(a), self.constant_of(b)
        if ca == 0:
            return b
        if cb == 0:
            return a
        if ca is not None and cb is not None and a.type == i64 and b.type == i64:
            return self.i64(builders.wrap_i64(ca + cb))
        return self.value(builders.int_binary(llvm.AddOp, a, b))

    def mul(self, a: SSAValue, b: SSAValue) -> SSAValue:
        ca, cb = self.constant_of(a), self.constant_of(b)
        if ca == 1:
            return b
        if cb == 1:
            return a
        if ca is not None and cb is not None and a.type == i64 and b.type == i64:
            return self.i64(builders.wrap_i64(ca * cb))
        return self.value(builders.int_binary(llvm.MulOp, a, b))

    # aggregates --------------------------------------------------------------

    def undef(self, type_: Attribute) -> SSAValue:
        return self.value(builders.undef(type_))

    def extract(self, aggregate: SSAValue, position: Sequence[int], type_: Attribute) -> SSAValue:
        """Field `position` of `aggregate`: the inserted value itself when an
        insertvalue chain set it, else a new `llvm.extractvalue`."""
        folded = builders.folded_extract(aggregate, position)
        if folded is not None and folded.type == type_:
            return folded
        return self.value(builders.extract_value(aggregate, position, type_))

    def insert(self, aggregate: SSAValue, value: SSAValue, position: Sequence[int]) -> SSAValue:
        return self.value(builders.insert_value(aggregate, value, position))

    def gep(
        self,
        ptr: SSAValue,
        elem_type: Attribute,
        indices: Sequence[int | SSAValue],
        inbounds: bool = False,
    ) -> SSAValue:
        return self.value(builders.gep(ptr, elem_type, indices, inbounds=inbounds))

    def alloca(
        self, elem_type: Attribute, count: int | SSAValue = 1, alignment: int = 0
    ) -> SSAValue:
        size = self.i64(count) if isinstance(count, int) else count
        return self.value(builders.alloca(size, elem_type, alignment or None))


# ---------------------------------------------------------------------------
# Memref descriptors
# ---------------------------------------------------------------------------


class MemRefDescriptor:
    """Access to the fields of a memref descriptor struct (an LLVM value)."""

    def __init__(self, value: SSAValue, memref_type: MemRefType):
        self.value = value
        self.type = memref_type
        self.rank = memref_type.get_num_dims()

    @staticmethod
    def of(em: Emitter, memref: SSAValue) -> MemRefDescriptor:
        """The descriptor of the memref value `memref`."""
        t = memref.type
        if not isinstance(t, MemRefType):
            raise ValueError(f"expected a ranked memref, got {t}")
        return MemRefDescriptor(em.llvm(memref), t)

    @staticmethod
    def build(
        em: Emitter,
        memref_type: MemRefType,
        allocated: SSAValue,
        aligned: SSAValue,
        offset: int | SSAValue,
        sizes: Sequence[int | SSAValue],
        strides: Sequence[int | SSAValue],
    ) -> MemRefDescriptor:
        """A new descriptor from its fields (ints become i64 constants)."""
        fields = [allocated, aligned, em.index(offset)]
        fields += [em.index(size) for size in sizes]
        fields += [em.index(stride) for stride in strides]
        struct_type = memref_descriptor_type(memref_type)
        desc = em.value(builders.descriptor_from_fields(struct_type, fields))
        return MemRefDescriptor(desc, memref_type)

    def allocated_ptr(self, em: Emitter) -> SSAValue:
        return em.extract(self.value, [0], PTR)

    def aligned_ptr(self, em: Emitter) -> SSAValue:
        return em.extract(self.value, [1], PTR)

    def offset(self, em: Emitter, use_static: bool = True) -> SSAValue:
        if use_static:
            _, off = self._static()
            if off is not None:
                return em.i64(off)
        return em.extract(self.value, [2], i64)

    def size(self, em: Emitter, i: int, use_static: bool = True) -> SSAValue:
        if use_static and self.type.get_shape()[i] != DYNAMIC_INDEX:
            return em.i64(self.type.get_shape()[i])
        return em.extract(self.value, [3, i], i64)

    def stride(self, em: Emitter, i: int, use_static: bool = True) -> SSAValue:
        if use_static:
            strides, _ = self._static()
            if strides[i] is not None:
                return em.i64(strides[i])  # type: ignore[arg-type]  # static strides/offsets: checked above
        return em.extract(self.value, [4, i], i64)

    def fields(self, em: Emitter) -> list[SSAValue]:
        """All fields in calling-convention order (from the struct, not static info)."""
        out = [self.allocated_ptr(em), self.aligned_ptr(em), self.offset(em, False)]
        out += [self.size(em, i, False) for i in range(self.rank)]
        out += [self.stride(em, i, False) for i in range(self.rank)]
        return out

    def _static(self) -> tuple[list[int | None], int | None]:
        try:
            return strides_and_offset(self.type)
        except ValueError:
            return [None] * self.rank, None

    def element_ptr(self, em: Emitter, indices: Sequence[SSAValue]) -> SSAValue:
        """The address of element `indices` (converted i64 values)."""
        linear = self.offset(em)
        for i, idx in enumerate(indices):
            linear = em.add(linear, em.mul(idx, self.stride(em, i)))
        elem = convert_type(self.type.get_element_type())
        base = self.aligned_ptr(em)
        if em.constant_of(linear) == 0:
            return base
        return em.gep(base, elem, [linear], inbounds=True)


# ---------------------------------------------------------------------------
# Symbols and context
# ---------------------------------------------------------------------------


def module_of(op: Operation) -> builtin.ModuleOp:
    current: Operation | None = op
    while current is not None and not isinstance(current, builtin.ModuleOp):
        current = current.parent_op()
    if current is None:
        raise fail(op, "not inside a module")
    return current


def lookup_symbol(module: builtin.ModuleOp, name: str) -> Operation | None:
    """The op of `module`'s body defining symbol `name` (`lookup_top_level_symbol`)."""
    return lookup_top_level_symbol(module, name)


def enclosing_function(op: Operation) -> Operation | None:
    """The nearest enclosing `func.func` or `llvm.func`."""
    current = op.parent_op()
    while current is not None and current.name not in ("func.func", "llvm.func"):
        current = current.parent_op()
    return current


def ral_context_of(op: Operation, rewriter: PatternRewriter) -> SSAValue:
    """The RAL context (as `!disc_ral.context`): the enclosing function's first argument."""
    func = enclosing_function(op)
    if func is None or not func.regions[0].blocks:
        raise fail(op, "must be inside a function whose first argument is the RAL context")
    entry = func.regions[0].blocks.first
    assert entry is not None
    if not entry.args or not isinstance(
        entry.args[0].type, RalExecutionContextType | llvm.LLVMPointerType
    ):
        raise fail(op, "the enclosing function's first argument is not a RAL context")
    return cast_value(entry.args[0], RalExecutionContextType(), rewriter, InsertPoint.before(op))


__all__ = [
    "PTR",
    "Emitter",
    "LoweringError",
    "MemRefDescriptor",
    "cast_value",
    "convert_type",
    "element_byte_size",
    "enclosing_function",
    "expanded_arg_types",
    "fail",
    "get_attr",
    "has_identity_layout",
    "is_llvm_compatible",
    "llvm_value",
    "lookup_symbol",
    "materialize_source",
    "module_of",
    "ral_context_of",
    "replace_op",
    "retype_block_args",
    "strides_and_offset",
]
