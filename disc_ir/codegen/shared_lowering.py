"""Lower each set of identical CPU fusions once (a disc-ir compile-time optimization).

The layers of a transformer give the same fusions over and over: the same
lmhlo ops on buffers of the same types and the same shape facts. The CPU
code generation passes (`disc-lhlo-legalize-roots-to-parallel-loops` to
`disc-merge-identical-kernels`) would lower each copy, and the kernel merge
would then keep one kernel of each set. Two passes around that range of the
CPU pipeline lower one fusion of each set instead:

* `share_fusion_lowering(module)` (pass `disc-mark-shared-fusion-lowering`,
  before the first code generation pass) groups the `lmhlo.fusion` ops of each function by a *lowering key*. The
  first fusion of a group (program order) is its representative; every
  other one gets the `disc.fusion.lowered_as` attribute (the
  representative's `disc.fusion.name`), which the code generation passes
  skip (`is_shared_duplicate`).
* `SharedLowering.instantiate()` (pass `disc-instantiate-shared-fusion-lowering`,
  after the kernel merge) gives each
  duplicate a copy of its representative's lowered body, every value the
  body takes from outside mapped to the duplicate's own: the buffers by
  position (the order of first use in the unlowered bodies), values
  computed from them outside the fusion (constants, `memref.dim`, index
  arithmetic that CSE shared with host code) recomputed before the
  duplicate. The copies launch the representative's kernels, as the kernel
  merge would have made them do.

The lowering key is what the code generation of a fusion reads: the
fusion's attributes but its name; its body, structurally (ops, operands
numbered by first definition / use, types, attributes, properties, nested
regions); per outside value: its type, its dims as the shape analysis
knows them (classes of equal dims numbered by first appearance, constants),
for the buffers it writes, whether they have readers outside the fusion (and
whether those are copies of the same named fusion); which pairs of outside values provably hold as
many elements. Fusions with equal keys lower to the same code but for the
outside values it names.

When a duplicate cannot take the copy (a value the lowered body uses cannot
be mapped: it is not an input of the fusion, nor recomputable before the
duplicate), `instantiate` raises `SharingFailed`, and the drivers (disc-opt,
`disc_ir.compile`) run the pipeline again without the two passes
(`disc_ir.pipeline.with_sharing_fallback`);
`DISC_SHARE_FUSION_LOWERING=0` leaves them out of the pipeline.

The marking pass `hold`s the `SharedLowering` for its module (a weak
reference: a module dropped mid-pipeline frees it) and the instantiating
pass `take`s it: the representatives and the values their bodies used before
lowering are not in the IR.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, MemRefType, StringAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue
from xdsl.traits import is_side_effect_free
from xdsl.utils.exceptions import DiagnosticException

from disc_ir import config
from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.fusion.pattern import (
    fusion_name,
    in_same_fusion_family,
    output_operands,
    parent_fusion,
    value_users,
)
from disc_ir.ir.structural_key import StructuralKey, append_structure
from disc_ir.ir.walk import preorder_ops


class SharingFailed(DiagnosticException):
    """A duplicate fusion could not take its representative's lowering: the
    drivers run again without sharing (`disc_ir.pipeline.with_sharing_fallback`)."""


#: on a duplicate fusion: the name of the fusion whose lowering it will take
LOWERED_AS_ATTR = "disc.fusion.lowered_as"
#: set to 0 to lower every fusion by itself
SHARE_ENV = "DISC_SHARE_FUSION_LOWERING"
_NAME_KEY = "disc.fusion.name"


def sharing_enabled() -> bool:
    """Whether the CPU pipeline shares fusion lowerings (`DISC_SHARE_FUSION_LOWERING`,
    default on)."""
    return config.flag(SHARE_ENV)


def is_shared_duplicate(fusion: Operation) -> bool:
    """Whether `fusion` waits for a copy of another fusion's lowering (skip it)."""
    return LOWERED_AS_ATTR in fusion.attributes


def outside_values(op: Operation) -> list[SSAValue]:
    """The values used under `op`'s regions but defined outside them, in order of first use."""
    inside: set[SSAValue] = set()
    seen: set[SSAValue] = set()
    out: list[SSAValue] = []

    def region(r: Region) -> None:
        for b in r.blocks:
            inside.update(b.args)
            for o in b.ops:
                for v in o.operands:
                    if v not in inside and v not in seen:
                        seen.add(v)
                        out.append(v)
                inside.update(o.results)
                for inner in o.regions:
                    region(inner)

    for r in op.regions:
        region(r)
    return out


def _norm(attr: Any) -> Any:
    cls = attr.__class__
    if cls is ArrayAttr:
        return ("[]", tuple(_norm(a) for a in attr.data))
    if cls is DictionaryAttr:
        return ("{}", tuple(sorted((k, _norm(a)) for k, a in attr.data.items())))
    return attr


