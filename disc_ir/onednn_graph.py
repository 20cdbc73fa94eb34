"""Compile a oneDNN Graph partition (benchdnn's JSON) with disc-ir and run it.

    import disc_ir.onednn_graph as og

    exe = og.compile(open("mha.json").read())
    outs = exe.execute({0: q, 1: k, 2: v})      # {output port id: array}

`compile(json_text)` parses the graph (`disc_ir.frontends.onednn_graph`),
lowers it to mhlo and compiles that with `disc_ir.compile` once: `-1` dims
of the JSON are dynamic, so one executable runs every shape of them.
`GraphExecutable.execute` takes arrays by logical tensor id (any order) and
returns the output ports' arrays; `execute_buffers` takes raw addresses laid
out as the JSON's `stride`s say (NHWC-physical tensors, strided views,
transposed outputs) and writes the outputs in place: the C API's path.
Errors are `OneDnnGraphError`s (the graph) or `ExecuteError`s (the call).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from disc_ir.api import Executable
from disc_ir.api import compile as compile_mhlo
from disc_ir.frontends.onednn_graph import (
    Graph,
    LogicalTensor,
    OneDnnGraphError,
    import_onednn_graph,
)


class ExecuteError(ValueError):
    """A call whose tensors contradict the compiled graph (ids, dims, dtypes)."""


@dataclass(frozen=True)
class TensorArg:
    """A tensor of a call by address: its logical tensor `id`, `dims` and buffer `address`."""

    id: int
    dims: tuple[int, ...]
    address: int


def dense_strides(dims: Sequence[int]) -> tuple[int, ...]:
    """Row-major element strides of `dims`."""
    out = [1] * len(dims)
    for i in range(len(dims) - 2, -1, -1):
        out[i] = out[i + 1] * max(dims[i + 1], 1)
    return tuple(out)


def buffer_strides(t: LogicalTensor, dims: Sequence[int]) -> tuple[int, ...]:
    """The element strides of `t`'s buffer at `dims`: the JSON's `stride` when the
    tensor's shape is static and it has one, else row-major."""
    if t.stride is not None and -1 not in t.shape:
        return t.stride
    return dense_strides(dims)


def _count(dims: Sequence[int]) -> int:
    n = 1
    for d in dims:
        n *= d
    return n


def _view(address: int, dtype: np.dtype, dims: Sequence[int], strides: Sequence[int]) -> np.ndarray:
    """An ndarray over foreign memory at `address` with element `strides`."""
    if any(d == 0 for d in dims):
        return np.empty(tuple(dims), dtype)
    extent = 1 + sum((d - 1) * s for d, s in zip(dims, strides, strict=True))
    raw = (ctypes.c_char * (extent * dtype.itemsize)).from_address(address)
    base = np.frombuffer(memoryview(raw).cast("B"), dtype=dtype, count=extent)
    return np.lib.stride_tricks.as_strided(
        base, shape=tuple(dims), strides=tuple(s * dtype.itemsize for s in strides)
    )


