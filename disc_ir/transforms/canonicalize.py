"""`canonicalize`: MLIR's canonicalizer on xDSL's rewriting machinery.

The pass applies, greedily and to a fixed point, what MLIR's Canonicalizer
applies: dead op removal, op folding (`disc_ir.transforms.folding.fold_op`,
falling back to xDSL's `HasFolder` hooks), and the canonicalization patterns
of each op (disc-ir's own for arith/scf/memref/tensor in
`disc_ir.transforms.patterns`, xDSL's `HasCanonicalizationPatternsTrait`
patterns for every other dialect).

It follows MLIR's GreedyPatternRewriteDriver and OperationFolder:

- the worklist is filled top-down (pre-order, processed in order) or
  bottom-up (post-order) and popped from the back; ops touched by a rewrite
  are pushed again (users of replaced results, single-use operand producers of
  erased ops, inserted and modified ops);
- constants (any op with the `ConstantLike` trait) are uniqued per
  isolated-from-above region, keyed by (dialect, value, type), and hoisted to
  the start of the region's entry block: a constant met while filling the
  worklist is either replaced by the one already known or moved to the front
  of the entry block (kept in place when it already sits in the leading run
  of known constants there); constants made by folding are created at the
  front of the entry block;
- after each sweep, when region simplification is on, dead code is removed
  from the regions (cyclic dead values and unused block ops included); the
  sweeps repeat while something changes, at most `max-iterations` times.
"""

from __future__ import annotations

import math
import struct
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import FloatAttr, IntegerAttr
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.post_order import PostOrderIterator
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.traits import (
    Commutative,
    HasCanonicalizationPatternsTrait,
    IsolatedFromAbove,
    IsTerminator,
    SymbolOpInterface,
)
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.ir.fingerprint import FixedPoints
from disc_ir.ir.trait_cache import (
    has_trait,
    is_pure_class,
    only_reads_or_allocates,
    removal_is_class_constant,
)
from disc_ir.transforms.folding import (
    constant_value,
    materialize_constant,
    move_constants_right,
    operand_constants,
)
from disc_ir.transforms.folding.core import (
    _CONSTANT_KIND,
    _constant_kind,
    fold_in_place,
    fold_with_constants,
    may_fold,
)
from disc_ir.transforms.folding.ints import int_value, to_signed
from disc_ir.transforms.patterns import OWN_DIALECTS, canonicalization_patterns
from disc_ir.transforms.patterns.utils import erase_op
from disc_ir.transforms.registry import register_pass

# --------------------------------------------------------------------------
# dead ops


#: per op class: a terminator or a symbol (never trivially dead)
_KEPT_CLASS: dict[type[Operation], bool] = {}


def _kept_class(op: Operation) -> bool:
    cls = type(op)
    kept = _KEPT_CLASS.get(cls)
    if kept is None:
        kept = has_trait(op, IsTerminator, value_if_unregistered=False) or has_trait(
            op, SymbolOpInterface, value_if_unregistered=False
        )
        _KEPT_CLASS[cls] = kept
    return kept


def would_be_trivially_dead(op: Operation) -> bool:
    """MLIR's wouldOpBeTriviallyDead: removing `op` is unobservable once its results are unused.

    Terminators and symbols are kept; otherwise `op` (with everything nested in
    it) may only read memory or allocate values it defines itself. An
    allocation effect without a value (xDSL's `MemoryAllocEffect` trait) is on
    the op's own results, as in MLIR.
    """
    if _kept_class(op):
        return False
    if not op.regions and is_pure_class(op):
        return True  # no effects at all (what get_effects would find)
    return only_reads_or_allocates(op, alloc_without_value=True)


def is_trivially_dead(op: Operation) -> bool:
    """MLIR's isOpTriviallyDead: no result is used and the op would be trivially dead."""
    for result in op.results:
        if result.first_use is not None:
            return False
    return would_be_trivially_dead(op)


# --------------------------------------------------------------------------
# region dead code elimination


#: per op class whose answer is the class's: `_dead_if_unused`
_DEAD_IF_UNUSED_CLASS: dict[type[Operation], bool] = {}


