"""The kernel modules one CUDA context loaded, and their function handles.

As BladeDISC's ``BaseCudaContextState`` does, a context loads each kernel blob
once, keyed by the blob's address and, behind it, by the blob's bytes (the same
image at two addresses is one module), and keeps one function handle per
(module, kernel name).
"""

from __future__ import annotations

import threading
from typing import Any

from disc_ir.runtime.context import RalError
from disc_ir.runtime.cuda_backend import DeviceBackend
from disc_ir.runtime.cuda_libs import CUDA_ERROR_NO_BINARY_FOR_GPU, CudaError
from disc_ir.runtime.drivers.cuda.blobs import blob_image


class KernelModules:
    """The modules and kernel functions of one context (thread-safe under ``lock``).

    ``launch_cache``: (first blob address, or all of them, kernel name bytes) ->
    function handle of every kernel launched so far, what the fast launch invoker
    looks up. ``num_loads``: modules loaded so far.
    """

    def __init__(self, backend: DeviceBackend, lock: threading.RLock):
        self.backend = backend
        self._lock = lock
        self._by_address: dict[int, Any] = {}
        self._by_image: dict[bytes, Any] = {}
        self._functions: dict[tuple[Any, str], Any] = {}
        self.launch_cache: dict[tuple[Any, bytes], Any] = {}
        self.num_loads = 0

    def module_for_blob(self, address: int) -> Any:
        """The module loaded from the blob at ``address`` (loaded once per context)."""
        module = self._by_address.get(address)
        if module is not None:
            return module
        with self._lock:
            module = self._by_address.get(address)
            if module is None:
                image = blob_image(address)
                module = self._by_image.get(image)
                if module is None:
                    module = self.backend.module_load(image)
                    self.num_loads += 1
                    self._by_image[image] = module
                self._by_address[address] = module
            return module

    def function(self, blobs: list[int], kernel_name: str) -> Any:
        """The kernel ``kernel_name`` from the first blob that loads on this device.

        With several blobs (BladeDISC's AOT fat binaries: PTX first, then cubins
        per architecture) the cubins are tried first and the PTX last.
        """
        order = blobs[1:] + blobs[:1] if len(blobs) > 1 else blobs
        last_error: Exception | None = None
        for address in order:
            try:
                module = self.module_for_blob(address)
            except CudaError as err:
                if len(order) > 1 and err.code == CUDA_ERROR_NO_BINARY_FOR_GPU:
                    last_error = err
                    continue
                raise
            key = (module, kernel_name)
            fn = self._functions.get(key)
            if fn is None:
                with self._lock:
                    fn = self._functions.get(key)
                    if fn is None:
                        fn = self.backend.module_get_function(module, kernel_name)
                        self._functions[key] = fn
            return fn
        raise RalError(f"ral_kernel_launch: no blob loads on this device ({last_error})")

    def launch_function(self, blobs: list[int], kernel_name: str) -> Any:
        """:meth:`function`, remembered in ``launch_cache`` under the blobs and name."""
        fn = self.function(blobs, kernel_name)
        key = (blobs[0] if len(blobs) == 1 else tuple(blobs), kernel_name.encode())
        self.launch_cache[key] = fn
        return fn

    def unload_all(self) -> None:
        """Unloads every module and forgets every handle (the context closes)."""
        for module in list(self._by_image.values()):
            self.backend.module_unload(module)
        self._by_image.clear()
        self._by_address.clear()
        self._functions.clear()
        self.launch_cache.clear()
