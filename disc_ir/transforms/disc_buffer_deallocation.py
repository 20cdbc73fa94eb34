"""`disc-buffer-deallocation`: free the buffers DISC ops allocate (BladeDISC's DiscBufferDeallocationPass).

`lmhlo_disc.custom_call_v2` returns buffers its callee allocated; the
generic `buffer-deallocation` does not see them as allocations, so this pass
frees them: each result gets a `memref.dealloc` right after the last op
using it or one of its aliases (views, control-flow successors) in the
block where they all end (uses inside `lmhlo.fusion` and other regions
count at the op holding them). A result live at the block's terminator
(returned) is not freed, and a result that already has a `memref.dealloc`
(on itself or an alias) is left as it is, so each buffer is freed once.
Only structured control flow is supported.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.buffer_alias import BufferViewFlowAnalysis, is_memref
from disc_ir.analysis.buffer_placement import insert_dealloc_after_last_use
from disc_ir.analysis.dominance import DominanceInfo
from disc_ir.analysis.liveness import Liveness
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

CANDIDATE_OPS: frozenset[str] = frozenset({"lmhlo_disc.custom_call_v2"})
"""Ops whose memref results are buffers allocated by the op."""


def find_candidates(root: Operation) -> list[SSAValue]:
    """The memref results of the buffer-allocating DISC ops under `root`."""
    return [
        r
        for op in preorder_ops(root)
        if op.name in CANDIDATE_OPS
        for r in op.results
        if is_memref(r)
    ]


def deallocate_disc_buffers(f: Operation) -> None:
    candidates = find_candidates(f)
    if not candidates:
        return
    aliases = BufferViewFlowAnalysis(f)
    liveness = Liveness(f)
    postdom = DominanceInfo(post=True)
    for value in candidates:
        if any(
            use.operation.name == "memref.dealloc"
            for alias in aliases.resolve(value)
            for use in alias.uses
        ):
            continue
        try:
            insert_dealloc_after_last_use(value, aliases, liveness, postdom)
        except ValueError as exc:
            raise DiagnosticException(str(exc)) from None


@register_pass
@dataclass(frozen=True)
class DiscBufferDeallocationPass(ModulePass):
    """Insert dealloc op for some disc specific ops (e.g. custom_call_v2 op)."""

    name = "disc-buffer-deallocation"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in list(op.ops):
            if isinstance(f, func.FuncOp) and f.body.blocks:
                deallocate_disc_buffers(f)


__all__ = ["DiscBufferDeallocationPass", "deallocate_disc_buffers", "find_candidates"]