def _dead_if_unused(op: Operation) -> bool:
    """xDSL's would_be_trivially_dead (its allocation rule, not MLIR's)."""
    cls = type(op)
    dead = _DEAD_IF_UNUSED_CLASS.get(cls)
    if dead is not None:
        return dead
    if _kept_class(op):
        _DEAD_IF_UNUSED_CLASS[cls] = False
        return False
    dead = only_reads_or_allocates(op, alloc_without_value=False)
    if removal_is_class_constant(op, alloc_without_value=False):
        _DEAD_IF_UNUSED_CLASS[cls] = dead
    return dead


def is_trivially_dead_as_xdsl(op: Operation) -> bool:
    """xDSL's `is_trivially_dead` (its allocation rule), as its greedy
    pattern applier erases ops: no result is used and the op has no effect
    beyond reading or allocating what it defines."""
    for result in op.results:
        if result.first_use is not None:
            return False
    return _dead_if_unused(op)


def _collect_liveness_roots(region: Region, visited: set[int], roots: list[Operation]) -> None:
    """The ids of the ops xDSL's `LiveSet` visits in `region` (blocks reachable
    from the entry, nested regions likewise) into `visited`; those live
    whatever their uses (not dead if unused) into `roots`."""
    first = region._first_block  # pyright: ignore[reportPrivateUsage]
    if first is None:
        return
    blocks = (first,) if first._next_block is None else PostOrderIterator(first)  # pyright: ignore[reportPrivateUsage]
    for block in blocks:
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            visited.add(id(op))
            for nested in op.regions:
                _collect_liveness_roots(nested, visited, roots)
            if not _dead_if_unused(op):
                roots.append(op)
            op = op._next_op  # pyright: ignore[reportPrivateUsage]


def _delete_dead(region: Region, live: set[int], listener: PatternRewriterListener | None) -> bool:
    """xDSL's `LiveSet.delete_dead` for the live set `live` (op ids): erase the
    non-entry blocks without live ops and the ops not live, innermost regions of
    live ops likewise, last block and last op first; returns whether it erased any."""
    first = region._first_block  # pyright: ignore[reportPrivateUsage]
    if first is None:
        return False
    changed = False
    block = region._last_block  # pyright: ignore[reportPrivateUsage]
    while block is not None:
        prev_block = block._prev_block  # pyright: ignore[reportPrivateUsage]
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None and id(op) not in live:
            op = op._next_op  # pyright: ignore[reportPrivateUsage]
        if op is None and block is not first:
            changed = True
            region.erase_block(block, safe_erase=False)
        else:
            op = block._last_op  # pyright: ignore[reportPrivateUsage]
            while op is not None:
                prev_op = op._prev_op  # pyright: ignore[reportPrivateUsage]
                if id(op) not in live:
                    changed = True
                    if listener is not None:
                        listener.handle_operation_removal(op)
                    block.erase_op(op, safe_erase=False)
                else:
                    for nested in op.regions:
                        changed |= _delete_dead(nested, live, listener)
                op = prev_op
        block = prev_block
    return changed


def region_dce(region: Region, listener: PatternRewriterListener | None = None) -> bool:
    """xDSL's `region_dce`: erase the ops (and non-entry blocks) of `region` that
    nothing live uses, cyclic dead values included; returns whether it erased any.

    The live set is the least fixed point xDSL's `LiveSet` iterates to (an op
    it visits is live when it is not dead if unused, or a live op uses one of
    its results), computed in one sweep: the roots, then the producers of the
    live ops' operands, transitively. Ops are keyed by id: every op is held by
    the IR while the set is in use.
    """
    visited: set[int] = set()
    stack: list[Operation] = []
    _collect_liveness_roots(region, visited, stack)
    live = {id(op) for op in stack}
    while stack:
        op = stack.pop()
        for value in op._operands:  # pyright: ignore[reportPrivateUsage]
            if isinstance(value, OpResult):
                producer = value.op
                key = id(producer)
                if key not in live and key in visited:
                    live.add(key)
                    stack.append(producer)
    return _delete_dead(region, live, listener)


# --------------------------------------------------------------------------
# the constant folder


def _attr_key(attr: Attribute) -> object:
    """A hashable key identifying a constant value exactly (-0.0 != 0.0, i8 255 == -1)."""
    if isinstance(attr, IntegerAttr) and (iv := int_value(attr)) is not None:
        return ("int", to_signed(*iv), attr.type)
    if isinstance(attr, FloatAttr):
        value = attr.value.data
        bits = struct.pack("<d", value) if not math.isnan(value) else b"nan"
        return ("float", bits, attr.type)
    return attr


