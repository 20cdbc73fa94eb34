"""`promote-buffers-to-stack`: small heap buffers become stack buffers (MLIR's PromoteBuffersToStack).

A `memref.alloc` is replaced, in place and with its operands and attributes,
by a `memref.alloca` when

- it is small: a static shape of at most `max-alloc-size-in-bytes` bytes
  (index elements count 64 bits), or a dynamic shape of rank at most
  `max-rank-of-allocated-memref` whose sizes all come from `memref.rank`;
- it has no `memref.dealloc` (a buffer freed more than once is not touched);
- it lives in host memory: the stack is the host's, so a buffer in a GPU
  memory space is never promoted (BladeDISC's pipeline hands the pass its
  `IsSmallCpuAlloc` filter for this; a GPU buffer on the host stack would be
  handed to kernels as a host address);
- an enclosing automatic allocation scope (`func.func`, `scf.for`,
  `scf.parallel`...) holds it and none of its aliases leaves that scope
  through the scope region's terminator (`return`, `scf.yield`). Looking
  outwards stops at a loop or at an op of unknown control flow (an
  `lmhlo.fusion`, say): a buffer there stays on the heap.

BladeDISC's pipeline uses this pass to keep small host shape buffers on the
stack.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import MemRefType
from xdsl.dialects.memref import AllocaOp
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from disc_ir.analysis.buffer_alias import (
    AUTOMATIC_ALLOCATION_SCOPE_OPS,
    LOOP_OPS,
    REGION_BRANCH_OPS,
    BufferViewFlowAnalysis,
    is_region_return_like,
)
from disc_ir.analysis.buffer_placement import find_deallocs
from disc_ir.analysis.placement import is_gpu_memref
from disc_ir.ir import builders
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

INDEX_BITWIDTH = 64


def type_size_in_bits(t: Attribute) -> int | None:
    """Bits of a scalar type as MLIR's default data layout sizes it (index: 64)."""
    if isinstance(t, builtin.IndexType):
        return INDEX_BITWIDTH
    width = getattr(t, "bitwidth", None)
    if isinstance(width, int):
        return width
    if isinstance(t, builtin.ComplexType):
        inner = type_size_in_bits(t.element_type)
        return None if inner is None else 2 * inner
    if isinstance(t, builtin.VectorType):
        inner = type_size_in_bits(t.element_type)
        if inner is None:
            return None
        n = 1
        for d in t.get_shape():
            n *= d
        return n * inner
    return None


def is_small_alloc(alloc: SSAValue, max_size_in_bytes: int, max_rank: int) -> bool:
    """MLIR's defaultIsSmallAlloc."""
    t = alloc.type
    owner = alloc.owner
    if not isinstance(t, MemRefType) or not isinstance(owner, Operation):
        return False
    if owner.name != "memref.alloc":
        return False
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        if len(shape) <= max_rank:
            return all(
                isinstance(o.owner, Operation) and o.owner.name == "memref.rank"
                for o in owner.operands
            )
        return False
    bits = type_size_in_bits(t.element_type)
    if bits is None:
        return False
    n = 1
    for d in shape:
        n *= d
    return n * bits <= max_size_in_bytes * 8


def leaves_allocation_scope(region: Region, aliases: set[SSAValue]) -> bool:
    """Whether an alias is returned by a terminator of `region` itself."""
    for alias in aliases:
        for use in alias.uses:
            user = use.operation
            if is_region_return_like(user) and user.parent_region() is region:
                return True
    return False


def has_allocation_scope(alloc: SSAValue, aliases: BufferViewFlowAnalysis) -> bool:
    """MLIR's hasAllocationScope: an enclosing scope keeps `alloc` (and its aliases) inside."""
    owner = alloc.owner
    assert isinstance(owner, Operation)
    region = owner.parent_region()
    while region is not None:
        parent = region.parent_op()
        if parent is None:
            break
        if parent.name in AUTOMATIC_ALLOCATION_SCOPE_OPS and not leaves_allocation_scope(
            region, aliases.resolve(alloc)
        ):
            return True
        if parent.name in LOOP_OPS or parent.name not in REGION_BRANCH_OPS:
            break
        region = parent.parent_region()
    return False


def promote_buffers_to_stack(root: Operation, max_size_in_bytes: int, max_rank: int) -> int:
    """Promote the small allocs under `root`; return how many were promoted."""
    aliases = BufferViewFlowAnalysis(root)
    count = 0
    for op in preorder_ops(root):
        if op.name != "memref.alloc" or len(op.results) != 1:
            continue
        value = op.results[0]
        deallocs = find_deallocs(value)
        if deallocs:
            continue
        if is_gpu_memref(value) or not is_small_alloc(value, max_size_in_bytes, max_rank):
            continue
        if not has_allocation_scope(value, aliases):
            continue
        props = {k: v for k, v in op.properties.items() if k == "alignment"}
        alloca = builders.make(
            AllocaOp,
            [list(op.operands[: _num_dynamic(op)]), list(op.operands[_num_dynamic(op) :])],
            [value.type],
            props,
            dict(op.attributes),
        )
        alloca.results[0].name_hint = None
        Rewriter.replace_op(op, alloca)
        count += 1
    return count


def _num_dynamic(op: Operation) -> int:
    t = op.results[0].type
    assert isinstance(t, MemRefType)
    return sum(1 for d in t.get_shape() if d < 0)


@register_pass
@dataclass(frozen=True)
class PromoteBuffersToStackPass(ModulePass):
    """Promotes heap-based allocations to automatically managed stack-based allocations"""

    name = "promote-buffers-to-stack"

    max_alloc_size_in_bytes: int = 1024
    max_rank_of_allocated_memref: int = 1

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "max-alloc-size-in-bytes": "Maximal size in bytes to promote allocations to stack.",
        "max-rank-of-allocated-memref": ("Maximal memref rank to promote dynamic buffers."),
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for f in list(op.ops):
            if f.name == "func.func":
                promote_buffers_to_stack(
                    f, self.max_alloc_size_in_bytes, self.max_rank_of_allocated_memref
                )


__all__ = ["PromoteBuffersToStackPass", "is_small_alloc", "promote_buffers_to_stack"]
