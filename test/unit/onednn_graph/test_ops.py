"""The op set beyond the shared graphs: one-op graphs against the numpy reference,
dynamic (-1) dims at several shapes from one compile, and the errors."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from onednn_builder import graph, lt, op, single
from onednn_inputs import make_inputs, rel_error
from onednn_reference import run_reference

import disc_ir.onednn_graph as og
from disc_ir.frontends.onednn_graph import OneDnnGraphError, supported_op_kinds

X = [2, 3, 5, 4]

CASES: list[tuple[str, dict[str, Any]]] = [
    (k, single(k, [X], X))
    for k in ["ReLU", "Sigmoid", "Tanh", "Exp", "Abs", "Square", "HardSwish", "Mish", "Round"]
] + [
    ("Log", single("Log", [X], X)),
    ("Sqrt", single("Sqrt", [X], X)),
    ("Reciprocal", single("Reciprocal", [X], X)),
    ("GELU-erf", single("GELU", [X], X)),
    ("GELU-tanh", single("GELU", [X], X, mode="gelu_tanh")),
    ("Elu", single("Elu", [X], X, alpha=0.7)),
    ("LeakyReLU", single("LeakyReLU", [X], X, alpha=0.1)),
    ("Clamp", single("Clamp", [X], X, min=-0.1, max=0.2)),
    ("HardSigmoid", single("HardSigmoid", [X], X, alpha=0.5, beta=0.25)),
    ("SoftPlus", single("SoftPlus", [X], X, beta=2.0)),
    ("Pow", single("Pow", [X], X, beta=1.5)),
    ("SquaredDifference", single("SquaredDifference", [X, [4]], X)),
    ("Maximum-bcast", single("Maximum", [[2, 1, 5, 1], [3, 1, 4]], X)),
    ("Divide", single("Divide", [X, X], X, auto_broadcast="none")),
    ("LogSoftmax", single("LogSoftmax", [X], X, axis=2)),
    ("SoftMax-default-axis", single("SoftMax", [X], X)),
    ("ReduceL2", single("ReduceL2", [X], [2, 4], axes=[1, 2], keep_dims=False)),
    ("ReduceMean-neg-axis", single("ReduceMean", [X], [2, 3, 5, 1], axes=[-1], keep_dims=True)),
    ("Concat", single("Concat", [X, [2, 3, 2, 4]], [2, 3, 7, 4], axis=-2)),
    (
        "StaticReshape",
        single("StaticReshape", [X], [2, 15, 4], shape=[0, -1, 4], special_zero=True),
    ),
    ("StaticTranspose", single("StaticTranspose", [X], [4, 2, 5, 3], order=[3, 0, 2, 1])),
    ("PReLU-channel", single("PReLU", [X, [3]], X, data_format="NCX")),
    ("BiasAdd-NXC", single("BiasAdd", [X, [4]], X)),
    (
        "BatchNormInference-NXC",
        single("BatchNormInference", [X, [4], [4], [4], [4]], X, epsilon=1e-3),
    ),
    (
        "LayerNorm-stats",
        graph(
            op(
                0,
                "LayerNorm",
                [lt(0, X), lt(1, [5, 4]), lt(2, [5, 4])],
                [lt(3, X), lt(4, [2, 3]), lt(5, [2, 3])],
                begin_norm_axis=2,
                epsilon=1e-5,
            )
        ),
    ),
    ("MatMul-1d", single("MatMul", [[6], [2, 6, 3]], [2, 3])),
    (
        "MatMul-batch-bcast-transposed",
        single("MatMul", [[2, 1, 6, 4], [3, 6, 5]], [2, 3, 4, 5], transpose_a=True),
    ),
    ("MatMul-bias", single("MatMul", [[4, 6], [5, 6], [5]], [4, 5], transpose_b=True)),
    (
        "Conv-NXC-XIO-groups-dilated",
        single(
            "Convolution",
            [[1, 9, 9, 4], [3, 3, 2, 6]],
            [1, 5, 5, 6],
            strides=[2, 1],
            dilations=[1, 2],
            pads_begin=[1, 0],
            pads_end=[1, 0],
            groups=2,
        ),
    ),
    (
        "Conv-same-upper-bias",
        single(
            "Convolution",
            [[2, 3, 7, 6], [4, 3, 3, 2], [4]],
            [2, 4, 4, 3],
            strides=[2, 2],
            dilations=[1, 1],
            pads_begin=[0, 0],
            pads_end=[0, 0],
            auto_pad="same_upper",
            data_format="NCX",
            weights_format="OIX",
        ),
    ),
    (
        "Conv1d-valid",
        single(
            "Convolution",
            [[2, 3, 9], [4, 3, 3]],
            [2, 4, 7],
            strides=[1],
            dilations=[1],
            pads_begin=[0],
            pads_end=[0],
            auto_pad="valid",
            data_format="NCX",
            weights_format="OIX",
        ),
    ),
    (
        "ConvTranspose-stride2-outpad",
        single(
            "ConvTranspose",
            [[1, 4, 3, 3], [4, 2, 3, 3]],
            [1, 2, 7, 7],
            strides=[2, 2],
            dilations=[1, 1],
            pads_begin=[0, 0],
            pads_end=[1, 1],
            output_padding=[1, 1],
            data_format="NCX",
            weights_format="IOX",
        ),
    ),
    (
        "ConvTranspose-groups-XIO",
        single(
            "ConvTranspose",
            [[1, 5, 5, 4], [3, 3, 2, 6]],
            [1, 7, 7, 6],
            strides=[1, 1],
            dilations=[1, 1],
            pads_begin=[0, 0],
            pads_end=[0, 0],
            groups=2,
        ),
    ),
    (
        "AvgPool-include-pad-ceil",
        single(
            "AvgPool",
            [[1, 2, 7, 7]],
            [1, 2, 4, 4],
            kernel=[3, 3],
            strides=[2, 2],
            pads_begin=[1, 1],
            pads_end=[1, 1],
            exclude_pad=False,
            rounding_type="ceil",
            data_format="NCX",
        ),
    ),
    (
        "MaxPool-dilated-NXC",
        single(
            "MaxPool",
            [[2, 8, 8, 3]],
            [2, 3, 4, 3],
            kernel=[2, 3],
            strides=[2, 2],
            dilations=[2, 1],
            pads_begin=[0, 1],
            pads_end=[0, 1],
        ),
    ),
    (
        "Interpolate-bilinear-NXC",
        single("Interpolate", [[1, 4, 5, 2]], [1, 7, 3, 2], mode="bilinear", sizes=[7, 3]),
    ),
    (
        "Interpolate-linear-align-corners",
        single(
            "Interpolate",
            [[1, 2, 6]],
            [1, 2, 11],
            mode="linear",
            sizes=[11],
            coordinate_transformation_mode="align_corners",
            data_format="NCX",
        ),
    ),
    (
        "Interpolate-nearest-down",
        single(
            "Interpolate",
            [[1, 2, 9, 7]],
            [1, 2, 4, 3],
            mode="nearest",
            sizes=[4, 3],
            data_format="NCX",
        ),
    ),
    (
        "Select-GreaterEqual",
        graph(
            op(0, "GreaterEqual", [lt(0, X), lt(1, [4])], [lt(2, X, "boolean")]),
            op(1, "Select", [lt(2, X, "boolean"), lt(0, X), lt(3, [1])], [lt(4, X)]),
        ),
    ),
    (
        "TypeCast-GenIndex",
        graph(
            op(0, "GenIndex", [lt(0, X)], [lt(1, X, "s32")], axis=-2),
            op(1, "TypeCast", [lt(1, X, "s32")], [lt(2, X)]),
        ),
    ),
]


@pytest.mark.parametrize("raw", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_op_matches_reference(raw: dict[str, Any]) -> None:
    exe = og.compile(json.dumps(raw))
    ins = make_inputs(raw, seed=5)
    outs = exe.execute(ins)
    ref = run_reference(raw, ins)
    for tid, got in outs.items():
        assert got.shape == tuple(ref[tid].shape)
        assert rel_error(got, ref[tid]) <= 1e-4, (tid, rel_error(got, ref[tid]))


def test_round_halfway_cases_go_to_even() -> None:
    """oneDNN's Round is nearbyint: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2."""
    exe = og.compile(json.dumps(single("Round", [[8]], [8])))
    x = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, -3.51], np.float32)
    np.testing.assert_array_equal(exe.execute({0: x})[100], np.rint(x))


