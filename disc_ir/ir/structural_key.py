"""Structural keys of functions, and merging the functions whose keys are equal."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from xdsl.ir import Block, Operation, Region, SSAValue

F = TypeVar("F", bound=Operation)


class StructuralKey:
    """Wraps a (nested) tuple describing a function's structure; hashes it once.

    Tuples rehash all their items on every dict lookup; a key of a large
    function is looked up several times when functions are deduplicated.
    Two keys are equal when their tuples are.
    """

    __slots__ = ("hash", "items")

    def __init__(self, items: tuple[Any, ...]) -> None:
        self.items = items
        self.hash = hash(items)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, StructuralKey)
            and self.hash == other.hash
            and self.items == other.items
        )


def append_structure(
    items: list[Any],
    regions: Sequence[Region],
    norm: Callable[[Any], Any],
    outside: Callable[[SSAValue], Any],
) -> None:
    """Append the structure of `regions` to `items`, SSA names ignored.

    Per region its block count; per block its argument types; per op its name,
    operands (numbered in order of definition; a value not defined in
    `regions` is numbered by `outside(value)`, once, at its first use),
    result types, properties and attributes (through `norm`, sorted by name),
    successors (numbered blocks) and nested regions, in order.
    """
    numbers: dict[SSAValue, Any] = {}
    blocks: dict[Block, int] = {}

    def operand(v: SSAValue) -> Any:
        n = numbers.get(v)
        if n is None:  # not defined before its use inside: from outside
            n = numbers[v] = outside(v)
        return n

    def region(r: Region) -> None:
        for b in r.blocks:
            blocks[b] = len(blocks)
        items.append(("region", len(r.blocks)))
        for b in r.blocks:
            for arg in b.args:
                numbers[arg] = len(numbers)
            items.append(tuple(a.type for a in b.args))
            for op in b.ops:
                operands = tuple(operand(v) for v in op.operands)
                for res in op.results:
                    numbers[res] = len(numbers)
                items.append(
                    (
                        op.name,
                        operands,
                        tuple(res.type for res in op.results),
                        tuple(sorted((k, norm(v)) for k, v in op.properties.items())),
                        tuple(sorted((k, norm(v)) for k, v in op.attributes.items())),
                        tuple(blocks.get(s, s) for s in op.successors),
                        len(op.regions),
                    )
                )
                for inner in op.regions:
                    region(inner)

    for r in regions:
        region(r)


def _name(op: Operation) -> str:
    return op.properties["sym_name"].data  # type: ignore[attr-defined]  # sym_name is a StringAttr


def identical_symbols(
    funcs: Sequence[F],
    key_of: Callable[[F, dict[str, str], set[str]], StructuralKey | None],
    after_round: Callable[[dict[str, str], dict[str, set[str]]], None] | None = None,
) -> dict[str, str]:
    """The functions of `funcs` that duplicate an earlier one: name -> the kept one.

    `key_of(f, renamed, refs)` is `f`'s structure (None: never merged), with
    the names of the symbols it references added to `refs`; `renamed` maps
    each function merged so far to its representative, for keys that
    normalize references instead of rewriting them. After each round that
    merged some, `after_round(merged, refs)` may rewrite the IR; merging
    repeats for the functions that reference a merged one (they may have
    become identical), until none changes. Chains are resolved: every value
    of the result is a kept function.
    """
    rename: dict[str, str] = {}
    refs: dict[str, set[str]] = {}
    keys: dict[str, StructuralKey | None] = {}
    todo: Sequence[F] = funcs
    while todo:
        for f in todo:
            names: set[str] = set()
            keys[_name(f)] = key_of(f, rename, names)
            refs[_name(f)] = names
        first: dict[StructuralKey, str] = {}
        merged: dict[str, str] = {}
        for f in funcs:
            name = _name(f)
            key = keys[name]
            if name in rename or key is None:
                continue
            kept = first.setdefault(key, name)
            if kept != name:
                merged[name] = kept
        if not merged:
            break
        rename.update(merged)
        if after_round is not None:
            after_round(merged, refs)
        todo = [f for f in funcs if _name(f) not in rename and refs[_name(f)] & merged.keys()]
    for name in rename:  # representatives of representatives
        while rename[name] in rename:
            rename[name] = rename[rename[name]]
    return rename


__all__ = ["StructuralKey", "append_structure", "identical_symbols"]
