"""The kLoop schedule: roots written by one parallel loop over the dominant op's output.

BladeDISC's `lowerWithScheduleLoop`, `lowerWithScheduleLoopV2` and
`lowerWithScheduleLoopCPU`. Every loop nest is created right before the last
root op; root `i`'s element is written by `common.lower_root`.

* `lower_loop_cpu` (CPU): `scf.parallel` over every dimension of the dominant
  op's output (`0 .. dim` step 1), the linear index
  `disc_shape.linearize(ivs, dims)`:

      scf.parallel (%i, %j) = (%c0, %c0) to (%d0, %d1) step (%c1, %c1) {
        %lin = "disc_shape.linearize"(%i, %j, %d0, %d1)
        ... roots at %lin ...
      }

  A rank-0 output, or `multi_dim=False`, gives the 1-D form.
* `lower_loop_1d`: one loop over `num_elements / vector_size` (an
  `scf.parallel`, or an `scf.for` when `parallel_loop=False`), each iteration
  writing `vector_size` adjacent elements.
* `lower_loop_tiled` (V2, the CPU's): `scf.parallel` over `num_elements /
  tile` with an inner `scf.for %k = 0 to tile` writing element `i * tile +
  k` -- the schedule of `disc_vectorize_or_tile_hint` (the speculation pass
  only emits a hinted version when the element count is a multiple of the
  tile). The GPU uses `lower_loop_1d` with the hint as `vector_size`.

The roots' ops are erased afterwards: non-fusion roots directly; in a fusion,
every lmhlo op no remaining load depends on (`clean_unused_lhlo_ops`), the
others being inlined later by `disc-input-inline-fusion`.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import scf
from xdsl.ir import Operation, SSAValue

from disc_ir.codegen import elemental
from disc_ir.codegen.common import (
    for_loop,
    iteration_buffer,
    lower_root,
    parallel,
    thread_count,
)
from disc_ir.codegen.elemental import Builder
from disc_ir.codegen.loop_utils import shape_values


def lower_loop_1d(
    roots: Sequence[Operation],
    dominant: Operation,
    *,
    parallel_loop: bool = True,
    vector_size: int = 1,
) -> Operation:
    """One 1-D loop over `num_elements / vector_size` (`lowerWithScheduleLoop`)."""
    b = Builder.before(roots[-1])
    zero = b.index(0)
    one = b.index(1)
    n = thread_count(b, dominant, vector_size)
    loop: scf.ParallelOp | scf.ForOp
    if parallel_loop:
        loop, body = parallel(b, [zero], [n], [one])
    else:
        loop, body = for_loop(b, zero, n, one)
    iv = loop.body.block.args[0]
    for root in roots:
        lower_root(body, root, iv, vector_size)
    return loop


def lower_loop_tiled(roots: Sequence[Operation], dominant: Operation, tile: int) -> Operation:
    """`scf.parallel` over `num_elements / tile` with an inner `scf.for` over
    the tile (`lowerWithScheduleLoopV2`): iteration `i` writes elements
    `i * tile + k` (adjacent: vector code on the CPU)."""
    b = Builder.before(roots[-1])
    zero = b.index(0)
    one = b.index(1)
    n = thread_count(b, dominant, tile)
    loop, body = parallel(b, [zero], [n], [one])
    linear: SSAValue = loop.body.block.args[0]
    if tile > 1:
        inner, body = for_loop(body, zero, body.index(tile), one)
        k = inner.body.block.args[0]
        linear = body.addi(body.muli(linear, body.index(tile)), k)
    for root in roots:
        lower_root(body, root, linear, 1)
    return loop


def lower_loop_cpu(
    roots: Sequence[Operation],
    dominant: Operation,
    *,
    parallel_loop: bool = True,
    multi_dim: bool = True,
) -> Operation:
    """Multi-dimensional `scf.parallel` over the dominant output (`lowerWithScheduleLoopCPU`)."""
    space = iteration_buffer(dominant)
    rank = elemental.rank_of(space)
    if not multi_dim or rank == 0 or not parallel_loop:
        return lower_loop_1d(roots, dominant, parallel_loop=parallel_loop)
    b = Builder.before(roots[-1])
    zero = b.index(0)
    one = b.index(1)
    limits = shape_values(b, space)
    loop, body = parallel(b, [zero] * rank, limits, [one] * rank)
    linear = elemental.linearize(body, list(loop.body.block.args), limits)
    for root in roots:
        lower_root(body, root, linear)
    return loop


__all__ = ["lower_loop_1d", "lower_loop_cpu", "lower_loop_tiled"]
