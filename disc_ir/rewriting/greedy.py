"""xDSL's greedy pattern applier with a cheaper dead-op check.

`GreedyRewritePatternApplier` erases every trivially dead op it visits
before trying its patterns, asking xDSL's `is_trivially_dead`, which
gathers the memory effects of everything nested in the op each time (most
of a walk over a module of fusions and loops). `greedy_applier` gives the
same applier with that check done by `is_trivially_dead_as_xdsl` (the same
answer, cached per op class where the class decides it), first, as xDSL does.

It also holds `GreedyRewriteDriver`, MLIR's GreedyPatternRewriteDriver (the
driver of `canonicalize` and of the passes that canonicalize as they go),
configured by `GreedyConfig`:

- the worklist is filled top-down (pre-order, processed in order) or
  bottom-up (post-order) and popped from the back; ops touched by a rewrite
  are pushed again (users of replaced results, single-use operand producers of
  erased ops, inserted and modified ops);
- constants are uniqued and hoisted by a `ConstantFolder`
  (`disc_ir.rewriting.folder`); a constant met while filling the worklist is
  either replaced by the one already known or moved to the front of the entry
  block (kept in place when it already sits in the leading run of known
  constants there); constants made by folding are created at the front of the
  entry block;
- after each sweep, when region simplification is on, unreachable blocks are
  erased and dead code is removed from the regions (`region_dce`); the sweeps
  repeat while something changes, at most `max_iterations` times;
- `simplify` may be told to leave alone the regions of isolated-from-above ops
  known to be a fixed point (`canonicalize` passes the functions unchanged
  since a run converged on them).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint

from disc_ir.ir.walk import preorder_ops
from disc_ir.rewriting.dead_ops import is_trivially_dead, is_trivially_dead_as_xdsl, region_dce
from disc_ir.rewriting.folder import ConstantFolder
from disc_ir.rewriting.folding import (
    constant_value,
)
from disc_ir.rewriting.folding.core import CONSTANT_KIND, NOTHING_TO_FOLD, _constant_kind
from disc_ir.rewriting.patterns.utils import erase_op


class EraseTriviallyDead(RewritePattern):
    """Erase an op xDSL would call trivially dead (no used result, no effect
    beyond reading or allocating what it defines)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if is_trivially_dead_as_xdsl(op):
            rewriter.erase(op)


def greedy_applier(patterns: Sequence[RewritePattern]) -> GreedyRewritePatternApplier:
    """`GreedyRewritePatternApplier(patterns)` (dead ops erased first, then the
    first pattern that applies), with the faster dead-op check."""
    return GreedyRewritePatternApplier([EraseTriviallyDead(), *patterns], dce_enabled=False)


# --------------------------------------------------------------------------
# the greedy driver

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


@dataclass
class GreedyConfig:
    top_down: bool = True
    region_simplify: bool = True
    max_iterations: int = 10
    max_num_rewrites: int = -1


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
        #: ids of the isolated-from-above ops whose regions `simplify` leaves alone
        self.skip: Collection[int] = ()
        #: after `simplify`: its last sweep changed nothing at all (not even a
        #: constant's position), so the IR is a fixed point of the driver
        self.reached_fixed_point = False
        #: the last `_populate` met a block no path from its region's entry
        #: reaches (or could not tell: the bottom-up order does not look)
        self._unreachable_blocks = True
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
        for nested in preorder_ops(op):
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
            self._unreachable_blocks = False
            ordered: list[Operation] = []
            for region in regions:
                self._preorder(region, ordered)
            ordered.reverse()
            for op in ordered:
                self._add_single(op)
        else:
            ops: list[Operation] = []
            for region in regions:
                _ops_outside(region, self.skip, ops)
            for op in ops:
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
        if len(blocks) > 1 and not self._unreachable_blocks:
            self._unreachable_blocks = len(_reachable_blocks(blocks[0])) < len(blocks)
        constant_kind = CONSTANT_KIND
        for block in blocks:
            ops: list[Operation] = []
            op = block._first_op  # pyright: ignore[reportPrivateUsage]
            while op is not None:
                ops.append(op)
                op = op._next_op  # pyright: ignore[reportPrivateUsage]
            for op in ops:
                if op.parent is None:
                    continue
                if constant_kind[type(op)] is not None and self._insert_known_constant(op):
                    continue  # replaced by a known constant: skipped
                out.append(op)
                if op.regions and id(op) not in self.skip:
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

    def simplify(self, regions: Sequence[Region], skip: Collection[int] = ()) -> bool:
        """Run to a fixed point; returns whether it converged within the iteration limit.

        `skip`: ids of isolated-from-above ops nested in `regions` whose own
        regions are left alone (known to be a fixed point: what the driver does
        inside one depends on its contents alone).
        """
        self.scope = set(regions)
        self.skip = skip
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
            elif self._nothing_dead_left(regions):
                regions_clean = True
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
            if NOTHING_TO_FOLD[type(op)]:
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

    def _nothing_dead_left(self, regions: Sequence[Region]) -> bool:
        """After a sweep that visited every op of `regions` and changed
        nothing: region simplification would find nothing to erase either."""
        # True when every block is reachable from its region's entry. Then there
        # is no unreachable block to erase, and region DCE erases only ops: a
        # reachable block keeps its terminator, which is live. A cycle of uses
        # among ops passes through a block argument, hence through a branch
        # terminator's operands, which are live: the ops region DCE would erase
        # form no cycle. Each is dead if unused by xDSL's rule, and so is each
        # op reading its results; going down the uses, the last has no use at
        # all. That op is trivially dead by MLIR's rule (which erases what
        # xDSL's rule erases, and allocations without a value too): the sweep
        # checked every op, on the IR as it is now, and erased none.
        return not self._unreachable_blocks

    def _simplify_regions(self, regions: Sequence[Region]) -> bool:
        changed = False
        for region in regions:
            changed |= _erase_unreachable_blocks(region, self._on_remove, self.skip)
            changed |= region_dce(region, self.listener, self.skip)
        return changed


