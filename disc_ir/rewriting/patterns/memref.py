"""Canonicalization patterns of `memref` (MLIR's MemRefOps.cpp).

- `memref.alloc` / `memref.alloca` with constant (non-negative) dynamic sizes
  become allocations of the more static type, followed by a `memref.cast`
  back to the original type (SimplifyAllocConst);
- an allocation used only by deallocations and as the destination of stores
  is erased with those users (SimplifyDeadAlloc);
- `memref.copy` of a buffer onto itself is erased (FoldSelfCopy).
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.ir.types import memref_type
from disc_ir.rewriting.patterns import register_canonicalization
from disc_ir.rewriting.patterns.utils import const_int, create_op, op_class


def _sizes_and_symbols(op: Operation) -> tuple[list, list]:
    sizes = list(getattr(op, "dynamic_sizes", ()))
    symbols = list(getattr(op, "symbol_operands", ()))
    if not sizes and not symbols and op.operands:
        sizes = list(op.operands)
    return sizes, symbols


class SimplifyAllocConst(RewritePattern):
    """alloc(%c4) : memref<?xf32> -> memref.cast (alloc() : memref<4xf32>)."""

    def __init__(self, ctx):
        self.ctx = ctx

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if not any((c := const_int(v)) is not None and c >= 0 for v in op.operands):
            return  # no constant size (nor any operand: a static allocation)
        mtype = op.results[0].type
        if not isinstance(mtype, MemRefType):
            return
        sizes, symbols = _sizes_and_symbols(op)
        consts = [const_int(s) for s in sizes]
        if not any(c is not None and c >= 0 for c in consts):
            return
        new_shape: list[int] = []
        kept = []
        pos = 0
        for extent in mtype.get_shape():
            if extent >= 0:  # static (xDSL marks dynamic extents with a negative value)
                new_shape.append(extent)
                continue
            c = consts[pos]
            if c is not None and c >= 0:
                new_shape.append(c)
            else:
                new_shape.append(extent)
                kept.append(sizes[pos])
            pos += 1
        new_type = memref_type(mtype.element_type, new_shape, mtype.layout, mtype.memory_space)
        props = {}
        if (align := op.properties.get("alignment")) is not None:
            props["alignment"] = align
        if "operandSegmentSizes" in op.properties:
            from xdsl.dialects.builtin import DenseArrayBase, i32

            props["operandSegmentSizes"] = DenseArrayBase.from_list(i32, [len(kept), len(symbols)])
        attrs = {}
        if (align := op.attributes.get("alignment")) is not None:
            attrs["alignment"] = align
        new_alloc = create_op(type(op), [*kept, *symbols], [new_type], props, attrs)
        cast_cls = op_class(self.ctx, "memref.cast", memref.CastOp)
        cast = create_op(cast_cls, [new_alloc.results[0]], [mtype])
        rewriter.replace(op, [new_alloc, cast])


class SimplifyDeadAlloc(RewritePattern):
    """Erase an allocation whose only users are deallocs and stores into it."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        buffer = op.results[0]
        users = [use.operation for use in buffer.uses]
        for user in users:
            if user.name == "memref.store":
                if user.operands[0] is buffer:
                    return  # the buffer itself is stored somewhere
            elif user.name != "memref.dealloc":
                return
        for user in dict.fromkeys(users):
            rewriter.erase(user)
        rewriter.erase(op)


class FoldSelfCopy(RewritePattern):
    """memref.copy %a, %a -> (nothing)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if len(op.operands) == 2 and op.operands[0] is op.operands[1]:
            rewriter.erase(op)


register_canonicalization("memref.alloc", "memref.alloca")(
    lambda ctx: (SimplifyAllocConst(ctx), SimplifyDeadAlloc())
)
register_canonicalization("memref.copy")(lambda ctx: (FoldSelfCopy(),))
