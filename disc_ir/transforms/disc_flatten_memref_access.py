"""`disc-flatten-memref-access`: flatten memref access to its 1D format.

BladeDISC's DiscFlattenMemrefAccessPass. Every `memref.load` / `memref.store`
inside an `scf.parallel` (at any depth) on a memref of rank >= 1 with the
identity layout becomes an access of the memref reinterpreted as 1-D at the
linear index of its indices:

    %dims = (arith.constant for static sizes, memref.dim for dynamic ones)
    %lin = "disc_shape.linearize"(%i, %j, %d0, %d1)
    %flat = memref.reinterpret_cast %m to offset: [0], sizes: [%n], strides: [1]
    %v = memref.load %flat[%lin]

(`%n` is the product of the dimension sizes, `memref.dim` of every
dimension, or a static size for static shapes; the memory space is kept and
an `memref.assume_alignment` of `%m` is repeated on `%flat`.) Accesses
outside parallel loops, of rank-0 memrefs or of memrefs with a non-identity
layout are left as they are. The new ops are placed right before each access;
run `cse` / `canonicalize` afterwards to share them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin, memref
from xdsl.dialects.builtin import MemRefType
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from disc_ir.codegen.loop_utils import (
    OpBuilder,
    create_offset_load,
    create_offset_store,
    has_identity_layout,
    parent_of_name,
    shape_values,
)
from disc_ir.dialects.disc_shape import LinearizeOp
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass


def _flattenable(op: Operation, value_type: object) -> bool:
    return (
        isinstance(value_type, MemRefType)
        and len(value_type.get_shape()) >= 1
        and has_identity_layout(value_type)
        and parent_of_name(op, "scf.parallel") is not None
    )


def flatten_load(op: memref.LoadOp) -> None:
    """Rewrite `op` into a load of the 1-D view at the linearized index."""
    b = OpBuilder.before(op)
    dims = shape_values(b, op.memref)
    linear = b.create(LinearizeOp(list(op.indices), dims)).result
    new_value = create_offset_load(b, op.memref, linear)
    op.res.replace_all_uses_with(new_value)
    op.detach()
    op.erase()


def flatten_store(op: memref.StoreOp) -> None:
    """Rewrite `op` into a store to the 1-D view at the linearized index."""
    b = OpBuilder.before(op)
    dims = shape_values(b, op.memref)
    linear = b.create(LinearizeOp(list(op.indices), dims)).result
    create_offset_store(b, op.value, op.memref, linear)
    op.detach()
    op.erase()


@register_pass
@dataclass(frozen=True)
class DiscFlattenMemrefAccessPass(ModulePass):
    """flatten memref access to its 1D format."""

    name = "disc-flatten-memref-access"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for func in [o for o in preorder_ops(op) if o.name == "func.func"]:
            # Collect first: the rewrite adds loads/stores of its own.
            loads = [
                o
                for o in preorder_ops(func)
                if isinstance(o, memref.LoadOp) and _flattenable(o, o.memref.type)
            ]
            stores = [
                o
                for o in preorder_ops(func)
                if isinstance(o, memref.StoreOp) and _flattenable(o, o.memref.type)
            ]
            for load in loads:
                flatten_load(load)
            for store in stores:
                flatten_store(store)
