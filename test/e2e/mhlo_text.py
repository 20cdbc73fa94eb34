"""A tiny MHLO text emitter for the larger e2e graphs (softmax, layernorm, gelu).

Writing polynomial approximations or normalisations by hand as MHLO text is
error-prone; `Graph` names the values, broadcasts splat constants and row
vectors to a dynamic shape taken with `shape.shape_of`, and prints the
function. Only rank-2 `tensor<?x?xT>` row-wise graphs are needed here.
"""

from __future__ import annotations


class Graph:
    """Builds `func.func @main(%x: tensor<?x?xT>, ...)` text op by op."""

    def __init__(self, args: list[tuple[str, str]], elem: str = "f32"):
        self.elem = elem
        self.t2 = f"tensor<?x?x{elem}>"
        self.t1 = f"tensor<?x{elem}>"
        self.t0 = f"tensor<{elem}>"
        self.args = args
        self.lines: list[str] = []
        self._n = 0
        x = args[0][0]
        self.shape = self._fresh("shape")
        self.lines.append(f"{self.shape} = shape.shape_of {x} : {self.t2} -> tensor<2xindex>")

    def _fresh(self, hint: str = "v") -> str:
        self._n += 1
        return f"%{hint}{self._n}"

    def emit(self, text: str, hint: str = "v") -> str:
        """Emits `%new = <text>`; returns `%new`."""
        name = self._fresh(hint)
        self.lines.append(f"{name} = {text}")
        return name

    def binary(self, op: str, a: str, b: str) -> str:
        return self.emit(f"mhlo.{op} {a}, {b} : {self.t2}")

    def unary(self, op: str, a: str) -> str:
        return self.emit(f"mhlo.{op} {a} : {self.t2}")

    def splat(self, value: float) -> str:
        """A scalar constant broadcast to the input's shape."""
        c = self.emit(f"mhlo.constant dense<{value:.9e}> : {self.t0}", "c")
        return self.emit(
            f'"mhlo.dynamic_broadcast_in_dim"({c}, {self.shape}) '
            f"{{broadcast_dimensions = dense<> : tensor<0xi64>}} : ({self.t0}, tensor<2xindex>) -> {self.t2}"
        )

    def bcast(self, v: str, dim: int) -> str:
        """A vector along dimension `dim` (0: per row, 1: per column) broadcast to the shape."""
        return self.emit(
            f'"mhlo.dynamic_broadcast_in_dim"({v}, {self.shape}) '
            f"{{broadcast_dimensions = dense<{dim}> : tensor<1xi64>}} : ({self.t1}, tensor<2xindex>) -> {self.t2}"
        )

    def reduce_rows(self, a: str, op: str, init: str) -> str:
        """Reduces dimension 1 with `mhlo.<op>` from the scalar constant `init` (MLIR literal)."""
        c = self.emit(f"mhlo.constant dense<{init}> : {self.t0}", "c")
        return self.emit(
            f"mhlo.reduce({a} init: {c}) applies mhlo.{op} across dimensions = [1] : "
            f"({self.t2}, {self.t0}) -> {self.t1}"
        )

    def row_count(self, like: str) -> str:
        """The extent of dimension 1 as a broadcast f32 tensor (for means)."""
        c1 = self.emit("arith.constant 1 : index", "c")
        d1 = self.emit(f"tensor.dim {like}, {c1} : {self.t2}", "d")
        i = self.emit(f"arith.index_cast {d1} : index to i64")
        f = self.emit(f"arith.sitofp {i} : i64 to {self.elem}")
        t = self.emit(f"tensor.from_elements {f} : {self.t0}")
        return self.emit(
            f'"mhlo.dynamic_broadcast_in_dim"({t}, {self.shape}) '
            f"{{broadcast_dimensions = dense<> : tensor<0xi64>}} : ({self.t0}, tensor<2xindex>) -> {self.t2}"
        )

    def polynomial(self, x: str, coeffs: list[float]) -> str:
        """Horner evaluation, highest-degree coefficient first."""
        acc = self.splat(coeffs[0])
        for c in coeffs[1:]:
            acc = self.binary("add", self.binary("multiply", acc, x), self.splat(c))
        return acc

    def text(self, results: list[tuple[str, str]]) -> str:
        sig = ", ".join(f"{n}: {t}" for n, t in self.args)
        res_types = ", ".join(t for _, t in results)
        res_names = ", ".join(n for n, _ in results)
        body = "\n".join("  " + line for line in self.lines)
        rt = res_types if len(results) == 1 else f"({res_types})"
        return (
            f"func.func @main({sig}) -> {rt} {{\n{body}\n  return {res_names} : {res_types}\n}}\n"
        )


