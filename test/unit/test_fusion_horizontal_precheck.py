"""The fusion planner's shortcuts leave its plan as it was without them.

The horizontal sweep's pre-checks (`may_merge_unconnected`, answered by
classes of patterns through `unconnected_merge_key`) agree with each other,
never refuse a pair the strategy's full `try_fuse_inplace` would merge, and
leave the fusion plan exactly as trying every unconnected pair does; the
strategies' per-op verdicts (`OpFacts.fusible`) are asked once per op and
leave the plan as asking them every time does, and so do the contraction
loop's per-pattern verdicts (`FusionPlanner._is_fusible`)."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.printer import Printer

import disc_ir.fusion.pattern as pattern_mod
import disc_ir.fusion.strategy_base as base
import disc_ir.transforms.disc_fusion as fusion
from disc_ir.api import load_module, make_context, phase_passes

MODELS = Path(__file__).resolve().parents[1] / "models"
MODELS_CHECKED = ["layernorm_gelu_dyn", "bert_layer_dyn"]


def _fused_text(path: Path) -> str:
    """The module right after `disc-fusion` in the CPU pipeline, printed."""
    ctx = make_context()
    module = load_module(ctx, path.read_text())
    for _, passes in phase_passes("cpu", None, ""):
        for p in passes:
            p.apply(ctx, module)
            if p.name == "disc-fusion":
                out = io.StringIO()
                Printer(stream=out).print_op(module)
                return out.getvalue()
    raise AssertionError("no disc-fusion in the pipeline")


@pytest.mark.parametrize("model", MODELS_CHECKED)
def test_keys_agree_with_the_pair_and_the_merge(
    model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before each sweep, for unconnected fusible pairs: the key-based answer
    equals `may_merge_unconnected`, and a refused pair is one `try_fuse_inplace`
    refuses too."""
    sweep = fusion.FusionPlanner._horizontal_sweep
    seen = {"pairs": 0, "refused": 0, "by_key": 0, "refuse_all": 0}

    def checked(self: fusion.FusionPlanner, lone_reshape: Any) -> bool:
        strategy, analysis = self.strategy, self.shape_analysis
        clusters = {id(c): c for c in (self.cluster_of_node(n) for n in range(len(self.op_list)))}
        fusible = [c for c in clusters.values() if c.pattern.is_fusible()]
        nodes = np.array([c.node_id for c in fusible], dtype=np.int64)
        for lc in fusible[:60]:
            free = np.flatnonzero(~self.cycles.connected_to(lc.node_id, nodes))
            for i in free.tolist():
                rc = fusible[i]
                if rc is lc:
                    continue
                answer = strategy.may_merge_unconnected(analysis, lc.pattern, rc.pattern)
                lk = strategy.unconnected_merge_key(analysis, lc.pattern)
                rk = strategy.unconnected_merge_key(analysis, rc.pattern)
                if lk is base.REFUSE_ALL or rk is base.REFUSE_ALL:
                    # either side alone refuses, whichever side it is on
                    assert not answer
                    seen["refuse_all"] += 1
                if lk is not None and rk is not None:
                    assert strategy.may_merge_unconnected_keys(analysis, lk, rk) == answer
                    seen["by_key"] += 1
                if not answer:
                    merged = strategy.try_fuse_inplace(analysis, lc.pattern, rc.pattern)
                    assert merged is None, (
                        [op.name for op in lc.pattern.op_list],
                        [op.name for op in rc.pattern.op_list],
                    )
                    seen["refused"] += 1
                seen["pairs"] += 1
        return sweep(self, lone_reshape)

    monkeypatch.setattr(fusion.FusionPlanner, "_horizontal_sweep", checked)
    _fused_text(MODELS / f"{model}.mlir")
    assert seen["pairs"] > 100 and 0 < seen["refused"] < seen["pairs"]
    assert seen["by_key"] > seen["pairs"] // 2
    assert seen["refuse_all"] > 0


@pytest.mark.parametrize("model", MODELS_CHECKED)
def test_plan_is_that_of_trying_every_pair(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast = _fused_text(MODELS / f"{model}.mlir")

    def ask_every_pair(self: Any, lhs: Any, clusters: Any, picked: np.ndarray) -> np.ndarray:
        return np.full(len(picked), fusion._ASK, dtype=np.int8)

    monkeypatch.setattr(fusion._UnconnectedKeys, "verdicts", ask_every_pair)
    monkeypatch.setattr(
        base.PlacementAwareFusionStrategy,
        "may_merge_unconnected",
        lambda self, analysis, lhs, rhs: True,
    )
    slow = _fused_text(MODELS / f"{model}.mlir")
    assert fast == slow
    assert fast.count('"lmhlo.fusion"') + fast.count("lmhlo.fusion") > 0


@pytest.mark.parametrize("model", MODELS_CHECKED)
def test_op_verdicts_are_asked_once_and_change_nothing(
    model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: dict[tuple[int, int], int] = {}
    fusible = pattern_mod.OpFacts.fusible
    all_fusible = pattern_mod.OpFacts.all_fusible

    class Counting:
        """A strategy whose `is_fusible_op` counts the questions per op."""

        def __init__(self, strategy: Any) -> None:
            self.strategy = strategy

        def is_fusible_op(self, op: Any) -> bool:
            key = (id(self.strategy), id(op))
            asked[key] = asked.get(key, 0) + 1
            return bool(self.strategy.is_fusible_op(op))

    wrappers: dict[int, Counting] = {}

    def counting(strategy: Any) -> Counting:
        return wrappers.setdefault(id(strategy), Counting(strategy))

    monkeypatch.setattr(
        pattern_mod.OpFacts, "fusible", lambda self, s, op: fusible(self, counting(s), op)
    )
    monkeypatch.setattr(
        pattern_mod.OpFacts, "all_fusible", lambda self, s, ops: all_fusible(self, counting(s), ops)
    )
    once = _fused_text(MODELS / f"{model}.mlir")
    assert asked and max(asked.values()) == 1
    monkeypatch.setattr(
        pattern_mod.OpFacts, "fusible", lambda self, s, op: bool(s.is_fusible_op(op))
    )
    monkeypatch.setattr(
        pattern_mod.OpFacts,
        "all_fusible",
        lambda self, s, ops: all(s.is_fusible_op(op) for op in ops),
    )
    assert _fused_text(MODELS / f"{model}.mlir") == once


@pytest.mark.parametrize("model", MODELS_CHECKED)
def test_pattern_verdicts_are_asked_once_per_stage_and_change_nothing(
    model: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The contraction loop asks its stage's strategy `is_fusible` once per
    pattern (`FusionPlanner._is_fusible`), and plans as asking every time does."""
    asked: dict[tuple[int, int], int] = {}
    memo = fusion.FusionPlanner._is_fusible
    kept: list[Any] = []  # the asked patterns stay alive: their ids stay theirs

    def counting(self: fusion.FusionPlanner, pattern: Any) -> bool:
        if pattern not in self._fusible:
            key = (id(self.strategy), id(pattern))
            asked[key] = asked.get(key, 0) + 1
            kept.append(pattern)
        return memo(self, pattern)

    monkeypatch.setattr(fusion.FusionPlanner, "_is_fusible", counting)
    once = _fused_text(MODELS / f"{model}.mlir")
    assert asked and max(asked.values()) == 1
    monkeypatch.setattr(
        fusion.FusionPlanner,
        "_is_fusible",
        lambda self, pattern: bool(self.strategy.is_fusible(pattern)),
    )
    assert _fused_text(MODELS / f"{model}.mlir") == once
