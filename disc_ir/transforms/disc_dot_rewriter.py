"""`disc-dot-rewriter`: turn dots into matrix-shaped `mhlo.dot_general`s.

BladeDISC's DotRewriterPass (dot_rewriter.cc), applied greedily with folding
to each function:

- `mhlo.dot` becomes `mhlo.dot_general` contracting lhs dim 1 (0 for a
  vector) with rhs dim 0;
- an `mhlo.transpose` feeding a `dot_general` is folded into its contracting
  dimensions, unless the transpose moves a batching dimension (the
  transposed-away operand is used directly);
- a `dot_general` of a vector (vec x vec, vec x mat, mat x vec, after the
  leading batching dims; in vec x mat the matrix may contract either of its dims) is rewritten as a matrix product: the vector gets a
  unit dimension (`mhlo.dynamic_reshape` to a `tensor.from_elements` of its
  `tensor.dim`s, or `mhlo.reshape` to/from rank 0), the product contracts
  lhs dim n+1 with rhs dim n (n batching dims), and the unit dimensions are
  dropped again from the result, followed by a `tensor.cast` to the original
  result type;
- a `dot_general` the library gemm cannot run -- batching dimensions that are
  not the leading ones, several free (non-contracting, non-batching)
  dimensions on a side, or several contracting dimensions; what JAX emits for
  `x @ w` with `x` of rank 3 -- becomes a batched matrix product: each operand
  is transposed to `[batching..., free..., contracting...]` (lhs) /
  `[batching..., contracting..., free...]` (rhs), its free and contracting
  dimensions are collapsed into one each (`mhlo.reshape`, or
  `mhlo.dynamic_reshape` of `tensor.dim` products), and the `[batching..., M,
  N]` product is reshaped to the original result. BladeDISC's frontends never
  produce these (its einsum lowering does the same layout legalization); a
  side without free dimensions stays a vector for the pattern above;
- a float `dot_general` whose result type is wider than its operands' (f16
  operands, f32 result) gets its operands converted to the result type (the
  library gemm takes one element type);
- a `dot_general` contracting no dimension (an outer product: `jnp.outer`,
  `einsum("i,j->ij")`) contracts a unit dimension appended to each operand
  instead, and becomes a gemm with k = 1 through the patterns above.

`mhlo.einsum` (also rewritten by BladeDISC) is not in disc-ir's mhlo dialect.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, AnyFloat, IndexType, TensorType
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from disc_ir.dialects.hlo_attrs import DotDimensionNumbersAttr, i64_elements, ints
from disc_ir.dialects.mhlo import (  # type: ignore[attr-defined]  # mhlo builds its elementwise op classes (ConvertOp) from a table at import
    ConvertOp,
    DotGeneralOp,
    DynamicReshapeOp,
    ReshapeOp,
    TransposeOp,
)
from disc_ir.ir.builders import index_constant
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.canonicalization import apply_canonicalization
from disc_ir.rewriting.greedy import GreedyConfig


def _dot_dims(
    lhs_batching: Sequence[int] = (),
    rhs_batching: Sequence[int] = (),
    lhs_contracting: Sequence[int] = (),
    rhs_contracting: Sequence[int] = (),
) -> DotDimensionNumbersAttr:
    return DotDimensionNumbersAttr.from_fields(
        lhs_batching_dimensions=list(lhs_batching),
        rhs_batching_dimensions=list(rhs_batching),
        lhs_contracting_dimensions=list(lhs_contracting),
        rhs_contracting_dimensions=list(rhs_contracting),
    )


def _dot_general(
    lhs: SSAValue,
    rhs: SSAValue,
    result_type: Attribute,
    dims: DotDimensionNumbersAttr,
    precision: Attribute | None = None,
) -> Operation:
    attrs: dict[str, Attribute] = {"dot_dimension_numbers": dims}
    if precision is not None:
        attrs["precision_config"] = precision
    return DotGeneralOp.create(operands=[lhs, rhs], result_types=[result_type], attributes=attrs)


def _ranked(value: SSAValue) -> TensorType | None:
    t = value.type
    return t if isinstance(t, TensorType) else None


class DotToDotGeneral(RewritePattern):
    """`mhlo.dot` -> `mhlo.dot_general` (lhs dim 1, or 0 for a vector, with rhs dim 0)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "mhlo.dot":
            return
        lhs, rhs = op.operands
        lhs_type = _ranked(lhs)
        if lhs_type is None:
            return
        lhs_contracting = 0 if lhs_type.get_num_dims() == 1 else 1
        dims = _dot_dims(lhs_contracting=[lhs_contracting], rhs_contracting=[0])
        new = _dot_general(
            lhs, rhs, op.results[0].type, dims, op.attributes.get("precision_config")
        )
        rewriter.replace(op, new)