DYNAMIC = graph(
    op(0, "MatMul", [lt(0, [-1, -1, 16]), lt(1, [16, 8])], [lt(2, [-1, -1, 8])]),
    op(1, "BiasAdd", [lt(2, [-1, -1, 8]), lt(3, [8])], [lt(4, [-1, -1, 8])]),
    op(2, "GELU", [lt(4, [-1, -1, 8])], [lt(5, [-1, -1, 8])]),
    op(
        3,
        "LayerNorm",
        [lt(5, [-1, -1, 8]), lt(6, [8]), lt(7, [8])],
        [lt(8, [-1, -1, 8])],
        keep_stats=False,
    ),
    op(4, "SoftMax", [lt(8, [-1, -1, 8])], [lt(9, [-1, -1, 8])], axis=1),
    op(5, "ReduceSum", [lt(9, [-1, -1, 8])], [lt(10, [-1, 1, 8])], axes=[1], keep_dims=True),
    op(
        6,
        "StaticReshape",
        [lt(10, [-1, 1, 8])],
        [lt(11, [-1, 8])],
        shape=[-1, 8],
        special_zero=False,
    ),
)


def test_dynamic_dims_one_compile_several_shapes() -> None:
    exe = og.compile(json.dumps(DYNAMIC))
    for b, s in [(1, 1), (3, 7), (2, 33)]:
        ins = make_inputs(DYNAMIC, seed=b, shapes={0: (b, s, 16)})
        outs = exe.execute(ins)
        ref = run_reference(DYNAMIC, ins)
        assert outs[11].shape == (b, 8)
        assert rel_error(outs[11], ref[11]) <= 1e-4


