"""The RAL API registry: typed Python (or native) functions under encoded names.

This mirrors BladeDISC's ``TAO_RAL_API(name, device, fn)``: registering a
typed function derives its encoded name (``ral_gemm___cpu___pvoid_pvoid_m2df32_
m2df32_m2df32_i1_i1___void``) from its signature and wraps it in a uniform
``void(void** args)`` entry that unpacks the arguments from the ``args`` slots
and writes the results back.

A Python function declares its ABI with annotations::

    T = Var("T")

    @ral_api("ral_gemm", "cpu", T=("f32", "f64", "f16"))
    def gemm(ctx: Ctx, stream: PVoid, a: MemRef[2, T], b: MemRef[2, T],
             c: MemRef[2, T], tp_a: I1, tp_b: I1) -> None: ...

Keyword arguments of :func:`ral_api` are type variables: the function is
registered once per combination of their values (``T`` above gives three
names). Annotation markers: :data:`Ctx` (the execution context, ``pvoid``),
:data:`PVoid` (a raw pointer as an int), :data:`CStr` (a ``const char*``
decoded to ``str``, encoded ``pvoid``), ``Ptr[T]`` (pointer to T, an int),
scalars ``I1 UI8 I8 UI16 I16 BF16 F16 UI32 I32 UI64 I64 F32 F64`` and
``MemRef[N, T]`` (rank an int or a :class:`Var`, element a scalar marker, a
code or a Var; the argument is a :class:`MemRefDescriptor`; a memref result may be returned
as a descriptor or as an ndarray the execution context then keeps alive).
Several results are declared as ``tuple[...]``. Keyword-only parameters are
not ABI arguments: they receive the values of the type variables of the same
name (``def recv(ctx: Ctx, i: I64, *, T: str, N: int) -> MemRef[N, T]``).

Native entries (a C function ``void f(void** args)``) are registered with
:meth:`ApiRegistry.register_native`.
"""

from __future__ import annotations

import ctypes
import difflib
import inspect
import itertools
import struct
import threading
import typing
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from disc_ir.runtime.abi import (
    PVOID,
    VOID,
    MemRefType,
    PointerType,
    RalType,
    ScalarType,
    decode_ral_api_name,
    encode_ral_api_name,
    num_arg_slots,
    parse_type_code,
)
from disc_ir.runtime.memref import MemRefDescriptor


class UnknownRalApiError(LookupError):
    """No RAL API is registered under the requested encoded name."""

    def __init__(self, name: str, closest: list[str]):
        self.name = name
        self.closest = closest
        hint = (
            "; closest registered names: " + ", ".join(closest)
            if closest
            else "; no similar name is registered"
        )
        super().__init__(f"unknown RAL api '{name}'{hint}")

    def __str__(self) -> str:
        return self.args[0]


# ---------------------------------------------------------------------------
# Annotation markers
# ---------------------------------------------------------------------------


class _Spec:
    """An ABI annotation: resolves to a RalType under type-variable bindings."""

    kind: str = "value"

    def resolve(self, bindings: dict[str, Any]) -> RalType:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class Var:
    """A type variable in an annotation (``MemRef[N, T]`` with ``N = Var("N")``)."""

    name: str


def _bind(value: Any, bindings: dict[str, Any]) -> Any:
    if isinstance(value, Var):
        if value.name not in bindings:
            raise TypeError(f"type variable {value.name} has no values")
        return bindings[value.name]
    if isinstance(value, str) and value in bindings:
        return bindings[value]
    if isinstance(value, _ScalarSpec):
        return _bind(value.code, bindings)
    if isinstance(value, _Spec):
        return value.resolve(bindings).code
    return value


@dataclass(frozen=True)
class _ScalarSpec(_Spec):
    code: str | Var
    kind: str = "scalar"

    def resolve(self, bindings: dict[str, Any]) -> RalType:
        return ScalarType(str(_bind(self.code, bindings)))


@dataclass(frozen=True)
class _PointerSpec(_Spec):
    pointee: Any
    kind: str = "pointer"

    def resolve(self, bindings: dict[str, Any]) -> RalType:
        return PointerType(parse_type_code(str(_bind(self.pointee, bindings))))


@dataclass(frozen=True)
class _CtxSpec(_Spec):
    kind: str = "ctx"

    def resolve(self, bindings: dict[str, Any]) -> RalType:
        return PVOID


@dataclass(frozen=True)
class _CStrSpec(_Spec):
    kind: str = "cstr"

    def resolve(self, bindings: dict[str, Any]) -> RalType:
        return PVOID