def insertion_region(block: Block) -> Region:
    """The region constants for ops in `block` go to: the closest isolated-from-above one.

    A region whose parent op is isolated from above (or unregistered), or is a
    top-level op, takes the constants (MLIR's getInsertionRegion).
    """
    while True:
        region = block.parent
        assert region is not None, "block outside of any region"
        parent = region.parent
        if parent is None:
            return region
        if (
            has_trait(parent, IsolatedFromAbove, value_if_unregistered=True)
            or parent.parent is None
        ):
            return region
        assert parent.parent is not None
        block = parent.parent


ConstKey = tuple[str, object, Attribute]

#: the instance fields of an xDSL `PatternRewriter` the driver sets directly;
#: `_REWRITER_FIELDS` records (on first use) whether xDSL's rewriter has
#: exactly these, else the driver builds rewriters with xDSL's constructor
_FAST_REWRITER_FIELDS = frozenset(
    {
        "operation_insertion_handler",
        "block_creation_handler",
        "operation_removal_handler",
        "operation_modification_handler",
        "operation_replacement_handler",
        "_current_operation",
        "insertion_point",
        "_name_hint",
    }
)
_REWRITER_FIELDS: bool | None = None
_UNKNOWN = object()


@dataclass
class ConstantFolder:
    """MLIR's OperationFolder: folds ops and keeps constants uniqued and hoisted."""

    ctx: Context | None
    scopes: dict[Region, dict[ConstKey, Operation]] = field(default_factory=dict)
    owned: dict[Operation, list[str]] = field(default_factory=dict)
    on_insert: Callable[[Operation], None] | None = None
    on_erase: Callable[[Operation], None] | None = None
    #: how many times the folder changed the IR (moved, created or erased an op)
    changes: int = 0

    def is_owned(self, op: Operation | None) -> bool:
        return op is not None and op in self.owned

    def _key(self, dialect: str, value: Attribute, type_: Attribute) -> ConstKey:
        return (dialect, _attr_key(value), type_)

    def _rehoist(self, op: Operation) -> None:
        block = op.parent_block()
        assert block is not None
        if block.first_op is not op and not self.is_owned(op.prev_op):
            _move_to_front(op, block)
            self.changes += 1

    def insert_known_constant(self, op: Operation, value: Attribute | None = None) -> bool:
        """Register the constant `op`; returns False when it was replaced by a known one."""
        block = op.parent_block()
        assert block is not None
        if self.is_owned(op):
            self._rehoist(op)
            return True
        if value is None:
            value = constant_value(op.results[0])
            assert value is not None, "expected a constant op"
        region = insertion_region(block)
        uniqued = self.scopes.setdefault(region, {})
        key = self._key(op.dialect_name(), value, op.results[0].type)
        existing = uniqued.get(key)
        if existing is not None:
            self._replace(op, list(existing.results))
            return False
        entry = region.blocks.first
        assert entry is not None
        if block is not entry or (entry.first_op is not op and not self.is_owned(op.prev_op)):
            _move_to_front(op, entry)
            self.changes += 1
        uniqued[key] = op
        self.owned[op] = [op.dialect_name()]
        return True

    def notify_removal(self, op: Operation) -> None:
        """Forget `op` if it is a constant this folder uniqued."""
        dialects = self.owned.pop(op, None)
        if dialects is None:
            return
        value = constant_value(op.results[0])
        block = op.parent_block()
        if value is None or block is None:
            return
        uniqued = self.scopes.get(insertion_region(block), {})
        for dialect in dialects:
            key = self._key(dialect, value, op.results[0].type)
            if uniqued.get(key) is op:
                del uniqued[key]

    def _replace(self, op: Operation, values: Sequence[SSAValue]) -> None:
        for old, new in zip(op.results, values, strict=True):
            old.replace_all_uses_with(new)
        if self.on_erase is not None:
            self.on_erase(op)
        self.notify_removal(op)
        erase_op(op)
        self.changes += 1

    def get_or_create_constant(
        self, region: Region, dialect: str, value: Attribute, type_: Attribute
    ) -> Operation | None:
        """The uniqued constant of `value` in `region`, materialized at the entry's front if new."""
        uniqued = self.scopes.setdefault(region, {})
        key = self._key(dialect, value, type_)
        if (existing := uniqued.get(key)) is not None:
            return existing
        new = materialize_constant(dialect, value, type_, self.ctx)
        if new is None:
            return None
        entry = region.blocks.first
        assert entry is not None
        _insert_at_front(new, entry)
        self.changes += 1
        if self.on_insert is not None:
            self.on_insert(new)
        new_dialect = new.dialect_name()
        if new_dialect == dialect:
            uniqued[key] = new
            self.owned[new] = [dialect]
            return new
        new_key = self._key(new_dialect, value, type_)
        if (existing := uniqued.get(new_key)) is not None:
            if self.on_erase is not None:
                self.on_erase(new)
            erase_op(new)
            self.changes += 1
            uniqued[key] = existing
            self.owned.setdefault(existing, []).append(dialect)
            return existing
        uniqued[key] = new
        uniqued[new_key] = new
        self.owned[new] = [dialect, new_dialect]
        return new

    def try_to_fold(self, op: Operation) -> tuple[list[SSAValue] | None, bool]:
        """Fold `op`: (replacement values or None, whether it changed in place)."""
        if self.is_owned(op):
            self._rehoist(op)
            return None, False
        block = op.parent
        assert block is not None
        if _constant_kind(op) is not None:
            value = constant_value(op.results[0]) if len(op.results) == 1 else None
            if value is None:
                return None, False
            region = insertion_region(block)
            existing = self.scopes.setdefault(region, {}).get(
                self._key(op.dialect_name(), value, op.results[0].type)
            )
            if existing is not None:
                return list(existing.results), False
            self.insert_known_constant(op, value)
            return None, True
        moved = move_constants_right(op)
        if not may_fold(op):
            return None, moved  # (moving constants right again would move nothing)
        consts = operand_constants(op)
        folded = fold_with_constants(op, consts)
        if folded is None:
            # what fold_op(op, in_place=True) adds (its folding part would
            # find nothing again: the IR is unchanged)
            in_place = fold_in_place(op, consts)
            return None, moved or in_place
        region = insertion_region(block)
        results: list[SSAValue] = []
        created: list[Operation] = []
        for folded_value, old in zip(folded, op.results, strict=True):
            if isinstance(folded_value, SSAValue):
                if folded_value.type != old.type:
                    return None, moved
                results.append(folded_value)
                continue
            const = self.get_or_create_constant(region, op.dialect_name(), folded_value, old.type)
            if const is None:
                for c in created:
                    if not any(r.uses for r in c.results):
                        self.notify_removal(c)
                        if self.on_erase is not None:
                            self.on_erase(c)
                        erase_op(c)
                        self.changes += 1
                return None, moved
            created.append(const)
            const_block = const.parent_block()
            if const_block is block and block.first_op is not const:
                _move_to_front(const, block)
                self.changes += 1
            results.append(const.results[0])
        return results, False


