"""The StableHLO import packs jax's concatenated shape operands into `tensor.from_elements`
(`disc_ir.frontends.shape_operands`), and the compiled graphs compute the same values."""

from __future__ import annotations

import numpy as np
import pytest

import disc_ir
from disc_ir.frontends import import_stablehlo
from disc_ir.frontends.shape_operands import MAX_EXTENTS

# jax's idiom: each shape is concat(reshape(get_dimension_size), constant); the
# third concatenate is data (added to a value), the fourth mixes a two-element
# piece that is neither a constant nor a reshape.
GRAPH = """
func.func public @main(%x: tensor<?x8xf32>, %v: tensor<2xi32>) -> (tensor<?x8xf32>, tensor<3xi32>, tensor<?x2x4xf32>) {
  %d = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?x8xf32>) -> tensor<i32>
  %r = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %c8 = stablehlo.constant dense<8> : tensor<1xi32>
  %c24 = stablehlo.constant dense<[2, 4]> : tensor<2xi32>
  %s = stablehlo.concatenate %r, %c8, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %sum = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<?x8xf32>, tensor<f32>) -> tensor<?xf32>
  %b = stablehlo.dynamic_broadcast_in_dim %sum, %s, dims = [0] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x8xf32>
  %y = stablehlo.add %x, %b : tensor<?x8xf32>
  %data = stablehlo.concatenate %r, %v, dim = 0 : (tensor<1xi32>, tensor<2xi32>) -> tensor<3xi32>
  %data2 = stablehlo.add %data, %data : tensor<3xi32>
  %s3 = stablehlo.concatenate %r, %c24, dim = 0 : (tensor<1xi32>, tensor<2xi32>) -> tensor<3xi32>
  %z = stablehlo.dynamic_reshape %y, %s3 : (tensor<?x8xf32>, tensor<3xi32>) -> tensor<?x2x4xf32>
  return %y, %data2, %z : tensor<?x8xf32>, tensor<3xi32>, tensor<?x2x4xf32>
}
"""


def _ops(module) -> list[str]:  # noqa: ANN001 - a ModuleOp
    return [op.name for op in module.walk()]


def test_shape_concatenates_become_from_elements_data_ones_stay() -> None:
    names = _ops(import_stablehlo(GRAPH))
    # the two shape operands are packed, the data concatenate is kept
    assert names.count("tensor.from_elements") == 2
    assert names.count("mhlo.concatenate") == 1
    # the reshaped dimension is read back as a scalar, the constants as arith constants
    assert "tensor.extract" in names and "arith.constant" in names


def test_concatenate_with_a_non_shape_use_is_kept() -> None:
    text = GRAPH.replace(
        "return %y, %data2, %z : tensor<?x8xf32>, tensor<3xi32>, tensor<?x2x4xf32>",
        "return %y, %s3, %z : tensor<?x8xf32>, tensor<3xi32>, tensor<?x2x4xf32>",
    )
    names = _ops(import_stablehlo(text))
    # %s3 is now also returned: only %s is packed
    assert names.count("tensor.from_elements") == 1
    assert names.count("mhlo.concatenate") == 2


def test_long_shapes_are_left_alone() -> None:
    n = MAX_EXTENTS + 1
    pieces = ", ".join(["%r"] * n)
    types = ", ".join(["tensor<1xi32>"] * n)
    text = f"""
func.func public @main(%x: tensor<?xf32>) -> tensor<?xf32> {{
  %d = stablehlo.get_dimension_size %x, dim = 0 : (tensor<?xf32>) -> tensor<i32>
  %r = stablehlo.reshape %d : (tensor<i32>) -> tensor<1xi32>
  %s = stablehlo.concatenate {pieces}, dim = 0 : ({types}) -> tensor<{n}xi32>
  %i = stablehlo.dynamic_iota %s, dim = 0 : (tensor<{n}xi32>) -> tensor<?x{"x".join(["?"] * (n - 1))}xf32>
  return %x : tensor<?xf32>
}}
"""
    names = _ops(import_stablehlo(text))
    assert "tensor.from_elements" not in names
    assert "mhlo.concatenate" in names


@pytest.mark.parametrize("rows", [1, 3, 17])
def test_packed_shapes_compute_the_same_values(rows: int) -> None:
    exe = disc_ir.compile(GRAPH, keep_ir=False)
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 8)).astype(np.float32)
    v = np.array([5, -2], dtype=np.int32)
    y, data2, z = exe(x, v)
    expect = x + x.sum(axis=1, keepdims=True)
    np.testing.assert_allclose(y, expect, rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(data2, 2 * np.array([rows, 5, -2], dtype=np.int32))
    np.testing.assert_allclose(z, expect.reshape(rows, 2, 4), rtol=1e-5, atol=1e-5)
    exe.close()
