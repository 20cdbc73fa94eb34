"""A builder of mhlo text with shapes that may be dynamic.

A `Value` is an SSA name with a shape (`None` for a dynamic dimension) and an
element type; a dimension expression (`Dim`) is an int or the SSA name of an
`index` value holding it at run time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

Dim = int | str

FLOAT_TYPES = ("f16", "bf16", "f32", "f64")

#: above this many elements a constant is broadcast at run time: the compiler
#: folds a constant broadcast to a static shape into a dense constant of that size
SPLAT_LIMIT = 65536


@dataclass(frozen=True)
class Value:
    """An SSA value of tensor type."""

    name: str
    shape: tuple[int | None, ...]
    element: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def static(self) -> bool:
        return all(d is not None for d in self.shape)

    @property
    def type(self) -> str:
        return tensor_type(self.shape, self.element)


def tensor_type(shape: Sequence[int | None], element: str) -> str:
    """`tensor<2x?xf32>`."""
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return f"tensor<{dims}{element}>"


def scalar_text(value: float | int | bool, element: str) -> str:
    """A dense element literal of `element`."""
    if element == "i1":
        return "true" if value else "false"
    if element in FLOAT_TYPES:
        v = float(value)
        if math.isnan(v):
            return {"f16": "0x7E00", "bf16": "0x7FC0"}.get(element, "0x7FC00000")
        if math.isinf(v):
            bits = {
                "f16": ("0x7C00", "0xFC00"),
                "bf16": ("0x7F80", "0xFF80"),
                "f64": ("0x7FF0000000000000", "0xFFF0000000000000"),
            }.get(element, ("0x7F800000", "0xFF800000"))
            return bits[0] if v > 0 else bits[1]
        return f"{v:.9e}"
    return str(int(value))


def dims_of(shape: Sequence[Dim]) -> tuple[int | None, ...]:
    """The static shape of dimension expressions (`None` where run-time)."""
    return tuple(d if isinstance(d, int) else None for d in shape)


class Emitter:
    """Appends mhlo ops to a function body, naming results `%v<N>`."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self._count = 0
        self._index_consts: dict[int, str] = {}
        self._shape_of: dict[str, str] = {}
        self._dims: dict[tuple[str, int], str] = {}
        self._constants: set[str] = set()

    def fresh(self) -> str:
        self._count += 1
        return f"%v{self._count}"

    def emit(self, text: str) -> None:
        self.lines.append("  " + text)

    def op(self, text: str, shape: Sequence[int | None], element: str) -> Value:
        """Emits `%r = <text>` and returns `%r` typed `shape`x`element`."""
        name = self.fresh()
        self.emit(f"{name} = {text}")
        return Value(name, tuple(shape), element)

    # -- constants --------------------------------------------------------

    def scalar(self, value: float | int | bool, element: str) -> Value:
        """A rank-0 constant."""
        v = self.op(
            f"mhlo.constant dense<{scalar_text(value, element)}> : tensor<{element}>", (), element
        )
        self._constants.add(v.name)
        return v

    def array(self, values: np.ndarray, element: str) -> Value:
        """A constant of `values`' shape."""
        shape = tuple(int(d) for d in values.shape)
        flat = [scalar_text(v.item(), element) for v in values.reshape(-1)]
        body = flat[0] if len(set(flat)) == 1 and flat else "[" + ", ".join(flat) + "]"
        if values.ndim > 1 and body.startswith("["):
            body = _nested(values, element)
        v = self.op(f"mhlo.constant dense<{body}> : {tensor_type(shape, element)}", shape, element)
        self._constants.add(v.name)
        return v

    def index(self, value: int) -> str:
        """An `index` constant (one per value)."""
        name = self._index_consts.get(value)
        if name is None:
            name = self.fresh()
            self.emit(f"{name} = arith.constant {value} : index")
            self._index_consts[value] = name
        return name

    # -- shapes -----------------------------------------------------------

    def dim(self, v: Value, axis: int) -> Dim:
        """Dimension `axis` of `v`: an int when static, else an index SSA value."""
        d = v.shape[axis]
        if d is not None:
            return d
        key = (v.name, axis)
        if key not in self._dims:
            shape = self._shape_of.get(v.name)
            if shape is None:
                shape = self.fresh()
                self.emit(f"{shape} = shape.shape_of {v.name} : {v.type} -> tensor<{v.rank}xindex>")
                self._shape_of[v.name] = shape
            name = self.fresh()
            self.emit(
                f"{name} = tensor.extract {shape}[{self.index(axis)}] : tensor<{v.rank}xindex>"
            )
            self._dims[key] = name
        return self._dims[key]

    def dims(self, v: Value) -> list[Dim]:
        return [self.dim(v, i) for i in range(v.rank)]

    def as_index(self, d: Dim) -> str:
        return self.index(d) if isinstance(d, int) else d

    def index_binary(self, op: str, a: Dim, b: Dim) -> Dim:
        """`a <op> b` on dimensions (`muli`, `divui`, `addi`, `subi`), folded when static."""
        if isinstance(a, int) and isinstance(b, int):
            return {"muli": a * b, "divui": a // b if b else 0, "addi": a + b, "subi": a - b}[op]
        name = self.fresh()
        self.emit(f"{name} = arith.{op} {self.as_index(a)}, {self.as_index(b)} : index")
        return name

    def shape_tensor(self, dims: Sequence[Dim]) -> str:
        """A `tensor<Nxindex>` of `dims`."""
        name = self.fresh()
        elems = ", ".join(self.as_index(d) for d in dims)
        self.emit(f"{name} = tensor.from_elements {elems} : tensor<{len(dims)}xindex>")
        return name

    # -- structural ops ---------------------------------------------------

    def reshape(self, v: Value, dims: Sequence[Dim]) -> Value:
        """`v` reshaped to `dims` (same element count)."""
        shape = dims_of(dims)
        if shape == v.shape and v.static:
            return v
        if all(d is not None for d in shape):
            return self.op(
                f"mhlo.reshape {v.name} : ({v.type}) -> {tensor_type(shape, v.element)}",
                shape,
                v.element,
            )
        st = self.shape_tensor(dims)
        return self.op(
            f'"mhlo.dynamic_reshape"({v.name}, {st}) : ({v.type}, tensor<{len(dims)}xindex>) -> '
            f"{tensor_type(shape, v.element)}",
            shape,
            v.element,
        )

    def broadcast(self, v: Value, dims: Sequence[Dim], mapping: Sequence[int]) -> Value:
        """`v` broadcast to `dims`, its dimension i landing on `mapping[i]`."""
        shape = dims_of(dims)
        attr = _i64_dense(mapping)
        if all(d is not None for d in shape):
            return self.op(
                f'"mhlo.broadcast_in_dim"({v.name}) {{broadcast_dimensions = {attr}}} : '
                f"({v.type}) -> {tensor_type(shape, v.element)}",
                shape,
                v.element,
            )
        st = self.shape_tensor(dims)
        return self.op(
            f'"mhlo.dynamic_broadcast_in_dim"({v.name}, {st}) {{broadcast_dimensions = {attr}}} : '
            f"({v.type}, tensor<{len(dims)}xindex>) -> {tensor_type(shape, v.element)}",
            shape,
            v.element,
        )

    def splat(self, value: float | int | bool, like: Value, element: str | None = None) -> Value:
        """A tensor of `like`'s shape filled with `value`."""
        el = element or like.element
        c = self.scalar(value, el)
        if _large(like):
            return self._runtime_broadcast(c, like)
        return self.broadcast(c, self.dims(like), [])

    def _runtime_broadcast(self, c: Value, like: Value) -> Value:
        """Constant `c` broadcast (numpy-aligned) to `like`'s shape read at run time,
        typed dynamic so that no folder turns it into a dense constant."""
        shape = self._shape_of.get(like.name)
        if shape is None:
            shape = self.fresh()
            self.emit(
                f"{shape} = shape.shape_of {like.name} : {like.type} -> tensor<{like.rank}xindex>"
            )
            self._shape_of[like.name] = shape
        out = (None,) * like.rank
        mapping = _i64_dense(list(range(like.rank - c.rank, like.rank)))
        return self.op(
            f'"mhlo.dynamic_broadcast_in_dim"({c.name}, {shape}) {{broadcast_dimensions = {mapping}}} : '
            f"({c.type}, tensor<{like.rank}xindex>) -> {tensor_type(out, c.element)}",
            out,
            c.element,
        )

    def _unfold(self, a: Value, b: Value) -> tuple[Value, Value]:
        """Operands with a constant side broadcast at run time when the other is large."""
        if a.name in self._constants and b.name not in self._constants and _large(b):
            if b.rank >= a.rank and broadcast_shapes(a.shape, b.shape) == b.shape:
                a = self._runtime_broadcast(a, b)
        elif b.name in self._constants and a.name not in self._constants and _large(a):
            if a.rank >= b.rank and broadcast_shapes(a.shape, b.shape) == a.shape:
                b = self._runtime_broadcast(b, a)
        return a, b

    def transpose(self, v: Value, perm: Sequence[int]) -> Value:
        if list(perm) == list(range(v.rank)):
            return v
        shape = tuple(v.shape[p] for p in perm)
        return self.op(
            f'"mhlo.transpose"({v.name}) {{permutation = {_i64_dense(perm)}}} : '
            f"({v.type}) -> {tensor_type(shape, v.element)}",
            shape,
            v.element,
        )

    def convert(self, v: Value, element: str) -> Value:
        if element == v.element:
            return v
        return self.op(
            f"mhlo.convert {v.name} : ({v.type}) -> {tensor_type(v.shape, element)}",
            v.shape,
            element,
        )

    # -- elementwise ------------------------------------------------------

    def unary(self, name: str, v: Value) -> Value:
        """`mhlo.<name>` (or `chlo.<name>` when `name` starts with `chlo.`)."""
        if name.startswith("chlo."):
            return self.op(f"{name} {v.name} : {v.type} -> {v.type}", v.shape, v.element)
        return self.op(f"mhlo.{name} {v.name} : {v.type}", v.shape, v.element)

    def binary(self, name: str, a: Value, b: Value) -> Value:
        """Elementwise `name` (add, subtract, multiply, divide, maximum, minimum,
        power, and, or) with numpy broadcasting."""
        a, b = self._unfold(a, b)
        if a.shape == b.shape and a.static:
            return self.op(f"mhlo.{name} {a.name}, {b.name} : {a.type}", a.shape, a.element)
        shape = broadcast_shapes(a.shape, b.shape)
        return self.op(
            f"chlo.broadcast_{name} {a.name}, {b.name} : ({a.type}, {b.type}) -> "
            f"{tensor_type(shape, a.element)}",
            shape,
            a.element,
        )

    def compare(self, direction: str, a: Value, b: Value) -> Value:
        """`a <direction> b` (EQ, NE, GE, GT, LE, LT) with numpy broadcasting -> i1."""
        ctype = "FLOAT" if a.element in FLOAT_TYPES else "SIGNED"
        a, b = self._unfold(a, b)
        shape = broadcast_shapes(a.shape, b.shape)
        return self.op(
            f"chlo.broadcast_compare {a.name}, {b.name} {{compare_type = "
            f"#chlo<comparison_type {ctype}>, comparison_direction = "
            f"#chlo<comparison_direction {direction}>}} : ({a.type}, {b.type}) -> "
            f"{tensor_type(shape, 'i1')}",
            shape,
            "i1",
        )

    def select(self, pred: Value, a: Value, b: Value) -> Value:
        a, b = self._unfold(a, b)
        pred, a = self._unfold(pred, a)
        pred, b = self._unfold(pred, b)
        shape = broadcast_shapes(pred.shape, broadcast_shapes(a.shape, b.shape))
        return self.op(
            f"chlo.broadcast_select {pred.name}, {a.name}, {b.name} : "
            f"({pred.type}, {a.type}, {b.type}) -> {tensor_type(shape, a.element)}",
            shape,
            a.element,
        )

    def binary_scalar(self, name: str, v: Value, value: float) -> Value:
        return self.binary(name, v, self.scalar(value, v.element))

    # -- reductions -------------------------------------------------------

    def reduce(self, v: Value, axes: Sequence[int], body: str, init: float) -> Value:
        """`mhlo.reduce` of `v` over `axes` with `mhlo.<body>` from `init` (dims dropped)."""
        init_v = self.scalar(init, v.element)
        shape = tuple(d for i, d in enumerate(v.shape) if i not in axes)
        scalar = f"tensor<{v.element}>"
        return self.op(
            f"mhlo.reduce({v.name} init: {init_v.name}) applies mhlo.{body} across dimensions = "
            f"[{', '.join(str(a) for a in sorted(axes))}] : ({v.type}, {scalar}) -> "
            f"{tensor_type(shape, v.element)}",
            shape,
            v.element,
        )

    def reduce_keep(self, v: Value, axes: Sequence[int], body: str, init: float) -> Value:
        """`reduce` keeping the reduced dims as 1."""
        r = self.reduce(v, axes, body, init)
        return self.reshape(r, [1 if i in axes else self.dim(v, i) for i in range(v.rank)])

    def numel(self, v: Value, axes: Sequence[int]) -> Dim:
        """The product of `v`'s dims over `axes`."""
        out: Dim = 1
        for a in axes:
            out = self.index_binary("muli", out, self.dim(v, a))
        return out

    def dim_as_scalar(self, d: Dim, element: str) -> Value:
        """A rank-0 tensor of `element` holding dimension `d`."""
        if isinstance(d, int):
            return self.scalar(d, element)
        i64 = self.fresh()
        self.emit(f"{i64} = arith.index_cast {d} : index to i64")
        t = self.fresh()
        self.emit(f"{t} = tensor.from_elements {i64} : tensor<i64>")
        return self.convert(Value(t, (), "i64"), element)

    def function(self, args: Sequence[Value], results: Sequence[Value]) -> str:
        """The whole `func.func @main` text."""
        params = ", ".join(f"{a.name}: {a.type}" for a in args)
        rtypes = ", ".join(r.type for r in results)
        rets = ", ".join(r.name for r in results)
        body = "\n".join(self.lines)
        return (
            f"func.func @main({params}) -> ({rtypes}) {{\n{body}\n  return {rets} : {rtypes}\n}}\n"
        )


def _large(v: Value) -> bool:
    return v.static and math.prod(d or 0 for d in v.shape) > SPLAT_LIMIT


def broadcast_shapes(a: Sequence[int | None], b: Sequence[int | None]) -> tuple[int | None, ...]:
    """numpy's broadcast of two shapes, `None` staying dynamic unless the other is static > 1."""
    rank = max(len(a), len(b))
    pa = [1] * (rank - len(a)) + list(a)
    pb = [1] * (rank - len(b)) + list(b)
    out: list[int | None] = []
    for x, y in zip(pa, pb, strict=True):
        if x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif x is None:
            out.append(y)
        elif y is None or x == y:
            out.append(x)
        else:
            raise ValueError(f"shapes {list(a)} and {list(b)} do not broadcast")
    return tuple(out)


def _i64_dense(values: Sequence[int]) -> str:
    n = len(values)
    if n == 0:
        return "dense<> : tensor<0xi64>"
    return f"dense<[{', '.join(str(v) for v in values)}]> : tensor<{n}xi64>"


def _nested(values: np.ndarray, element: str) -> str:
    if values.ndim == 1:
        return "[" + ", ".join(scalar_text(v.item(), element) for v in values) + "]"
    return "[" + ", ".join(_nested(v, element) for v in values) + "]"
