"""Compile a JAX function with disc-ir: export it to StableHLO, compile once, run at any shape.

    import numpy as np
    import disc_ir.jax

    def layer(x, w, b):
        return jax.nn.relu(x @ w + b)

    exe = disc_ir.jax.compile(layer, x, w, b, dynamic_axes={0: (0,)})   # batch dynamic
    y = exe(np.ones((5, 64), np.float32), w, b)                           # any batch size

`compile(fn, *example_args, dynamic_axes=..., target="cpu", **compile_options)`
builds a `jax.ShapeDtypeStruct` per array of the example arguments, with a
symbolic dimension (`jax.export.symbolic_shape`) on every dynamic axis,
exports `jax.jit(fn)` with `jax.export.export` for the CPU platform, and
compiles the exported module's StableHLO text (`Exported.mlir_module()`) with
`disc_ir.compile(text, target=target, **compile_options)`.

`dynamic_axes` maps a positional argument index to its dynamic axes, in one
of two forms:

- a sequence of axis numbers, e.g. `{0: (0, 1), 1: (0, 1)}`: by convention the
  symbol of axis `k` is `d<k>` in every argument, so axes with the same number
  must agree (BERT's hidden states `(batch, seq, hidden)` and mask
  `(batch, seq)` share `d0` and `d1`);
- a mapping axis -> symbol name, e.g. `{0: {0: "batch", 1: "seq"}, 1: {0: "batch", 3: "seq"}}`:
  axes named by the same symbol must agree, differently named ones are
  independent.

The forms can be mixed across arguments (`d<k>` names and explicit names then
share one namespace). `constraints` passes symbolic constraints to
`jax.export.symbolic_shape` (e.g. `("d0 >= 2",)`). For a pytree argument the
spec applies to every array leaf of it. Axes not listed are static (the
example's size).

The `JaxExecutable` is called like `fn`: the same pytree structure of arrays
(numpy or jax arrays), and returns what `fn` returns with numpy arrays as the
leaves (a single array, a tuple, ...). Shapes must satisfy what the export
assumed: dimensions sharing a symbol must agree and static ones keep their
size; a violation raises `disc_ir.runtime.RalInputError` (or the shape
assertion's message, as JAX words it) before any compiled code runs.

jax is an optional dependency (`pip install 'disc-ir[jax]'`): `import
disc_ir` never imports it, and importing this module without it raises an
ImportError that says so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

try:
    import jax
    from jax import export as jax_export
except ImportError as exc:  # pragma: no cover - exercised through a subprocess test
    raise ImportError(
        "disc_ir.jax needs jax, which is not installed: install the 'jax' extra "
        "(pip install 'disc-ir[jax]') or jax itself (pip install 'jax[cpu]')"
    ) from exc

import numpy as np

from disc_ir.api import Executable
from disc_ir.api import compile as compile_source

DynamicAxes = Mapping[int, Sequence[int] | Mapping[int, str]]

_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _axis_symbols(index: int, spec: Sequence[int] | Mapping[int, str]) -> dict[int, str]:
    """`{axis: symbol}` of one `dynamic_axes` entry (sequence form: axis k -> `d<k>`)."""
    if isinstance(spec, Mapping):
        out = {}
        for axis, name in spec.items():
            if not isinstance(axis, int) or not isinstance(name, str):
                raise TypeError(
                    f"dynamic_axes[{index}]: a mapping must be axis (int) -> symbol (str), "
                    f"got {axis!r}: {name!r}"
                )
            if not _SYMBOL.fullmatch(name):
                raise ValueError(
                    f"dynamic_axes[{index}]: symbol {name!r} is not an identifier "
                    "(letters, digits, '_', not starting with a digit)"
                )
            out[axis] = name
        return out
    if isinstance(spec, (str, bytes)) or not isinstance(spec, Sequence):
        raise TypeError(
            f"dynamic_axes[{index}]: expected a sequence of axes or a mapping axis -> symbol, "
            f"got {spec!r}"
        )
    for axis in spec:
        if not isinstance(axis, int):
            raise TypeError(f"dynamic_axes[{index}]: axis {axis!r} is not an int")
    return {axis: f"d{axis}" for axis in spec}


def _leaf_spec(leaf: Any, where: str, axes: Mapping[int, str], dims: Mapping[str, Any]) -> Any:
    shape = getattr(leaf, "shape", None)
    dtype = getattr(leaf, "dtype", None)
    if shape is None or dtype is None:
        leaf = np.asarray(leaf)
        shape, dtype = leaf.shape, leaf.dtype
    rank = len(shape)
    out = list(shape)
    for axis, name in axes.items():
        a = axis + rank if axis < 0 else axis
        if not 0 <= a < rank:
            raise ValueError(
                f"{where}: dynamic axis {axis} is out of range for an array of rank {rank} "
                f"(shape {tuple(shape)})"
            )
        out[a] = dims[name]
    return jax.ShapeDtypeStruct(tuple(out), dtype)


def input_specs(
    example_args: Sequence[Any],
    dynamic_axes: DynamicAxes | None = None,
    constraints: Sequence[str] = (),
) -> list[Any]:
    """The `jax.ShapeDtypeStruct` pytrees `compile` exports with (one per argument)."""
    dynamic_axes = dict(dynamic_axes or {})
    for index in dynamic_axes:
        if not isinstance(index, int) or not 0 <= index < len(example_args):
            raise ValueError(
                f"dynamic_axes: argument index {index!r} is out of range "
                f"({len(example_args)} example argument(s))"
            )
    per_arg = {i: _axis_symbols(i, spec) for i, spec in dynamic_axes.items()}
    names = sorted({name for axes in per_arg.values() for name in axes.values()})
    dims: dict[str, Any] = {}
    if names:
        symbols = jax_export.symbolic_shape(", ".join(names), constraints=tuple(constraints))
        dims = dict(zip(names, symbols, strict=True))
    elif constraints:
        raise ValueError("constraints given without any dynamic axis")
    specs = []
    for i, arg in enumerate(example_args):
        axes = per_arg.get(i, {})
        leaves, tree = jax.tree_util.tree_flatten(arg)
        specs.append(
            jax.tree_util.tree_unflatten(
                tree,
                [
                    _leaf_spec(
                        leaf,
                        f"argument {i}" + (f" leaf {j}" if len(leaves) > 1 else ""),
                        axes,
                        dims,
                    )
                    for j, leaf in enumerate(leaves)
                ],
            )
        )
    return specs


def export(
    fn: Callable[..., Any],
    *example_args: Any,
    dynamic_axes: DynamicAxes | None = None,
    constraints: Sequence[str] = (),
) -> Any:
    """`jax.export.export(jax.jit(fn), platforms=("cpu",))` at the symbolic specs of the arguments."""
    specs = input_specs(example_args, dynamic_axes, constraints)
    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    return jax_export.export(jitted, platforms=("cpu",))(*specs)  # type: ignore[arg-type]  # jax.jit output or a function with `.lower`, as export takes


def _to_runtime(array: np.ndarray) -> np.ndarray:
    """The runtime takes bf16 arrays as their uint16 bit patterns."""
    if array.dtype == jax.numpy.bfloat16:
        return array.view(np.uint16)
    return array


def _from_runtime(array: Any, element: str) -> Any:
    """bf16 outputs (uint16 bit patterns) as JAX's bfloat16 arrays."""
    if element == "bf16":
        return np.asarray(array).view(jax.numpy.bfloat16)
    return array


