"""Broadcasts: explicit (static `broadcast_in_dim` / `broadcast`, dynamic
`dynamic_broadcast_in_dim` to a `shape_of`), and implicit numpy-style ones
(size-1 dimensions expanded at run time, the shapes joined by `shape.broadcast`
as chlo's broadcasting ops lower to)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from .conftest import check, compiled, rand, rng, run

ROW_COL_SCALAR = """
func.func @main(%x: tensor<?x?xf32>, %row: tensor<?xf32>, %col: tensor<?xf32>, %s: tensor<f32>) -> tensor<?x?xf32> {
  %shape = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %r = "mhlo.dynamic_broadcast_in_dim"(%row, %shape) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %c = "mhlo.dynamic_broadcast_in_dim"(%col, %shape) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %k = "mhlo.dynamic_broadcast_in_dim"(%s, %shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %0 = mhlo.add %x, %r : tensor<?x?xf32>
  %1 = mhlo.multiply %0, %c : tensor<?x?xf32>
  %2 = mhlo.subtract %1, %k : tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def row_col_scalar():
    return compiled(ROW_COL_SCALAR)


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (7, 1), (5, 13), (1024, 1027)], ids=str)
def test_dynamic_row_col_scalar(row_col_scalar, shape):
    gen = rng("rcs", shape)
    m, n = shape
    x, row, col = rand(gen, shape), rand(gen, (n,)), rand(gen, (m,))
    s = np.array(np.float32(0.375))
    (out,) = run(row_col_scalar, x, row, col, s)
    check(out, (x + row[None, :]) * col[:, None] - s)


@pytest.mark.parametrize("row_size", [7, 14, 12])
def test_dynamic_broadcast_of_a_mismatched_dim_raises(row_col_scalar, row_size):
    """An operand dim that is neither 1 nor the result dim it maps to raises
    the compile driver's check, naming both shapes, instead of broadcasting
    the wrong values (or reading past the operand); the executable keeps
    working afterwards, a size-1 operand dim included."""
    from disc_ir.runtime import ShapeAssertionError

    gen = rng("rcs_bad", row_size)
    x, col = rand(gen, (5, 13)), rand(gen, (5,))
    s = np.array(np.float32(0.5))
    want = (
        f"an operand of shape ({row_size}) broadcast to shape (5, 13) by "
        "mhlo.dynamic_broadcast_in_dim: each operand dimension must be 1 or the size of the "
        "result dimension it maps to (operand -> result: 0 -> 1)"
    )
    with pytest.raises(ShapeAssertionError, match=re.escape(want)):
        run(row_col_scalar, x, rand(gen, (row_size,)), col, s)
    one = rand(gen, (1,))
    (out,) = run(row_col_scalar, x, one, col, s)
    check(out, (x + one[None, :]) * col[:, None] - s)


# The shape as JAX's exports compute it: integer dimension sizes of another
# input, joined; a mismatch raises too.
I32_SHAPE = """
func.func @main(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %d0 = "mhlo.get_dimension_size"(%x) {dimension = 0 : i64} : (tensor<?x?xf32>) -> tensor<i32>
  %d1 = "mhlo.get_dimension_size"(%x) {dimension = 1 : i64} : (tensor<?x?xf32>) -> tensor<i32>
  %r0 = mhlo.reshape %d0 : (tensor<i32>) -> tensor<1xi32>
  %r1 = mhlo.reshape %d1 : (tensor<i32>) -> tensor<1xi32>
  %shape = "mhlo.concatenate"(%r0, %r1) {dimension = 0 : i64} : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %shape) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %0 = mhlo.add %x, %bb : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""


def test_dynamic_broadcast_to_an_integer_shape_is_checked():
    from disc_ir.runtime import ShapeAssertionError

    exe = compiled(I32_SHAPE)
    gen = rng("i32_shape", 0)
    x, b = rand(gen, (3, 8)), rand(gen, (8,))
    (out,) = run(exe, x, b)
    check(out, x + b[None, :])
    with pytest.raises(
        ShapeAssertionError, match=re.escape("operand of shape (6) broadcast to shape (3, 8)")
    ):
        run(exe, x, rand(gen, (6,)))


# The shape as hand-written MHLO often builds it: index dims of another
# input, joined by `tensor.from_elements`; the check reads its elements.
FROM_ELEMENTS_SHAPE = """
func.func @main(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %shape = tensor.from_elements %d0, %d1 : tensor<2xindex>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %shape) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %0 = mhlo.add %x, %bb : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""


