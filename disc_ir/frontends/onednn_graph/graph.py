"""oneDNN Graph JSON (benchdnn's `--graph` format) read into a checked graph.

The format: a JSON object with `version`, `engine_kind`, `fpmath_mode`,
optional `input_ports` / `output_ports` (logical tensor ids) and `graph`, a
list of ops, each with `id`, `name`, `kind`, `attrs` (`{"type": ..., "value":
...}`), `inputs` and `outputs` (logical tensors: `id`, `dtype`, `shape`,
`stride`, `layout_type`, `property_type`). A graph without ports takes, as
benchdnn does, the tensors no op produces as inputs and the tensors no op
consumes as outputs, each in increasing id order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

#: oneDNN Graph data types -> (MLIR element type, numpy dtype name)
DTYPES: dict[str, tuple[str, str]] = {
    "f32": ("f32", "float32"),
    "f16": ("f16", "float16"),
    "bf16": ("bf16", "uint16"),
    "s32": ("i32", "int32"),
    "s8": ("i8", "int8"),
    "u8": ("ui8", "uint8"),
    "boolean": ("i1", "bool"),
    "f64": ("f64", "float64"),
}


class OneDnnGraphError(ValueError):
    """A oneDNN Graph JSON text disc-ir cannot take: malformed, or an op it cannot lower.

    The message names the op (id and kind) or the logical tensor concerned.
    """


@dataclass(frozen=True)
class LogicalTensor:
    """A logical tensor of the graph: `shape` with `-1` for a dynamic dim,
    `stride` the element strides of its buffer (`None` where unknown)."""

    id: int
    dtype: str
    shape: tuple[int, ...]
    stride: tuple[int, ...] | None
    layout_type: str
    property_type: str

    @property
    def element(self) -> str:
        """The MLIR element type."""
        return DTYPES[self.dtype][0]

    @property
    def numpy_dtype(self) -> str:
        """The numpy dtype name of its buffer."""
        return DTYPES[self.dtype][1]

    @property
    def rank(self) -> int:
        return len(self.shape)


@dataclass
class Op:
    """One op of the graph (attrs as plain values)."""

    id: int
    kind: str
    name: str
    attrs: dict[str, Any]
    inputs: list[LogicalTensor]
    outputs: list[LogicalTensor]

    def where(self) -> str:
        """`op <id> (<kind>)`: how errors name it."""
        return f"op {self.id} ({self.kind})"

    def error(self, problem: str) -> OneDnnGraphError:
        return OneDnnGraphError(f"{self.where()}: {problem}")


@dataclass
class Graph:
    """A checked oneDNN Graph partition: ops in a topological order, ports by id."""

    version: str
    engine_kind: str
    fpmath_mode: str
    ops: list[Op]
    input_ports: list[int]
    output_ports: list[int]
    tensors: dict[int, LogicalTensor] = field(default_factory=dict)
    #: how many entries `input_ports` / `output_ports` list, repeats included
    listed_inputs: int = 0
    listed_outputs: int = 0

    @property
    def inputs(self) -> list[LogicalTensor]:
        return [self.tensors[i] for i in self.input_ports]

    @property
    def outputs(self) -> list[LogicalTensor]:
        return [self.tensors[i] for i in self.output_ports]


_ATTR_TYPES = {"s64", "s64[]", "f32", "f32[]", "bool", "string"}


def _fail(where: str, problem: str) -> OneDnnGraphError:
    return OneDnnGraphError(f"{where}: {problem}")


def _int(value: Any, where: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail(where, f"{what} must be an integer, got {value!r}")
    return value


def _int_list(value: Any, where: str, what: str) -> tuple[int, ...]:
    if not isinstance(value, list):
        raise _fail(where, f"{what} must be a list of integers, got {value!r}")
    return tuple(_int(v, where, what) for v in value)


def _attr_value(kind: str, value: Any, where: str) -> Any:
    """The value of one `{type, value}` attribute, checked against its type."""
    if kind == "s64":
        return _int(value, where, "an s64 attribute")
    if kind == "s64[]":
        return list(_int_list(value, where, "an s64[] attribute"))
    if kind == "f32":
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(where, f"an f32 attribute must be a number, got {value!r}")
        return float(value)
    if kind == "f32[]":
        if not isinstance(value, list) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value
        ):
            raise _fail(where, f"an f32[] attribute must be a list of numbers, got {value!r}")
        return [float(v) for v in value]
    if kind == "bool":
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise _fail(where, f"a bool attribute must be 0, 1, true or false, got {value!r}")
    if not isinstance(value, str):
        raise _fail(where, f"a string attribute must be a string, got {value!r}")
    return value


def _tensor(raw: Any, where: str) -> LogicalTensor:
    if not isinstance(raw, dict):
        raise _fail(where, f"a logical tensor must be an object, got {raw!r}")
    for key in ("id", "dtype", "shape"):
        if key not in raw:
            raise _fail(where, f"logical tensor without '{key}': {raw!r}")
    tid = _int(raw["id"], where, "a logical tensor id")
    where = f"{where}, logical tensor {tid}"
    dtype = raw["dtype"]
    if dtype not in DTYPES:
        raise _fail(where, f"unsupported dtype {dtype!r} (known: {', '.join(DTYPES)})")
    shape = _int_list(raw["shape"], where, "shape")
    if any(d < -1 for d in shape):
        raise _fail(where, f"shape {list(shape)} has a dimension below -1")
    layout = raw.get("layout_type", "strided")
    if layout not in ("strided", "undef", "any"):
        raise _fail(where, f"layout_type {layout!r} is not supported (strided, any, undef)")
    stride: tuple[int, ...] | None = None
    raw_stride = raw.get("stride")
    if raw_stride is not None and layout == "strided":
        stride = _int_list(raw_stride, where, "stride")
        if len(stride) != len(shape):
            raise _fail(where, f"stride {list(stride)} has not the rank of shape {list(shape)}")
        if any(s < 0 for s in stride if s != -1):
            raise _fail(where, f"stride {list(stride)} has a negative stride")
        if -1 in stride:
            stride = None  # left for the compiler: dense row-major
    prop = raw.get("property_type", "undef")
    if not isinstance(prop, str):
        raise _fail(where, f"property_type must be a string, got {prop!r}")
    return LogicalTensor(tid, dtype, shape, stride, layout, prop)


def _op(raw: Any, index: int) -> Op:
    where = f"op #{index}"
    if not isinstance(raw, dict):
        raise _fail(where, f"an op must be an object, got {type(raw).__name__}")
    if "id" not in raw:
        raise _fail(where, "op without 'id'")
    oid = _int(raw["id"], where, "op id")
    kind = raw.get("kind")
    where = f"op {oid}" + (f" ({kind})" if isinstance(kind, str) else "")
    if not isinstance(kind, str):
        raise _fail(where, f"'kind' must be a string, got {kind!r}")
    attrs_raw = raw.get("attrs", {})
    if not isinstance(attrs_raw, dict):
        raise _fail(where, "'attrs' must be an object")
    attrs: dict[str, Any] = {}
    for name, spec in attrs_raw.items():
        if not isinstance(spec, dict) or "type" not in spec or "value" not in spec:
            raise _fail(where, f'attribute \'{name}\' must be {{"type": ..., "value": ...}}')
        if spec["type"] not in _ATTR_TYPES:
            raise _fail(where, f"attribute '{name}' has unknown type {spec['type']!r}")
        attrs[name] = _attr_value(spec["type"], spec["value"], f"{where}, attribute '{name}'")
    ins, outs = raw.get("inputs", []), raw.get("outputs", [])
    if not isinstance(ins, list) or not isinstance(outs, list):
        raise _fail(where, "'inputs' and 'outputs' must be lists")
    inputs = [_tensor(t, where) for t in ins]
    outputs = [_tensor(t, where) for t in outs]
    name = raw.get("name", "")
    return Op(oid, kind, name if isinstance(name, str) else "", attrs, inputs, outputs)


def _topological(ops: list[Op], produced: dict[int, Op]) -> list[Op]:
    order: list[Op] = []
    state: dict[int, int] = {}  # op index -> 1 visiting, 2 done
    index = {id(op): i for i, op in enumerate(ops)}
    for root in ops:
        stack: list[tuple[Op, int]] = [(root, 0)]
        while stack:
            op, k = stack.pop()
            i = index[id(op)]
            if k == 0:
                if state.get(i) == 2:
                    continue
                if state.get(i) == 1:
                    raise op.error("the graph has a cycle through this op")
                state[i] = 1
            if k < len(op.inputs):
                stack.append((op, k + 1))
                producer = produced.get(op.inputs[k].id)
                if producer is not None and state.get(index[id(producer)]) != 2:
                    if state.get(index[id(producer)]) == 1:
                        raise op.error("the graph has a cycle through this op")
                    stack.append((producer, 0))
            else:
                state[i] = 2
                order.append(op)
    return order


def _ports(raw: Any, key: str) -> list[int] | None:
    if key not in raw:
        return None
    value = raw[key]
    if not isinstance(value, list):
        raise OneDnnGraphError(f"'{key}' must be a list of logical tensor ids, got {value!r}")
    out: list[int] = []
    for v in value:
        v = _int(v, f"'{key}'", "a port")
        if v not in out:  # benchdnn's files may list a port twice
            out.append(v)
    return out


def parse_graph(text: str | bytes | dict[str, Any]) -> Graph:
    """Parses and checks a oneDNN Graph JSON text (or its decoded object).

    Raises OneDnnGraphError naming the op id and the problem: invalid JSON,
    a missing field, a logical tensor whose description differs between its
    producer and a consumer, a tensor produced twice, a cycle, a port that
    is no tensor of the graph.
    """
    if isinstance(text, dict):
        raw: Any = text
    else:
        try:
            raw = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as err:
            raise OneDnnGraphError(f"invalid JSON: {err}") from None
    if not isinstance(raw, dict):
        raise OneDnnGraphError("a oneDNN graph must be a JSON object")
    ops_raw = raw.get("graph")
    if not isinstance(ops_raw, list):
        raise OneDnnGraphError("the JSON object has no 'graph' list of ops")
    if not ops_raw:
        raise OneDnnGraphError("the graph has no op")
    ops = [_op(r, i) for i, r in enumerate(ops_raw)]
    seen_ops: set[int] = set()
    tensors: dict[int, LogicalTensor] = {}
    produced: dict[int, Op] = {}
    consumed: set[int] = set()
    for op in ops:
        if op.id in seen_ops:
            raise op.error("a second op with this id")
        seen_ops.add(op.id)
        for t in op.inputs + op.outputs:
            known = tensors.get(t.id)
            if known is not None and (known.dtype, known.shape) != (t.dtype, t.shape):
                raise op.error(
                    f"logical tensor {t.id} is {t.dtype}{list(t.shape)} here but "
                    f"{known.dtype}{list(known.shape)} elsewhere"
                )
            if known is None or (known.stride is None and t.stride is not None):
                tensors[t.id] = t
        for t in op.outputs:
            if t.id in produced:
                raise op.error(f"logical tensor {t.id} is also produced by op {produced[t.id].id}")
            produced[t.id] = op
        consumed.update(t.id for t in op.inputs)
    for op in ops:
        if any(t.id in {o.id for o in op.outputs} for t in op.inputs):
            raise op.error("an op consumes its own output")
    inputs = _ports(raw, "input_ports")
    outputs = _ports(raw, "output_ports")
    if inputs is None:
        inputs = sorted(t for t in tensors if t not in produced)
    if outputs is None:
        outputs = sorted(t for t in produced if t not in consumed)
    for port in inputs:
        if port not in tensors:
            raise OneDnnGraphError(f"input port {port} is no logical tensor of the graph")
        if port in produced:
            raise OneDnnGraphError(f"input port {port} is produced by {produced[port].where()}")
    for port in outputs:
        if port not in produced:
            raise OneDnnGraphError(f"output port {port} is not produced by any op")
    for tid in tensors:
        if tid not in produced and tid not in inputs:
            user = next(op for op in ops if any(t.id == tid for t in op.inputs))
            raise user.error(f"input logical tensor {tid} is neither produced nor an input port")
    if not outputs:
        raise OneDnnGraphError("the graph has no output")
    str_field = {k: raw.get(k, "") for k in ("version", "engine_kind", "fpmath_mode")}
    for k, v in str_field.items():
        if not isinstance(v, str):
            raise OneDnnGraphError(f"'{k}' must be a string, got {v!r}")
    if str_field["engine_kind"] not in ("", "cpu"):
        raise OneDnnGraphError(
            f"engine_kind {str_field['engine_kind']!r}: disc-ir compiles oneDNN graphs for 'cpu'"
        )
    listed = {
        k: len(raw[k]) if isinstance(raw.get(k), list) else len(default)
        for k, default in (("input_ports", inputs), ("output_ports", outputs))
    }
    return Graph(
        str_field["version"],
        str_field["engine_kind"],
        str_field["fpmath_mode"],
        _topological(ops, produced),
        inputs,
        outputs,
        tensors,
        listed["input_ports"],
        listed["output_ports"],
    )
