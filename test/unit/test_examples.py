"""The examples the user guide walks through run as documented."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np

import disc_ir
from disc_ir.api import print_module
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import parse_module

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

POW_GRAPH = """
func.func @main(%x: tensor<?xf32>) -> tensor<4xf32> {
  %two = mhlo.constant dense<2.000000e+00> : tensor<f32>
  %b = "mhlo.broadcast_in_dim"(%two) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4xf32>
  %c = mhlo.constant dense<2.000000e+00> : tensor<4xf32>
  %y = mhlo.power %x, %x : tensor<?xf32>
  %s = "mhlo.slice"(%y) {start_indices = dense<0> : tensor<1xi64>, limit_indices = dense<4> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} : (tensor<?xf32>) -> tensor<4xf32>
  %z = mhlo.power %s, %c : tensor<4xf32>
  %w = mhlo.power %s, %b : tensor<4xf32>
  %r = mhlo.add %z, %w : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_custom_pass_rewrites_only_powers_of_constant_two() -> None:
    example = _load("custom_pass")
    ctx = make_context()
    module = parse_module(ctx, POW_GRAPH, "pow.mlir")
    example.ExamplePow2ToMultiply().apply(ctx, module)
    text = print_module(module)
    assert text.count("mhlo.power") == 2  # x^x and the broadcast exponent stay
    assert text.count("mhlo.multiply") == 1


def test_custom_pass_loads_as_disc_opt_plugin(tmp_path: Path) -> None:
    src = tmp_path / "pow.mlir"
    src.write_text(POW_GRAPH)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "disc_ir.tools.disc_opt",
            f"--load-pass-plugin={EXAMPLES / 'custom_pass.py'}",
            "--example-pow2-to-multiply",
            str(src),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("mhlo.multiply") == 1 and done.stdout.count("mhlo.power") == 2


def test_custom_kernel_is_called_from_compiled_code() -> None:
    example = _load("custom_kernel")
    exe = disc_ir.compile(example.GRAPH)
    x = np.linspace(-4, 4, 101, dtype=np.float32)
    (y,) = exe(x)
    s = 2 * x / (1 + np.abs(2 * x))
    np.testing.assert_allclose(y, s * s, rtol=1e-6)
    assert "my_softsign___cpu___" in exe.llvm_ir
