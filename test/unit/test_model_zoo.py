"""The model zoo (test/models) compiled by disc-ir and compared with XLA.

Every `<name>.mlir` (static) and `<name>_dyn.mlir` (shape-polymorphic) file
that test/models/export_models.py wrote from zoo.py is compiled once with
`disc_ir.compile(text, target="cpu")` and run on the seeded inputs
(`Model.make_args`) at every size set whose JAX/XLA outputs are stored in
`<name>.npz` (the static file only at its own shape). When jax is installed,
each dynamic executable also runs at the model's 2 `extra_sizes` against
`jax.jit(fn)` computed here.

Tolerance (the benchmark's target: relative error <= 1e-4 against XLA): elementwise
`rtol=1e-4` with `atol = 1e-5 * max|expected|`, and the relative error
`max|actual - expected| / max|expected|` at most 1e-4.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
RTOL = 1e-4
ATOL_SCALE = 1e-5


def _load(name: str) -> ModuleType:
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, MODELS_DIR / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


zoo = _load("zoo")
export_models = _load("export_models")

CASES = [
    (name, dynamic)
    for name, model in zoo.MODELS.items()
    for dynamic in ((False, True) if model.dynamic else (False,))
]

_EXECUTABLES: dict[str, Any] = {}


def _file(name: str, dynamic: bool) -> Path:
    return MODELS_DIR / f"{name}{'_dyn' if dynamic else ''}.mlir"


def _compiled(name: str, dynamic: bool) -> Any:
    path = _file(name, dynamic)
    exe = _EXECUTABLES.get(path.name)
    if exe is None:
        import disc_ir

        exe = disc_ir.compile(path.read_text(), target="cpu", keep_ir=False)
        _EXECUTABLES[path.name] = exe
    return exe


def check_close(actual: np.ndarray, expected: np.ndarray, what: str) -> float:
    """Asserts the zoo tolerance; returns the relative error."""
    assert actual.shape == expected.shape, f"{what}: shape {actual.shape} != {expected.shape}"
    assert actual.dtype == expected.dtype, f"{what}: dtype {actual.dtype} != {expected.dtype}"
    scale = float(np.max(np.abs(expected))) if expected.size else 0.0
    np.testing.assert_allclose(
        actual, expected, rtol=RTOL, atol=ATOL_SCALE * max(scale, 1e-30), err_msg=what
    )
    err = float(np.max(np.abs(actual - expected))) / scale if scale else 0.0
    assert err <= RTOL, f"{what}: relative error {err:.3g} > {RTOL}"
    return err


def _run(model: Any, exe: Any, sizes: dict[str, int]) -> list[np.ndarray]:
    return [np.asarray(o) for o in exe(*model.make_args(model.sizes_with(**sizes)))]


def test_zoo_files_exist_and_stay_small() -> None:
    total = 0
    for name, dynamic in CASES:
        path = _file(name, dynamic)
        assert path.is_file(), f"{path.name} is missing: run test/models/export_models.py"
        assert "stablehlo." in path.read_text()
        total += path.stat().st_size
    for name in zoo.MODELS:
        total += (MODELS_DIR / f"{name}.npz").stat().st_size
    assert total < 3_000_000, f"test/models holds {total} bytes of exported models (budget 3 MB)"


def test_zoo_api() -> None:
    m = zoo.get("bert_layer")
    sizes = m.sizes_with(batch=2, seq=8)
    shapes = m.shapes(sizes)
    assert shapes[0] == (2, 8, 768) and shapes[1] == (2, 8)
    both = {0: "batch", 1: "seq"}
    assert m.dynamic_axes[0] == both and m.dynamic_axes[1] == both
    a, b = m.make_args(sizes, seed=3), m.make_args(sizes, seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert m.flops(sizes) is not None and m.bytes_moved(sizes) is None
    s = zoo.get("softmax")
    assert s.bytes_moved({"rows": 4, "cols": 8}) == 2 * 4 * 8 * 4
    with pytest.raises(KeyError, match="no zoo model 'nope'"):
        zoo.get("nope")
    with pytest.raises(KeyError, match="has no size 'seq'"):
        s.sizes_with(seq=3)


@pytest.mark.parametrize(
    ("name", "dynamic"), CASES, ids=[n + ("_dyn" if d else "") for n, d in CASES]
)
def test_zoo_model_matches_xla_reference(name: str, dynamic: bool) -> None:
    model = zoo.get(name)
    cases = export_models.load_reference(MODELS_DIR / f"{name}.npz")
    assert len(cases) == len(model.test_sizes)
    exe = _compiled(name, dynamic)
    for sizes, expected in cases if dynamic else cases[:1]:
        actual = _run(model, exe, sizes)
        assert len(actual) == len(expected)
        for i, (got, want) in enumerate(zip(actual, expected, strict=True)):
            check_close(got, want, f"{name}{'_dyn' if dynamic else ''} at {sizes}, output {i}")


DYNAMIC = [name for name, model in zoo.MODELS.items() if model.dynamic and model.extra_sizes]


@pytest.mark.parametrize("name", DYNAMIC)
def test_zoo_dynamic_model_matches_jax_at_more_shapes(name: str) -> None:
    jax = pytest.importorskip("jax")
    jax.config.update("jax_platforms", "cpu")
    model = zoo.get(name)
    exe = _compiled(name, True)
    fn = jax.jit(model.fn)
    for sizes in model.extra_sizes:
        full = model.sizes_with(**sizes)
        args = model.make_args(full, seed=1)
        expected = [np.asarray(o) for o in jax.tree_util.tree_leaves(fn(*args))]
        actual = [np.asarray(o) for o in exe(*args)]
        for i, (got, want) in enumerate(zip(actual, expected, strict=True)):
            check_close(got, want, f"{name}_dyn at {sizes}, output {i}")


@pytest.mark.parametrize("name", list(zoo.MODELS))
def test_zoo_torch_twin_matches_jax(name: str) -> None:
    """The benchmarks' torch twins compute what the JAX models compute."""
    jax = pytest.importorskip("jax")
    torch = pytest.importorskip("torch")
    jax.config.update("jax_platforms", "cpu")
    model = zoo.get(name)
    assert model.torch_fn is not None
    args = model.make_args(model.sizes_with(**model.test_sizes[-1]), seed=2)
    expected = np.asarray(jax.jit(model.fn)(*args))
    with torch.no_grad():
        actual = model.torch_fn(*[torch.from_numpy(a) for a in args]).numpy()
    check_close(actual, expected, f"torch twin of {name}")