def test_dynamic_call_with_contradicting_dims_is_an_error() -> None:
    exe = og.compile(json.dumps(DYNAMIC))
    ins = make_inputs(DYNAMIC, shapes={0: (2, 3, 15)})
    with pytest.raises(og.ExecuteError, match="input tensor 0: dim 2 is 15, the graph says 16"):
        exe.execute(ins)


def _error(text: str) -> str:
    with pytest.raises(OneDnnGraphError) as info:
        og.compile(text)
    return str(info.value)


def test_errors_name_the_op_and_the_problem() -> None:
    assert "invalid JSON" in _error("{")
    assert "no 'graph' list" in _error("{}")
    unknown = graph(op(7, "FancyOp", [lt(0, [2])], [lt(1, [2])]))
    msg = _error(json.dumps(unknown))
    assert msg.startswith("op 7 (FancyOp): unknown or unsupported op kind 'FancyOp'")
    missing = single("Elu", [[2]], [2])
    assert "op 0 (Elu): missing required attribute 'alpha'" in _error(json.dumps(missing))
    bad_shape = single("Add", [[2, 3], [4, 3]], [2, 3])
    assert _error(json.dumps(bad_shape)).startswith("op 0 (Add): shapes [2, 3] and [4, 3]")
    wrong_out = single("ReLU", [[2, 3]], [3, 2])
    assert "output logical tensor 100 has shape [3, 2]" in _error(json.dumps(wrong_out))
    bad_attr = single("SoftMax", [[2, 3]], [2, 3], axis=5)
    assert "op 0 (SoftMax): axis 5 is out of range" in _error(json.dumps(bad_attr))
    bad_dtype = single("ReLU", [[2]], [2])
    bad_dtype["graph"][0]["inputs"][0]["dtype"] = "f8"
    assert "op 0 (ReLU), logical tensor 0: unsupported dtype 'f8'" in _error(json.dumps(bad_dtype))
    arity = single("Add", [[2], [2]], [2])
    arity["graph"][0]["inputs"].pop()
    assert "op 0 (Add): takes 2 inputs, got 1" in _error(json.dumps(arity))
    assert "op #0: op without 'id'" in _error(json.dumps({"graph": [{"kind": "ReLU"}]}))


def test_the_issue_op_set_is_supported() -> None:
    wanted = {
        "MatMul", "Add", "Subtract", "Multiply", "Divide", "Maximum", "Minimum", "ReLU", "GELU",
        "Sigmoid", "Tanh", "Elu", "Clamp", "HardSwish", "HardSigmoid", "Mish", "Log", "Exp", "Sqrt",
        "Square", "Abs", "Round", "Reciprocal", "Pow", "SoftMax", "LogSoftmax", "LayerNorm",
        "BatchNormInference", "BiasAdd", "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
        "ReduceProd", "ReduceL1", "ReduceL2", "Convolution", "ConvTranspose", "AvgPool", "MaxPool",
        "Interpolate", "StaticTranspose", "StaticReshape", "Reorder", "Select", "GreaterEqual",
        "Concat", "TypeCast", "End",
    }  # fmt: skip
    assert wanted <= set(supported_op_kinds())
