"""The `disc_ral` dialect: BladeDISC's runtime abstraction layer (RAL) calls.

A compiled function takes a `!disc_ral.context` (the RAL execution context)
as its first argument and talks to the runtime through it. Ops (as
BladeDISC's `disc_ral_ops.td` defines them; all print generically):

* `%m = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?xf32>`;
* `"disc_ral.send_output"(%ctx, %c0, %m) : (!disc_ral.context, index, memref<?xf32>) -> ()`;
* `"disc_ral.dispatch"(%ctx, %args...) {backend_config = "", call_target_name = "ral_gemm", device = "gpu", has_side_effect = false}`:
  call the runtime function `call_target_name` on `device`;
* `"disc_ral.cpu_launch"(%ctx, %lb, %ub, %step, %hint, %args...) {callee = @kernel}`:
  launch a CPU kernel over an iteration space;
* `%p = "disc_ral.get_pointer"(%m) : (memref<?xf32>) -> i64`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    BoolAttr,
    BytesAttr,
    IndexType,
    MemRefType,
    StringAttr,
    SymbolRefAttr,
    i64,
)
from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, SSAValue, TypeAttribute
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    attr_def,
    base,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    opt_attr_def,
    result_def,
    var_operand_def,
    var_result_def,
)

from disc_ir.dialects.disc_common import (
    I64,
    AnyMemRef,
    Index,
    TypeConstraint,
    bool_attr,
    bool_value,
    str_value,
)
from disc_ir.dialects.disc_shape import FlatSymbolRef
from disc_ir.ir.builders import init_op


@irdl_attr_definition
class RalExecutionContextType(ParametrizedAttribute, TypeAttribute):
    """`!disc_ral.context`: the runtime's execution context (C++ class
    `RalExecutionContext`)."""

    name = "disc_ral.context"


Context = TypeConstraint(lambda t: isinstance(t, RalExecutionContextType), "context")

IndexMemRef1D = TypeConstraint(
    lambda t: (
        isinstance(t, MemRefType)
        and t.get_num_dims() == 1
        and isinstance(t.get_element_type(), IndexType)
    ),
    "1D memref of index values",
)


@irdl_op_definition
class RecvInputOp(IRDLOperation):
    """`disc_ral.recv_input`: fetch input #`input_idx` from the context."""

    name = "disc_ral.recv_input"

    ctx = operand_def(Context)
    input_idx = operand_def(Index)
    result = result_def(AnyMemRef)

    def __init__(self, ctx: SSAValue | Operation, input_idx: SSAValue | Operation, type: Attribute):
        super().__init__(operands=[ctx, input_idx], result_types=[type])


@irdl_op_definition
class SendOutputOp(IRDLOperation):
    """`disc_ral.send_output`: hand `result` to the context as output
    #`output_idx`."""

    name = "disc_ral.send_output"

    ctx = operand_def(Context)
    output_idx = operand_def(Index)
    result = operand_def(AnyMemRef)

    def __init__(
        self,
        ctx: SSAValue | Operation,
        output_idx: SSAValue | Operation,
        result: SSAValue | Operation,
    ):
        super().__init__(operands=[ctx, output_idx, result])


@irdl_op_definition
class DispatchOp(IRDLOperation):
    """`disc_ral.dispatch`: call the runtime function `call_target_name`
    (e.g. `ral_gemm`, `h2d`, `sync_on_stream`) for `device` with `args`.

    `has_side_effect` (default false), `device` and `backend_config` (default
    `""`) may be absent; builders always set them, as BladeDISC's do.
    `backend_config` may hold arbitrary bytes (the serialized `custom_attrs`
    of a `custom_call_v2`): text that is not UTF-8 is a `BytesAttr`, which
    prints as the same string literal.
    """

    name = "disc_ral.dispatch"

    ctx = operand_def(Context)
    args = var_operand_def(AnyAttr())
    call_target_name = attr_def(StringAttr)
    has_side_effect = opt_attr_def(BoolAttr)
    device = opt_attr_def(StringAttr)
    backend_config = opt_attr_def(base(StringAttr) | base(BytesAttr))
    res = var_result_def(AnyAttr())

    def __init__(
        self,
        ctx: SSAValue | Operation,
        args: Sequence[SSAValue | Operation],
        result_types: Sequence[Attribute],
        call_target_name: str,
        device: str = "",
        has_side_effect: bool = False,
        backend_config: str | bytes = "",
    ):
        if isinstance(backend_config, bytes):
            try:
                config: StringAttr | BytesAttr = StringAttr(backend_config.decode("utf-8"))
            except UnicodeDecodeError:
                config = BytesAttr(backend_config)
        else:
            config = StringAttr(backend_config)
        init_op(
            self,
            operands=[ctx, list(args)],
            result_types=list(result_types),
            attributes={
                "call_target_name": StringAttr(call_target_name),
                "device": StringAttr(device),
                "has_side_effect": bool_attr(has_side_effect),
                "backend_config": config,
            },
        )

    def get_has_side_effect(self) -> bool:
        """`has_side_effect`, false when absent."""
        return bool_value(self, "has_side_effect", False)

    def get_device(self) -> str:
        """`device`, `""` when absent."""
        return str_value(self, "device")

    def get_backend_config(self) -> str:
        """`backend_config`, `""` when absent (see `get_backend_config_bytes` for binary data)."""
        return str_value(self, "backend_config")

    def get_backend_config_bytes(self) -> bytes:
        """`backend_config` as bytes (UTF-8 for text), `b""` when absent."""
        attr = self.attributes.get("backend_config")
        if isinstance(attr, BytesAttr):
            return attr.data
        if isinstance(attr, StringAttr):
            return attr.data.encode("utf-8")
        return b""


