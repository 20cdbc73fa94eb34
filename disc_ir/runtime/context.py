"""RAL contexts: one :class:`RalContext` per loaded executable, one
:class:`ExecutionContext` per call.

As in BladeDISC (``ral_context.h``), the RAL context lives as long as the
loaded executable and owns what is loaded once: device drivers, kernels,
constants (resources created lazily, once, under a lock) and the API registry
the calls are dispatched through. An execution context does the bookkeeping of
one call: its inputs, the outputs the compiled code sends, the temporaries it
allocates and the first error. Compiled code sees an execution context as an
opaque ``void*`` handle; concurrent calls on one RalContext each have their own
execution context and share only the (locked) RAL-context state.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from disc_ir.runtime.abi import SCALAR_TYPES, ScalarType
from disc_ir.runtime.native import WORD_ERROR, WORD_MAGIC, new_native_context
from disc_ir.runtime.registry import GLOBAL_REGISTRY, ApiRegistry


class RalError(RuntimeError):
    """An error the runtime signalled while running compiled code."""


class RalInputError(RalError, ValueError):
    """An input of the wrong dtype, rank or count."""


@dataclass(frozen=True)
class InputSpec:
    """What an input must be: its element type code and rank (``name`` for messages)."""

    element: str
    rank: int
    name: str | None = None

    def describe(self) -> str:
        return f"rank-{self.rank} {self.element} ({SCALAR_TYPES[self.element][0]})"


def input_label(index: int, name: str | None) -> str:
    """How messages name input ``index``."""
    return f"input #{index}" + (f" '{name}'" if name else "")


#: element type code -> the numpy dtype inputs of that type must have
_INPUT_DTYPES: dict[str, np.dtype] = {code: np.dtype(t[0]) for code, t in SCALAR_TYPES.items()}


def check_input(index: int, array: np.ndarray, element: str, rank: int, name: str | None) -> None:
    """Raises :class:`RalInputError` unless ``array`` has element type ``element`` and ``rank``."""
    expected_dtype = _INPUT_DTYPES[element]
    if array.ndim != rank or array.dtype != expected_dtype:
        raise RalInputError(
            f"{input_label(index, name)}: expected a rank-{rank} {element} array "
            f"(numpy {expected_dtype}), got a rank-{array.ndim} {array.dtype} array of "
            f"shape {tuple(array.shape)}"
        )


#: Python values an input may be given as (converted by :func:`as_input_array`)
PYTHON_INPUT_TYPES = (bool, int, float, complex, list, tuple)


def is_host_input(value: Any) -> bool:
    """True for what :func:`as_input_array` reads as host data: numpy arrays and
    scalars, Python numbers and (nested) lists / tuples of them."""
    return isinstance(value, (np.ndarray, np.generic, *PYTHON_INPUT_TYPES))


def as_input_array(index: int, value: Any, element: str, rank: int, name: str | None) -> np.ndarray:
    """``value`` as the ndarray compiled code reads for input ``index`` (the input
    contract of ``disc_ir.compile``'s executables); :class:`RalInputError` when it
    cannot be one.

    * A numpy array or scalar must have the input's dtype (numpy
      ``SCALAR_TYPES[element]``) and ``rank``: no value-changing conversion
      (f64 for an f32 input is refused). A non-native byte order (``>f4``) is
      converted to the native one (same values). Non-contiguous, negative-stride,
      Fortran-order and unaligned arrays are copied to a new C-contiguous
      array; read-only arrays are read in place (a call never writes its inputs).
    * A subclass is read as the plain ndarray it views (``np.matrix``,
      ``np.memmap``), except a masked array (its mask would be ignored): refused.
    * A Python number or a (nested) list / tuple of numbers is converted to the
      input's dtype when its kind allows it (numpy's ``same_kind`` casting: bool
      and int to float, not float to int) and no value overflows; floats are
      rounded to the input's precision, as jax converts Python scalars. Not for
      ``bf16`` inputs (they take ``uint16`` bit patterns).
    * Anything else goes through ``np.asarray`` and must then have the dtype
      and rank (object arrays, strings, None are refused).
    """
    dtype = _INPUT_DTYPES[element]
    if type(value) is np.ndarray:
        if value.dtype == dtype and value.ndim == rank:
            flags = value.flags
            if flags.c_contiguous and flags.aligned:
                return value  # the common case: read in place
        array = value
    elif isinstance(value, np.ma.MaskedArray):
        raise RalInputError(
            f"{input_label(index, name)}: a masked array is not accepted (its mask would "
            "be ignored); pass `a.filled(value)` or `a.data`"
        )
    elif isinstance(value, np.ndarray):
        array = value.view(np.ndarray)
    elif isinstance(value, PYTHON_INPUT_TYPES) and not isinstance(value, np.generic):
        array = _from_python(index, value, element, rank, dtype, name)
    else:
        try:
            array = np.asarray(value)
        except Exception as exc:  # noqa: BLE001 - any failure of a foreign __array__
            raise RalInputError(
                f"{input_label(index, name)}: cannot read a {type(value).__name__} as an "
                f"array: {exc}"
            ) from exc
        if array.dtype.kind in "OSUV" and not isinstance(value, np.ndarray | np.generic):
            raise RalInputError(
                f"{input_label(index, name)}: expected a rank-{rank} {element} array "
                f"(numpy {dtype}), got a {type(value).__name__}"
            )
    if array.dtype != dtype:
        if (
            array.dtype.kind == dtype.kind
            and array.dtype.itemsize == dtype.itemsize
            and not array.dtype.isnative
        ):
            array = array.astype(dtype, order="C")  # byte-swapped: the same values, native order
        else:
            check_input(index, array, element, rank, name)  # raises: wrong dtype
    if array.ndim != rank:
        check_input(index, array, element, rank, name)  # raises: wrong rank
    flags = array.flags
    if not (flags.c_contiguous and flags.aligned):
        array = np.array(array, dtype=dtype, order="C", copy=True)
    return array


def _from_python(
    index: int, value: Any, element: str, rank: int, dtype: np.dtype, name: str | None
) -> np.ndarray:
    """A Python number or nested list / tuple as an array of ``dtype`` (see
    :func:`as_input_array`)."""
    label = input_label(index, name)
    what = type(value).__name__
    try:
        raw = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as exc:
        raise RalInputError(f"{label}: cannot make an array of the {what} given: {exc}") from exc
    if element != "bf16" and (raw.dtype == dtype or raw.size == 0):
        return raw.astype(dtype, copy=False)  # the same values, or none (`[]` is float64)
    if (
        element == "bf16"
        or raw.dtype.kind not in "biufc"
        or not np.can_cast(raw.dtype, dtype, casting="same_kind")
    ):
        raise RalInputError(
            f"{label}: expected a rank-{rank} {element} array (numpy {dtype}), got a "
            f"{what} of {raw.dtype} values, which does not convert to {element} without "
            f"changing them; pass a numpy {dtype} array"
        )
    with np.errstate(over="ignore", invalid="ignore"):
        converted = raw.astype(dtype)
        if dtype.kind in "biu":
            changed = not np.array_equal(converted.astype(raw.dtype), raw)
        else:
            changed = not np.array_equal(np.isfinite(converted), np.isfinite(raw))
    if changed:
        raise RalInputError(
            f"{label}: the {what} given has values out of the range of {element} (numpy {dtype})"
        )
    return converted


class Resource:
    """A context-owned resource with lifetime hooks (``Context::Resource``)."""

    def on_execution_start(self, exec_ctx: ExecutionContext) -> None:
        """Called when an execution context is created."""

    def on_execution_finish(self, exec_ctx: ExecutionContext) -> None:
        """Called when an execution context finishes."""

    def on_context_finish(self, ctx: RalContext) -> None:
        """Called when the RAL context is closed."""


class Driver:
    """A device driver (memory, launch, synchronisation) owned by a RalContext."""

    name: str = "driver"

    def on_execution_start(self, exec_ctx: ExecutionContext) -> None:
        """Sets up per-execution state."""

    def on_execution_finish(self, exec_ctx: ExecutionContext) -> None:
        """Releases per-execution state."""

    def collect_output(self, exec_ctx: ExecutionContext, index: int, value: Any) -> np.ndarray:
        """Turns what the compiled code sent as output ``index`` into an ndarray."""
        raise NotImplementedError

    def close(self) -> None:
        """Releases everything the driver holds."""


# Execution contexts by handle: compiled code passes the handle as its `void* ctx`.
# The handle is the address of the context's NativeContext record (disc_ir.runtime.native).
_HANDLES: dict[int, ExecutionContext] = {}
_HANDLES_LOCK = threading.Lock()


def execution_context_from_handle(handle: int | None) -> ExecutionContext:
    """The live execution context whose handle compiled code passed as ``ctx``."""
    ctx = _HANDLES.get(handle or 0)
    if ctx is None:
        raise RalError(f"disc_ral_call with an unknown context handle {handle!r}")
    return ctx


@dataclass
class RalContextOptions:
    """Options of a RAL context (``BaseContextOption`` plus the CPU thread count).

    ``cache_workspace_mem_across_execution``: keep freed temporaries cached after a
    call ends (BladeDISC's default is False: release them).
    ``num_threads``: CPU kernel-launch parallelism (None: ``OMP_NUM_THREADS`` or the
    number of cores).
    """

    metadata_path: str | None = None
    cache_workspace_mem_across_execution: bool = False
    num_threads: int | None = None


class RalContext:
    """The runtime state of one loaded executable.

    ``registry`` is a child of the global registry, so per-executable APIs can
    be added without touching other executables. Drivers for every device this
    runtime supports are created at construction; resources, kernels and
    constants are loaded lazily and once.
    """

    def __init__(
        self,
        options: RalContextOptions | None = None,
        *,
        metadata_path: str | None = None,
        constants: dict[str, tuple[str, tuple[int, ...], bytes]] | None = None,
        registry: ApiRegistry | None = None,
        input_specs: Sequence[InputSpec] | None = None,
    ):
        self.options = options or RalContextOptions()
        if metadata_path is not None:
            self.options.metadata_path = metadata_path
        self.registry = registry if registry is not None else ApiRegistry(GLOBAL_REGISTRY)
        self.input_specs = list(input_specs) if input_specs is not None else None
        self._lock = threading.RLock()
        self._resources: dict[str, Any] = {}
        self._drivers: dict[str, Driver] = {}
        # What every execution context notifies (tuples, replaced under the lock).
        self._driver_list: tuple[Driver, ...] = ()
        self._resource_hooks: tuple[Resource, ...] = ()
        self._constants_override = constants
        #: encoded name (bytes, as compiled code passes it) -> entry; filled by dispatch
        self.api_cache: dict[bytes, Any] = {}
        self._closed = False
        # Importing the drivers registers their APIs; done here to keep the
        # import graph acyclic (drivers import this module).
        import disc_ir.runtime.kernels  # noqa: F401
        from disc_ir.runtime.drivers.cpu import CpuDriver

        self.add_driver(CpuDriver(self))

    # -- drivers and resources ------------------------------------------------

    def add_driver(self, driver: Driver) -> None:
        """Adds ``driver`` under its name; a second driver of the same name is ignored."""
        with self._lock:
            self._drivers.setdefault(driver.name, driver)
            self._driver_list = tuple(self._drivers.values())

    def get_driver(self, name: str) -> Driver:
        """The driver called ``name``; raises RalError if there is none."""
        driver = self._drivers.get(name)
        if driver is None:
            raise RalError(f"no '{name}' driver in this RAL context")
        return driver

    @property
    def drivers(self) -> list[Driver]:
        return list(self._driver_list)

    def get_or_create_resource(self, key: str, creator: Callable[[], Any]) -> Any:
        """The resource under ``key``, created by ``creator()`` on first use (once, locked)."""
        resource = self._resources.get(key)
        if resource is not None:
            return resource
        with self._lock:
            resource = self._resources.get(key)
            if resource is None:
                resource = creator()
                if resource is None:
                    raise RalError(f"resource creation failed: {key}")
                self._resources[key] = resource
                if isinstance(resource, Resource):
                    self._resource_hooks = (*self._resource_hooks, resource)
            return resource

    def resources(self) -> list[Any]:
        """The resources created so far."""
        with self._lock:
            return list(self._resources.values())

    def load_kernel(self, key: str, loader: Callable[[], Any]) -> Any:
        """A kernel (module, function handle) loaded once under ``kernel:<key>``."""
        return self.get_or_create_resource("kernel:" + key, loader)

    def constants_table(self) -> dict[str, tuple[str, tuple[int, ...], bytes]]:
        """The constants of the metadata file (md5 hex -> dtype, shape, bytes), read once."""

        def load() -> dict[str, tuple[str, tuple[int, ...], bytes]]:
            if self._constants_override is not None:
                return dict(self._constants_override)
            if self.options.metadata_path is None:
                return {}
            from disc_ir.runtime.constants import load_metadata_file

            return load_metadata_file(self.options.metadata_path)

        return self.get_or_create_resource("ral_metadata_constants", load)

    # -- execution ------------------------------------------------------------

    def check_inputs(self, inputs: Sequence[np.ndarray]) -> None:
        """Validates ``inputs`` against ``input_specs`` (when known); raises RalInputError."""
        if self.input_specs is None:
            return
        if len(inputs) != len(self.input_specs):
            raise RalInputError(f"expected {len(self.input_specs)} inputs, got {len(inputs)}")
        for i, (array, spec) in enumerate(zip(inputs, self.input_specs, strict=True)):
            check_input(i, array, spec.element, spec.rank, spec.name)

    def prepare_inputs(self, inputs: Sequence[Any]) -> list[np.ndarray]:
        """``inputs`` as the ndarrays compiled code reads (:func:`as_input_array` when
        ``input_specs`` are known, else ``np.asarray``); raises RalInputError."""
        specs = self.input_specs
        if specs is None:
            return [np.asarray(x) for x in inputs]
        if len(inputs) != len(specs):
            raise RalInputError(f"expected {len(specs)} inputs, got {len(inputs)}")
        return [
            as_input_array(i, x, spec.element, spec.rank, spec.name)
            for i, (x, spec) in enumerate(zip(inputs, specs, strict=True))
        ]

    def create_execution_context(self, inputs: Sequence[Any]) -> ExecutionContext:
        """A new execution context bound to ``inputs`` (arrays or scalars)."""
        if self._closed:
            raise RalError("the RAL context is closed")
        arrays = self.prepare_inputs(inputs)
        self.check_inputs(arrays)
        return ExecutionContext(self, arrays)

    def execute(
        self,
        entry: int | Callable[[int], Any],
        inputs: Sequence[Any],
        prepared: bool = False,
    ) -> list[np.ndarray]:
        """Runs compiled code once and returns its outputs.

        ``entry`` is the address of ``void main(void* ctx)`` (called through
        ctypes, which releases the GIL) or a Python callable taking the handle.
        Errors the runtime signalled during the call are raised here.
        ``prepared``: the caller already made ``inputs`` the checked arrays
        :meth:`prepare_inputs` / :meth:`check_inputs` would give (a context that
        overrides :meth:`create_execution_context` still goes through it).
        """
        if (
            prepared
            and not self._closed
            and type(self).create_execution_context is RalContext.create_execution_context
        ):
            exec_ctx = ExecutionContext(self, list(inputs))
        else:
            exec_ctx = self.create_execution_context(inputs)
        try:
            if callable(entry):
                entry(exec_ctx.handle)
            else:
                _call_entry(entry, exec_ctx.handle)
            exec_ctx.raise_if_error()
            return exec_ctx.collect_outputs()
        finally:
            exec_ctx.finish()

    def close(self) -> None:
        """Releases drivers and resources; the context cannot run afterwards."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            for resource in self._resources.values():
                if isinstance(resource, Resource):
                    resource.on_context_finish(self)
            for driver in self._drivers.values():
                driver.close()
            self._resources.clear()
            self._resource_hooks = ()

    def __enter__(self) -> RalContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class ExecutionContext:
    """Bookkeeping of one call: inputs, sent outputs, temporaries, the first error.

    ``handle`` is the ``void*`` value compiled code receives: the address of
    ``native``, the context's ``NativeContext`` record (error flag and launch
    settings the native dispatcher reads); it maps back to this object while
    the context is live. Drivers keep per-execution state in
    ``driver_state[driver.name]``.
    """

    def __init__(self, context: RalContext, inputs: list[np.ndarray]):
        self.context = context
        self.inputs = inputs
        # output index -> (driver name, what the compiled code sent)
        self.outputs: dict[int, tuple[str, Any]] = {}
        self.driver_state: dict[str, Any] = {}
        self.error: BaseException | None = None
        self._failed = False
        self._keep_alive: list[Any] = []
        self._finished = False
        self.native = new_native_context()
        self.handle: int = ctypes.addressof(self.native)
        with _HANDLES_LOCK:
            _HANDLES[self.handle] = self
        for driver in context._driver_list:
            driver.on_execution_start(self)
        for resource in context._resource_hooks:
            resource.on_execution_start(self)

    # -- errors ---------------------------------------------------------------

    def signal_error(self, error: BaseException | str) -> None:
        """Records an error; the first one wins (later calls may be skipped)."""
        if isinstance(error, str):
            error = RalError(error)
        if self.error is None:
            self.error = error
            self.native[WORD_ERROR] = 1

    @property
    def in_error(self) -> bool:
        return self.error is not None or self._failed

    def raise_if_error(self) -> None:
        """Raises the first recorded error, if any."""
        error = self.error
        if error is not None:
            try:
                raise error
            finally:
                # no reference cycle error -> traceback -> this frame -> error
                del error

    # -- inputs / outputs -----------------------------------------------------

    def input(self, index: int, element: ScalarType, rank: int) -> np.ndarray:
        """Input ``index``, checked against the element type and rank the code expects."""
        if not 0 <= index < len(self.inputs):
            raise RalInputError(
                f"the compiled code asked for input #{index}, but {len(self.inputs)} were given"
            )
        name = None
        if self.context.input_specs is not None and index < len(self.context.input_specs):
            name = self.context.input_specs[index].name
        array = self.inputs[index]
        check_input(index, array, element.code, rank, name)
        return array

    def keep_alive(self, obj: Any) -> None:
        """Keeps ``obj`` (e.g. an array whose memory compiled code holds) until the call ends."""
        self._keep_alive.append(obj)

    def collect_outputs(self) -> list[np.ndarray]:
        """The outputs sent by the compiled code, as ndarrays, in index order."""
        if not self.outputs:
            return []
        count = max(self.outputs) + 1
        missing = [i for i in range(count) if i not in self.outputs]
        if missing:
            raise RalError(f"the compiled code sent no output #{missing[0]}")
        result = []
        drivers = self.context._drivers
        for i in range(count):
            driver_name, value = self.outputs[i]
            sizes = getattr(value, "sizes", ())
            if any(size < 0 for size in sizes):
                raise RalError(
                    f"output #{i} has a negative size (shape {tuple(sizes)}): a size the "
                    "graph computes from its inputs came out negative (e.g. a dynamic_iota "
                    "or dynamic_pad size from an input)"
                )
            driver = drivers.get(driver_name)
            if driver is None:
                driver = self.context.get_driver(driver_name)  # raises RalError
            result.append(driver.collect_output(self, i, value))
        return result

    def finish(self) -> None:
        """Ends the call: drivers release per-execution state, the handle dies.

        The recorded error is dropped (``in_error`` stays true): the exception
        raised from it holds frames that refer to this context, a reference
        cycle that would keep the call's inputs and buffers until the garbage
        collector runs."""
        if self._finished:
            return
        self._finished = True
        try:
            for resource in self.context._resource_hooks:
                resource.on_execution_finish(self)
            for driver in self.context._driver_list:
                driver.on_execution_finish(self)
        finally:
            with _HANDLES_LOCK:
                _HANDLES.pop(self.handle, None)
            self.native[WORD_MAGIC] = 0
            self._keep_alive.clear()
            if self.error is not None:
                self.error = None
                self._failed = True

    def __enter__(self) -> ExecutionContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()


def _call_entry(address: int, handle: int) -> None:
    """:func:`disc_ir.runtime.dispatch.call_entry` (imported on first use: dispatch
    imports this module)."""
    global _call_entry
    from disc_ir.runtime.dispatch import call_entry

    _call_entry = call_entry
    call_entry(address, handle)
