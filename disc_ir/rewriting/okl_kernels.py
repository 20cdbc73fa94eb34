"""What the OKL passes share: which functions they lower and which ops become kernels.

OneFlow's OKL passes (`oneflow/ir/lib/OneFlow/OKL/...`) lower a wrapped
subgraph function; in disc-ir every function with a body is one (the
shape-constraint graph excepted). A *kernel op* is an op that becomes an
`okl.wrapper_kernel` of its own: an op of the HLO dialects (`mhlo`, `chlo`,
`mhlo_disc`) but `mhlo.constant`, or any op whose result the function
returns. The other ops (constants, shape and index arithmetic) are
*helper ops*: each kernel that uses one gets its own copy, so the tensors
passed between kernels are tensors of the HLO ops only.
"""

from __future__ import annotations

from collections.abc import Iterator

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue

from disc_ir.analysis.shape_analysis import SHAPE_CONSTRAINT_GRAPH
from disc_ir.dialects.okl import GetTensorAsRetOp, LauncherContextType
from disc_ir.ir.walk import preorder_ops

#: the dialects whose ops run as wrapped kernels
KERNEL_DIALECTS = ("mhlo", "chlo", "mhlo_disc")
#: the ops of those dialects copied into their users' kernels instead
HELPER_OPS = ("mhlo.constant",)
#: the function `lower-to-okl` produces (OneFlow's name)
OKL_FUNC_NAME = "okl_func"
#: the runtime function each wrapped kernel launch calls (OneFlow's name)
OKL_LLVM_FUNC_NAME = "okl_llvm_func"
#: the prefix of the C-interface wrapper `convert-func-to-llvm` adds (MLIR's)
CIFACE_PREFIX = "_mlir_ciface_"


def function_bodies(module: ModuleOp) -> Iterator[func.FuncOp]:
    """The module's functions with a body (the shape-constraint graph excepted)."""
    for op in list(module.body.block.ops):
        if (
            isinstance(op, func.FuncOp)
            and op.body.blocks
            and op.sym_name.data != SHAPE_CONSTRAINT_GRAPH
        ):
            yield op


def launcher_context(f: func.FuncOp) -> BlockArgument | None:
    """`f`'s `!okl.launcher_ctx` argument (its first), or None."""
    args = f.body.block.args
    if args and isinstance(args[0].type, LauncherContextType):
        return args[0]
    return None


def is_kernel_op(op: Operation) -> bool:
    """Whether `op` becomes a wrapped kernel (see the module docstring)."""
    if op.name.startswith("okl."):
        return False
    if op.name.split(".", 1)[0] in KERNEL_DIALECTS and op.name not in HELPER_OPS:
        return True
    return any(as_ret_ops(r) for r in op.results)


def used_values(op: Operation) -> list[SSAValue]:
    """The values `op` reads: its operands, then the values its regions use
    from outside it (a sort comparator's constant), each once."""
    seen: dict[SSAValue, None] = dict.fromkeys(op.operands)
    for inner in preorder_ops(op):
        if inner is op:
            continue
        for value in inner.operands:
            owner = value.owner
            node = owner if isinstance(owner, Operation) else owner.parent_op()
            if value not in seen and (node is None or not op.is_ancestor(node)):
                seen[value] = None
    return list(seen)


def as_ret_ops(value: SSAValue) -> list[GetTensorAsRetOp]:
    """The `okl.get_tensor_as_ret` ops writing `value` to a result slot."""
    return [op for u in value.uses if isinstance(op := u.operation, GetTensorAsRetOp)]