def _move_to_front(op: Operation, block: Block) -> None:
    op.detach()
    _insert_at_front(op, block)


def _insert_at_front(op: Operation, block: Block) -> None:
    first = block.first_op
    if first is None:
        block.add_op(op)
    else:
        block.insert_op_before(op, first)


# --------------------------------------------------------------------------
# the greedy driver


@dataclass
class GreedyConfig:
    top_down: bool = True
    region_simplify: bool = True
    max_iterations: int = 10
    max_num_rewrites: int = -1


#: per op class: `ConstantFolder.try_to_fold` can do nothing with its ops (not
#: constants, hence never the folder's own; no folder; not commutative)
_NOTHING_TO_FOLD: dict[type[Operation], bool] = {}


def _nothing_to_fold(op: Operation) -> bool:
    inert = (
        _constant_kind(op) is None
        and not may_fold(op)
        and not has_trait(op, Commutative, value_if_unregistered=False)
    )
    _NOTHING_TO_FOLD[type(op)] = inert
    return inert


class GreedyRewriteDriver:
    """MLIR's GreedyPatternRewriteDriver over the regions of one op."""

    def __init__(
        self,
        ctx: Context | None,
        config: GreedyConfig,
        patterns: Callable[[Operation], Sequence[RewritePattern]],
    ):
        self.ctx = ctx
        self.config = config
        self.patterns = patterns
        self.worklist: list[Operation | None] = []
        #: id(op) -> its index in `worklist` (every op it names is held by
        #: `worklist`, so no id is reused while it is there)
        self.worklist_map: dict[int, int] = {}
        self.scope: set[Region] = set()
        #: after `simplify`: its last sweep changed nothing at all (not even a
        #: constant's position), so the IR is a fixed point of the driver
        self.reached_fixed_point = False
        self.folder = ConstantFolder(ctx, on_insert=self.add_to_worklist, on_erase=self._on_remove)
        self.listener = PatternRewriterListener(
            operation_insertion_handler=[self.add_to_worklist],
            operation_removal_handler=[self._on_remove],
            operation_modification_handler=[self.add_to_worklist],
            operation_replacement_handler=[self._on_replace],
        )

    # worklist ------------------------------------------------------------

    def add_to_worklist(self, op: Operation) -> None:
        """Add `op` and its ancestors up to the driven regions (MLIR's addToWorklist)."""
        ancestors = [op]
        current: Operation | None = op
        while current is not None:
            region = current.parent_region()
            if region is None:
                return
            if region in self.scope:
                for a in ancestors:
                    self._add_single(a)
                return
            current = region.parent
            if current is None:
                return
            ancestors.append(current)

    def _add_single(self, op: Operation) -> None:
        key = id(op)
        if key in self.worklist_map:
            return
        self.worklist_map[key] = len(self.worklist)
        self.worklist.append(op)

    def _pop(self) -> Operation | None:
        op = self.worklist.pop()
        if op is not None:
            self.worklist_map.pop(id(op), None)
        return op

    def _remove_from_worklist(self, op: Operation) -> None:
        index = self.worklist_map.pop(id(op), None)
        if index is not None:
            self.worklist[index] = None

    def _add_operands(self, operands: Sequence[SSAValue]) -> None:
        for value in operands:
            if value.first_use is not None and not value.has_one_use():
                continue
            if isinstance(value, OpResult):
                self.add_to_worklist(value.op)

    # listener hooks ------------------------------------------------------

    def _on_remove(self, op: Operation) -> None:
        self._add_operands(list(op.operands))
        for nested in op.walk():
            self._remove_from_worklist(nested)
            self.folder.notify_removal(nested)

    def _on_replace(self, op: Operation, new_results: Sequence[SSAValue | None]) -> None:
        for result in op.results:
            for use in list(result.uses):
                self.add_to_worklist(use.operation)

    # driving -------------------------------------------------------------

    def _populate(self, regions: Sequence[Region]) -> None:
        self.worklist.clear()
        self.worklist_map.clear()
        if self.config.top_down:
            ordered: list[Operation] = []
            for region in regions:
                self._preorder(region, ordered)
            ordered.reverse()
            for op in ordered:
                self._add_single(op)
        else:
            for region in regions:
                for op in list(region.walk()):
                    if op.parent is None:
                        continue
                    if not self._insert_known_constant(op):
                        self.add_to_worklist(op)

    def _preorder(self, region: Region, out: list[Operation]) -> None:
        # the blocks and ops are listed before they are visited: registering a
        # constant may move it to the front of the entry block or erase it
        # (xDSL's private links are read directly: this runs over the whole
        # module on every sweep)
        blocks = _blocks_of(region)
        constant_kind = _CONSTANT_KIND
        for block in blocks:
            ops: list[Operation] = []
            op = block._first_op  # pyright: ignore[reportPrivateUsage]
            while op is not None:
                ops.append(op)
                op = op._next_op  # pyright: ignore[reportPrivateUsage]
            for op in ops:
                if op.parent is None:
                    continue
                kind = constant_kind.get(type(op), _UNKNOWN)
                if kind is not None and self._insert_known_constant(op):
                    continue  # replaced by a known constant: skipped
                out.append(op)
                for nested in op.regions:
                    self._preorder(nested, out)

    def _insert_known_constant(self, op: Operation) -> bool:
        """True when `op` was a duplicate constant and got erased."""
        if _constant_kind(op) is None or len(op.results) != 1:
            return False
        value = constant_value(op.results[0])
        if value is None:
            return False
        return not self.folder.insert_known_constant(op, value)

    def simplify(self, regions: Sequence[Region]) -> bool:
        """Run to a fixed point; returns whether it converged within the iteration limit."""
        self.scope = set(regions)
        changed = True
        iteration = 0
        # whether the IR is unchanged since region simplification last found
        # nothing to do (then running it again would find nothing either)
        regions_clean = False
        self.reached_fixed_point = False
        while changed:
            if self.config.max_iterations >= 0 and iteration >= self.config.max_iterations:
                break
            iteration += 1
            before_populate = self.folder.changes
            self._populate(regions)
            before_process = self.folder.changes
            changed = self._process()
            processed_changed = changed or self.folder.changes != before_process
            if processed_changed or before_process != before_populate:
                regions_clean = False
            simplified = False
            if self.config.region_simplify and not regions_clean:
                simplified = self._simplify_regions(regions)
                changed |= simplified
                regions_clean = not simplified
            # Processing and region simplification found nothing in the IR as it
            # is now; filling the worklist only hoisted / uniqued constants, which
            # leaves them unique at the front of their region's entry block, where
            # filling it again moves nothing: a fresh run would change nothing.
            self.reached_fixed_point = not processed_changed and not simplified
        return not changed

    def _process(self) -> bool:
        changed = False
        num_rewrites = 0
        limit = self.config.max_num_rewrites
        while self.worklist and (limit < 0 or num_rewrites < limit):
            op = self._pop()
            if op is None or op.parent is None:
                continue
            if is_trivially_dead(op):
                self._on_remove(op)
                erase_op(op)
                changed = True
                continue
            inert = _NOTHING_TO_FOLD.get(type(op))
            if inert is None:
                inert = _nothing_to_fold(op)
            if inert:
                # what try_to_fold finds for such an op: nothing
                if self._apply_patterns(op):
                    changed = True
                    num_rewrites += 1
                continue
            original_operands = op._operands  # pyright: ignore[reportPrivateUsage]
            results, in_place = self.folder.try_to_fold(op)
            if results is not None:
                self._add_operands(original_operands)
                self._on_replace(op, results)
                self._on_remove(op)
                for old, new in zip(op.results, results, strict=True):
                    old.replace_all_uses_with(new)
                erase_op(op)
                changed = True
                continue
            if in_place:
                changed = True
                self.add_to_worklist(op)
                if op.parent is None:
                    continue
            if self._apply_patterns(op):
                changed = True
                num_rewrites += 1
        return changed

    def _apply_patterns(self, op: Operation) -> bool:
        for pattern in self.patterns(op):
            rewriter = self._rewriter(op)
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return True
        return False

    def _rewriter(self, op: Operation) -> PatternRewriter:
        """`PatternRewriter(op)` extended from the driver's listener, its fields
        set directly (this runs for every op with patterns on every sweep)."""
        global _REWRITER_FIELDS
        if _REWRITER_FIELDS is None:
            reference = PatternRewriter(op)
            reference.extend_from_listener(self.listener)
            _REWRITER_FIELDS = frozenset(vars(reference)) == _FAST_REWRITER_FIELDS
            return reference
        if not _REWRITER_FIELDS:
            rewriter = PatternRewriter(op)
            rewriter.extend_from_listener(self.listener)
            return rewriter
        rewriter = PatternRewriter.__new__(PatternRewriter)
        fields = vars(rewriter)
        fields["operation_insertion_handler"] = [self.add_to_worklist]
        fields["block_creation_handler"] = []
        fields["operation_removal_handler"] = [self._on_remove]
        fields["operation_modification_handler"] = [self.add_to_worklist]
        fields["operation_replacement_handler"] = [self._on_replace]
        fields["_current_operation"] = op
        fields["insertion_point"] = InsertPoint.before(op)
        fields["_name_hint"] = None
        fields["has_done_action"] = False
        return rewriter

    def _simplify_regions(self, regions: Sequence[Region]) -> bool:
        changed = False
        for region in regions:
            changed |= _erase_unreachable_blocks(region, self._on_remove)
            changed |= region_dce(region, self.listener)
        return changed


