"""Element-type helpers shared by the library kernels."""

from __future__ import annotations

import numpy as np

from disc_ir.runtime.memref import MemRefDescriptor, numpy_view

#: Element types the float library kernels accept.
FLOAT_ELEMENTS = ("f32", "f64", "f16", "bf16")


def bf16_to_f32(bits: np.ndarray) -> np.ndarray:
    """bfloat16 bit patterns (uint16) -> float32 values."""
    return (bits.astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(values: np.ndarray) -> np.ndarray:
    """float32 values -> bfloat16 bit patterns (round to nearest even; NaN kept quiet)."""
    values = np.ascontiguousarray(values, dtype=np.float32)
    bits = values.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(values), np.uint16(0x7FC0), rounded)


def compute_view(desc: MemRefDescriptor) -> np.ndarray:
    """The operand as an array to compute with: f16/bf16 widened to float32."""
    array = numpy_view(desc)
    code = desc.element.code
    if code == "bf16":
        return bf16_to_f32(array)
    if code == "f16":
        return array.astype(np.float32)
    return array


def store(desc: MemRefDescriptor, values: np.ndarray) -> None:
    """Writes ``values`` into the memory of ``desc`` (narrowing f16/bf16; values out
    of f16's range become inf, silently, as XLA's conversion gives)."""
    out = numpy_view(desc)
    if desc.element.code == "bf16":
        out[...] = f32_to_bf16(values)
    else:
        with np.errstate(over="ignore"):
            out[...] = values
