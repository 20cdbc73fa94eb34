"""`canonicalize`: MLIR's canonicalizer on xDSL's rewriting machinery.

The pass applies, greedily and to a fixed point, what MLIR's Canonicalizer
applies: dead op removal, op folding, constant uniquing and hoisting, and the
canonicalization patterns of each op. The machinery lives in
`disc_ir.rewriting`: the greedy driver (`greedy`), the constant folder
(`folder`), the dead-op predicates and region DCE (`dead_ops`), the pattern
set (`canonicalization`, `patterns`) and the op folders (`folding`).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.ir.fingerprint import FixedPoints
from disc_ir.ir.trait_cache import has_trait
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.canonicalization import (
    filtered_patterns,
    own_and_trait_patterns,
    parse_region_simplify,
)
from disc_ir.rewriting.greedy import GreedyConfig, GreedyRewriteDriver

#: states of the module's isolated-from-above ops (functions, nested modules)
#: a `canonicalize` run ended on, changing nothing in its last sweep
_FIXED_POINTS = FixedPoints()


def _units(module: builtin.ModuleOp) -> list[Operation]:
    """The isolated-from-above ops with regions at the top of `module`: what
    the driver does inside one depends on its contents alone (no value crosses
    its boundary; constants are uniqued and hoisted per isolated region)."""
    return [
        op
        for op in module.body.block.ops
        if op.regions and has_trait(op, IsolatedFromAbove, value_if_unregistered=False)
    ]


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
        parse_region_simplify(self.region_simplify)  # rejects unknown values early

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        config = GreedyConfig(
            top_down=self.top_down,
            region_simplify=parse_region_simplify(self.region_simplify),
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
        # A function (or nested module) unchanged since a run that ended on a
        # sweep changing nothing is such a sweep's fixed point again: the driver
        # leaves its regions alone. The rest of the module is canonicalized.
        units = _units(op)
        skip = {id(u) for u in units if _FIXED_POINTS.is_fixed_point(u, key, ctx)}
        patterns = own_and_trait_patterns(ctx)
        if self.disable_patterns or self.enable_patterns:
            patterns = filtered_patterns(patterns, self.disable_patterns, self.enable_patterns)
        driver = GreedyRewriteDriver(ctx, config, patterns)
        converged = driver.simplify(list(op.regions), skip)
        for unit in units:
            if id(unit) in skip or unit.parent is None:
                continue
            if driver.reached_fixed_point:
                _FIXED_POINTS.record(unit, key, ctx)
            else:
                _FIXED_POINTS.forget(unit, key)
        if self.test_convergence and not converged:
            raise DiagnosticException("Canonicalizer failed to converge")


__all__ = ["CanonicalizePass"]