@dataclass(frozen=True)
class _MemRefSpec(_Spec):
    rank: int | str | Var
    element: Any
    kind: str = "memref"

    def resolve(self, bindings: dict[str, Any]) -> RalType:
        rank = _bind(self.rank, bindings)
        elem = _bind(self.element, bindings)
        return MemRefType(int(rank), ScalarType(str(elem)))


class _MemRefFactory:
    def __getitem__(self, item: tuple[Any, Any]) -> _MemRefSpec:
        rank, element = item
        return _MemRefSpec(rank, element)


class _PtrFactory:
    def __getitem__(self, pointee: Any) -> _PointerSpec:
        return _PointerSpec(pointee)


class _ScalarFactory:
    def __getitem__(self, code: str | Var) -> _ScalarSpec:
        return _ScalarSpec(code)


Ctx = _CtxSpec()
PVoid = _PointerSpec("void")
CStr = _CStrSpec()
MemRef = _MemRefFactory()
Ptr = _PtrFactory()
Scalar = _ScalarFactory()
I1 = _ScalarSpec("i1")
UI8 = _ScalarSpec("ui8")
I8 = _ScalarSpec("i8")
UI16 = _ScalarSpec("ui16")
I16 = _ScalarSpec("i16")
BF16 = _ScalarSpec("bf16")
F16 = _ScalarSpec("f16")
UI32 = _ScalarSpec("ui32")
I32 = _ScalarSpec("i32")
UI64 = _ScalarSpec("ui64")
I64 = _ScalarSpec("i64")
F32 = _ScalarSpec("f32")
F64 = _ScalarSpec("f64")

# ---------------------------------------------------------------------------
# Scalar slot access
# ---------------------------------------------------------------------------

_CTYPES: dict[str, type[ctypes._SimpleCData[Any]]] = {
    "i1": ctypes.c_bool,
    "ui8": ctypes.c_uint8,
    "i8": ctypes.c_int8,
    "ui16": ctypes.c_uint16,
    "i16": ctypes.c_int16,
    "bf16": ctypes.c_uint16,
    "f16": ctypes.c_uint16,
    "ui32": ctypes.c_uint32,
    "i32": ctypes.c_int32,
    "ui64": ctypes.c_uint64,
    "i64": ctypes.c_int64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}


def bf16_bits_to_float(bits: int) -> float:
    """The float value of a bfloat16 bit pattern."""
    return struct.unpack("<f", struct.pack("<I", (bits & 0xFFFF) << 16))[0]


def float_to_bf16_bits(value: float) -> int:
    """The bfloat16 bit pattern of ``value`` (round to nearest even)."""
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF:  # NaN
        return 0x7FC0
    bits += 0x7FFF + ((bits >> 16) & 1)
    return (bits >> 16) & 0xFFFF


def read_scalar(address: int, code: str) -> bool | int | float:
    """Reads the scalar of type ``code`` stored at ``address``."""
    raw = _CTYPES[code].from_address(address).value
    if code == "f16":
        return float(np.uint16(raw).view(np.float16))
    if code == "bf16":
        return bf16_bits_to_float(raw)
    return raw


def write_scalar(address: int, code: str, value: Any) -> None:
    """Stores ``value`` as a scalar of type ``code`` at ``address``."""
    if code == "f16":
        value = int(np.float16(value).view(np.uint16))
    elif code == "bf16":
        value = float_to_bf16_bits(float(value))
    elif code == "i1":
        value = bool(value)
    elif code in ("f32", "f64"):
        value = float(value)
    else:
        value = int(value)
    _CTYPES[code].from_address(address).value = value


def _read_pointer(address: int) -> int:
    return ctypes.c_uint64.from_address(address).value


def zero_results(slots: Any, first_result_slot: int, results: Iterable[RalType]) -> None:
    """Zero-fills the result slots (used when a call cannot run)."""
    for i, rtype in enumerate(results):
        address = slots[first_result_slot + i]
        if address:
            ctypes.memset(address, 0, rtype.byte_size)


# ---------------------------------------------------------------------------
# Entries and the registry
# ---------------------------------------------------------------------------


ApiInvoker = Callable[[Any, Any], None]


@dataclass
class ApiEntry:
    """One registered API: its encoded name, decoded signature and invoker.

    ``invoke(exec_ctx, slots)`` runs it on the ``void**`` slot array.
    ``skip_on_error``: when the execution context is already in error, the
    dispatcher does not run the entry and zero-fills its results.
    """

    name: str
    target: str
    device: str
    arg_types: tuple[RalType, ...]
    result_types: tuple[RalType, ...]
    invoke: ApiInvoker
    skip_on_error: bool = False
    python_function: Callable[..., Any] | None = None
    bindings: dict[str, Any] = field(default_factory=dict)


