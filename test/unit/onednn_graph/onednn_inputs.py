"""Random inputs for oneDNN Graph JSON graphs and the comparison of outputs with the reference."""

from __future__ import annotations

from typing import Any

import numpy as np

from disc_ir.frontends.onednn_graph import parse_graph

#: (op kind, input index) whose values must be positive
_POSITIVE = {
    ("Log", 0), ("Sqrt", 0), ("Reciprocal", 0), ("Divide", 1), ("Pow", 0),
    ("BatchNormInference", 4), ("BatchNormTrainingBackward", 3), ("BatchNormForwardTraining", 2),
}  # fmt: skip

NP_DTYPES = {"f32": np.float32, "s32": np.int32, "boolean": np.bool_}


def positive_ids(graph: dict[str, Any]) -> set[int]:
    out = set()
    for op in graph["graph"]:
        for i, t in enumerate(op["inputs"]):
            if (op["kind"], i) in _POSITIVE:
                out.add(t["id"])
    return out


def make_inputs(
    graph: dict[str, Any], seed: int = 0, shapes: dict[int, tuple[int, ...]] | None = None
) -> dict[int, np.ndarray]:
    """`{input port id: array}` at the JSON's shapes (or `shapes[id]`)."""
    g = parse_graph(graph)
    rng = np.random.default_rng(seed)
    pos = positive_ids(graph)
    out = {}
    for t in g.inputs:
        shape = (shapes or {}).get(t.id, t.shape)
        if -1 in shape:
            raise ValueError(f"tensor {t.id} has dynamic dims: give its shape")
        if t.dtype == "boolean":
            a = rng.random(shape) < 0.5
        elif t.dtype == "s32":
            a = rng.integers(-5, 5, shape).astype(np.int32)
        elif t.id in pos:
            a = rng.uniform(0.5, 1.5, shape).astype(np.float32)
        else:
            a = (0.25 * rng.standard_normal(shape)).astype(np.float32)
        out[t.id] = a
    return out


def rel_error(got: np.ndarray, want: np.ndarray) -> float:
    """max |got - want| / max |want| (0 when both are all zero); exact for ints and booleans."""
    if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
        return 0.0 if np.array_equal(got, want) else 1.0
    want = want.astype(np.float64)
    got = got.astype(np.float64)
    if got.shape != want.shape:
        return float("inf")
    finite = np.isfinite(want)
    if not np.array_equal(np.isfinite(got), finite) or not np.array_equal(
        got[~finite], want[~finite]
    ):
        return float("inf")
    scale = np.abs(want[finite]).max(initial=0.0)
    err = np.abs(got[finite] - want[finite]).max(initial=0.0)
    return 0.0 if err == 0 else err / max(scale, 1e-30)
