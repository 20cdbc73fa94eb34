"""Loop and memref helpers of the CPU codegen passes (BladeDISC's `codegen_utils`).

The building blocks BladeDISC's loop-level passes share, re-implemented on
xDSL:

* constants and shapes: `constant_index_value`, `shape_values`
  (`getShapeValues`: `arith.constant` for static dimensions, `memref.dim`
  for dynamic ones), `has_identity_layout`;
* 1-D access: `memref_1d_reinterpret_cast`, `create_offset_load`,
  `create_offset_store` (`createMemRef1DReinterpretCast`,
  `createOffsetLoad` / `createOffsetStore` of `lhlo_elemental_utils`);
* parallel loops: `new_parallel_loop` (an `scf.parallel` with an empty body
  ending in `scf.reduce`), `innermost_parallel_loops` (MLIR's
  `getInnermostParallelLoops`), `tile_parallel_loop` (BladeDISC's
  `tileParallelLoop`, with or without in-bound check) and
  `collapse_parallel_loop` (MLIR's `collapseParallelLoops` with every
  dimension combined into one).

Every builder takes an `InsertPoint` and returns the values it made; ops are
created in the order MLIR's builders create them so the printed IR reads
like BladeDISC's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar, cast

from xdsl.builder import Builder
from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    AffineMapAttr,
    IndexType,
    IntegerAttr,
    MemRefType,
    NoneAttr,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.rewriter import InsertPoint

from disc_ir.dialects.upstream.scf import IfOp, ParallelOp, ReduceOp
from disc_ir.ir import builders
from disc_ir.ir.builders import index_constant
from disc_ir.ir.types import memref_type
from disc_ir.ir.walk import preorder_ops

DYNAMIC = -(2**63)
OpT = TypeVar("OpT", bound=Operation)

#: Unit attribute naming an `scf.parallel` small enough to run inline on the
#: calling thread (BladeDISC's `kSmallCpuKernel`).
SMALL_CPU_KERNEL_ATTR = "disc.cpu.small_kernel"
#: Unit attribute of a function outlined from a CPU kernel (`kCpuKernelFunc`).
CPU_KERNEL_FUNC_ATTR = "disc_cpu_kernel_func"
#: Integer attribute of an `lmhlo.fusion`: tile size hint (`kCTASizeHint`).
CTA_SIZE_HINT_ATTR = "disc_cta_size_hint"


class OpBuilder:
    """A thin MLIR-style builder: `create(op)` inserts `op` and returns it."""

    def __init__(self, point: InsertPoint):
        self._builder = Builder(point)

    @staticmethod
    def before(op: Operation) -> OpBuilder:
        return OpBuilder(InsertPoint.before(op))

    @staticmethod
    def at_start(block: Block) -> OpBuilder:
        return OpBuilder(InsertPoint.at_start(block))

    @staticmethod
    def at_end(block: Block) -> OpBuilder:
        return OpBuilder(InsertPoint.at_end(block))

    def create(self, op: OpT) -> OpT:
        self._builder.insert(op)
        return op

    def index(self, value: int) -> SSAValue:
        """`arith.constant <value> : index`."""
        return self.create(index_constant(value)).result

    def bool(self, value: bool) -> SSAValue:
        """`arith.constant true|false`."""
        return self.create(builders.constant(IntegerAttr(int(value), i1))).result

    def muli(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.create(builders.binary(arith.MuliOp, lhs, rhs)).result

    def addi(self, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
        return self.create(builders.binary(arith.AddiOp, lhs, rhs)).result


def constant_index_value(value: SSAValue) -> int | None:
    """The integer of `value` when an `arith.constant` of index type defines it."""
    if not isinstance(value, OpResult) or not isinstance(value.op, arith.ConstantOp):
        return None
    attr = value.op.value
    if isinstance(attr, IntegerAttr) and isinstance(attr.type, IndexType):
        return attr.value.data
    return None


def has_identity_layout(t: Attribute) -> bool:
    """`t` is a memref type with the identity (row-major, contiguous) layout."""
    if not isinstance(t, MemRefType):
        return False
    layout = t.layout
    if isinstance(layout, NoneAttr):
        return True
    if isinstance(layout, AffineMapAttr):
        amap = layout.data
        return (
            amap.num_symbols == 0
            and amap.num_dims == len(amap.results)
            and all(str(r) == f"d{i}" for i, r in enumerate(amap.results))
        )
    return False


def shape_values(b: OpBuilder, value: SSAValue) -> list[SSAValue]:
    """One index value per dimension of the memref `value` (BladeDISC's
    `getShapeValues`): a constant for a static size, `memref.dim` otherwise."""
    t = value.type
    assert isinstance(t, MemRefType)
    out: list[SSAValue] = []
    for i, size in enumerate(t.get_shape()):
        if size == DYNAMIC:
            out.append(b.create(builders.dim(memref.DimOp, value, b.index(i))).result)
        else:
            out.append(b.index(size))
    return out


def num_elements(b: OpBuilder, value: SSAValue) -> SSAValue:
    """`1 * dim(value, 0) * dim(value, 1) ...` (`emitNumElementsComputation`)."""
    t = value.type
    assert isinstance(t, MemRefType)
    total = b.index(1)
    for r in range(len(t.get_shape())):
        dim = b.create(builders.dim(memref.DimOp, value, b.index(r))).result
        total = b.muli(total, dim)
    return total


def memref_1d_reinterpret_cast(b: OpBuilder, value: SSAValue) -> SSAValue:
    """`value` viewed as a 1-D memref of all its elements.

    Static shapes give `memref<Nxf32>` with static offset/size/stride;
    dynamic ones `memref<?xf32>` sized by the element count. The memory
    space (and the identity layout) is kept. A `memref.assume_alignment` on
    `value` is repeated on the cast."""
    t = value.type
    assert isinstance(t, MemRefType) and has_identity_layout(t)
    shape = t.get_shape()
    if all(s != DYNAMIC for s in shape):
        n = 1
        for s in shape:
            n *= s
        new_type = memref_type(t.element_type, [n], NoneAttr(), t.memory_space)
        cast = b.create(builders.reinterpret_cast(value, [0], [n], [1], new_type))
        return cast.result
    size = num_elements(b, value)
    stride = b.index(1)
    zero = b.index(0)
    new_type = memref_type(t.element_type, [DYNAMIC], NoneAttr(), t.memory_space)
    cast = b.create(builders.reinterpret_cast(value, [zero], [size], [stride], new_type))
    for use in value.uses:
        user = use.operation
        if isinstance(user, memref.AssumeAlignmentOp):
            b.create(memref.AssumeAlignmentOp(cast.result, user.alignment.value.data))
            break
    return cast.result


def create_offset_load(b: OpBuilder, value: SSAValue, offset: SSAValue) -> SSAValue:
    """`memref.load` of element `offset` of `value` viewed as 1-D."""
    flat = memref_1d_reinterpret_cast(b, value)
    return b.create(builders.load(flat, [offset])).res


def create_offset_store(b: OpBuilder, stored: SSAValue, value: SSAValue, offset: SSAValue) -> None:
    """`memref.store stored` into element `offset` of `value` viewed as 1-D."""
    flat = memref_1d_reinterpret_cast(b, value)
    b.create(builders.store(stored, flat, [offset]))


# ---------------------------------------------------------------------------
# Parallel loops
# ---------------------------------------------------------------------------


def new_parallel_loop(
    lower: Sequence[SSAValue], upper: Sequence[SSAValue], step: Sequence[SSAValue]
) -> ParallelOp:
    """An `scf.parallel` with a fresh body (index arguments, `scf.reduce`)."""
    block = Block(arg_types=[IndexType()] * len(lower))
    block.add_op(ReduceOp([], []))
    return ParallelOp(list(lower), list(upper), list(step), Region(block))


def new_if(cond: SSAValue, with_else: bool = False) -> IfOp:
    """An `scf.if` without results whose regions end in `scf.yield`."""
    from xdsl.dialects.scf import YieldOp

    then_block = Block([YieldOp()])
    else_region = Region(Block([YieldOp()])) if with_else else Region()
    return IfOp(cond, [], Region(then_block), else_region)


def innermost_parallel_loops(root: Operation) -> list[ParallelOp]:
    """The `scf.parallel` ops under `root` that contain no other one, in
    program order (MLIR's `getInnermostParallelLoops`)."""
    result: list[ParallelOp] = []

    def visit(op: Operation) -> bool:
        encloses = False
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    nested = visit(inner)
                    encloses |= nested
                    if isinstance(inner, ParallelOp):
                        encloses = True
                        if not nested:
                            result.append(inner)
        return encloses

    visit(root)
    return result


def _move_body(src: Block, dst: Block, before: Operation | None) -> None:
    """Move every op of `src` into `dst` (before `before`, else at the end)."""
    for op in list(src.ops):
        op.detach()
        if before is None:
            dst.add_op(op)
        else:
            dst.insert_op_before(op, before)


def _replace_uses_except(value: SSAValue, new: SSAValue, keep: Operation) -> None:
    for use in list(value.uses):
        if use.operation is not keep:
            use.operation.operands = tuple(
                new if i == use.index else o for i, o in enumerate(use.operation.operands)
            )


def tile_parallel_loop(
    op: ParallelOp, tile_sizes: Sequence[int], with_inbound_check: bool
) -> tuple[ParallelOp, ParallelOp]:
    """Tile `op` into an outer loop stepping by `step * tile` and an inner one
    over a tile (BladeDISC's `tileParallelLoop`); returns (outer, inner).

    Missing tile sizes are 1. A dimension whose constant trip count is a
    multiple of its tile size gets the static inner bound `step * tile`.
    Otherwise the inner bound is `step * tile` too and, with
    `with_inbound_check`, the body runs under `scf.if` of
    `inner_iv * step + outer_iv < upper` for every dimension; without it the
    inner bound is `affine.min(step * tile, upper - outer_iv)`.
    The body sees `inner_iv + outer_iv` for each original induction variable.
    """
    b = OpBuilder.before(op)
    zero = b.index(0)
    n = len(op.upperBound)
    tiles = [b.index(tile_sizes[i] if i < len(tile_sizes) else 1) for i in range(n)]
    new_steps = [b.muli(s, t) for s, t in zip(op.step, tiles, strict=True)]
    outer = b.create(new_parallel_loop(list(op.lowerBound), list(op.upperBound), new_steps))
    ob = OpBuilder(
        InsertPoint.before(cast(Operation, outer.body.block.last_op))
    )  # before scf.reduce

    bounds: list[SSAValue] = []
    need_check = False
    for i in range(n):
        lb = constant_index_value(outer.lowerBound[i])
        ub = constant_index_value(outer.upperBound[i])
        st = constant_index_value(op.step[i])
        tile = constant_index_value(tiles[i])
        assert tile is not None
        if lb is not None and ub is not None and st is not None and st != 0:
            trips = -((lb - ub) // st)  # ceil((ub - lb) / st)
            if trips % tile == 0:
                bounds.append(new_steps[i])
                continue
        if with_inbound_check:
            bounds.append(new_steps[i])
            need_check = True
            continue
        bounds.append(_affine_min(ob, new_steps[i], outer.upperBound[i], outer.body.block.args[i]))

    inner = ob.create(new_parallel_loop([zero] * n, bounds, list(op.step)))
    old_block = op.body.block
    old_reduce = old_block.last_op
    inner_block = inner.body.block
    ib = OpBuilder(InsertPoint.before(cast(Operation, inner_block.last_op)))  # before scf.reduce
    outer_ivs = outer.body.block.args
    if with_inbound_check and need_check:
        inbound = ib.bool(True)
        for ub_value, oiv, iiv, step_value in zip(
            outer.upperBound, outer_ivs, inner_block.args, inner.step, strict=True
        ):
            index = ib.addi(ib.muli(iiv, step_value), oiv)
            dim_ok = ib.create(arith.CmpiOp(index, ub_value, "ult")).result
            inbound = ib.create(arith.AndIOp(inbound, dim_ok)).result
        if_op = ib.create(new_if(inbound))
        then_block = if_op.true_region.block
        first_check = inner_block.first_op
        assert first_check is not None
        sb = OpBuilder(InsertPoint.before(first_check))
        ivs = [sb.addi(iiv, oiv) for iiv, oiv in zip(inner_block.args, outer_ivs, strict=True)]
        for arg, iv in zip(old_block.args, ivs, strict=True):
            arg.replace_all_uses_with(iv)
        if old_reduce is not None and isinstance(old_reduce, ReduceOp):
            old_reduce.detach()
            old_reduce.erase()
        _move_body(old_block, then_block, then_block.last_op)
    else:
        first = inner_block.first_op
        ib = OpBuilder(InsertPoint.before(first)) if first is not None else ib
        for arg, iiv, oiv in zip(old_block.args, inner_block.args, outer_ivs, strict=True):
            new_index = ib.addi(iiv, oiv)
            arg.replace_all_uses_with(new_index)
        inner_reduce = inner_block.last_op
        assert inner_reduce is not None
        inner_reduce.detach()
        inner_reduce.erase()
        _move_body(old_block, inner_block, None)
    op.detach()
    op.erase()
    return outer, inner


def _affine_min(b: OpBuilder, size: SSAValue, upper: SSAValue, iv: SSAValue) -> SSAValue:
    """`affine.min affine_map<(d0, d1, d2) -> (d0, d1 - d2)>(size, upper, iv)`."""
    from xdsl.ir.affine import AffineExpr, AffineMap

    from disc_ir.dialects.upstream.affine import MinOp

    d0, d1, d2 = (AffineExpr.dimension(i) for i in range(3))
    amap = AffineMap(3, 0, (d0, d1 - d2))
    return b.create(MinOp([size, upper, iv], AffineMapAttr(amap))).result


def collapse_parallel_loop(op: ParallelOp) -> ParallelOp:
    """Collapse all dimensions of `op` into one (MLIR's `collapseParallelLoops`
    with a single group of every dimension); returns the new loop.

    Each dimension is first normalized to `0 .. ceildiv(ub - lb, step)` step 1
    (the original induction variable becomes `iv * step + lb`, parts that are
    already 0 / 1 omitted); the new upper bound is the product of the
    normalized ones and each original index is recovered with `remsi` /
    `divsi` by the normalized sizes, the first dimension varying slowest.
    """
    b = OpBuilder.before(op)
    block = op.body.block
    first = block.first_op
    assert first is not None
    n = len(op.lowerBound)
    norm_upper: list[SSAValue] = []
    for i in range(n):
        lb, ub, st = op.lowerBound[i], op.upperBound[i], op.step[i]
        iv: SSAValue = block.args[i]
        zero_based = constant_index_value(lb) == 0
        step_one = constant_index_value(st) == 1
        if zero_based and step_one:
            norm_upper.append(ub)
            continue
        diff = ub if zero_based else b.create(arith.SubiOp(ub, lb)).result
        new_ub = diff if step_one else b.create(arith.CeilDivSIOp(diff, st)).result
        norm_upper.append(new_ub)
        inside = OpBuilder(InsertPoint.before(first))
        preserve: list[Operation] = []
        scaled: SSAValue = iv
        if not step_one:
            mul = inside.create(arith.MuliOp(iv, st))
            preserve.append(mul)
            scaled = mul.result
        shifted = scaled
        if not zero_based:
            add = inside.create(arith.AddiOp(scaled, lb))
            preserve.append(add)
            shifted = add.result
        for use in list(iv.uses):
            if use.operation not in preserve:
                ops = list(use.operation.operands)
                ops[use.index] = shifted
                use.operation.operands = tuple(ops)
    c0 = b.index(0)
    c1 = b.index(1)
    upper = b.index(1)
    for u in norm_upper:
        upper = b.muli(upper, u)
    new = b.create(new_parallel_loop([c0], [upper], [c1]))
    nb = OpBuilder(InsertPoint.before(cast(Operation, new.body.block.last_op)))  # before scf.reduce
    previous: SSAValue = new.body.block.args[0]
    for idx in range(n - 1, 0, -1):
        iv = nb.create(arith.RemSIOp(previous, norm_upper[idx])).result
        block.args[idx].replace_all_uses_with(iv)
        previous = nb.create(arith.DivSIOp(previous, norm_upper[idx])).result
    block.args[0].replace_all_uses_with(previous)
    new_reduce = new.body.block.last_op
    assert new_reduce is not None
    new_reduce.detach()
    new_reduce.erase()
    _move_body(block, new.body.block, None)
    op.detach()
    op.erase()
    return new


def walk_ops(root: Operation, names: Iterable[str]) -> list[Operation]:
    """Ops under `root` (itself excluded) named one of `names`, pre-order."""
    wanted = set(names)
    return [o for o in preorder_ops(root) if o is not root and o.name in wanted]


def parent_of_name(op: Operation, name: str) -> Operation | None:
    """The closest proper ancestor of `op` named `name`."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name == name:
            return parent
        parent = parent.parent_op()
    return None