class ApiRegistry:
    """Encoded name -> :class:`ApiEntry`; a child registry falls back to its parent.

    Thread-safe: registration takes a lock, lookups read a dict.
    """

    def __init__(self, parent: ApiRegistry | None = None):
        self.parent = parent
        self._entries: dict[str, ApiEntry] = {}
        self._lock = threading.Lock()

    def register(self, entry: ApiEntry, replace: bool = False) -> ApiEntry:
        """Adds ``entry``; a second entry under the same name is an error unless ``replace``."""
        with self._lock:
            if not replace and entry.name in self._entries:
                raise ValueError(f"RAL api '{entry.name}' is already registered")
            self._entries[entry.name] = entry
        return entry

    def register_native(
        self, name: str, address: int, skip_on_error: bool = False, replace: bool = False
    ) -> ApiEntry:
        """Registers the C function at ``address`` (``void f(void** args)``) under ``name``."""
        target, device, arg_types, result_types = decode_ral_api_name(name)
        cfunc = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)

        def invoke(exec_ctx: Any, slots: Any) -> None:
            cfunc(ctypes.cast(slots, ctypes.c_void_p).value)

        return self.register(
            ApiEntry(name, target, device, arg_types, result_types, invoke, skip_on_error),
            replace=replace,
        )

    def find(self, name: str) -> ApiEntry | None:
        """The entry registered under ``name`` here or in a parent, else None."""
        entry = self._entries.get(name)
        if entry is None and self.parent is not None:
            return self.parent.find(name)
        return entry

    def lookup(self, name: str) -> ApiEntry:
        """Like :meth:`find` but raises :class:`UnknownRalApiError` with close names."""
        entry = self.find(name)
        if entry is None:
            raise UnknownRalApiError(name, self.closest_names(name))
        return entry

    def names(self) -> list[str]:
        """All registered names (this registry and its parents)."""
        names = set(self._entries)
        if self.parent is not None:
            names.update(self.parent.names())
        return sorted(names)

    def closest_names(self, name: str, n: int = 5) -> list[str]:
        """Registered names most similar to ``name``, same target first."""
        names = self.names()
        prefix = name.split("___", 1)[0]
        same_target = [x for x in names if x.split("___", 1)[0] == prefix]
        pool = same_target or names
        close = difflib.get_close_matches(name, pool, n=n, cutoff=0.0 if same_target else 0.6)
        return close

    def __contains__(self, name: str) -> bool:
        return self.find(name) is not None

    def __len__(self) -> int:
        return len(self.names())


GLOBAL_REGISTRY = ApiRegistry()


# ---------------------------------------------------------------------------
# Python entries
# ---------------------------------------------------------------------------


def _binding_params(fn: Callable[..., Any]) -> list[str]:
    """Keyword-only parameters of ``fn``: they receive type-variable values, not ABI args."""
    return [
        p.name
        for p in inspect.signature(fn).parameters.values()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]


def _annotation_specs(fn: Callable[..., Any]) -> tuple[list[_Spec], list[_Spec]]:
    """The argument specs and result specs of ``fn`` from its annotations."""
    sig = inspect.signature(fn)
    annotations = inspect.get_annotations(fn, eval_str=True)
    arg_specs: list[_Spec] = []
    for param in sig.parameters.values():
        if param.kind is inspect.Parameter.KEYWORD_ONLY:
            continue
        ann = annotations.get(param.name)
        if not isinstance(ann, _Spec):
            raise TypeError(
                f"RAL api function {fn.__qualname__}: parameter '{param.name}' needs an "
                f"ABI annotation (Ctx, PVoid, CStr, I1..F64, Ptr[T], MemRef[N, T])"
            )
        arg_specs.append(ann)
    ret = annotations.get("return", None)
    if ret is None or ret is type(None):
        result_specs: list[_Spec] = []
    elif isinstance(ret, _Spec):
        result_specs = [ret]
    elif typing.get_origin(ret) is tuple:
        result_specs = list(typing.get_args(ret))
        if not all(isinstance(r, _Spec) for r in result_specs):
            raise TypeError(f"RAL api function {fn.__qualname__}: bad tuple result annotation")
    else:
        raise TypeError(f"RAL api function {fn.__qualname__}: bad result annotation {ret!r}")
    return arg_specs, result_specs


