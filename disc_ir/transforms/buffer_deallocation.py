"""`buffer-deallocation`: free every heap buffer after its last use (MLIR's BufferDeallocation).

The pre-ownership algorithm MLIR had in 2022-2023, which BladeDISC ran at the
end of its bufferization, applied to every function of the module:

1. Heap buffers are the results of `memref.alloc`, `memref.realloc` and
   `bufferization.clone` (`memref.alloca` is freed with its scope); one
   already freed twice is left alone.
2. A buffer may reach a value its block does not dominate: a result of
   `scf.if` / `scf.for` / `scf.while` / `scf.execute_region` fed by a yield,
   a loop-carried region argument fed by a yield in its own block, a block
   argument fed by a branch. Such a value cannot be freed through the
   buffer, so it gets its own buffer: each incoming buffer is copied
   (`bufferization.clone`) right before the terminator (or the loop op, for
   the initial value) that passes it on, and the value is freed itself.
3. Each buffer (and each value of step 2) is freed in the block where it and
   all its aliases (views and control-flow successors, see
   `BufferViewFlowAnalysis`) end up, right after the last op of that block
   using one of them (uses in nested regions count at their ancestor op:
   `lmhlo.fusion`, `scf.parallel`...). A buffer still live at the block's
   terminator (returned, yielded, passed to a successor) is not freed. An
   existing `memref.dealloc` of the buffer is moved to that point instead
   of adding a second one.

Unstructured loops (CFG back edges) are rejected, as in MLIR, and so are ops
with regions and results whose control flow is unknown (the buffers they
return could not be followed).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.bufferization import CloneOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.buffer_alias import (
    REGION_BRANCH_OPS,
    BufferViewFlowAnalysis,
    FlowEdge,
    branch_edges,
    flow_edges,
    is_memref,
)
from disc_ir.analysis.buffer_placement import heap_allocs, insert_dealloc_after_last_use
from disc_ir.analysis.dominance import DominanceInfo, successors
from disc_ir.analysis.liveness import Liveness
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


def _value_block(value: SSAValue) -> Block:
    owner = value.owner
    if isinstance(owner, Block):
        return owner
    block = owner.parent_block()
    assert block is not None
    return block


def has_backedges(region: Region) -> bool:
    """Whether the CFG of `region` has a cycle."""
    color: dict[Block, int] = {}

    def visit(block: Block) -> bool:
        color[block] = 1
        for succ in successors(block):
            state = color.get(succ, 0)
            if state == 1:
                return True
            if state == 0 and visit(succ):
                return True
        color[block] = 2
        return False

    return any(visit(b) for b in region.blocks if color.get(b, 0) == 0)


def check_supported_control_flow(root: Operation) -> None:
    """Raise on CFG loops and on region ops with results of unknown control flow."""
    for op in preorder_ops(root):
        for region in op.regions:
            if len(region.blocks) > 1 and has_backedges(region):
                raise DiagnosticException("Only structured control-flow loops are supported.")
        if (
            op is not root
            and op.regions
            and any(is_memref(r) for r in op.results)
            and op.name not in REGION_BRANCH_OPS
        ):
            raise DiagnosticException(
                f"'{op.name}' op: All operations with attached regions need to implement "
                "the RegionBranchOpInterface."
            )


class BufferDeallocation:
    """The deallocation of one function (or any op holding regions)."""

    def __init__(self, root: Operation):
        self.root = root
        self.allocs = heap_allocs(root)
        self.aliases = BufferViewFlowAnalysis(root)
        self.dominators = DominanceInfo()
        self.cloned: set[SSAValue] = set()
        self.order = program_order(root)

    # ---- step 2: clones for values not dominated by their buffers

    def _unsafe_values(self) -> list[SSAValue]:
        to_free: dict[SSAValue, None] = {}
        visited: set[tuple[SSAValue, Block]] = set()
        worklist: list[tuple[SSAValue, Block]] = []

        def find_unsafe(source: SSAValue, defining: Block) -> None:
            for value in sorted(self.aliases.direct(source), key=lambda v: self.order.get(v, -1)):
                if value in to_free:
                    continue
                parent = _value_block(value)
                if not self.dominators.dominates(defining, parent) or (
                    defining is parent and isinstance(value, BlockArgument)
                ):
                    worklist.append((value, parent))
                    to_free[value] = None
                elif (value, defining) not in visited:
                    visited.add((value, defining))
                    worklist.append((value, defining))

        for value, _ in self.allocs:
            find_unsafe(value, _value_block(value))
        while worklist:
            find_unsafe(*worklist.pop())
        return list(to_free)

    def _incoming_edges(self, value: SSAValue) -> list[FlowEdge]:
        """The edges passing a buffer on to `value` (region results: terminators only)."""
        if isinstance(value, BlockArgument):
            block = value.block
            region = block.parent
            parent = region.parent if region is not None else None
            edges: list[FlowEdge] = []
            if (
                region is not None
                and region.blocks
                and region.blocks[0] is block
                and parent is not None
                and parent.name in REGION_BRANCH_OPS
            ):
                edges += [e for e in flow_edges(parent) if e.target is value]
            if region is not None:
                for pred in region.blocks:
                    term = pred.last_op
                    if term is not None and block in term.successors:
                        edges += [e for e in branch_edges(term) if e.target is value]
            return edges
        owner = value.owner
        assert isinstance(owner, Operation)
        return [e for e in flow_edges(owner) if e.target is value and e.op is not owner]

    def _clone_before(self, source: SSAValue, point: Operation) -> SSAValue:
        if source in self.cloned:
            return source
        clone = CloneOp(source)
        Rewriter.insert_op(clone, InsertPoint.before(point))
        self.cloned.add(clone.results[0])
        return clone.results[0]

    def introduce_clones(self) -> None:
        unsafe = self._unsafe_values()
        self.aliases.remove(unsafe)
        for value in unsafe:
            for edge in self._incoming_edges(value):
                source = edge.source
                if not is_memref(source):
                    continue
                new = self._clone_before(source, edge.op)
                if new is not source:
                    edge.op.operands = [
                        new if i == edge.index else v for i, v in enumerate(edge.op.operands)
                    ]
            self.allocs.append((value, None))

    # ---- step 3: deallocs

    def place_deallocs(self) -> None:
        liveness = Liveness(self.root)
        postdom = DominanceInfo(post=True)
        for value, dealloc in self.allocs:
            try:
                insert_dealloc_after_last_use(value, self.aliases, liveness, postdom, dealloc)
            except ValueError as exc:
                raise DiagnosticException(str(exc)) from None

    def run(self) -> None:
        self.introduce_clones()
        self.place_deallocs()


def program_order(root: Operation) -> dict[SSAValue, int]:
    """A number for each value under `root`, in the order the values are defined."""
    order: dict[SSAValue, int] = {}
    for op in preorder_ops(root):
        for region in op.regions:
            for block in region.blocks:
                for arg in block.args:
                    order[arg] = len(order)
        for res in op.results:
            order[res] = len(order)
    return order


def deallocate_buffers(f: Operation) -> None:
    """Run the whole algorithm on function `f` (nothing for a declaration)."""
    if isinstance(f, func.FuncOp) and not f.body.blocks:
        return
    check_supported_control_flow(f)
    BufferDeallocation(f).run()


@register_pass
@dataclass(frozen=True)
class BufferDeallocationPass(ModulePass):
    """Adds all required dealloc operations for all allocations in the input program"""

    name = "buffer-deallocation"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in list(op.ops):
            if isinstance(f, func.FuncOp):
                deallocate_buffers(f)


__all__ = ["BufferDeallocation", "BufferDeallocationPass", "deallocate_buffers"]