class GraphExecutable:
    """A compiled oneDNN Graph partition.

    `graph` is the checked graph, `mhlo` the text compiled, `executable` the
    `disc_ir.Executable`; `inputs` / `outputs` the logical tensors of the
    ports in port order. Thread-safe: calls share nothing but the compiled code
    and its RAL context, which serves concurrent calls.
    """

    def __init__(self, graph: Graph, mhlo: str, executable: Executable):
        self.graph = graph
        self.mhlo = mhlo
        self.executable = executable
        self.inputs: list[LogicalTensor] = graph.inputs
        self.outputs: list[LogicalTensor] = graph.outputs
        self._input_index = {t.id: i for i, t in enumerate(self.inputs)}
        self._output_index = {t.id: i for i, t in enumerate(self.outputs)}
        #: makes the contiguous copies of strided input buffers (np.empty's signature)
        self.staging: Callable[[tuple[int, ...], np.dtype], np.ndarray] = np.empty

    def __repr__(self) -> str:
        def fmt(ts: list[LogicalTensor]) -> str:
            return ", ".join(f"{t.id}: {t.dtype}{list(t.shape)}" for t in ts)

        return f"<GraphExecutable ({fmt(self.inputs)}) -> ({fmt(self.outputs)})>"

    def _check_dims(self, t: LogicalTensor, dims: Sequence[int], what: str) -> None:
        if len(dims) != t.rank:
            raise ExecuteError(
                f"{what} tensor {t.id}: {len(dims)} dims {list(dims)}, the graph's has rank "
                f"{t.rank} (shape {list(t.shape)})"
            )
        for i, (want, got) in enumerate(zip(t.shape, dims, strict=True)):
            if got < 0 or (want != -1 and want != got):
                raise ExecuteError(
                    f"{what} tensor {t.id}: dim {i} is {got}, the graph says {want} "
                    f"(shape {list(t.shape)}); got dims {list(dims)}"
                )

    def _run(self, arrays: list[np.ndarray]) -> tuple[np.ndarray, ...]:
        try:
            return self.executable(*arrays)
        except ValueError as err:  # RalInputError: dims the compiled code relies on
            raise ExecuteError(str(err)) from None

    def execute(self, inputs: Mapping[int, np.ndarray]) -> dict[int, np.ndarray]:
        """Runs the graph on `{input port id: array}`; returns `{output port id: array}`."""
        unknown = sorted(set(inputs) - set(self._input_index))
        if unknown:
            raise ExecuteError(
                f"tensor id(s) {unknown} are not input ports (inputs: "
                f"{[t.id for t in self.inputs]})"
            )
        arrays: list[np.ndarray] = []
        for t in self.inputs:
            if t.id not in inputs:
                raise ExecuteError(f"input tensor {t.id} is missing")
            a = np.asarray(inputs[t.id])
            if a.dtype != np.dtype(t.numpy_dtype):
                raise ExecuteError(
                    f"input tensor {t.id}: dtype {a.dtype}, the graph says {t.dtype}"
                )
            self._check_dims(t, a.shape, "input")
            arrays.append(a)
        outs = self._run(arrays)
        return {t.id: out for t, out in zip(self.outputs, outs, strict=True)}

    def execute_buffers(self, inputs: Sequence[TensorArg], outputs: Sequence[TensorArg]) -> None:
        """Runs the graph on raw buffers laid out by the JSON's strides; writes the
        outputs into theirs. Each port must be given exactly once (any order);
        output dims must equal what the graph computes."""
        given: dict[int, TensorArg] = {}
        for arg in inputs:
            if arg.id not in self._input_index:
                raise ExecuteError(
                    f"input tensor id {arg.id} is not an input port of the graph (inputs: "
                    f"{[t.id for t in self.inputs]})"
                )
            if arg.id in given:
                raise ExecuteError(f"input tensor {arg.id} is given twice")
            given[arg.id] = arg
        out_given: dict[int, TensorArg] = {}
        for arg in outputs:
            if arg.id not in self._output_index:
                raise ExecuteError(
                    f"output tensor id {arg.id} is not an output port of the graph (outputs: "
                    f"{[t.id for t in self.outputs]})"
                )
            if arg.id in out_given:
                raise ExecuteError(f"output tensor {arg.id} is given twice")
            out_given[arg.id] = arg
        arrays = []
        for t in self.inputs:
            found = given.get(t.id)
            if found is None:
                raise ExecuteError(f"input tensor {t.id} is missing")
            arg = found
            self._check_dims(t, arg.dims, "input")
            if not arg.address and _count(arg.dims):
                raise ExecuteError(f"input tensor {t.id} has a null data pointer")
            dtype = np.dtype(t.numpy_dtype)
            view = _view(arg.address, dtype, arg.dims, buffer_strides(t, arg.dims))
            if not view.flags.c_contiguous:
                copy = self.staging(tuple(arg.dims), dtype)
                np.copyto(copy, view)
                view = copy
            arrays.append(view)
        for t in self.outputs:
            found = out_given.get(t.id)
            if found is None:
                raise ExecuteError(f"output tensor {t.id} is missing")
            self._check_dims(t, found.dims, "output")
            if not found.address and _count(found.dims):
                raise ExecuteError(f"output tensor {t.id} has a null data pointer")
        results = self._run(arrays)
        for t, result in zip(self.outputs, results, strict=True):
            arg = out_given[t.id]
            if tuple(result.shape) != tuple(arg.dims):
                raise ExecuteError(
                    f"output tensor {t.id}: dims {list(arg.dims)} given, the graph computes "
                    f"{list(result.shape)} for these inputs"
                )
            dtype = np.dtype(t.numpy_dtype)
            np.copyto(_view(arg.address, dtype, arg.dims, buffer_strides(t, arg.dims)), result)

    def close(self) -> None:
        """Releases the compiled code's RAL context."""
        self.executable.close()


def compile(  # noqa: A001 - mirrors disc_ir.compile
    graph_json: str | bytes, *, num_threads: int | None = None
) -> GraphExecutable:
    """Compiles a oneDNN Graph JSON text. Raises OneDnnGraphError for a graph
    disc-ir cannot take, `disc_ir.CompileError` when the pipeline fails."""
    graph, text = import_onednn_graph(graph_json)
    exe = compile_mhlo(text, num_threads=num_threads, keep_ir=False)
    return GraphExecutable(graph, text, exe)


__all__ = [
    "ExecuteError",
    "GraphExecutable",
    "OneDnnGraphError",
    "TensorArg",
    "buffer_strides",
    "compile",
    "dense_strides",
]
