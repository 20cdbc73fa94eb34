"""`disc-convert-unhandled-atomic-rmw`: `memref.atomic_rmw` kinds that have no
LLVM `atomicrmw` -> `memref.generic_atomic_rmw`.

BladeDISC's UnhandledAtomicRMWConverterPass
(disc_unhandled_atomic_rmw_converter.cc), run right after
`disc-lhlo-legalize-roots-to-parallel-loops` as a supplement to MLIR's
`memref-expand`: the GPU column-reduction schedules accumulate into their
output with `memref.atomic_rmw <kind>`, the kind taken from the reduce body
(`getAtomicRMWKind`), and a product reduction gives `mulf` / `muli`, which
LLVM's `atomicrmw` cannot express. Each such op becomes

    %old = memref.generic_atomic_rmw %out[%i] : memref<?xf32> {
    ^bb0(%current: f32):
      %new = arith.mulf %current, %value : f32
      memref.atomic_yield %new : f32
    }

which `disc-convert-gpu-to-nvvm` lowers to a compare-and-swap loop
(`GenericAtomicRMWOpLoweringWithBitcast`). The result (the value read) is
the same as the atomic_rmw's.

Converted kinds: `mulf` (as BladeDISC) and `muli` (BladeDISC leaves it to a
lowering that has no pattern for it). BladeDISC also converts kinds on
elements narrower than 32 bits, whose generic lowering it then cannot do;
here they stay `atomic_rmw`: LLVM's NVPTX backend widens part-word atomics
to 32-bit compare-and-swap loops itself. Every other kind maps to an LLVM
`atomicrmw` (`maximumf` / `minimumf` to `fmaximum` / `fminimum`, which the
NVPTX backend expands to a CAS loop, as MLIR's `memref-expand` would).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from disc_ir.dialects.upstream.memref import AtomicRMWOp, AtomicYieldOp, GenericAtomicRMWOp
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

#: `atomic_rmw` kinds without an LLVM `atomicrmw` equivalent
UNHANDLED_KINDS = frozenset({"mulf", "muli"})

_Combine = Callable[[SSAValue, SSAValue], Operation]

#: `getReductionOp`: the op computing `kind(current, value)`
REDUCTION_OPS: dict[str, _Combine] = {
    "addf": arith.AddfOp,
    "addi": arith.AddiOp,
    "maximumf": arith.MaximumfOp,
    "maxnumf": arith.MaxnumfOp,
    "maxs": arith.MaxSIOp,
    "maxu": arith.MaxUIOp,
    "minimumf": arith.MinimumfOp,
    "minnumf": arith.MinnumfOp,
    "mins": arith.MinSIOp,
    "minu": arith.MinUIOp,
    "mulf": arith.MulfOp,
    "muli": arith.MuliOp,
    "ori": arith.OrIOp,
    "andi": arith.AndIOp,
}


def to_generic_atomic_rmw(op: AtomicRMWOp) -> GenericAtomicRMWOp:
    """A `generic_atomic_rmw` doing what `op` does (same memref, indices and
    result), not yet inserted. `assign` yields the value itself."""
    kind = op.kind_name
    block = Block(arg_types=[op.result.type])
    current = block.args[0]
    if kind == "assign":
        new = op.value
    else:
        make = REDUCTION_OPS.get(kind)
        if make is None:
            raise ValueError(f"unknown atomic_rmw kind '{kind}'")
        combine = make(current, op.value)
        block.add_op(combine)
        new = combine.results[0]
    block.add_op(AtomicYieldOp(new))
    generic = GenericAtomicRMWOp(op.memref, list(op.indices), Region(block))
    generic.attributes |= op.attributes
    return generic


def convert_unhandled_atomic_rmw(module: Operation) -> int:
    """Rewrites every `atomic_rmw` of an `UNHANDLED_KINDS` kind in `module`;
    returns how many."""
    todo = [
        op
        for op in preorder_ops(module)
        if isinstance(op, AtomicRMWOp) and op.kind_name in UNHANDLED_KINDS
    ]
    for op in todo:
        Rewriter.replace_op(op, to_generic_atomic_rmw(op))
    return len(todo)


@register_pass
@dataclass(frozen=True)
class UnhandledAtomicRMWConverterPass(ModulePass):
    """Convert unhandled AtomicRMWOp to memref::GenericAtomicRMWOp."""

    name = "disc-convert-unhandled-atomic-rmw"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        convert_unhandled_atomic_rmw(op)


__all__ = [
    "REDUCTION_OPS",
    "UNHANDLED_KINDS",
    "UnhandledAtomicRMWConverterPass",
    "convert_unhandled_atomic_rmw",
    "to_generic_atomic_rmw",
]
