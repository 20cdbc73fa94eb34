"""The fuzzer's tie-break (`reference.py`, `runner.judge`) on graphs whose answer is known."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("jax")

from .graph import Graph  # noqa: E402
from .reference import precise_outputs  # noqa: E402
from .runner import judge  # noqa: E402


def _graph(inputs: list[tuple[list[int], str]], ops: list[dict[str, Any]]) -> Graph:
    values: list[dict[str, Any]] = [{"input": {"shape": s, "dtype": d}} for s, d in inputs]
    values += ops
    return Graph(0, values, [len(values) - 1])


def test_f16_sum_is_the_exact_sum_rounded_once():
    # 2048 + 1 + 1 in f16: left to right gives 2048 (each +1 is a tie to even), exactly 2050
    g = _graph(
        [([3], "float16")],
        [
            {
                "op": "reduce",
                "args": [0],
                "params": {"fn": "sum", "axis": 0, "keepdims": False},
                "shape": [],
                "dtype": "float16",
            }
        ],
    )
    (out,) = precise_outputs(g, [np.array([2048, 1, 1], np.float16)])
    assert out.dtype == np.float16 and float(out) == 2050.0


def test_min_and_max_reductions_propagate_nan():
    for fn in ("min", "max"):
        g = _graph(
            [([4], "float32")],
            [
                {
                    "op": "reduce",
                    "args": [0],
                    "params": {"fn": fn, "axis": 0, "keepdims": False},
                    "shape": [],
                    "dtype": "float32",
                }
            ],
        )
        (out,) = precise_outputs(g, [np.array([1.0, np.nan, -np.inf, np.inf], np.float32)])
        assert np.isnan(out)


def test_convolution_padding_multiplies_infinite_weights():
    # SAME padding of a width-3 window: the first output's left tap is padding x inf = NaN
    g = _graph(
        [([1, 1, 4], "float32"), ([1, 1, 3], "float32")],
        [
            {
                "op": "conv",
                "args": [0, 1],
                "params": {"stride": [1], "padding": "SAME", "dilation": [1], "groups": 1},
                "shape": [1, 1, 4],
                "dtype": "float32",
            }
        ],
    )
    x = np.ones((1, 1, 4), np.float32)
    w = np.array([[[np.inf, 1.0, 1.0]]], np.float32)
    (out,) = precise_outputs(g, [x, w])
    assert np.isnan(out[0, 0, 0]) and np.isposinf(out[0, 0, 1:]).all()


def _sum_graph(then: dict[str, Any] | None = None) -> Graph:
    ops = [
        {
            "op": "reduce",
            "args": [0],
            "params": {"fn": "sum", "axis": 0, "keepdims": False},
            "shape": [],
            "dtype": "float32",
        }
    ]
    if then is not None:
        ops.append({**then, "args": [1], "shape": [], "dtype": "float32"})
    return _graph([([64], "float32")], ops)


def test_judge_calls_a_disagreement_xla_got_wrong_a_deviation():
    g = _sum_graph()
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    exact = np.float32(np.sum(x.astype(np.float64)))
    verdict = judge(g, [x], [exact], [np.float32(exact + 1.0)], None, 0)
    assert verdict["verdict"] == "xla-deviation"


def test_judge_calls_a_wrong_answer_at_well_conditioned_inputs_a_mismatch():
    g = _sum_graph()
    x = np.random.default_rng(0).standard_normal(64).astype(np.float32)
    exact = np.float32(np.sum(x.astype(np.float64)))
    for want in (exact, np.float32(exact - 1.0)):  # whether or not XLA is right
        verdict = judge(g, [x], [np.float32(exact + 1.0)], [want], None, 0)
        assert verdict["verdict"] == "mismatch"


def test_judge_redraws_where_rounding_decides_the_answer():
    # remainder(sum, 1): the sum's last bit, which two correct orders may round
    # differently, moves the answer by an ulp of the sum, far beyond tolerance
    g = _sum_graph(
        {"op": "binary", "params": {"fn": "remainder", "scalar": 1.0, "scalar_left": False}}
    )
    x = (np.random.default_rng(1).standard_normal(64) * 100).astype(np.float32)
    total = np.float32(np.sum(x.astype(np.float64)))
    (exact,) = precise_outputs(g, [x])
    assert exact == np.remainder(total, np.float32(1))
    other_order = np.remainder(np.nextafter(total, np.float32(np.inf)), np.float32(1))
    verdict = judge(g, [x], [other_order], [exact], None, 0)
    assert verdict["verdict"] == "ill-conditioned"


def test_dot_sums_start_at_positive_zero():
    g = _graph(
        [([1, 1], "float32"), ([1, 1], "float32")],
        [
            {
                "op": "dot",
                "args": [0, 1],
                "params": {"kind": "matmul"},
                "shape": [1, 1],
                "dtype": "float32",
            }
        ],
    )
    (out,) = precise_outputs(g, [np.array([[-1.0]], np.float32), np.array([[0.0]], np.float32)])
    assert out[0, 0] == 0 and not np.signbit(out[0, 0])


def test_gelu_is_evaluated_as_the_graph_computes_it():
    # tanh-form gelu at x = -6 in f32: tanh(y) rounds to -1, so the graph's own
    # 1 + tanh(y) is 0 (a whole-op float64 evaluation would give -6e-8); and one
    # ulp of tanh's result makes it nonzero, which the reciprocal after it shows
    g = _graph(
        [([1], "float32")],
        [
            {
                "op": "unary",
                "args": [0],
                "params": {"fn": "gelu"},
                "shape": [1],
                "dtype": "float32",
            },
            {
                "op": "unary",
                "args": [1],
                "params": {"fn": "reciprocal"},
                "shape": [1],
                "dtype": "float32",
            },
        ],
    )
    x = np.array([-6.0], np.float32)
    (out,) = precise_outputs(g, [x])
    assert np.isneginf(out[0])
    verdict = judge(g, [x], [np.array([-1e7], np.float32)], [out], None, 0)
    assert verdict["verdict"] == "ill-conditioned"


def test_judge_calls_a_product_that_overflows_in_some_order_ill_conditioned():
    # cumprod of [300, 300, 0] in f16: accumulated in f16, 300 * 300 overflows and
    # inf * 0 gives NaN; in float32 (or exactly) the last prefix product is 0
    g = _graph(
        [([3], "float16")],
        [
            {
                "op": "window",
                "args": [0],
                "params": {"kind": "cumprod", "axis": 0, "padding": "SAME", "stride": 1,
                           "window": 3},
                "shape": [3],
                "dtype": "float16",
            }
        ],
    )  # fmt: skip
    x = np.array([300, 300, 0], np.float16)
    (exact,) = precise_outputs(g, [x])
    assert exact[2] == 0
    in_f16 = np.array([300, np.inf, np.nan], np.float16)
    verdict = judge(g, [x], [in_f16], [exact], "float16", 0)
    assert verdict["verdict"] == "ill-conditioned"
