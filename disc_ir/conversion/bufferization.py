"""Tensor -> buffer conversion helpers shared by the bufferization passes.

The passes convert op by op, like MLIR's partial dialect conversion with a
`BufferizeTypeConverter`:

* a tensor value still needed as a buffer is materialized with
  `bufferization.to_memref` (`to_buffer`), a buffer replacing a tensor result
  with `bufferization.to_tensor` (`replace_with_buffers`);
* `convert_func_signature` / `convert_call` / `convert_return` turn tensor
  arguments, results and returned values of functions into memrefs;
* `cleanup_materializations` removes the casts once both sides are buffers
  (`to_memref(to_tensor(%m))` -> `%m`), rewrites `tensor.dim` and
  `shape.shape_of` of `to_tensor(%m)` to read `%m`, and erases unused casts,
  as MLIR's `populateEliminateBufferizeMaterializationsPatterns` and the
  bufferization canonicalizations do.

`allocate_results` inserts a `memref.alloc` per result of a tensor op, sized
by the shape computations of `disc_ir.rewriting.shape_reification`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import func
from xdsl.dialects import memref as xmemref
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    FunctionType,
    MemRefType,
    ModuleOp,
    TensorType,
    UnrankedMemRefType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.dialects.upstream.bufferization import ToMemrefOp, ToTensorOp
from disc_ir.ir import builders
from disc_ir.ir.memo import IdentityMemo
from disc_ir.ir.types import memref_type
from disc_ir.ir.walk import preorder_ops
from disc_ir.rewriting.dead_ops import is_trivially_dead_as_xdsl
from disc_ir.rewriting.shape_reification import ShapeBuilder, reify_result_dims

TO_TENSOR = "bufferization.to_tensor"
TO_MEMREF = ("bufferization.to_memref", "bufferization.to_buffer")


def is_tensor_type(t: Attribute) -> bool:
    return isinstance(t, TensorType | UnrankedTensorType)


def _memref_type_for(t: Attribute) -> Attribute:
    if isinstance(t, TensorType):
        return memref_type(t.get_element_type(), t.get_shape())
    if isinstance(t, UnrankedTensorType):
        return UnrankedMemRefType.from_type(t.get_element_type())
    return t


def _tensor_type_for(t: Attribute) -> Attribute:
    if isinstance(t, MemRefType):
        return TensorType(t.get_element_type(), t.get_shape())
    if isinstance(t, UnrankedMemRefType):
        return UnrankedTensorType(t.element_type)
    return t


#: the counterparts of type objects, built once per object: a graph's few
#: types recur on every op, and building and verifying a shaped type costs
#: tens of microseconds
_MEMREF_TYPE_FOR: IdentityMemo[Attribute, Attribute] = IdentityMemo(_memref_type_for)
_TENSOR_TYPE_FOR: IdentityMemo[Attribute, Attribute] = IdentityMemo(_tensor_type_for)


def memref_type_for(t: Attribute) -> Attribute:
    """The buffer type of a tensor type (identity layout, encoding dropped);
    other types unchanged."""
    if not isinstance(t, TensorType | UnrankedTensorType):
        return t
    return _MEMREF_TYPE_FOR(t)


def tensor_type_for(t: Attribute) -> Attribute:
    """The tensor type of a buffer type (shape and element type)."""
    if not isinstance(t, MemRefType | UnrankedMemRefType):
        return t
    return _TENSOR_TYPE_FOR(t)


def make_to_tensor(buffer: SSAValue) -> Operation:
    """`bufferization.to_tensor %buffer`."""
    return ToTensorOp.create(operands=[buffer], result_types=[tensor_type_for(buffer.type)])


def make_to_memref(tensor: SSAValue) -> Operation:
    """`bufferization.to_memref %tensor`."""
    return ToMemrefOp(tensor, memref_type_for(tensor.type))


def to_buffer(value: SSAValue, anchor: Operation, rewriter: PatternRewriter) -> SSAValue:
    """`value` as a buffer: itself if a memref, the buffer behind a
    `to_tensor`, else a new `to_memref` before `anchor`. Non-tensors pass."""
    if not is_tensor_type(value.type):
        return value
    if isinstance(value, OpResult) and value.op.name == TO_TENSOR:
        return value.op.operands[0]
    cast = make_to_memref(value)
    rewriter.insert(cast, InsertPoint.before(anchor))
    return cast.results[0]


def replace_with_buffers(
    op: Operation, buffers: Sequence[SSAValue], rewriter: PatternRewriter
) -> None:
    """Replace the tensor results of `op` by `buffers` (through `to_tensor`
    casts inserted before `op` for the remaining tensor uses) and erase `op`."""
    for result, buffer in zip(op.results, buffers, strict=True):
        if not result.uses:
            continue
        if is_tensor_type(result.type) and not is_tensor_type(buffer.type):
            cast = make_to_tensor(buffer)
            rewriter.insert(cast, InsertPoint.before(op))
            buffer = cast.results[0]
        rewriter.replace_all_uses_with(result, buffer)
    rewriter.erase(op)


def allocate_results(
    op: Operation, operands: Sequence[SSAValue], rewriter: PatternRewriter
) -> list[SSAValue] | None:
    """One `memref.alloc` per result of `op`, inserted before it, dynamic sizes
    computed from `operands` (the op's operands as buffers). None when a
    result shape cannot be reified (nothing is left inserted then)."""
    builder = ShapeBuilder(op, rewriter)
    dims = reify_result_dims(op, builder, operands)
    if dims is None:
        builder.erase_unused()
        return None
    allocs: list[SSAValue] = []
    for result, sizes in zip(op.results, dims, strict=True):
        mtype = memref_type_for(result.type)
        assert isinstance(mtype, MemRefType)
        dynamic = [
            builder.value(d)
            for d, s in zip(sizes, mtype.get_shape(), strict=True)
            if s == DYNAMIC_INDEX
        ]
        alloc = builders.alloc(mtype, dynamic)
        rewriter.insert(alloc, InsertPoint.before(op))
        allocs.append(alloc.results[0])
    builder.erase_unused()
    return allocs


# ---------------------------------------------------------------------------
# Function boundaries
# ---------------------------------------------------------------------------


def _convert_types(types: Sequence[Attribute]) -> list[Attribute]:
    return [memref_type_for(t) for t in types]


def convert_block_args(block: Block, rewriter: PatternRewriter) -> bool:
    """Give the tensor arguments of `block` buffer types; their uses read them
    through `to_tensor` casts at the start of the block."""
    changed = False
    point = InsertPoint.at_start(block)
    for arg in list(block.args):
        if not is_tensor_type(arg.type):
            continue
        changed = True
        new_arg = rewriter.replace_value_with_new_type(arg, memref_type_for(arg.type))
        uses = list(new_arg.uses)
        if not uses:
            continue
        cast = make_to_tensor(new_arg)
        rewriter.insert(cast, point)
        point = InsertPoint.after(cast)
        for use in uses:
            use.operation.operands[use.index] = cast.results[0]
    return changed


def convert_func_signature(op: func.FuncOp, rewriter: PatternRewriter) -> bool:
    """Tensor arguments and results of `op` become memrefs."""
    ftype = op.function_type
    inputs = _convert_types(ftype.inputs.data)
    outputs = _convert_types(ftype.outputs.data)
    if inputs == list(ftype.inputs.data) and outputs == list(ftype.outputs.data):
        return False
    if op.body.blocks:
        convert_block_args(op.body.blocks[0], rewriter)
    op.function_type = FunctionType.from_lists(inputs, outputs)
    rewriter.notify_op_modified(op)
    return True


def convert_return(op: Operation, rewriter: PatternRewriter) -> bool:
    """Returned tensors are returned as buffers."""
    if not any(is_tensor_type(v.type) for v in op.operands):
        return False
    new_operands = [to_buffer(v, op, rewriter) for v in op.operands]
    for i, v in enumerate(new_operands):
        op.operands[i] = v
    rewriter.notify_op_modified(op)
    return True


def convert_call(op: func.CallOp, rewriter: PatternRewriter) -> bool:
    """A call passes and receives buffers instead of tensors."""
    if not any(is_tensor_type(t) for t in (*op.operand_types, *op.result_types)):
        return False
    operands = [to_buffer(v, op, rewriter) for v in op.operands]
    new = func.CallOp(op.callee, operands, _convert_types(op.result_types))
    new.attributes |= {k: v for k, v in op.attributes.items() if k != "callee"}
    rewriter.insert(new, InsertPoint.before(op))
    replace_with_buffers(op, new.results, rewriter)
    return True


class ConvertFuncBoundaries(RewritePattern):
    """func.func signatures, func.return and func.call on buffers."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if isinstance(op, func.FuncOp):
            convert_func_signature(op, rewriter)
        elif isinstance(op, func.ReturnOp):
            parent = op.parent_op()
            if isinstance(parent, func.FuncOp):
                convert_return(op, rewriter)
        elif isinstance(op, func.CallOp):
            convert_call(op, rewriter)


# ---------------------------------------------------------------------------
# Materialization cleanup
# ---------------------------------------------------------------------------


def _defining(value: SSAValue, name: str | tuple[str, ...]) -> Operation | None:
    names = (name,) if isinstance(name, str) else name
    if isinstance(value, OpResult) and value.op.name in names:
        return value.op
    return None


class FoldToMemrefOfToTensor(RewritePattern):
    """`to_memref(to_tensor(%m))` -> `%m` (a `memref.cast` when types differ)."""

    ROOTS = TO_MEMREF

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name not in TO_MEMREF:
            return
        src = _defining(op.operands[0], TO_TENSOR)
        if src is None:
            return
        buffer = src.operands[0]
        if buffer.type == op.results[0].type:
            rewriter.replace(op, [], [buffer])
            return
        from disc_ir.dialects.upstream.memref import CastOp

        cast = CastOp.create(operands=[buffer], result_types=[op.results[0].type])
        rewriter.replace(op, cast)


class DimOfToTensor(RewritePattern):
    """`tensor.dim(to_tensor(%m), %i)` -> `memref.dim %m, %i`."""

    ROOTS = ("tensor.dim",)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "tensor.dim":
            return
        src = _defining(op.operands[0], TO_TENSOR)
        if src is None:
            return
        rewriter.replace(op, xmemref.DimOp(src.operands[0], op.operands[1]))


class ShapeOfToTensor(RewritePattern):
    """`shape.shape_of(to_tensor(%m))` -> `shape.shape_of %m`."""

    ROOTS = ("shape.shape_of",)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "shape.shape_of":
            return
        src = _defining(op.operands[0], TO_TENSOR)
        if src is None:
            return
        new = type(op).create(
            operands=[src.operands[0]],
            result_types=[op.results[0].type],
            attributes=dict(op.attributes),
        )
        rewriter.replace(op, new)


class ExtractOfToTensor(RewritePattern):
    """`tensor.extract(to_tensor(%m))[..]` -> `memref.load %m[..]`."""

    ROOTS = ("tensor.extract",)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != "tensor.extract":
            return
        src = _defining(op.operands[0], TO_TENSOR)
        if src is None:
            return
        rewriter.replace(op, xmemref.LoadOp.get(src.operands[0], list(op.operands[1:])))


class EraseUnusedCasts(RewritePattern):
    """Unused `to_tensor` / `to_memref` casts go away."""

    ROOTS = (TO_TENSOR, *TO_MEMREF)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name != TO_TENSOR and op.name not in TO_MEMREF:
            return
        if not op.results[0].uses:
            rewriter.erase(op)


CLEANUP_PATTERNS: tuple[type[RewritePattern], ...] = (
    FoldToMemrefOfToTensor,
    DimOfToTensor,
    ShapeOfToTensor,
    EraseUnusedCasts,
)


def cleanup_materializations(module: ModuleOp, extra: Sequence[RewritePattern] = ()) -> None:
    """Apply the cleanup patterns (plus `extra`, each naming the ops it
    rewrites in `ROOTS`) and erase trivially dead ops, to a fixed point, as
    xDSL's greedy applier walking the module would.

    One sweep in reverse order (users before their operands' owners) instead
    of whole-module walks until nothing changes: erasing an op can only make
    ops before it dead, and a rewrite can only enable another at a cast it
    read (still ahead in the sweep) or at an op it made or changed (tried
    again at once). The patterns are local folds that commute, so the result
    is the walk's.
    """
    patterns = [cls() for cls in CLEANUP_PATTERNS] + list(extra)
    by_name: dict[str, list[RewritePattern]] = {}
    for pattern in patterns:
        for name in type(pattern).ROOTS:  # type: ignore[attr-defined]  # the cleanup patterns declare ROOTS
            by_name.setdefault(name, []).append(pattern)

    def rewrite(root: Operation) -> None:
        worklist = [root]
        while worklist:
            op = worklist.pop()
            if op.parent is None:
                continue  # erased meanwhile
            for pattern in by_name[op.name]:
                touched: list[Operation] = []
                rewriter = PatternRewriter(op)
                rewriter.operation_insertion_handler.append(touched.append)
                rewriter.operation_modification_handler.append(touched.append)
                pattern.match_and_rewrite(op, rewriter)
                if not rewriter.has_done_action:
                    continue
                again = [op, *touched]
                again += [use.operation for new in touched for r in new.results for use in r.uses]
                worklist += [o for o in again if o.name in by_name and o.parent is not None]
                break

    for op in preorder_ops(module, reverse=True):
        if op.parent is None:
            continue
        if is_trivially_dead_as_xdsl(op):
            Rewriter.erase_op(op)
        elif op.name in by_name:
            rewrite(op)


def nested_in_region_op(op: Operation, prefixes: Sequence[str]) -> bool:
    """Whether `op` sits in the region of an op whose name starts with one of
    `prefixes` (the region's owner converts it)."""
    parent = op.parent_op()
    return parent is not None and any(parent.name.startswith(p) for p in prefixes)


__all__ = [
    "CLEANUP_PATTERNS",
    "ConvertFuncBoundaries",
    "DimOfToTensor",
    "EraseUnusedCasts",
    "ExtractOfToTensor",
    "FoldToMemrefOfToTensor",
    "ShapeOfToTensor",
    "allocate_results",
    "cleanup_materializations",
    "convert_block_args",
    "convert_call",
    "convert_func_signature",
    "convert_return",
    "is_tensor_type",
    "make_to_memref",
    "make_to_tensor",
    "memref_type_for",
    "nested_in_region_op",
    "replace_with_buffers",
    "tensor_type_for",
    "to_buffer",
]
