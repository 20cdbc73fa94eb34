"""The horizontal sweep's pre-check (`may_merge_unconnected`) answers as the
strategy's full `is_fusible` + `may_merge` would, for every unconnected pair
the fusion planner asks about, and the fusion plan does not change."""

from __future__ import annotations

from pathlib import Path

import pytest

import disc_ir.analysis.fusion_strategy_base as base
from disc_ir.api import load_module, make_context, phase_passes

MODELS = Path(__file__).resolve().parents[1] / "models"


def _fuse(path: Path) -> None:
    ctx = make_context()
    module = load_module(ctx, path.read_text())
    for _, passes in phase_passes("cpu", None, ""):
        for p in passes:
            p.apply(ctx, module)
            if p.name == "disc-fusion":
                return


@pytest.mark.parametrize("model", ["layernorm_gelu_dyn", "bert_layer_dyn"])
def test_precheck_agrees_with_may_merge(model: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast_path = base.PlacementAwareFusionStrategy.may_merge_unconnected
    asked: list[bool] = []

    def checked(self, shape_analysis, lhs, rhs):  # type: ignore[no-untyped-def]
        fast = fast_path(self, shape_analysis, lhs, rhs)
        slow = base.FusionStrategy.may_merge_unconnected(self, shape_analysis, lhs, rhs)
        assert fast == slow, ([op.name for op in lhs.op_list], [op.name for op in rhs.op_list])
        asked.append(fast)
        return fast

    monkeypatch.setattr(base.PlacementAwareFusionStrategy, "may_merge_unconnected", checked)
    _fuse(MODELS / f"{model}.mlir")
    assert len(asked) > 100 and any(asked) and not all(asked)
