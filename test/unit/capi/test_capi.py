"""The RFC's usage example as a test: run_graphs.c, compiled with the system C compiler,
dlopens libdisc_graph_compiler.so, compiles oneDNN Graph JSON files, executes them on
buffers laid out by the JSON's strides and compares with the numpy reference."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from capi_manifest import Manifest, as_laid_out
from onednn_builder import graph, lt, op
from onednn_inputs import make_inputs
from onednn_reference import run_reference

from disc_ir.capi.build import LIBRARY_NAME, build

HERE = Path(__file__).parent
DATA = Path(__file__).resolve().parent.parent / "data" / "onednn_graph"
GRAPHS = sorted(DATA.glob("*/*.json"))

# dnnl_status_t
INVALID_ARGUMENTS, UNIMPLEMENTED, INVALID_GRAPH, INVALID_GRAPH_OP, INVALID_SHAPE = 2, 3, 7, 8, 9


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the library, the compiled C driver)."""
    cc = shutil.which("cc")
    assert cc is not None, "the C API tests need the system C compiler `cc`"
    out = tmp_path_factory.mktemp("capi")
    lib = build(out)
    assert lib.name == LIBRARY_NAME and (out / "dnnl_graph_compiler.h").exists()
    exe = out / "run_graphs"
    subprocess.run(
        [cc, "-O1", "-Wall", "-Wextra", "-Werror", f"-I{out}", str(HERE / "run_graphs.c"),
         "-o", str(exe), "-ldl", "-lpthread", "-lm"],
        check=True,
    )  # fmt: skip
    return lib, exe


def _run(driver: tuple[Path, Path], manifest: Manifest) -> str:
    lib, exe = driver
    r = subprocess.run(
        [str(exe), str(lib), str(manifest.write())], capture_output=True, text=True, timeout=1200
    )
    assert r.returncode == 0, r.stdout[-8000:] + r.stderr[-4000:]
    assert "0 failure(s)" in r.stdout
    return r.stdout


def _case(
    m: Manifest, raw: dict, seed: int, shapes: dict | None = None, command: str = "exec"
) -> None:
    ins = as_laid_out(raw, make_inputs(raw, seed=seed, shapes=shapes))
    m.case(raw, ins, run_reference(raw, ins), command=command)


def test_every_shared_graph_through_the_c_api(driver: tuple[Path, Path], tmp_path: Path) -> None:
    m = Manifest(tmp_path)
    for path in GRAPHS:
        raw = json.loads(path.read_text())
        m.compile(raw, f"{path.parent.name}_{path.stem}")
        _case(m, raw, seed=11)
        m.destroy()
    out = _run(driver, m)
    assert out.count("executes and matches") == len(GRAPHS)
    assert "allocations" in out


#: graphs not in the shared data, with -1 dims: (graph, shapes to run at)
MLP = graph(
    op(0, "MatMul", [lt(0, [-1, 32]), lt(1, [32, 16])], [lt(2, [-1, 16])]),
    op(1, "BiasAdd", [lt(2, [-1, 16]), lt(3, [16])], [lt(4, [-1, 16])]),
    op(2, "ReLU", [lt(4, [-1, 16])], [lt(5, [-1, 16])]),
    op(3, "MatMul", [lt(5, [-1, 16]), lt(6, [8, 16])], [lt(7, [-1, 8])], transpose_b=True),
    op(4, "SoftMax", [lt(7, [-1, 8])], [lt(8, [-1, 8])], axis=-1),
)
ATTENTION = graph(
    op(
        0,
        "MatMul",
        [lt(0, [1, 4, -1, 16]), lt(1, [1, 4, -1, 16])],
        [lt(2, [1, 4, -1, -1])],
        transpose_b=True,
    ),
    op(1, "Divide", [lt(2, [1, 4, -1, -1]), lt(3, [1])], [lt(4, [1, 4, -1, -1])]),
    op(2, "Add", [lt(4, [1, 4, -1, -1]), lt(5, [1, 1, 1, -1])], [lt(6, [1, 4, -1, -1])]),
    op(3, "SoftMax", [lt(6, [1, 4, -1, -1])], [lt(7, [1, 4, -1, -1])], axis=-1),
    op(4, "MatMul", [lt(7, [1, 4, -1, -1]), lt(8, [1, 4, -1, 16])], [lt(9, [1, 4, -1, 16])]),
    op(5, "StaticTranspose", [lt(9, [1, 4, -1, 16])], [lt(10, [1, -1, 4, 16])], order=[0, 2, 1, 3]),
)
NORM = graph(
    op(
        0,
        "LayerNorm",
        [lt(0, [-1, -1, 24]), lt(1, [24]), lt(2, [24])],
        [lt(3, [-1, -1, 24])],
        keep_stats=False,
    ),
    op(1, "GELU", [lt(3, [-1, -1, 24])], [lt(4, [-1, -1, 24])]),
    op(2, "ReduceMean", [lt(4, [-1, -1, 24])], [lt(5, [-1, -1, 1])], axes=[-1], keep_dims=True),
    op(3, "Subtract", [lt(4, [-1, -1, 24]), lt(5, [-1, -1, 1])], [lt(6, [-1, -1, 24])]),
)


