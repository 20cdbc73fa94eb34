"""Numerical checks of `disc-math-approximation` (MLIR's polynomial approximations).

Each math op is put in a one-op function, the pass rewrites it to arith /
math.fma code, and a tiny numpy interpreter of those ops (f32 / i32 / i1
semantics, evaluated elementwise over an array of inputs) computes the
approximation, which is compared with numpy's float64 functions.

Measured maximum errors over the tested ranges (f32 arithmetic, against
numpy in float64; relative error unless stated):

=========  ============================================  =====================
op         inputs                                        max error
=========  ============================================  =====================
exp        [-87, 88]; +-100, +-inf, NaN exact            rel 8.0e-8
expm1      [-20, 80], +-[1e-10, 1e-3]                    rel 1.5e-7
log        [1e-37, 1e37]; 0, < 0, +inf exact             rel 7.0e-8
log2       [1e-37, 1e37] (|log2| > 0.5); [0.5, 2]        rel 6.1e-8; abs 6.1e-8
log1p      [-0.999, 1e6], +-[1e-10, 1e-3]                rel 1.7e-7
tanh       [-20, 20], [1e-8, 1]                          rel 2.5e-7
erf        [-6, 6], [1e-8, 1]                            rel 2.1e-7, abs 2.1e-7
sin, cos   [-pi, pi]; [-100, 100]                        abs 1.6e-7; abs 6.0e-6
atan       [-1e4, 1e4], +-[1e-8, 1e4]                    rel 1.1e-7
atan2      y, x uniform in [-10, 10]                     abs 2.5e-7
cbrt       +-[1e-30, 1e30]                               rel 1.1e-6
=========  ============================================  =====================

(The bounds asserted below are these numbers with a small margin.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Operation, SSAValue

from disc_ir.ir.context import make_context
from disc_ir.ir.parser import DiscParser
from disc_ir.passes.registry import get_pass

_CMPF = {
    "oeq": np.equal,
    "ogt": np.greater,
    "oge": np.greater_equal,
    "olt": np.less,
    "ole": np.less_equal,
    "one": np.not_equal,
}
_CMPF_NAMES = [
    "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
    "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true",
]  # fmt: skip
_CMPI_NAMES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


def _cmpf(pred: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    unordered = np.isnan(a) | np.isnan(b)
    if pred == "ord":
        return ~unordered
    if pred == "uno":
        return unordered
    if pred[0] == "o":
        return ~unordered & _CMPF[pred]((a), (b))
    return unordered | _CMPF["o" + pred[1:]](a, b)


def _cmpi(pred: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ops = {"eq": np.equal, "ne": np.not_equal, "slt": np.less, "sle": np.less_equal}
    ops |= {"sgt": np.greater, "sge": np.greater_equal}
    return ops[pred](a, b)


def _const(op: arith.ConstantOp) -> np.ndarray:
    attr = op.value
    if isinstance(attr, FloatAttr):
        return np.float32(attr.value.data)
    assert isinstance(attr, IntegerAttr)
    t = attr.type
    assert isinstance(t, IntegerType)
    if t.width.data == 1:
        return np.bool_(attr.value.data)
    return np.int32(attr.value.data)


def evaluate(fn: func.FuncOp, *inputs: np.ndarray) -> np.ndarray:
    """Interpret the single-block `fn` elementwise over the input arrays."""
    env: dict[SSAValue, np.ndarray] = dict(zip(fn.body.block.args, inputs, strict=True))

    def v(i: int, op: Operation) -> np.ndarray:
        return env[op.operands[i]]

    for op in fn.body.block.ops:
        name = op.name
        if name == "func.return":
            return env[op.operands[0]]
        with np.errstate(all="ignore"):
            if name == "arith.constant":
                out = _const(op)  # type: ignore[arg-type]
            elif name == "arith.addf":
                out = np.float32(v(0, op) + v(1, op))
            elif name == "arith.subf":
                out = np.float32(v(0, op) - v(1, op))
            elif name == "arith.mulf":
                out = np.float32(v(0, op) * v(1, op))
            elif name == "arith.divf":
                out = np.float32(v(0, op) / v(1, op))
            elif name == "arith.negf":
                out = -v(0, op)
            elif name == "math.fma":
                a, b, c = (np.float64(v(i, op)) for i in range(3))
                out = np.float32(a * b + c)
            elif name == "math.absf":
                out = np.abs(v(0, op))
            elif name == "math.floor":
                out = np.floor(v(0, op))
            elif name == "math.copysign":
                out = np.copysign(v(0, op), v(1, op))
            elif name == "arith.cmpf":
                pred = _CMPF_NAMES[op.properties["predicate"].value.data]  # type: ignore[attr-defined]
                out = _cmpf(pred, v(0, op), v(1, op))
            elif name == "arith.cmpi":
                pred = _CMPI_NAMES[op.properties["predicate"].value.data]  # type: ignore[attr-defined]
                out = _cmpi(pred, v(0, op), v(1, op))
            elif name == "arith.select":
                out = np.where(v(0, op), v(1, op), v(2, op))
            elif name == "arith.bitcast":
                src = np.asarray(v(0, op))
                target = np.int32 if isinstance(op.results[0].type, IntegerType) else np.float32
                out = src.view(target)
            elif name == "arith.andi":
                out = v(0, op) & v(1, op)
            elif name == "arith.ori":
                out = v(0, op) | v(1, op)
            elif name == "arith.xori":
                out = v(0, op) ^ v(1, op)
            elif name == "arith.addi":
                out = (np.int64(v(0, op)) + np.int64(v(1, op))).astype(np.int32)
            elif name == "arith.shli":
                out = (np.int64(v(0, op)) << np.int64(v(1, op))).astype(np.int32)
            elif name == "arith.shrui":
                out = (np.asarray(v(0, op)).view(np.uint32) >> np.uint32(v(1, op))).view(np.int32)
            elif name == "arith.shrsi":
                out = v(0, op) >> v(1, op)
            elif name == "arith.sitofp":
                out = np.asarray(v(0, op)).astype(np.float32)
            elif name == "arith.fptosi":
                out = np.nan_to_num(np.asarray(v(0, op))).astype(np.int32)
            elif name == "arith.extf":
                out = np.asarray(v(0, op)).astype(np.float32)
            elif name == "arith.truncf":
                out = np.asarray(v(0, op)).astype(np.float16)
            else:
                raise NotImplementedError(f"evaluator: unsupported op {name}")
        env[op.results[0]] = np.asarray(out)
    raise AssertionError("no func.return")


def approximate(op_name: str, n_args: int = 1, elem: str = "f32") -> func.FuncOp:
    """The function `@f` computing `op_name` on f32 after the pass."""
    args = ", ".join(f"%a{i}: {elem}" for i in range(n_args))
    operands = ", ".join(f"%a{i}" for i in range(n_args))
    text = (
        f"func.func @f({args}) -> {elem} {{\n"
        f"  %0 = {op_name} {operands} : {elem}\n"
        f"  return %0 : {elem}\n}}\n"
    )
    ctx = make_context()
    module = DiscParser(ctx, text).parse_module()
    pass_cls = get_pass("disc-math-approximation")
    assert pass_cls is not None
    pass_cls().apply(ctx, module)
    module.verify()
    fn = next(o for o in module.walk() if isinstance(o, func.FuncOp))
    remaining = [o.name for o in fn.walk() if o.name.startswith("math.")]
    allowed = {"math.fma", "math.absf", "math.floor", "math.copysign"}
    assert set(remaining) <= allowed, f"not approximated: {set(remaining) - allowed}"
    return fn


def _rel_err(got: np.ndarray, want: np.ndarray) -> float:
    got64 = got.astype(np.float64)
    denom = np.maximum(np.abs(want), np.finfo(np.float32).tiny)
    return float(np.max(np.abs(got64 - want) / denom))


def _abs_err(got: np.ndarray, want: np.ndarray) -> float:
    return float(np.max(np.abs(got.astype(np.float64) - want)))


def _grid(lo: float, hi: float, n: int = 20001) -> np.ndarray:
    return np.linspace(lo, hi, n, dtype=np.float32)


def _log_grid(lo_exp: float, hi_exp: float, n: int = 20001) -> np.ndarray:
    return np.logspace(lo_exp, hi_exp, n).astype(np.float32)


def test_exp() -> None:
    fn = approximate("math.exp")
    x = _grid(-87.0, 88.0)
    assert _rel_err(evaluate(fn, x), np.exp(x.astype(np.float64))) < 2e-7
    special = np.array([-100.0, 100.0, -np.inf, np.inf, 0.0], dtype=np.float32)
    got = evaluate(fn, special)
    assert got[0] == 0.0 and got[2] == 0.0
    assert np.isinf(got[1]) and np.isinf(got[3]) and got[4] == 1.0
    assert np.isnan(evaluate(fn, np.array([np.nan], dtype=np.float32)))[0]


def test_expm1() -> None:
    fn = approximate("math.expm1")
    x = np.concatenate([_grid(-20.0, 80.0), _log_grid(-10, -3, 2001), -_log_grid(-10, -3, 2001)])
    assert _rel_err(evaluate(fn, x), np.expm1(x.astype(np.float64))) < 3e-7
    got = evaluate(fn, np.array([-100.0, 0.0], dtype=np.float32))
    assert got[0] == -1.0 and got[1] == 0.0


def test_log() -> None:
    fn = approximate("math.log")
    x = _log_grid(-37, 37)
    assert _rel_err(evaluate(fn, x), np.log(x.astype(np.float64))) < 2e-7
    near_one = _grid(0.5, 2.0)
    assert _abs_err(evaluate(fn, near_one), np.log(near_one.astype(np.float64))) < 1e-7
    got = evaluate(fn, np.array([0.0, -1.0, np.inf], dtype=np.float32))
    assert got[0] == -np.inf and np.isnan(got[1]) and got[2] == np.inf


def test_log2() -> None:
    fn = approximate("math.log2")
    x = _log_grid(-37, 37)
    want = np.log2(x.astype(np.float64))
    far = np.abs(want) > 0.5
    assert _rel_err(evaluate(fn, x[far]), want[far]) < 2e-7
    near_one = _grid(0.5, 2.0)
    assert _abs_err(evaluate(fn, near_one), np.log2(near_one.astype(np.float64))) < 2e-7


def test_log1p() -> None:
    fn = approximate("math.log1p")
    x = np.concatenate([_grid(-0.999, 10.0), _log_grid(1, 6, 2001), _log_grid(-10, -3, 2001)])
    x = np.concatenate([x, -_log_grid(-10, -3, 2001)])
    assert _rel_err(evaluate(fn, x), np.log1p(x.astype(np.float64))) < 3e-7


def test_tanh() -> None:
    fn = approximate("math.tanh")
    x = np.concatenate([_grid(-20.0, 20.0), _log_grid(-8, 0, 2001)])
    assert _rel_err(evaluate(fn, x), np.tanh(x.astype(np.float64))) < 4e-7


def test_erf() -> None:
    fn = approximate("math.erf")
    x = np.concatenate([_grid(-6.0, 6.0), _log_grid(-8, 0, 2001)])
    want = np.array([math.erf(float(t)) for t in x])
    got = evaluate(fn, x)
    assert _abs_err(got, want) < 3e-7
    assert _rel_err(got, want) < 3e-7


@pytest.mark.parametrize(("name", "ref"), [("math.sin", np.sin), ("math.cos", np.cos)])
def test_sin_cos(name: str, ref: np.ufunc) -> None:
    fn = approximate(name)
    small = _grid(-math.pi, math.pi)
    assert _abs_err(evaluate(fn, small), ref(small.astype(np.float64))) < 3e-7
    x = _grid(-100.0, 100.0)
    assert _abs_err(evaluate(fn, x), ref(x.astype(np.float64))) < 1e-5


def test_atan() -> None:
    fn = approximate("math.atan")
    x = np.concatenate([_grid(-10.0, 10.0), _log_grid(-8, 4, 2001), -_log_grid(-8, 4, 2001)])
    assert _rel_err(evaluate(fn, x), np.arctan(x.astype(np.float64))) < 2e-7


def test_atan2() -> None:
    fn = approximate("math.atan2", n_args=2)
    rng = np.random.default_rng(0)
    y = rng.uniform(-10, 10, 20000).astype(np.float32)
    x = rng.uniform(-10, 10, 20000).astype(np.float32)
    got = evaluate(fn, y, x)
    assert _abs_err(got, np.arctan2(y.astype(np.float64), x.astype(np.float64))) < 4e-7


def test_cbrt() -> None:
    fn = approximate("math.cbrt")
    x = np.concatenate([_log_grid(-30, 30), -_log_grid(-30, 30), np.zeros(1, np.float32)])
    got = evaluate(fn, x)
    assert _rel_err(got[:-1], np.cbrt(x[:-1].astype(np.float64))) < 1.5e-6
    assert got[-1] == 0.0


def test_f16_goes_through_f32() -> None:
    fn = approximate("math.exp", elem="f16")
    names = [o.name for o in fn.body.block.ops]
    assert names.count("arith.extf") == 1 and names.count("arith.truncf") == 1
    x = np.linspace(-10, 10, 1001).astype(np.float16)
    got = evaluate(fn, x)
    assert got.dtype == np.float16
    assert _rel_err(got.astype(np.float32), np.exp(x.astype(np.float64))) < 1e-3


def test_f64_is_left_alone() -> None:
    text = "func.func @f(%a: f64) -> f64 {\n  %0 = math.exp %a : f64\n  return %0 : f64\n}\n"
    ctx = make_context()
    module: ModuleOp = DiscParser(ctx, text).parse_module()
    pass_cls = get_pass("disc-math-approximation")
    assert pass_cls is not None
    pass_cls().apply(ctx, module)
    assert [o.name for o in module.walk() if o.name.startswith("math.")] == ["math.exp"]


@pytest.mark.parametrize(("name", "ref"), [("math.sin", np.sin), ("math.cos", np.cos)])
def test_sin_cos_reduction_edges(name: str, ref: np.ufunc) -> None:
    """Tiny negatives keep their value and sign (k rounds to 0, not -1), -0
    stays -0 for sin, |x| up to 1e4 stays accurate (three-part pi/2), and
    past the reduction's range the result stays in [-1, 1] (NaN at inf)."""
    fn = approximate(name)
    tiny = np.array([-6.28e-38, -1e-20, -1e-7, -0.0, 0.0, 1e-30], np.float32)
    got = evaluate(fn, tiny)
    want = ref(tiny.astype(np.float64))
    np.testing.assert_allclose(got, want, rtol=2e-7, atol=0)
    if name == "math.sin":
        assert np.signbit(got[3]) and not np.signbit(got[4])
    x = np.concatenate([_grid(-1e4, 1e4), _grid(-1e3, 1e3)])
    assert _abs_err(evaluate(fn, x), ref(x.astype(np.float64))) < 4e-6
    huge = np.array([3e38, -3e38, 1e20, np.inf, -np.inf, np.nan], np.float32)
    got = evaluate(fn, huge)
    assert np.all(np.abs(got[:3]) <= 1.0) and np.all(np.isnan(got[3:]))
