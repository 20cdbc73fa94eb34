"""Every graph of the shared oneDNN Graph data compiles and matches the numpy reference."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from onednn_inputs import make_inputs, rel_error
from onednn_reference import run_reference

import disc_ir.onednn_graph as og

DATA = Path(__file__).resolve().parent.parent / "data" / "onednn_graph"
GRAPHS = sorted(DATA.glob("*/*.json"))


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_graph_matches_reference(path: Path) -> None:
    raw = json.loads(path.read_text())
    exe = og.compile(path.read_text())
    ins = make_inputs(raw, seed=3)
    outs = exe.execute(ins)
    ref = run_reference(raw, ins)
    assert set(outs) == {t.id for t in exe.outputs}
    for tid, got in outs.items():
        assert got.shape == tuple(ref[tid].shape)
        assert rel_error(got, ref[tid]) <= 1e-4, (tid, rel_error(got, ref[tid]))
    exe.close()


def test_the_data_is_all_there() -> None:
    """benchdnn's f32 pattern and complex-fusion graphs (see data/onednn_graph/README.md)."""
    assert len(list(DATA.glob("pattern/*.json"))) == 54
    assert len(list(DATA.glob("complex_fusion/*.json"))) == 6


def test_graph_without_ports_takes_unproduced_and_unconsumed_tensors() -> None:
    raw = json.loads((DATA / "pattern/binary_post_ops_fusion.json").read_text())
    assert "input_ports" not in raw
    g = og.compile(json.dumps(raw)).graph
    produced = {t["id"] for o in raw["graph"] for t in o["outputs"]}
    consumed = {t["id"] for o in raw["graph"] for t in o["inputs"]}
    assert g.input_ports == sorted(consumed - produced)
    assert g.output_ports == sorted(produced - consumed)


def test_strided_buffers_in_and_out() -> None:
    """NHWC-physical input and a transposed output buffer, through execute_buffers."""
    from onednn_builder import graph, lt, op

    shape = [2, 3, 4, 5]
    nhwc = [60, 1, 15, 3]  # NCHW logical, channels innermost in memory
    out_t = [1, 2, 6, 24]  # column-major output
    raw = graph(
        op(0, "ReLU", [lt(0, shape, stride=nhwc)], [lt(1, shape)]),
        op(1, "Multiply", [lt(1, shape), lt(2, [1, 3, 1, 1])], [lt(3, shape, stride=out_t)]),
    )
    exe = og.compile(json.dumps(raw))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    s = rng.standard_normal([1, 3, 1, 1]).astype(np.float32)
    x_buf = np.ascontiguousarray(np.transpose(x, (0, 2, 3, 1)))  # NHWC memory
    out_buf = np.zeros(120, np.float32)
    s_buf = s.copy()
    exe.execute_buffers(
        [
            og.TensorArg(2, (1, 3, 1, 1), s_buf.ctypes.data),
            og.TensorArg(0, tuple(shape), x_buf.ctypes.data),
        ],
        [og.TensorArg(3, tuple(shape), out_buf.ctypes.data)],
    )
    got = np.lib.stride_tricks.as_strided(out_buf, shape, [v * 4 for v in out_t])
    np.testing.assert_allclose(got, np.maximum(x, 0) * s, rtol=1e-6)


def test_reorder_writes_the_output_layout() -> None:
    """A Reorder from NCHW-physical to NHWC-physical: the output buffer's strides decide."""
    from onednn_builder import graph, lt, op

    shape = [2, 3, 4, 5]
    raw = graph(op(0, "Reorder", [lt(0, shape)], [lt(1, shape, stride=[60, 1, 15, 3])]))
    exe = og.compile(json.dumps(raw))
    x = np.random.default_rng(1).random(shape, dtype=np.float32)
    out = np.zeros(120, np.float32)
    exe.execute_buffers(
        [og.TensorArg(0, tuple(shape), x.ctypes.data)],
        [og.TensorArg(1, tuple(shape), out.ctypes.data)],
    )
    np.testing.assert_array_equal(out.reshape(2, 4, 5, 3), x.transpose(0, 2, 3, 1))
