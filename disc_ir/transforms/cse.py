"""`cse`: MLIR's common sub-expression elimination, on xDSL's CSE driver.

Walks every region with a scoped table of known ops (a fresh scope for
isolated-from-above ops such as `func.func`, the enclosing scope for nested
regions such as `scf.for` / `scf.parallel` / `lmhlo.fusion` bodies): an op
equal to a known one (same name, attributes, properties, operands, result
types, structurally equal regions) is replaced by it. Ops with memory effects
are kept, except read-only ops, which are merged with an equal op of the same
block when no op in between may write. Trivially dead ops are erased, as
MLIR's CSE does (an unused `memref.alloc` included).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator, MemoryEffectKind
from xdsl.transforms.common_subexpression_elimination import (
    CSEDriver,
    has_other_side_effecting_op_in_between,
)

from disc_ir.ir.trait_cache import get_effects, has_trait
from disc_ir.transforms.canonicalize import is_trivially_dead
from disc_ir.transforms.registry import register_pass


class DiscCSEDriver(CSEDriver):
    """xDSL's CSE driver with MLIR's notion of trivially dead ops."""

    def _simplify_operation(self, op: Operation) -> None:
        if has_trait(op, IsTerminator):
            return
        if is_trivially_dead(op):
            self._mark_erasure(op)
            return
        if any(len(region.blocks) > 1 for region in op.regions):
            return
        # xDSL's is_side_effect_free / only_has_effect(READ), on cached effects
        effects = get_effects(op)
        if effects is None or effects:
            if effects is None or any(e.kind != MemoryEffectKind.READ for e in effects):
                return
            existing = self._known_ops.get(op)
            if (
                existing is not None
                and op.parent_block() is existing.parent_block()
                and not has_other_side_effecting_op_in_between(existing, op)
            ):
                self._replace_and_delete(op, existing)
                return
            self._known_ops[op] = op
            return
        existing = self._known_ops.get(op)
        if existing is not None:
            self._replace_and_delete(op, existing)
            return
        self._known_ops[op] = op

    def _commit_erasures(self) -> None:
        # erase users before producers so no erased value is still in use
        pending = [o for o in self._to_erase]
        while pending:
            progress = False
            for o in list(pending):
                if o.parent is None:
                    pending.remove(o)
                    continue
                if all(not r.uses for r in o.results):
                    self._rewriter.erase_op(o)
                    pending.remove(o)
                    progress = True
            if not progress:
                for o in pending:
                    if o.parent is not None:
                        self._rewriter.erase_op(o, safe_erase=False)
                break


def cse(op: Operation) -> None:
    """Run CSE on the regions of `op`."""
    DiscCSEDriver().simplify(op)


@register_pass
@dataclass(frozen=True)
class CSEPass(ModulePass):
    """Eliminate common sub-expressions."""

    name = "cse"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        cse(op)
