"""Reading an op's inherent attributes wherever they live.

Ops of disc-ir's dialects keep inherent attributes in the attribute dictionary
(as BladeDISC's MLIR printed them); xDSL's upstream ops keep them as
properties. `inherent_attr` looks in both. Never write
`op.properties.get(n) or op.attributes.get(n)`: xDSL attributes may be falsy
(`IntegerAttr(0)`, an empty array), which silently skips a present value.
"""

from __future__ import annotations

from xdsl.ir import Attribute, Operation


def inherent_attr(op: Operation, name: str) -> Attribute | None:
    """`op`'s attribute `name`, from its properties or its attribute dict."""
    value = op.properties.get(name)
    if value is None:
        value = op.attributes.get(name)
    return value
