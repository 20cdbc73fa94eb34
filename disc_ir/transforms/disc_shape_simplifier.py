"""`disc-shape-simplifier`: propagate known shape information (BladeDISC's ShapeSimplifierPass).

Works on the entry function (`entry-func-name`, default `main`) and repeats,
until nothing changes:

1. local rewrites, greedily: `mhlo.dynamic_reshape` with a (partly) constant
   target shape gets a (more) static result type (a `tensor.cast` keeps the old
   type for its users); an expanding reshape feeding a
   `mhlo.dynamic_broadcast_in_dim` is folded into the broadcast; plus op
   folding, dead op removal and the canonicalization patterns of every op;
2. global propagation: `ShapeAnalysis` proves dims equal to constants; every
   ranked tensor value's type is refined to static dims where known, and the
   function type follows its arguments and returned values;
3. symbolic optimizations: a `mhlo.dynamic_broadcast_in_dim` whose result has
   the shape of its operand, and a `shape.broadcast` of two equal shapes, are
   replaced by their (first) operand.

With `insert-tie-shape=true` (meant for the end of the tensor phase, just
before bufferization), the last round materializes the equalities it found:
every value with a dynamic shape is followed by
`"disc_shape.tie_shape"(%v, %d0, %d1, ...)`, whose dim operands are shared by
all values with equal dims (a `tensor.dim` of the first value carrying that
dim, or an `arith.constant` for a dim known constant), and the value's users
take the tied value instead.

Only the entry function is changed (its signature may change: it has no
callers); the pass fails when it does not exist.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, cast

from xdsl.context import Context
from xdsl.dialects import func, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.traits import HasCanonicalizationPatternsTrait
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.block_order import OpOrder
from disc_ir.analysis.shape_analysis import ShapeAnalysis, set_value_type
from disc_ir.dialects.hlo_attrs import ints
from disc_ir.ir import builders
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.builders import index_constant
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.folding import fold_op, materialize_constant
from disc_ir.rewriting.greedy import greedy_applier
from disc_ir.rewriting.patterns import OWN_DIALECTS, canonicalization_patterns
from disc_ir.rewriting.walker import PatternRewriteWalker

MAX_ROUNDS = 32

# ---------------------------------------------------------------------------
# stage 1: local patterns


def _const_int(value: SSAValue) -> int | None:
    """The integer an `arith.constant` (int or index) defines, else None."""
    op = value.owner
    if isinstance(op, Operation) and op.name == "arith.constant":
        attr = inherent_attr(op, "value")
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def _const_shape(value: SSAValue) -> list[int] | None:
    """The extents of a dense integer constant (arith or mhlo) 1-d tensor."""
    op = value.owner
    if not isinstance(op, Operation) or op.name not in ("arith.constant", "mhlo.constant"):
        return None
    attr = inherent_attr(op, "value")
    if not isinstance(attr, DenseIntOrFPElementsAttr):
        return None
    t = attr.get_element_type()
    if not isinstance(t, IndexType) and not hasattr(t, "width"):
        return None
    values = [int(v) for v in attr.get_values()]
    shape = attr.get_shape() or ()
    if len(shape) != 1:
        return None
    if len(values) == 1 and shape[0] != 1:
        values = values * shape[0]
    return values


def _with_result_type(op: Operation, new_type: Attribute, rewriter: PatternRewriter) -> None:
    """Replace single-result `op` by a clone of result type `new_type`, cast back."""
    old_type = op.results[0].type
    clone = op.clone()
    set_value_type(clone.results[0], new_type)
    cast = tensor.CastOp(clone.results[0], old_type)  # type: ignore[arg-type]  # the op's result is a tensor: a TensorType
    rewriter.replace(op, [clone, cast], [cast.results[0]])


class DynamicReshapeShapeInference(RewritePattern):
    """`mhlo.dynamic_reshape` to a shape with constant extents: make those
    result dims static (BladeDISC's DynamicReshapeOp(Partial)ShapeInference)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != "mhlo.dynamic_reshape" or len(op.operands) != 2:
            return
        t = op.results[0].type
        if not isinstance(t, TensorType):
            return
        shape = list(t.get_shape())
        shape_value = op.operands[1]
        extents: list[int | None] | None = None
        const = _const_shape(shape_value)
        if const is not None:
            extents = list(const)
        elif (
            isinstance(shape_value.owner, Operation)
            and shape_value.owner.name == "tensor.from_elements"
        ):
            extents = [_const_int(x) for x in shape_value.owner.operands]
        if extents is None or len(extents) != len(shape):
            return
        new = [
            e if s == DYNAMIC_INDEX and e is not None and e >= 0 else s
            for s, e in zip(shape, extents, strict=True)
        ]
        if new == shape:
            return
        _with_result_type(op, TensorType(t.element_type, new, t.encoding), rewriter)


class DynamicBroadcastInDimOpSimplifier(RewritePattern):
    """An expanding reshape (new dims all 1) feeding `mhlo.dynamic_broadcast_in_dim`:
    broadcast the reshape's input directly, with adjusted broadcast dimensions."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if op.name != "mhlo.dynamic_broadcast_in_dim":
            return
        reshape = op.operands[0].owner
        if not isinstance(reshape, Operation) or reshape.name not in (
            "mhlo.reshape",
            "mhlo.dynamic_reshape",
        ):
            return
        inp = reshape.operands[0]
        in_t, rs_t, bc_t = inp.type, reshape.results[0].type, op.results[0].type
        if not all(isinstance(x, TensorType) for x in (in_t, rs_t, bc_t)):
            return
        assert isinstance(in_t, TensorType) and isinstance(rs_t, TensorType)
        assert isinstance(bc_t, TensorType)
        in_shape, rs_shape = list(in_t.get_shape()), list(rs_t.get_shape())
        if len(bc_t.get_shape()) != len(rs_shape) or len(in_shape) >= len(rs_shape):
            return
        bdims = list(ints(inherent_attr(op, "broadcast_dimensions")))
        if bdims != list(range(len(rs_shape))):
            return
        # the reshape's extents: a static size, or (dim source index) of `inp`
        extents: list[tuple[int, int | None]] = []
        if reshape.name == "mhlo.reshape":
            extents = [(s, None) for s in rs_shape]
        else:
            shape_op = reshape.operands[1].owner
            if not isinstance(shape_op, Operation) or shape_op.name != "tensor.from_elements":
                return
            for x in shape_op.operands:
                c = _const_int(x)
                if c is not None:
                    extents.append((c, None))
                    continue
                y = x
                if isinstance(y.owner, Operation) and y.owner.name == "arith.index_cast":
                    y = y.owner.operands[0]
                dim_op = y.owner
                if not isinstance(dim_op, Operation) or dim_op.name != "tensor.dim":
                    return
                if dim_op.operands[0] is not inp:
                    return
                idx = _const_int(dim_op.operands[1])
                if idx is None:
                    return
                extents.append((DYNAMIC_INDEX, idx))
        new_dims: list[int] = []
        j = 0
        for i, size in enumerate(in_shape):
            matched = False
            while j < len(rs_shape) and not matched:
                value, src = extents[j]
                if value == size and (size != DYNAMIC_INDEX or src == i):
                    new_dims.append(j)
                    matched = True
                elif value != 1:
                    return
                j += 1
            if not matched:
                return
        while j < len(rs_shape):
            if extents[j][0] != 1:
                return
            j += 1
        new = op.clone()
        new.operands = [inp, op.operands[1]]
        from xdsl.dialects.builtin import DenseIntOrFPElementsAttr as Dense
        from xdsl.dialects.builtin import TensorType as TT
        from xdsl.dialects.builtin import i64

        attr = Dense.from_list(TT(i64, [len(new_dims)]), list(new_dims))
        if "broadcast_dimensions" in new.properties:
            new.properties["broadcast_dimensions"] = attr
        else:
            new.attributes["broadcast_dimensions"] = attr
        for hint in ("known_expanding_dimensions", "known_nonexpanding_dimensions"):
            new.attributes.pop(hint, None)
            new.properties.pop(hint, None)
        rewriter.replace(op, new)


class CanonicalizeOp(RewritePattern):
    """Dead op removal, folding and the op's canonicalization patterns."""

    def __init__(self, ctx: Context | None):
        self.ctx = ctx
        self._cache: dict[type[Operation], tuple[RewritePattern, ...]] = {}

    def _patterns(self, op: Operation) -> Sequence[RewritePattern]:
        key = type(op)
        if key not in self._cache:
            patterns = list(canonicalization_patterns(op.name, self.ctx))
            if op.dialect_name() not in OWN_DIALECTS:
                for trait in op.get_traits_of_type(HasCanonicalizationPatternsTrait):  # type: ignore[type-abstract]  # xDSL looks traits up by their abstract base
                    patterns.extend(trait.get_patterns(type(op)))
            self._cache[key] = tuple(patterns)
        return self._cache[key]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        # (dead ops are erased before this pattern runs: `greedy_applier`)
        folded = fold_op(op)
        if folded is not None:
            new_ops: list[Operation] = []
            values: list[SSAValue] = []
            for res, f in zip(op.results, folded, strict=True):
                if isinstance(f, SSAValue):
                    if f is res:
                        return
                    values.append(f)
                    continue
                c = materialize_constant(op.dialect_name(), f, res.type, self.ctx)
                if c is None:
                    return
                new_ops.append(c)
                values.append(c.results[0])
            rewriter.replace(op, new_ops, values)
            return
        for pattern in self._patterns(op):
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


def _run_local_patterns(ctx: Context | None, f: func.FuncOp) -> None:
    walker = PatternRewriteWalker(
        greedy_applier(
            [
                DynamicReshapeShapeInference(),
                DynamicBroadcastInDimOpSimplifier(),
                CanonicalizeOp(ctx),
            ]
        ),
        apply_recursively=True,
    )
    for _ in range(MAX_ROUNDS):
        if not walker.rewrite_region(f.body):
            break


# ---------------------------------------------------------------------------
# stage 2 / 3


def _all_values(f: func.FuncOp) -> list[SSAValue]:
    out: list[SSAValue] = []

    def visit_block(block: Block) -> None:
        out.extend(block.args)
        for op in block.ops:
            out.extend(op.results)
            for region in op.regions:
                for b in region.blocks:
                    visit_block(b)

    for b in f.body.blocks:
        visit_block(b)
    return out


def _update_function_type(f: func.FuncOp) -> bool:
    block = f.body.blocks.first
    if block is None:
        return False
    last = block.last_op
    outs = (
        [v.type for v in last.operands]
        if isinstance(last, func.ReturnOp)
        else list(f.function_type.outputs.data)
    )
    new = FunctionType.from_lists([a.type for a in block.args], outs)
    if new == f.function_type:
        return False
    f.function_type = new
    return True


def apply_shape_analysis(analysis: ShapeAnalysis, f: func.FuncOp) -> bool:
    """Refine every ranked tensor type in `f` and `f`'s type; returns whether anything changed."""
    changed = False
    for v in _all_values(f):
        if not isinstance(v.type, TensorType):
            continue
        refined = analysis.refined_type(v)
        if refined != v.type:
            set_value_type(v, refined)
            changed = True
    return _update_function_type(f) or changed


def apply_symbolic_shape_optimization(analysis: ShapeAnalysis, f: func.FuncOp) -> bool:
    """Drop broadcasts that provably do not change their operand's shape."""
    changed = False
    for op in preorder_ops(f):
        if op.parent is None or not op.results:
            continue
        if op.name == "mhlo.dynamic_broadcast_in_dim":
            src, res = op.operands[0], op.results[0]
        elif op.name == "shape.broadcast" and len(op.operands) == 2:
            if not analysis.is_shape_value_equal(op.operands[0], op.operands[1]):
                continue
            src, res = op.operands[0], op.results[0]
            if src.type != res.type or not res.uses:
                continue
            res.replace_all_uses_with(src)
            changed = True
            continue
        else:
            continue
        if not res.uses or src.type != res.type or not analysis.is_shape_equal(res, src):
            continue
        res.replace_all_uses_with(src)
        changed = True
    return changed


# ---------------------------------------------------------------------------
# tie_shape insertion


def _defining_block(v: SSAValue) -> Block | None:
    if isinstance(v, BlockArgument):
        return v.block
    assert isinstance(v, OpResult)
    return v.op.parent_block()


def _dominates(v: SSAValue, point: Operation, order: OpOrder) -> bool:
    """Whether `v` is available before `point` (single-block regions nesting)."""
    block = _defining_block(v)
    current: Operation | None = point
    while current is not None:
        if current.parent_block() is block:
            if isinstance(v, BlockArgument):
                return True
            assert isinstance(v, OpResult)
            return v.op is not current and order.is_before(v.op, current)
        current = current.parent_op()
    return False


def build_tie_shape_ops(analysis: ShapeAnalysis, f: func.FuncOp) -> None:
    """Insert `disc_shape.tie_shape` after every value with a dynamic shape (see module doc)."""
    from disc_ir.dialects.disc_shape import TieShapeOp

    entry = f.body.blocks.first
    if entry is None:
        return
    index_consts: dict[int, SSAValue] = {}
    created_consts: list[Operation] = []

    def const_index(c: int) -> SSAValue:
        if c not in index_consts:
            op = index_constant(c)
            created_consts.append(op)
            index_consts[c] = op.results[0]
        return index_consts[c]

    instances: dict[int, list[SSAValue]] = {}
    order = OpOrder()
    created_dims: list[Operation] = []
    values = [
        v
        for v in analysis.values()
        if isinstance(v.type, TensorType) and DYNAMIC_INDEX in v.type.get_shape()
    ]
    first_ops: dict[Block, Operation | None] = {}
    for v in values:
        if isinstance(v, BlockArgument) and v.block not in first_ops:
            first_ops[v.block] = v.block.first_op
    for v in values:
        dims = analysis.symbolic_dims(v)
        if dims is None:
            continue
        t = v.type
        assert isinstance(t, TensorType)
        if isinstance(v, BlockArgument):
            block = v.block
            anchor = first_ops[block]
        else:
            assert isinstance(v, OpResult)
            block = cast(Block, v.op.parent_block())  # a value of the function: in a block
            anchor = v.op.next_op
        assert block is not None
        own: list[SSAValue] = []
        operands: list[SSAValue] = []
        dim_ops: list[Operation] = []
        for i, sd in enumerate(dims):
            if sd.value is not None:
                operands.append(const_index(sd.value))
                own.append(operands[-1])
                continue
            dim_op = builders.dim(tensor.DimOp, v, const_index(i))
            dim_ops.append(dim_op)
            own.append(dim_op.results[0])
            operands.append(dim_op.results[0])
        tie = TieShapeOp(v, [], t)
        for op in [*dim_ops, tie]:
            if anchor is None:
                block.add_op(op)
            else:
                block.insert_op_before(op, anchor)
        for i, sd in enumerate(dims):
            if sd.value is not None:
                continue
            choice = own[i]
            for inst in instances.get(sd.id, ()):
                if _dominates(inst, tie, order):
                    choice = inst
                    break
            operands[i] = choice
            instances.setdefault(sd.id, []).append(own[i])
        tie.operands = [v, *operands]
        created_dims.extend(dim_ops)
        own_ops = set(dim_ops)
        for use in list(v.uses):
            if use.operation is tie or use.operation in own_ops:
                continue
            use.operation.operands = [
                tie.results[0] if (k == use.index) else o
                for k, o in enumerate(use.operation.operands)
            ]
    for op in reversed(created_consts):
        first = entry.first_op
        if first is None:
            entry.add_op(op)
        else:
            entry.insert_op_before(op, first)
    for op in created_dims:
        if not op.results[0].uses:
            op.detach()
            op.erase()
    for op in created_consts:
        if not op.results[0].uses:
            op.detach()
            op.erase()


# ---------------------------------------------------------------------------
# the pass


def find_entry_function(module: ModuleOp, name: str) -> func.FuncOp:
    """The `func.func` named `name` at the top of `module`; a diagnostic if absent."""
    for op in module.body.block.ops:
        if isinstance(op, func.FuncOp) and op.sym_name.data == name:
            return op
    raise DiagnosticException(f"entry func: {name} not found")


def simplify_shapes(
    ctx: Context | None,
    f: func.FuncOp,
    insert_tie_shape: bool = False,
    local_patterns: Callable[[Context | None, func.FuncOp], None] = _run_local_patterns,
) -> None:
    """Run the simplifier's rounds on `f` until nothing changes."""
    for _ in range(MAX_ROUNDS):
        local_patterns(ctx, f)
        analysis = ShapeAnalysis(f)
        changed = apply_shape_analysis(analysis, f)
        changed |= apply_symbolic_shape_optimization(analysis, f)
        if not changed:
            if insert_tie_shape:
                build_tie_shape_ops(ShapeAnalysis(f), f)
            return


@register_pass
@dataclass(frozen=True)
class DiscShapeSimplifierPass(ModulePass):
    """propagate some known shape information."""

    name = "disc-shape-simplifier"

    entry_func_name: str = "main"
    insert_tie_shape: bool = False

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "entry-func-name": "Name of the entry function.",
        "insert-tie-shape": "whether tie shape op is inserted.",
    }

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        f = find_entry_function(op, self.entry_func_name)
        simplify_shapes(ctx, f, self.insert_tie_shape)


__all__ = [
    "DiscShapeSimplifierPass",
    "apply_shape_analysis",
    "apply_symbolic_shape_optimization",
    "build_tie_shape_ops",
    "simplify_shapes",
]
