"""What the GPU schedules share: warp shuffles, shared memory, atomics, hints.

The GPU schedules of `disc-lhlo-legalize-roots-to-parallel-loops` emit
standard MLIR that `disc-gpu-map-parallel-loops` / `convert-parallel-loops-
to-gpu` turn into kernels: a 2-D `scf.parallel` whose first dimension is the
block and whose second is the thread of the block, and inside it

* `gpu.shuffle xor %v, %offset, %width : T` (`shuffle`): a butterfly
  exchange between the lanes of a warp (BladeDISC's `emitWidthAdaptShuffle`):
  32-bit values are shuffled as they are; narrower floats through `f32`
  (`arith.extf` / `arith.truncf`) and narrower integers through `i32`
  (`arith.extui` for `i1` and unsigned, `arith.extsi` otherwise, then
  `arith.trunci`); 64-bit values as two `i32` halves (BladeDISC bit-casts to
  `vector<2xi32>` with the llvm dialect; here `arith.bitcast` to `i64`,
  `arith.trunci` / `arith.shrui` to split and `arith.extui` / `arith.shli` /
  `arith.ori` to join -- the same bits, in standard dialects);
* `memref.alloc() : memref<NxT, #gpu.address_space<workgroup>>`
  (`shared_memory`, `createSharedMemory`): a per-block buffer;
* `gpu.barrier` (`__syncthreads`);
* `memref.atomic_rmw <kind> %v, %out[%i]` (`atomic_accumulate`), the kind
  from the reduce body (`getAtomicRMWKind`: add -> `addf` / `addi`, multiply
  -> `mulf` / `muli`, maximum -> `maxf` / `maxs` / `maxu`, minimum -> `minf` /
  `mins` / `minu`).

Hints read from the fusion (BladeDISC's `codegen_utils.cc`): the CTA size
(`disc_cta_size_hint`, else the walkthrough's `disc_thread_per_block_hint`,
else 256), the row-reduction schedule and the vector / tile width, through
`disc_ir.codegen.codegen_hints`.
"""

from __future__ import annotations

from typing import cast

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerAttr,
    IntegerType,
    Signedness,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from disc_ir.codegen import elemental, scalar
from disc_ir.codegen.common import LoweringError
from disc_ir.codegen.elemental import Builder
from disc_ir.dialects.upstream.gpu import (
    AddressSpace,
    AddressSpaceAttr,
    BarrierOp,
    ShuffleMode,
    ShuffleOp,
)
from disc_ir.dialects.upstream.memref import (
    ATOMIC_RMW_KINDS,
    AssumeAlignmentOp,
    AtomicRMWOp,
    AtomicYieldOp,
    GenericAtomicRMWOp,
)
from disc_ir.ir.types import memref_type
from disc_ir.ir.walk import preorder_ops

#: Threads of a warp (`kWarpSize`).
WARP_SIZE = 32

_FLOATS = (Float16Type, BFloat16Type, Float32Type, Float64Type)


def reduce_element_type(op: Operation) -> Attribute:
    """The element type of `op`'s output (`getLhloOpsElementType`)."""
    return elemental.element_type(op.operands[-1])


def shuffle_element_type(elem: Attribute) -> Attribute:
    """The type a value of `elem` is shuffled and kept in shared memory as
    (`getShuffleElemType`): integers narrower than 32 bits as `i32`, 16/32/64
    bit floats and wider integers as themselves."""
    if isinstance(elem, IntegerType):
        return IntegerType(32) if elem.width.data < 32 else elem
    if isinstance(elem, _FLOATS):
        return elem
    raise LoweringError(f"row reduction of element type {elem} is not supported on GPU")