def _blocks_of(region: Region) -> list[Block]:
    """The blocks of `region`, listed from xDSL's private links (faster than `region.blocks`)."""
    blocks: list[Block] = []
    block = region._first_block  # pyright: ignore[reportPrivateUsage]
    while block is not None:
        blocks.append(block)
        block = block._next_block  # pyright: ignore[reportPrivateUsage]
    return blocks


def _erase_unreachable_blocks(region: Region, on_remove: Callable[[Operation], None]) -> bool:
    """Erase blocks (in this region and nested ones) no path from the entry reaches."""
    changed = _erase_unreachable_nested(region, on_remove)
    changed |= _erase_unreachable_in(region, on_remove)
    return changed


def _erase_unreachable_nested(region: Region, on_remove: Callable[[Operation], None]) -> bool:
    """`_erase_unreachable_in` on every region nested in `region`, outer ones first."""
    changed = False
    blocks = _blocks_of(region)
    for block in blocks:
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            for nested in op.regions:
                changed |= _erase_unreachable_in(nested, on_remove)
                changed |= _erase_unreachable_nested(nested, on_remove)
            op = op._next_op  # pyright: ignore[reportPrivateUsage]
    return changed


def _erase_unreachable_in(region: Region, on_remove: Callable[[Operation], None]) -> bool:
    first = region._first_block  # pyright: ignore[reportPrivateUsage]
    if first is None or first._next_block is None:  # pyright: ignore[reportPrivateUsage]
        return False
    blocks = list(region.blocks)
    reachable: set[Block] = set()
    stack = [blocks[0]]
    while stack:
        block = stack.pop()
        if block in reachable:
            continue
        reachable.add(block)
        last = block.last_op
        if last is not None:
            stack.extend(last.successors)
    dead = [b for b in blocks if b not in reachable]
    for block in dead:
        for op in block.ops:
            on_remove(op)
    for block in dead:
        region.erase_block(block, safe_erase=False)
    return bool(dead)


