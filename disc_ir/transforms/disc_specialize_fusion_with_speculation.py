"""Pass for specializing a fusion op with some speculations.

`disc-specialize-fusion-with-speculation` (BladeDISC's
DiscSpecializeFusionWithSpeculationPass) makes several copies of an
`lmhlo.fusion`, each with different codegen hint attributes
(`disc_ir.codegen.codegen_hints`), puts them in the branches of an `scf.if`
and emits, in front of it, the host-side computation of the runtime-shape
predicate choosing the version:

    %pred = ...                       // memref.dim / arith on the shapes
    scf.if %pred {
      "lmhlo.fusion"() ({...}) {..., disc.fusion.tag = "1b1r", ...}
    } else {
      "lmhlo.fusion"() ({...}) {..., disc.fusion.tag = "1w1r", ...}
    }

Four stages run in order over every live fusion (one with root ops; copies
made by earlier stages included, so versions multiply):

1. Implicit broadcast (any device). A fusion with a *candidate*
   `lmhlo.dynamic_broadcast_in_dim` -- operand and result of one rank and
   the same static shape (`?` matching `?`), result not an output of the
   fusion -- gets a copy with those broadcasts removed (their readers in the
   body read the operand), tagged `no_ib` and run when every dimension of
   each operand equals that of its broadcast result; inside the copy, the
   dynamically shaped buffers elementwise ops prove of one shape are viewed
   (`memref.reinterpret_cast`) with the shape of the first of them.
2. Column reduction (GPU, `core-count` and `max-threads-per-core` known, no
   `disc_col_reduction_schedule_hint`, a rank-2 column reduce inside):
   launch dimension by the block count. With `#blocks = ceil(rows * cols /
   256)`: `#blocks > core-count` -> 8x32 tiles, 256 threads per block (tag
   `8w32h`); else 8x16 tiles, 128 threads (`8w16h`).
3. Row reduction (GPU `kRowReduction` / `kStitch` fusions without
   `disc_row_reduction_schedule_hint`, on the first rank-2 row reduce): 256
   threads per block and schedule 1 (one block per row, tag `1b1r`) when
   `cols > 512`, else schedule 2 (one warp per row, `1w1r`). With
   `DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL` (on by default) and the device
   known, schedule 1 is chosen when `rows < W/4`, or `rows < W/2` and
   `cols >= 1024`, or `rows >= W/2` and `cols >= 512`, where
   `W = max-threads-per-core / 256 * core-count / 32` (warps per wave).
4. Vectorization / tiling (GPU, device known, no
   `disc_vectorize_or_tile_hint`; `kLoop`, `kRowReduction`, and `kStitch`
   unless mem-intensive opt is on): the first version gets hint `v` (2) and
   tag `_vectile<v>`, the second, a copy of it, hint 1 and tag
   `_no_vectile` appended. Vectorize when, for row reductions, `rows % v == 0`
   and `rows > T / tpb * rpb` (`T = core-count * max-threads-per-core`,
   `tpb` the fusion's threads per block, `rpb = tpb / 32` rows per block for
   schedule 2, else 1); for loops, `n % v == 0` and `n > T` with `n` the
   element count of the last root's output. Under mem-intensive opt a loop
   fusion only needs `n % v == 0`, with `v = 128 / max(16, min result
   element bits)`, and fusions with a concatenate keep `v = 2`.

Tags accumulate in `disc.fusion.tag`, joined by `X` (`1b1rX_vectile2`,
`1b1rX_vectile2X_no_vectile`). Thread counts never exceed
`max-threads-per-block` when that option is set.

When the shapes involved are static the predicate is a constant: no copy and
no `scf.if` are made, the fusion just becomes the version chosen (hints and
tag included), and nothing of the predicate is left in the IR.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref
from xdsl.dialects.builtin import MemRefType, StringAttr
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir import config
from disc_ir.codegen import codegen_hints as hints
from disc_ir.codegen.loop_utils import DYNAMIC, new_if
from disc_ir.fusion.pattern import (
    FusionPattern,
    FusionType,
    fusion_body_ops,
    fusion_type_of,
    is_elementwise,
    is_gpu_lmhlo,
    is_rank2_col_reduction,
    is_rank2_row_reduction,
)
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.builders import index_constant
from disc_ir.ir.types import memref_type
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

#: A predicate term: known at compile time (int / bool) or an SSA value.
Term = int | bool | SSAValue

_CMP: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b,
    "slt": lambda a, b: a < b,
    "sge": lambda a, b: a >= b,
    "sgt": lambda a, b: a > b,
}


class PredicateBuilder:
    """Emits the host-side shape predicate before an op, folding what the
    static shapes already decide.

    Every method takes and returns `Term`s; constant operands are computed
    at compile time and only the dynamic parts become `memref.dim` / `arith`
    ops. `finish` returns the predicate: an `i1` value, or a Python bool
    when it folded (then every op this builder emitted is erased again).
    """

    def __init__(self, anchor: Operation):
        self._point = InsertPoint.before(anchor)
        self._created: list[Operation] = []
        self._consts: dict[int, SSAValue] = {}

    def _emit(self, op: Operation) -> SSAValue:
        Rewriter.insert_op(op, self._point)
        self._created.append(op)
        return op.results[0]

    def value(self, t: Term) -> SSAValue:
        if isinstance(t, SSAValue):
            return t
        assert not isinstance(t, bool), "boolean terms are folded, never materialized"
        if t not in self._consts:
            self._consts[t] = self._emit(index_constant(t))
        return self._consts[t]

    def dim(self, buffer: SSAValue, index: int) -> Term:
        t = buffer.type
        assert isinstance(t, MemRefType)
        size = t.get_shape()[index]
        if size != DYNAMIC:
            return size
        return self._emit(memref.DimOp(buffer, self.value(index)))

    def num_elements(self, buffer: SSAValue) -> Term:
        t = buffer.type
        assert isinstance(t, MemRefType)
        total: Term = 1
        for i in range(len(t.get_shape())):
            total = self.muli(total, self.dim(buffer, i))
        return total

    def muli(self, a: Term, b: Term) -> Term:
        if isinstance(a, int) and isinstance(b, int):
            return a * b
        if isinstance(a, int) and a == 1:
            return b
        if isinstance(b, int) and b == 1:
            return a
        return self._emit(arith.MuliOp(self.value(a), self.value(b)))

    def ceildiv(self, a: Term, b: Term) -> Term:
        if isinstance(a, int) and isinstance(b, int):
            return -(-a // b)
        return self._emit(arith.CeilDivSIOp(self.value(a), self.value(b)))

    def remui(self, a: Term, b: Term) -> Term:
        if isinstance(a, int) and isinstance(b, int):
            return a % b
        return self._emit(arith.RemUIOp(self.value(a), self.value(b)))

    def cmp(self, predicate: str, a: Term, b: Term) -> Term:
        if isinstance(a, int) and isinstance(b, int):
            return _CMP[predicate](a, b)
        return self._emit(arith.CmpiOp(self.value(a), self.value(b), predicate))

    def andi(self, a: Term, b: Term) -> Term:
        for x, y in ((a, b), (b, a)):
            if isinstance(x, bool):
                return y if x else False
        return self._emit(arith.AndIOp(a, b))  # type: ignore[arg-type]  # bool terms fold above; the rest are i1 values

    def ori(self, a: Term, b: Term) -> Term:
        for x, y in ((a, b), (b, a)):
            if isinstance(x, bool):
                return True if x else y
        return self._emit(arith.OrIOp(a, b))  # type: ignore[arg-type]  # bool terms fold above; the rest are i1 values

    def finish(self, pred: Term) -> SSAValue | bool:
        if isinstance(pred, bool):
            for op in reversed(self._created):
                if all(not r.uses for r in op.results):
                    Rewriter.erase_op(op)
            self._created.clear()
            return pred
        assert isinstance(pred, SSAValue)
        return pred


def _if_else(fusion: Operation, pred: SSAValue, then_op: Operation, else_op: Operation) -> None:
    """Replace `fusion` by `scf.if %pred { then_op } else { else_op }`
    (`fusion` is one of the two; the other is not yet in a block)."""
    if_op = new_if(pred, with_else=True)
    Rewriter.insert_op(if_op, InsertPoint.before(fusion))
    fusion.detach()
    for op, region in ((then_op, if_op.true_region), (else_op, if_op.false_region)):
        block = region.blocks.first
        assert block is not None and block.last_op is not None
        Rewriter.insert_op(op, InsertPoint.before(block.last_op))


def _clamp_threads(threads: int, max_threads_per_block: int) -> int:
    return min(threads, max_threads_per_block) if max_threads_per_block > 0 else threads


# ---------------------------------------------------------------------------
# Stage 1: implicit broadcast
# ---------------------------------------------------------------------------


def is_candidate_broadcast(op: Operation, results: set[SSAValue]) -> bool:
    """A `dynamic_broadcast_in_dim` that is a plain copy when its runtime
    shapes match: same rank and static shape, result not a fusion output."""
    if op.name != "lmhlo.dynamic_broadcast_in_dim":
        return False
    operand, result = op.operands[0], op.operands[-1]
    if not isinstance(operand.type, MemRefType) or not isinstance(result.type, MemRefType):
        return False
    if result in results:
        return False
    return operand.type.get_shape() == result.type.get_shape()


class _UnionFind:
    """Equivalence classes of values; the first member of a class leads it."""

    def __init__(self) -> None:
        self._parent: dict[SSAValue, SSAValue] = {}

    def find(self, v: SSAValue) -> SSAValue | None:
        if v not in self._parent:
            return None
        while self._parent[v] is not v:
            self._parent[v] = self._parent[self._parent[v]]
            v = self._parent[v]
        return v

    def union(self, a: SSAValue, b: SSAValue) -> None:
        self._parent.setdefault(a, a)
        self._parent.setdefault(b, b)
        ra, rb = self.find(a), self.find(b)
        if ra is not rb:
            assert ra is not None and rb is not None
            self._parent[rb] = ra


def _view_like(point: InsertPoint, source: SSAValue, like: SSAValue) -> SSAValue:
    """`source` reinterpreted with the shape of `like` (BladeDISC's
    `createViewLike`): static sizes stay attributes, dynamic ones are
    `memref.dim %like`, strides are the row-major products."""

    def emit(op: Operation) -> SSAValue:
        Rewriter.insert_op(op, point)
        return op.results[0]

    def const(v: int) -> SSAValue:
        return emit(index_constant(v))

    like_t, src_t = like.type, source.type
    assert isinstance(like_t, MemRefType) and isinstance(src_t, MemRefType)
    shape = list(like_t.get_shape())
    sizes: list[SSAValue] = [
        emit(memref.DimOp(like, const(i))) for i, s in enumerate(shape) if s == DYNAMIC
    ]
    dyn_sizes = iter(sizes)
    size_values = [next(dyn_sizes) if s == DYNAMIC else None for s in shape]
    static_strides: list[int] = []
    dyn_strides: list[SSAValue] = []
    running: int | SSAValue = 1
    for i in reversed(range(len(shape))):
        if isinstance(running, int):
            static_strides.append(running)
        else:
            static_strides.append(DYNAMIC)
            dyn_strides.append(running)
        if i == 0:
            break
        size_value = size_values[i]
        if isinstance(running, int) and size_value is None:
            running *= shape[i]
        elif isinstance(running, int) and running == 1:
            assert size_value is not None
            running = size_value
        else:
            lhs = const(running) if isinstance(running, int) else running
            rhs = size_value if size_value is not None else const(shape[i])
            running = emit(arith.MuliOp(lhs, rhs))
    static_strides.reverse()
    dyn_strides.reverse()
    result_type = memref_type(src_t.element_type, shape, like_t.layout, like_t.memory_space)
    cast = memref.ReinterpretCastOp(
        source=source,
        offsets=[],
        sizes=sizes,
        strides=dyn_strides,
        static_offsets=[0],
        static_sizes=shape,
        static_strides=static_strides,
        result_type=result_type,
    )
    Rewriter.insert_op(cast, point)
    return cast.results[0]


def _same_shape_views(fusion: Operation) -> None:
    """Inside `fusion`, read every buffer that elementwise ops prove of one
    shape with another through a view shaped like its class leader
    (BladeDISC's `OpListShapeAnalysis` path)."""
    ops = fusion_body_ops(fusion)
    classes = _UnionFind()
    changed = True
    while changed:
        changed = False
        for op in ops:
            if not is_elementwise(op):
                continue
            lhs = op.operands[0]
            for rhs in op.operands[1:]:
                if classes.find(lhs) is None or classes.find(lhs) is not classes.find(rhs):
                    classes.union(lhs, rhs)
                    changed = True
    views: dict[SSAValue, SSAValue] = {}
    point = InsertPoint.before(fusion)
    for op in ops:
        for operand in op.operands:
            if operand in views:
                continue
            leader = classes.find(operand)
            if leader is None or leader is operand:
                continue
            lt, ot = leader.type, operand.type
            if not isinstance(lt, MemRefType) or not isinstance(ot, MemRefType):
                continue
            if lt.get_shape() != ot.get_shape() or DYNAMIC not in lt.get_shape():
                continue  # mismatching types, or a static shape a view adds nothing to
            views[operand] = _view_like(point, operand, leader)
    if not views:
        return
    for inner in preorder_ops(fusion):
        for i, operand in enumerate(inner.operands):
            if operand in views:
                inner.operands[i] = views[operand]


def _simplify_broadcasts(fusion: Operation, indices: list[int]) -> list[Operation]:
    """Remove the broadcasts at body positions `indices` of `fusion`: their
    readers in the body read the operand. Returns the removed ops (detached)."""
    body = fusion_body_ops(fusion)
    removed = [body[i] for i in indices]
    for op in removed:
        operand, result = op.operands[0], op.operands[-1]
        for use in list(result.uses):
            user = use.operation
            if user is not op and user.parent is op.parent:
                user.operands[use.index] = operand
        op.detach()
    return removed


def speculate_broadcast(fusion: Operation) -> None:
    body = fusion_body_ops(fusion)
    results = set(FusionPattern(body).results)
    indices = [i for i, op in enumerate(body) if is_candidate_broadcast(op, results)]
    if not indices:
        return
    b = PredicateBuilder(fusion)
    pred: Term = True
    for i in indices:
        operand, result = body[i].operands[0], body[i].operands[-1]
        assert isinstance(operand.type, MemRefType)
        for d in range(len(operand.type.get_shape())):
            eq = b.cmp("eq", b.dim(operand, d), b.dim(result, d))
            pred = b.andi(eq, pred)
    cond = b.finish(pred)
    if cond is False:
        return
    simplified = fusion if cond is True else fusion.clone()
    for op in _simplify_broadcasts(simplified, indices):
        op.erase(safe_erase=False)
    hints.add_fusion_tag(simplified, hints.TAG_NO_IMPLICIT_BROADCAST)
    if isinstance(cond, SSAValue):
        _if_else(fusion, cond, simplified, fusion)
    _same_shape_views(simplified)


# ---------------------------------------------------------------------------
# Stage 2: column reduction
# ---------------------------------------------------------------------------


def _first(fusion: Operation, pred: Callable[[Operation], bool]) -> Operation | None:
    return next((op for op in fusion_body_ops(fusion) if pred(op)), None)


def _set_col_version(fusion: Operation, tile: int, threads: int, tag: str) -> None:
    hints.set_hint(fusion, hints.THREAD_PER_BLOCK_HINT, threads)
    hints.set_hint(fusion, hints.COL_REDUCTION_SCHEDULE_HINT, tile)
    hints.add_fusion_tag(fusion, tag)


def _set_row_version(fusion: Operation, schedule: int, threads: int, tag: str) -> None:
    hints.set_hint(fusion, hints.THREAD_PER_BLOCK_HINT, threads)
    hints.set_hint(fusion, hints.ROW_REDUCTION_SCHEDULE_HINT, schedule)
    hints.add_fusion_tag(fusion, tag)


def _two_versions(
    fusion: Operation,
    cond: SSAValue | bool,
    set_then: Callable[[Operation], None],
    set_else: Callable[[Operation], None],
) -> None:
    """Make `fusion` the `then` version and a copy the `else` version (or
    just the chosen one when `cond` is constant)."""
    if cond is True:
        set_then(fusion)
        return
    if cond is False:
        set_else(fusion)
        return
    cloned = fusion.clone()
    set_then(fusion)
    set_else(cloned)
    _if_else(fusion, cond, fusion, cloned)


# ---------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------


@register_pass
@dataclass(frozen=True)
class DiscSpecializeFusionWithSpeculationPass(ModulePass):
    """Pass for specializing a fusion op with some speculations."""

    name = "disc-specialize-fusion-with-speculation"

    core_count: int = -1
    max_threads_per_core: int = -1
    max_threads_per_block: int = -1

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "core-count": "core count (e.g., SM count on NVIDIA GPU).",
        "max-threads-per-core": "max thread number that a core supports concurrently.",
        "max-threads-per-block": "max thread number per block.",
    }

    # -- helpers ---------------------------------------------------------------

    def _device_known(self) -> bool:
        return self.core_count != -1 and self.max_threads_per_core != -1

    def _threads(self, n: int) -> int:
        return _clamp_threads(n, self.max_threads_per_block)

    # -- stages ----------------------------------------------------------------

    def speculate_col_reduction(self, fusion: Operation) -> None:
        if not is_gpu_lmhlo(fusion) or not self._device_known():
            return
        if hints.has_hint(fusion, hints.COL_REDUCTION_SCHEDULE_HINT):
            return
        reduce_op = _first(fusion, is_rank2_col_reduction)
        if reduce_op is None:
            return
        operand = reduce_op.operands[0]
        b = PredicateBuilder(fusion)
        size = b.muli(b.dim(operand, 0), b.dim(operand, 1))
        blocks = b.ceildiv(size, hints.COL_REDUCTION_W8_H32_THREADS)
        cond = b.finish(b.cmp("sgt", blocks, self.core_count))
        big = self._threads(hints.COL_REDUCTION_W8_H32_THREADS)
        small = self._threads(hints.COL_REDUCTION_W8_H16_THREADS)
        _two_versions(
            fusion,
            cond,
            lambda f: _set_col_version(f, hints.TILE_W8_H32, big, hints.TAG_COL_REDUCE_W8_H32),
            lambda f: _set_col_version(f, hints.TILE_W8_H16, small, hints.TAG_COL_REDUCE_W8_H16),
        )

    def speculate_row_reduction(self, fusion: Operation) -> None:
        if fusion_type_of(fusion) not in (FusionType.ROW_REDUCTION, FusionType.STITCH):
            return
        if not is_gpu_lmhlo(fusion):
            return
        if hints.has_hint(fusion, hints.ROW_REDUCTION_SCHEDULE_HINT):
            return
        reduce_op = _first(fusion, is_rank2_row_reduction)
        if reduce_op is None:
            return
        operand = reduce_op.operands[0]
        block_size = hints.THREADS_ROW_REDUCTION
        b = PredicateBuilder(fusion)
        if config.flag("DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL") and self._device_known():
            warps = self.max_threads_per_core // block_size * self.core_count // hints.WARP_SIZE
            rows, cols = b.dim(operand, 0), b.dim(operand, 1)
            cond1 = b.cmp("slt", rows, warps // 4)
            cond2 = b.andi(b.cmp("slt", rows, warps // 2), b.cmp("sge", cols, 1024))
            cond3 = b.andi(b.cmp("sge", rows, warps // 2), b.cmp("sge", cols, 512))
            pred = b.ori(b.ori(cond1, cond2), cond3)
        else:
            cols = b.dim(operand, 1)
            pred = b.cmp("sgt", cols, hints.ROW_REDUCTION_SCHEDULE_TURNING_SIZE)
        cond = b.finish(pred)
        threads = self._threads(block_size)
        _two_versions(
            fusion,
            cond,
            lambda f: _set_row_version(
                f, hints.BLOCK_WISE_ROW_REDUCE, threads, hints.TAG_BLOCK_WISE_ROW_REDUCE
            ),
            lambda f: _set_row_version(
                f, hints.WARP_WISE_ROW_REDUCE, threads, hints.TAG_WARP_WISE_ROW_REDUCE
            ),
        )

    def speculate_vectorize_or_tile(self, fusion: Operation) -> None:
        if not is_gpu_lmhlo(fusion) or not self._device_known():
            return
        if hints.has_hint(fusion, hints.VECTORIZE_OR_TILE_HINT):
            return
        mem_opt = config.flag("DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL")
        ftype = fusion_type_of(fusion)
        if ftype not in (FusionType.LOOP, FusionType.ROW_REDUCTION, FusionType.STITCH):
            return
        if ftype is FusionType.STITCH and mem_opt:
            return
        pattern = FusionPattern(fusion_body_ops(fusion))
        if any(op.name == "lmhlo.concatenate" for op in pattern.op_list):
            mem_opt = False
        max_threads_per_wave = self.core_count * self.max_threads_per_core
        width = hints.VECTORIZE_OR_TILE_SIZE
        b = PredicateBuilder(fusion)
        if ftype in (FusionType.ROW_REDUCTION, FusionType.STITCH):
            reduce_op = _first(fusion, is_rank2_row_reduction)
            if reduce_op is None:
                return
            block_size = hints.thread_per_block(fusion)
            schedule = hints.row_reduction_schedule(fusion)
            rows_per_block = (
                block_size // hints.WARP_SIZE if schedule == hints.WARP_WISE_ROW_REDUCE else 1
            )
            threshold = max_threads_per_wave // block_size * rows_per_block
            rows = b.dim(reduce_op.operands[0], 0)
            divisible = b.cmp("eq", b.remui(rows, width), 0)
            pred = b.andi(b.cmp("sgt", rows, threshold), divisible)
        else:
            if not pattern.root_ops:
                return
            n = b.num_elements(_num_elements_buffer(pattern.root_ops[-1]))
            if mem_opt:
                bits = [_element_bits(v) for v in pattern.results if isinstance(v.type, MemRefType)]
                min_bits = max(min([128, *bits]), 16)
                width = 128 // min_bits
            divisible = b.cmp("eq", b.remui(n, width), 0)
            if mem_opt:
                pred = divisible
            else:
                pred = b.andi(b.cmp("sgt", n, max_threads_per_wave), divisible)
        cond = b.finish(pred)

        def set_then(f: Operation) -> None:
            hints.set_hint(f, hints.VECTORIZE_OR_TILE_HINT, width)
            hints.add_fusion_tag(f, hints.vectorize_or_tile_tag(width))

        def set_else(f: Operation) -> None:
            hints.set_hint(f, hints.VECTORIZE_OR_TILE_HINT, 1)
            hints.add_fusion_tag(f, hints.TAG_NO_VECTORIZE_OR_TILE)

        # The non-vectorized version is a copy of the vectorized one, tag included.
        set_then(fusion)
        if cond is True:
            return
        if cond is False:
            set_else(fusion)
            return
        cloned = fusion.clone()
        set_else(cloned)
        _if_else(fusion, cond, fusion, cloned)

    # -- driver ----------------------------------------------------------------

    def _speculate(self, root: Operation, stage: Callable[[Operation], None]) -> None:
        fusions = [op for op in preorder_ops(root) if op.name == "lmhlo.fusion"]
        for fusion in fusions:
            if FusionPattern(fusion_body_ops(fusion)).root_ops:
                stage(fusion)

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for func in [o for o in preorder_ops(op) if o.name == "func.func"]:
            if _is_shape_constraint_graph(func):
                continue
            self._speculate(func, speculate_broadcast)
            self._speculate(func, self.speculate_col_reduction)
            self._speculate(func, self.speculate_row_reduction)
            self._speculate(func, self.speculate_vectorize_or_tile)


def _is_shape_constraint_graph(func: Operation) -> bool:
    name = inherent_attr(func, "sym_name")
    return isinstance(name, StringAttr) and name.data == "shape_constraint_graph"


def _num_elements_buffer(op: Operation) -> SSAValue:
    """The buffer whose size is `op`'s element count (`emitNumElementsComputation`):
    the output, or the update of an in-place dynamic_update_slice / scatter."""
    n = len(op.operands)
    if op.name == "lmhlo.dynamic_update_slice" and op.operands[0] is op.operands[n - 1]:
        return op.operands[1]
    if op.name == "lmhlo.scatter" and op.operands[0] is op.operands[n - 1]:
        return op.operands[2]
    return op.operands[n - 1]


def _element_bits(v: SSAValue) -> int:
    t = v.type
    assert isinstance(t, MemRefType)
    width = getattr(t.element_type, "bitwidth", None)
    if isinstance(width, int):
        return width
    return getattr(getattr(t.element_type, "width", None), "data", 32)
