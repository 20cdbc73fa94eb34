"""`memref` -> `llvm` over MLIR's memref descriptors; heap memory through RAL.

As BladeDISC's disc-to-llvm (ConvertMemRefAllocOpToDispatchOpPattern and
friends), the heap is the runtime's:

* `memref.alloc` -> `"disc_ral.dispatch"(%ctx, %bytes) {call_target_name =
  "alloc", device = "cpu"|"gpu"} : (!disc_ral.context, i64) -> !llvm.ptr`
  (`alloc___cpu___pvoid_i64___pvoid`) and a descriptor with that pointer as
  allocated and aligned pointer, offset 0, the sizes and row-major strides;
* `memref.dealloc` -> `dealloc` dispatch of the allocated pointer
  (`dealloc___cpu___pvoid_pvoid___void`);

`device` is `gpu` for memrefs in a `#gpu.address_space`, else `cpu`; `%ctx` is
the enclosing function's first argument. The dispatches are then lowered to
`disc_ral_call` by `RalDispatchToLLVM`. No malloc/free is ever emitted.

Descriptor-based ops (static layout information used where known):
`load`/`store` (`aligned + offset + sum(i_k * stride_k)`), `dim`, `rank`,
`cast`, `memory_space_cast`, `reinterpret_cast`, `subview` (rank-reducing
too), `expand_shape`/`collapse_shape` (identity layouts), `alloca`
(`llvm.alloca`), `extract_strided_metadata`,
`extract_aligned_pointer_as_index`, `assume_alignment` (dropped), `copy`
(contiguous: `llvm.memcpy`), `atomic_rmw` (`llvm.atomicrmw`), and
`memref.global`/`get_global` (an `llvm.mlir.global` of the flattened data).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntAttr,
    IntegerAttr,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    UnitAttr,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.conversion import llvm_builders as builders
from disc_ir.conversion.dispatch import Handler, OpDispatch
from disc_ir.conversion.llvm_common import (
    PTR,
    Emitter,
    MemRefDescriptor,
    convert_type,
    element_byte_size,
    fail,
    has_identity_layout,
    ral_context_of,
    replace_op,
    strides_and_offset,
)
from disc_ir.dialects.disc_ral import DispatchOp
from disc_ir.dialects.upstream import llvm as dllvm
from disc_ir.dialects.upstream.gpu import AddressSpaceAttr

RAL_ALLOC = "alloc"
RAL_DEALLOC = "dealloc"


def memref_device(t: Attribute) -> str:
    """`gpu` for a memref in a `#gpu.address_space` (BladeDISC's isGpuMemRef), else `cpu`."""
    if isinstance(t, MemRefType) and isinstance(t.memory_space, AddressSpaceAttr):
        return "gpu"
    return "cpu"


def _result_memref_type(op: Operation) -> MemRefType:
    t = op.results[0].type
    if not isinstance(t, MemRefType):
        raise fail(op, f"expected a ranked memref result, got {t}")
    return t


def _static_array(op: Operation, name: str) -> list[int]:
    attr = op.properties[name]
    assert isinstance(attr, DenseArrayBase)
    return [int(v) for v in attr.get_values()]


def _mixed(static: Sequence[int], dynamic: Sequence[SSAValue], em: Emitter) -> list[SSAValue]:
    """Static values with DYNAMIC_INDEX placeholders filled from `dynamic` (as i64)."""
    it = iter(dynamic)
    return [em.llvm(next(it)) if s == DYNAMIC_INDEX else em.i64(s) for s in static]


def _shape_sizes(em: Emitter, t: MemRefType, dynamic: Sequence[SSAValue]) -> list[SSAValue]:
    return _mixed(list(t.get_shape()), dynamic, em)


def _row_major_strides(em: Emitter, sizes: Sequence[SSAValue]) -> list[SSAValue]:
    strides: list[SSAValue] = [em.i64(1)] * len(sizes)
    running = em.i64(1)
    for i in range(len(sizes) - 1, -1, -1):
        strides[i] = running
        if i:
            running = em.mul(running, sizes[i])
    return strides


def _layout_strides(
    op: Operation, em: Emitter, t: MemRefType, sizes: Sequence[SSAValue]
) -> tuple[list[SSAValue], int]:
    """Strides and offset of a freshly allocated buffer of type `t`."""
    if has_identity_layout(t):
        return _row_major_strides(em, sizes), 0
    try:
        strides, offset = strides_and_offset(t)
    except ValueError as e:
        raise fail(op, str(e)) from e
    if offset is None or None in strides:
        raise fail(op, f"cannot allocate a buffer with a dynamic layout {t}")
    return [em.i64(s) for s in strides], offset  # type: ignore[arg-type]  # static strides/offsets: checked above


def _num_bytes(op: Operation, em: Emitter, t: MemRefType, sizes: Sequence[SSAValue]) -> SSAValue:
    count = em.i64(1)
    for s in sizes:
        count = em.mul(count, s)
    try:
        elem_size = element_byte_size(t.get_element_type())
    except ValueError as e:
        raise fail(op, str(e)) from e
    return em.mul(count, em.i64(elem_size))


# ---------------------------------------------------------------------------
# Allocation
# ---------------------------------------------------------------------------


def _alloc(op: Operation, rewriter: PatternRewriter) -> None:
    t = _result_memref_type(op)
    ctx = ral_context_of(op, rewriter)
    em = Emitter(rewriter, op)
    sizes = _shape_sizes(em, t, op.operands[: len(op.dynamic_sizes)])  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    strides, offset = _layout_strides(op, em, t, sizes)
    nbytes = _num_bytes(op, em, t, sizes)
    dispatch = DispatchOp(ctx, [nbytes], [PTR], RAL_ALLOC, memref_device(t))
    em.emit(dispatch)
    ptr = dispatch.results[0]
    desc = MemRefDescriptor.build(em, t, ptr, ptr, offset, sizes, strides)
    replace_op(op, rewriter, [], [desc.value])


def _dealloc(op: Operation, rewriter: PatternRewriter) -> None:
    source = op.operands[0]
    if not isinstance(source.type, MemRefType):
        raise fail(op, "unranked memrefs are not supported")
    ctx = ral_context_of(op, rewriter)
    em = Emitter(rewriter, op)
    ptr = MemRefDescriptor.of(em, source).allocated_ptr(em)
    em.emit(DispatchOp(ctx, [ptr], [], RAL_DEALLOC, memref_device(source.type)))
    rewriter.erase(op)


def _alloca(op: Operation, rewriter: PatternRewriter) -> None:
    t = _result_memref_type(op)
    em = Emitter(rewriter, op)
    sizes = _shape_sizes(em, t, op.operands[: len(op.dynamic_sizes)])  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    strides, offset = _layout_strides(op, em, t, sizes)
    count = em.i64(1)
    for s in sizes:
        count = em.mul(count, s)
    align_attr = op.properties.get("alignment")
    alignment = align_attr.value.data if isinstance(align_attr, IntegerAttr) else 0
    ptr = em.alloca(convert_type(t.get_element_type()), count, alignment)
    desc = MemRefDescriptor.build(em, t, ptr, ptr, offset, sizes, strides)
    replace_op(op, rewriter, [], [desc.value])


# ---------------------------------------------------------------------------
# Access
# ---------------------------------------------------------------------------


def _load(op: Operation, rewriter: PatternRewriter) -> None:
    em = Emitter(rewriter, op)
    memref = op.operands[0]
    desc = MemRefDescriptor.of(em, memref)
    ptr = desc.element_ptr(em, [em.llvm(i) for i in op.operands[1:]])
    load = em.value(builders.load(ptr, convert_type(op.results[0].type)))
    replace_op(op, rewriter, [], [load])


def _store(op: Operation, rewriter: PatternRewriter) -> None:
    em = Emitter(rewriter, op)
    value = em.llvm(op.operands[0])
    desc = MemRefDescriptor.of(em, op.operands[1])
    ptr = desc.element_ptr(em, [em.llvm(i) for i in op.operands[2:]])
    em.emit(builders.store(value, ptr))
    rewriter.erase(op)


def _dim(op: Operation, rewriter: PatternRewriter) -> None:
    source, index = op.operands
    if not isinstance(source.type, MemRefType):
        raise fail(op, "unranked memrefs are not supported")
    em = Emitter(rewriter, op)
    desc = MemRefDescriptor.of(em, source)
    known = em.constant_of(index)
    if known is not None:
        if not 0 <= known < desc.rank:
            raise fail(op, f"dimension {known} is out of range for {source.type}")
        replace_op(op, rewriter, [], [desc.size(em, known)])
        return
    # Dynamic dimension: spill the sizes array and index it.
    sizes_type = llvm.LLVMArrayType(IntAttr(desc.rank), convert_type(index.type))
    slot = em.alloca(sizes_type)
    em.emit(llvm.StoreOp(em.extract(desc.value, [3], sizes_type), slot))
    ptr = em.gep(slot, sizes_type, [0, em.llvm(index)])
    size = em.value(llvm.LoadOp(ptr, convert_type(index.type)))
    replace_op(op, rewriter, [], [size])


def _rank(op: Operation, rewriter: PatternRewriter) -> None:
    t = op.operands[0].type
    if not isinstance(t, MemRefType):
        raise fail(op, "unranked memrefs are not supported")
    em = Emitter(rewriter, op)
    replace_op(op, rewriter, [], [em.i64(t.get_num_dims())])


def _same_descriptor(op: Operation, rewriter: PatternRewriter) -> None:
    """`cast` / `memory_space_cast` between ranked memrefs: the descriptor is unchanged."""
    src_t, dst_t = op.operands[0].type, op.results[0].type
    if not isinstance(src_t, MemRefType) or not isinstance(dst_t, MemRefType):
        raise fail(op, "unranked memrefs are not supported")
    em = Emitter(rewriter, op)
    replace_op(op, rewriter, [], [em.llvm(op.operands[0])])


def _reinterpret_cast(op: Operation, rewriter: PatternRewriter) -> None:
    t = _result_memref_type(op)
    em = Emitter(rewriter, op)
    src = MemRefDescriptor.of(em, op.operands[0])
    offsets = _mixed(_static_array(op, "static_offsets"), op.offsets, em)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    sizes = _mixed(_static_array(op, "static_sizes"), op.sizes, em)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    strides = _mixed(_static_array(op, "static_strides"), op.strides, em)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    desc = MemRefDescriptor.build(
        em, t, src.allocated_ptr(em), src.aligned_ptr(em), offsets[0], sizes, strides
    )
    replace_op(op, rewriter, [], [desc.value])


def dropped_subview_dims(sizes: Sequence[int], result_shape: Sequence[int]) -> set[int]:
    """Dims of a rank-reducing subview that are dropped: a greedy left-to-right match
    of the result sizes, unmatched unit sizes being dropped (MLIR's rank-reduction mask)."""
    dropped: set[int] = set()
    j = 0
    for i, s in enumerate(sizes):
        remaining_src = len(sizes) - i
        remaining_dst = len(result_shape) - j
        matches = j < len(result_shape) and (
            s == result_shape[j] or DYNAMIC_INDEX in (s, result_shape[j])
        )
        if matches and remaining_src > remaining_dst and s == 1 and result_shape[j] != 1:
            matches = False
        if matches and (remaining_src == remaining_dst or s != 1):
            j += 1
        elif s == 1 and remaining_src > remaining_dst:
            dropped.add(i)
        else:
            j += 1
    return dropped


def _subview(op: Operation, rewriter: PatternRewriter) -> None:
    t = _result_memref_type(op)
    em = Emitter(rewriter, op)
    src = MemRefDescriptor.of(em, op.operands[0])
    static_sizes = _static_array(op, "static_sizes")
    offsets = _mixed(_static_array(op, "static_offsets"), op.offsets, em)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    sizes = _mixed(static_sizes, op.sizes, em)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    steps = _mixed(_static_array(op, "static_strides"), op.strides, em)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    offset = src.offset(em)
    new_sizes: list[SSAValue] = []
    new_strides: list[SSAValue] = []
    dropped = dropped_subview_dims(static_sizes, list(t.get_shape()))
    for i in range(src.rank):
        stride = src.stride(em, i)
        offset = em.add(offset, em.mul(offsets[i], stride))
        if i in dropped:
            continue
        new_sizes.append(sizes[i])
        new_strides.append(em.mul(stride, steps[i]))
    if len(new_sizes) != t.get_num_dims():
        raise fail(op, "cannot infer the dropped dimensions of this rank-reducing subview")
    desc = MemRefDescriptor.build(
        em, t, src.allocated_ptr(em), src.aligned_ptr(em), offset, new_sizes, new_strides
    )
    replace_op(op, rewriter, [], [desc.value])


def _reassociation(op: Operation) -> list[list[int]]:
    attr = op.properties["reassociation"]
    return [[int(v.value.data) for v in group.data] for group in attr.data]  # type: ignore[attr-defined]  # the op's `reassociation` is an array of integer arrays


def _reshape(op: Operation, rewriter: PatternRewriter) -> None:
    """`collapse_shape` / `expand_shape` of identity-layout memrefs."""
    src_t = op.operands[0].type
    t = _result_memref_type(op)
    if not isinstance(src_t, MemRefType) or not has_identity_layout(src_t):
        raise fail(op, "only identity-layout memrefs are supported")
    em = Emitter(rewriter, op)
    src = MemRefDescriptor.of(em, op.operands[0])
    groups = _reassociation(op)
    if op.name == "memref.collapse_shape":
        sizes: list[SSAValue] = []
        for group in groups:
            size = em.i64(1)
            for d in group:
                size = em.mul(size, src.size(em, d))
            sizes.append(size)
        if t.get_num_dims() == 0:
            sizes = []
    else:
        sizes = _mixed(_static_array(op, "static_output_shape"), op.operands[1:], em)
    strides = _row_major_strides(em, sizes) if has_identity_layout(t) else None
    if strides is None:
        static, _ = strides_and_offset(t)
        if None in static:
            raise fail(op, f"unsupported result layout {t}")
        strides = [em.i64(s) for s in static]  # type: ignore[arg-type]  # static strides/offsets: checked above
    desc = MemRefDescriptor.build(
        em, t, src.allocated_ptr(em), src.aligned_ptr(em), src.offset(em), sizes, strides
    )
    replace_op(op, rewriter, [], [desc.value])


def _extract_strided_metadata(op: Operation, rewriter: PatternRewriter) -> None:
    em = Emitter(rewriter, op)
    src = MemRefDescriptor.of(em, op.operands[0])
    base_t = op.results[0].type
    assert isinstance(base_t, MemRefType)
    base = MemRefDescriptor.build(em, base_t, src.allocated_ptr(em), src.aligned_ptr(em), 0, [], [])
    values = [base.value, src.offset(em)]
    values += [src.size(em, i) for i in range(src.rank)]
    values += [src.stride(em, i) for i in range(src.rank)]
    replace_op(op, rewriter, [], values)


def _extract_aligned_pointer(op: Operation, rewriter: PatternRewriter) -> None:
    em = Emitter(rewriter, op)
    src = MemRefDescriptor.of(em, op.operands[0])
    value = em.value(llvm.PtrToIntOp(src.aligned_ptr(em)))
    replace_op(op, rewriter, [], [value])


def _erase(op: Operation, rewriter: PatternRewriter) -> None:
    rewriter.erase(op)


def _copy(op: Operation, rewriter: PatternRewriter) -> None:
    src_v, dst_v = op.operands
    src_t, dst_t = src_v.type, dst_v.type
    if not (
        isinstance(src_t, MemRefType)
        and isinstance(dst_t, MemRefType)
        and has_identity_layout(src_t)
        and has_identity_layout(dst_t)
    ):
        raise fail(op, "only copies between identity-layout (contiguous) memrefs are supported")
    em = Emitter(rewriter, op)
    src = MemRefDescriptor.of(em, src_v)
    dst = MemRefDescriptor.of(em, dst_v)
    count = em.i64(1)
    for i in range(src.rank):
        count = em.mul(count, src.size(em, i))
    nbytes = em.mul(count, em.i64(element_byte_size(src_t.get_element_type())))
    src_ptr = src.element_ptr(em, [em.i64(0)] * src.rank)
    dst_ptr = dst.element_ptr(em, [em.i64(0)] * dst.rank)
    em.emit(
        llvm.CallIntrinsicOp(
            "llvm.memcpy.p0.p0.i64", [dst_ptr, src_ptr, nbytes, em.const(0, i1)], []
        )
    )
    rewriter.erase(op)


ATOMIC_KIND_TO_LLVM = {
    "addf": "fadd",
    "addi": "add",
    "assign": "xchg",
    "maximumf": "fmaximum",
    "maxs": "max",
    "maxu": "umax",
    "minimumf": "fminimum",
    "mins": "min",
    "minu": "umin",
    "ori": "_or",
    "andi": "_and",
    "maxnumf": "fmax",
    "minnumf": "fmin",
}


def _atomic_rmw(op: Operation, rewriter: PatternRewriter) -> None:
    from disc_ir.dialects.upstream.memref import ATOMIC_RMW_KINDS

    kind_attr = op.properties["kind"]
    assert isinstance(kind_attr, IntegerAttr)
    kind = ATOMIC_RMW_KINDS[kind_attr.value.data]
    llvm_kind = ATOMIC_KIND_TO_LLVM.get(kind)
    if llvm_kind is None:
        raise fail(op, f"atomic_rmw kind '{kind}' has no LLVM atomicrmw equivalent")
    em = Emitter(rewriter, op)
    value = em.llvm(op.operands[0])
    desc = MemRefDescriptor.of(em, op.operands[1])
    ptr = desc.element_ptr(em, [em.llvm(i) for i in op.operands[2:]])
    old = em.value(dllvm.AtomicRMWOp(llvm_kind, ptr, value, "acq_rel"))
    replace_op(op, rewriter, [], [old])


# ---------------------------------------------------------------------------
# Globals
# ---------------------------------------------------------------------------


def _global(op: Operation, rewriter: PatternRewriter) -> None:
    t = op.properties["type"]
    assert isinstance(t, MemRefType)
    name = op.properties["sym_name"]
    assert isinstance(name, StringAttr)
    if not t.has_static_shape():
        raise fail(op, "a global memref must have a static shape")
    count = 1
    for d in t.get_shape():
        count *= d
    elem = convert_type(t.get_element_type())
    array_type = llvm.LLVMArrayType(IntAttr(count), elem)
    init = op.properties.get("initial_value")
    value: Attribute | None = None
    if isinstance(init, DenseIntOrFPElementsAttr):
        values = list(init.get_values())
        if len(values) == 1 and count != 1:
            values = values * count
        from xdsl.dialects.builtin import TensorType

        value = DenseIntOrFPElementsAttr.from_list(TensorType(elem, [count]), values)  # type: ignore[type-var]  # `elem` is an integer or float type of a global
    visibility = op.properties.get("sym_visibility")
    linkage = (
        "internal"
        if isinstance(visibility, StringAttr) and visibility.data == "private"
        else "external"
    )
    align = op.properties.get("alignment")
    new = llvm.GlobalOp(
        array_type,
        name.data,
        linkage,
        constant=isinstance(op.properties.get("constant"), UnitAttr),
        value=value,
        alignment=align.value.data if isinstance(align, IntegerAttr) else None,
    )
    rewriter.replace(op, new)


def _get_global(op: Operation, rewriter: PatternRewriter) -> None:
    t = _result_memref_type(op)
    name = op.properties["name"]
    assert isinstance(name, SymbolRefAttr)
    em = Emitter(rewriter, op)
    ptr = em.value(llvm.AddressOfOp(name.root_reference.data, PTR))
    sizes = [em.i64(s) for s in t.get_shape()]
    strides, offset = _layout_strides(op, em, t, sizes)
    desc = MemRefDescriptor.build(em, t, ptr, ptr, offset, sizes, strides)
    replace_op(op, rewriter, [], [desc.value])


HANDLERS: dict[str, Handler] = {
    "memref.alloc": _alloc,
    "memref.dealloc": _dealloc,
    "memref.alloca": _alloca,
    "memref.load": _load,
    "memref.store": _store,
    "memref.dim": _dim,
    "memref.rank": _rank,
    "memref.cast": _same_descriptor,
    "memref.memory_space_cast": _same_descriptor,
    "memref.reinterpret_cast": _reinterpret_cast,
    "memref.subview": _subview,
    "memref.collapse_shape": _reshape,
    "memref.expand_shape": _reshape,
    "memref.extract_strided_metadata": _extract_strided_metadata,
    "memref.extract_aligned_pointer_as_index": _extract_aligned_pointer,
    "memref.assume_alignment": _erase,
    "memref.copy": _copy,
    "memref.atomic_rmw": _atomic_rmw,
    "memref.global": _global,
    "memref.get_global": _get_global,
}


def memref_to_llvm_patterns() -> list[RewritePattern]:
    """The patterns of this module."""
    return [OpDispatch(HANDLERS)]


__all__ = [
    "HANDLERS",
    "dropped_subview_dims",
    "memref_device",
    "memref_to_llvm_patterns",
]
