"""`model.disc` artifacts: `Executable.save`, `disc_ir.runtime.load` without the compiler.

Every zoo model (test/models, static and shape-polymorphic) is compiled,
saved, and loaded in a fresh Python process that imports neither xDSL nor
disc-ir's compiler (checked on `sys.modules`); its outputs through both
APIs (`__call__` and `set_input`/`run`/`get_output`) must be bit-identical
to the Executable's at every test size. The refusals: another format version,
a CPU lacking a feature the code uses, another architecture or GPU arch,
truncated and corrupted files.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
import threading
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import disc_ir
from disc_ir.runtime import ArtifactError, RalInputError, load
from disc_ir.runtime.artifact import CONSTANTS_ALIGNMENT, FORMAT_VERSION, read_artifact

ROOT = Path(__file__).resolve().parents[2]
MODELS_DIR = ROOT / "test" / "models"


def _zoo() -> Any:
    if "zoo" in sys.modules:
        return sys.modules["zoo"]
    spec = importlib.util.spec_from_file_location("zoo", MODELS_DIR / "zoo.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["zoo"] = module
    spec.loader.exec_module(module)
    return module


zoo = _zoo()
ZOO_CASES = [
    (name, dynamic)
    for name, model in zoo.MODELS.items()
    for dynamic in ((False, True) if model.dynamic else (False,))
]

#: runs in a fresh interpreter: loads each artifact, runs it through both APIs
#: and stores the outputs; fails if xDSL or the compiler got imported
_LOADER = textwrap.dedent(
    """
    import sys, json
    import numpy as np
    from disc_ir.runtime import load
    jobs = json.load(open(sys.argv[1]))
    for job in jobs:
        m = load(job["artifact"])
        args = np.load(job["inputs"])
        arrays = [args[f"arr_{i}"] for i in range(len(args.files))]
        outs = m(*arrays)
        g = m.fork()
        for i, a in enumerate(arrays):
            g.set_input(i, a)
        g.run()
        outs2 = [g.get_output(i) for i in range(g.get_num_outputs())]
        assert len(outs2) == len(outs)
        # a static graph's calls followed its memory plan
        assert m._model.ral.get_driver("cpu").plan_departures == 0
        np.savez(job["outputs"], *outs, *outs2)
    from disc_ir.runtime import native
    # the RAL's native dispatcher came from the artifact: nothing was compiled here
    assert native._RUNTIME is not None and native._RUNTIME.from_object
    compiler = sorted(
        n for n in sys.modules
        if n == "xdsl" or n.startswith("xdsl.")
        or (n.startswith("disc_ir.") and not n.startswith(("disc_ir.runtime", "disc_ir.config")))
    )
    assert not compiler, compiler
    print("OK", len(jobs))
    """
)


def _run_loader(jobs: list[dict[str, str]], tmp_path: Path) -> None:
    spec = tmp_path / "jobs.json"
    spec.write_text(json.dumps(jobs))
    proc = subprocess.run(
        [sys.executable, "-c", _LOADER, str(spec)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert proc.stdout.strip() == f"OK {len(jobs)}"


def _check_round_trip(exe: Any, arg_sets: list[list[np.ndarray]], tmp_path: Path, tag: str) -> None:
    artifact = tmp_path / f"{tag}.disc"
    exe.save(artifact)
    jobs, expected = [], []
    for k, args in enumerate(arg_sets):
        np.savez(tmp_path / f"{tag}.{k}.in.npz", *args)
        expected.append([np.asarray(o) for o in exe(*args)])
        jobs.append(
            {
                "artifact": str(artifact),
                "inputs": str(tmp_path / f"{tag}.{k}.in.npz"),
                "outputs": str(tmp_path / f"{tag}.{k}.out.npz"),
            }
        )
    _run_loader(jobs, tmp_path)
    for job, want in zip(jobs, expected, strict=True):
        got = np.load(job["outputs"])
        assert len(got.files) == 2 * len(want)
        for i, w in enumerate(want):
            for j in (i, i + len(want)):
                g = got[f"arr_{j}"]
                assert g.dtype == w.dtype and g.shape == w.shape, (tag, i)
                assert g.tobytes() == w.tobytes(), f"{tag}: output {i} differs"


@pytest.mark.parametrize(
    ("name", "dynamic"), ZOO_CASES, ids=[n + ("_dyn" if d else "") for n, d in ZOO_CASES]
)
def test_zoo_round_trip_without_the_compiler(name: str, dynamic: bool, tmp_path: Path) -> None:
    model = zoo.get(name)
    path = MODELS_DIR / f"{name}{'_dyn' if dynamic else ''}.mlir"
    exe = disc_ir.compile(path.read_text(), keep_ir=False)
    sizes = model.test_sizes if dynamic else model.test_sizes[:1]
    arg_sets = [model.make_args(model.sizes_with(**s), seed=k) for k, s in enumerate(sizes)]
    _check_round_trip(exe, arg_sets, tmp_path, name)


# A graph with constants (they go to the artifact's mapped constants member),
# a splat, dynamic dims tied by an equality, and two outputs.
CONST_GRAPH = """
func.func @main(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %w = mhlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [0.5, 0.25, -1.0, 8.0], [3.0, -2.0, 1.5, 0.0],
                            [2.0, 2.0, 2.0, 2.0]]> : tensor<4x4xf32>
  %b = mhlo.constant dense<[0.1, 0.2, 0.3, 0.4]> : tensor<4xf32>
  %two = mhlo.constant dense<2.0> : tensor<f32>
  %d = "mhlo.dot"(%x, %w) : (tensor<?x4xf32>, tensor<4x4xf32>) -> tensor<?x4xf32>
  %shape = shape.shape_of %x : tensor<?x4xf32> -> tensor<2xindex>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %shape) {broadcast_dimensions = dense<1> : tensor<1xi64>}
      : (tensor<4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %s = mhlo.add %d, %bb : tensor<?x4xf32>
  %t = mhlo.tanh %s : tensor<?x4xf32>
  %m = mhlo.multiply %t, %y : tensor<?x4xf32>
  %tw = "mhlo.dynamic_broadcast_in_dim"(%two, %shape) {broadcast_dimensions = dense<> : tensor<0xi64>}
      : (tensor<f32>, tensor<2xindex>) -> tensor<?x4xf32>
  %r = mhlo.multiply %m, %tw : tensor<?x4xf32>
  return %r, %t : tensor<?x4xf32>, tensor<?x4xf32>
}
"""


@pytest.fixture(scope="module")
def const_exe() -> Any:
    return disc_ir.compile(CONST_GRAPH, keep_ir=False)


def _xy(n: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal((n, 4)).astype(np.float32) for _ in range(2)]


def test_constants_round_trip_at_several_shapes(const_exe: Any, tmp_path: Path) -> None:
    assert const_exe.constants, "the graph should keep constants"
    _check_round_trip(const_exe, [_xy(n, n) for n in (1, 3, 17, 64)], tmp_path, "consts")


def test_constants_member_is_aligned_and_mapped(const_exe: Any, tmp_path: Path) -> None:
    path = tmp_path / "c.disc"
    const_exe.save(path)
    with zipfile.ZipFile(path) as zf:
        info = zf.infolist()[0]
        assert info.filename == "constants.bin" and info.compress_type == zipfile.ZIP_STORED
        offset = info.header_offset + 30 + len(info.filename) + len(info.extra)
    assert offset % CONSTANTS_ALIGNMENT == 0
    contents = read_artifact(path)
    assert bytes(contents.constants_buffer) == path.read_bytes()[offset : offset + info.file_size]
    for _dtype, _shape, data in contents.constants.values():
        assert isinstance(data, memoryview)
    m = load(path)
    x, y = _xy(5)
    want = const_exe(x, y)
    got = m(x, y)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(got, want, strict=True))
    # the constants the code reads are views of the mapping, not copies
    table = m._model.ral.constants_table()
    assert all(isinstance(v[2], memoryview) for v in table.values())


def test_graph_executor_api(const_exe: Any, tmp_path: Path) -> None:
    path = tmp_path / "c.disc"
    const_exe.save(path)
    m = load(path)
    assert m.get_num_inputs() == 2 and m.get_num_outputs() == 2
    shapes, dtypes = m.get_input_info()
    (sx, sy) = shapes.values()
    assert sx[1] == 4 and isinstance(sx[0], str) and sx[0] == sy[0]  # one symbol: equal sizes
    assert set(dtypes.values()) == {"float32"}
    x, y = _xy(6)
    name_x = list(shapes)[0]
    m.set_input(name_x, x)
    m.set_input(1, y)
    m.run()
    want = const_exe(x, y)
    out = np.empty_like(want[0])
    assert m.get_output(0, out) is out and out.tobytes() == want[0].tobytes()
    assert m.get_output(1).tobytes() == want[1].tobytes()
    with pytest.raises(IndexError):
        m.get_output(2)
    with pytest.raises(KeyError, match="no input named 'nope'"):
        m.set_input("nope", x)
    with pytest.raises(RuntimeError, match="before run"):
        m.fork().get_output(0)
    with pytest.raises(RalInputError, match="was not set"):
        m.fork().run()


def test_same_input_checks_as_the_executable(const_exe: Any, tmp_path: Path) -> None:
    path = tmp_path / "c.disc"
    const_exe.save(path)
    m = load(path)
    x, y = _xy(3)
    bad = [
        (x.astype(np.float64), y),
        (x[None], y),
        (x[:, :3], y[:, :3]),
        (x, _xy(4)[1]),
        (x,),
    ]
    for args in bad:
        with pytest.raises(RalInputError) as want:
            const_exe(*args)
        with pytest.raises(RalInputError) as got:
            m(*args)
        assert str(got.value) == str(want.value)


class _DLPackOnly:
    """Exposes an array only through the DLPack protocol."""

    def __init__(self, array: np.ndarray) -> None:
        self._array = array

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self) -> Any:
        return self._array.__dlpack_device__()


def test_dlpack_in_and_out(const_exe: Any, tmp_path: Path) -> None:
    path = tmp_path / "c.disc"
    const_exe.save(path)
    m = load(path)
    x, y = _xy(7)
    got = m(_DLPackOnly(x), _DLPackOnly(y))
    want = const_exe(x, y)
    assert got[0].tobytes() == want[0].tobytes()
    back = np.from_dlpack(got[0])  # outputs are DLPack producers
    assert back.tobytes() == want[0].tobytes()


def test_concurrent_calls_on_one_module(const_exe: Any, tmp_path: Path) -> None:
    path = tmp_path / "c.disc"
    const_exe.save(path)
    m = load(path)
    cases = [_xy(n, n) for n in range(1, 41)]
    expected = [const_exe(*c) for c in cases]
    errors: list[str] = []

    def worker(k: int) -> None:
        executor = m.fork()
        for round_ in range(5):
            for i in range(k, len(cases), 4):
                if (round_ + i) % 2:
                    got = m(*cases[i])
                else:
                    executor.set_input(0, cases[i][0])
                    executor.set_input(1, cases[i][1])
                    executor.run()
                    got = tuple(executor.get_output(j) for j in range(2))
                for a, b in zip(got, expected[i], strict=True):
                    if a.tobytes() != b.tobytes():
                        errors.append(f"case {i} differs in thread {k}")

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]


def test_executable_load_gives_an_executable(const_exe: Any, tmp_path: Path) -> None:
    path = tmp_path / "c.disc"
    const_exe.save(path)
    exe = disc_ir.Executable.load(path)
    x, y = _xy(4)
    assert exe(x, y)[0].tobytes() == const_exe(x, y)[0].tobytes()
    with pytest.raises(RuntimeError, match="loaded from a saved artifact"):
        _ = exe.llvm_ir
    again = tmp_path / "again.disc"
    exe.save(again)
    assert load(again)(x, y)[1].tobytes() == const_exe(x, y)[1].tobytes()


# -- refusals -------------------------------------------------------------------


def _rewrite(src: Path, dst: Path, edit_manifest: Any = None, edit_member: Any = None) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_STORED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "manifest.json" and edit_manifest is not None:
                manifest = json.loads(data)
                edit_manifest(manifest)
                data = json.dumps(manifest).encode()
            elif edit_member is not None:
                data = edit_member(info.filename, data)
            zout.writestr(info.filename, data)


@pytest.fixture(scope="module")
def saved(const_exe: Any, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("artifact") / "model.disc"
    const_exe.save(path)
    return path


def test_refuses_another_format_version(saved: Path, tmp_path: Path) -> None:
    bad = tmp_path / "v.disc"
    _rewrite(saved, bad, lambda m: m.update(format_version=FORMAT_VERSION + 1))
    with pytest.raises(ArtifactError) as err:
        load(bad)
    text = str(err.value)
    assert f"format version {FORMAT_VERSION + 1}" in text
    assert f"reads format version {FORMAT_VERSION}" in text


def test_refuses_a_cpu_lacking_features(saved: Path, tmp_path: Path) -> None:
    import llvmlite.binding as llvm

    absent = sorted(name for name, on in llvm.get_host_cpu_features().items() if not on)
    assert absent, "this host has every feature LLVM knows"
    bad = tmp_path / "f.disc"
    _rewrite(
        saved,
        bad,
        lambda m: m.update(cpu_features=m["cpu_features"] + f",+{absent[0]}", cpu="futurecpu"),
    )
    with pytest.raises(ArtifactError) as err:
        load(bad)
    text = str(err.value)
    assert f"+{absent[0]}" in text and "futurecpu" in text
    assert llvm.get_host_cpu_name() in text


def test_refuses_another_architecture(saved: Path, tmp_path: Path) -> None:
    bad = tmp_path / "a.disc"
    _rewrite(saved, bad, lambda m: m.update(triple="aarch64-unknown-linux-gnu"))
    with pytest.raises(ArtifactError, match="aarch64-unknown-linux-gnu.*this machine is"):
        load(bad)


def test_refuses_another_gpu_arch(saved: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from disc_ir.runtime import cuda_libs
    from disc_ir.runtime.graph_executor import check_gpu

    monkeypatch.setattr(cuda_libs, "device_compute_capability", lambda ordinal=0: (8, 0))
    with pytest.raises(ArtifactError, match="for sm_90, CUDA device 0 is sm_80"):
        check_gpu({"gpu_arch": "sm_90"}, 0, "m.disc")
    check_gpu({"gpu_arch": "sm_80"}, 0, "m.disc")
    monkeypatch.setattr(cuda_libs, "device_compute_capability", lambda ordinal=0: None)
    with pytest.raises(ArtifactError, match=r"needs a CUDA device \(sm_90\); none found"):
        check_gpu({"gpu_arch": "sm_90"}, 0, "m.disc")
    with pytest.raises(ArtifactError, match="'cpu' artifact cannot run on device 'cuda'"):
        load(saved, device="cuda")
    with pytest.raises(ValueError, match="unknown device 'tpu'"):
        load(saved, device="tpu")


@pytest.mark.parametrize("keep", [0, 10, 100, 1000, -22, -1])
def test_refuses_truncated_files(saved: Path, tmp_path: Path, keep: int) -> None:
    raw = saved.read_bytes()
    bad = tmp_path / "t.disc"
    bad.write_bytes(raw[:keep] if keep >= 0 else raw[:keep])
    with pytest.raises(ArtifactError, match="t.disc"):
        load(bad)


def test_refuses_corrupted_files(saved: Path, tmp_path: Path) -> None:
    raw = bytearray(saved.read_bytes())
    with zipfile.ZipFile(saved) as zf:
        infos = {i.filename: i for i in zf.infolist()}
    for member in ("constants.bin", "code/000.o", "manifest.json"):
        info = infos[member]
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
        flipped = bytearray(raw)
        flipped[start + info.file_size // 2] ^= 0x5A
        bad = tmp_path / "c.disc"
        bad.write_bytes(bytes(flipped))
        with pytest.raises(ArtifactError, match="corrupted|not a readable|CRC"):
            load(bad)
    # a member replaced by a well-formed one whose digest differs
    bad = tmp_path / "d.disc"
    _rewrite(
        saved,
        bad,
        edit_member=lambda n, d: d[:-1] + bytes([d[-1] ^ 1]) if n.startswith("code/") else d,
    )
    with pytest.raises(ArtifactError, match="does not match its SHA-256"):
        load(bad)
    (tmp_path / "x.disc").write_text("not a zip")
    with pytest.raises(ArtifactError):
        load(tmp_path / "x.disc")
    with pytest.raises(ArtifactError, match="cannot open"):
        load(tmp_path / "missing.disc")
    for broken in ({"signature": None}, {"exported": ["other"]}, {"signature": {"inputs": [{}]}}):
        bad = tmp_path / "m.disc"
        _rewrite(saved, bad, lambda m, b=broken: m.update(b))
        with pytest.raises(ArtifactError, match="corrupted manifest"):
            load(bad)
        with pytest.raises(ArtifactError, match="corrupted manifest"):
            disc_ir.Executable.load(bad)
    other = tmp_path / "o.disc"
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(ArtifactError, match="not a disc-ir artifact"):
        load(other)


# -- disc-compile and cross compilation ---------------------------------------------


def test_disc_compile_writes_an_artifact(tmp_path: Path) -> None:
    from disc_ir.tools.disc_compile import main

    src = tmp_path / "g.mlir"
    src.write_text(CONST_GRAPH)
    out = tmp_path / "model.disc"
    assert main([str(src), "-o", str(out)]) == 0
    m = load(out)
    exe = disc_ir.compile(CONST_GRAPH)
    x, y = _xy(9)
    assert all(a.tobytes() == b.tobytes() for a, b in zip(m(x, y), exe(x, y), strict=True))
    assert main([str(src), "--artifact"]) == 1  # no -o file


def test_cross_compiled_artifacts(tmp_path: Path) -> None:
    import llvmlite.binding as llvm

    from disc_ir.api import compile_to_artifact

    generic = tmp_path / "generic.disc"
    manifest = compile_to_artifact(CONST_GRAPH, generic, cpu="x86-64", cpu_features="+sse2")
    assert manifest["cpu"] == "x86-64" and manifest["cpu_features"] == "+sse2"
    x, y = _xy(11)
    want = disc_ir.compile(CONST_GRAPH)(x, y)
    got = load(generic)(x, y)
    for a, b in zip(got, want, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    arm = tmp_path / "arm.disc"
    compile_to_artifact(
        CONST_GRAPH, arm, target_triple="aarch64-unknown-linux-gnu", cpu="neoverse-v1"
    )
    with pytest.raises(ArtifactError, match="aarch64-unknown-linux-gnu.*this machine is"):
        load(arm)
    absent = sorted(n for n, on in llvm.get_host_cpu_features().items() if not on)
    needy = tmp_path / "needy.disc"
    compile_to_artifact(CONST_GRAPH, needy, cpu="x86-64", cpu_features=f"+sse2,+{absent[0]}")
    with pytest.raises(ArtifactError, match=f"lacks: \\+{absent[0]}"):
        load(needy)
    with pytest.raises(disc_ir.CompileError, match="unknown target triple"):
        compile_to_artifact(CONST_GRAPH, tmp_path / "x.disc", target_triple="nonsense-foo-bar")


# -- graphs this file has not seen: the fuzzer's random JAX graphs ---------------------


@pytest.mark.parametrize("seed", [3, 11, 29, 42, 57, 64])
def test_random_graphs_round_trip(seed: int, tmp_path: Path) -> None:
    """A random shape-polymorphic JAX graph (test/fuzz), compiled, saved, loaded
    without the compiler and called through both APIs at the fuzzer's bindings."""
    jax = pytest.importorskip("jax")
    jax.config.update("jax_platforms", "cpu")
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from test.fuzz.graph import generate, input_specs, to_function
    from test.fuzz.runner import BINDINGS, make_inputs

    graph = generate(seed)
    try:
        text = jax.export.export(jax.jit(to_function(graph)), platforms=("cpu",))(
            *input_specs(graph)
        ).mlir_module()
    except Exception as exc:  # noqa: BLE001 - a graph jax cannot export is no test of ours
        pytest.skip(f"jax cannot export graph {seed}: {exc}")
    try:
        exe = disc_ir.compile(text, keep_ir=False)
    except disc_ir.CompileError as exc:
        pytest.skip(f"graph {seed} uses what disc-ir refuses: {exc}")
    arg_sets = []
    for binding in BINDINGS:
        binding = {k: v for k, v in binding.items() if k in graph.symbols()}
        arrays = [np.asarray(a) for a in make_inputs(graph, binding, seed)]
        arrays = [a.view(np.uint16) if a.dtype.name == "bfloat16" else a for a in arrays]
        try:
            exe(*arrays)
        except RalInputError:
            continue  # outside the graph's domain (the loaded module refuses it alike)
        arg_sets.append(arrays)
    assert arg_sets
    _check_round_trip(exe, arg_sets, tmp_path, f"fuzz{seed}")
