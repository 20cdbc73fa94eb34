"""What every loop schedule shares: emitting a root op at an index, loops, root grouping.

`lower_root(b, op, linear, vector_size)` is BladeDISC's `lowerHelper`: it
writes the element(s) of root `op` at linear index `linear` of its output.

* elementwise ops: the output is viewed as 1-D (`memref.reinterpret_cast`),
  the multi-dimensional index is `disc_shape.delinearize(linear, shape)`, the
  inputs are loaded there (reusing values stored earlier in the same block),
  and the result is stored at `linear` of the 1-D view;
* every other op: the element at `delinearize(linear, shape)` from
  `elemental.elemental_lower`, stored at that index of the output.

With `vector_size > 1` the root writes elements `linear * v + k`, k < v (the
stores adjacent, the 1-D view given `memref.assume_alignment`).

Grouping: `split_roots` keeps in the schedule's loop only the roots whose
output has as many elements as the dominant op's (by shape analysis); the
others get loop nests of their own (a kLoop over their own output), so each
root is always computed over its whole output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, memref, scf
from xdsl.ir import Block, Operation, SSAValue

from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.codegen import elemental, scalar
from disc_ir.codegen.elemental import Builder
from disc_ir.codegen.loop_utils import (
    memref_1d_reinterpret_cast,
    new_parallel_loop,
    shape_values,
)
from disc_ir.dialects.upstream.memref import AssumeAlignmentOp
from disc_ir.dialects.upstream.scf import ParallelOp
from disc_ir.fusion.pattern import result_buffer


class LoweringError(Exception):
    """A root cannot be lowered by the chosen schedule."""


def result_of(op: Operation) -> SSAValue:
    out = result_buffer(op)
    if out is None:
        raise LoweringError(f"'{op.name}' writes no buffer")
    return out


def iteration_buffer(op: Operation) -> SSAValue:
    """The buffer whose elements the loop of `op` runs over (the update of an
    in-place dynamic_update_slice / scatter, else the output)."""
    if elemental.is_inplace(op):
        return op.operands[1] if op.name == "lmhlo.dynamic_update_slice" else op.operands[2]
    return result_of(op)


def parallel(
    b: Builder, lbs: Sequence[SSAValue], ubs: Sequence[SSAValue], steps: Sequence[SSAValue]
) -> tuple[ParallelOp, Builder]:
    """Create `scf.parallel` at `b`; returns it and a builder inside its body."""
    loop = b.create(new_parallel_loop(lbs, ubs, steps))
    terminator = loop.body.block.last_op
    assert terminator is not None
    return loop, Builder.before(terminator)


def for_loop(b: Builder, lb: SSAValue, ub: SSAValue, step: SSAValue) -> tuple[scf.ForOp, Builder]:
    """Create `scf.for` without iter_args at `b`; returns it and a builder inside."""
    loop = elemental.new_for(b, lb, ub, step)
    yield_op = scf.YieldOp()
    loop.body.block.add_op(yield_op)
    return loop, Builder.before(yield_op)


def _align(b: Builder, flat: SSAValue, vector_size: int) -> None:
    elem = elemental.element_type(flat)
    width = getattr(elem, "bitwidth", None) or getattr(getattr(elem, "width", None), "data", 8)
    byte_width = max(1, int(cast(int, width)) // 8)
    b.create(AssumeAlignmentOp(flat, byte_width * vector_size))


def _linear_indices(b: Builder, linear: SSAValue, vector_size: int) -> list[SSAValue]:
    if vector_size == 1:
        return [linear]
    base = b.muli(linear, b.index(vector_size))
    return [b.addi(base, b.index(k)) for k in range(vector_size)]


def lower_root(b: Builder, op: Operation, linear: SSAValue, vector_size: int = 1) -> None:
    """Emit root `op` at linear index `linear` of its iteration buffer (`lowerHelper`)."""
    try:
        if elemental.is_elementwise(op):
            _lower_elementwise(b, op, linear, vector_size)
        else:
            _lower_misc(b, op, linear, vector_size)
    except scalar.UnsupportedOp as err:
        raise LoweringError(str(err)) from err


def _lower_elementwise(b: Builder, op: Operation, linear: SSAValue, vector_size: int) -> None:
    out = result_of(op)
    flat = memref_1d_reinterpret_cast(b, out)
    if vector_size > 1:
        _align(b, flat, vector_size)
    linears = _linear_indices(b, linear, vector_size)
    indices = [elemental.multi_dim_index(b, lin, out) for lin in linears]
    out_type = elemental.element_type(out)
    operand_values: list[list[SSAValue]] = [[] for _ in range(vector_size)]
    for operand in op.operands[:-1]:
        for k in range(vector_size):
            index = indices[k] if elemental.rank_of(operand) else []
            operand_values[k].append(elemental.load(b, operand, index, check_cache=True))
    results = [
        scalar.map_lmhlo_to_scalar(b, op, out_type, operand_values[k]) for k in range(vector_size)
    ]
    for value, lin in zip(results, linears, strict=True):
        b.create(memref.StoreOp.get(value, flat, [lin]))


def _lower_misc(b: Builder, op: Operation, linear: SSAValue, vector_size: int) -> None:
    out = result_of(op)
    space = iteration_buffer(op)
    if op.name == "lmhlo.reduce" and len(op.operands) > 3:
        # variadic: every output at once, one element per iteration
        index = elemental.multi_dim_index(b, linear, space)
        n = len(op.operands) // 3
        values = elemental.variadic_reduce_values(b, op, index)
        for value, buffer in zip(values, op.operands[2 * n :], strict=True):
            b.create(memref.StoreOp.get(value, buffer, index))
        return
    linears = _linear_indices(b, linear, vector_size)
    indices = [elemental.multi_dim_index(b, lin, space) for lin in linears]
    values = [elemental.elemental_lower(b, op, index, check_cache=True) for index in indices]
    if elemental.is_inplace(op):
        return  # the element computation stored into the buffer itself
    if vector_size == 1:
        b.create(memref.StoreOp.get(values[0], out, indices[0]))
        return
    flat = memref_1d_reinterpret_cast(b, out)
    _align(b, flat, vector_size)
    for value, lin in zip(values, linears, strict=True):
        b.create(memref.StoreOp.get(value, flat, [lin]))


def num_elements_of(b: Builder, op: Operation) -> SSAValue:
    """Element count of `op`'s iteration buffer (`emitNumElementsComputation`)."""
    return elemental.num_elements(b, iteration_buffer(op))


