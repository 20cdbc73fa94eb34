"""Inject DISC RAL execution context.

`disc-ral-inject-execution-context{entry-func-name=main}`, BladeDISC's
RalInjectExecutionContextPass (ral_inject_execution_context.cc), extended as
BladeDISC's docs/developers/runtime_abstraction_layer.md describes:

- The entry function becomes `func.func @main(%ctx: !disc_ral.context)` with
  no results. Argument #i is received by
  `%v = "disc_ral.recv_input"(%ctx, %ci) : (!disc_ral.context, index) -> T`
  and returned value #j is handed back by
  `"disc_ral.send_output"(%ctx, %cj, %v)`; the `return` loses its operands.
- Placement (single-block entry functions): each `recv_input` sits right
  before the first op of the body that uses the argument (an unused argument
  is received at the start), each `send_output` right after the last op that
  may write the buffer (or a view of it) or defines it, so that a runtime can
  start before all inputs are there and hand out outputs early. Reads after
  the send are allowed; an op counts as a writer unless it is known to only
  read that operand (`memref.dim`/`load`/`rank`, lmhlo inputs, deallocs...).
  Several sends at one place keep their index order. Entry functions with
  several blocks get BladeDISC's placement: all receives at the start, the
  sends right before each `return`.
- Every other function with a body that needs the context (it holds an
  lmhlo / lmhlo_disc / disc_ral op, a `memref.alloc`/`dealloc`, a GPU launch,
  or calls such a function) and does not already take one gets a
  `!disc_ral.context` first argument; its `func.call`s pass the caller's
  context. Functions marked `disc.comp_intens_fusion` are left alone.

Errors: a missing entry function, an entry function called from the module,
or a non-memref entry argument or result (recv_input / send_output take
memrefs).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, builtin, func
from xdsl.dialects.builtin import FunctionType, MemRefType, StringAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.block_order import BlockOrder
from disc_ir.analysis.buffer_alias import buffer_writes, is_lmhlo_op, is_view_like
from disc_ir.analysis.placement import find_entry_function
from disc_ir.analysis.ral_context import is_comp_intens_fusion_func
from disc_ir.dialects.disc_ral import RalExecutionContextType, RecvInputOp, SendOutputOp
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.builders import index_constant
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

_READ_ONLY_USERS = frozenset(
    {
        "memref.dim",
        "memref.rank",
        "memref.load",
        "memref.extract_strided_metadata",
        "memref.dealloc",
        "affine.load",
        "disc_ral.send_output",
        "disc_shape.tie_shape",
        "func.return",
    }
)
"""Users that never write the buffer they are given."""

_NEEDS_CONTEXT_OPS = frozenset(
    {"memref.alloc", "memref.dealloc", "gpu.launch_func", "gpu.launch", "gpu.alloc", "gpu.dealloc"}
)
_NEEDS_CONTEXT_DIALECTS = frozenset({"lmhlo", "lmhlo_disc", "disc_ral"})


def _index_constant(value: int) -> arith.ConstantOp:
    return index_constant(value)


def _func_name(op: Operation) -> str:
    sym = inherent_attr(op, "sym_name")
    return sym.data if isinstance(sym, StringAttr) else ""


def _has_context_arg(f: func.FuncOp) -> bool:
    inputs = f.function_type.inputs.data
    return bool(inputs) and isinstance(inputs[0], RalExecutionContextType)


# ---------------------------------------------------------------------------
# Placement of recv_input / send_output
# ---------------------------------------------------------------------------


def _aliases(value: SSAValue) -> set[SSAValue]:
    """`value`, the buffer it views, and every view of that buffer (transitively)."""
    root = value
    while isinstance(root.owner, Operation) and is_view_like(root.owner):
        root = root.owner.operands[0]
    seen = {root, value}
    work = [root, value]
    while work:
        current = work.pop()
        for use in current.uses:
            user = use.operation
            if is_view_like(user) and use.index == 0:
                result = user.results[0]
                if result not in seen:
                    seen.add(result)
                    work.append(result)
    return seen


def _may_write(user: Operation, index: int) -> bool:
    """Whether `user` may write its operand #`index` (a buffer)."""
    if user.name in _READ_ONLY_USERS or is_view_like(user):
        return False
    if is_lmhlo_op(user) and not user.regions:
        return index in buffer_writes(user)
    return True