def _body_key(fusion: Operation) -> tuple[StructuralKey | None, list[SSAValue]]:
    """(the structure of `fusion`, its attributes but its name; its outside values in
    order of first use). None when some attribute is not hashable."""
    outside: list[SSAValue] = []

    def number(v: SSAValue) -> Any:
        outside.append(v)
        return ("out", len(outside) - 1)

    items: list[Any] = [
        tuple(sorted((k, _norm(v)) for k, v in fusion.attributes.items() if k != _NAME_KEY))
    ]
    append_structure(items, fusion.regions, _norm, number)
    try:
        return StructuralKey(tuple(items)), outside
    except TypeError:
        return None, outside


def _outside_facts(
    fusion: Operation, outside: list[SSAValue], sa: ShapeAnalysis
) -> tuple[Any, ...]:
    """What the code generation may know of `fusion`'s outside values (see the module docs)."""
    body = fusion.regions[0]
    first = next(iter(body.walk()), None)
    written = {v for op in preorder_ops(body) for v in output_operands(op)}
    facts: list[Any] = []
    dynamic: list[int] = []
    for i, v in enumerate(outside):
        t = v.type
        dims: Any = None
        if isinstance(t, MemRefType):
            sym = sa.symbolic_dims(v)
            if sym is not None:
                dims = tuple(d.value if d.value is not None else ("d", d.id) for d in sym)
                if any(not isinstance(d, int) for d in dims):
                    dynamic.append(i)
        readers = None
        if v in written:  # a result when read outside (but by copies of the same fusion)
            readers = frozenset(
                first is not None and in_same_fusion_family(u, first)
                for u in value_users(v)
                if not body.is_ancestor(u)
            )
        facts.append((t, dims, readers))
    return (tuple(facts), _same_num_elements_pairs(outside, dynamic, sa))


def _same_num_elements_pairs(
    values: list[SSAValue], indices: list[int], sa: ShapeAnalysis
) -> tuple[tuple[int, int], ...]:
    """The pairs (a, b), a before b in `indices`, of distinct values (a
    fusion's outside values are numbered once each) provably holding as many
    elements (`is_same_num_elements`), asked once per pair of the values'
    element classes: a large fusion's outside values fall in a few."""
    classes = [sa.elements_class(values[i]) for i in indices]
    answers: dict[tuple[Any, Any], bool] = {}
    same: list[tuple[int, int]] = []
    for k, a in enumerate(indices):
        ca = classes[k]
        for m in range(k + 1, len(indices)):
            b = indices[m]
            key = (ca, classes[m])
            ok = answers.get(key)
            if ok is None:
                ok = answers[key] = sa.same_elements_class(ca, classes[m])
            if ok:
                same.append((a, b))
    return tuple(same)


def lowering_key(body: StructuralKey, facts: tuple[Any, ...]) -> StructuralKey:
    """The lowering key of a fusion: its body's structure (`_body_key`) and the facts
    of its outside values (`_outside_facts`)."""
    return StructuralKey((body, facts))


@dataclass
class _Duplicate:
    fusion: Operation
    rep: Operation
    rep_outside: list[SSAValue]


class _Positions:
    """Op positions in blocks, computed once per block (insertions keep the relative order)."""

    def __init__(self) -> None:
        self._index: dict[Block, dict[Operation, int]] = {}

    def before(self, op: Operation, other: Operation) -> bool:
        block = op.parent_block()
        index = self._index.get(block) if block is not None else None
        if index is None and block is not None:
            index = self._index[block] = {o: i for i, o in enumerate(block.ops)}
        assert index is not None
        i, j = index.get(op), index.get(other)
        return i is not None and j is not None and i < j


def _sizes_only(v: SSAValue, rep: Operation, via: Operation | None) -> bool:
    """Whether `v` is read for its sizes only (`memref.dim`): by `via` (an op
    recomputed before a duplicate), else by the ops under `rep`."""
    if via is not None:
        return via.name == "memref.dim"
    body = rep.regions[0]
    return all(
        u.operation.name == "memref.dim" for u in v.uses if not body.is_ancestor(u.operation)
    )


def _alive(v: SSAValue) -> bool:
    if isinstance(v, OpResult):
        return v.op.parent is not None
    assert isinstance(v, BlockArgument)
    return v.block.parent is not None