def _make_reader(spec: _Spec, rtype: RalType, start: int) -> Callable[[Any, Any], Any]:
    if spec.kind == "ctx":
        return lambda exec_ctx, slots: exec_ctx
    if spec.kind == "cstr":

        def read_cstr(exec_ctx: Any, slots: Any) -> str | None:
            address = _read_pointer(slots[start])
            return ctypes.string_at(address).decode() if address else None

        return read_cstr
    if spec.kind == "pointer":
        return lambda exec_ctx, slots: _read_pointer(slots[start])
    if spec.kind == "memref":
        assert isinstance(rtype, MemRefType)
        return lambda exec_ctx, slots: MemRefDescriptor.read_slots(slots, start, rtype)
    assert isinstance(rtype, ScalarType)
    code = rtype.code
    return lambda exec_ctx, slots: read_scalar(slots[start], code)


def _write_result(exec_ctx: Any, address: int, rtype: RalType, value: Any) -> None:
    if isinstance(rtype, MemRefType):
        if isinstance(value, np.ndarray):
            if exec_ctx is not None:
                exec_ctx.keep_alive(value)
            value = MemRefDescriptor.from_array(value, rtype.element)
        if not isinstance(value, MemRefDescriptor):
            raise TypeError(f"expected a memref result, got {type(value).__name__}")
        if value.rank != rtype.rank:
            raise TypeError(f"memref result of rank {value.rank}, expected rank {rtype.rank}")
        value.write_struct(address)
    elif isinstance(rtype, PointerType):
        ctypes.c_uint64.from_address(address).value = int(value or 0)
    else:
        assert isinstance(rtype, ScalarType)
        write_scalar(address, rtype.code, value)


def make_python_entry(
    fn: Callable[..., Any],
    target: str,
    device: str,
    arg_specs: list[_Spec],
    result_specs: list[_Spec],
    bindings: dict[str, Any],
    skip_on_error: bool,
) -> ApiEntry:
    """Wraps ``fn`` (with specs resolved under ``bindings``) into an ApiEntry."""
    arg_types = tuple(s.resolve(bindings) for s in arg_specs)
    result_types = tuple(s.resolve(bindings) for s in result_specs)
    if any(t == VOID for t in arg_types + result_types):
        raise TypeError(f"{fn.__qualname__}: void is not a value type")
    readers = []
    slot = 0
    for spec, rtype in zip(arg_specs, arg_types, strict=True):
        readers.append(_make_reader(spec, rtype, slot))
        slot += rtype.num_slots
    first_result = num_arg_slots(arg_types)
    n_results = len(result_types)
    missing = [p for p in _binding_params(fn) if p not in bindings]
    if missing:
        raise TypeError(f"{fn.__qualname__}: no type variable for keyword-only {missing}")
    kwargs = {p: bindings[p] for p in _binding_params(fn)}

    def invoke(exec_ctx: Any, slots: Any) -> None:
        values = fn(*[read(exec_ctx, slots) for read in readers], **kwargs)
        if n_results == 0:
            return
        if n_results == 1:
            values = (values,)
        for i, rtype in enumerate(result_types):
            _write_result(exec_ctx, slots[first_result + i], rtype, values[i])

    name = encode_ral_api_name(target, device, arg_types, result_types)
    return ApiEntry(
        name,
        target,
        device,
        arg_types,
        result_types,
        invoke,
        skip_on_error,
        python_function=fn,
        bindings=dict(bindings),
    )


def ral_api(
    target: str,
    device: str,
    *,
    registry: ApiRegistry | None = None,
    skip_on_error: bool | None = None,
    replace: bool = False,
    **type_vars: Iterable[Any],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator registering a typed function under its encoded name(s).

    ``type_vars`` maps a type-variable name used in the annotations to the
    values it takes; one entry is registered per combination. The function is
    returned unchanged, with the registered names in ``fn.ral_api_names``.
    ``skip_on_error`` defaults to True for functions without results.
    """

    def decorate(fn: Callable[..., Any]) -> Callable[..., Any]:
        arg_specs, result_specs = _annotation_specs(fn)
        skip = (not result_specs) if skip_on_error is None else skip_on_error
        reg = registry if registry is not None else GLOBAL_REGISTRY
        keys = list(type_vars)
        names: list[str] = list(getattr(fn, "ral_api_names", []))
        for values in itertools.product(*(tuple(type_vars[k]) for k in keys)):
            bindings = dict(zip(keys, values, strict=True))
            entry = make_python_entry(fn, target, device, arg_specs, result_specs, bindings, skip)
            reg.register(entry, replace=replace)
            names.append(entry.name)
        fn.ral_api_names = names  # type: ignore[attr-defined]  # tags the function with the names it is registered under
        return fn

    return decorate
