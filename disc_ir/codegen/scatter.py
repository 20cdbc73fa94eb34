"""The scatter schedule: `lmhlo.scatter` as a serial loop over the updates.

BladeDISC has no loop lowering of `lmhlo.scatter`; XLA's CPU backend emits a
loop over the update elements with the update computation inlined. This does
the same. `hlo-legalize-to-lhlo` keeps the update computation as mhlo ops on
rank-0 tensors, evaluated here on scalars (`disc_ir.codegen.hlo_body`).

`lower_scatter(op, parallel_loop=...)` emits, before
`lmhlo.scatter(%operand, %indices, %updates, %output)`:

* the copy of `%operand` into `%output` (a parallel loop nest, or one
  `scf.for` over the linear index with `parallel_loop=False`), unless the
  scatter is in place (the same buffer);
* one `scf.for` over every element `U` of `%updates`, in row-major order: the
  updates are applied one after the other, so repeated indices combine as
  XLA's (serial) CPU scatter combines them. For element `U`:
  - the scatter index `G` is `U` without the `update_window_dims`; the start
    index vector is read from `%indices` at `G` with `index_vector_dim`
    inserted (a vector of one when `index_vector_dim` is the rank of
    `%indices`), and converted to `index`;
  - operand dim `scatter_dims_to_operand_dims[k]` starts at element `k` of
    that vector, every other dim at 0;
  - the window index (`U` at `update_window_dims`) goes to the operand dims
    not in `inserted_window_dims`, in order;
  - a window that does not fit the operand (start `< 0` or `> dim - window
    size` in some scattered dim) is skipped, as XLA skips it (jax's default
    `FILL_OR_DROP` mode for `.at[...]` updates relies on this);
  - `%output[I] = update_computation(%output[I], %updates[U])`.

`op` is erased. Variadic scatters (several operands) and update
computations the scalar evaluator does not cover raise `LoweringError`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, memref, scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue

from disc_ir.codegen import elemental
from disc_ir.codegen.common import LoweringError, erase_ops, for_loop, parallel
from disc_ir.codegen.elemental import Builder
from disc_ir.codegen.hlo_body import (
    body_is_supported,
    erase_dead_captures,
    evaluate_hlo_body,
    read_captures,
)
from disc_ir.codegen.loop_utils import new_if, shape_values
from disc_ir.dialects.hlo_attrs import ScatterDimensionNumbersAttr
from disc_ir.ir.attrs import inherent_attr


def _dimension_numbers(op: Operation) -> ScatterDimensionNumbersAttr:
    attr = inherent_attr(op, "scatter_dimension_numbers")
    if not isinstance(attr, ScatterDimensionNumbersAttr):
        raise LoweringError("lmhlo.scatter without 'scatter_dimension_numbers'")
    return attr


def _loop_over(
    b: Builder, shape: Sequence[SSAValue], parallel_loop: bool
) -> tuple[Operation, Builder, list[SSAValue]]:
    """A loop nest over `shape` at `b`: (the loop, a builder in its body, the index)."""
    zero, one = b.index(0), b.index(1)
    loop: scf.ParallelOp | scf.ForOp
    if parallel_loop and shape:
        loop, body = parallel(b, [zero] * len(shape), list(shape), [one] * len(shape))
        return loop, body, list(loop.body.block.args)
    count = one
    for extent in shape:
        count = b.muli(count, extent)
    loop, body = for_loop(b, zero, count, one)
    return loop, body, elemental.delinearize(body, loop.body.block.args[0], list(shape))


def _to_index(b: Builder, value: SSAValue) -> SSAValue:
    if isinstance(value.type, IndexType):
        return value
    return b.create(arith.IndexCastOp(value, IndexType())).result


def lower_scatter(op: Operation, *, parallel_loop: bool = True) -> None:
    """Emit `lmhlo.scatter` `op` as loops before it and erase it (see the module doc)."""
    if len(op.operands) != 4:
        raise LoweringError(
            f"lmhlo.scatter with {(len(op.operands) - 1) // 3} operands: only one is supported"
        )
    operand, indices, updates, output = op.operands
    why = body_is_supported(op.regions[0])
    if why is not None:
        raise LoweringError(f"the update computation of lmhlo.scatter is not supported: {why}")
    dnums = _dimension_numbers(op)
    update_window_dims = list(dnums.field("update_window_dims"))  # type: ignore[arg-type]  # a dims field: always a tuple
    inserted_window_dims = set(dnums.field("inserted_window_dims"))  # type: ignore[arg-type]  # a dims field: always a tuple
    to_operand_dims = list(dnums.field("scatter_dims_to_operand_dims"))  # type: ignore[arg-type]  # a dims field: always a tuple
    index_vector_dim = dnums.field("index_vector_dim")
    assert isinstance(index_vector_dim, int)
    operand_rank = elemental.rank_of(output)
    updates_rank = elemental.rank_of(updates)
    indices_rank = elemental.rank_of(indices)
    window_operand_dims = [d for d in range(operand_rank) if d not in inserted_window_dims]
    if len(window_operand_dims) != len(update_window_dims):
        raise LoweringError(
            "lmhlo.scatter: update_window_dims must name one updates dim per operand dim "
            "not in inserted_window_dims"
        )

    b = Builder.before(op)
    out_shape = shape_values(b, output)
    upd_shape = shape_values(b, updates)
    if not elemental.same_underlying_buffer(operand, output):
        _, cb, at = _loop_over(b, out_shape, parallel_loop)
        cb.create(memref.StoreOp.get(elemental.create_load(cb, operand, at), output, at))

    # the window size of each operand dim (1 for the inserted ones)
    window_size: dict[int, SSAValue] = {
        d: upd_shape[u] for d, u in zip(window_operand_dims, update_window_dims, strict=True)
    }
    captures = read_captures(b, op.regions[0])
    _, body, u_index = _loop_over(b, upd_shape, parallel_loop=False)
    scatter_index = [u_index[d] for d in range(updates_rank) if d not in update_window_dims]
    start: dict[int, SSAValue] = {}
    for k, d in enumerate(to_operand_dims):
        if index_vector_dim < indices_rank:
            at = list(scatter_index)
            at.insert(index_vector_dim, body.index(k))
        else:
            at = list(scatter_index)
        start[d] = _to_index(body, elemental.create_load(body, indices, at))
    in_bounds: SSAValue | None = None
    zero, one = body.index(0), body.index(1)
    for d, s in start.items():
        limit = body.create(arith.SubiOp(out_shape[d], window_size.get(d, one))).result
        low = body.create(arith.CmpiOp(s, zero, "sge")).result
        high = body.create(arith.CmpiOp(s, limit, "sle")).result
        ok = body.create(arith.AndIOp(low, high)).result
        in_bounds = ok if in_bounds is None else body.create(arith.AndIOp(in_bounds, ok)).result
    window = [u_index[d] for d in update_window_dims]
    target: list[SSAValue] = []
    for d in range(operand_rank):
        offset = window[window_operand_dims.index(d)] if d in window_size else None
        start_d = start.get(d)
        if start_d is None:
            target.append(offset if offset is not None else zero)
        else:
            target.append(start_d if offset is None else body.addi(start_d, offset))
    apply = body
    if in_bounds is not None:
        if_op = body.create(new_if(in_bounds))
        then_yield = if_op.true_region.block.last_op
        assert then_yield is not None
        apply = Builder.before(then_yield)
    current = elemental.create_load(apply, output, target)
    update = elemental.create_load(apply, updates, u_index)
    (combined,) = evaluate_hlo_body(apply, op.regions[0], [current, update], captures)
    apply.create(memref.StoreOp.get(combined, output, target))
    erase_ops([op])
    erase_dead_captures(captures)  # the body's tensor views of captured buffers


__all__ = ["lower_scatter"]
