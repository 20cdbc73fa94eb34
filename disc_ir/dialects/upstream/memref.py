"""The upstream `memref` dialect as disc-ir registers it."""

from xdsl.dialects.memref import MemRef

MEMREF = MemRef
