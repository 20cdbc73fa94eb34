"""`disc_ir.compile` end to end on the CPU: MHLO -> pipeline -> LLVM IR -> JIT -> numpy.

Each graph is compiled once (with verification after every pass) and run at
two shapes; results are checked against numpy.
"""

from __future__ import annotations

import functools
import math
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import disc_ir
from disc_ir.api import CompileError, Executable
from disc_ir.runtime import RalInputError

ROOT = Path(__file__).resolve().parents[2]
TUTORIAL = ROOT / "examples" / "tutorial.mlir"

ROW_SOFTMAX = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %s = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %m = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %mb = "mhlo.dynamic_broadcast_in_dim"(%m, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %c = mhlo.subtract %x, %mb : tensor<?x?xf32>
  %e = mhlo.exponential %c : tensor<?x?xf32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %sum = mhlo.reduce(%e init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %sb = "mhlo.dynamic_broadcast_in_dim"(%sum, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %p = mhlo.divide %e, %sb : tensor<?x?xf32>
  return %p : tensor<?x?xf32>
}
"""

LAYERNORM = """
func.func @main(%x: tensor<?x?xf32>, %gamma: tensor<?xf32>, %beta: tensor<?xf32>) -> tensor<?x?xf32> {
  %s = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %d1_i64 = arith.index_cast %d1 : index to i64
  %d1_f = arith.sitofp %d1_i64 : i64 to f32
  %n = tensor.from_elements %d1_f : tensor<f32>
  %nb = "mhlo.dynamic_broadcast_in_dim"(%n, %s) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %sum = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %sumb = "mhlo.dynamic_broadcast_in_dim"(%sum, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %mean = mhlo.divide %sumb, %nb : tensor<?x?xf32>
  %xc = mhlo.subtract %x, %mean : tensor<?x?xf32>
  %sq = mhlo.multiply %xc, %xc : tensor<?x?xf32>
  %ssq = mhlo.reduce(%sq init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %ssqb = "mhlo.dynamic_broadcast_in_dim"(%ssq, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %var = mhlo.divide %ssqb, %nb : tensor<?x?xf32>
  %eps0 = mhlo.constant dense<9.99999974E-6> : tensor<f32>
  %eps = "mhlo.dynamic_broadcast_in_dim"(%eps0, %s) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %ve = mhlo.add %var, %eps : tensor<?x?xf32>
  %r = mhlo.rsqrt %ve : tensor<?x?xf32>
  %xn = mhlo.multiply %xc, %r : tensor<?x?xf32>
  %gb = "mhlo.dynamic_broadcast_in_dim"(%gamma, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%beta, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %y0 = mhlo.multiply %xn, %gb : tensor<?x?xf32>
  %y = mhlo.add %y0, %bb : tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
"""

BIAS_GELU = """
func.func @main(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %s = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %y = mhlo.add %x, %bb : tensor<?x?xf32>
  %half0 = mhlo.constant dense<5.000000e-01> : tensor<f32>
  %one0 = mhlo.constant dense<1.000000e+00> : tensor<f32>
  %k0 = mhlo.constant dense<0.797884583> : tensor<f32>
  %c0 = mhlo.constant dense<4.471500e-02> : tensor<f32>
  %half = "mhlo.dynamic_broadcast_in_dim"(%half0, %s) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %one = "mhlo.dynamic_broadcast_in_dim"(%one0, %s) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %k = "mhlo.dynamic_broadcast_in_dim"(%k0, %s) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %c = "mhlo.dynamic_broadcast_in_dim"(%c0, %s) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %y2 = mhlo.multiply %y, %y : tensor<?x?xf32>
  %y3 = mhlo.multiply %y2, %y : tensor<?x?xf32>
  %t0 = mhlo.multiply %c, %y3 : tensor<?x?xf32>
  %t1 = mhlo.add %y, %t0 : tensor<?x?xf32>
  %t2 = mhlo.multiply %k, %t1 : tensor<?x?xf32>
  %t3 = mhlo.tanh %t2 : tensor<?x?xf32>
  %t4 = mhlo.add %one, %t3 : tensor<?x?xf32>
  %t5 = mhlo.multiply %half, %y : tensor<?x?xf32>
  %g = mhlo.multiply %t5, %t4 : tensor<?x?xf32>
  return %g : tensor<?x?xf32>
}
"""

COLUMN_SUM = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?xf32> {
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %sum = mhlo.reduce(%x init: %zero) applies mhlo.add across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %sum : tensor<?xf32>
}
"""

BATCH_MATMUL = """
func.func @main(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  %c = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return %c : tensor<?x?x?xf32>
}
"""

STATIC_ADD = """
func.func @scaled(%x: tensor<?x3xf32>, %y: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %z = mhlo.add %x, %y : tensor<?x3xf32>
  return %z : tensor<?x3xf32>
}
"""

SHAPES = [(3, 5), (17, 33)]


@functools.cache
def compiled(source: str | Path) -> Executable:
    return disc_ir.compile(source, verify=True)


def rand(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + sum(shape)).standard_normal(shape).astype(np.float32)


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def close(actual: np.ndarray, expected: np.ndarray) -> None:
    assert actual.shape == expected.shape
    np.testing.assert_allclose(actual, expected, rtol=2e-5, atol=2e-6)


def test_tutorial_two_shapes_one_compile():
    exe = compiled(TUTORIAL)
    for n, k, f in [(4, 3, 5), (9, 16, 2)]:
        x, w, b = rand(n, k), rand(k, f, seed=1), rand(f, seed=2)
        probs, out = exe(x, w, b, np.array([f, n], np.int64))
        expected = softmax(x @ w + b)
        close(probs, expected)
        close(out, expected.reshape(f, n))
    assert exe.compile_seconds > 0
    assert set(exe.compile_times) >= {"tensor", "codegen", "llvm", "jit", "other"}


def test_compile_times_add_up_to_the_wall_time_of_compile():
    """`compile_times` accounts for all of `compile`'s wall time (what is not a
    phase, e.g. the garbage collection ending the lowering, is `other`)."""
    t0 = time.perf_counter()
    exe = disc_ir.compile(TUTORIAL, keep_ir=False)
    wall = time.perf_counter() - t0
    try:
        assert exe.compile_times["other"] >= 0
        assert wall - 0.01 <= exe.compile_seconds <= wall
    finally:
        exe.close()


@pytest.mark.parametrize("shape", SHAPES)
def test_row_softmax(shape):
    x = rand(*shape)
    (y,) = compiled(ROW_SOFTMAX)(x)
    close(y, softmax(x))


@pytest.mark.parametrize("shape", SHAPES)
def test_layernorm(shape):
    x, g, b = rand(*shape), rand(shape[1], seed=1), rand(shape[1], seed=2)
    (y,) = compiled(LAYERNORM)(x, g, b)
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    close(y, (x - mean) / np.sqrt(var + 1e-5) * g + b)


@pytest.mark.parametrize("shape", SHAPES)
def test_bias_gelu_tanh(shape):
    x, b = rand(*shape), rand(shape[1], seed=1)
    (g,) = compiled(BIAS_GELU)(x, b)
    y = x + b
    close(g, 0.5 * y * (1 + np.tanh(math.sqrt(2 / math.pi) * (y + 0.044715 * y**3))))


@pytest.mark.parametrize("shape", SHAPES)
def test_column_reduction(shape):
    x = rand(*shape)
    (s,) = compiled(COLUMN_SUM)(x)
    close(s, x.sum(axis=0))


@pytest.mark.parametrize("shape", SHAPES)
def test_batched_dot_general(shape):
    m, k = shape
    a, b = rand(2, m, k), rand(2, k, m + 1, seed=1)
    (c,) = compiled(BATCH_MATMUL)(a, b)
    close(c, a @ b)


# -- input errors ----------------------------------------------------------------


def tutorial_inputs(x=None, w=None, b=None, shape=None):
    return (
        rand(4, 3) if x is None else x,
        rand(3, 5) if w is None else w,
        rand(5) if b is None else b,
        np.array([5, 4], np.int64) if shape is None else shape,
    )


def test_wrong_dtype_names_the_argument():
    with pytest.raises(RalInputError, match=r"input #1 'w': expected a rank-2 f32 array.*float64"):
        compiled(TUTORIAL)(*tutorial_inputs(w=np.zeros((3, 5))))


def test_wrong_rank_names_the_argument():
    with pytest.raises(RalInputError, match=r"input #2 'b': expected a rank-1 f32.*rank-2"):
        compiled(TUTORIAL)(*tutorial_inputs(b=rand(1, 5)))


def test_inconsistent_dims_name_both_arguments():
    with pytest.raises(
        RalInputError,
        match=r"input #1 'w' dimension 0 is 7, expected 3 \(must equal input #0 'x' dimension 1\)",
    ):
        compiled(TUTORIAL)(*tutorial_inputs(w=rand(7, 5)))


def test_wrong_input_count():
    with pytest.raises(RalInputError, match="expected 4 inputs, got 3"):
        compiled(TUTORIAL)(*tutorial_inputs()[:3])


def test_static_dims_entry_and_text_source():
    exe = disc_ir.compile(STATIC_ADD, entry="scaled")
    x, y = rand(6, 3), rand(6, 3, seed=1)
    close(exe(x, y)[0], x + y)
    with pytest.raises(RalInputError, match=r"input #1 'input1': dimension 1 is 4, expected 3"):
        exe(x, rand(6, 4))
    with pytest.raises(RalInputError, match=r"input #1 'input1' dimension 0 is 5, expected 6"):
        exe(x, rand(5, 3))


# -- compile errors and inspection --------------------------------------------------


def test_compile_errors():
    with pytest.raises(CompileError, match=r"<source>:2:12: error: Expected ':'"):
        disc_ir.compile("func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n  return %y")
    with pytest.raises(CompileError, match=r"no entry function '@nope'"):
        disc_ir.compile(COLUMN_SUM, entry="nope")
    with pytest.raises(CompileError, match="unknown target"):
        disc_ir.compile(COLUMN_SUM, target="tpu")


def test_module_source_is_not_changed():
    from disc_ir.api import load_module, print_module
    from disc_ir.ir.context import make_context

    module = load_module(make_context(), COLUMN_SUM)
    before = print_module(module)
    exe = disc_ir.compile(module)
    assert print_module(module) == before
    x = rand(4, 6)
    close(exe(x)[0], x.sum(axis=0))


def test_inspection_and_dump_dir(tmp_path):
    exe = disc_ir.compile(TUTORIAL, dump_dir=tmp_path)
    assert exe.phases == [
        "input", "tensor", "placement", "bufferize", "lhlo", "ral", "codegen", "llvm",
    ]  # fmt: skip
    assert "mhlo.dot" in exe.mlir_after("input")
    assert "lmhlo.fusion" in exe.mlir_after("lhlo")
    assert "disc_cpu_kernel_func" in exe.mlir_after("codegen")  # outlined CPU kernels
    assert "llvm.func @packed_main_kStitch" in exe.mlir_after("llvm")
    assert "gpu.address_space" not in exe.mlir_after("ral")  # CPU mode: host buffers only
    assert "disc_ral_call" in exe.llvm_ir and "define" in exe.optimized_llvm_ir
    with pytest.raises(KeyError, match="no IR kept for phase 'nowhere'"):
        exe.mlir_after("nowhere")
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names[:3] == ["00_input.mlir", "01_tensor.mlir", "02_placement.mlir"]
    assert {"07_llvm.mlir", "module.ll", "module.opt.ll", "constants.discmeta"} <= set(names)
    assert len(exe.constants) == 3  # the reductions' init values, the bias check's 1


def test_disc_compile_writes_llvm_ir_and_constants(tmp_path, capsys):
    from disc_ir.backend.jit import HostJit
    from disc_ir.runtime import RalContext
    from disc_ir.tools.disc_compile import main

    out = tmp_path / "tutorial.ll"
    assert main([str(TUTORIAL), "--target", "cpu", "-o", str(out), "--mlir-timing"]) == 0
    err = capsys.readouterr().err
    meta = tmp_path / "tutorial.discmeta"
    assert f"wrote {out} and constants to {meta}" in err
    assert "DiscToLLVMPass (disc-to-llvm)" in err and "Total Execution Time" in err
    jit = HostJit(out.read_text())
    x, w, b, shape = tutorial_inputs()
    with RalContext(metadata_path=str(meta)) as rc:
        probs, _ = rc.execute(jit.function_address("main"), [x, w, b, shape])
    close(probs, softmax(x @ w + b))


def test_disc_compile_errors_and_until(tmp_path, capsys):
    from disc_ir.tools.disc_compile import main

    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @main( {")
    assert main([str(bad)]) == 1
    assert f"{bad}:1" in capsys.readouterr().err
    assert main([str(TUTORIAL), "--until", "lhlo"]) == 0
    assert "lmhlo.fusion" in capsys.readouterr().out


def test_runtime_import_stays_xdsl_free():
    code = (
        "import sys, disc_ir, disc_ir.runtime; "
        "assert 'xdsl' not in sys.modules, 'xdsl imported'; "
        "assert callable(disc_ir.compile); assert 'xdsl' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_op_without_lmhlo_lowering_is_named() -> None:
    """An op the CPU pipeline cannot bufferize is named with its input line,
    instead of failing later inside disc-to-llvm."""
    text = (
        "func.func @main(%a: tensor<?xf64>) -> tensor<?xf64> {\n"
        "  %0 = chlo.erf_inv %a : tensor<?xf64> -> tensor<?xf64>\n"
        "  return %0 : tensor<?xf64>\n"
        "}\n"
    )
    with pytest.raises(
        CompileError,
        match=r"'chlo.erf_inv' \(input line 2\) is not supported by disc-ir's cpu pipeline",
    ):
        disc_ir.compile(text)


SORT_GRAPH = """
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "mhlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %p = mhlo.compare LT, %a, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %p : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""


def test_op_with_pure_body_is_computed_not_dropped() -> None:
    """A sort (pure comparator body) must not be erased as dead, leaving the
    output buffer unwritten: its rows come back sorted."""
    x = np.random.default_rng(3).standard_normal((5, 9)).astype(np.float32)
    (out,) = disc_ir.compile(SORT_GRAPH)(x)
    np.testing.assert_array_equal(out, np.sort(x, axis=1))


BF16_GRAPH = """
func.func @main(%x: tensor<?xbf16>) -> tensor<?xbf16> {
  %0 = mhlo.add %x, %x : tensor<?xbf16>
  return %0 : tensor<?xbf16>
}
"""


def test_bf16_on_cuda_is_a_clear_compile_error() -> None:
    from disc_ir.api import lower_to_llvm_ir

    with pytest.raises(
        CompileError, match="'mhlo.add' \\(input line 3\\) uses bf16, which the cuda target"
    ):
        lower_to_llvm_ir(BF16_GRAPH, "cuda")


def test_bf16_on_cpu_takes_and_gives_bit_patterns() -> None:
    """bf16 arrays cross the API as their uint16 bit patterns (numpy has no
    bfloat16); 1.5 + 1.5 = 3 (0x3FC0 -> 0x4040), NaN stays NaN."""
    bits = np.array([0x3FC0, 0x7FC0, 0xBF80], np.uint16)  # 1.5, NaN, -1
    (out,) = disc_ir.compile(BF16_GRAPH)(bits)
    assert out.dtype == np.uint16
    np.testing.assert_array_equal(out, np.array([0x4040, 0x7FC0, 0xC000], np.uint16))


def test_preload_loads_the_pipeline_before_the_first_compile() -> None:
    """`preload` imports the target's pass modules (loaded lazily otherwise)
    and registers the RAL dispatcher with LLVM, so a server pays for them at
    start-up; an unknown target is named."""
    code = (
        "import sys, disc_ir\n"
        "before = 'disc_ir.transforms.disc_to_llvm' in sys.modules\n"
        "import disc_ir.runtime.dispatch as d\n"
        "registered = d._registered\n"
        "disc_ir.preload('cpu')\n"
        "print(before, 'disc_ir.transforms.disc_to_llvm' in sys.modules, registered, d._registered)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["False", "True", "False", "True"]
    with pytest.raises(CompileError, match="unknown target 'tpu'"):
        disc_ir.preload("tpu")


def test_after_preload_a_compile_imports_nothing() -> None:
    """The first compile of a JAX export after `preload` loads no module of
    disc-ir or xDSL (the frontend, pattern tables and passes run by passes
    are loaded up front: a benchmark times compiling, not importing)."""
    model = Path(__file__).resolve().parents[1] / "models" / "softmax_dyn.mlir"
    code = (
        "import sys, disc_ir\n"
        "disc_ir.preload('cpu')\n"
        "before = set(sys.modules)\n"
        f"disc_ir.compile(open({str(model)!r}).read(), keep_ir=False).close()\n"
        "print(sorted(m for m in set(sys.modules) - before if m.startswith(('disc_ir', 'xdsl', 'numpy'))))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "[]"


def test_compile_leaves_no_ir_alive_and_the_collector_on() -> None:
    """After a compile (`keep_ir=False`) is closed and collected, none of its
    IR is alive (no shared strategy, cache or analysis keeps a module), and
    the cyclic collector is on again, with nothing of the compile left in
    its youngest generation."""
    import gc

    from xdsl.dialects.builtin import ModuleOp

    from disc_ir.analysis.shape_analysis import ShapeAnalysis

    model = Path(__file__).resolve().parents[1] / "models" / "layernorm_gelu_dyn.mlir"

    def alive() -> int:
        gc.collect()
        return sum(1 for o in gc.get_objects() if isinstance(o, ModuleOp | ShapeAnalysis))

    before = alive()
    assert gc.isenabled()
    exe = disc_ir.compile(model.read_text(), keep_ir=False)
    assert gc.isenabled()
    assert gc.get_count()[0] < 10_000
    exe.close()
    del exe
    assert alive() == before
