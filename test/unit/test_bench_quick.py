"""The benchmark harness (bench/) at tiny sizes: schema, correctness check, report.

Runs the harness's own functions with the peers that are installed (jax,
IREE; torch.compile's cold compiles are too slow for a unit test and are
left out); a missing peer must show up as `unavailable`, never as a crash.
disc-ir compiles the jax export when jax is installed, else bench/graphs'
MHLO, and must match the reference within 1e-4.
"""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import run as R  # noqa: E402
from bench.measure import (  # noqa: E402
    peak_rss,
    relative_error,
    time_call,
    time_calls_interleaved,
)
from bench.systems import Prepared, System, configure_jax  # noqa: E402

SYSTEMS = ("disc-ir", "xla", "iree", "numpy")


@pytest.fixture(scope="module")
def systems() -> dict:
    configure_jax()
    return R.resolve_systems(SYSTEMS, threads=None)


@pytest.fixture(scope="module")
def softmax_record(systems: dict) -> dict:
    return R.bench_one(
        "softmax",
        {"rows": 5, "cols": 33},
        systems,
        warmup=0,
        repeats=3,
        budget_s=0.0,
        bandwidth_gb_s=10.0,
        log=lambda _msg: None,
    )


def test_every_system_reported(softmax_record: dict, systems: dict) -> None:
    assert set(softmax_record["systems"]) == set(SYSTEMS)
    for name, entry in softmax_record["systems"].items():
        if isinstance(systems[name], str):
            assert entry == {"status": "unavailable", "error": systems[name]}
    disc = softmax_record["systems"]["disc-ir"]
    assert disc["status"] == "ok", disc
    assert disc["correct"] and disc["rel_err"] <= R.RTOL
    assert disc["samples"] == 3 and disc["median_ms"] > 0
    # compile phases: the pipeline's, measured with verification off
    assert {"parse", "tensor", "llvm", "jit"} <= set(disc["compile_phases"])
    assert disc["compile_s"] == pytest.approx(sum(disc["compile_phases"].values()))
    assert softmax_record["bytes_moved"] == 2 * 5 * 33 * 4
    assert disc["gb_per_s"] > 0 and "bandwidth_fraction" in disc
    expected_ref = "xla" if softmax_record["systems"]["xla"]["status"] == "ok" else "numpy"
    assert softmax_record["reference"] == expected_ref


def test_payload_schema_and_report(softmax_record: dict) -> None:
    dyn = R.dynamic_workload(["numpy"], [3, 5, 9], 8, log=lambda _msg: None)
    assert dyn["systems"]["numpy"]["status"] == "ok"
    assert len(dyn["systems"]["numpy"]["per_call_s"]) == 3
    payload = {
        "schema": R.SCHEMA,
        "machine": R.machine_info(None),
        "settings": {},
        "copy_bandwidth": {"best_gb_s": 10.0},
        "systems": {},
        "results": [softmax_record],
        "dynamic_workload": dyn,
    }
    payload["targets"] = R.target_checks(payload)
    assert R.check_schema(payload) == []
    statuses = {t["target"].split(":")[0]: t["status"] for t in payload["targets"]}
    assert statuses["correctness"] == "PASS"
    text = R.format_report(payload)
    assert "softmax" in text and "targets:" in text
    json.loads(json.dumps(payload, default=R._json_default))
    broken = dict(payload, schema="other", results=[{"model": "x"}])
    assert R.check_schema(broken)


def test_dynamic_workload_reports_the_median_round() -> None:
    dyn = R.dynamic_workload(["numpy"], [3, 5, 9], 8, repeats=3, log=lambda _msg: None)
    entry = dyn["systems"]["numpy"]
    assert dyn["repeats"] == 3 and len(entry["totals_s"]) == 3
    assert entry["total_s"] == sorted(entry["totals_s"])[1]
    assert len(entry["per_call_s"]) == 3
    assert entry["max_rel_err"] == 0.0  # every round checked against the first
    assert "median of 3 rounds" in R.format_report({"dynamic_workload": dyn, "results": []})


def test_dynamic_workload_checks_the_later_rounds(monkeypatch: pytest.MonkeyPatch) -> None:
    """A system answering right in the first round and wrong in a later one
    is caught: the later rounds are compared with the reference too."""
    real = R._dynamic_run
    calls = {"numpy": 0}

    def run(name, model, all_sizes, all_args, threads):  # noqa: ANN001, ANN202
        per_call, total, compile_s, phases, outs = real(
            "numpy", model, all_sizes, all_args, threads
        )
        if name == "late":
            calls["numpy"] += 1
            if calls["numpy"] == 2:
                outs = [[o + 1.0 for o in call] for call in outs]
        return per_call, total, compile_s, phases, outs

    monkeypatch.setattr(R, "_dynamic_run", run)
    dyn = R.dynamic_workload(["numpy", "late"], [3, 5], 8, repeats=2, log=lambda _msg: None)
    assert dyn["reference"] == "numpy"
    assert dyn["systems"]["numpy"]["max_rel_err"] == 0.0
    assert dyn["systems"]["late"]["max_rel_err"] > 0.1


class _Wrong(System):
    """A system that answers with the wrong values (the check must catch it)."""

    name = "wrong"

    def prepare(self, model, sizes, args) -> Prepared:  # noqa: ANN001
        return Prepared(lambda: [np.zeros_like(args[0]) + 1.0], 0.0)


class _Broken(System):
    name = "broken"

    def prepare(self, model, sizes, args) -> Prepared:  # noqa: ANN001
        raise RuntimeError("cannot compile this")