def _blocks_of(region: Region) -> list[Block]:
    """The blocks of `region`, listed from xDSL's private links (faster than `region.blocks`)."""
    blocks: list[Block] = []
    block = region._first_block  # pyright: ignore[reportPrivateUsage]
    while block is not None:
        blocks.append(block)
        block = block._next_block  # pyright: ignore[reportPrivateUsage]
    return blocks


def _ops_outside(region: Region, skip: Collection[int], out: list[Operation]) -> None:
    """The ops of `region` in `region.walk()` order into `out`, but those
    nested in the ops whose ids `skip` holds."""
    for block in _blocks_of(region):
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            out.append(op)
            if op.regions and id(op) not in skip:
                for nested in op.regions:
                    _ops_outside(nested, skip, out)
            op = op._next_op  # pyright: ignore[reportPrivateUsage]


def _erase_unreachable_blocks(
    region: Region, on_remove: Callable[[Operation], None], skip: Collection[int] = ()
) -> bool:
    """Erase blocks (in this region and nested ones, but those in the ops whose
    ids `skip` holds) no path from the entry reaches."""
    changed = _erase_unreachable_nested(region, on_remove, skip)
    changed |= _erase_unreachable_in(region, on_remove)
    return changed


def _erase_unreachable_nested(
    region: Region, on_remove: Callable[[Operation], None], skip: Collection[int]
) -> bool:
    """`_erase_unreachable_in` on every region nested in `region` (not in the
    ops whose ids `skip` holds), outer ones first."""
    changed = False
    blocks = _blocks_of(region)
    for block in blocks:
        op = block._first_op  # pyright: ignore[reportPrivateUsage]
        while op is not None:
            if op.regions and id(op) not in skip:
                for nested in op.regions:
                    changed |= _erase_unreachable_in(nested, on_remove)
                    changed |= _erase_unreachable_nested(nested, on_remove, skip)
            op = op._next_op  # pyright: ignore[reportPrivateUsage]
    return changed


def _reachable_blocks(entry: Block) -> set[Block]:
    """The blocks a path of branches from `entry` reaches, `entry` included."""
    reachable: set[Block] = set()
    stack = [entry]
    while stack:
        block = stack.pop()
        if block in reachable:
            continue
        reachable.add(block)
        last = block.last_op
        if last is not None:
            stack.extend(last.successors)
    return reachable


def _erase_unreachable_in(region: Region, on_remove: Callable[[Operation], None]) -> bool:
    first = region._first_block  # pyright: ignore[reportPrivateUsage]
    if first is None or first._next_block is None:  # pyright: ignore[reportPrivateUsage]
        return False
    blocks = list(region.blocks)
    reachable = _reachable_blocks(blocks[0])
    dead = [b for b in blocks if b not in reachable]
    for block in dead:
        for op in block.ops:
            on_remove(op)
    for block in dead:
        region.erase_block(block, safe_erase=False)
    return bool(dead)


__all__ = ["EraseTriviallyDead", "GreedyConfig", "GreedyRewriteDriver", "greedy_applier"]