def _last_writer_in_block(value: SSAValue, block: Block, positions: BlockOrder) -> Operation | None:
    """The last op of `block` that defines `value` or may write its buffer."""
    last: Operation | None = None
    last_pos = -1

    def consider(op: Operation | None) -> None:
        nonlocal last, last_pos
        if op is None:
            return
        ancestor = block.find_ancestor_op_in_block(op)
        if ancestor is None or ancestor.has_trait(IsTerminator):
            return
        pos = positions[ancestor]
        if pos > last_pos:
            last, last_pos = ancestor, pos

    for alias in _aliases(value):
        if isinstance(alias.owner, Operation):
            consider(alias.owner)
        for use in alias.uses:
            if _may_write(use.operation, use.index):
                consider(use.operation)
    return last


def _first_user_in_block(value: SSAValue, block: Block, positions: BlockOrder) -> Operation | None:
    first: Operation | None = None
    for use in value.uses:
        ancestor = block.find_ancestor_op_in_block(use.operation)
        if ancestor is not None and (first is None or positions[ancestor] < positions[first]):
            first = ancestor
    return first


# ---------------------------------------------------------------------------
# The entry function
# ---------------------------------------------------------------------------


def _rewrite_entry(entry: func.FuncOp) -> None:
    if not entry.body.blocks:
        raise DiagnosticException(f"entry func: {_func_name(entry)} has no body")
    ctx_type = RalExecutionContextType()
    func_type = entry.function_type
    if list(func_type.inputs.data) == [ctx_type] and not func_type.outputs.data:
        return  # already rewritten
    for i, t in enumerate(func_type.inputs.data):
        if not isinstance(t, MemRefType):
            raise DiagnosticException(
                f"entry func {_func_name(entry)}: argument #{i} must be a memref to be "
                f"received from the RAL context, got {t}"
            )
    block = entry.body.blocks[0]
    ctx = block.insert_arg(ctx_type, 0)
    old_args = list(block.args[1:])
    single_block = len(entry.body.blocks) == 1

    # 1. arguments -> recv_input
    start = block.first_op
    order = BlockOrder(block)
    for i, arg in enumerate(old_args):
        anchor = _first_user_in_block(arg, block, order) if single_block else None
        if anchor is None:
            anchor = start
        idx = _index_constant(i)
        recv = RecvInputOp(ctx, idx, arg.type)
        if anchor is None:
            block.add_ops([idx, recv])
        else:
            Rewriter.insert_op([idx, recv], InsertPoint.before(anchor))
        arg.replace_all_uses_with(recv.result)

    # 2. returned values -> send_output
    for blk in entry.body.blocks:
        ret = blk.last_op
        if ret is None or ret.name != "func.return":
            continue
        last_after: dict[Operation, Operation] = {}
        for j, value in enumerate(ret.operands):
            if not isinstance(value.type, MemRefType):
                raise DiagnosticException(
                    f"entry func {_func_name(entry)}: result #{j} must be a memref to be "
                    f"sent to the RAL context, got {value.type}"
                )
            idx = _index_constant(j)
            send = SendOutputOp(ctx, idx, value)
            anchor = _last_writer_in_block(value, blk, order) if single_block else None
            if anchor is None:
                Rewriter.insert_op([idx, send], InsertPoint.before(ret))
            else:
                after = last_after.get(anchor, anchor)
                Rewriter.insert_op([idx, send], InsertPoint.after(after))
                last_after[anchor] = send
        ret.operands = []

    # 3. drop the old arguments, 4. the new type
    for arg in old_args:
        block.erase_arg(arg)
    entry.properties["function_type"] = FunctionType.from_lists([ctx_type], [])
    entry.properties.pop("arg_attrs", None)
    entry.properties.pop("res_attrs", None)


