"""Codegen hint attributes of `lmhlo.fusion` ops, and the constants behind them.

`disc-specialize-fusion-with-speculation` writes these integer attributes on
each speculated copy of a fusion; the codegen passes read them back to pick a
schedule (BladeDISC's `codegen_utils.h`, in the naming of the seed document):

* `disc_row_reduction_schedule_hint` (i32): `1` = one block per row, two
  rounds of warp shuffle (RowReductionSchedule1, for long rows); `2` = one
  warp per row, one round of warp shuffle (RowReductionSchedule2).
* `disc_col_reduction_schedule_hint` (i32): the tile of the column reduction
  (`DISC_TILE_W8_H32` = 1, `DISC_TILE_W8_H16` = 2, ...).
* `disc_vectorize_or_tile_hint` (i32): how many elements (loop schedule) or
  rows (row-reduction schedule) one thread handles; 1 = no vectorization.
* `disc_cta_size_hint` (i32): the launch dimension, threads per block
  (BladeDISC's `kCTASizeHint`; the walkthrough calls it
  `disc_thread_per_block_hint`, which `thread_per_block` also reads).
* `disc.fusion.tag` (string): the versions' names joined by `X` (`1b1r`,
  `1w1r`, `no_ib`, `_vectile2`, `_no_vectile`, `8w32h`, `8w16h`), appended to
  `disc.fusion.name` when kernels are named.

The getters take an `lmhlo.fusion` or any op inside one and fall back to
BladeDISC's defaults when the hint is absent.
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Operation

from disc_ir.fusion.pattern import FUSION_TAG_ATTR, parent_fusion

ROW_REDUCTION_SCHEDULE_HINT = "disc_row_reduction_schedule_hint"
COL_REDUCTION_SCHEDULE_HINT = "disc_col_reduction_schedule_hint"
VECTORIZE_OR_TILE_HINT = "disc_vectorize_or_tile_hint"
#: Threads per block, as BladeDISC names it (`kCTASizeHint`); written by speculation.
CTA_SIZE_HINT = "disc_cta_size_hint"
THREAD_PER_BLOCK_HINT = CTA_SIZE_HINT
#: The walkthrough's older name of the same hint, still accepted on input.
LEGACY_THREAD_PER_BLOCK_HINT = "disc_thread_per_block_hint"

#: Separator of the tags in `disc.fusion.tag` (`kFusionTagSeparator`).
FUSION_TAG_SEPARATOR = "X"

# Row-reduction schedules (`disc_row_reduction_schedule_hint` values).
BLOCK_WISE_ROW_REDUCE = 1  # one block per row: RowReductionSchedule1
WARP_WISE_ROW_REDUCE = 2  # one warp per row: RowReductionSchedule2

# Column-reduction tiles (`disc_col_reduction_schedule_hint` values).
TILE_W8_H32 = 1
TILE_W8_H16 = 2
TILE_W8_H8 = 3

#: Threads of a warp.
WARP_SIZE = 32
#: Threads per block of a row reduction (`kThreadsRowReduction`), also the
#: default launch dimension.
THREADS_ROW_REDUCTION = 256
DEFAULT_THREAD_PER_BLOCK = 256
#: Row size above which one block per row (schedule 1) is chosen.
ROW_REDUCTION_SCHEDULE_TURNING_SIZE = 512
#: Vector width of the vectorized / tiled versions (`kVectorizeOrTileSize`).
VECTORIZE_OR_TILE_SIZE = 2
#: Column reduction: threads per block of the 8x32 and 8x16 tiles.
COL_REDUCTION_W8_H32_THREADS = 256
COL_REDUCTION_W8_H16_THREADS = 128

# Fusion tags of the speculated versions.
TAG_NO_IMPLICIT_BROADCAST = "no_ib"
TAG_BLOCK_WISE_ROW_REDUCE = "1b1r"
TAG_WARP_WISE_ROW_REDUCE = "1w1r"
TAG_COL_REDUCE_W8_H32 = "8w32h"
TAG_COL_REDUCE_W8_H16 = "8w16h"
TAG_NO_VECTORIZE_OR_TILE = "_no_vectile"


def vectorize_or_tile_tag(width: int) -> str:
    """The tag of the version vectorized / tiled by `width` (`_vectile2`)."""
    return f"_vectile{width}"


def _owning_fusion(op: Operation) -> Operation | None:
    return op if op.name == "lmhlo.fusion" else parent_fusion(op)


def _int_hint(op: Operation, names: tuple[str, ...], default: int) -> int:
    fusion = _owning_fusion(op)
    if fusion is None:
        return default
    for name in names:
        attr = fusion.attributes.get(name)
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return default


def row_reduction_schedule(op: Operation) -> int:
    """The row-reduction schedule of `op`'s fusion (schedule 1 by default)."""
    return _int_hint(op, (ROW_REDUCTION_SCHEDULE_HINT,), BLOCK_WISE_ROW_REDUCE)


