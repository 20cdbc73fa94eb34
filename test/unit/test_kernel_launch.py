"""The kernel-launch mode: a graph run op by op through OKL (`disc_ir.kernel_launch`).

The launcher builds each wrapped kernel's compile-time context once and its
run-time context on its first launch, reused by every later launch at any
shape; the per-op kernels are compiled once per signature; `profile` and
`keep_outputs` expose each op; an op the per-op compile cannot handle fails
`compile` with a CompileError naming it.
"""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

import disc_ir
from disc_ir.api import CompileError
from disc_ir.kernel_launch import kernel_cache_info
from disc_ir.runtime import okl_launcher
from disc_ir.runtime.okl_launcher import (
    LauncherState,
    TensorDesc,
    TensorSource,
    WrappedKernel,
)

GRAPH = """
func.func @main(%x: tensor<?x4xf32>, %y: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>) {
  %c = mhlo.constant dense<2.0> : tensor<f32>
  %0 = "mhlo.abs"(%x) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = "mhlo.add"(%0, %y) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %2 = "chlo.broadcast_multiply"(%1, %c) : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  %3 = "mhlo.tanh"(%2) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %3, %x : tensor<?x4xf32>, tensor<?x4xf32>
}
"""


def _inputs(rows: int) -> tuple[np.ndarray, np.ndarray]:
    gen = np.random.default_rng(rows)
    x = gen.uniform(-2, 2, (rows, 4)).astype(np.float32)
    y = gen.uniform(-2, 2, (rows, 4)).astype(np.float32)
    return x, y


