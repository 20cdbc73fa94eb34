"""`gpu` -> `llvm` + NVVM intrinsics (MLIR's GPUToNVVM patterns, as BladeDISC's
DiscLowerGpuOpsToNVVMOpsPass populates them).

disc-ir has no `nvvm` dialect: each NVVM op is emitted as the
`llvm.call_intrinsic` MLIR's NVVM-to-LLVM-IR translation produces for it, so
the kernel module translates to LLVM IR without an extra step.

* `gpu.func @k(...) kernel` -> `llvm.func @k(...)` with memref arguments
  expanded into descriptor fields (MLIR's default calling convention) and
  the unit attributes `gpu.kernel` and `nvvm.kernel` (the NVPTX backend
  emits such a function as a `.entry`); `gpu.return` -> `llvm.return`;
  workgroup attributions -> `llvm.mlir.global internal @__wg_<kernel>_<i>`
  arrays in address space 3 (read through a generic pointer,
  `llvm.addrspacecast`), private attributions -> `llvm.alloca`;
* `gpu.thread_id|block_id|block_dim|grid_dim x|y|z` ->
  `llvm.nvvm.read.ptx.sreg.{tid,ctaid,ntid,nctaid}.{x,y,z}` (`i32`),
  zero-extended to the index type (`i64`; the ids are never negative);
* `gpu.barrier` -> `llvm.nvvm.barrier0` (`bar.sync 0`);
* `gpu.shuffle <mode> %v, %offset, %width` -> `llvm.nvvm.shfl.sync.<kind>.<t>p`
  with MLIR's operands: the active mask `-1 >> (32 - width)` and
  `width - 1` as the clamp (`up`: `32 - width`); the `p` variant also gives
  the valid flag. `f32`/`i32` are shuffled directly; `i1`/`i8`/`i16`/`f16`/
  `bf16` through a widened `i32`; 64-bit values as two `i32` halves (the
  valid flag of the low half);
* `memref.generic_atomic_rmw` -> a compare-and-swap loop (BladeDISC's
  `GenericAtomicRMWOpLoweringWithBitcast`): the element is loaded, the body
  computes the new value from the loop's current one, `llvm.cmpxchg`
  (`acq_rel` / `monotonic`, system scope) swaps it in if memory still holds
  the current value, else the loop runs again with what it read; floats go
  through the integer of their width (`llvm.bitcast`), as cmpxchg takes
  integers only; the result is the value replaced. Sub-word integers
  (`i8`/`i16`, `f16`/`bf16` as `i16`) are left to the NVPTX backend, which
  widens part-word compare-and-swap to 32 bits.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DictionaryAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    UnitAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir.conversion.dispatch import Handler, OpDispatch
from disc_ir.conversion.func_to_llvm import (
    _convert_entry_args,
    converted_function_type,
)
from disc_ir.conversion.llvm_common import (
    PTR,
    Emitter,
    MemRefDescriptor,
    convert_type,
    expanded_arg_types,
    fail,
    replace_op,
    retype_block_args,
)
from disc_ir.dialects.upstream.llvm import AddrSpaceCastOp, AtomicCmpXchgOp
from disc_ir.dialects.upstream.memref import AtomicYieldOp, GenericAtomicRMWOp
from disc_ir.runtime.abi import KERNEL_BUFFER_ALIGNMENT

#: NVPTX's shared-memory address space (MLIR's NVVMMemorySpace::kSharedMemorySpace)
WORKGROUP_ADDRESS_SPACE = 3

NVVM_KERNEL_ATTR = "nvvm.kernel"
"""Marks an `llvm.func` that is a kernel entry (MLIR's NVVMDialect::getKernelFuncAttrName)."""


def aligned_pointer_arg_attrs(ftype: FunctionType) -> ArrayAttr:
    """The `arg_attrs` of a kernel's LLVM function: `{llvm.align = 16}`
    (`KERNEL_BUFFER_ALIGNMENT`, which the RAL's CUDA driver guarantees) on the
    aligned pointer of every memref argument (the second descriptor field;
    offsets and views move the descriptor's offset, never that pointer), so
    the NVPTX backend can merge adjacent scalar accesses into vector ones."""
    align = DictionaryAttr({"llvm.align": IntegerAttr(KERNEL_BUFFER_ALIGNMENT, i64)})
    empty = DictionaryAttr({})
    dicts: list[DictionaryAttr] = []
    for t in ftype.inputs.data:
        fields = expanded_arg_types(t)
        dicts.extend(
            align if isinstance(t, MemRefType) and k == 1 else empty for k in range(len(fields))
        )
    return ArrayAttr(dicts)


_SREG = {
    "gpu.thread_id": "tid",
    "gpu.block_id": "ctaid",
    "gpu.block_dim": "ntid",
    "gpu.grid_dim": "nctaid",
}
_SHFL_KIND = {"xor": "bfly", "down": "down", "up": "up", "idx": "idx"}


def _gpu_func(op: Operation, rewriter: PatternRewriter) -> None:
    ftype = op.properties["function_type"]
    assert isinstance(ftype, FunctionType)
    name = op.attributes.get("sym_name") or op.properties.get("sym_name")
    assert isinstance(name, StringAttr)
    if ftype.outputs.data:
        raise fail(op, "kernels returning values are not supported")
    num_inputs = len(ftype.inputs.data)
    entry = op.regions[0].blocks.first
    attributions = list(entry.args[num_inputs:]) if entry is not None else []
    count = op.attributes.get("workgroup_attributions")
    num_workgroup = getattr(getattr(count, "value", None), "data", 0) or 0
    llvm_type = converted_function_type(ftype)
    body = rewriter.move_region_contents_to_new_regions(op.regions[0])
    attrs: dict[str, Attribute] = {
        k: v
        for k, v in op.attributes.items()
        if k not in ("sym_name", "function_type", "kernel", "workgroup_attributions", "arg_attrs")
    }
    is_kernel = op.properties.get("kernel") is not None or "gpu.kernel" in op.attributes
    if is_kernel:
        attrs["gpu.kernel"] = UnitAttr()
        attrs[NVVM_KERNEL_ATTR] = UnitAttr()
    new = llvm.FuncOp(
        name.data,
        llvm_type,
        linkage=llvm.LinkageAttr("external"),
        body=body,
        extra_attrs=attrs,
    )
    if is_kernel:
        new.properties["arg_attrs"] = aligned_pointer_arg_attrs(ftype)
    rewriter.replace(op, new)
    if body.blocks:
        _lower_attributions(new, attributions, num_workgroup, rewriter)
        _convert_entry_args(new, list(llvm_type.inputs.data), rewriter)
        for block in list(body.blocks)[1:]:
            retype_block_args(block, rewriter)


def _lower_attributions(
    func: llvm.FuncOp,
    attributions: list[BlockArgument],
    num_workgroup: int,
    rewriter: PatternRewriter,
) -> None:
    """Workgroup attributions -> `llvm.mlir.global internal @__wg_<func>_<i>`
    arrays in address space 3 of the kernel module (MLIR's GPUFuncOpLowering);
    private ones -> an `llvm.alloca` in the entry block. Each is seen through a
    memref descriptor of static sizes and identity strides; the workgroup
    pointer is cast to the generic address space the other descriptors use."""
    entry = func.body.blocks.first
    module = func.parent_op()
    if entry is None or not attributions:
        return
    if module is None:
        raise fail(func, "a kernel with workgroup attributions must be in a module")
    em = Emitter(rewriter, InsertPoint.at_start(entry))
    for i, arg in enumerate(attributions):
        t = arg.type
        if not isinstance(t, MemRefType) or any(d < 0 for d in t.get_shape()):
            raise fail(func, f"attribution {i} must be a statically shaped memref, got {t}")
        count = 1
        for d in t.get_shape():
            count *= d
        elem = convert_type(t.get_element_type())
        array = llvm.LLVMArrayType(IntAttr(count), elem)
        if i < num_workgroup:
            name = f"__wg_{func.sym_name.data}_{i}"
            global_op = llvm.GlobalOp(
                array, name, "internal", addr_space=WORKGROUP_ADDRESS_SPACE, alignment=16
            )
            rewriter.insert(global_op, InsertPoint.before(func))
            shared = em.emit(
                llvm.AddressOfOp(name, llvm.LLVMPointerType(IntAttr(WORKGROUP_ADDRESS_SPACE)))
            ).results[0]
            ptr = em.emit(AddrSpaceCastOp(shared, PTR)).results[0]
        else:
            ptr = em.emit(llvm.AllocaOp(em.i64(count), elem)).results[0]
        strides: list[int] = []
        running = 1
        for d in reversed(t.get_shape()):
            strides.insert(0, running)
            running *= d
        desc = MemRefDescriptor.build(em, t, ptr, ptr, 0, list(t.get_shape()), strides)
        rewriter.replace_all_uses_with(arg, em.cast(desc.value, t))
        rewriter.erase_block_argument(arg)


def _gpu_return(op: Operation, rewriter: PatternRewriter) -> None:
    if op.operands:
        raise fail(op, "returning values from a kernel is not supported")
    rewriter.replace(op, llvm.ReturnOp())


def _sreg(op: Operation, rewriter: PatternRewriter) -> None:
    dim = op.properties["dimension"]
    name = f"llvm.nvvm.read.ptx.sreg.{_SREG[op.name]}.{dim.data.value}"  # type: ignore[attr-defined]  # the op's `dimension` is a gpu.dimension enum attribute
    em = Emitter(rewriter, op)
    call = em.value(llvm.CallIntrinsicOp(name, [], [i32]))
    value = em.value(llvm.ZExtOp(call, i64))
    replace_op(op, rewriter, [], [value])


def _barrier(op: Operation, rewriter: PatternRewriter) -> None:
    em = Emitter(rewriter, op)
    em.emit(llvm.CallIntrinsicOp("llvm.nvvm.barrier0", [], []))
    rewriter.erase(op)


def _shfl_i32_or_f32(
    em: Emitter, kind: str, value: SSAValue, offset: SSAValue, mask: SSAValue, clamp: SSAValue
) -> tuple[SSAValue, SSAValue]:
    suffix = "f32" if isinstance(value.type, Float32Type) else "i32"
    ret = llvm.LLVMStructType.from_type_list([value.type, i1])
    pair = em.value(
        llvm.CallIntrinsicOp(
            f"llvm.nvvm.shfl.sync.{kind}.{suffix}p", [mask, value, offset, clamp], [ret]
        )
    )
    return em.extract(pair, [0], value.type), em.extract(pair, [1], i1)


def _shuffle(op: Operation, rewriter: PatternRewriter) -> None:
    em = Emitter(rewriter, op)
    value, offset, width = (em.llvm(v) for v in op.operands)
    mode = op.properties["mode"].data.value  # type: ignore[attr-defined]  # the op's `mode` is a gpu shuffle-mode enum attribute
    kind = _SHFL_KIND[mode]
    thirty_two = em.const(32, i32)
    lead_inactive = em.value(llvm.SubOp(thirty_two, width))
    mask = em.value(llvm.LShrOp(em.const(-1, i32), lead_inactive))
    if mode == "up":
        clamp = lead_inactive
    else:
        clamp = em.value(llvm.SubOp(width, em.const(1, i32)))
    t = value.type
    if isinstance(t, Float32Type) or t == i32:
        result, valid = _shfl_i32_or_f32(em, kind, value, offset, mask, clamp)
    elif isinstance(t, Float16Type | BFloat16Type) or (
        isinstance(t, IntegerType) and t.width.data < 32
    ):
        bits = 16 if isinstance(t, Float16Type | BFloat16Type) else t.width.data
        as_int = (
            value
            if isinstance(t, IntegerType)
            else em.value(llvm.BitcastOp(value, IntegerType(bits)))
        )
        wide = em.value(llvm.ZExtOp(as_int, i32))
        shuffled, valid = _shfl_i32_or_f32(em, kind, wide, offset, mask, clamp)
        narrow = em.value(llvm.TruncOp(shuffled, IntegerType(bits)))
        result = narrow if isinstance(t, IntegerType) else em.value(llvm.BitcastOp(narrow, t))
    elif isinstance(t, Float64Type) or t == i64:
        as_int = value if t == i64 else em.value(llvm.BitcastOp(value, i64))
        lo = em.value(llvm.TruncOp(as_int, i32))
        hi = em.value(llvm.TruncOp(em.value(llvm.LShrOp(as_int, em.const(32, i64))), i32))
        lo_s, valid = _shfl_i32_or_f32(em, kind, lo, offset, mask, clamp)
        hi_s, _ = _shfl_i32_or_f32(em, kind, hi, offset, mask, clamp)
        wide_hi = em.value(llvm.ShlOp(em.value(llvm.ZExtOp(hi_s, i64)), em.const(32, i64)))
        joined = em.value(llvm.OrOp(wide_hi, em.value(llvm.ZExtOp(lo_s, i64))))
        result = joined if t == i64 else em.value(llvm.BitcastOp(joined, t))
    else:
        raise fail(op, f"cannot shuffle a value of type {t}")
    replace_op(op, rewriter, [], [result, valid])


def _bit_width(t: Attribute) -> int | None:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, Float16Type | BFloat16Type):
        return 16
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    return None


