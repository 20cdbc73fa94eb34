"""The StableHLO frontend: parsing JAX's output, the import to mhlo, running it.

The fixtures in data/stablehlo/ were written by data/stablehlo/export.py with
JAX (pretty, generic and shape-polymorphic forms); these tests never import jax.
"""

from __future__ import annotations

import io
import math
from pathlib import Path

import numpy as np
import pytest

import disc_ir
from disc_ir.frontends import StableHloImportError, import_stablehlo, looks_like_stablehlo
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import Diagnostic, parse_module
from disc_ir.ir.printer import MlirPrinter
from disc_ir.ir.verify import first_verify_failure
from disc_ir.runtime.kernels.assertion import ShapeAssertionError, format_assertion_message

DATA = Path(__file__).parent / "data" / "stablehlo"
FIXTURES = sorted(p.name for p in DATA.glob("*.mlir"))

# Dialects an imported module may contain.
_IMPORTED = ("mhlo.", "mhlo_disc.", "chlo.", "func.", "builtin.", "shape.")
#: the scalar ops of the shape operands the import packs (`frontends.shape_operands`)
_SHAPE_SCALARS = ("tensor.from_elements", "tensor.extract", "arith.constant")


def _text(name: str) -> str:
    return (DATA / name).read_text()


def _print(module) -> str:
    buf = io.StringIO()
    MlirPrinter(stream=buf).print_op(module)
    return buf.getvalue()


def test_fixtures_present() -> None:
    assert len(FIXTURES) >= 15
    assert {"mlp.dynamic.mlir", "mlp.generic.mlir", "misc.static.mlir"} <= set(FIXTURES)


@pytest.mark.parametrize("name", FIXTURES)
def test_parse_verify_print(name: str) -> None:
    module = parse_module(make_context(), _text(name), name)
    assert first_verify_failure(module) is None
    printed = _print(module)
    assert "stablehlo." in printed
    # Printing is a fixed point after one round (the generic form's empty
    # `res_attrs = [{}]` disappear in the first).
    again = _print(parse_module(make_context(), printed, "printed"))
    assert _print(parse_module(make_context(), again, "again")) == again


@pytest.mark.parametrize("name", FIXTURES)
def test_import_leaves_no_stablehlo(name: str) -> None:
    module = import_stablehlo(_text(name), file_name=name)
    names = {op.name for op in module.walk()}
    assert all(n.startswith(_IMPORTED) or n in _SHAPE_SCALARS for n in names), sorted(names)
    assert not any(n == "func.call" for n in names)
    assert first_verify_failure(module) is None
    funcs = [op for op in module.ops if op.name == "func.func"]
    assert [f.sym_name.data for f in funcs] == ["main"]


def test_pretty_and_generic_import_alike() -> None:
    pretty = _print(import_stablehlo(_text("mlp.static.mlir")))
    generic = _print(import_stablehlo(_text("mlp.generic.mlir")))
    body = lambda t: t[t.index("{\n") :]  # noqa: E731 - the module name differs
    assert body(pretty) == body(generic)


def test_entry_names_from_result_info() -> None:
    module = import_stablehlo(_text("misc.static.mlir"))
    main = next(op for op in module.ops if op.name == "func.func")
    entry = main.attributes["tf.entry_function"]
    assert entry.data["outputs"].data == "result[0],result[1]"  # type: ignore[attr-defined]
    assert entry.data["inputs"].data == "input0,input1"  # type: ignore[attr-defined]


def test_argument_names_from_locations() -> None:
    text = """
module @m {
  func.func public @main(%arg0: tensor<4xf32> loc("x"), %arg1: tensor<4xf32> loc("y")) -> (tensor<4xf32> {jax.result_info = "sum"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<4xf32> loc(#loc2)
    return %0 : tensor<4xf32>
  }
}
#loc1 = loc("/tmp/f.py":3:4 to 3:9)
#loc2 = loc("jit(f)/add"(#loc1))
"""
    module = import_stablehlo(text)
    main = next(op for op in module.ops if op.name == "func.func")
    entry = main.attributes["tf.entry_function"].data  # type: ignore[attr-defined]
    assert entry["inputs"].data == "x,y"
    assert entry["outputs"].data == "sum"
    add = next(op for op in module.walk() if op.name == "mhlo.add")
    assert "jit(f)/add" in str(add.location)


