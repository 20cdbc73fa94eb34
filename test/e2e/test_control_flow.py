"""Static control flow: unrolled `mhlo.while`, `mhlo.if` / `mhlo.case` as selects.

JAX functions (`lax.fori_loop` with constant bounds, `lax.scan` over a
static length, nested loops, `lax.cond`, `lax.switch`, `jax.random`'s
threefry loop, `jnp.searchsorted` / `jnp.histogram`: a binary-search loop
whose edges are computed in the graph) are compiled through
`disc_ir.jax.compile` and compared with `jax.jit`; MHLO text covers what jax
does not emit (a `GT` loop condition with a step of 2, a zero-trip loop, a
`case` index out of range, which takes the last branch). Conditionals with
dynamically shaped results are selects too where every branch provably
returns the same shape. Loops whose trip count is not a compile-time
constant, and conditionals whose branches may return different shapes, stay
unsupported, with an error naming the op.
"""

from __future__ import annotations

import numpy as np
import pytest

from disc_ir.api import CompileError
from disc_ir.api import compile as disc_compile
from disc_ir.frontends.control_flow import static_trip_count

from .conftest import rng, run

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
disc_jax = pytest.importorskip("disc_ir.jax")


def _x(name: str, shape: tuple[int, ...]) -> np.ndarray:
    return rng(name, shape).standard_normal(shape).astype(np.float32)


def _check(fn, args, dynamic_axes=None, rtol=1e-5) -> None:  # noqa: ANN001
    exe = disc_jax.compile(fn, *args, dynamic_axes=dynamic_axes or {})
    try:
        got = jax.tree_util.tree_leaves(exe(*args))
        want = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=rtol, atol=1e-5)
    finally:
        exe.close()


JAX_CASES = {
    "fori_loop": (lambda a: jax.lax.fori_loop(0, 4, lambda i, c: c * 0.5 + i, a), ((3, 5),)),
    "fori_loop_nested": (
        lambda a: jax.lax.fori_loop(
            1, 3, lambda i, c: jax.lax.fori_loop(0, i, lambda j, d: d + j * i, c), a
        ),
        ((2, 3),),
    ),
    "scan_cumulative": (
        lambda a: jax.lax.scan(lambda c, r: (c + r, c * r), jnp.zeros(a.shape[1]), a),
        ((6, 4),),
    ),
    "cond": (
        lambda a, p: jax.lax.cond(p > 0, lambda y: jnp.tanh(y) * 2, lambda y: y - 1, a),
        ((4, 4), ()),
    ),
    "histogram": (lambda a: jnp.histogram(a, bins=4, range=(0, 1))[0], ((3, 7),)),
    "searchsorted": (
        lambda a, e: jnp.searchsorted(jnp.sort(e), a.ravel(), side="right"),
        ((4, 5), (9,)),
    ),
    "switch": (
        lambda a, k: jax.lax.switch(k, [lambda y: y + 1, lambda y: y * y, lambda y: -y], a),
        ((5,), "index"),
    ),
}


def _args(specs: tuple, variant: int) -> list[np.ndarray]:
    out: list[np.ndarray] = []
    for i, spec in enumerate(specs):
        if spec == "index":
            out.append(np.int32(variant))
        elif spec == ():
            out.append(np.float32(1.0 if variant % 2 else -1.0))
        else:
            out.append(_x(f"cf{i}{variant}", spec))
    return out


@pytest.mark.parametrize("name", sorted(JAX_CASES))
@pytest.mark.parametrize("variant", [0, 1, 2])
def test_static_control_flow_matches_jax(name, variant):
    fn, specs = JAX_CASES[name]
    _check(fn, _args(specs, variant))


def test_scan_with_a_dynamic_carry_width():
    """The trip count is static (the scanned axis), the other dims are not."""

    def fn(a):  # noqa: ANN001, ANN202
        return jax.lax.scan(lambda c, r: (c * 0.9 + r, c), jnp.zeros(a.shape[1]), a)[0]

    exe = disc_jax.compile(fn, _x("sd", (5, 3)), dynamic_axes={0: {1: "w"}})
    try:
        for width in (1, 3, 17):
            a = _x(f"sd{width}", (5, width))
            np.testing.assert_allclose(
                np.asarray(exe(a)), np.asarray(jax.jit(fn)(a)), rtol=1e-5, atol=1e-6
            )
    finally:
        exe.close()


@pytest.mark.parametrize(
    "draw",
    [
        lambda k: jax.random.normal(k, (4, 7)),
        lambda k: jax.random.uniform(k, (3, 5)),
        lambda k: jax.random.bits(jax.random.split(k)[1], (6,)),
    ],
    ids=["normal", "uniform", "split_bits"],
)
def test_jax_random_matches_jax(draw):
    """threefry: a static loop of unsigned 32-bit shifts, rotations and adds
    (the bits exactly; normal within an ulp of its erfinv)."""
    key = np.asarray(jax.random.PRNGKey(42))
    exe = disc_jax.compile(draw, key)
    try:
        got, want = np.asarray(exe(key)), np.asarray(jax.jit(draw)(key))
        if got.dtype.kind == "u":
            np.testing.assert_array_equal(got, want)
        else:
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    finally:
        exe.close()