class SharedLowering:
    """The duplicates marked by `share_fusion_lowering`, to be given their lowerings."""

    def __init__(self, duplicates: list[_Duplicate]) -> None:
        self.duplicates = duplicates
        self._positions = _Positions()

    def instantiate(self) -> None:
        """Give every duplicate a copy of its representative's lowered body."""
        for dup in self.duplicates:
            self._instantiate(dup)
        self.duplicates = []

    def _instantiate(self, dup: _Duplicate) -> None:
        fusion, rep = dup.fusion, dup.rep
        mine = outside_values(fusion)
        if len(mine) != len(dup.rep_outside):
            raise SharingFailed(f"{fusion_name(fusion)}: its inputs changed")
        vmap: dict[SSAValue, SSAValue] = {}
        for r, d in zip(dup.rep_outside, mine, strict=True):
            if not _alive(r):
                continue  # erased with the last use the lowering left (a buffer inlined away)
            if r.type != d.type:
                raise SharingFailed(f"{fusion_name(fusion)}: the type of an input changed")
            vmap[r] = d
        for v in outside_values(rep):
            self._resolve(v, vmap, fusion, rep)
        block = fusion.regions[0].block
        for old in list(block.ops):
            old.detach()
            old.erase(safe_erase=False)
        for op in rep.regions[0].block.ops:
            block.add_op(op.clone(value_mapper=vmap))
        del fusion.attributes[LOWERED_AS_ATTR]

    def _resolve(
        self,
        v: SSAValue,
        vmap: dict[SSAValue, SSAValue],
        at: Operation,
        rep: Operation,
        via: Operation | None = None,
    ) -> SSAValue:
        """The value standing for `v` before `at` (recomputed there if needed)."""
        found = vmap.get(v)
        if found is not None:
            return found
        if isinstance(v, BlockArgument):
            if v.block.find_ancestor_op_in_block(at) is None:
                raise SharingFailed(f"{fusion_name(at)}: a block argument out of reach")
            vmap[v] = v
            return v
        assert isinstance(v, OpResult)
        op = v.op
        block = op.parent_block()
        anchor = block.find_ancestor_op_in_block(at) if block is not None else None
        dominates = anchor is not None and self._positions.before(op, anchor)
        if op.regions or not is_side_effect_free(op):
            # Not an input, so the lowering may only have taken its sizes
            # (dims of the classes of the inputs', the duplicate's too: the
            # key has the classes).
            if not dominates or not _sizes_only(v, rep, via):
                raise SharingFailed(f"{fusion_name(at)}: uses '{op.name}' from outside")
            vmap[v] = v
            return v
        operands = [self._resolve(x, vmap, at, rep, op) for x in op.operands]
        if dominates and all(a is b for a, b in zip(operands, op.operands, strict=True)):
            for res in op.results:
                vmap[res] = res
            return v
        clone = op.clone(value_mapper=vmap)
        parent = at.parent_block()
        assert parent is not None
        parent.insert_op_before(clone, at)
        return vmap[v]


def _fusions(f: func.FuncOp) -> Iterable[Operation]:
    return (op for op in preorder_ops(f) if op.name == "lmhlo.fusion" and op.regions[0].blocks)


def _candidates(f: func.FuncOp) -> list[list[tuple[Operation, StructuralKey, list[SSAValue]]]]:
    """The fusions of `f` (not nested ones) grouped by body structure, groups of two
    or more only, in program order: (fusion, body key, outside values)."""
    groups: dict[StructuralKey, list[tuple[Operation, StructuralKey, list[SSAValue]]]] = {}
    for fusion in _fusions(f):
        if parent_fusion(fusion) is not None or any(
            o.name == "lmhlo.fusion" for o in preorder_ops(fusion.regions[0])
        ):
            continue  # nested fusions are lowered by themselves
        body, outside = _body_key(fusion)
        if body is not None:
            groups.setdefault(body, []).append((fusion, body, outside))
    return [g for g in groups.values() if len(g) > 1]


def share_fusion_lowering(module: Operation) -> SharedLowering:
    """Mark the duplicate fusions of `module`'s functions (see the module docs).

    The shape analysis (the costly part) runs only for functions where some
    fusions have the same body structure.
    """
    duplicates: list[_Duplicate] = []
    for f in preorder_ops(module):
        if not isinstance(f, func.FuncOp) or not f.body.blocks:
            continue
        groups = _candidates(f)
        if not groups:
            continue
        sa = ShapeAnalysis(f)
        for group in groups:
            first: dict[StructuralKey, tuple[Operation, list[SSAValue]]] = {}
            for fusion, body, outside in group:
                key = lowering_key(body, _outside_facts(fusion, outside, sa))
                rep, rep_outside = first.setdefault(key, (fusion, outside))
                if rep is fusion:
                    continue
                fusion.attributes[LOWERED_AS_ATTR] = StringAttr(fusion_name(rep))
                duplicates.append(_Duplicate(fusion, rep, rep_outside))
    return SharedLowering(duplicates)


#: the marks of each module between the marking pass and the instantiating one
_HELD: weakref.WeakKeyDictionary[Operation, SharedLowering] = weakref.WeakKeyDictionary()


def hold(module: Operation, shared: SharedLowering) -> None:
    """Keep `shared` (the marks just made in `module`) for `take`."""
    _HELD[module] = shared


def take(module: Operation) -> SharedLowering | None:
    """The `SharedLowering` held for `module` (then no longer held); None if none is."""
    return _HELD.pop(module, None)


__all__ = [
    "LOWERED_AS_ATTR",
    "SHARE_ENV",
    "SharedLowering",
    "SharingFailed",
    "is_shared_duplicate",
    "lowering_key",
    "outside_values",
    "share_fusion_lowering",
    "hold",
    "sharing_enabled",
    "take",
]
