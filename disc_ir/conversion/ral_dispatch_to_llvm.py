"""Lower `disc_ral.dispatch` to the type-erased RAL entry `disc_ral_call`.

BladeDISC's DispatchOpToLLVMPattern (disc_to_llvm.cc) on opaque pointers. The
RAL ABI (docs: ARCHITECTURE.md "RAL ABI") calls every runtime function
through one C symbol

    void disc_ral_call(void* ctx, const char* api_name, void** args);

`api_name` is `encode_ral_api_name(target, device, operand types, result
types)`:

    <call_target_name>___<device>___<operand codes joined by _>___<result codes or void>

with the type codes of `ral_type_code` (`pvoid` for the context and any
pointer, `m{N}d{T}` for a rank-N memref of T, `i1`..`i64`, `ui8`..`ui64`,
`f16`, `bf16`, `f32`, `f64`; `index` is `i64`). A dispatch with a non-empty
`backend_config` gets one more `pvoid` operand: a pointer to the config bytes
(NUL-terminated) in a global named `<api_name>__attrs` (uniqued).

`RalDispatchToLLVM` rewrites

    %r = "disc_ral.dispatch"(%ctx, %a...) {call_target_name = "t", device = "d"} : (...) -> T

into (N argument slots, R result slots):

    llvm.mlir.global internal constant @<api_name>("<api_name>\\00")        // module start, shared
    llvm.func @disc_ral_call(!llvm.ptr, !llvm.ptr, !llvm.ptr)              // declared once
    %one = llvm.mlir.constant(1 : i32) : i32
    %s = llvm.alloca %one x !llvm.struct<(slot types...)> : (i32) -> !llvm.ptr
    %n = llvm.mlir.constant(N+R : i32) : i32
    %args = llvm.alloca %n x !llvm.ptr : (i32) -> !llvm.ptr
    // for each slot i:
    %f = llvm.getelementptr %s[0, i] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(...)>
    llvm.store %slot_i, %f : T_i, !llvm.ptr                          // argument slots only
    %e = llvm.getelementptr %args[i] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
    llvm.store %f, %e : !llvm.ptr, !llvm.ptr
    %g = llvm.mlir.addressof @<api_name> : !llvm.ptr
    %name = llvm.getelementptr %g[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<K x i8>
    llvm.call @disc_ral_call(%ctx_ptr, %name, %args) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
    %v = llvm.load %f_result : !llvm.ptr -> T'                        // per result

Slots follow MLIR's LLVM lowering of call operands (promoteOperands): the
context is the first slot (a pointer); every field of a memref operand's
descriptor (allocated pointer, aligned pointer, offset, sizes[N],
strides[N]) is its own slot, taken with `llvm.extractvalue` from the
descriptor struct `!llvm.struct<(ptr, ptr, i64, array<N x i64>, array<N x
i64>)>`; a scalar is one slot (`index` as i64); then the optional config
pointer; then one slot per result, a memref result being one descriptor
struct.

Operands that are not LLVM values yet (the context, memrefs, `index`) are
converted by `materialize` (default: `builtin.unrealized_conversion_cast` to
`llvm_type_for(t)`, which the LLVM conversion resolves); loaded results of
such types are cast back the same way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import builtin, llvm
from xdsl.dialects.builtin import (
    BFloat16Type,
    BytesAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntAttr,
    IntegerType,
    MemRefType,
    Signedness,
    StringAttr,
    UnrealizedConversionCastOp,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.conversion import llvm_builders as builders
from disc_ir.dialects.disc_ral import DispatchOp, RalExecutionContextType
from disc_ir.dialects.upstream.llvm import LLVMTypedPointerType
from disc_ir.ir.attrs import inherent_attr
from disc_ir.runtime.abi import HOST_GLUE_PREFIX

RAL_DISPATCH_FUNCTION = "disc_ral_call"
"""The one C symbol every runtime call goes through."""

API_SEPARATOR = "___"
TYPE_SEPARATOR = "_"


# ---------------------------------------------------------------------------
# Name encoding
# ---------------------------------------------------------------------------


def ral_type_code(t: Attribute) -> str:
    """The RAL type code of `t` (BladeDISC's getTypeEncoding); ValueError if RAL has none."""
    if isinstance(t, MemRefType):
        return f"m{t.get_num_dims()}d{ral_type_code(t.get_element_type())}"
    if isinstance(t, IntegerType):
        unsigned = t.signedness.data == Signedness.UNSIGNED
        return f"{'ui' if unsigned else 'i'}{t.width.data}"
    if isinstance(t, Float16Type):
        return "f16"
    if isinstance(t, BFloat16Type):
        return "bf16"
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    if isinstance(t, RalExecutionContextType | llvm.LLVMPointerType):
        return "pvoid"
    if isinstance(t, IndexType):
        return "i64"
    raise ValueError(f"type {t} has no RAL type encoding")


def encode_ral_api_name(
    target: str,
    device: str,
    arg_types: Sequence[Attribute],
    result_types: Sequence[Attribute],
    has_backend_config: bool = False,
) -> str:
    """`target___device___<arg codes>___<result codes | void>` (BladeDISC's encoding).

    `arg_types` include the context (`pvoid`); `has_backend_config` appends the
    `pvoid` of the serialized config.
    """
    args = [ral_type_code(t) for t in arg_types]
    if has_backend_config:
        args.append("pvoid")
    results = [ral_type_code(t) for t in result_types] or ["void"]
    return API_SEPARATOR.join(
        [target, device, TYPE_SEPARATOR.join(args), TYPE_SEPARATOR.join(results)]
    )


def dispatch_api_name(op: DispatchOp) -> str:
    """The encoded API name of a `disc_ral.dispatch`."""
    return encode_ral_api_name(
        op.call_target_name.data,
        op.get_device(),
        [v.type for v in op.operands],
        [r.type for r in op.results],
        bool(op.get_backend_config_bytes()),
    )


# ---------------------------------------------------------------------------
# Types
# ---------------------------------------------------------------------------


def memref_descriptor_type(t: MemRefType) -> llvm.LLVMStructType:
    """MLIR's memref descriptor: `!llvm.struct<(ptr, ptr, i64, array<N x i64>, array<N x i64>)>`."""
    return _descriptor_type(t.get_num_dims())


@functools.cache
def _descriptor_type(rank: int) -> llvm.LLVMStructType:
    # types are immutable: one instance per rank (building one verifies it)
    ptr = llvm.LLVMPointerType()
    fields: list[Attribute] = [ptr, ptr, i64]
    if rank:
        fields += [llvm.LLVMArrayType(IntAttr(rank), i64), llvm.LLVMArrayType(IntAttr(rank), i64)]
    return llvm.LLVMStructType.from_type_list(fields)


def llvm_type_for(t: Attribute) -> Attribute:
    """The LLVM type a value of type `t` has after conversion."""
    if isinstance(t, MemRefType):
        return memref_descriptor_type(t)
    if isinstance(t, RalExecutionContextType):
        return llvm.LLVMPointerType()
    if isinstance(t, LLVMTypedPointerType):
        return llvm.LLVMPointerType(t.addr_space)
    if isinstance(t, IndexType):
        return i64
    if isinstance(t, IntegerType) and t.signedness.data != Signedness.SIGNLESS:
        return IntegerType(t.width.data)
    return t


Materializer = Callable[[SSAValue, Attribute, PatternRewriter, Operation], SSAValue]
"""(value, llvm type, rewriter, insert-before op) -> the value as that LLVM type."""


def unrealized_cast(
    value: SSAValue, type_: Attribute, rewriter: PatternRewriter, before: Operation
) -> SSAValue:
    """The default materialization: `builtin.unrealized_conversion_cast` (none if types match)."""
    if value.type == type_:
        return value
    cast = UnrealizedConversionCastOp.get([value], [type_])
    rewriter.insert(cast, InsertPoint.before(before))
    return cast.results[0]


# ---------------------------------------------------------------------------
# Module-level symbols
# ---------------------------------------------------------------------------


def _module_of(op: Operation) -> builtin.ModuleOp:
    current: Operation | None = op
    while current is not None and not isinstance(current, builtin.ModuleOp):
        current = current.parent_op()
    if current is None:
        raise DiagnosticException(f"'{op.name}' op: not inside a module")
    return current


_SYMBOLS_KEY = "_disc_top_level_symbols"


def _symbol_name(op: Operation) -> str | None:
    sym = inherent_attr(op, "sym_name")
    return sym.data if isinstance(sym, StringAttr) else None


def lookup_top_level_symbol(module: builtin.ModuleOp, name: str) -> Operation | None:
    """The op of `module`'s body defining symbol `name`.

    The lowering asks this for every RAL call; the table of names it keeps
    on the module is only a hint: a hit is checked (still in the module's
    body, still that name) and a miss rescans the body, so ops added, renamed
    or erased by anyone are seen. The table lives on the module object, so it
    dies with it.
    """
    table: dict[str, Operation] | None = module.__dict__.get(_SYMBOLS_KEY)
    if table is not None:
        op = table.get(name)
        if op is not None and op.parent is module.body.block and _symbol_name(op) == name:
            return op
    table = {}
    for op in module.ops:
        sym = _symbol_name(op)
        if sym is not None:
            table.setdefault(sym, op)
    module.__dict__[_SYMBOLS_KEY] = table
    return table.get(name)


def _unique_symbol(module: builtin.ModuleOp, name: str) -> str:
    if lookup_top_level_symbol(module, name) is None:
        return name
    for i in range(1, 1 << 30):
        candidate = f"{name}_{i}"
        if lookup_top_level_symbol(module, candidate) is None:
            return candidate
    raise AssertionError("unreachable")


def _string_value(data: bytes) -> StringAttr | BytesAttr:
    try:
        return StringAttr(data.decode("utf-8"))
    except UnicodeDecodeError:
        return BytesAttr(data)


def get_or_create_global_string(
    module: builtin.ModuleOp,
    name: str,
    value: bytes,
    rewriter: PatternRewriter,
    reuse: bool = True,
) -> llvm.GlobalOp:
    """`llvm.mlir.global internal constant @name("value")` at the module start.

    With `reuse`, an existing global `name` is returned (it must hold `value`);
    otherwise a fresh symbol (`name_1`, ...) is made when `name` is taken.
    """
    existing = lookup_top_level_symbol(module, name)
    if reuse and isinstance(existing, llvm.GlobalOp):
        held = existing.value
        data = held.data.encode("utf-8") if isinstance(held, StringAttr) else held
        if data != value:
            raise DiagnosticException(f"global @{name} exists with a different value")
        return existing
    symbol = name if reuse and existing is None else _unique_symbol(module, name)
    global_op = llvm.GlobalOp(
        llvm.LLVMArrayType(IntAttr(len(value)), i8),
        symbol,
        "internal",
        constant=True,
        value=_string_value(value),
    )
    rewriter.insert(global_op, InsertPoint.at_start(module.body.block))
    return global_op


def load_global_string(
    global_op: llvm.GlobalOp, rewriter: PatternRewriter, before: Operation
) -> SSAValue:
    """A pointer to the first character of `global_op` (addressof + getelementptr [0, 0])."""
    addr = llvm.AddressOfOp(global_op.sym_name.data, llvm.LLVMPointerType())
    gep = builders.gep(addr.result, global_op.global_type, [0, 0])
    rewriter.insert([addr, gep], InsertPoint.before(before))
    return gep.result


def get_or_insert_dispatch_function(
    module: builtin.ModuleOp, rewriter: PatternRewriter
) -> llvm.FuncOp:
    """The declaration `llvm.func @disc_ral_call(!llvm.ptr, !llvm.ptr, !llvm.ptr)`."""
    existing = lookup_top_level_symbol(module, RAL_DISPATCH_FUNCTION)
    if isinstance(existing, llvm.FuncOp):
        return existing
    if existing is not None:
        raise DiagnosticException(f"symbol @{RAL_DISPATCH_FUNCTION} exists and is not an llvm.func")
    ptr = llvm.LLVMPointerType()
    func = llvm.FuncOp(
        RAL_DISPATCH_FUNCTION,
        llvm.LLVMFunctionType([ptr, ptr, ptr]),
        linkage=llvm.LinkageAttr("external"),
    )
    rewriter.insert(func, InsertPoint.at_start(module.body.block))
    return func


# ---------------------------------------------------------------------------
# The pattern
# ---------------------------------------------------------------------------


def _i32_const(value: int) -> llvm.ConstantOp:
    return builders.constant(value, i32)


def promote_operand(
    value: SSAValue, rewriter: PatternRewriter, before: Operation, materialize: Materializer
) -> list[SSAValue]:
    """The argument slots of one dispatch operand (a memref: each descriptor field)."""
    t = value.type
    llvm_value = materialize(value, llvm_type_for(t), rewriter, before)
    if not isinstance(t, MemRefType):
        return [llvm_value]
    rank = t.get_num_dims()
    ptr = llvm.LLVMPointerType()
    positions: list[tuple[list[int], Attribute]] = [([0], ptr), ([1], ptr), ([2], i64)]
    positions += [([3, i], i64) for i in range(rank)]
    positions += [([4, i], i64) for i in range(rank)]
    slots = []
    for pos, field_type in positions:
        # A field an insertvalue chain set (a descriptor built by the lowering)
        # is used directly; else it is extracted.
        field = builders.folded_extract(llvm_value, pos)
        if field is None or field.type != field_type:
            extract = builders.extract_value(llvm_value, pos, field_type)
            rewriter.insert(extract, InsertPoint.before(before))
            field = extract.res
        slots.append(field)
    return slots


def emit_ral_call(
    module: builtin.ModuleOp,
    rewriter: PatternRewriter,
    before: Operation,
    api_name: str,
    slots: Sequence[SSAValue],
    result_types: Sequence[Attribute],
) -> list[SSAValue]:
    """The `disc_ral_call` of `api_name` with argument `slots` (the context
    first), packed as the module docstring shows, inserted before `before`;
    returns the results loaded back (of `result_types`, LLVM types)."""
    dispatch_func = get_or_insert_dispatch_function(module, rewriter)
    struct_type = llvm.LLVMStructType.from_type_list([s.type for s in slots] + list(result_types))
    ptr = llvm.LLVMPointerType()
    one = _i32_const(1)
    struct_ptr = builders.alloca(one.result, struct_type)  # no alignment: MLIR's default
    count = _i32_const(len(slots) + len(result_types))
    array_ptr = builders.alloca(count.result, ptr)
    new_ops: list[Operation] = [one, struct_ptr, count, array_ptr]
    result_ptrs: list[SSAValue] = []
    for i in range(len(slots) + len(result_types)):
        field = builders.gep(struct_ptr.res, struct_type, [0, i])
        new_ops.append(field)
        if i < len(slots):
            new_ops.append(builders.store(slots[i], field.result))
        else:
            result_ptrs.append(field.result)
        element = builders.gep(array_ptr.res, ptr, [i])
        new_ops += [element, builders.store(field.result, element.result)]
    rewriter.insert(new_ops, InsertPoint.before(before))

    name_global = get_or_create_global_string(
        module, api_name, api_name.encode("utf-8") + b"\0", rewriter
    )
    name_ptr = load_global_string(name_global, rewriter, before)
    call = builders.call(dispatch_func.sym_name.data, [slots[0], name_ptr, array_ptr.res])
    rewriter.insert(call, InsertPoint.before(before))
    results: list[SSAValue] = []
    for field_ptr, llvm_type in zip(result_ptrs, result_types, strict=True):
        load = builders.load(field_ptr, llvm_type)
        rewriter.insert(load, InsertPoint.before(before))
        results.append(load.dereferenced_value)
    return results


def is_host_glue(name: str) -> bool:
    """Whether `name` names an outlined RAL call (see `HOST_GLUE_PREFIX`)."""
    return name.startswith(HOST_GLUE_PREFIX)


def outlined_function(
    module: builtin.ModuleOp,
    rewriter: PatternRewriter,
    name: str,
    arg_types: Sequence[Attribute],
    result_type: Attribute | None,
    build: Callable[[Block, Operation], SSAValue | None],
) -> str:
    """`name`, an external `llvm.func` of `arg_types` -> `result_type` (None:
    void) at the module end, its body made by `build(entry block, return op)`
    (inserting before the return; it returns the value to return) the first
    time it is asked for."""
    existing = lookup_top_level_symbol(module, name)
    if isinstance(existing, llvm.FuncOp):
        return name
    if existing is not None:
        raise DiagnosticException(f"symbol @{name} exists and is not an llvm.func")
    block = Block(arg_types=list(arg_types))
    func = llvm.FuncOp(
        name,
        llvm.LLVMFunctionType(list(arg_types), result_type),
        linkage=llvm.LinkageAttr("external"),
        body=Region([block]),
    )
    rewriter.insert(func, InsertPoint.at_end(module.body.block))
    placeholder = llvm.ReturnOp()
    rewriter.insert(placeholder, InsertPoint.at_end(block))
    value = build(block, placeholder)
    if value is not None:
        rewriter.insert(llvm.ReturnOp(value), InsertPoint.before(placeholder))
        rewriter.erase(placeholder)
    return name


def call_outlined(
    op: Operation,
    rewriter: PatternRewriter,
    name: str,
    slots: Sequence[SSAValue],
    result_type: Attribute | None,
) -> SSAValue | None:
    """`llvm.call @name(slots)` before `op`; its result (None for void)."""
    call = builders.call(name, slots, result_type)
    rewriter.insert(call, InsertPoint.before(op))
    return call.returned if result_type is not None else None


@dataclass
class RalDispatchToLLVM(RewritePattern):
    """Rewrite a `disc_ral.dispatch` into a `disc_ral_call` (see the module docstring).

    `materialize` turns an operand into the LLVM type `llvm_type_for` gives
    (and a loaded result back into its original type, with the types swapped).
    With `outline`, a dispatch without backend config and with at most one
    result becomes a call of `__disc_ral.call.<api name>(slots...)` (made
    once per API name: the packing and the `disc_ral_call`), so a graph's
    entry holds one call per RAL call instead of four ops per argument slot.
    """

    materialize: Materializer = unrealized_cast
    outline: bool = False

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, DispatchOp):
            return
        try:
            api_name = dispatch_api_name(op)
        except ValueError as e:
            raise DiagnosticException(
                f"'{op.name}' op: unknown types in the dispatch op: {e}"
            ) from e
        module = _module_of(op)
        config = op.get_backend_config_bytes()
        result_types = [llvm_type_for(r.type) for r in op.results]
        if self.outline and not config and len(result_types) <= 1:
            results = self._outlined(op, rewriter, module, api_name, result_types)
        else:
            slots: list[SSAValue] = []
            for value in op.operands:
                slots.extend(promote_operand(value, rewriter, op, self.materialize))
            if config:
                attrs = get_or_create_global_string(
                    module, f"{api_name}__attrs", config + b"\0", rewriter, reuse=False
                )
                slots.append(load_global_string(attrs, rewriter, op))
            results = emit_ral_call(module, rewriter, op, api_name, slots, result_types)
        values: list[SSAValue] = []
        for result, value in zip(op.results, results, strict=True):
            if value.type != result.type:
                value = self.materialize(value, result.type, rewriter, op)
            values.append(value)
        rewriter.replace(op, [], values)

    def _outlined(
        self,
        op: DispatchOp,
        rewriter: PatternRewriter,
        module: builtin.ModuleOp,
        api_name: str,
        result_types: list[Attribute],
    ) -> list[SSAValue]:
        # The helper takes the argument slots (a memref's descriptor fields,
        # found where the descriptor was built: it dies in the caller).
        slots: list[SSAValue] = []
        for value in op.operands:
            slots.extend(promote_operand(value, rewriter, op, self.materialize))
        result_type = result_types[0] if result_types else None

        def build(block: Block, ret: Operation) -> SSAValue | None:
            results = emit_ral_call(module, rewriter, ret, api_name, block.args, result_types)
            return results[0] if results else None

        name = outlined_function(
            module,
            rewriter,
            f"{HOST_GLUE_PREFIX}call.{api_name}",
            [s.type for s in slots],
            result_type,
            build,
        )
        outlined = call_outlined(op, rewriter, name, slots, result_type)
        return [] if outlined is None else [outlined]


__all__ = [
    "HOST_GLUE_PREFIX",
    "RAL_DISPATCH_FUNCTION",
    "RalDispatchToLLVM",
    "call_outlined",
    "dispatch_api_name",
    "emit_ral_call",
    "encode_ral_api_name",
    "get_or_create_global_string",
    "get_or_insert_dispatch_function",
    "is_host_glue",
    "llvm_type_for",
    "load_global_string",
    "lookup_top_level_symbol",
    "memref_descriptor_type",
    "outlined_function",
    "promote_operand",
    "ral_type_code",
    "unrealized_cast",
]