def own_and_trait_patterns(
    ctx: Context | None,
) -> Callable[[Operation], Sequence[RewritePattern]]:
    """The canonicalization patterns of an op: disc-ir's, then its xDSL trait patterns.

    For arith/scf/memref/tensor ops disc-ir's patterns replace xDSL's (some of
    which MLIR does not apply, such as float reassociation).
    """
    global _PATTERNS_OF
    if _PATTERNS_OF is not None and _PATTERNS_OF[0]() is ctx:
        return _PATTERNS_OF[1]
    cache: dict[type[Operation], tuple[RewritePattern, ...]] = {}

    def get(op: Operation) -> Sequence[RewritePattern]:
        key = type(op)
        found = cache.get(key)
        if found is not None:
            return found
        patterns = list(canonicalization_patterns(op.name, ctx))
        if op.dialect_name() not in OWN_DIALECTS:
            for trait in op.get_traits_of_type(HasCanonicalizationPatternsTrait):  # type: ignore[type-abstract]  # xDSL looks traits up by their abstract base
                patterns.extend(trait.get_patterns(type(op)))
        cache[key] = tuple(patterns)
        return cache[key]

    if ctx is not None:
        _PATTERNS_OF = (weakref.ref(ctx), get)
    return get


#: the pattern getter of the last context `own_and_trait_patterns` was asked
#: for (patterns are stateless: a context's getter, with its per-class
#: cache, serves every canonicalize run in that context)
_PATTERNS_OF: (
    tuple[weakref.ref[Context], Callable[[Operation], Sequence[RewritePattern]]] | None
) = None


