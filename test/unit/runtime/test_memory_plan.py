"""The static memory plan: planning over an allocation trace, and calls that follow it."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

import disc_ir
from disc_ir.runtime import load
from disc_ir.runtime.memory_plan import AllocationTrace, MemoryPlan, plan_memory

ROOT = Path(__file__).resolve().parents[3]


def _trace(events: list[tuple[str, int]]) -> AllocationTrace:
    """`("a", nbytes)` allocates the next buffer, `("r", k)` releases buffer k."""
    trace = AllocationTrace()
    for kind, value in events:
        if kind == "a":
            trace.on_alloc(value)
        else:
            trace.on_release(value)
    return trace


def test_buffers_with_disjoint_lifetimes_share_storage() -> None:
    # 0 and 1 overlap; 2 starts after 0 ends; 3 after 1 and 2 end; 4 is an output
    trace = _trace(
        [("a", 1000), ("a", 500), ("r", 0), ("a", 800), ("r", 1), ("r", 2), ("a", 2000), ("a", 64)]
    )
    trace.on_release(3)
    trace.outputs.add(4)
    plan = plan_memory(trace)
    s = plan.storage
    assert s[0] != s[1] and s[2] == s[0]  # 2 fits 0's storage (best fit)
    assert s[3] is not None and s[4] is None  # the output is not planned
    assert plan.unplanned_bytes == 1024 + 512 + 832 + 2048
    assert plan.arena_bytes < plan.unplanned_bytes
    assert MemoryPlan.from_json(plan.to_json()) == plan


def test_never_released_buffers_are_not_planned() -> None:
    plan = plan_memory(_trace([("a", 100), ("a", 100), ("r", 1)]))
    assert plan.storage[0] is None and plan.storage[1] is not None


def test_corrupt_plans_are_refused() -> None:
    plan = plan_memory(_trace([("a", 100), ("r", 0)]))
    data = plan.to_json()
    data["sizes"] = [4096]
    with pytest.raises(ValueError, match="does not fit its storage"):
        MemoryPlan.from_json(data)
    data = plan.to_json()
    data["offsets"] = [10_000]
    with pytest.raises(ValueError, match="outside the arena"):
        MemoryPlan.from_json(data)


@pytest.fixture(scope="module")
def bert(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, Path]:
    exe = disc_ir.compile((ROOT / "test/models/bert_layer.mlir").read_text(), keep_ir=False)
    path = tmp_path_factory.mktemp("plan") / "bert.disc"
    exe.save(path)
    return exe, path


def _args(exe: object, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(a.shape).astype(np.float32) for a in exe.inputs]  # type: ignore[attr-defined]


def test_static_graph_follows_its_plan(bert: tuple[object, Path]) -> None:
    exe, path = bert
    m = load(path)
    plan = m.memory_plan
    assert plan is not None and plan.arena_bytes < plan.unplanned_bytes
    assert m.manifest["memory_plan"]["arena_bytes"] == plan.arena_bytes
    driver = m._model.ral.get_driver("cpu")
    for seed in range(3):
        args = _args(exe, seed)
        assert all(a.tobytes() == b.tobytes() for a, b in zip(m(*args), exe(*args), strict=True))  # type: ignore[operator]
    assert driver.planned_allocs == 3 * sum(s is not None for s in plan.storage)
    assert driver.plan_departures == 0


def test_a_plan_the_calls_do_not_follow_is_left_safely(bert: tuple[object, Path]) -> None:
    exe, path = bert
    m = load(path)
    plan = m.memory_plan
    assert plan is not None
    # every buffer in one storage: the second live buffer finds it occupied
    one = MemoryPlan(
        plan.sizes,
        tuple(0 for _ in plan.sizes),
        (0,),
        (max(-(-s // 64) * 64 for s in plan.sizes),),
        max(-(-s // 64) * 64 for s in plan.sizes),
        plan.unplanned_bytes,
    )
    driver = m._model.ral.get_driver("cpu")
    driver.set_memory_plan(one)
    args = _args(exe, 7)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(m(*args), exe(*args), strict=True))  # type: ignore[operator]
    assert driver.plan_departures == 1
    # sizes that differ from the call's: left at the first allocation
    driver.set_memory_plan(
        MemoryPlan(
            (1,) * len(plan.sizes),
            plan.storage,
            plan.offsets,
            plan.storage_sizes,
            plan.arena_bytes,
            plan.unplanned_bytes,
        )
    )
    assert all(a.tobytes() == b.tobytes() for a, b in zip(m(*args), exe(*args), strict=True))  # type: ignore[operator]
    assert driver.plan_departures == 2


def test_planned_calls_from_several_threads(bert: tuple[object, Path]) -> None:
    exe, path = bert
    m = load(path)
    cases = [_args(exe, s) for s in range(6)]
    want = [exe(*c) for c in cases]  # type: ignore[operator]
    errors: list[int] = []

    def worker(k: int) -> None:
        for i in range(k, 12, 3):
            got = m(*cases[i % 6])
            if any(a.tobytes() != b.tobytes() for a, b in zip(got, want[i % 6], strict=True)):
                errors.append(i)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert m._model.ral.get_driver("cpu").plan_departures == 0


def test_dynamic_graphs_have_no_plan(tmp_path: Path) -> None:
    exe = disc_ir.compile((ROOT / "test/models/mlp_dyn.mlir").read_text(), keep_ir=False)
    exe.save(tmp_path / "d.disc")
    assert load(tmp_path / "d.disc").memory_plan is None