def _bit_width(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return t.width.data
    if isinstance(t, (Float16Type, BFloat16Type)):
        return 16
    if isinstance(t, Float32Type):
        return 32
    if isinstance(t, Float64Type):
        return 64
    raise LoweringError(f"cannot shuffle values of type {t}")


def i32_const(b: Builder, value: int) -> SSAValue:
    """`arith.constant <value> : i32`."""
    return b.create(arith.ConstantOp(IntegerAttr(value, i32))).result


def _raw_shuffle(b: Builder, value: SSAValue, offset: SSAValue, width: SSAValue) -> SSAValue:
    return b.create(ShuffleOp(value, offset, width, ShuffleMode.XOR)).shuffleResult


def shuffle(b: Builder, value: SSAValue, offset: SSAValue, width: SSAValue) -> SSAValue:
    """`value` of the lane `lane ^ offset` among `width` lanes (`emitWidthAdaptShuffle`, xor)."""
    t = value.type
    bits = _bit_width(t)
    if bits == 32:
        return _raw_shuffle(b, value, offset, width)
    if bits < 32:
        if isinstance(t, _FLOATS):
            ext = b.create(arith.ExtFOp(value, Float32Type())).result
            res = _raw_shuffle(b, ext, offset, width)
            return b.create(arith.TruncFOp(res, t)).result
        assert isinstance(t, IntegerType)
        v = scalar.cast_to(b, value, scalar.signless(t))
        if t.signedness.data == Signedness.UNSIGNED or bits == 1:
            ext = b.create(arith.ExtUIOp(v, i32)).result
        else:
            ext = b.create(arith.ExtSIOp(v, i32)).result
        res = _raw_shuffle(b, ext, offset, width)
        out = b.create(arith.TruncIOp(res, cast(IntegerType, scalar.signless(t)))).result
        return scalar.cast_to(b, out, t)
    if bits != 64:
        raise LoweringError(f"cannot shuffle values of type {t}")
    # Two 32-bit halves.
    if isinstance(t, _FLOATS):
        as_int: SSAValue = b.create(arith.BitcastOp(value, i64)).result
    else:
        as_int = scalar.cast_to(b, value, i64)
    c32 = b.create(arith.ConstantOp(IntegerAttr(32, i64))).result
    lo: SSAValue = b.create(arith.TruncIOp(as_int, i32)).result
    hi: SSAValue = b.create(arith.TruncIOp(b.create(arith.ShRUIOp(as_int, c32)).result, i32)).result
    lo = _raw_shuffle(b, lo, offset, width)
    hi = _raw_shuffle(b, hi, offset, width)
    lo64 = b.create(arith.ExtUIOp(lo, i64)).result
    hi64 = b.create(arith.ShLIOp(b.create(arith.ExtUIOp(hi, i64)).result, c32)).result
    joined = b.create(arith.OrIOp(lo64, hi64)).result
    if isinstance(t, _FLOATS):
        return b.create(arith.BitcastOp(joined, t)).result
    return scalar.cast_to(b, joined, t)


def extend_to_shuffle_type(b: Builder, value: SSAValue, shuffle_type: Attribute) -> SSAValue:
    """`value` widened to `shuffle_type` (`extendShuffleElemType`), if narrower."""
    if value.type == shuffle_type:
        return value
    t = value.type
    if not isinstance(t, IntegerType):
        raise LoweringError(f"cannot widen {t} to {shuffle_type}")
    v = scalar.cast_to(b, value, scalar.signless(t))
    if t.signedness.data == Signedness.SIGNED:
        return b.create(arith.ExtSIOp(v, cast(IntegerType, shuffle_type))).result
    return b.create(arith.ExtUIOp(v, cast(IntegerType, shuffle_type))).result


def truncate_from_shuffle_type(b: Builder, value: SSAValue, elem: Attribute) -> SSAValue:
    """`value` narrowed back to `elem` (`truncateShuffleElemType`), if wider."""
    if value.type == elem:
        return value
    out = b.create(arith.TruncIOp(value, cast(IntegerType, scalar.signless(elem)))).result
    return scalar.cast_to(b, out, elem)


def warp_all_reduce(
    b: Builder,
    values: list[SSAValue],
    acc: elemental.Accumulator,
    width: int,
) -> list[SSAValue]:
    """Butterfly-reduce each of `values` over `width` lanes: for offset = 1, 2,
    4, ... < width, `v = acc(v, shuffle(v, offset, width))`. Values are
    shuffled in their own type (narrow integers through `i32`)."""
    width_val = i32_const(b, width)
    out = list(values)
    offset = 1
    while offset < width:
        offset_val = i32_const(b, offset)
        shuffled = [shuffle(b, v, offset_val, width_val) for v in out]
        out = [acc(b, v, s) for v, s in zip(out, shuffled, strict=True)]
        offset <<= 1
    return out


def shared_memory(b: Builder, size: int, elem: Attribute) -> SSAValue:
    """`memref.alloc() : memref<size x elem, #gpu.address_space<workgroup>>`."""
    t = memref_type(elem, [size], memory_space=AddressSpaceAttr(AddressSpace.WORKGROUP))
    return b.create(memref.AllocOp([], [], t)).memref


def barrier(b: Builder) -> None:
    """`gpu.barrier`."""
    b.create(BarrierOp())


def align(b: Builder, buffer: SSAValue, tile: int) -> None:
    """`memref.assume_alignment %buffer, bytes(elem) * tile` (`createAlignMemrefWithTile`)."""
    width = _bit_width(elemental.element_type(buffer))
    b.create(AssumeAlignmentOp(buffer, max(1, width // 8) * tile))


#: `memref.atomic_rmw` kinds of single-op reduce bodies: (float, signed, unsigned)
_ATOMIC_KINDS: dict[str, tuple[str | None, str, str]] = {
    "lmhlo.add": ("addf", "addi", "addi"),
    "lmhlo.multiply": ("mulf", "muli", "muli"),
    "lmhlo.maximum": ("maximumf", "maxs", "maxu"),
    "lmhlo.minimum": ("minimumf", "mins", "minu"),
    "lmhlo.and": (None, "andi", "andi"),
    "lmhlo.or": (None, "ori", "ori"),
}


def atomic_kind(reduce: Operation) -> str:
    """The `memref.atomic_rmw` kind of `reduce`'s body (`getAtomicRMWKind`)."""
    calc = elemental.reduce_operator(reduce.regions[0])
    t = elemental.element_type(calc.operands[-1])
    is_float = isinstance(t, _FLOATS)
    unsigned = isinstance(t, IntegerType) and t.signedness.data == Signedness.UNSIGNED
    kinds = _ATOMIC_KINDS.get(calc.name)
    kind = None if kinds is None else kinds[0] if is_float else kinds[2] if unsigned else kinds[1]
    if kind is None:
        raise LoweringError(f"no atomic operation for a '{calc.name}' reduction")
    return kind


def _has_atomic_kind(reduce: Operation) -> bool:
    """Whether `reduce`'s body is a single op that `atomic_kind` maps (an `xor`, or a
    body of several ops, accumulates through a compare-and-swap loop instead)."""
    body = reduce.regions[0]
    computing = [op for op in preorder_ops(body) if op.name not in elemental.REDUCE_BODY_SKIP]
    if len(computing) != 1:
        return False
    try:
        atomic_kind(reduce)
    except LoweringError:
        return False
    return True


def atomic_accumulate(
    b: Builder, reduce: Operation, value: SSAValue, index: list[SSAValue]
) -> None:
    """`memref.atomic_rmw <kind> %value, %out[index]` into `reduce`'s output;
    for a body without an atomic kind (several ops, e.g. a log-add-exp), a
    `memref.generic_atomic_rmw` (a compare-and-swap loop) applying the body
    to the current value and `value`."""
    out = reduce.operands[-1]
    if not _has_atomic_kind(reduce):
        generic = b.create(GenericAtomicRMWOp(out, index))
        body = elemental.at_end(generic.atomic_body.block)
        updated = elemental.accumulator(reduce)(body, generic.current_value, value)
        body.create(AtomicYieldOp(updated))
        return
    kind = ATOMIC_RMW_KINDS.index(atomic_kind(reduce))
    b.create(
        AtomicRMWOp.build(
            operands=[value, out, index],
            result_types=[value.type],
            properties={"kind": IntegerAttr(kind, i64)},
        )
    )


__all__ = [
    "WARP_SIZE",
    "align",
    "atomic_accumulate",
    "atomic_kind",
    "barrier",
    "extend_to_shuffle_type",
    "i32_const",
    "reduce_element_type",
    "shared_memory",
    "shuffle",
    "shuffle_element_type",
    "truncate_from_shuffle_type",
    "warp_all_reduce",
]