_ANONYMOUS_PREFIXES = ("{anonymous}::", "(anonymous namespace)::")


def _bare_label(label: str) -> str:
    label = label.strip()
    for prefix in _ANONYMOUS_PREFIXES:
        if label.startswith(prefix):
            return label[len(prefix) :]
    return label


def pattern_labels(pattern: RewritePattern) -> frozenset[str]:
    """The labels `disable-patterns` / `enable-patterns` match `pattern` by: its class
    name and the MLIR debug names it stands for (`debug_names`, without the
    `{anonymous}::` prefix, which a label may carry or not)."""
    cls = type(pattern)
    return frozenset((cls.__name__, *getattr(cls, "debug_names", ())))


def filtered_patterns(
    patterns: Callable[[Operation], Sequence[RewritePattern]],
    disabled: Sequence[str],
    enabled: Sequence[str],
) -> Callable[[Operation], Sequence[RewritePattern]]:
    """`patterns` without those a `disabled` label names and, when `enabled` is not
    empty, only those an `enabled` label names (MLIR's FrozenRewritePatternSet
    filtering by debug label)."""
    off = {_bare_label(x) for x in disabled if x.strip()}
    on = {_bare_label(x) for x in enabled if x.strip()}
    cache: dict[type[Operation], tuple[RewritePattern, ...]] = {}

    def keep(p: RewritePattern) -> bool:
        labels = pattern_labels(p)
        return not (labels & off) and (not on or bool(labels & on))

    def get(op: Operation) -> Sequence[RewritePattern]:
        key = type(op)
        found = cache.get(key)
        if found is None:
            found = cache[key] = tuple(p for p in patterns(op) if keep(p))
        return found

    return get


