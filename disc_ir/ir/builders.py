"""Cheap constructors for the ops the passes create most.

xDSL's IRDL constructors check and convert every argument (the IRDL-built
index constant costs about 35 us: the `index` type, the integer attribute and
the op are each built and verified); these build the very same ops with
`Operation.create` from shared, immutable attributes.
"""

from __future__ import annotations

from functools import lru_cache

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr

#: the `index` type (one instance serves every op)
INDEX = IndexType()


@lru_cache(maxsize=4096)
def index_attr(value: int) -> IntegerAttr:
    """`value : index`, shared."""
    return IntegerAttr(value, INDEX)


def index_constant(value: int) -> arith.ConstantOp:
    """`arith.constant value : index`: the op xDSL's `arith.ConstantOp` makes
    of an `IntegerAttr(value, IndexType())`."""
    return arith.ConstantOp.create(properties={"value": index_attr(value)}, result_types=[INDEX])


__all__ = ["INDEX", "index_attr", "index_constant"]
