"""The `okl` dialect: a graph run as a sequence of wrapped kernels (OneFlow's OKL).

OneFlow's kernel-launch dialect (`oneflow/ir/include/OneFlow/OKL/OKLOps.td`),
with its names and syntax. A function lowered to OKL takes one
`!okl.launcher_ctx`, the launcher context through which every kernel reads
its inputs and hands over its results; the ops print generically, as the
design prints them:

* `%t = "okl.get_tensor_from_arg"(%ctx) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>`:
  argument #`index` of the launch;
* `%t = "okl.get_tensor_from_ret"(%ctx) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>`:
  result slot #`index`, written by an earlier kernel;
* `%r = "okl.get_tensor_as_ret"(%ctx, %v) {index = 1 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>`:
  `%v` becomes result slot #`index` (the launch's results first, in return
  order, then the tensors passed between kernels);
* `"okl.wrapper_kernel"() ({ ... okl.return }) {index = 0 : i32} : () -> ()`:
  kernel #`index`, one op with the tensor reads and writes around it;
* `okl.return`: the terminator of a wrapper kernel's region.
"""

from __future__ import annotations

from xdsl.dialects.builtin import I32, IntegerAttr, i32
from xdsl.ir import (
    Attribute,
    Dialect,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
    TypeAttribute,
)
from xdsl.irdl import (
    IRDLOperation,
    attr_def,
    irdl_attr_definition,
    irdl_op_definition,
    operand_def,
    region_def,
    result_def,
    traits_def,
)
from xdsl.traits import HasParent, IsTerminator
from xdsl.utils.exceptions import VerifyException

from disc_ir.dialects.disc_common import AnyTensor, TypeConstraint


@irdl_attr_definition
class LauncherContextType(ParametrizedAttribute, TypeAttribute):
    """`!okl.launcher_ctx`: the launcher context of one kernel-launch run
    (OneFlow's `LauncherContext`); lowered to `!llvm.ptr<i8>`."""

    name = "okl.launcher_ctx"


LauncherContext = TypeConstraint(lambda t: isinstance(t, LauncherContextType), "!okl.launcher_ctx")


def _index_attr(index: int) -> IntegerAttr:
    return IntegerAttr(index, i32)


def _check_index(op: Operation) -> None:
    attr = op.attributes.get("index")
    if not isinstance(attr, IntegerAttr) or attr.value.data < 0:
        raise VerifyException("needs a non-negative i32 'index' attribute")


def op_index(op: Operation) -> int:
    """The `index` attribute of an okl op."""
    attr = op.attributes["index"]
    assert isinstance(attr, IntegerAttr)
    return attr.value.data


class _GetTensorOp(IRDLOperation):
    """The shared form of the okl ops that read a tensor by `index` from the launcher."""

    launcher_ctx = operand_def(LauncherContext)
    index = attr_def(IntegerAttr[I32])
    result = result_def(AnyTensor)

    def __init__(self, ctx: SSAValue | Operation, index: int, type: Attribute):
        super().__init__(
            operands=[ctx], result_types=[type], attributes={"index": _index_attr(index)}
        )

    def verify_(self) -> None:
        _check_index(self)


@irdl_op_definition
class GetTensorFromArgOp(_GetTensorOp):
    """`okl.get_tensor_from_arg`: argument #`index` of the launch."""

    name = "okl.get_tensor_from_arg"


@irdl_op_definition
class GetTensorFromRetOp(_GetTensorOp):
    """`okl.get_tensor_from_ret`: result slot #`index`, written by an earlier kernel."""

    name = "okl.get_tensor_from_ret"


@irdl_op_definition
class GetTensorAsRetOp(IRDLOperation):
    """`okl.get_tensor_as_ret`: `tensor` becomes result slot #`index`; the
    result is the same tensor (same type)."""

    name = "okl.get_tensor_as_ret"

    launcher_ctx = operand_def(LauncherContext)
    tensor = operand_def(AnyTensor)
    index = attr_def(IntegerAttr[I32])
    result = result_def(AnyTensor)

    def __init__(self, ctx: SSAValue | Operation, tensor: SSAValue | Operation, index: int):
        value = SSAValue.get(tensor)
        super().__init__(
            operands=[ctx, value],
            result_types=[value.type],
            attributes={"index": _index_attr(index)},
        )

    def verify_(self) -> None:
        _check_index(self)
        if self.tensor.type != self.result.type:
            raise VerifyException(
                f"result type {self.result.type} differs from its tensor's {self.tensor.type}"
            )


@irdl_op_definition
class WrapperKernelOp(IRDLOperation):
    """`okl.wrapper_kernel`: kernel #`index` of the launch; its one-block region
    reads its tensors from the launcher context, runs (at most) one op and
    writes its results back with `okl.get_tensor_as_ret`, ending in `okl.return`."""

    name = "okl.wrapper_kernel"

    body = region_def("single_block")
    index = attr_def(IntegerAttr[I32])

    def __init__(self, index: int, body: Region):
        super().__init__(regions=[body], attributes={"index": _index_attr(index)})

    def verify_(self) -> None:
        _check_index(self)
        block = self.body.block
        if not isinstance(block.last_op, ReturnOp):
            raise VerifyException("region must end with 'okl.return'")
        if block.args:
            raise VerifyException("region takes no block arguments")


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """`okl.return`: ends an `okl.wrapper_kernel` region."""

    name = "okl.return"

    traits = traits_def(IsTerminator(), HasParent(WrapperKernelOp))
    assembly_format = "attr-dict"

    def __init__(self) -> None:
        super().__init__()


#: the ops of the dialect that read or write the launcher context
TENSOR_OPS = (GetTensorFromArgOp, GetTensorFromRetOp, GetTensorAsRetOp)

OKL = Dialect(
    "okl",
    [GetTensorFromArgOp, GetTensorFromRetOp, GetTensorAsRetOp, WrapperKernelOp, ReturnOp],
    [LauncherContextType],
)
