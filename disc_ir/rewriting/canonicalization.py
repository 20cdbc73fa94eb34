"""The canonicalization pattern set and `apply_canonicalization`.

`own_and_trait_patterns(ctx)` gives the canonicalization patterns of an op:
disc-ir's own for arith/scf/memref/tensor/disc_shape
(`disc_ir.rewriting.patterns`), xDSL's `HasCanonicalizationPatternsTrait`
patterns for every other dialect; `filtered_patterns` drops or keeps patterns
by label (MLIR's `disable-patterns` / `enable-patterns`);
`apply_canonicalization(ctx, op)` runs the greedy driver with them on the
regions of `op` (what the `canonicalize` pass and the passes that canonicalize
as they go run).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence

from xdsl.context import Context
from xdsl.ir import Operation
from xdsl.pattern_rewriter import RewritePattern
from xdsl.traits import (
    HasCanonicalizationPatternsTrait,
)

from disc_ir.rewriting.greedy import GreedyConfig, GreedyRewriteDriver
from disc_ir.rewriting.patterns import OWN_DIALECTS, canonicalization_patterns


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


def parse_region_simplify(value: bool | str) -> bool:
    """The `region-simplify` option as a bool (true/false, disabled/normal/aggressive)."""
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