def test_dynamic_graphs_at_several_shapes_from_one_compile(
    driver: tuple[Path, Path], tmp_path: Path
) -> None:
    m = Manifest(tmp_path)
    m.compile(MLP, "mlp")
    for n in (1, 5, 64):
        _case(m, MLP, seed=n, shapes={0: (n, 32)})
    m.destroy()
    m.compile(ATTENTION, "attention")
    for s in (1, 7, 40):
        _case(
            m,
            ATTENTION,
            seed=s,
            shapes={0: (1, 4, s, 16), 1: (1, 4, s, 16), 5: (1, 1, 1, s), 8: (1, 4, s, 16)},
        )
    m.destroy()
    m.compile(NORM, "norm")
    for b, s in ((1, 1), (2, 9), (3, 17)):
        _case(m, NORM, seed=b * s, shapes={0: (b, s, 24)})
    m.destroy()
    out = _run(driver, m)
    assert out.count("executes and matches") == 9


def test_ports_in_any_order_and_a_repeated_port(driver: tuple[Path, Path], tmp_path: Path) -> None:
    """gated-mlp lists input port 0 twice: a caller may pass the list as written, or
    the distinct ports in any order."""
    raw = json.loads((DATA / "complex_fusion/gated-mlp-f32.json").read_text())
    assert raw["input_ports"] == [0, 1, 0, 4, 13]
    ins = as_laid_out(raw, make_inputs(raw, seed=7))
    ref = run_reference(raw, ins)
    m = Manifest(tmp_path)
    m.compile(raw, "gated_mlp")
    m.case(raw, ins, ref, input_order=[0, 1, 0, 4, 13])
    m.case(raw, ins, ref, input_order=[13, 4, 1, 0])
    m.destroy()
    assert _run(driver, m).count("executes and matches") == 2


def test_strided_buffers_and_threads(driver: tuple[Path, Path], tmp_path: Path) -> None:
    """NHWC-physical conv input, a strided q, a transposed output; execute from 4 threads."""
    nhwc = [2 * 8 * 8 * 0 + 8 * 8 * 3, 1, 8 * 3, 3]
    conv = graph(
        op(
            0,
            "Convolution",
            [lt(0, [2, 3, 8, 8], stride=nhwc), lt(1, [4, 3, 3, 3])],
            [lt(2, [2, 4, 6, 6])],
            strides=[1, 1],
            dilations=[1, 1],
            pads_begin=[0, 0],
            pads_end=[0, 0],
            groups=1,
            data_format="NCX",
            weights_format="OIX",
        ),
        op(1, "ReLU", [lt(2, [2, 4, 6, 6])], [lt(3, [2, 4, 6, 6], stride=[144, 1, 24, 4])]),
    )
    q_strided = graph(
        op(
            0,
            "MatMul",
            [lt(0, [2, 5, 8], stride=[80, 16, 1]), lt(1, [2, 8, 3])],
            [lt(2, [2, 5, 3], stride=[1, 2, 10])],
        ),
    )
    m = Manifest(tmp_path)
    m.compile(conv, "conv_nhwc")
    _case(m, conv, seed=1)
    _case(m, conv, seed=2, command="exec_threads 4")
    m.destroy()
    m.compile(q_strided, "q_strided")
    _case(m, q_strided, seed=3)
    m.destroy()
    m.compile(MLP, "mlp_threads")
    _case(m, MLP, seed=4, shapes={0: (33, 32)}, command="exec_threads 8")
    m.destroy()
    _run(driver, m)


def test_failures_are_statuses_with_messages(driver: tuple[Path, Path], tmp_path: Path) -> None:
    m = Manifest(tmp_path)
    m.compile_fail("{ not json", "bad_json", INVALID_GRAPH)
    m.compile_fail(
        json.dumps(graph(op(3, "Frobnicate", [lt(0, [2])], [lt(1, [2])]))),
        "unknown_op",
        UNIMPLEMENTED,
    )
    m.compile_fail(
        json.dumps(graph(op(4, "Elu", [lt(0, [2])], [lt(1, [2])]))),
        "missing_attr",
        INVALID_GRAPH_OP,
    )
    m.compile(MLP, "mlp_bad_dims")
    ins = make_inputs(MLP, shapes={0: (4, 31)})
    ins[1] = ins[1][:31]
    m.case(MLP, ins, {8: ins[0][:, :8]}, command=f"exec_fail {INVALID_SHAPE}")
    m.destroy()
    out = _run(driver, m)
    assert "op 3 (Frobnicate): unknown or unsupported op kind" in out
    assert "op 4 (Elu): missing required attribute 'alpha'" in out
    assert "input tensor 0: dim 1 is 31, the graph says 32" in out
