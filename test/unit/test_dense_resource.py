"""`dense_resource<...>` constants: per-context blobs, renaming, lifetime, and the compiled result."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import disc_ir
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import Diagnostic, parse_module
from disc_ir.ir.printer import module_text
from disc_ir.ir.resources import DenseResourceBlobManager, blob_manager, lookup_blob

WEIGHTS = np.array([[1.5, -2.0, 0.25], [4.0, 0.0, -0.5]], np.float32)


def _source(key: str = "torch_tensor_2_3_torch.float32") -> str:
    blob = "0x04000000" + WEIGHTS.tobytes().hex().upper()
    return f"""
func.func @main(%arg0: tensor<?x2xf32>) -> tensor<?x3xf32> {{
  %w = mhlo.constant dense_resource<{key}> : tensor<2x3xf32>
  %0 = "mhlo.dot"(%arg0, %w) : (tensor<?x2xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}}
{{-#
  dialect_resources: {{
    builtin: {{
      {key}: "{blob}"
    }}
  }}
#-}}
"""


def _handles(text: str) -> list[str]:
    return [
        line.split("<")[1].split(">")[0] for line in text.splitlines() if "dense_resource<" in line
    ]


def test_blob_is_decoded_once_and_viewed() -> None:
    ctx = make_context()
    module = parse_module(ctx, _source("w_view"))
    (handle,) = _handles(module_text(module))
    blob = lookup_blob(handle)
    assert blob is not None and blob.data is not None
    assert blob.alignment == 4
    assert np.frombuffer(blob.data, np.float32).reshape(2, 3).tolist() == WEIGHTS.tolist()
    # a view past the alignment word of the decoded bytes, not a copy of them
    assert isinstance(blob.data.obj, bytes) and len(blob.data.obj) == blob.data.nbytes + 4
    manager = blob_manager(ctx.get_dialect("builtin"))
    assert isinstance(manager, DenseResourceBlobManager) and manager.blob(handle) is blob


def test_a_key_taken_by_a_live_context_is_renamed_once() -> None:
    first_ctx = make_context()
    first = parse_module(first_ctx, _source("w_twice"))
    second_ctx = make_context()
    second = parse_module(second_ctx, _source("w_twice"))
    assert _handles(module_text(first)) == ["w_twice"]
    assert _handles(module_text(second)) == ["w_twice_0"]  # every use, and its section entry
    assert 'w_twice_0: "0x04000000' in module_text(second)


def test_blobs_live_as_long_as_their_context() -> None:
    ctx = make_context()
    parse_module(ctx, _source("w_lifetime"))
    assert lookup_blob("w_lifetime") is not None
    del ctx
    gc.collect()
    assert lookup_blob("w_lifetime") is None


def test_resource_constants_compile_and_run() -> None:
    exe = disc_ir.compile(_source("w_compile"), target="cpu")
    x = np.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], np.float32)
    (y,) = exe(x)
    np.testing.assert_allclose(y, x @ WEIGHTS, rtol=1e-6)


def test_a_module_from_another_context_keeps_its_blobs() -> None:
    ctx = make_context()
    module = parse_module(ctx, _source("w_other"))
    exe = disc_ir.compile(module, target="cpu")
    (y,) = exe(np.ones((1, 2), np.float32))
    np.testing.assert_allclose(y, np.ones((1, 2), np.float32) @ WEIGHTS, rtol=1e-6)


def test_dense_resource_needs_a_shaped_type() -> None:
    with pytest.raises(Diagnostic, match="dense resource should have a shaped type"):
        parse_module(
            make_context(), "func.func @f() { %0 = mhlo.constant dense_resource<k> : f32\n return }"
        )


def test_in_memory_blobs() -> None:
    ctx = make_context()
    manager = blob_manager(ctx.get_dialect("builtin"))
    assert manager is not None
    data = WEIGHTS.tobytes()
    handle = manager.insert("w_memory", data, alignment=16)
    blob = lookup_blob(handle)
    assert blob is not None and blob.data is not None and blob.data.obj is data
    assert blob.to_hex().startswith("0x10000000")
    with pytest.raises(ValueError, match="power of two"):
        manager.insert("w_bad", data, alignment=3)
