"""Loop schedules of `disc-lhlo-legalize-roots-to-parallel-loops`, one module per schedule.

* `common`: emitting one root op at a linear index (`lower_root`, BladeDISC's
  `lowerHelper`), the parallel-loop helpers and the root grouping all
  schedules share;
* `loop_schedule`: kLoop (multi-dimensional CPU loops, 1-D loops, the
  vectorized / tiled variants) and non-fusion ops;
* `row_reduction`: kRowReduction on CPU (one reduction loop per output
  element, `disc_vectorize_or_tile_hint` rows per parallel iteration);
* `col_reduction`: kColReduction / kInput on CPU (tiled initialisation and
  accumulation loops);
* `stitch_cpu`: kStitch on CPU (every sub-root materialised by its own loop
  nest, the rest inlined afterwards);
* `sort`: `lmhlo.sort` on CPU (a stable merge sort per row, the comparator
  evaluated on scalars; not in BladeDISC).

* `gpu_common`: warp shuffles (width-adapted), shared memory, barriers,
  atomics;
* `gpu_row_reduction`: kRowReduction on GPU (block-wise, two shuffle rounds;
  warp-wise, one round);
* `gpu_col_reduction`: kColReduction on GPU (init loops, thread tile with
  atomics, block tile through shared memory);
* `gpu_stitch`: kStitch on GPU (row reductions kept in shared memory).

These are not passes: the pass module imports them.
"""