def test_shape_assertion_lowered_to_ral_call() -> None:
    module = import_stablehlo(_text("mlp.dynamic.mlir"))
    calls = [op for op in module.walk() if op.name == "mhlo_disc.custom_call_v2"]
    assert len(calls) == 1
    (call,) = calls
    assert call.attributes["call_target_name"].data == "ral_shape_assertion"  # type: ignore[attr-defined]
    message = call.attributes["custom_attrs"].data["error_message"].data  # type: ignore[attr-defined]
    assert message.startswith("Input shapes do not match the polymorphic shapes")
    assert [str(o.type) for o in call.operands] == ["tensor<i1>", "tensor<1xi64>"]


def test_looks_like_stablehlo() -> None:
    assert looks_like_stablehlo(_text("mlp.static.mlir"))
    assert not looks_like_stablehlo("func.func @f() { return }")


def test_parse_error_is_located() -> None:
    text = "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.bogus %x : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
    with pytest.raises(Diagnostic, match=r"f.mlir:2:\d+: error: .*stablehlo.bogus"):
        import_stablehlo(text, file_name="f.mlir")
    with pytest.raises(disc_ir.CompileError, match="stablehlo.bogus"):
        disc_ir.compile(text)


def test_unsupported_op_is_an_import_error() -> None:
    text = """
func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0], algorithm = #stablehlo.type_extensions<bounds = [4]> : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
"""
    with pytest.raises(StableHloImportError, match="dot algorithms are not supported"):
        import_stablehlo(text)


def test_recursion_is_an_import_error() -> None:
    text = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %a : tensor<2xf32>
  %1 = call @f(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""
    with pytest.raises(StableHloImportError, match="recursive"):
        import_stablehlo(text)


def test_assertion_message_formatting() -> None:
    assert format_assertion_message("b = {0}, t = {1}", [3, 4]) == "b = 3, t = 4"
    assert format_assertion_message("bad {2}", [1]) == "bad {2} (values: 1)"


# ---------------------------------------------------------------------------
# Compile and run
# ---------------------------------------------------------------------------

_ASSERT = """
module @jit_f {
  func.func public @main(%arg0: tensor<?x3xf32>) -> (tensor<?x3xf32> {jax.result_info = "out"}) {
    %c = stablehlo.constant dense<4> : tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x3xf32>) -> tensor<i32>
    %1 = stablehlo.compare GE, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.custom_call @shape_assertion(%1, %0, %c) {api_version = 2 : i32, error_message = "dimension 'b' = {0} must be >= {1}", has_side_effect = true} : (tensor<i1>, tensor<i32>, tensor<i32>) -> ()
    %2 = stablehlo.add %arg0, %arg0 : tensor<?x3xf32>
    return %2 : tensor<?x3xf32>
  }
}
"""


def test_shape_assertion_raises_at_run_time() -> None:
    with disc_ir.compile(_ASSERT) as exe:
        assert exe.outputs[0].name == "out"
        x = np.arange(15, dtype=np.float32).reshape(5, 3)
        np.testing.assert_array_equal(exe(x)[0], 2 * x)
        with pytest.raises(ShapeAssertionError, match=r"dimension 'b' = 2 must be >= 4"):
            exe(np.ones((2, 3), np.float32))
        # The context is usable again after the failed call.
        np.testing.assert_array_equal(exe(x[:4])[0], 2 * x[:4])


def test_dynamic_mlp_at_three_shapes() -> None:
    rng = np.random.default_rng(0)
    w1 = rng.standard_normal((8, 16)).astype(np.float32)
    b1 = rng.standard_normal(16).astype(np.float32)
    w2 = rng.standard_normal((16, 3)).astype(np.float32)
    with disc_ir.compile(_text("mlp.dynamic.mlir")) as exe:
        assert [o.name for o in exe.outputs] == ["result"]
        assert exe.inputs[0].shape == (None, 8)
        for batch in (1, 5, 33):
            x = rng.standard_normal((batch, 8)).astype(np.float32)
            (got,) = exe(x, w1, b1, w2)
            want = np.tanh(x @ w1 + b1) @ w2
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        with pytest.raises(
            ShapeAssertionError, match="Expected value >= 1 for dimension variable 'b'"
        ):
            exe(np.ones((0, 8), np.float32), w1, b1, w2)


def test_gelu_erf_matches_erfc() -> None:
    # jax.nn.gelu(approximate=False) is 0.5 x erfc(-x / sqrt(2)) via chlo.erfc,
    # expanded by chlo-legalize-to-hlo.
    x = np.linspace(-6, 6, 64, dtype=np.float32).reshape(4, 16)
    erfc = np.vectorize(math.erfc)
    want = 0.5 * x * erfc(-x / math.sqrt(2.0))
    with disc_ir.compile(_text("gelu_erf.static.mlir")) as exe:
        np.testing.assert_allclose(exe(x)[0], want, rtol=2e-6, atol=2e-6)


def test_composite_is_inlined_and_runs() -> None:
    x = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)
    with disc_ir.compile(_text("composite.static.mlir")) as exe:
        np.testing.assert_allclose(exe(x)[0], np.tanh(x) * 2 + 1 - x, rtol=1e-6, atol=1e-6)


