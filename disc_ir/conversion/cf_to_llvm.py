"""`cf` -> `llvm` (MLIR's ControlFlowToLLVM).

* `cf.br` -> `llvm.br`, `cf.cond_br` -> `llvm.cond_br`, `cf.switch` ->
  `llvm.switch` (an `index` flag becomes `i64`); successor operands take their
  LLVM types (block arguments are retyped by the function lowering).
* `cf.assert` is dropped, as MLIR does with `abortOnFailedAssert = false`:
  aborting would take down the process that hosts the JIT-compiled code.
"""

from __future__ import annotations

from xdsl.dialects import llvm
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.conversion.dispatch import OpDispatch
from disc_ir.conversion.llvm_common import llvm_value
from disc_ir.dialects.upstream import llvm as dllvm
from disc_ir.ir import builders


def _values(
    op: Operation, values: tuple[SSAValue, ...], rewriter: PatternRewriter
) -> list[SSAValue]:
    return [llvm_value(v, rewriter, op) for v in values]


def _br(op: Operation, rewriter: PatternRewriter) -> None:
    args = _values(op, tuple(op.operands), rewriter)
    rewriter.replace(op, builders.make(llvm.BrOp, [args], successors=[op.successors[0]]))


def _cond_br(op: Operation, rewriter: PatternRewriter) -> None:
    cond = llvm_value(op.operands[0], rewriter, op)
    then_args = _values(op, tuple(op.then_arguments), rewriter)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    else_args = _values(op, tuple(op.else_arguments), rewriter)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    new = builders.make(
        llvm.CondBrOp, [cond, then_args, else_args], successors=list(op.successors[:2])
    )
    rewriter.replace(op, new)


def _switch(op: Operation, rewriter: PatternRewriter) -> None:
    flag = llvm_value(op.flag, rewriter, op)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    default_args = _values(op, tuple(op.default_operands), rewriter)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    sizes = list(op.case_operand_segments.get_values())  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    case_values_attr = op.case_values  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    values = [int(v) for v in case_values_attr.get_values()] if case_values_attr else []
    case_ops: list[list[SSAValue]] = []
    start = 0
    all_case_operands = tuple(op.case_operands)  # type: ignore[attr-defined]  # handlers are keyed by op name: that op class defines it
    for size in sizes:
        case_ops.append(_values(op, all_case_operands[start : start + size], rewriter))
        start += size
    new = dllvm.SwitchOp(
        flag,
        op.successors[0],
        default_args,
        values,
        list(op.successors[1:]),
        case_ops,
    )
    rewriter.replace(op, new)


def _assert(op: Operation, rewriter: PatternRewriter) -> None:
    rewriter.erase(op)


HANDLERS = {
    "cf.br": _br,
    "cf.cond_br": _cond_br,
    "cf.switch": _switch,
    "cf.assert": _assert,
}


def cf_to_llvm_patterns() -> list[RewritePattern]:
    """The patterns of this module."""
    return [OpDispatch(HANDLERS)]


__all__ = ["cf_to_llvm_patterns"]