def _non_batching_transpose(
    value: SSAValue, batching: Sequence[int], contracting: Sequence[int]
) -> list[int] | None:
    """The permutation of the `mhlo.transpose` defining `value`, if folding it is exact.

    As BladeDISC's, the transpose must keep the batching dims in place; it
    must also keep the free (non-batching, non-contracting) dims in their
    order, or the product's result would be permuted (BladeDISC's frontends
    only have one free dim per operand, where this always holds).
    """
    if not isinstance(value, OpResult) or value.op.name != "mhlo.transpose":
        return None
    permutation = list(ints(value.op.attributes.get("permutation")))
    for index, source in enumerate(permutation):
        if index != source and index in batching:
            return None
    free = [
        permutation[d]
        for d in range(len(permutation))
        if d not in batching and d not in contracting
    ]
    if free != sorted(free):
        return None
    return permutation or None


class TransposeFolding(RewritePattern):
    """Fold transposes of the dot_general operands into its contracting dimensions."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "mhlo.dot_general" or _ranked(op.results[0]) is None:
            return
        lhs, rhs = op.operands
        if _ranked(lhs) is None or _ranked(rhs) is None:
            return
        dims = op.attributes.get("dot_dimension_numbers")
        if not isinstance(dims, DotDimensionNumbersAttr):
            return
        lhs_perm = _non_batching_transpose(lhs, dims.lhs_batching, dims.lhs_contracting)
        rhs_perm = _non_batching_transpose(rhs, dims.rhs_batching, dims.rhs_contracting)
        if lhs_perm is None and rhs_perm is None:
            return
        lhs_contracting = list(dims.lhs_contracting)
        rhs_contracting = list(dims.rhs_contracting)
        if lhs_perm is not None:
            lhs_contracting = [lhs_perm[d] for d in lhs_contracting]
            assert isinstance(lhs, OpResult)
            lhs = lhs.op.operands[0]
        if rhs_perm is not None:
            rhs_contracting = [rhs_perm[d] for d in rhs_contracting]
            assert isinstance(rhs, OpResult)
            rhs = rhs.op.operands[0]
        new_dims = _dot_dims(dims.lhs_batching, dims.rhs_batching, lhs_contracting, rhs_contracting)
        rewriter.replace(
            op,
            _dot_general(
                lhs, rhs, op.results[0].type, new_dims, op.attributes.get("precision_config")
            ),
        )


class VectorDotGeneralToMatrix(RewritePattern):
    """vec x vec, vec x mat and mat x vec dot_generals as matrix products."""

    def _dim_sizes(self, rewriter: PatternRewriter, value: SSAValue) -> list[SSAValue]:
        t = _ranked(value)
        assert t is not None
        sizes: list[SSAValue] = []
        for d in range(t.get_num_dims()):
            index = index_constant(d)
            dim = tensor.DimOp(value, index)
            rewriter.insert([index, dim])
            sizes.append(dim.results[0])
        return sizes

    def _reshape(
        self, rewriter: PatternRewriter, value: SSAValue, sizes: list[SSAValue], shape: list[int]
    ) -> SSAValue:
        t = _ranked(value)
        assert t is not None
        out_type = TensorType(t.element_type, shape)
        if not shape:
            reshape: Operation = ReshapeOp.create(operands=[value], result_types=[out_type])
            rewriter.insert(reshape)
            return reshape.results[0]
        extents = tensor.FromElementsOp(*sizes, result_type=TensorType(IndexType(), [len(sizes)]))
        reshape = DynamicReshapeOp.create(
            operands=[value, extents.results[0]], result_types=[out_type]
        )
        rewriter.insert([extents, reshape])
        return reshape.results[0]

    def unsqueeze(self, rewriter: PatternRewriter, value: SSAValue, dim: int) -> SSAValue:
        """`value` with a unit dimension inserted at `dim`."""
        t = _ranked(value)
        assert t is not None
        sizes = self._dim_sizes(rewriter, value)
        one = index_constant(1)
        rewriter.insert(one)
        old_shape = list(t.get_shape())
        new_sizes = sizes[:dim] + [one.results[0]] + sizes[dim:]
        new_shape = old_shape[:dim] + [1] + old_shape[dim:]
        return self._reshape(rewriter, value, new_sizes, new_shape)

    def squeeze(self, rewriter: PatternRewriter, value: SSAValue, dim: int) -> SSAValue:
        """`value` without its (unit) dimension `dim`."""
        t = _ranked(value)
        assert t is not None
        sizes = self._dim_sizes(rewriter, value)
        old_shape = list(t.get_shape())
        new_sizes = sizes[:dim] + sizes[dim + 1 :]
        new_shape = old_shape[:dim] + old_shape[dim + 1 :]
        return self._reshape(rewriter, value, new_sizes, new_shape)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "mhlo.dot_general":
            return
        lhs, rhs = op.operands
        lhs_type, rhs_type = _ranked(lhs), _ranked(rhs)
        out_type = _ranked(op.results[0])
        dims = op.attributes.get("dot_dimension_numbers")
        if lhs_type is None or rhs_type is None or out_type is None:
            return
        if not isinstance(dims, DotDimensionNumbersAttr):
            return
        batching = list(dims.lhs_batching)
        n = len(batching)
        if any(d >= n for d in batching):
            return  # the batching dims must be the leading dimensions
        lhs_contracting, rhs_contracting = dims.lhs_contracting, dims.rhs_contracting
        if len(lhs_contracting) != 1 or len(rhs_contracting) != 1:
            return
        lhs_matrix_rank = lhs_type.get_num_dims() - n
        rhs_matrix_rank = rhs_type.get_num_dims() - n
        out_shape = list(out_type.get_shape())[:n]
        out_shape += [-1] * (n + 2 - len(out_shape))

        # the matrix side may contract either of its two dims (a transposed matrix)
        lhs_c, rhs_c = n + 1, n
        if lhs_matrix_rank == 1 and rhs_matrix_rank == 1:
            kind = "vv"
            if lhs_contracting[0] != n or rhs_contracting[0] != n:
                return
        elif lhs_matrix_rank == 1 and rhs_matrix_rank == 2 and rhs_contracting[0] in (n, n + 1):
            kind = "vm"
            rhs_c = rhs_contracting[0]
            if lhs_contracting[0] != n:
                return
        elif lhs_matrix_rank == 2 and rhs_matrix_rank == 1 and lhs_contracting[0] == n + 1:
            # a transposed matrix times a vector (lhs contracting dim n) is left as it
            # is, as BladeDISC's dot rewriter leaves it (its lit test checks that)
            kind = "mv"
            if rhs_contracting[0] != n:
                return
        else:
            return

        new_lhs, new_rhs = lhs, rhs
        if kind == "vv":
            new_lhs = self.unsqueeze(rewriter, lhs, n)
            new_rhs = self.unsqueeze(rewriter, rhs, n + 1)
            out_shape[n] = out_shape[n + 1] = 1
        elif kind == "vm":
            out_shape[n] = 1
            out_shape[n + 1] = rhs_type.get_shape()[n + 1 if rhs_c == n else n]
            new_lhs = self.unsqueeze(rewriter, lhs, n)
        else:
            out_shape[n] = lhs_type.get_shape()[n]
            out_shape[n + 1] = 1
            new_rhs = self.unsqueeze(rewriter, rhs, n + 1)

        new_dims = _dot_dims(batching, batching, [lhs_c], [rhs_c])
        dot = _dot_general(
            new_lhs,
            new_rhs,
            TensorType(out_type.element_type, out_shape),
            new_dims,
            op.attributes.get("precision_config"),
        )
        rewriter.insert(dot)
        result: SSAValue = dot.results[0]
        if kind == "vv":
            result = self.squeeze(rewriter, result, n + 1)
            result = self.squeeze(rewriter, result, n)
        elif kind == "vm":
            result = self.squeeze(rewriter, result, n)
        else:
            result = self.squeeze(rewriter, result, n + 1)
        rewriter.replace(op, tensor.CastOp(result, out_type))


class DotGeneralToBatchedMatrix(RewritePattern):
    """A dot_general outside the gemm's layouts as a `[batching..., M, N]` matrix product."""

    @staticmethod
    def _sizes(rewriter: PatternRewriter, value: SSAValue) -> list[SSAValue | int]:
        """Each dimension of `value`: its static size or a `tensor.dim`."""
        t = _ranked(value)
        assert t is not None
        sizes: list[SSAValue | int] = []
        for d, size in enumerate(t.get_shape()):
            if size >= 0:
                sizes.append(size)
                continue
            index = index_constant(d)
            dim = tensor.DimOp(value, index)
            rewriter.insert([index, dim])
            sizes.append(dim.results[0])
        return sizes

    @staticmethod
    def _product(rewriter: PatternRewriter, sizes: Sequence[SSAValue | int]) -> SSAValue | int:
        static = 1
        dynamic: SSAValue | None = None
        for size in sizes:
            if isinstance(size, int):
                static *= size
                continue
            if dynamic is None:
                dynamic = size
            else:
                mul = arith.MuliOp(dynamic, size)
                rewriter.insert(mul)
                dynamic = mul.results[0]
        if dynamic is None:
            return static
        if static != 1:
            c = index_constant(static)
            mul = arith.MuliOp(dynamic, c.results[0])
            rewriter.insert([c, mul])
            dynamic = mul.results[0]
        return dynamic

    @staticmethod
    def _reshape(
        rewriter: PatternRewriter, value: SSAValue, sizes: Sequence[SSAValue | int]
    ) -> SSAValue:
        t = _ranked(value)
        assert t is not None
        shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in sizes]
        if shape == list(t.get_shape()):
            return value
        out_type = TensorType(t.element_type, shape)
        if all(isinstance(s, int) for s in sizes):
            op: Operation = ReshapeOp.create(operands=[value], result_types=[out_type])
            rewriter.insert(op)
            return op.results[0]
        operands: list[SSAValue] = []
        for s in sizes:
            if isinstance(s, int):
                c = index_constant(s)
                rewriter.insert(c)
                operands.append(c.results[0])
            else:
                operands.append(s)
        extents = tensor.FromElementsOp(
            *operands, result_type=TensorType(IndexType(), [len(operands)])
        )
        op = DynamicReshapeOp.create(operands=[value, extents.results[0]], result_types=[out_type])
        rewriter.insert([extents, op])
        return op.results[0]

    @staticmethod
    def _transpose(rewriter: PatternRewriter, value: SSAValue, perm: list[int]) -> SSAValue:
        if perm == list(range(len(perm))):
            return value
        t = _ranked(value)
        assert t is not None
        shape = [t.get_shape()[p] for p in perm]
        op = TransposeOp.create(
            operands=[value],
            result_types=[TensorType(t.element_type, shape)],
            attributes={"permutation": i64_elements(perm)},
        )
        rewriter.insert(op)
        return op.results[0]

    def _operand(
        self,
        rewriter: PatternRewriter,
        value: SSAValue,
        batching: Sequence[int],
        contracting: Sequence[int],
        free_first: bool,
    ) -> tuple[SSAValue, list[SSAValue | int], list[SSAValue | int], bool]:
        """`value` as `[batching..., free, contracting]` (or contracting before free).

        Returns the new operand, the batching sizes, the free sizes (before
        collapsing) and whether it has a free dimension.
        """
        t = _ranked(value)
        assert t is not None
        free = [d for d in range(t.get_num_dims()) if d not in batching and d not in contracting]
        sizes = self._sizes(rewriter, value)
        groups = [list(free), list(contracting)] if free_first else [list(contracting), free]
        perm = list(batching) + groups[0] + groups[1]
        moved = self._transpose(rewriter, value, perm)
        collapsed = [sizes[d] for d in batching]
        for group in groups:
            if group:
                collapsed.append(self._product(rewriter, [sizes[d] for d in group]))
        return (
            self._reshape(rewriter, moved, collapsed),
            [sizes[d] for d in batching],
            [sizes[d] for d in free],
            bool(free),
        )

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "mhlo.dot_general":
            return
        lhs, rhs = op.operands
        lhs_type, rhs_type = _ranked(lhs), _ranked(rhs)
        out_type = _ranked(op.results[0])
        dims = op.attributes.get("dot_dimension_numbers")
        if lhs_type is None or rhs_type is None or out_type is None:
            return
        if not isinstance(dims, DotDimensionNumbersAttr):
            return
        lb, rb = list(dims.lhs_batching), list(dims.rhs_batching)
        lc, rc = list(dims.lhs_contracting), list(dims.rhs_contracting)
        n = len(lb)
        if len(rb) != n or len(lc) != len(rc) or not lc:
            return
        leading = lb == rb == list(range(n))
        if (
            leading
            and len(lc) == 1
            and lhs_type.get_num_dims() - n <= 2
            and rhs_type.get_num_dims() - n <= 2
        ):
            return  # a (batched) matrix or vector product already
        new_lhs, batch_sizes, lhs_free, lhs_has_free = self._operand(rewriter, lhs, lb, lc, True)
        new_rhs, _, rhs_free, rhs_has_free = self._operand(rewriter, rhs, rb, rc, False)
        shape = [s if isinstance(s, int) else DYNAMIC_INDEX for s in batch_sizes]
        lhs_t, rhs_t = _ranked(new_lhs), _ranked(new_rhs)
        assert lhs_t is not None and rhs_t is not None
        if lhs_has_free:
            shape.append(lhs_t.get_shape()[n])
        if rhs_has_free:
            shape.append(rhs_t.get_shape()[n + 1])
        new_dims = _dot_dims(list(range(n)), list(range(n)), [n + 1 if lhs_has_free else n], [n])
        dot = _dot_general(
            new_lhs,
            new_rhs,
            TensorType(out_type.element_type, shape),
            new_dims,
            op.attributes.get("precision_config"),
        )
        rewriter.insert(dot)
        result = self._reshape(rewriter, dot.results[0], [*batch_sizes, *lhs_free, *rhs_free])
        if result.type != out_type:
            rewriter.replace(op, tensor.CastOp(result, out_type))
        else:
            rewriter.replace(op, [], [result])


