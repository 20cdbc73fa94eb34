"""Exact snapshots of an IR's state, to skip a pass that provably has nothing to do.

`fingerprint(op)` lists, in pre-order, every op nested in `op` (the objects
themselves), its operands, successors, result types, attributes and
properties, and every region and block with its argument types, with a marker
closing each region. Two fingerprints of the same op compare equal exactly
when nothing in it changed in between: no op was created, erased or moved, no
operand, successor, attribute, property or type was replaced. The list holds
references to what it names, so no object of the snapshot is freed and its
identity reused while the snapshot lives.

`FixedPoints` remembers, per op and per pass configuration, a state on which
the pass was seen to change nothing (a deterministic pass then changes nothing
on that state again): `canonicalize` records the state each function of the
module converged to, and leaves a function alone when a later run finds it in
that same state (e.g. after a `cse` that changed only another function).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from xdsl.ir import Operation

_END_OF_REGION = object()
_EXHAUSTED = object()


class _Mismatch(Exception):
    """Raised by `matches_fingerprint`'s sink at the first item differing from the snapshot."""


def fingerprint(op: Operation) -> list[object]:
    """A snapshot of `op` and everything nested in it (see the module docstring)."""
    out: list[object] = []
    _visit(op, out.append)
    return out


def matches_fingerprint(op: Operation, snapshot: list[object]) -> bool:
    """`fingerprint(op) == snapshot`, stopping at the first difference."""
    items = iter(snapshot)

    def check(item: object) -> None:
        if next(items, _EXHAUSTED) != item:
            raise _Mismatch

    try:
        _visit(op, check)
    except _Mismatch:
        return False
    return next(items, _EXHAUSTED) is _EXHAUSTED


def _visit(op: Operation, sink: Callable[[object], None]) -> None:
    # One item per op (the op, its operands, successors, result types,
    # attributes and properties), per block (the block and its argument types)
    # and per region (the region, then a closing marker). xDSL's private links
    # are read directly: this runs over the whole module around each
    # canonicalize, and the public iterators cost several times more.
    sink(
        (
            op,
            op._operands,  # pyright: ignore[reportPrivateUsage]
            op._successors,  # pyright: ignore[reportPrivateUsage]
            [r._type for r in op.results],  # pyright: ignore[reportPrivateUsage]
            op.attributes.copy(),
            op.properties.copy(),
        )
    )
    for region in op.regions:
        sink(region)
        block = region._first_block  # pyright: ignore[reportPrivateUsage]
        while block is not None:
            sink((block, [a._type for a in block._args]))  # pyright: ignore[reportPrivateUsage]
            child = block._first_op  # pyright: ignore[reportPrivateUsage]
            while child is not None:
                _visit(child, sink)
                child = child._next_op  # pyright: ignore[reportPrivateUsage]
            block = block._next_block  # pyright: ignore[reportPrivateUsage]
        sink(_END_OF_REGION)


class FixedPoints:
    """Module states on which a pass (identified by a hashable key) changed nothing.

    `context`: an object the pass's behaviour also depends on (e.g. the
    xDSL `Context` its patterns build ops in); a state counts only with the
    same object.

    The states live on the module object itself (a private attribute), not in
    a table of this object's: a snapshot holds the module's ops, which hold
    their parents, so a table keyed by module -- even a weak one -- would keep
    every module ever seen alive. On the module they form a cycle that is
    collected with it.
    """

    def __init__(self) -> None:
        self._attribute = f"_disc_fixed_points_{id(self):x}"

    def _states(self, module: Operation) -> dict[Hashable, tuple[object, list[object]]] | None:
        return module.__dict__.get(self._attribute)

    def is_fixed_point(self, module: Operation, key: Hashable, context: object = None) -> bool:
        """Whether `module` is unchanged since `record(module, key, context)`."""
        states = self._states(module)
        state = states.get(key) if states is not None else None
        return state is not None and state[0] is context and matches_fingerprint(module, state[1])

    def record(self, module: Operation, key: Hashable, context: object = None) -> None:
        """Remember the current state of `module` as a fixed point of pass `key`."""
        module.__dict__.setdefault(self._attribute, {})[key] = (context, fingerprint(module))

    def forget(self, module: Operation, key: Hashable) -> None:
        """Drop what is remembered of `module` for pass `key`."""
        states = self._states(module)
        if states is not None:
            states.pop(key, None)


__all__ = ["FixedPoints", "fingerprint", "matches_fingerprint"]