@irdl_op_definition
class CpuLaunchOp(IRDLOperation):
    """`disc_ral.cpu_launch`: run kernel `callee` on the CPU over the space
    [`lowerBound`, `upperBound`) by `step` (1D index memrefs), in chunks of
    about `unitWorkloadSizeHint` iterations, passing `args`.

    Generic form (BladeDISC's operands and attribute, in this order):

        "disc_ral.cpu_launch"(%ctx, %lb, %ub, %step, %unitWorkloadSizeHint, %args...)
            {callee = @kernel}
            : (!disc_ral.context, memref<Nxindex>, memref<Nxindex>, memref<Nxindex>,
               index, T...) -> ()

    `disc-outline-cpu-kernel` creates it: `%lb` / `%ub` / `%step` are N-element
    `memref.alloca` buffers (N = number of induction variables), the hint is
    the constant 1, and `@kernel` is a `func.func` marked
    `disc_cpu_kernel_func` with the signature
    `(%ctx, %lb: memref<Nxindex>, %ub: memref<Nxindex>, %step: memref<Nxindex>, T...) -> ()`:
    the launch's operands minus the hint, in the same order. The kernel reads
    its iteration box from those three buffers, so the runtime may call it
    once per sub-box of the launch space.

    `disc-to-llvm` lowers it as BladeDISC's ConvertCpuLaunchOpToDispatchOpPattern:
    `%ctx` and `%args` are packed into a `void**` array (one pointer per
    value to a stack slot holding it, memrefs as their LLVM descriptor
    structs); a wrapper `void packed_<kernel>(int64_t* lb, int64_t* ub,
    int64_t* step, void** packed)` unpacks them and calls the kernel with
    `lb` / `ub` / `step` as 1-D descriptors (`ptr, ptr, 0, N, 1`); the launch
    becomes `disc_ral.dispatch` of `ral_kernel_launch` on device `cpu` with
    operands (kernel name string `_cpu_kernel_<kernel>`, `%lb`, `%ub`,
    `%step`, hint, address of `packed_<kernel>`, packed array).
    """

    name = "disc_ral.cpu_launch"

    ctx = operand_def(Context)
    lowerBound = operand_def(IndexMemRef1D)
    upperBound = operand_def(IndexMemRef1D)
    step = operand_def(IndexMemRef1D)
    unitWorkloadSizeHint = operand_def(Index)
    args = var_operand_def(AnyAttr())
    callee = attr_def(FlatSymbolRef)

    def __init__(
        self,
        ctx: SSAValue | Operation,
        lower_bound: SSAValue | Operation,
        upper_bound: SSAValue | Operation,
        step: SSAValue | Operation,
        unit_workload_size_hint: SSAValue | Operation,
        args: Sequence[SSAValue | Operation],
        callee: str | SymbolRefAttr,
    ):
        if isinstance(callee, str):
            callee = SymbolRefAttr(callee)
        super().__init__(
            operands=[ctx, lower_bound, upper_bound, step, unit_workload_size_hint, list(args)],
            attributes={"callee": callee},
        )


@irdl_op_definition
class GetPointerOp(IRDLOperation):
    """`disc_ral.get_pointer`: the data pointer of `operand` as an i64."""

    name = "disc_ral.get_pointer"

    operand = operand_def(AnyMemRef)
    result = result_def(I64)

    def __init__(self, operand: SSAValue | Operation):
        super().__init__(operands=[operand], result_types=[i64])


DISC_RAL = Dialect(
    "disc_ral",
    [
        RecvInputOp,
        SendOutputOp,
        DispatchOp,
        CpuLaunchOp,
        GetPointerOp,
    ],
    [RalExecutionContextType],
)
