"""GPU kernels assume 16-byte aligned buffers; misaligned caller arrays still compute right.

The vectorized kLoop kernels read and write 128 bits at a time because their
buffer arguments carry `llvm.align = 16` (`KERNEL_BUFFER_ALIGNMENT`). The CUDA
driver keeps that promise for a caller's GPU array at another address (here a
view 4 bytes into a bigger device array, through `__cuda_array_interface__`)
by reading it from an aligned copy. Needs an NVIDIA GPU; skipped elsewhere.
"""

from __future__ import annotations

import numpy as np
import pytest

from disc_ir.runtime.abi import KERNEL_BUFFER_ALIGNMENT
from disc_ir.runtime.cuda_libs import cuda_available

pytestmark = pytest.mark.skipif(not cuda_available(), reason="no CUDA device")

# x * sigmoid(x) + bias, inputs and output on the GPU: one kLoop fusion with a
# vectorized (_vectile4) version when the element count is a multiple of 4
BIAS_SILU = """
func.func @main(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> attributes {tf.entry_function = {input_placements = "gpu,gpu", output_placements = "gpu"}} {
  %s = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %sig = mhlo.logistic %x : tensor<?x?xf32>
  %m = mhlo.multiply %x, %sig : tensor<?x?xf32>
  %0 = mhlo.add %m, %bb : tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
"""


class _View:
    """A caller's GPU array at `ptr` (what CuPy or torch hand over for a slice)."""

    def __init__(self, ptr: int, shape: tuple[int, ...]) -> None:
        self.__cuda_array_interface__ = {
            "shape": shape,
            "typestr": "<f4",
            "data": (ptr, False),
            "version": 3,
            "strides": None,
            "stream": None,
        }


def _want(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    return x / (1 + np.exp(-x)) + b


@pytest.mark.parametrize("offset_elems", [1, 2, 3])
@pytest.mark.parametrize("shape", [(64, 256), (7, 12), (3, 5)], ids=str)
def test_misaligned_device_inputs(offset_elems, shape):
    import disc_ir

    rng = np.random.default_rng(offset_elems)
    x = rng.standard_normal(shape).astype(np.float32)
    b = rng.standard_normal(shape[1]).astype(np.float32)
    with disc_ir.compile(BIAS_SILU, target="cuda", keep_ir=False) as exe:
        ral = exe._ral  # noqa: SLF001 - to place arrays on its device
        padded = np.concatenate([np.zeros(offset_elems, np.float32), x.ravel()])
        backing = ral.device_array(padded)
        ptr = backing.ptr + 4 * offset_elems
        assert ptr % KERNEL_BUFFER_ALIGNMENT
        bias = ral.device_array(b)
        (out,) = exe(_View(ptr, shape), bias)
        np.testing.assert_allclose(np.asarray(out), _want(x, b), rtol=1e-5, atol=1e-6)
        # the aligned case runs in place
        (out2,) = exe(ral.device_array(x), bias)
        np.testing.assert_allclose(np.asarray(out2), _want(x, b), rtol=1e-5, atol=1e-6)
        del backing
