"""Random valid JAX graphs from a seed, as JSON-able `Graph`s that rebuild into a JAX function.

A `Graph` is a list of values: each is a graph input (`{"input": {"shape",
"dtype"}}`, dims are ints or the symbols `a`/`b`, shared by all inputs) or an
op node (`{"op", "args", "params", "shape", "dtype"}`, args index earlier
values). `outputs` index the values the function returns. `generate(seed)`
draws ops from `ops.OPS` and keeps a proposal only when `jax.eval_shape`
accepts it at the symbolic shapes, so every graph exports with jax's shape
polymorphism.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np
from jax import export as jax_export

from .ops import OPS, WEIGHTS, dtype_name

SYMBOLS = ("a", "b")


@dataclass
class Graph:
    seed: int
    values: list[dict[str, Any]] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)

    def to_json(self) -> str:
        return json.dumps({"seed": self.seed, "values": self.values, "outputs": self.outputs})

    @staticmethod
    def from_json(text: str) -> Graph:
        data = json.loads(text)
        return Graph(data["seed"], data["values"], data["outputs"])

    def copy(self) -> Graph:
        return Graph(self.seed, copy.deepcopy(self.values), list(self.outputs))

    def input_indices(self) -> list[int]:
        return [i for i, v in enumerate(self.values) if "input" in v]

    def symbols(self) -> list[str]:
        used = {
            d
            for i in self.input_indices()
            for d in self.values[i]["input"]["shape"]
            if isinstance(d, str)
        }
        return [s for s in SYMBOLS if s in used]

    def ops_used(self) -> list[str]:
        """The op names of the nodes, with the unary/binary/reduce function named (`unary.exp`)."""
        out = []
        for v in self.values:
            if "op" in v:
                fn = v["params"].get("fn") or v["params"].get("kind")
                out.append(v["op"] + (f".{fn}" if fn else ""))
        return out

    def describe(self) -> str:
        parts = []
        for i, v in enumerate(self.values):
            if "input" in v:
                parts.append(f"%{i}=input{tuple(v['input']['shape'])}:{v['input']['dtype']}")
            else:
                args = ",".join(f"%{a}" for a in v["args"])
                parts.append(f"%{i}={v['op']}({args}){json.dumps(v['params'], sort_keys=True)}")
        return "; ".join(parts) + f" -> {self.outputs}"


def input_specs(graph: Graph) -> list[Any]:
    """`jax.ShapeDtypeStruct`s of the graph inputs with symbolic dims for `a`/`b`."""
    names = graph.symbols()
    dims = (
        dict(zip(names, jax_export.symbolic_shape(", ".join(names)), strict=True)) if names else {}
    )
    return [
        jax.ShapeDtypeStruct(
            tuple(dims[d] if isinstance(d, str) else d for d in graph.values[i]["input"]["shape"]),
            np.dtype(jax.numpy.dtype(graph.values[i]["input"]["dtype"])),
        )
        for i in graph.input_indices()
    ]


def to_function(graph: Graph) -> Any:
    """The JAX function of the graph: takes the inputs in value order, returns a tuple."""

    def fn(*args: Any) -> tuple[Any, ...]:
        it = iter(args)
        env: list[Any] = []
        for v in graph.values:
            if "input" in v:
                env.append(next(it))
            else:
                env.append(OPS[v["op"]].apply(v["params"], *[env[a] for a in v["args"]]))
        return tuple(env[o] for o in graph.outputs)

    return fn


def _dim_json(d: Any) -> int | str:
    return d if isinstance(d, int) else str(d)


class _Builder:
    """The `ops.Context` of one graph under construction."""

    def __init__(self, graph: Graph, dims: dict[str, Any]):
        self.graph = graph
        self.dims = dims
        self.env: list[Any] = []  # avals, parallel to graph.values
        self.pending: list[int] = []

    def avals(self) -> Sequence[Any]:
        return self.env

    def new_input(self, shape: Sequence[Any], dtype: str) -> int:
        shape_json = [_dim_json(d) for d in shape]
        if any(isinstance(d, str) and d not in self.dims for d in shape_json):
            raise ValueError(f"input dims must be ints or symbols, got {shape_json}")
        self.graph.values.append({"input": {"shape": shape_json, "dtype": dtype}})
        self.env.append(
            jax.ShapeDtypeStruct(
                tuple(self.dims[d] if isinstance(d, str) else d for d in shape_json),
                jax.numpy.dtype(dtype),
            )
        )
        self.pending.append(len(self.env) - 1)
        return len(self.env) - 1

    def rollback(self) -> None:
        for _ in self.pending:
            self.graph.values.pop()
            self.env.pop()
        self.pending = []


def _random_shape(rng: np.random.Generator) -> list[int | str]:
    rank = int(rng.choice([1, 2, 2, 3, 3, 4]))
    shape: list[int | str] = []
    for _ in range(rank):
        r = rng.random()
        shape.append(str(rng.choice(SYMBOLS)) if r < 0.5 else int(rng.choice([1, 2, 3, 4, 5, 8])))
    return shape


def generate(seed: int, max_nodes: int = 10) -> Graph:
    """A random valid graph of 2..max_nodes op nodes (fewer when proposals keep failing)."""
    rng = np.random.default_rng(seed)
    dims = dict(zip(SYMBOLS, jax_export.symbolic_shape(", ".join(SYMBOLS)), strict=True))
    graph = Graph(seed)
    builder = _Builder(graph, dims)
    for _ in range(int(rng.integers(1, 3))):
        dtype = str(rng.choice(["float32"] * 6 + ["float16", "bfloat16", "int32", "bool"]))
        builder.new_input(_random_shape(rng), dtype)
    builder.pending = []
    names = sorted(OPS)
    weights = np.array([WEIGHTS[n] for n in names], dtype=np.float64)
    target = int(rng.integers(2, max_nodes + 1))
    nodes = attempts = 0
    while nodes < target and attempts < 20 * max_nodes:
        attempts += 1
        spec = OPS[str(rng.choice(names, p=weights / weights.sum()))]
        try:
            proposal = spec.propose(rng, builder)
        except ValueError:
            proposal = None
        if proposal is None:
            builder.rollback()
            continue
        args, params = proposal
        try:
            out = jax.eval_shape(
                lambda *xs, _s=spec, _p=params: _s.apply(_p, *xs), *[builder.env[a] for a in args]
            )
        except Exception:  # noqa: BLE001 - any rejection by JAX means "not a valid proposal"
            builder.rollback()
            continue
        if not hasattr(out, "shape") or any(isinstance(d, int) and d > 4096 for d in out.shape):
            builder.rollback()
            continue
        builder.pending = []
        graph.values.append(
            {
                "op": spec.name,
                "args": args,
                "params": params,
                "shape": [_dim_json(d) for d in out.shape],
                "dtype": dtype_name(out),
            }
        )
        builder.env.append(out)
        nodes += 1
    used = {a for v in graph.values if "op" in v for a in v["args"]}
    sinks = [i for i, v in enumerate(graph.values) if "op" in v and i not in used]
    graph.outputs = sinks[-4:] if sinks else [len(graph.values) - 1]
    return graph


def prune(graph: Graph) -> Graph:
    """The graph without values the outputs do not depend on (inputs included), renumbered."""
    live: set[int] = set()
    stack = list(graph.outputs)
    while stack:
        i = stack.pop()
        if i in live:
            continue
        live.add(i)
        stack.extend(graph.values[i].get("args", []))
    order = sorted(live)
    new_index = {old: new for new, old in enumerate(order)}
    values = []
    for old in order:
        v = copy.deepcopy(graph.values[old])
        if "args" in v:
            v["args"] = [new_index[a] for a in v["args"]]
        values.append(v)
    return Graph(graph.seed, values, [new_index[o] for o in graph.outputs])