def _canonical(array: np.ndarray, expected: Any) -> np.ndarray:
    """`array` in the dtype the export expects when jax would have converted it
    (its dtype canonicalization: float64 -> float32, int64 -> int32, ... with
    64-bit types off); other dtypes are left for the executable to reject."""
    if array.dtype != expected and jax.dtypes.canonicalize_dtype(array.dtype) == expected:
        return array.astype(expected)
    return array


class JaxExecutable:
    """A JAX function compiled by disc-ir: call it with the argument pytrees `fn` takes.

    `exported` is the `jax.export.Exported`, `stablehlo` the text that was
    compiled, `executable` the underlying `disc_ir.Executable`.
    """

    def __init__(self, exported: Any, stablehlo: str, executable: Executable):
        self.exported = exported
        self.stablehlo = stablehlo
        self.executable = executable

    def __repr__(self) -> str:
        return f"<disc_ir.jax.JaxExecutable {self.exported.fun_name}: {self.executable!r}>"

    def __call__(self, *args: Any) -> Any:
        leaves, tree = jax.tree_util.tree_flatten((args, {}))
        if tree != self.exported.in_tree:
            raise TypeError(
                f"{self.exported.fun_name}: the arguments' structure {tree} differs from the "
                f"compiled one {self.exported.in_tree}"
            )
        kept = getattr(self.exported, "module_kept_var_idx", None)
        avals = self.exported.in_avals
        arrays = []
        for i in kept if kept is not None else range(len(leaves)):
            arrays.append(_to_runtime(_canonical(np.asarray(leaves[i]), avals[i].dtype)))
        outs: Any = self.executable(*arrays)
        if isinstance(outs, np.ndarray):
            outs = (outs,)
        outs = [
            _from_runtime(out, spec.element)
            for out, spec in zip(outs, self.executable.outputs, strict=True)
        ]
        return jax.tree_util.tree_unflatten(self.exported.out_tree, outs)

    def close(self) -> None:
        """Releases the compiled code's RAL context."""
        self.executable.close()

    def __enter__(self) -> JaxExecutable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def compile(  # noqa: A001 - mirrors disc_ir.compile
    fn: Callable[..., Any],
    *example_args: Any,
    dynamic_axes: DynamicAxes | None = None,
    constraints: Sequence[str] = (),
    target: str = "cpu",
    **compile_options: Any,
) -> JaxExecutable:
    """Exports `fn` at the example arguments' shapes (dynamic where `dynamic_axes` says) and compiles it.

    `example_args`: arrays, `jax.ShapeDtypeStruct`s or pytrees of them (only
    shapes and dtypes are used). `compile_options` go to `disc_ir.compile`
    (`verify`, `dump_dir`, `keep_ir`, `num_threads`). Raises
    `disc_ir.CompileError` when disc-ir cannot compile the exported module.
    """
    exported = export(fn, *example_args, dynamic_axes=dynamic_axes, constraints=constraints)
    text = exported.mlir_module()
    return JaxExecutable(exported, text, compile_source(text, target=target, **compile_options))


__all__ = ["DynamicAxes", "JaxExecutable", "compile", "export", "input_specs"]