DYNAMIC_REDUCE_WINDOW = """
func.func public @main(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %c = stablehlo.constant dense<1> : tensor<2xi32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %n = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %w = stablehlo.concatenate %one, %n1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %p = stablehlo.constant dense<0> : tensor<2x2xi32>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%arg0, %cst, %w, %c, %c, %c, %p) {api_version = 2 : i32, called_computations = [@sum]} : (tensor<?x?xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}
"""


def test_dynamic_custom_call_ops_are_named():
    """A `@stablehlo.dynamic_reduce_window` whose window is a run-time value
    and not a cumulative reduction (here a window of the whole axis, no
    padding): a clear import error, not a failure in disc-assign-memory-space."""
    with pytest.raises(StableHloImportError, match="'stablehlo.dynamic_reduce_window'"):
        import_stablehlo(DYNAMIC_REDUCE_WINDOW)
    with pytest.raises(disc_ir.CompileError, match="export with that axis static"):
        disc_ir.compile(DYNAMIC_REDUCE_WINDOW)


def _padded_window(offsets: tuple[int, int, int, int]) -> str:
    """A 2x2 window sum, strides 1x2, base dilation 1x2, window dilation 2x1,
    the padding `[[lo0, hi0], [lo1, hi1]]` the run-time values `N + offsets`
    (N: the length of axis 0), built as jax builds it."""
    parts = "\n".join(
        f"  %o{i} = stablehlo.constant dense<{v}> : tensor<i32>\n"
        f"  %q{i} = stablehlo.add %n, %o{i} : tensor<i32>\n"
        f"  %r{i} = stablehlo.reshape %q{i} : (tensor<i32>) -> tensor<1xi32>"
        for i, v in enumerate(offsets)
    )
    return f"""
func.func public @main(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {{
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %w = stablehlo.constant dense<2> : tensor<2xi32>
  %s = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %b = stablehlo.constant dense<[1, 2]> : tensor<2xi32>
  %d = stablehlo.constant dense<[2, 1]> : tensor<2xi32>
  %n = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x?xf32>) -> tensor<i32>
{parts}
  %p4 = stablehlo.concatenate %r0, %r1, %r2, %r3, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<4xi32>
  %p = stablehlo.reshape %p4 : (tensor<4xi32>) -> tensor<2x2xi32>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%arg0, %cst, %w, %s, %b, %d, %p) {{api_version = 2 : i32, called_computations = [@sum]}} : (tensor<?x?xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}}
func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {{
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}}
"""


