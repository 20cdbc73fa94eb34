"""`disc_ral` -> `llvm` (BladeDISC's disc_to_llvm.cc patterns for the RAL ops).

* `disc_ral.recv_input` / `send_output` -> `disc_ral.dispatch` of
  `ral_recv_input` / `ral_send_output` on `cpu` (then `disc_ral_call`, e.g.
  `ral_recv_input___cpu___pvoid_i64___m2df32`);
* `disc_ral.dispatch` -> `disc_ral_call` (`RalDispatchToLLVM`, owned by
  `ral_dispatch_to_llvm`);
* `disc_ral.get_pointer` -> `llvm.ptrtoint` of the allocated pointer;
* `disc_ral.cpu_launch(%ctx, %lb, %ub, %step, %hint, %args...) {callee = @k}`
  (ConvertCpuLaunchOpToDispatchOpPattern):

      // the kernel's arguments (context + args, memrefs as descriptor fields),
      // packed: a struct of them and an array of pointers to its fields
      %params = <pack(%ctx, fields(%args)...)>
      // one wrapper per kernel, matching the runtime's packed-kernel ABI
      // void packed_k(int64_t* lb, int64_t* ub, int64_t* step, void** params)
      llvm.func @packed_k(%lb: !llvm.ptr, %ub: !llvm.ptr, %step: !llvm.ptr, %p: !llvm.ptr) {
        // unpack params[i]; lb/ub/step as memref<Nxindex> descriptors (offset 0,
        // size N, stride 1) around the given pointers
        llvm.call @k(%ctx, <lb desc fields>, <ub>, <step>, %unpacked...)
      }
      disc_ral_call(%ctx, "ral_kernel_launch___cpu___pvoid_pvoid_m1di64_m1di64_m1di64_i64_pvoid_ppvoid___void",
                    [kernel name, lb, ub, step, hint, @packed_k, %params])

  The kernel `@k` is what disc-outline-cpu-kernel made:
  `func.func @k(%ctx, %lb: memref<Nxindex>, %ub, %step, %args...)`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

from xdsl.dialects import llvm
from xdsl.dialects.builtin import MemRefType, SymbolRefAttr, i32, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.conversion import llvm_builders as builders
from disc_ir.conversion.dispatch import Handler, OpDispatch
from disc_ir.conversion.llvm_common import (
    PTR,
    Emitter,
    fail,
    get_attr,
    materialize_source,
    module_of,
    replace_op,
)
from disc_ir.conversion.ral_dispatch_to_llvm import (
    HOST_GLUE_PREFIX,
    RalDispatchToLLVM,
    call_outlined,
    get_or_create_global_string,
    get_or_insert_dispatch_function,
    load_global_string,
    outlined_function,
    promote_operand,
)
from disc_ir.dialects.disc_ral import DispatchOp
from disc_ir.runtime.abi import encode_ral_api_name as encode_abi_name

RAL_CPU_LAUNCH = "ral_kernel_launch"
CPU_LAUNCH_API = encode_abi_name(
    RAL_CPU_LAUNCH,
    "cpu",
    ["pvoid", "pvoid", "m1di64", "m1di64", "m1di64", "i64", "pvoid", "ppvoid"],
)
"""The runtime's name of the CPU launch (drivers/cpu.py `ral_kernel_launch`)."""


def pack_slots(em: Emitter, slots: Sequence[SSAValue]) -> SSAValue:
    """`void** args`: a struct holding `slots` and an array of pointers to its fields."""
    struct_type = llvm.LLVMStructType.from_type_list([s.type for s in slots])
    struct_ptr = em.alloca(struct_type, em.value(builders.constant(1, i32)))
    array_ptr = em.alloca(PTR, em.value(builders.constant(max(1, len(slots)), i32)))
    ops: list[Operation] = []
    for i, slot in enumerate(slots):
        field = builders.gep(struct_ptr, struct_type, [0, i])
        element = builders.gep(array_ptr, PTR, [i])
        ops += [field, builders.store(slot, field.result), element]
        ops.append(builders.store(field.result, element.result))
    em.rewriter.insert(ops, em.ip)
    return array_ptr


def _promote(em: Emitter, values: Sequence[SSAValue], before: Operation) -> list[SSAValue]:
    slots: list[SSAValue] = []
    for v in values:
        slots.extend(promote_operand(v, em.rewriter, before, materialize_source))
    return slots


# ---------------------------------------------------------------------------
# recv_input / send_output / get_pointer
# ---------------------------------------------------------------------------


def _recv_input(op: Operation, rewriter: PatternRewriter) -> None:
    ctx, index = op.operands
    dispatch = DispatchOp(ctx, [index], [op.results[0].type], "ral_recv_input", "cpu")
    rewriter.replace(op, dispatch)


def _send_output(op: Operation, rewriter: PatternRewriter) -> None:
    ctx, index, value = op.operands
    rewriter.replace(op, DispatchOp(ctx, [index, value], [], "ral_send_output", "cpu"))


def _get_pointer(op: Operation, rewriter: PatternRewriter) -> None:
    em = Emitter(rewriter, op)
    desc = em.llvm(op.operands[0])
    ptr = em.extract(desc, [0], PTR)
    replace_op(op, rewriter, [], [em.value(llvm.PtrToIntOp(ptr, i64))])


# ---------------------------------------------------------------------------
# cpu_launch
# ---------------------------------------------------------------------------


