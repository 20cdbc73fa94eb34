"""`disc_ir.ir.types.memref_type` builds exactly xDSL's `MemRefType`, once per type."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IntAttr,
    MemRefType,
    NoneAttr,
    StridedLayoutAttr,
    f32,
    i64,
)

from disc_ir.dialects.upstream.gpu import AddressSpace, AddressSpaceAttr
from disc_ir.ir.types import memref_type


def test_memref_type_equals_the_constructor_and_is_shared() -> None:
    space = AddressSpaceAttr(AddressSpace.WORKGROUP)
    layout = StridedLayoutAttr([DYNAMIC_INDEX, 1], 0)
    cases = [
        ((f32, [2, DYNAMIC_INDEX]), {}),
        ((i64, []), {}),
        ((f32, [IntAttr(4)]), {"memory_space": space}),
        ((f32, [3, 4]), {"layout": layout, "memory_space": NoneAttr()}),
    ]
    for args, kwargs in cases:
        built = memref_type(*args, **kwargs)
        assert built == MemRefType(*args, **kwargs)
        assert memref_type(*args, **kwargs) is built
    assert memref_type(f32, [2]) != memref_type(f32, [2], memory_space=space)