def col_reduction_schedule(op: Operation) -> int:
    """The column-reduction tile of `op`'s fusion (8x32 by default)."""
    return _int_hint(op, (COL_REDUCTION_SCHEDULE_HINT,), TILE_W8_H32)


def vectorize_or_tile(op: Operation) -> int:
    """The vector / tile width of `op`'s fusion (1 by default)."""
    return _int_hint(op, (VECTORIZE_OR_TILE_HINT,), 1)


def thread_per_block(op: Operation) -> int:
    """Threads per block of `op`'s fusion (`disc_cta_size_hint`, else the
    walkthrough's `disc_thread_per_block_hint`, else 256)."""
    return _int_hint(op, (CTA_SIZE_HINT, LEGACY_THREAD_PER_BLOCK_HINT), DEFAULT_THREAD_PER_BLOCK)


def has_hint(fusion: Operation, name: str) -> bool:
    """`fusion` carries the integer hint `name`."""
    return isinstance(fusion.attributes.get(name), IntegerAttr)


def set_hint(fusion: Operation, name: str, value: int) -> None:
    """Set the i32 hint `name` on `fusion`."""
    fusion.attributes[name] = IntegerAttr(value, IntegerType(32))


def fusion_tag(fusion: Operation) -> str:
    """The `disc.fusion.tag` of `fusion` ('' without one)."""
    attr = fusion.attributes.get(FUSION_TAG_ATTR)
    return attr.data if isinstance(attr, StringAttr) else ""


def add_fusion_tag(fusion: Operation, tag: str) -> None:
    """Append `tag` to `fusion`'s `disc.fusion.tag` (BladeDISC's `addFusionTag`)."""
    old = fusion_tag(fusion)
    new = f"{old}{FUSION_TAG_SEPARATOR}{tag}" if old else tag
    fusion.attributes[FUSION_TAG_ATTR] = StringAttr(new)


__all__ = [
    "BLOCK_WISE_ROW_REDUCE",
    "COL_REDUCTION_SCHEDULE_HINT",
    "COL_REDUCTION_W8_H16_THREADS",
    "COL_REDUCTION_W8_H32_THREADS",
    "CTA_SIZE_HINT",
    "DEFAULT_THREAD_PER_BLOCK",
    "FUSION_TAG_SEPARATOR",
    "ROW_REDUCTION_SCHEDULE_HINT",
    "ROW_REDUCTION_SCHEDULE_TURNING_SIZE",
    "TAG_BLOCK_WISE_ROW_REDUCE",
    "TAG_COL_REDUCE_W8_H16",
    "TAG_COL_REDUCE_W8_H32",
    "TAG_NO_IMPLICIT_BROADCAST",
    "TAG_NO_VECTORIZE_OR_TILE",
    "TAG_WARP_WISE_ROW_REDUCE",
    "THREADS_ROW_REDUCTION",
    "THREAD_PER_BLOCK_HINT",
    "TILE_W8_H16",
    "TILE_W8_H32",
    "TILE_W8_H8",
    "VECTORIZE_OR_TILE_HINT",
    "VECTORIZE_OR_TILE_SIZE",
    "WARP_SIZE",
    "WARP_WISE_ROW_REDUCE",
    "add_fusion_tag",
    "col_reduction_schedule",
    "fusion_tag",
    "has_hint",
    "row_reduction_schedule",
    "set_hint",
    "thread_per_block",
    "vectorize_or_tile",
    "vectorize_or_tile_tag",
]