class MixedPrecisionDotOperands(RewritePattern):
    """A float dot_general whose result type is wider than its operands' (jax's
    `preferred_element_type=float32` on f16 / bf16 operands) with its operands
    converted to the result type first: XLA multiplies and accumulates in the
    result type, and the widening is exact, so the products are the same; the
    library gemm takes one element type for all three matrices."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "mhlo.dot_general":
            return
        out_type = _ranked(op.results[0])
        if out_type is None or not isinstance(out_type.element_type, AnyFloat):
            return
        wide = out_type.element_type
        types = [_ranked(value) for value in op.operands]
        if any(t is None or not isinstance(t.element_type, AnyFloat) for t in types):
            return
        narrow = [t.element_type != wide for t in types]  # type: ignore[union-attr]  # the check above returned on any None
        if not any(narrow) or any(
            t.element_type.bitwidth >= wide.bitwidth  # type: ignore[union-attr]  # None returned above; both are floats
            for t, is_narrow in zip(types, narrow, strict=True)
            if is_narrow
        ):
            return
        new_operands: list[SSAValue] = []
        for value, t, is_narrow in zip(op.operands, types, narrow, strict=True):
            if not is_narrow:
                new_operands.append(value)
                continue
            assert t is not None
            convert = ConvertOp.create(
                operands=[value], result_types=[TensorType(wide, t.get_shape())]
            )
            rewriter.insert(convert)
            new_operands.append(convert.results[0])
        rewriter.replace(
            op,
            _dot_general(
                new_operands[0],
                new_operands[1],
                out_type,
                op.attributes["dot_dimension_numbers"],  # type: ignore[arg-type]  # the dot_general verifier guarantees a DotDimensionNumbersAttr
                op.attributes.get("precision_config"),
            ),
        )


class DotGeneralWithoutContraction(RewritePattern):
    """A dot_general contracting no dimension (an outer product, batched or
    not: XLA's `result[b, i, j] = lhs[b, i] * rhs[b, j]`) as one contracting a
    unit dimension appended to each operand -- a sum of that single product,
    the same value -- which the patterns above make a `[batching..., M, N]`
    gemm with k = 1."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "mhlo.dot_general":
            return
        lhs, rhs = op.operands
        lhs_type, rhs_type = _ranked(lhs), _ranked(rhs)
        dims = op.attributes.get("dot_dimension_numbers")
        if lhs_type is None or rhs_type is None or _ranked(op.results[0]) is None:
            return
        if not isinstance(dims, DotDimensionNumbersAttr):
            return
        if list(dims.lhs_contracting) or list(dims.rhs_contracting):
            return
        unit = VectorDotGeneralToMatrix()
        lhs_rank, rhs_rank = lhs_type.get_num_dims(), rhs_type.get_num_dims()
        new_lhs = unit.unsqueeze(rewriter, lhs, lhs_rank)
        new_rhs = unit.unsqueeze(rewriter, rhs, rhs_rank)
        new_dims = _dot_dims(
            list(dims.lhs_batching), list(dims.rhs_batching), [lhs_rank], [rhs_rank]
        )
        rewriter.replace(
            op,
            _dot_general(
                new_lhs,
                new_rhs,
                op.results[0].type,
                new_dims,
                op.attributes.get("precision_config"),
            ),
        )


PATTERNS: dict[str, tuple[RewritePattern, ...]] = {
    "mhlo.dot": (DotToDotGeneral(),),
    "mhlo.dot_general": (
        MixedPrecisionDotOperands(),
        DotGeneralWithoutContraction(),
        TransposeFolding(),
        VectorDotGeneralToMatrix(),
        DotGeneralToBatchedMatrix(),
    ),
}


def _patterns(op: Operation) -> Sequence[RewritePattern]:
    return PATTERNS.get(op.name, ())


@register_pass
@dataclass(frozen=True)
class DiscDotRewriterPass(ModulePass):
    """Rewrite dot to fold transpose."""

    name = "disc-dot-rewriter"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for func in [o for o in preorder_ops(op) if o.name == "func.func"]:
            apply_canonicalization(ctx, func, GreedyConfig(), patterns=_patterns)