@pytest.mark.parametrize("shape", [(3, 8), (1, 1), (17, 300)], ids=str)
def test_dynamic_broadcast_to_an_index_shape_of_elements_is_checked(shape):
    """An index shape not measured by `shape.shape_of` is read element by
    element: a valid bias broadcasts (a size-1 one too), a mismatched one
    raises instead of giving a silent wrong answer."""
    from disc_ir.runtime import ShapeAssertionError

    exe = compiled(FROM_ELEMENTS_SHAPE)
    gen = rng("from_elements", shape)
    m, n = shape
    x = rand(gen, shape)
    for b in (rand(gen, (n,)), rand(gen, (1,))):
        (out,) = run(exe, x, b)
        check(out, x + b[None, :])
    with pytest.raises(
        ShapeAssertionError,
        match=re.escape(f"an operand of shape ({n + 2}) broadcast to shape ({m}, {n})"),
    ):
        run(exe, x, rand(gen, (n + 2,)))


# chlo's implicitly broadcasting ops: numpy's trailing alignment, and
# `broadcast_dimensions` mapping the lower-rank operand (a column here).
CHLO_IMPLICIT = """
func.func @main(%x: tensor<?x?xf32>, %row: tensor<?xf32>, %col: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = chlo.broadcast_add %x, %row : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %1 = chlo.broadcast_multiply %0, %col {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def chlo_implicit():
    return compiled(CHLO_IMPLICIT)


@pytest.mark.parametrize(
    "x_shape,row,col", [((3, 8), 8, 3), ((3, 1), 5, 3), ((1, 8), 8, 1), ((4, 6), 1, 1)], ids=str
)
def test_chlo_implicit_broadcasts(chlo_implicit, x_shape, row, col):
    gen = rng("chlo", x_shape, row, col)
    x, r, c = rand(gen, x_shape), rand(gen, (row,)), rand(gen, (col,))
    (out,) = run(chlo_implicit, x, r, c)
    check(out, (x + r[None, :]) * c[:, None])


@pytest.mark.parametrize(
    "row,col,operand,pair",
    [(6, 3, "(3, 8) and (6)", "1 with 0"), (8, 2, "(3, 8) and (2)", "0 with 0")],
)
def test_chlo_incompatible_operands_raise(chlo_implicit, row, col, operand, pair):
    """Operands whose aligned dims differ and are not 1 raise the compile
    driver's check, naming the op, both shapes and the dims, instead of a
    result of the wrong shape or values (chlo-legalize-to-hlo, as mlir-hlo's
    under BladeDISC, drops the constraint)."""
    from disc_ir.runtime import ShapeAssertionError

    gen = rng("chlo_bad", row, col)
    x, r, c = rand(gen, (3, 8)), rand(gen, (row,)), rand(gen, (col,))
    with pytest.raises(ShapeAssertionError) as err:
        run(chlo_implicit, x, r, c)
    assert f"of shapes {operand}, are not broadcast compatible" in str(err.value)
    assert str(err.value).endswith(f"operand 1 dimension: {pair})")


def _checks_added(text: str) -> int:
    from disc_ir.frontends.runtime_checks import insert_broadcast_checks
    from disc_ir.ir.context import make_context
    from disc_ir.ir.parser import parse_module

    return insert_broadcast_checks(parse_module(make_context(), text))


def test_dynamic_broadcasts_proven_valid_get_no_check():
    """Only the dims the shape analysis cannot prove are checked: none for a
    broadcast to the operand's own shape, a size-1 operand dim, or dims
    marked known (non)expanding; one for a shape taken from another input."""
    own = """
func.func @main(%x: tensor<?x?xf32>, %u: tensor<1x?xf32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) {
  %shape = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %0 = "mhlo.dynamic_broadcast_in_dim"(%x, %shape) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %1 = "mhlo.dynamic_broadcast_in_dim"(%u, %shape) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>, known_nonexpanding_dimensions = dense<1> : tensor<1xi64>} : (tensor<1x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xf32>
}
"""
    assert _checks_added(own) == 0
    assert _checks_added(ROW_COL_SCALAR) == 2  # the row and the column
    assert _checks_added(I32_SHAPE) == 1
    assert _checks_added(FROM_ELEMENTS_SHAPE) == 1
    assert _checks_added(CHLO_IMPLICIT) == 2
    static = """