def thread_count(b: Builder, op: Operation, vector_size: int) -> SSAValue:
    """`num_elements / vector_size` (the constant is created even for 1, as BladeDISC)."""
    vec = b.index(vector_size)
    n = num_elements_of(b, op)
    return b.create(arith.DivUIOp(n, vec)).result


def same_num_elements(sa: ShapeAnalysis | None, a: SSAValue, b: SSAValue) -> bool:
    """Whether buffers `a` and `b` provably have as many elements."""
    if a is b:
        return True
    ta, tb = a.type, b.type
    sa_shape = getattr(ta, "get_shape", lambda: None)()
    sb_shape = getattr(tb, "get_shape", lambda: None)()
    if sa_shape is not None and sb_shape is not None:
        if all(d >= 0 for d in sa_shape) and all(d >= 0 for d in sb_shape):
            pa = pb = 1
            for d in sa_shape:
                pa *= d
            for d in sb_shape:
                pb *= d
            return pa == pb
    if sa is None:
        return False
    try:
        return sa.is_same_num_elements(a, b)
    except Exception:  # noqa: BLE001 - values the analysis does not know
        return False


def split_roots(
    sa: ShapeAnalysis | None, roots: Sequence[Operation], dominant_space: SSAValue
) -> tuple[list[Operation], list[Operation]]:
    """(roots sharing the dominant loop, roots needing a loop of their own)."""
    shared: list[Operation] = []
    own: list[Operation] = []
    for root in roots:
        if same_num_elements(sa, iteration_buffer(root), dominant_space):
            shared.append(root)
        else:
            own.append(root)
    return shared, own


def erase_ops(ops: Sequence[Operation]) -> None:
    for op in ops:
        if op.parent is not None:
            op.detach()
        op.erase(safe_erase=False)


def fusion_block(fusion: Operation) -> Block:
    block = fusion.regions[0].blocks.first
    assert block is not None
    return block


__all__ = [
    "LoweringError",
    "erase_ops",
    "for_loop",
    "fusion_block",
    "iteration_buffer",
    "lower_root",
    "num_elements_of",
    "parallel",
    "result_of",
    "same_num_elements",
    "shape_values",
    "split_roots",
    "thread_count",
]