# XLA's f32 erf (ErfImpl32, what chlo.erf legalizes to): x clamped to [-4, 4],
# erf(x) = x * P(x^2) / Q(x^2).
ERF_ALPHA = [
    -2.72614225801306e-10,
    2.77068142495902e-08,
    -2.10102402082508e-06,
    -5.69250639462346e-05,
    -7.34990630326855e-04,
    -2.95459980854025e-03,
    -1.60960333262415e-02,
]
ERF_BETA = [
    -1.45660718464996e-05,
    -2.13374055278905e-04,
    -1.68282697438203e-03,
    -7.37332916720468e-03,
    -1.42647390514189e-02,
]


def erf(g: Graph, x: str) -> str:
    """erf(x) as mhlo ops (XLA's rational approximation, clamped to [-4, 4])."""
    lo, hi = g.splat(-4.0), g.splat(4.0)
    xc = g.emit(f'"mhlo.clamp"({lo}, {x}, {hi}) : ({g.t2}, {g.t2}, {g.t2}) -> {g.t2}')
    x2 = g.binary("multiply", xc, xc)
    p = g.binary("multiply", xc, g.polynomial(x2, ERF_ALPHA))
    q = g.polynomial(x2, ERF_BETA)
    return g.binary("divide", p, q)


def gelu_erf(g: Graph, x: str) -> str:
    """0.5 * x * (1 + erf(x / sqrt(2)))."""
    e = erf(g, g.binary("multiply", x, g.splat(0.7071067811865476)))
    one_plus = g.binary("add", e, g.splat(1.0))
    return g.binary("multiply", g.binary("multiply", x, g.splat(0.5)), one_plus)


def gelu_tanh(g: Graph, x: str) -> str:
    """0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3)))."""
    x3 = g.binary("multiply", g.binary("multiply", x, x), x)
    inner = g.binary("add", x, g.binary("multiply", x3, g.splat(0.044715)))
    t = g.unary("tanh", g.binary("multiply", inner, g.splat(0.7978845608028654)))
    one_plus = g.binary("add", t, g.splat(1.0))
    return g.binary("multiply", g.binary("multiply", x, g.splat(0.5)), one_plus)


def softmax(g: Graph, x: str) -> str:
    """Row softmax: exp(x - max) / sum(exp(x - max))."""
    m = g.reduce_rows(x, "maximum", "0xFF800000")
    e = g.unary("exponential", g.binary("subtract", x, g.bcast(m, 0)))
    s = g.reduce_rows(e, "add", "0.000000e+00")
    return g.binary("divide", e, g.bcast(s, 0))


def layernorm(g: Graph, x: str, gamma: str, beta: str, eps: float = 1e-5) -> str:
    """Row layer normalisation with per-column scale and shift."""
    n = g.row_count(x)
    mean = g.binary("divide", g.bcast(g.reduce_rows(x, "add", "0.000000e+00"), 0), n)
    c = g.binary("subtract", x, mean)
    var = g.binary(
        "divide", g.bcast(g.reduce_rows(g.binary("multiply", c, c), "add", "0.000000e+00"), 0), n
    )
    inv = g.unary("rsqrt", g.binary("add", var, g.splat(eps)))
    y = g.binary("multiply", c, inv)
    return g.binary("add", g.binary("multiply", y, g.bcast(gamma, 1)), g.bcast(beta, 1))
