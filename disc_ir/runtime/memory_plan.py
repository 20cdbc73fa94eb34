"""The static memory plan of a graph whose shapes are all static (TVM's `GraphPlanMemory`).

The host code allocates its temporaries through the RAL in a fixed order when
every shape is static. `Executable.save` runs the graph once while the CPU
driver records that order (`AllocationTrace`: each buffer's size, when its
last reference went, whether it became an output); `plan_memory` then gives
every buffer a storage id, buffers whose lifetimes do not overlap sharing one
(greedy best fit over the trace, as TVM's planner does over the graph), and
lays the storages out in one arena. The plan is stored in the artifact
(`memory_plan.json`).

At run time the CPU driver serves the k-th allocation of a call from the
arena (one arena per concurrent call, kept across calls) when it has the
planned size and the storage's previous occupant is already released in this
call; otherwise the call goes on with the caching allocator, so a call that
deviates from the trace stays correct. Outputs and buffers the trace never
released are not planned (they leave the call).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

#: storage offsets in the arena are multiples of this (bytes)
STORAGE_ALIGNMENT = 64


@dataclass
class AllocationTrace:
    """What one call allocated, in order: sizes, and per buffer the event index
    of its release (None: never released) and whether it became an output."""

    sizes: list[int] = field(default_factory=list)
    released_at: list[int | None] = field(default_factory=list)
    outputs: set[int] = field(default_factory=set)
    #: events so far (an allocation or a release each)
    events: int = 0
    allocated_at: list[int] = field(default_factory=list)

    def on_alloc(self, nbytes: int) -> int:
        self.sizes.append(int(nbytes))
        self.released_at.append(None)
        self.allocated_at.append(self.events)
        self.events += 1
        return len(self.sizes) - 1

    def on_release(self, index: int) -> None:
        self.released_at[index] = self.events
        self.events += 1


@dataclass(frozen=True)
class MemoryPlan:
    """`sizes[k]`: the k-th allocation's size; `storage[k]`: its storage id (None:
    not planned); `offsets[s]` / `storage_sizes[s]`: storage `s` in the arena."""

    sizes: tuple[int, ...]
    storage: tuple[int | None, ...]
    offsets: tuple[int, ...]
    storage_sizes: tuple[int, ...]
    arena_bytes: int
    #: bytes the planned buffers take with one buffer each
    unplanned_bytes: int

    def to_json(self) -> dict[str, Any]:
        return {
            "sizes": list(self.sizes),
            "storage": list(self.storage),
            "offsets": list(self.offsets),
            "storage_sizes": list(self.storage_sizes),
            "arena_bytes": self.arena_bytes,
            "unplanned_bytes": self.unplanned_bytes,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> MemoryPlan:
        plan = MemoryPlan(
            tuple(int(s) for s in data["sizes"]),
            tuple(None if s is None else int(s) for s in data["storage"]),
            tuple(int(o) for o in data["offsets"]),
            tuple(int(s) for s in data["storage_sizes"]),
            int(data["arena_bytes"]),
            int(data["unplanned_bytes"]),
        )
        plan.validate()
        return plan

    def validate(self) -> None:
        """ValueError unless every storage fits in the arena and holds its buffers."""
        if len(self.sizes) != len(self.storage) or len(self.offsets) != len(self.storage_sizes):
            raise ValueError("memory plan: inconsistent table lengths")
        for off, size in zip(self.offsets, self.storage_sizes, strict=True):
            if off < 0 or size < 0 or off + size > self.arena_bytes or off % STORAGE_ALIGNMENT:
                raise ValueError("memory plan: a storage lies outside the arena")
        for k, sid in enumerate(self.storage):
            if sid is not None and not (
                0 <= sid < len(self.offsets) and self.sizes[k] <= self.storage_sizes[sid]
            ):
                raise ValueError(f"memory plan: allocation {k} does not fit its storage")


def _aligned(n: int) -> int:
    return -(-max(1, n) // STORAGE_ALIGNMENT) * STORAGE_ALIGNMENT


def plan_memory(trace: AllocationTrace) -> MemoryPlan:
    """Storage ids for the traced allocations (greedy best fit in event order)."""
    plannable = [
        trace.released_at[k] is not None and k not in trace.outputs for k in range(len(trace.sizes))
    ]
    events: list[tuple[int, int, int]] = []  # (event index, 0 release / 1 alloc, buffer)
    for k, ok in enumerate(plannable):
        if ok:
            events.append((trace.allocated_at[k], 1, k))
            released = trace.released_at[k]
            assert released is not None
            events.append((released, 0, k))
    events.sort()
    storage: list[int | None] = [None] * len(trace.sizes)
    storage_sizes: list[int] = []
    free: list[int] = []
    for _, kind, k in events:
        if kind == 0:
            sid = storage[k]
            assert sid is not None
            free.append(sid)
            continue
        need = _aligned(trace.sizes[k])
        fitting = [s for s in free if storage_sizes[s] >= need]
        if fitting:
            sid = min(fitting, key=lambda s: storage_sizes[s])
        elif free:
            sid = max(free, key=lambda s: storage_sizes[s])
            storage_sizes[sid] = need  # grown to the new occupant
        else:
            sid = len(storage_sizes)
            storage_sizes.append(need)
        if sid in free:
            free.remove(sid)
        storage[k] = sid
    offsets = []
    total = 0
    for size in storage_sizes:
        offsets.append(total)
        total += size
    unplanned = sum(_aligned(trace.sizes[k]) for k, ok in enumerate(plannable) if ok)
    plan = MemoryPlan(
        tuple(trace.sizes), tuple(storage), tuple(offsets), tuple(storage_sizes), total, unplanned
    )
    plan.validate()
    return plan


__all__ = ["STORAGE_ALIGNMENT", "AllocationTrace", "MemoryPlan", "plan_memory"]
