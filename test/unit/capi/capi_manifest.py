"""Writes run_graphs.c's manifests: inputs laid out by the JSON's strides, expected outputs dense."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from disc_ir.frontends.onednn_graph import parse_graph
from disc_ir.onednn_graph import buffer_strides


def strided_bytes(array: np.ndarray, strides: tuple[int, ...]) -> bytes:
    """`array`'s elements placed at element `strides` (gaps zero-filled)."""
    if array.size == 0:
        return b""
    extent = 1 + sum((d - 1) * s for d, s in zip(array.shape, strides, strict=True))
    buf = np.zeros(extent, array.dtype)
    view = np.lib.stride_tricks.as_strided(
        buf, array.shape, tuple(s * array.itemsize for s in strides)
    )
    view[...] = array
    return buf.tobytes()


def as_laid_out(graph: dict[str, Any], inputs: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """The inputs as a callee reads them back from buffers laid out by the JSON's strides
    (strides that overlap make later elements overwrite earlier ones)."""
    g = parse_graph(graph)
    out = dict(inputs)
    for t in g.inputs:
        a = np.array(inputs[t.id], order="C")
        strides = buffer_strides(t, a.shape)
        if a.size == 0:
            continue
        buf = np.frombuffer(strided_bytes(a, strides), a.dtype)
        out[t.id] = np.lib.stride_tricks.as_strided(
            buf, a.shape, tuple(s * a.itemsize for s in strides)
        ).copy()
    return out


class Manifest:
    """Commands for run_graphs.c, with their data files under `root`."""

    def __init__(self, root: Path):
        self.root = root
        self.lines: list[str] = []
        self._count = 0

    def _file(self, data: bytes) -> str:
        self._count += 1
        path = self.root / f"buf{self._count}.bin"
        path.write_bytes(data)
        return str(path)

    def compile(self, graph: dict[str, Any] | str, name: str) -> Path:
        path = self.root / f"{name}.json"
        path.write_text(graph if isinstance(graph, str) else json.dumps(graph))
        self.lines.append(f"compile {path}")
        return path

    def compile_fail(self, text: str, name: str, status: int) -> None:
        path = self.root / f"{name}.json"
        path.write_text(text)
        self.lines.append(f"compile_fail {status} {path}")

    def case(
        self,
        graph: dict[str, Any],
        inputs: dict[int, np.ndarray],
        expected: dict[int, np.ndarray],
        out_dims: dict[int, tuple[int, ...]] | None = None,
        command: str = "exec",
        input_order: list[int] | None = None,
    ) -> None:
        """One call: the input ports (in `input_order`, repeats allowed, when given), the
        expected outputs, then `command`."""
        g = parse_graph(graph)
        self.lines.append("reset")
        order = g.inputs if input_order is None else [g.tensors[i] for i in input_order]
        for t in order:
            a = np.array(inputs[t.id], order="C")
            strides = buffer_strides(t, a.shape)
            dims = " ".join(map(str, a.shape))
            st = " ".join(map(str, strides))
            self.lines.append(
                f"input {t.id} {t.dtype} {a.ndim} {dims} {st} {self._file(strided_bytes(a, strides))}"
            )
        for t in g.outputs:
            want = np.asarray(expected[t.id])
            dims_t = (out_dims or {}).get(t.id, want.shape)
            if t.dtype == "f32":
                want = want.astype(np.float32)
            elif t.dtype == "boolean":
                want = want.astype(np.uint8)
            else:
                want = want.astype(np.int32)
            strides = buffer_strides(t, dims_t)
            dims = " ".join(map(str, dims_t))
            st = " ".join(map(str, strides))
            self.lines.append(
                f"output {t.id} {t.dtype} {len(dims_t)} {dims} {st} "
                f"{self._file(np.array(want, order='C').tobytes())}"
            )
        self.lines.append(command)

    def destroy(self) -> None:
        self.lines.append("destroy")

    def write(self) -> Path:
        path = self.root / "manifest.txt"
        path.write_text("\n".join(self.lines) + "\n")
        return path