def _reduce_window_sum(x, pad, window=(2, 2), strides=(1, 2), base=(1, 2), dilation=(2, 1)):  # noqa: ANN001, ANN202
    """XLA's reduce_window of a sum, in numpy: base-dilate, pad with 0, slide."""
    rows, cols = (x.shape[0] - 1) * base[0] + 1, (x.shape[1] - 1) * base[1] + 1
    dilated = np.zeros((rows, cols), x.dtype)
    dilated[:: base[0], :: base[1]] = x
    p = np.pad(dilated, pad)
    span = [(window[i] - 1) * dilation[i] + 1 for i in range(2)]
    out_shape = [(p.shape[i] - span[i]) // strides[i] + 1 for i in range(2)]
    out = np.zeros(out_shape, x.dtype)
    for i in range(out_shape[0]):
        for j in range(out_shape[1]):
            r, c = i * strides[0], j * strides[1]
            out[i, j] = p[r : r + span[0] : dilation[0], c : c + span[1] : dilation[1]].sum()
    return out


def test_fixed_window_dynamic_reduce_window_is_a_pad_and_a_reduce_window():
    """A `@stablehlo.dynamic_reduce_window` with a constant window, strides and
    dilations and a run-time padding (jax's "SAME" pooling over a dynamic
    axis) compiles and runs; a negative run-time padding is a shape assertion."""
    with disc_ir.compile(_padded_window((-3, -2, -2, -3))) as exe:
        for shape in [(3, 4), (4, 1), (7, 5)]:
            x = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
            n = shape[0]
            want = _reduce_window_sum(x, [(n - 3, n - 2), (n - 2, n - 3)])
            np.testing.assert_array_equal(exe(x)[0], want)
        with pytest.raises(ShapeAssertionError, match="padding must not be negative; got -1"):
            exe(np.ones((2, 3), np.float32))


def _cumulative_window(padding_offset: int) -> str:
    """jax's cumsum along dynamic axis 1, the padding before it `N - 1 + padding_offset`."""
    return f"""
func.func public @main(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {{
  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %one = stablehlo.constant dense<1> : tensor<1xi32>
  %zero = stablehlo.constant dense<0> : tensor<1xi32>
  %offset = stablehlo.constant dense<{padding_offset - 1}> : tensor<i32>
  %n = stablehlo.get_dimension_size %arg0, dim = 1 : (tensor<?x?xf32>) -> tensor<i32>
  %n1 = stablehlo.reshape %n : (tensor<i32>) -> tensor<1xi32>
  %window = stablehlo.concatenate %one, %n1, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %ones = stablehlo.concatenate %one, %one, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %low = stablehlo.add %n, %offset : tensor<i32>
  %low1 = stablehlo.reshape %low : (tensor<i32>) -> tensor<1xi32>
  %row0 = stablehlo.concatenate %zero, %zero, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %row1 = stablehlo.concatenate %low1, %zero, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %r0 = stablehlo.reshape %row0 : (tensor<2xi32>) -> tensor<1x2xi32>
  %r1 = stablehlo.reshape %row1 : (tensor<2xi32>) -> tensor<1x2xi32>
  %padding = stablehlo.concatenate %r0, %r1, dim = 0 : (tensor<1x2xi32>, tensor<1x2xi32>) -> tensor<2x2xi32>
  %0 = stablehlo.custom_call @stablehlo.dynamic_reduce_window(%arg0, %cst, %window, %ones, %ones, %ones, %padding) {{api_version = 2 : i32, called_computations = [@sum]}} : (tensor<?x?xf32>, tensor<f32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2xi32>, tensor<2x2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}}
func.func private @sum(%a: tensor<f32>, %b: tensor<f32>) -> tensor<f32> {{
  %0 = stablehlo.add %a, %b : tensor<f32>
  return %0 : tensor<f32>
}}
"""


def test_cumulative_dynamic_reduce_window_is_a_blocked_scan():
    """A cumulative `@stablehlo.dynamic_reduce_window` (window N, padding N - 1
    before the axis: jax's cumsum along a dynamic axis) compiles and runs;
    its window and padding are checked at run time."""
    x = np.linspace(-2, 2, 21, dtype=np.float32).reshape(3, 7)
    with disc_ir.compile(_cumulative_window(0)) as exe:
        np.testing.assert_allclose(exe(x)[0], np.cumsum(x, axis=1), rtol=1e-6, atol=1e-6)
        # empty, one element, and several blocks of blocks with a partial last one
        for shape in [(3, 0), (0, 5), (2, 1), (2, 4097)]:
            y = np.linspace(-1, 1, int(np.prod(shape)), dtype=np.float32).reshape(shape)
            want = np.cumsum(y.astype(np.float64), axis=1)  # float32 rounding grows with n
            np.testing.assert_allclose(exe(y)[0], want, rtol=0, atol=1e-6 * max(shape[1], 1))
    with disc_ir.compile(_cumulative_window(1)) as exe:
        with pytest.raises(ShapeAssertionError, match="only the cumulative form"):
            exe(x)