def test_correctness_check_fails_wrong_answers() -> None:
    record = R.bench_one(
        "layernorm_gelu",
        {"rows": 4, "hidden": 16},
        {"numpy": R.resolve_systems(["numpy"], None)["numpy"], "disc-ir": _Wrong(), "x": _Broken()},
        warmup=0,
        repeats=3,
        budget_s=0.0,
        bandwidth_gb_s=None,
        log=lambda _msg: None,
    )
    assert record["reference"] == "numpy"
    wrong = record["systems"]["disc-ir"]
    assert wrong["status"] == "ok" and not wrong["correct"] and wrong["rel_err"] > 0.1
    assert record["systems"]["x"] == {
        "status": "error",
        "error": "RuntimeError: cannot compile this",
    }
    payload = {"results": [record]}
    checks = {t["target"].split(":")[0]: t for t in R.target_checks(payload)}
    assert checks["correctness"]["status"] == "MISS"
    assert "layernorm_gelu" in checks["correctness"]["detail"]


def test_measure_helpers() -> None:
    a = np.array([1.0, -2.0], np.float32)
    assert relative_error([a], [a]) == 0.0
    assert relative_error([a + 0.02], [a]) == pytest.approx(0.01)
    assert relative_error([a[:1]], [a]) == math.inf
    assert relative_error([np.array([np.nan, 0.0])], [a]) == math.inf
    assert relative_error([a], [a, a]) == math.inf
    t = time_call(lambda: None, 1, 4, 10.0)
    assert t["samples"] == 4 and t["min_ms"] <= t["median_ms"]
    assert time_call(lambda: None, 0, 30, 0.0)["samples"] == 3  # budget spent: the minimum


def test_interleaved_timing_alternates_systems() -> None:
    """Rounds of one untimed call then a burst of timed calls per system, the
    order rotating every round; each system stops on its own."""
    order: list[str] = []

    def slow() -> None:
        order.append("slow")
        time.sleep(0.002)

    t = time_calls_interleaved(
        {"a": lambda: order.append("a"), "b": lambda: order.append("b"), "slow": slow},
        warmup=1,
        repeats=4,
        budget_s=0.005,
        burst=2,
    )
    assert order[:3] == ["a", "b", "slow"]  # the warmups, one system after the other
    rounds = order[3:]
    # round 1: a, b, slow (1 untimed + 2 timed each); round 2 starts with b
    assert rounds[:9] == ["a"] * 3 + ["b"] * 3 + ["slow"] * 3
    assert rounds[9:12] == ["b"] * 3
    assert t["a"]["samples"] == t["b"]["samples"] == 4
    assert t["slow"]["samples"] == 3  # its budget was spent after the minimum of 3 calls
    assert t["slow"]["median_ms"] >= 2.0 > t["a"]["median_ms"]


def test_target_checks_figures() -> None:
    payload = {
        "results": [
            {
                "model": "softmax",
                "tag": "rows=4096,cols=768",
                "memory_bound": True,
                "systems": {
                    "disc-ir": {
                        "status": "ok",
                        "ratio_to_xla": 0.9,
                        "rel_err": 1e-7,
                        "compile_s": 0.5,
                        "compile_phases": {"export": 0.4, "parse": 0.02, "jit": 0.08},
                    },
                    "xla": {"status": "ok", "ratio_to_xla": 1.0},
                },
            }
        ],
        "dynamic_workload": {
            "rows": list(range(32)),
            "speedup_vs_xla": 4.0,
            "systems": {"disc-ir": {"total_s": 2.0, "compile_s": 1.5}, "xla": {"total_s": 8.0}},
        },
        "encoder": {
            "runs": [
                {"layers": 6, "disc_compile_s": 7.0, "disc_export_s": 0.3},
                {
                    "layers": 12,
                    "disc_compile_s": 16.0,
                    "disc_export_s": 0.5,
                    "xla_compile_s": 0.4,
                    "compile_vs_xla": 40.0,
                },
                {"layers": 24, "disc_compile_s": 31.0, "disc_export_s": 0.9},
            ]
        },
    }
    status = {t["target"].split(":")[0].split(" (")[0]: t for t in R.target_checks(payload)}
    scaling = status["BERT encoder compile scaling"]
    assert scaling["status"] == "MISS"  # 6 -> 12 more than doubles
    assert scaling["detail"] == "6 -> 12: 2.29x, 12 -> 24: 1.94x"
    assert status["memory-bound graphs"]["status"] == "PASS"
    assert "softmax 0.90x" in status["memory-bound graphs"]["detail"]
    assert status["dynamic shapes"]["status"] == "MISS"
    assert status["BERT-base encoder, 12 layers"]["status"] == "MISS"
    vs_xla = status["BERT encoder compile"]
    assert vs_xla["status"] == "MISS"
    assert vs_xla["detail"] == "12 layers 40.0x (16.00 s / 0.40 s)"
    # the jax export is not disc-ir's compile time
    compile_check = status["memory-bound graphs' compile"]
    assert compile_check["status"] == "PASS"
    assert compile_check["detail"] == "softmax 0.10 s"


def test_peak_rss_subprocess() -> None:
    out = peak_rss("numpy", "bias_gelu", {"rows": 3, "hidden": 8}, timeout_s=120)
    assert "error" not in out, out
    assert 0 < out["baseline_mb"] <= out["peak_mb"]
    bad = peak_rss("numpy", "no_such_model", {}, timeout_s=120)
    assert "no_such_model" in bad["error"]