func.func @main(%x: tensor<3x8xf32>, %r: tensor<1xf32>, %y: tensor<?x8xf32>) -> (tensor<3x8xf32>, tensor<?x8xf32>) {
  %0 = chlo.broadcast_add %x, %r : (tensor<3x8xf32>, tensor<1xf32>) -> tensor<3x8xf32>
  %1 = chlo.broadcast_subtract %y, %y : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0, %1 : tensor<3x8xf32>, tensor<?x8xf32>
}
"""
    assert _checks_added(static) == 0
    dead = ROW_COL_SCALAR.replace("return %2 : tensor<?x?xf32>", "return %x : tensor<?x?xf32>")
    assert _checks_added(dead) == 0  # broadcasts no returned value depends on


# Static and mixed: a static bias broadcast into a tensor whose leading dim is dynamic,
# `mhlo.broadcast` (new leading dims) and a static `broadcast_in_dim`.
MIXED = """
func.func @main(%x: tensor<?x4xf32>, %b: tensor<4xf32>, %y: tensor<2x3xf32>) -> (tensor<?x4xf32>, tensor<5x2x3xf32>, tensor<2x4x3xf32>) {
  %shape = shape.shape_of %x : tensor<?x4xf32> -> tensor<2xindex>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %shape) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  %0 = mhlo.add %x, %bb : tensor<?x4xf32>
  %1 = "mhlo.broadcast"(%y) {broadcast_sizes = dense<5> : tensor<1xi64>} : (tensor<2x3xf32>) -> tensor<5x2x3xf32>
  %2 = "mhlo.broadcast_in_dim"(%y) {broadcast_dimensions = dense<[0, 2]> : tensor<2xi64>} : (tensor<2x3xf32>) -> tensor<2x4x3xf32>
  %3 = mhlo.exponential %2 : tensor<2x4x3xf32>
  return %0, %1, %3 : tensor<?x4xf32>, tensor<5x2x3xf32>, tensor<2x4x3xf32>
}
"""


@pytest.fixture(scope="module")
def mixed():
    return compiled(MIXED)


@pytest.mark.parametrize("rows", [1, 3, 300001], ids=str)
def test_static_and_mixed(mixed, rows):
    gen = rng("mixed", rows)
    x, b, y = rand(gen, (rows, 4)), rand(gen, (4,)), rand(gen, (2, 3))
    o0, o1, o2 = run(mixed, x, b, y)
    check(o0, x + b)
    check(o1, np.broadcast_to(y, (5, 2, 3)))
    # exp: polynomial approximation, rtol 1e-4
    check(o2, np.exp(np.broadcast_to(y[:, None, :], (2, 4, 3))), rtol=1e-4)


IMPLICIT = """
func.func @main(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %sa = shape.shape_of %a : tensor<?x?xf32> -> tensor<2xindex>
  %sb = shape.shape_of %b : tensor<?x?xf32> -> tensor<2xindex>
  %s = shape.broadcast %sa, %sb : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  %ba = "mhlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %s) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %0 = mhlo.multiply %ba, %bb : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""


@pytest.fixture(scope="module")
def implicit():
    return compiled(IMPLICIT)


@pytest.mark.parametrize(
    "shapes",
    [
        ((1, 1), (1, 1)),
        ((5, 1), (1, 7)),
        ((1, 1), (3, 4)),
        ((6, 7), (1, 7)),
        ((3, 4), (3, 4)),
        ((1100, 1), (1, 1000)),
    ],
    ids=str,
)
def test_implicit_size1_expansion(implicit, shapes):
    gen = rng("implicit", shapes)
    a, b = rand(gen, shapes[0]), rand(gen, shapes[1])
    (out,) = run(implicit, a, b)
    check(out, a * b)


RANK3 = """
func.func @main(%x: tensor<?x?x?xf32>, %b: tensor<?xf32>, %m: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  %shape = shape.shape_of %x : tensor<?x?x?xf32> -> tensor<3xindex>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %shape) {broadcast_dimensions = dense<2> : tensor<1xi64>} : (tensor<?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
  %mb = "mhlo.dynamic_broadcast_in_dim"(%m, %shape) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
  %0 = mhlo.add %x, %bb : tensor<?x?x?xf32>
  %1 = mhlo.maximum %0, %mb : tensor<?x?x?xf32>
  return %1 : tensor<?x?x?xf32>
}
"""


@pytest.fixture(scope="module")
def rank3():
    return compiled(RANK3)


@pytest.mark.parametrize("shape", [(1, 1, 1), (2, 3, 5), (64, 65, 257)], ids=str)
def test_rank3_bias_and_matrix(rank3, shape):
    gen = rng("rank3", shape)
    x, b, m = rand(gen, shape), rand(gen, shape[2:]), rand(gen, shape[:2])
    (out,) = run(rank3, x, b, m)
    check(out, np.maximum(x + b, m[:, :, None]))
