"""The RAL context for CUDA executables: device inputs and outputs, placements.

:class:`CudaRalContext` is a RAL context with a CUDA driver (and the CPU
driver for host-side work). It accepts numpy arrays (copied to the device when
the compiled code wants them there), any object with
``__cuda_array_interface__`` and any CUDA ``__dlpack__`` producer (no copy), and
decides per call whether the call must wait for its GPU work (see
:mod:`disc_ir.runtime.drivers.cuda`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from disc_ir.runtime.context import (
    ExecutionContext,
    RalContext,
    RalContextOptions,
    RalError,
    RalInputError,
)
from disc_ir.runtime.cuda_backend import CudaBackend, DeviceBackend
from disc_ir.runtime.device_array import (
    LEGACY_DEFAULT_STREAM,
    DeviceArray,
    DeviceArrayError,
    from_cuda_array_interface,
    from_dlpack,
    is_cuda_array,
)
from disc_ir.runtime.drivers.cuda.driver import DRIVER_NAME, CudaDriver
from disc_ir.runtime.drivers.cuda.state import BlockOwner, CudaExecState, CudaOptions
from disc_ir.runtime.registry import GLOBAL_REGISTRY, ApiRegistry

#: where an input or output may live
PLACEMENTS = ("cpu", "gpu")

#: recv_input / send_output for contexts with device I/O (child of the global registry).
CUDA_IO_REGISTRY = ApiRegistry(GLOBAL_REGISTRY)


class CudaRalContext(RalContext):
    """A RAL context with a CUDA driver (and the CPU driver for host-side work).

    ``input_placements`` / ``output_placements``: ``"gpu"`` or ``"cpu"`` per
    argument (BladeDISC's entry attributes); None means all ``"gpu"`` (outputs:
    decided by where the memory lives). ``backend`` defaults to
    :class:`~disc_ir.runtime.cuda_backend.CudaBackend` on ``cuda_options.device_id``
    and raises :class:`~disc_ir.runtime.cuda_libs.CudaUnavailableError` ("no CUDA
    device: ...") without one. ``gemm_runner``: an object with ``run(CublasGemmCall)``
    (default: cuBLAS on the context's stream).
    """

    def __init__(
        self,
        options: RalContextOptions | None = None,
        *,
        cuda_options: CudaOptions | None = None,
        backend: DeviceBackend | None = None,
        gemm_runner: Any = None,
        input_placements: Sequence[str] | None = None,
        output_placements: Sequence[str] | None = None,
        registry: ApiRegistry | None = None,
        **kwargs: Any,
    ):
        cuda_options = cuda_options or CudaOptions()
        for what, placements in (("input", input_placements), ("output", output_placements)):
            bad = [p for p in placements or () if p not in PLACEMENTS]
            if bad:
                raise ValueError(f"unknown {what} placement {bad[0]!r} (expected cpu or gpu)")
        if backend is None:
            backend = CudaBackend(cuda_options.device_id)
        super().__init__(
            options,
            registry=registry if registry is not None else ApiRegistry(CUDA_IO_REGISTRY),
            **kwargs,
        )
        self.input_placements = list(input_placements) if input_placements is not None else None
        self.output_placements = list(output_placements) if output_placements is not None else None
        self.cuda = CudaDriver(self, backend, cuda_options, gemm_runner)
        self.add_driver(self.cuda)

    def input_placement(self, index: int) -> str:
        if self.input_placements is None or index >= len(self.input_placements):
            return "gpu"
        return self.input_placements[index]

    def adapt_input(self, index: int, value: Any) -> np.ndarray | DeviceArray:
        """A numpy array (host, or to be copied to the device by ``recv_input``) or a
        DeviceArray viewing a caller's GPU array (no copy). A DeviceArray still pending
        on another context's stream is waited for. Adapting an adapted value is cheap
        and returns it unchanged."""
        if type(value) is DeviceArray:
            array = value
        elif isinstance(value, np.ndarray):
            return value
        elif is_cuda_array(value):
            try:
                if isinstance(value, DeviceArray):
                    array = value
                elif _has_cai(value):
                    array = from_cuda_array_interface(value, self.cuda.wait_foreign_stream)
                else:
                    array = from_dlpack(value, stream=self.cuda.stream or LEGACY_DEFAULT_STREAM)
            except (DeviceArrayError, ValueError, BufferError) as err:
                raise RalInputError(f"input #{index}: {err}") from err
        else:
            return np.asarray(value)
        if array.strides is not None:
            raise RalInputError(
                f"input #{index}: a non-contiguous CUDA array (shape {array.shape}, element "
                f"strides {array.strides}); pass a contiguous one"
            )
        if array.device_id != self.cuda.backend.device_id and array.size:
            raise RalInputError(
                f"input #{index}: a CUDA array on device {array.device_id}; this executable "
                f"runs on device {self.cuda.backend.device_id}"
            )
        pending = array.pending
        if pending is not None and not pending.done and pending.stream != self.cuda.stream:
            array.synchronize()  # written by work on another stream
        placements = self.input_placements
        if placements is not None and index < len(placements) and placements[index] == "cpu":
            if array.copy_to_host is None:
                array.copy_to_host = self.cuda.copy_to_host
            return array.numpy()
        return array

    def create_execution_context(self, inputs: Sequence[Any]) -> ExecutionContext:
        if self._closed:
            raise RalError("the RAL context is closed")
        arrays = [self.adapt_input(i, x) for i, x in enumerate(inputs)]
        self.check_inputs(arrays)  # type: ignore[arg-type]  # device inputs are checked like ndarrays (shape, dtype)
        driver = self.cuda
        host_view: list[np.ndarray] = []
        device_inputs: dict[int, DeviceArray] = {}
        must_sync = False
        for i, a in enumerate(arrays):
            if isinstance(a, np.ndarray):
                host_view.append(a)
                must_sync = must_sync or a.size > 0
                continue
            host_view.append(_empty_stand_in(a.ndim, a.dtype))
            if a.copy_to_host is None:
                a.copy_to_host = driver.copy_to_host
            device_inputs[i] = a
            owner = a.owner
            if (
                driver.owns_stream
                and a.size
                and not (type(owner) is BlockOwner and owner.driver is driver)
            ):
                # A framework's memory: it may be reused as soon as the call returns.
                must_sync = True
        exec_ctx = ExecutionContext(self, host_view)
        state: CudaExecState = exec_ctx.driver_state[DRIVER_NAME]
        state.device_inputs = device_inputs
        state.must_sync = state.must_sync or must_sync
        return exec_ctx

    def device_array(self, array: np.ndarray) -> DeviceArray:
        """Copies a host array to this context's device (e.g. to keep inputs resident)."""
        return self.cuda.device_array_from_host(array)


_EMPTY_STAND_INS: dict[tuple[int, np.dtype], np.ndarray] = {}


def _empty_stand_in(ndim: int, dtype: np.dtype) -> np.ndarray:
    """A shared read-only empty host array of ``ndim`` and ``dtype`` (what the
    execution context's host view holds for a device input)."""
    key = (ndim, dtype)
    array = _EMPTY_STAND_INS.get(key)
    if array is None:
        array = np.empty((0,) * ndim, dtype)
        array.flags.writeable = False
        array = _EMPTY_STAND_INS.setdefault(key, array)
    return array


def _has_cai(value: Any) -> bool:
    try:
        return hasattr(value, "__cuda_array_interface__")
    except Exception:  # noqa: BLE001
        return False


def cuda_context(exec_ctx: ExecutionContext) -> CudaRalContext:
    """The CUDA RAL context ``exec_ctx`` runs in (RalError if it has no CUDA driver)."""
    ctx = exec_ctx.context
    if not isinstance(ctx, CudaRalContext):
        raise RalError("a gpu RAL api was called in a context without a CUDA driver")
    return ctx