def _num_ivs(op: Operation) -> int:
    t = op.operands[1].type
    assert isinstance(t, MemRefType)
    n = t.get_shape()[0]
    return n if n >= 0 else 1


def _packed_kernel(
    op: Operation, callee: str, slot_types: Sequence, num_ivs: int, rewriter: PatternRewriter
) -> str:
    """The `packed_<callee>` wrapper (created once per callee and signature)."""

    def build(block: Block, ret: Operation) -> None:
        em = Emitter(rewriter, ret)
        unpacked: list[SSAValue] = []
        params = block.args[3]
        for i, t in enumerate(slot_types):
            element = em.gep(params, PTR, [i])
            field_ptr = em.value(builders.load(element, PTR))
            unpacked.append(em.value(builders.load(field_ptr, t)))
        zero, size, one = em.i64(0), em.i64(num_ivs), em.i64(1)
        args = [unpacked[0]]
        for k in range(3):
            args += [block.args[k], block.args[k], zero, size, one]
        args += unpacked[1:]
        em.emit(builders.call(callee, args))

    try:
        return outlined_function(
            module_of(op), rewriter, f"packed_{callee}", [PTR] * 4, None, build
        )
    except DiagnosticException as e:
        raise fail(op, str(e)) from None


def _emit_launch(
    em: Emitter,
    before: Operation,
    callee: str,
    num_ivs: int,
    kernel_slots: list[SSAValue],
    launch_slots: Callable[[], list[SSAValue]],
) -> None:
    """The `ral_kernel_launch` of `callee` before `before` (`em`'s insertion point): the
    kernel's argument slots (the context first) are packed, then
    `launch_slots()` (lb, ub, step, hint) are asked for and packed with them."""
    rewriter = em.rewriter
    params = pack_slots(em, kernel_slots)
    packed_name = _packed_kernel(before, callee, [s.type for s in kernel_slots], num_ivs, rewriter)
    fn_ptr = em.value(llvm.AddressOfOp(packed_name, PTR))

    module = module_of(before)
    name_global = get_or_create_global_string(
        module, f"_cpu_kernel_{callee}", callee.encode() + b"\0", rewriter
    )
    kernel_name = load_global_string(name_global, rewriter, before)

    call_slots = [kernel_slots[0], kernel_name]
    call_slots += launch_slots()
    call_slots += [fn_ptr, params]
    args = pack_slots(em, call_slots)
    dispatch_func = get_or_insert_dispatch_function(module, rewriter)
    api = get_or_create_global_string(
        module, CPU_LAUNCH_API, CPU_LAUNCH_API.encode() + b"\0", rewriter
    )
    api_ptr = load_global_string(api, rewriter, before)
    em.emit(builders.call(dispatch_func.sym_name.data, [kernel_slots[0], api_ptr, args]))


def _cpu_launch(op: Operation, rewriter: PatternRewriter, outline: bool = False) -> None:
    """`disc_ral.cpu_launch` -> `ral_kernel_launch` (see the module docstring);
    with `outline`, the launch is a call of `__disc_ral.launch.<kernel>(slots...)`,
    made once per kernel, which packs and launches."""
    callee_attr = get_attr(op, "callee")
    assert isinstance(callee_attr, SymbolRefAttr)
    callee = callee_attr.root_reference.data
    num_ivs = _num_ivs(op)
    em = Emitter(rewriter, op)
    ctx, lb, ub, step, hint = op.operands[:5]
    kernel_slots = _promote(em, [ctx, *op.operands[5:]], op)
    if not outline:
        _emit_launch(
            em, op, callee, num_ivs, kernel_slots, lambda: _promote(em, [lb, ub, step, hint], op)
        )
        rewriter.erase(op)
        return
    # The helper takes the kernel's slots, then the launch's (lb, ub, step, hint).
    launch_slots = _promote(em, [lb, ub, step, hint], op)
    count = len(kernel_slots)

    def build(block: Block, ret: Operation) -> None:
        args: list[SSAValue] = list(block.args)
        _emit_launch(
            Emitter(rewriter, ret), ret, callee, num_ivs, args[:count], lambda: args[count:]
        )

    slots = kernel_slots + launch_slots
    name = outlined_function(
        module_of(op),
        rewriter,
        f"{HOST_GLUE_PREFIX}launch.{callee}",
        [s.type for s in slots],
        None,
        build,
    )
    call_outlined(op, rewriter, name, slots, None)
    rewriter.erase(op)


def handlers(outline: bool = False) -> dict[str, Handler]:
    """The lowerings of this module's ops by name; `outline`: RAL calls become
    calls of shared host-glue functions (`HOST_GLUE_PREFIX`)."""
    table = dict(HANDLERS)
    if outline:
        table["disc_ral.cpu_launch"] = functools.partial(_cpu_launch, outline=True)
    return table


HANDLERS: dict[str, Handler] = {
    "disc_ral.recv_input": _recv_input,
    "disc_ral.send_output": _send_output,
    "disc_ral.get_pointer": _get_pointer,
    "disc_ral.cpu_launch": _cpu_launch,
}


def disc_ral_to_llvm_patterns() -> list[RewritePattern]:
    """The patterns of this module, `disc_ral.dispatch` included."""
    return [OpDispatch(HANDLERS), RalDispatchToLLVM(materialize=materialize_source)]


__all__ = [
    "CPU_LAUNCH_API",
    "disc_ral_to_llvm_patterns",
    "handlers",
    "pack_slots",
]