# ---------------------------------------------------------------------------
# Other functions
# ---------------------------------------------------------------------------


def _calls(f: func.FuncOp) -> Iterable[func.CallOp]:
    for op in preorder_ops(f):
        if isinstance(op, func.CallOp):
            yield op


def _needs_context_locally(f: func.FuncOp) -> bool:
    for op in preorder_ops(f.body):
        if op.name in _NEEDS_CONTEXT_OPS or op.dialect_name() in _NEEDS_CONTEXT_DIALECTS:
            return True
    return False


def _check_entry_not_called(module: builtin.ModuleOp, entry: func.FuncOp) -> None:
    entry_name = _func_name(entry)
    for f in module.ops:
        if not isinstance(f, func.FuncOp):
            continue
        for call in _calls(f):
            if call.callee.root_reference.data == entry_name:
                raise DiagnosticException(
                    f"entry func {entry_name} is called by {_func_name(f)}; the entry "
                    "function must not be called from the module"
                )


def _inject_into_callees(module: builtin.ModuleOp, entry: func.FuncOp) -> None:
    """Give the functions that need it a context argument (the entry has one already)."""
    funcs = {_func_name(op): op for op in module.ops if isinstance(op, func.FuncOp)}
    needs: set[str] = set()
    for name, f in funcs.items():
        if f is entry or not f.body.blocks or is_comp_intens_fusion_func(f):
            continue
        if _has_context_arg(f) or _needs_context_locally(f):
            needs.add(name)
    changed = True
    while changed:
        changed = False
        for name, f in funcs.items():
            if name in needs or f is entry or not f.body.blocks:
                continue
            if is_comp_intens_fusion_func(f):
                continue
            if any(c.callee.root_reference.data in needs for c in _calls(f)):
                needs.add(name)
                changed = True

    ctx_type = RalExecutionContextType()
    added: set[str] = set()
    for name in sorted(needs):
        f = funcs[name]
        if _has_context_arg(f):
            continue
        f.body.blocks[0].insert_arg(ctx_type, 0)
        ft = f.function_type
        f.properties["function_type"] = FunctionType.from_lists(
            [ctx_type, *ft.inputs.data], list(ft.outputs.data)
        )
        arg_attrs = f.properties.get("arg_attrs")
        if isinstance(arg_attrs, builtin.ArrayAttr):
            f.properties["arg_attrs"] = builtin.ArrayAttr(
                [builtin.DictionaryAttr({}), *arg_attrs.data]
            )
        added.add(name)

    for f in funcs.values():
        if not f.body.blocks:
            continue
        for call in list(_calls(f)):
            if call.callee.root_reference.data not in added:
                continue
            caller_args = f.body.blocks[0].args
            if not caller_args or not isinstance(caller_args[0].type, RalExecutionContextType):
                raise DiagnosticException(
                    f"{_func_name(f)} calls {call.callee.root_reference.data}, which needs "
                    "the RAL context, but has none to pass"
                )
            call.operands = [caller_args[0], *call.operands]


@register_pass
@dataclass(frozen=True)
class DiscRalInjectExecutionContextPass(ModulePass):
    """Inject DISC RAL execution context."""

    name = "disc-ral-inject-execution-context"

    entry_func_name: str = "main"

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "entry-func-name": "Name of the entry function.",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        entry = find_entry_function(op, self.entry_func_name)
        if not isinstance(entry, func.FuncOp):
            raise DiagnosticException(f"entry func: {self.entry_func_name} not found")
        _check_entry_not_called(op, entry)
        _rewrite_entry(entry)
        _inject_into_callees(op, entry)
