"""MLIR's SSA value naming, so printed IR reads as `mlir-opt` prints it.

MLIR drops the names of the input text and renames every value when it prints
(`AsmPrinter`'s `SSANameState`):

* entry-block arguments are `%argN`, other values `%N`, numbered in a region
  before the regions nested in it, so the body of a loop continues the count
  after the whole enclosing block; sibling regions restart from the same count;
* some ops suggest names (`arith.constant 0 : index` is `%c0`, `tensor.dim`
  is `%dim`); a name already used gets `_K` from one counter per scope;
* an op with several unnamed results is `%N:k`, its results `%N#i`.

`compute_mlir_names` returns the name (without `%`) of every value under an op.
Dialects add suggestions with `register_result_namer`.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Block, Operation, Region, SSAValue

ResultNamer = Callable[[Operation], list[str | None]]
_RESULT_NAMERS: dict[str, ResultNamer] = {}


def register_result_namer(op_name: str, namer: ResultNamer) -> None:
    """Make results of `op_name` print with the names `namer(op)` suggests."""
    _RESULT_NAMERS[op_name] = namer


def _fixed(name: str) -> ResultNamer:
    return lambda op: [name] * len(op.results)


def _arith_constant_name(op: Operation) -> list[str | None]:
    value = op.properties.get("value")
    if value is None:
        value = op.attributes.get("value")
    if isinstance(value, IntegerAttr):
        typ = op.results[0].type
        v = value.value.data
        if isinstance(typ, IntegerType) and typ.width.data == 1:
            return ["true" if v else "false"]
        if isinstance(typ, IndexType):
            return [f"c{v}"]
        if isinstance(typ, IntegerType):
            return [f"c{v}_i{typ.width.data}"]
        return [f"c{v}"]
    if isinstance(value, FloatAttr):
        return ["cst"]
    return ["cst"]


def _gpu_dim_name(prefix: str) -> ResultNamer:
    def namer(op: Operation) -> list[str | None]:
        dim = op.properties.get("dimension")
        if dim is None:
            dim = op.attributes.get("dimension")
        text = str(getattr(dim, "data", "x")).lower()
        text = text.split(".")[-1] if "." in text else text
        return [f"{prefix}_{text}"]

    return namer


def _shape_const_size_name(op: Operation) -> list[str | None]:
    value = op.attributes.get("value", op.properties.get("value"))
    if isinstance(value, IntegerAttr):
        return [f"c{value.value.data}"]
    return [None]


for _name, _namer in {
    "arith.constant": _arith_constant_name,
    "shape.const_size": _shape_const_size_name,
    "tensor.dim": _fixed("dim"),
    "memref.dim": _fixed("dim"),
    "memref.alloc": _fixed("alloc"),
    "memref.alloca": _fixed("alloca"),
    "memref.cast": _fixed("cast"),
    "memref.reinterpret_cast": _fixed("reinterpret_cast"),
    "memref.subview": _fixed("subview"),
    "memref.collapse_shape": _fixed("collapse_shape"),
    "memref.expand_shape": _fixed("expand_shape"),
    "memref.view": _fixed("view"),
    "tensor.extract": _fixed("extracted"),
    "tensor.from_elements": _fixed("from_elements"),
    "tensor.cast": _fixed("cast"),
    "tensor.insert": _fixed("inserted"),
    "tensor.extract_slice": _fixed("extracted_slice"),
    "tensor.generate": _fixed("generated"),
    "tensor.reshape": _fixed("reshape"),
    "tensor.splat": _fixed("splat"),
    "tensor.pad": _fixed("padded"),
    "gpu.thread_id": _gpu_dim_name("thread_id"),
    "gpu.block_id": _gpu_dim_name("block_id"),
    "gpu.block_dim": _gpu_dim_name("block_dim"),
    "gpu.grid_dim": _gpu_dim_name("grid_dim"),
}.items():
    register_result_namer(_name, _namer)


def _sanitize(name: str) -> str:
    out = []
    for ch in name:
        out.append(ch if (ch.isalnum() or ch in "$._-") else "_")
    text = "".join(out)
    if text and text[0].isdigit():
        text = "_" + text
    return text


class _Scope:
    """Per-region naming state, copied into nested regions like MLIR's context."""

    def __init__(self, value_id: int, arg_id: int, conflict_id: int, used: set[str]):
        self.value_id = value_id
        self.arg_id = arg_id
        self.conflict_id = conflict_id
        self.used = used


class MlirNames:
    """Names for every value under a root op, as MLIR's printer chooses them."""

    def __init__(self, root: Operation):
        self.names: dict[SSAValue, str] = {}
        # ops whose results print as a group `%N:k` (result index -> `%N#i`)
        self.grouped: dict[Operation, str] = {}
        self._number(root)

    def _unique(self, scope: _Scope, name: str) -> str:
        name = _sanitize(name)
        if name not in scope.used:
            scope.used.add(name)
            return name
        while True:
            probe = f"{name}_{scope.conflict_id}"
            scope.conflict_id += 1
            if probe not in scope.used:
                scope.used.add(probe)
                return probe

    def _number_region(self, region: Region, scope: _Scope) -> None:
        for block in region.blocks:
            self._number_block(block, scope)

    def _number_block(self, block: Block, scope: _Scope) -> None:
        entry = block.parent is not None and block.parent.blocks.first is block
        for arg in block.args:
            if entry:
                self.names[arg] = self._unique(scope, f"arg{scope.arg_id}")
                scope.arg_id += 1
            else:
                self.names[arg] = str(scope.value_id)
                scope.value_id += 1
        for op in block.ops:
            self._number_op_results(op, scope)

    def _number_op_results(self, op: Operation, scope: _Scope) -> None:
        if not op.results:
            return
        namer = _RESULT_NAMERS.get(op.name)
        suggested: list[str | None] = namer(op) if namer else [None] * len(op.results)
        if len(suggested) != len(op.results):
            suggested = [None] * len(op.results)
        if all(s is None for s in suggested):
            base = str(scope.value_id)
            scope.value_id += 1
            if len(op.results) == 1:
                self.names[op.results[0]] = base
            else:
                self.grouped[op] = base
                for i, res in enumerate(op.results):
                    self.names[res] = f"{base}#{i}"
            return
        for res, name in zip(op.results, suggested, strict=True):
            if name is None:
                self.names[res] = str(scope.value_id)
                scope.value_id += 1
            else:
                self.names[res] = self._unique(scope, name)

    def _number(self, root: Operation) -> None:
        top = _Scope(0, 0, 0, set())
        self._number_op_results(root, top)
        stack: list[tuple[Region, _Scope]] = [
            (r, _Scope(top.value_id, top.arg_id, top.conflict_id, set(top.used)))
            for r in root.regions
        ]
        while stack:
            region, scope = stack.pop()
            self._number_region(region, scope)
            for block in region.blocks:
                for op in block.ops:
                    for nested in op.regions:
                        stack.append(
                            (
                                nested,
                                _Scope(
                                    scope.value_id,
                                    scope.arg_id,
                                    scope.conflict_id,
                                    set(scope.used),
                                ),
                            )
                        )


def compute_mlir_names(root: Operation) -> MlirNames:
    """Name every value under `root` as MLIR's printer would."""
    return MlirNames(root)
