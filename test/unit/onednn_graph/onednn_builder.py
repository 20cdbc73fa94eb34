"""Builds oneDNN Graph JSON objects (benchdnn's format) for tests."""

from __future__ import annotations

from typing import Any


def dense_strides(shape: list[int]) -> list[int]:
    out = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        out[i] = out[i + 1] * max(shape[i + 1], 1)
    return out


def lt(
    tid: int, shape: list[int], dtype: str = "f32", stride: list[int] | None = None
) -> dict[str, Any]:
    """A logical tensor (dense strides unless given; -1 strides for dynamic shapes)."""
    if stride is None:
        stride = [-1] * len(shape) if -1 in shape else dense_strides(shape)
    return {
        "id": tid,
        "dtype": dtype,
        "shape": list(shape),
        "stride": list(stride),
        "layout_type": "strided",
        "property_type": "undef",
    }


def _attr_type(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "s64"
    if isinstance(value, float):
        return "f32"
    if isinstance(value, str):
        return "string"
    if all(isinstance(v, int) for v in value):
        return "s64[]"
    return "f32[]"


def op(
    oid: int, kind: str, inputs: list[dict[str, Any]], outputs: list[dict[str, Any]], **attrs: Any
) -> dict[str, Any]:
    return {
        "id": oid,
        "name": f"{kind.lower()}_{oid}",
        "kind": kind,
        "attrs": {k: {"type": _attr_type(v), "value": v} for k, v in attrs.items()},
        "inputs": inputs,
        "outputs": outputs,
    }


def graph(
    *ops: dict[str, Any], inputs: list[int] | None = None, outputs: list[int] | None = None
) -> dict[str, Any]:
    g: dict[str, Any] = {
        "version": "3.5.0",
        "engine_kind": "cpu",
        "fpmath_mode": "strict",
        "graph": list(ops),
    }
    if inputs is not None:
        g["input_ports"] = inputs
    if outputs is not None:
        g["output_ports"] = outputs
    return g


def single(
    kind: str,
    in_shapes: list[list[int]],
    out_shape: list[int],
    dtypes: list[str] | None = None,
    out_dtype: str = "f32",
    **attrs: Any,
) -> dict[str, Any]:
    """A graph of one op: inputs 0..n-1, output 100."""
    dtypes = dtypes or ["f32"] * len(in_shapes)
    ins = [lt(i, s, d) for i, (s, d) in enumerate(zip(in_shapes, dtypes, strict=True))]
    return graph(op(0, kind, ins, [lt(100, out_shape, out_dtype)], **attrs))
