"""What compiled code assumes about the dimensions of its entry function's inputs.

The shape simplifier proves dimensions equal (`x @ w` needs `x.shape[1] ==
w.shape[0]`) or static, and after bufferization the entry function states it
by re-typing each argument with the dimension values it may use:

    %d1 = memref.dim %arg0, %c1 : memref<?x?xf32>
    %w  = memref.reinterpret_cast %arg1 to offset: [0], sizes: [%d1, %d2], strides: [...]

Generated code then indexes `w` with `x`'s dimension, so inputs that break
such a fact would be read out of bounds. `entry_dim_constraints(func)`
collects the facts from a bufferized entry function: groups of argument
dimensions that must be equal, each maybe with the constant it must be.
`DimConstraints.check` tests concrete input shapes against them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.dialects import memref
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerAttr
from xdsl.ir import BlockArgument, Operation, SSAValue

from disc_ir.ir.walk import preorder_ops

DYNAMIC = DYNAMIC_INDEX  # MLIR's ShapedType::kDynamic in static_sizes


@dataclass(frozen=True)
class DimRef:
    """Dimension `dim` of entry input `arg`."""

    arg: int
    dim: int


@dataclass
class DimConstraints:
    """Groups of input dimensions that must be equal, each maybe with a required value."""

    groups: list[tuple[list[DimRef], int | None]] = field(default_factory=list)

    def check(self, shapes: list[tuple[int, ...]]) -> tuple[DimRef, int, DimRef | None, int] | None:
        """The first violated fact for these input shapes, else None.

        Returns `(ref, actual, other, expected)`: dimension `ref` is `actual`
        but must be `expected`, the value of `other` (None: a constant).
        """
        for refs, value in self.groups:
            present = [r for r in refs if r.arg < len(shapes) and r.dim < len(shapes[r.arg])]
            if value is not None:
                for r in present:
                    if shapes[r.arg][r.dim] != value:
                        return r, shapes[r.arg][r.dim], None, value
                continue
            if not present:
                continue
            first = present[0]
            expected = shapes[first.arg][first.dim]
            for r in present[1:]:
                if shapes[r.arg][r.dim] != expected:
                    return r, shapes[r.arg][r.dim], first, expected
        return None


class _UnionFind:
    def __init__(self) -> None:
        self.parent: dict[DimRef, DimRef] = {}
        self.value: dict[DimRef, int] = {}

    def find(self, x: DimRef) -> DimRef:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: DimRef, b: DimRef) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return
        # keep the smaller (earlier) reference as the root: messages name it
        if (rb.arg, rb.dim) < (ra.arg, ra.dim):
            ra, rb = rb, ra
        self.parent[rb] = ra
        if rb in self.value:
            self.value.setdefault(ra, self.value.pop(rb))

    def set_value(self, a: DimRef, value: int) -> None:
        self.value.setdefault(self.find(a), value)


def _constant_index(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, Operation) and op.name == "arith.constant":
        attr = op.properties.get("value")
        if attr is None:  # not `or`: a zero IntegerAttr is falsy
            attr = op.attributes.get("value")
        if isinstance(attr, IntegerAttr):
            return attr.value.data
    return None


def _dim_of_arg(value: SSAValue, entry_args: dict[SSAValue, int]) -> DimRef | None:
    """`memref.dim %argN, %cK` (or `tensor.dim`) -> DimRef(N, K)."""
    op = value.owner
    if not isinstance(op, Operation) or op.name not in ("memref.dim", "tensor.dim"):
        return None
    source, index = op.operands[0], op.operands[1]
    arg = entry_args.get(source)
    k = _constant_index(index)
    if arg is None or k is None:
        return None
    return DimRef(arg, k)


def entry_dim_constraints(func: Operation) -> DimConstraints:
    """The dimension facts the bufferized entry function `func` relies on."""
    uf = _UnionFind()
    body = func.regions[0].blocks[0] if func.regions and func.regions[0].blocks else None
    if body is None:
        return DimConstraints()
    entry_args: dict[SSAValue, int] = {
        a: a.index for a in body.args if isinstance(a, BlockArgument)
    }
    for op in preorder_ops(func):
        if not isinstance(op, memref.ReinterpretCastOp) or op.source not in entry_args:
            continue
        arg = entry_args[op.source]
        sizes = list(op.static_sizes.get_values())
        dynamic_sizes = iter(op.sizes)
        for d, size in enumerate(sizes):
            here = DimRef(arg, d)
            uf.find(here)
            if size != DYNAMIC:
                uf.set_value(here, size)
                continue
            operand = next(dynamic_sizes, None)
            if operand is None:
                break
            other = _dim_of_arg(operand, entry_args)
            if other is not None:
                uf.union(here, other)
                continue
            k = _constant_index(operand)
            if k is not None:
                uf.set_value(here, k)
    groups: dict[DimRef, list[DimRef]] = {}
    for ref in list(uf.parent):
        groups.setdefault(uf.find(ref), []).append(ref)
    out = DimConstraints()
    for root, refs in groups.items():
        value = uf.value.get(root)
        if len(refs) > 1 or value is not None:
            refs.sort(key=lambda r: (r.arg, r.dim))
            out.groups.append((refs, value))
    out.groups.sort(key=lambda g: (g[0][0].arg, g[0][0].dim))
    return out


__all__ = ["DimConstraints", "DimRef", "entry_dim_constraints"]
