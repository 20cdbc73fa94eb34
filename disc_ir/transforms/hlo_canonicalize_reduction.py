"""`hlo-canonicalize-reduction`: rank-2 row/column form for mhlo reductions (mlir-hlo's).

mlir-hlo's HloCanonicalizeReductionPass (hlo_canonicalize_reduction.cc). The
GPU code generator only schedules rank-2 row and column reductions, so every
`mhlo.reduce` whose reduced dimensions are contiguous and either a prefix or
a suffix of the operand dimensions is rewritten around a rank-2 reduce:

- row reduction (a suffix, e.g. `[2]` of rank 3): each input is
  `mhlo.dynamic_reshape`d to `[kept, reduced]` and reduced over dim 1;
- column reduction (a prefix, e.g. `[0, 1]` of rank 3): each input becomes
  `[reduced, kept]`, reduced over dim 0;
- reduction to a scalar (every dimension): each input becomes `[n, 1]`,
  reduced over dim 0, and each `tensor<1xT>`-valued result is `mhlo.reshape`d
  to the rank-0 result.

`kept` and `reduced` are products of `tensor.dim`s of the first input,
`arith.index_cast` to i32 and multiplied with `arith.muli` from a constant 1
(as upstream, which computes shapes in i32), packed by `tensor.from_elements`.
The rank-2 reduce takes the original reducer body and gives `tensor<?xT>`
results; each is `mhlo.dynamic_reshape`d back to the original result type
with the kept dimensions of the first input. Rank-2 reductions of one
dimension, empty reductions, reductions of unranked inputs and those of
non-contiguous or interior dimensions are left as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr, IntegerType, TensorType
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.dialects.hlo_attrs import i64_elements, ints
from disc_ir.dialects.mhlo import DynamicReshapeOp, ReduceOp, ReshapeOp
from disc_ir.ir.builders import index_constant
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

#: the integer type of the computed shapes (upstream's shapeScalarType)
SHAPE_SCALAR_TYPE = IntegerType(32)


def _plan(op: ReduceOp) -> tuple[list[int], list[int]] | None:
    """(reduced dims, kept dims) of a reduce this pass rewrites, else None."""
    dims = sorted(ints(op.dimensions))
    if not dims:
        return None
    values = [*op.inputs, *op.results]
    if not all(isinstance(v.type, TensorType) for v in values):
        return None
    t = op.inputs[0].type
    assert isinstance(t, TensorType)
    rank = t.get_num_dims()
    contiguous = dims[-1] - dims[0] == len(dims) - 1
    if not contiguous or (dims[0] != 0 and dims[-1] != rank - 1):
        return None
    if rank == 2 and len(dims) == 1:
        return None
    kept = [d for d in range(rank) if d not in dims]
    return dims, kept


def _elem(value: SSAValue) -> Attribute:
    t = value.type
    assert isinstance(t, TensorType)
    return t.element_type


class _Builder:
    """Inserts ops before one anchor op."""

    def __init__(self, anchor: Operation) -> None:
        self.anchor = anchor

    def add(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, InsertPoint.before(self.anchor))
        return op.results[0]

    def dim_i32(self, value: SSAValue, d: int) -> SSAValue:
        index = self.add(index_constant(d))
        dim = self.add(tensor.DimOp(value, index))
        return self.add(arith.IndexCastOp(dim, SHAPE_SCALAR_TYPE))

    def product(self, one: SSAValue, value: SSAValue, dims: Sequence[int]) -> SSAValue:
        n = one
        for d in dims:
            n = self.add(arith.MuliOp(n, self.dim_i32(value, d)))
        return n

    def shape(self, sizes: Sequence[SSAValue]) -> SSAValue:
        t = TensorType(SHAPE_SCALAR_TYPE, [len(sizes)])
        return self.add(tensor.FromElementsOp(*sizes, result_type=t))


def canonicalize_reduce(op: ReduceOp) -> bool:
    """Rewrite `op` around a rank-2 reduce; False when it does not qualify."""
    plan = _plan(op)
    if plan is None:
        return False
    reduced, kept = plan
    b = _Builder(op)
    source = op.inputs[0]
    one = b.add(arith.ConstantOp(IntegerAttr(1, SHAPE_SCALAR_TYPE)))
    n_reduced = b.product(one, source, reduced)
    n_kept = b.product(one, source, kept)
    if reduced[0] == 0:  # column reduction, or to a scalar: [reduced, kept]
        new_shape, new_dim = [n_reduced, n_kept], 0
    else:  # row reduction: [kept, reduced]
        new_shape, new_dim = [n_kept, n_reduced], 1
    shape = b.shape(new_shape)
    inputs = [
        b.add(
            DynamicReshapeOp.create(
                operands=[x, shape],
                result_types=[TensorType(_elem(x), [DYNAMIC_INDEX, DYNAMIC_INDEX])],
            )
        )
        for x in op.inputs
    ]
    body = Region()
    op.body.move_blocks(body)
    new = ReduceOp.create(
        operands=[*inputs, *op.init_values],
        result_types=[TensorType(_elem(r), [DYNAMIC_INDEX]) for r in op.results],
        attributes={"dimensions": i64_elements([new_dim])},
        regions=[body],
    )
    b.add(new)
    if not kept:
        results = [
            b.add(ReshapeOp.create(operands=[r], result_types=[TensorType(_elem(r), [])]))
            for r in new.results
        ]
    else:
        result_shape = b.shape([b.dim_i32(source, d) for d in kept])
        results = [
            b.add(DynamicReshapeOp.create(operands=[r, result_shape], result_types=[old.type]))
            for r, old in zip(new.results, op.results, strict=True)
        ]
    for old, value in zip(op.results, results, strict=True):
        old.replace_all_uses_with(value)
    Rewriter.erase_op(op)
    return True


@register_pass
@dataclass(frozen=True)
class HloCanonicalizeReductionPass(ModulePass):
    """Canonicalize reduction ops to be suitable for codegen."""

    name = "hlo-canonicalize-reduction"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for reduce in [o for o in preorder_ops(op) if isinstance(o, ReduceOp)]:
            canonicalize_reduce(reduce)