# i counts down the other way round: `K > i`, step 2, from 1 to 9: 4 trips
GT_STEP2 = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c1 = mhlo.constant dense<1> : tensor<i64>
  %c2 = mhlo.constant dense<2> : tensor<i64>
  %c9 = mhlo.constant dense<9> : tensor<i64>
  %0:2 = mhlo.while(%i = %c1, %v = %x) : tensor<i64>, tensor<3xf32>
    cond {
      %p = mhlo.compare GT, %c9, %i, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      mhlo.return %p : tensor<i1>
    } do {
      %n = mhlo.add %i, %c2 : tensor<i64>
      %w = mhlo.add %v, %v : tensor<3xf32>
      mhlo.return %n, %w : tensor<i64>, tensor<3xf32>
    }
  return %0#1 : tensor<3xf32>
}
"""

ZERO_TRIPS = GT_STEP2.replace("dense<9>", "dense<1>")

CASE = """
func.func @main(%k: tensor<i32>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "mhlo.case"(%k) ({
    %a = mhlo.add %x, %x : tensor<2xf32>
    mhlo.return %a : tensor<2xf32>
  }, {
    %b = mhlo.multiply %x, %x : tensor<2xf32>
    mhlo.return %b : tensor<2xf32>
  }, {
    %c = mhlo.negate %x : tensor<2xf32>
    mhlo.return %c : tensor<2xf32>
  }) : (tensor<i32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


@pytest.mark.parametrize("name", ["cond", "switch"])
def test_conditionals_with_dynamic_shapes_match_jax(name):
    fn, specs = JAX_CASES[name]
    exe = disc_jax.compile(fn, *_args(specs, 0), dynamic_axes={0: tuple(range(len(specs[0])))})
    try:
        for variant, shape in enumerate([(1,) * len(specs[0]), (7,) * len(specs[0])]):
            args = _args((shape, specs[1]), variant)
            np.testing.assert_allclose(
                np.asarray(exe(*args)), np.asarray(jax.jit(fn)(*args)), rtol=1e-5, atol=1e-6
            )
    finally:
        exe.close()


IF_OF_TWO_SHAPES = """
func.func @main(%k: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "mhlo.if"(%k) ({
    %a = "mhlo.concatenate"(%x, %x) {dimension = 0 : i64} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    mhlo.return %a : tensor<?xf32>
  }, {
    %b = mhlo.multiply %x, %x : tensor<?xf32>
    mhlo.return %b : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


def test_branches_of_different_shapes_are_refused():
    """A select cannot return the shape of the branch taken: a conditional
    whose branches may return different shapes is a CompileError naming it."""
    with pytest.raises(CompileError, match=r"'mhlo.if'.*same shape in every branch"):
        disc_compile(IF_OF_TWO_SHAPES)


def test_while_with_gt_condition_and_step_two():
    x = np.array([1.0, -2.0, 0.5], np.float32)
    with disc_compile(GT_STEP2) as exe:
        (out,) = run(exe, x)
    np.testing.assert_array_equal(out, x * 16)
    with disc_compile(ZERO_TRIPS) as exe:
        (out,) = run(exe, x)
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("index", [-3, 0, 1, 2, 7])
def test_case_index_out_of_range_takes_the_last_branch(index):
    x = np.array([3.0, -1.5], np.float32)
    want = {0: x + x, 1: x * x}.get(index, -x)
    with disc_compile(CASE) as exe:
        (out,) = run(exe, np.int32(index), x)
    np.testing.assert_array_equal(out, want)


def test_loops_without_a_static_trip_count_are_refused():
    def fn(a, n):  # noqa: ANN001, ANN202
        return jax.lax.fori_loop(0, n, lambda i, c: c + 1, a)

    with pytest.raises(CompileError, match="mhlo.while.*trip count is a compile-time constant"):
        disc_jax.compile(fn, _x("dyn", (3,)), np.int32(4))


def test_trip_count_reader():
    from disc_ir.api import load_module, make_context

    module = load_module(make_context(), GT_STEP2)
    (loop,) = [op for op in module.walk() if op.name == "mhlo.while"]
    assert static_trip_count(loop) == 4
    module = load_module(make_context(), ZERO_TRIPS)
    (loop,) = [op for op in module.walk() if op.name == "mhlo.while"]
    assert static_trip_count(loop) == 0


# unsigned shifts and not (threefry's): the constants follow the signless values
UNSIGNED = """
func.func @main(%x: tensor<4xui32>, %s: tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>, tensor<4xui32>) {
  %0 = mhlo.shift_left %x, %s : tensor<4xui32>
  %1 = mhlo.shift_right_logical %x, %s : tensor<4xui32>
  %2 = mhlo.not %x : tensor<4xui32>
  return %0, %1, %2 : tensor<4xui32>, tensor<4xui32>, tensor<4xui32>
}
"""


def test_unsigned_shifts_and_not():
    x = np.array([1, 0x80000001, 12345, 0xFFFFFFFF], np.uint32)
    s = np.array([3, 1, 32, 40], np.uint32)
    with disc_compile(UNSIGNED) as exe:
        left, right, inverted = run(exe, x, s)
    wide = s.astype(np.uint64)
    np.testing.assert_array_equal(left, np.where(wide < 32, x << (wide % 32), 0).astype(np.uint32))
    np.testing.assert_array_equal(right, np.where(wide < 32, x >> (wide % 32), 0).astype(np.uint32))
    np.testing.assert_array_equal(inverted, ~x)