def _expected(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.tanh((np.abs(x) + y) * np.float32(2.0))


@pytest.fixture(scope="module")
def exe() -> disc_ir.kernel_launch.KernelLaunchExecutable:
    return disc_ir.compile(GRAPH, mode="kernel-launch", keep_outputs=True)


def test_runs_op_by_op_at_any_shape(exe) -> None:  # noqa: ANN001
    assert [k.op_name for k in exe.kernels] == [
        "mhlo.abs",
        "mhlo.add",
        "chlo.broadcast_multiply",
        "mhlo.tanh",
        "",  # the returned argument, forwarded
    ]
    for rows in (1, 3, 257):
        x, y = _inputs(rows)
        out, same = exe(x, y)
        np.testing.assert_allclose(out, _expected(x, y), rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(same, x)


def test_contexts_are_built_once_and_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    built: dict[str, list[str]] = {"compile-time": [], "run-time": []}
    compile_init = okl_launcher.CompileTimeWrapperContext.__init__
    run_init = okl_launcher.RunTimeWrapperContext.__init__

    def counting_compile_init(self, kernel, compiler) -> None:  # noqa: ANN001
        built["compile-time"].append(kernel.op_name)
        compile_init(self, kernel, compiler)

    def counting_run_init(self, compile_ctx) -> None:  # noqa: ANN001
        built["run-time"].append(compile_ctx.op_name)
        run_init(self, compile_ctx)

    monkeypatch.setattr(okl_launcher.CompileTimeWrapperContext, "__init__", counting_compile_init)
    monkeypatch.setattr(okl_launcher.RunTimeWrapperContext, "__init__", counting_run_init)
    fresh = disc_ir.compile(GRAPH, mode="kernel-launch")
    context = fresh.launcher.context
    ops = [k.op_name for k in fresh.kernels]
    assert built == {"compile-time": ops, "run-time": []}  # run-time contexts: on first launch
    assert context.compile_time_built == 5 and context.run_time_built == 0
    for rows in (1, 2, 9, 2, 33):  # several launches at several shapes
        out, _ = fresh(*_inputs(rows))
        np.testing.assert_allclose(out, _expected(*_inputs(rows)), rtol=1e-5, atol=1e-6)
    assert built == {"compile-time": ops, "run-time": ops}
    assert context.compile_time_built == 5 and context.run_time_built == 5
    for ctx in context.run_time:
        assert ctx is not None and ctx.kernel_state.launches == 5
    fresh.close()


def test_kernels_are_compiled_once_per_signature() -> None:
    disc_ir.compile(GRAPH, mode="kernel-launch").close()
    before = kernel_cache_info()
    again = disc_ir.compile(GRAPH, mode="kernel-launch")
    after = kernel_cache_info()
    assert after["misses"] == before["misses"]
    assert after["hits"] == before["hits"] + 4
    again.close()


def test_profile_and_kept_outputs(exe) -> None:  # noqa: ANN001
    x, y = _inputs(5)
    rows = exe.profile(x, y)
    assert [r.op_name for r in rows][-2:] == ["mhlo.tanh", "forward"]
    assert rows[1].input_shapes == ((5, 4), (5, 4)) and rows[1].output_shapes == ((5, 4),)
    assert rows[0].location == "input line 4"
    assert all(r.seconds >= 0 for r in rows)
    exe(x, y)
    np.testing.assert_array_equal(exe.kernel_outputs[0][0], np.abs(x))
    np.testing.assert_allclose(exe.kernel_outputs[1][0], np.abs(x) + y, rtol=1e-6)


def test_ir_of_each_step(exe) -> None:  # noqa: ANN001
    assert exe.phases == ["input", "okl", "llvm"]
    okl = exe.mlir_after("okl")
    assert "func.func @okl_func(%arg0: !okl.launcher_ctx)" in okl
    assert okl.count('"okl.wrapper_kernel"()') == 5
    llvm = exe.mlir_after("llvm")
    assert "llvm.func @okl_llvm_func(!llvm.ptr<i8>, i64) attributes {llvm.emit_c_interface}" in llvm
    assert "llvm.func @_mlir_ciface_okl_func(%arg0: !llvm.ptr<i8>)" in llvm
    assert "okl_llvm_func" in exe.llvm_ir


def test_an_op_the_per_op_compile_cannot_handle_is_named() -> None:
    text = """
func.func @main(%x: tensor<?xf32>, %n: tensor<i32>) -> tensor<?xf32> {
  %0 = "mhlo.abs"(%x) : (tensor<?xf32>) -> tensor<?xf32>
  %1:2 = "mhlo.while"(%0, %n) ({
  ^bb0(%a: tensor<?xf32>, %b: tensor<i32>):
    %z = mhlo.constant dense<0> : tensor<i32>
    %c = "mhlo.compare"(%b, %z) {comparison_direction = #mhlo<comparison_direction GT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "mhlo.return"(%c) : (tensor<i1>) -> ()
  }, {
  ^bb0(%a: tensor<?xf32>, %b: tensor<i32>):
    %one = mhlo.constant dense<1> : tensor<i32>
    %d = "mhlo.subtract"(%b, %one) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    "mhlo.return"(%a, %d) : (tensor<?xf32>, tensor<i32>) -> ()
  }) : (tensor<?xf32>, tensor<i32>) -> (tensor<?xf32>, tensor<i32>)
  return %1#0 : tensor<?xf32>
}
"""
    with pytest.raises(
        CompileError, match=r"kernel-launch: 'mhlo.while' \(kernel #1, input line 4\)"
    ):
        disc_ir.compile(text, mode="kernel-launch")


def test_mode_and_target_are_checked() -> None:
    with pytest.raises(CompileError, match="unknown mode 'eager'"):
        disc_ir.compile(GRAPH, mode="eager")  # type: ignore[call-overload]
    with pytest.raises(CompileError, match="cpu target only"):
        disc_ir.compile(GRAPH, "cuda", mode="kernel-launch")


def test_launcher_runtime_without_the_compiler() -> None:
    """The runtime alone: a host entry (here a ctypes callback standing for the
    compiled `okl_func`) calls `okl_llvm_func(ctx, i)` per kernel; the injected
    compiler runs once per kernel, its factory once per run-time context."""
    desc = TensorDesc("f32", (None,))
    kernels = [
        WrappedKernel(
            0, "test.negate", (), (TensorSource("arg", 0),), (desc,), (1,), (desc,), "neg"
        ),
        WrappedKernel(
            1, "test.double", (), (TensorSource("ret", 1),), (desc,), (0,), (desc,), "dbl"
        ),
    ]
    compiled: list[str] = []
    instantiated: list[str] = []

    class Kernel:
        def __init__(self, fn):  # noqa: ANN001
            self.fn = fn

        def check(self, arrays) -> None:  # noqa: ANN001
            assert arrays[0].dtype == np.float32

        def run(self, arrays):  # noqa: ANN001, ANN201
            return [self.fn(arrays[0])]

    def compiler(kernel: WrappedKernel):  # noqa: ANN202
        compiled.append(kernel.source)
        fn = np.negative if kernel.source == "neg" else (lambda a: a * 2)

        def factory() -> Kernel:
            instantiated.append(kernel.source)
            return Kernel(fn)

        return factory

    call = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int64)(
        okl_launcher.okl_llvm_func_address()
    )

    def okl_func(ctx: int) -> None:
        call(ctx, 0)
        call(ctx, 1)

    entry = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(okl_func)
    address = ctypes.cast(entry, ctypes.c_void_p).value
    assert address is not None
    state = LauncherState(address, kernels, num_results=1, num_slots=2, compiler=compiler)
    assert compiled == ["neg", "dbl"] and instantiated == []
    for n in (1, 4, 7):
        x = np.arange(n, dtype=np.float32)
        (out,) = state.results(state.launch([x]))
        np.testing.assert_array_equal(out, -2 * x)
    assert compiled == ["neg", "dbl"] and instantiated == ["neg", "dbl"]
    assert state.context.run_time_built == 2