def _generic_atomic_rmw(op: Operation, rewriter: PatternRewriter) -> None:
    """`memref.generic_atomic_rmw` -> load + CAS loop (see the module docstring).

    The block holding `op` is split: `init` (up to `op`: load, branch to the
    loop), `loop(%current)` (the body, cmpxchg, back edge with the value read)
    and `end` (the ops after `op`, which see the value read as its result)."""
    assert isinstance(op, GenericAtomicRMWOp)
    init = op.parent_block()
    region = init.parent if init is not None else None
    if init is None or region is None or region.parent is None:
        raise fail(op, "a generic_atomic_rmw must be in a function body")
    owner = region.parent
    if owner.name not in ("gpu.func", "llvm.func", "func.func"):
        raise fail(op, f"a generic_atomic_rmw inside '{owner.name}' (lower it to a CFG first)")
    memref_type = op.memref.type
    assert isinstance(memref_type, MemRefType)
    elem = convert_type(memref_type.get_element_type())
    bits = _bit_width(elem)
    if bits is None:
        raise fail(op, f"no compare-and-swap for elements of type {elem}")
    as_int = elem if isinstance(elem, IntegerType) else IntegerType(bits)

    em = Emitter(rewriter, op)
    desc = MemRefDescriptor.of(em, op.memref)
    ptr = desc.element_ptr(em, [em.llvm(i) for i in op.indices])
    first = em.value(llvm.LoadOp(ptr, elem))

    end = init.split_before(op)
    loop = Block(arg_types=[elem])
    region.insert_block_after(loop, init)
    rewriter.insert(llvm.BrOp(loop, first), InsertPoint.at_end(init))

    body = op.atomic_body.block
    current = loop.args[0]
    rewriter.replace_all_uses_with(body.args[0], current)
    yield_op = body.last_op
    assert isinstance(yield_op, AtomicYieldOp)
    new_value = yield_op.operands[0]
    for nested in list(body.ops):
        if nested is yield_op:
            continue
        nested.detach()
        loop.add_op(nested)

    lem = Emitter(rewriter, InsertPoint.at_end(loop))
    new = lem.llvm(new_value)
    expected: SSAValue = current
    if as_int != elem:
        expected = lem.value(llvm.BitcastOp(current, as_int))
        new = lem.value(llvm.BitcastOp(new, as_int))
    pair = lem.value(AtomicCmpXchgOp(ptr, expected, new, "acq_rel", "monotonic"))
    loaded = lem.extract(pair, [0], as_int)
    ok = lem.extract(pair, [1], i1)
    if as_int != elem:
        loaded = lem.value(llvm.BitcastOp(loaded, elem))
    lem.emit(llvm.CondBrOp(ok, end, [], loop, [loaded]))
    replace_op(op, rewriter, [], [loaded])


HANDLERS: dict[str, Handler] = {
    "memref.generic_atomic_rmw": _generic_atomic_rmw,
    "gpu.func": _gpu_func,
    "gpu.return": _gpu_return,
    "gpu.thread_id": _sreg,
    "gpu.block_id": _sreg,
    "gpu.block_dim": _sreg,
    "gpu.grid_dim": _sreg,
    "gpu.barrier": _barrier,
    "gpu.shuffle": _shuffle,
}


def gpu_to_nvvm_patterns() -> list[RewritePattern]:
    """The patterns of this module."""
    return [OpDispatch(HANDLERS)]


__all__ = ["HANDLERS", "NVVM_KERNEL_ATTR", "gpu_to_nvvm_patterns"]