def _parse_region_simplify(value: bool | str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1", "normal", "aggressive"):
        return True
    if text in ("false", "0", "disabled"):
        return False
    raise ValueError(
        f"region-simplify takes true/false or disabled/normal/aggressive, got '{value}'"
    )


def apply_canonicalization(
    ctx: Context | None,
    op: Operation,
    config: GreedyConfig | None = None,
    patterns: Callable[[Operation], Sequence[RewritePattern]] | None = None,
) -> bool:
    """Canonicalize the regions of `op`; returns whether the rewrite converged."""
    driver = GreedyRewriteDriver(
        ctx, config or GreedyConfig(), patterns or own_and_trait_patterns(ctx)
    )
    return driver.simplify(list(op.regions))


#: module states a `canonicalize` run ended on, changing nothing in its last sweep
_FIXED_POINTS = FixedPoints()


@register_pass
@dataclass(frozen=True)
class CanonicalizePass(ModulePass):
    """Canonicalize operations: fold, remove dead ops, dedup and hoist constants, apply patterns."""

    name = "canonicalize"

    top_down: bool = True
    region_simplify: bool | str = True
    max_iterations: int = 10
    max_num_rewrites: int = -1
    test_convergence: bool = False
    disable_patterns: tuple[str, ...] = ()
    enable_patterns: tuple[str, ...] = ()

    OPTION_HELP = {
        "top-down": "Seed the worklist in general top-down order",
        "region-simplify": "Perform control flow optimizations to the region tree "
        "(true/false or disabled/normal/aggressive)",
        "max-iterations": "Max. iterations between applying patterns / simplifying regions",
        "max-num-rewrites": "Max. number of pattern rewrites within an iteration (-1: no limit)",
        "test-convergence": "Test only: fail the pass when the rewrite does not converge",
        "disable-patterns": "Labels of patterns that should be filtered out during application",
        "enable-patterns": "Labels of patterns that should be used during application, all "
        "other patterns are filtered out",
    }

    def __post_init__(self) -> None:
        _parse_region_simplify(self.region_simplify)  # rejects unknown values early

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        config = GreedyConfig(
            top_down=self.top_down,
            region_simplify=_parse_region_simplify(self.region_simplify),
            max_iterations=self.max_iterations,
            max_num_rewrites=self.max_num_rewrites,
        )
        key = (
            "canonicalize",
            config.top_down,
            config.region_simplify,
            config.max_iterations,
            config.max_num_rewrites,
            self.disable_patterns,
            self.enable_patterns,
        )
        if _FIXED_POINTS.is_fixed_point(op, key, ctx):
            return  # unchanged since a run that ended on a sweep changing nothing
        patterns = own_and_trait_patterns(ctx)
        if self.disable_patterns or self.enable_patterns:
            patterns = filtered_patterns(patterns, self.disable_patterns, self.enable_patterns)
        driver = GreedyRewriteDriver(ctx, config, patterns)
        converged = driver.simplify(list(op.regions))
        if driver.reached_fixed_point:
            _FIXED_POINTS.record(op, key, ctx)
        else:
            _FIXED_POINTS.forget(op, key)
        if self.test_convergence and not converged:
            raise DiagnosticException("Canonicalizer failed to converge")


__all__ = [
    "CanonicalizePass",
    "ConstantFolder",
    "GreedyConfig",
    "GreedyRewriteDriver",
    "apply_canonicalization",
    "insertion_region",
    "filtered_patterns",
    "is_trivially_dead",
    "pattern_labels",
    "would_be_trivially_dead",
]
