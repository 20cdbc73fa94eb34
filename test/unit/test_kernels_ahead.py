"""CPU kernels lowered and compiled ahead of their host code
(`disc_ir.codegen.kernel_split`, `compile()`'s `compile_kernels_ahead`): the
split leaves declarations, the phase ends with the whole module, and the
executable computes what the sequential compile's does."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects import func, llvm

import disc_ir
from disc_ir.api import load_module, lower_to_llvm_ir, make_context, phase_passes
from disc_ir.backend.jit import BackgroundObject
from disc_ir.backend.target import BackendError
from disc_ir.codegen import kernel_split

MODELS = Path(__file__).resolve().parents[1] / "models"


def _after_codegen(path: Path):  # noqa: ANN202 - a ModuleOp
    ctx = make_context()
    module = load_module(ctx, path.read_text())
    for name, passes in phase_passes("cpu", None, ""):
        if name == "llvm":
            break
        for p in passes:
            p.apply(ctx, module)
    return module


def test_split_moves_kernels_and_leaves_declarations() -> None:
    module = _after_codegen(MODELS / "rmsnorm_swiglu_dyn.mlir")
    kernels = [
        op.sym_name.data
        for op in module.ops
        if isinstance(op, func.FuncOp) and "disc_cpu_kernel_func" in op.attributes
    ]
    assert kernels
    kernel_module = kernel_split.split_kernels(module)
    assert kernel_module is not None
    assert kernel_split.kernel_names(kernel_module) == kernels
    left = {op.sym_name.data: op for op in module.ops if isinstance(op, func.FuncOp)}
    for name in kernels:
        assert not left[name].body.blocks  # a declaration
        assert left[name].sym_visibility is not None
        assert left[name].sym_visibility.data == "private"
    module.verify()
    kernel_module.verify()


def test_split_declines_kernels_that_refer_to_symbols() -> None:
    module = _after_codegen(MODELS / "softmax_dyn.mlir")
    kernel = next(op for op in module.ops if "disc_cpu_kernel_func" in op.attributes)
    assert isinstance(kernel, func.FuncOp)
    kernel.body.block.insert_op_before(func.CallOp("main", [], []), kernel.body.block.first_op)
    before = [op.name for op in module.ops]
    assert kernel_split.split_kernels(module) is None
    assert [op.name for op in module.ops] == before


def test_llvm_phase_ends_with_the_whole_module() -> None:
    path = MODELS / "layernorm_gelu_dyn.mlir"
    ahead = lower_to_llvm_ir(path, "cpu", keep_ir=True, compile_kernels_ahead=True)
    plain = lower_to_llvm_ir(path, "cpu", keep_ir=True)
    assert ahead.kernels is not None and plain.kernels is None

    def functions(lowered):  # noqa: ANN001, ANN202
        return sorted(
            (op.sym_name.data, bool(op.body.blocks))
            for op in lowered.phase_ir["llvm"].ops
            if isinstance(op, llvm.FuncOp)
        )

    assert functions(ahead) == functions(plain)

    def defined(text: str) -> set[str]:
        return set(re.findall(r'^define [^@]*@"?([\w.$-]+)"?\(', text, re.M))

    kernels = {n for n, body in functions(ahead) if body and n.startswith("main_")}
    assert kernels
    assert kernels.isdisjoint(defined(ahead.llvm_ir))  # the host part declares them
    assert defined(ahead.whole_llvm_ir()) >= defined(plain.llvm_ir)


@pytest.mark.parametrize("name", ["layernorm_gelu_dyn", "rmsnorm_swiglu_dyn", "mlp_dyn"])
def test_ahead_executable_matches_the_sequential_one(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (MODELS / f"{name}.mlir").read_text()
    rng = np.random.default_rng(0)
    with disc_ir.compile(text, keep_ir=False) as ahead:
        args = [
            rng.standard_normal([37 if d is None else d for d in spec.shape]).astype(np.float32)
            for spec in ahead.inputs
        ]
        got = ahead(*args)
        assert "define" in ahead.llvm_ir
    monkeypatch.setattr(kernel_split, "split_kernels", lambda module: None)
    with disc_ir.compile(text, keep_ir=False) as plain:
        expected = plain(*args)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)


def test_background_compile_errors_surface_on_result() -> None:
    work = BackgroundObject("define void @f() { ret i32 0 }")
    with pytest.raises(BackendError):
        work.result()


def test_background_compile_hands_the_gil_over_promptly_and_restores_the_interval() -> None:
    """While LLVM works on a worker thread the interpreter's switch interval is
    `WORKER_SWITCH_INTERVAL` (the worker gets the GIL back between its llvmlite
    calls without waiting out the default 5 ms); the last worker to end restores
    the interval it found, errors included."""
    import sys

    from disc_ir.backend import jit

    before = sys.getswitchinterval()
    assert jit.WORKER_SWITCH_INTERVAL < before
    seen: list[float] = []
    original = jit.parse_llvm_ir

    def spy(text: str):  # noqa: ANN202 - an llvmlite module
        seen.append(sys.getswitchinterval())
        return original(text)

    jit.parse_llvm_ir = spy  # type: ignore[assignment]
    try:
        works = [BackgroundObject("define void @f() { ret void }") for _ in range(2)]
        for work in works:
            work.result()
        failing = BackgroundObject("define void @f() { ret i32 0 }")
        with pytest.raises(BackendError):
            failing.result()
    finally:
        jit.parse_llvm_ir = original  # type: ignore[assignment]
    # (CPython keeps the interval in microseconds)
    assert seen == pytest.approx([jit.WORKER_SWITCH_INTERVAL] * 3)
    assert sys.getswitchinterval() == before
