"""Import StableHLO (as JAX prints it) into the mhlo module the pipeline compiles.

    from disc_ir.frontends import import_stablehlo
    module = import_stablehlo(jax.jit(f).lower(x).as_text())

`import_stablehlo(text, *, file_name="<stablehlo>", entry="main")` parses
the pretty or generic form (with or without debug locations, static or
shape-polymorphic `jax.export` modules) and returns a module holding only
mhlo / chlo / func / shape ops (and the `tensor` / `arith` scalars of the
shape operands of step 4), ready for `disc_ir.compile`:

1. `stablehlo-legalize-to-hlo`: every stablehlo op to its mhlo twin;
   `stablehlo.composite` becomes a call of its decomposition;
2. inlining: every `func.call` is replaced by the callee's body (JAX's
   private helpers, `_wrapped_jax_export_main`, composite decompositions),
   recursively; then a cumulative `@stablehlo.dynamic_reduce_window` (jax's
   `cumsum` / `cumprod` / `cummax` ... along a dynamic axis) becomes a masked
   `mhlo.reduce` (`disc_ir.frontends.cumulative_reduce_window`); functions
   left without callers, other than the entry, are removed;
3. `shape_assertion` custom calls (jax.export's checks of the symbolic
   dimensions) become runtime checks: `mhlo_disc.custom_call_v2` of
   `ral_shape_assertion` on the host, operands the predicate and the
   assertion's values as one `tensor<Nxi64>`, `custom_attrs = {error_message
   = ...}`; when the predicate is false at run time the RAL raises
   `disc_ir.runtime.ShapeAssertionError` with the message formatted with
   the values, as JAX formats it (`message.format(*values)`);
4. shape operands: jax builds each dynamic shape by concatenating
   `reshape(get_dimension_size)` and constants; such a concatenate used
   only as shape operands becomes `tensor.from_elements` of its extents
   (`disc_ir.frontends.shape_operands`), the form BladeDISC's bridges give
   the pipeline (no shape kernel on the host, no constants read at run time);
5. names: the entry gets `tf.entry_function = {inputs = ..., outputs = ...}`
   (what `disc_ir.compile` reads for `Executable.inputs/outputs[i].name`):
   outputs from the results' `jax.result_info`, inputs from `jax.arg_info`
   or the arguments' name locations (`loc("x")`), `inputN` / `outputN`
   otherwise. The `jax.result_info` attributes stay on the results.

chlo ops are kept (`chlo-legalize-to-hlo` starts the compile pipeline).
Errors: a parse error raises `disc_ir.ir.parser.Diagnostic` (file, line,
column); an op with no mhlo form, a recursive call or a missing callee raises
`StableHloImportError`.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    IntegerType,
    ModuleOp,
    NameLoc,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.frontends.shape_operands import concatenated_shapes_to_from_elements
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import parse_module
from disc_ir.ir.walk import preorder_ops

SHAPE_ASSERTION_TARGET = "shape_assertion"
"""The custom-call target jax.export uses for its shape checks."""

RAL_SHAPE_ASSERTION = "ral_shape_assertion"
"""The RAL API a shape assertion calls at run time (see runtime.kernels.assertion)."""

_MAX_INLINE_DEPTH = 64


class StableHloImportError(ValueError):
    """The StableHLO module parses but cannot be imported (see the message)."""


def looks_like_stablehlo(text: str) -> bool:
    """Whether MLIR `text` uses the stablehlo dialect (the API routes it here)."""
    return "stablehlo." in text


def import_stablehlo(
    text: str, *, file_name: str = "<stablehlo>", entry: str = "main", ctx: Context | None = None
) -> ModuleOp:
    """Parse StableHLO `text` and convert it to mhlo (see the module docstring).

    `ctx`: the context to parse in (default: a fresh `make_context()`).
    """
    module = parse_module(ctx or make_context(), text, file_name)
    return import_stablehlo_module(module, entry=entry)


def import_stablehlo_module(module: ModuleOp, *, entry: str = "main") -> ModuleOp:
    """Convert a parsed StableHLO `module` in place and return it."""
    from disc_ir.conversion.stablehlo_to_mhlo import legalize_module
    from disc_ir.frontends.cumulative_reduce_window import expand_cumulative_reduce_windows
    from disc_ir.frontends.padded_reduce_window import expand_padded_reduce_windows

    try:
        legalize_module(module)
    except DiagnosticException as exc:
        raise StableHloImportError(str(exc)) from None
    inline_calls(module)
    expand_cumulative_reduce_windows(module)
    expand_padded_reduce_windows(module)
    remove_unused_private_functions(module, keep=entry)
    concatenated_shapes_to_from_elements(module)
    lower_shape_assertions(module)
    reject_dynamic_custom_calls(module)
    main = _function(module, entry)
    if main is not None:
        name_entry_function(main)
    return module


# ---------------------------------------------------------------------------
# Inlining
# ---------------------------------------------------------------------------


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}


def _function(module: ModuleOp, name: str) -> func.FuncOp | None:
    return _functions(module).get(name)


def _inline_call(call: func.CallOp, callee: func.FuncOp, rewriter: Rewriter) -> None:
    body = callee.body.blocks.first
    if body is None or body.next_block is not None:
        raise StableHloImportError(
            f"cannot inline @{callee.sym_name.data}: it must have exactly one block"
        )
    mapping: dict[SSAValue, SSAValue] = dict(zip(body.args, call.operands, strict=True))
    results: list[SSAValue] = []
    for op in body.ops:
        if isinstance(op, func.ReturnOp):
            results = [mapping.get(v, v) for v in op.operands]
            break
        clone = op.clone(value_mapper=mapping)
        rewriter.insert_op(clone, InsertPoint.before(call))
    rewriter.replace_op(call, [], results)


def _reject_recursion(module: ModuleOp) -> None:
    """Raise when the call graph of `module` has a cycle (inlining would not end)."""
    callees: dict[str, set[str]] = {}
    for name, f in _functions(module).items():
        callees[name] = {
            op.callee.root_reference.data for op in preorder_ops(f) if isinstance(op, func.CallOp)
        }
    state: dict[str, int] = {}  # 1: on the DFS stack, 2: done

    def visit(name: str, path: list[str]) -> None:
        if state.get(name) == 2:
            return
        if state.get(name) == 1:
            cycle = " -> ".join("@" + n for n in [*path[path.index(name) :], name])
            raise StableHloImportError(f"recursive functions cannot be inlined: {cycle}")
        state[name] = 1
        for callee in sorted(callees.get(name, ())):
            visit(callee, [*path, name])
        state[name] = 2

    for name in callees:
        visit(name, [])


def inline_calls(module: ModuleOp) -> None:
    """Inline every `func.call` of a function of `module` (recursively)."""
    _reject_recursion(module)
    rewriter = Rewriter()
    for _ in range(_MAX_INLINE_DEPTH):
        funcs = _functions(module)
        calls = [op for op in preorder_ops(module) if isinstance(op, func.CallOp)]
        if not calls:
            return
        for call in calls:
            name = call.callee.root_reference.data
            callee = funcs.get(name)
            if callee is None:
                raise StableHloImportError(f"call of an unknown function @{name}")
            if callee.body.blocks.first is None:
                raise StableHloImportError(f"call of the external function @{name}")
            _inline_call(call, callee, rewriter)
    raise StableHloImportError(
        f"calls nested deeper than {_MAX_INLINE_DEPTH} levels (recursive functions?)"
    )


def remove_unused_private_functions(module: ModuleOp, keep: str) -> None:
    """Erase private functions nothing refers to any more, except `keep`."""
    used: set[str] = set()
    for op in preorder_ops(module):
        for attr in op.attributes.values():
            if isinstance(attr, builtin.SymbolRefAttr):
                used.add(attr.root_reference.data)
    for f in list(_functions(module).values()):
        name = f.sym_name.data
        private = f.sym_visibility is not None and f.sym_visibility.data == "private"
        if private and name != keep and name not in used:
            f.detach()
            f.erase()


# ---------------------------------------------------------------------------
# shape_assertion
# ---------------------------------------------------------------------------


def _as_i64_vector(value: SSAValue, anchor: Operation, rewriter: Rewriter) -> SSAValue:
    """`value` (a 0-d integer tensor) as a `tensor<1xi64>`."""
    from disc_ir.dialects import mhlo

    t = value.type
    if (
        not isinstance(t, TensorType)
        or t.get_shape() != ()
        or not isinstance(t.get_element_type(), IntegerType)
    ):
        raise StableHloImportError(
            f"shape_assertion operands after the predicate must be 0-d integer tensors, got {t}"
        )
    ops: list[Operation] = []
    if t.get_element_type() != i64:
        conv = mhlo.ConvertOp.create(operands=[value], result_types=[TensorType(i64, [])])  # type: ignore[attr-defined]  # mhlo builds its elementwise op classes from a table at import
        ops.append(conv)
        value = conv.results[0]
    reshape = mhlo.ReshapeOp.create(operands=[value], result_types=[TensorType(i64, [1])])
    ops.append(reshape)
    rewriter.insert_op(ops, InsertPoint.before(anchor))
    return reshape.results[0]


def lower_shape_assertion(op: Operation, rewriter: Rewriter) -> None:
    """`mhlo.custom_call @shape_assertion(%pred, %v...) {error_message}` ->
    `mhlo_disc.custom_call_v2` of `ral_shape_assertion` (module docstring)."""
    from disc_ir.dialects import mhlo

    message = op.attributes.get("error_message")
    if not isinstance(message, StringAttr):
        raise StableHloImportError("shape_assertion without a string error_message")
    if not op.operands or op.results:
        raise StableHloImportError("shape_assertion takes a predicate and values, no results")
    pred = op.operands[0]
    pt = pred.type
    if (
        not isinstance(pt, TensorType)
        or pt.get_shape() != ()
        or pt.get_element_type() != IntegerType(1)
    ):
        raise StableHloImportError(f"shape_assertion predicate must be tensor<i1>, got {pt}")
    parts = [_as_i64_vector(v, op, rewriter) for v in op.operands[1:]]
    n = len(parts)
    if n == 0:
        attr = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [0]), [])
        const = mhlo.ConstantOp(attr)
        rewriter.insert_op(const, InsertPoint.before(op))
        values: SSAValue = const.results[0]
    elif n == 1:
        values = parts[0]
    else:
        concat = mhlo.ConcatenateOp.create(
            operands=parts,
            result_types=[TensorType(i64, [n])],
            attributes={"dimension": builtin.IntegerAttr(0, i64)},
        )
        rewriter.insert_op(concat, InsertPoint.before(op))
        values = concat.results[0]
    call = shape_assertion_call(pred, values, message)
    call.location = op.location
    rewriter.replace_op(op, call)


def shape_assertion_call(pred: SSAValue, values: SSAValue, message: StringAttr) -> Operation:
    """The host `mhlo_disc.custom_call_v2` of `ral_shape_assertion` checking
    `pred` (`tensor<i1>`), `message` formatted with `values` (`tensor<Nxi64>`)
    when it fails."""
    from disc_ir.dialects import mhlo_disc

    return mhlo_disc.CustomCallV2Op(
        [pred, values],
        [],
        RAL_SHAPE_ASSERTION,
        {"error_message": message},
        has_side_effect=True,
        device="h",
        input_placements="h,h",
        output_placements="",
        input_layouts="*,*",
        output_layouts="",
        expected_input_layouts="*,*",
        expected_output_layouts="",
    )


def reject_dynamic_custom_calls(module: ModuleOp) -> None:
    """StableHLO's dynamic ops that exist only as custom calls
    (`@stablehlo.dynamic_reduce_window` whose window or strides are run-time
    values -- the cumulative ones and those with a fixed window are
    expanded before --,
    `@stablehlo.dynamic_rng_bit_generator`, ...) have no lowering here: a
    `StableHloImportError` naming the op and its source line, instead of a
    failure deep in the pipeline."""
    from disc_ir.ir.parser import source_location

    for op in preorder_ops(module):
        if op.name != "mhlo.custom_call":
            continue
        target = op.attributes.get("call_target_name")
        name = target.data if isinstance(target, StringAttr) else ""
        if name.startswith("stablehlo.dynamic_"):
            loc = source_location(op)
            where = f" (input line {loc[0]})" if loc else ""
            raise StableHloImportError(
                f"'{name}'{where} is not supported: the shape-polymorphic form of "
                f"'stablehlo.{name.removeprefix('stablehlo.dynamic_')}' (jax emits it for a window "
                "or size along a dynamic axis, e.g. jnp.cumsum over one); export with that axis static"
            )


def lower_shape_assertions(module: ModuleOp) -> None:
    """Lower every `shape_assertion` custom call of `module`."""
    rewriter = Rewriter()
    for op in preorder_ops(module):
        if op.name != "mhlo.custom_call":
            continue
        target = op.attributes.get("call_target_name")
        if isinstance(target, StringAttr) and target.data == SHAPE_ASSERTION_TARGET:
            lower_shape_assertion(op, rewriter)


# ---------------------------------------------------------------------------
# Names
# ---------------------------------------------------------------------------


def _attr_string(attrs: DictionaryAttr | None, key: str) -> str | None:
    if attrs is None:
        return None
    value = attrs.data.get(key)
    return value.data if isinstance(value, StringAttr) else None


def _loc_name(block: Block | None, index: int) -> str | None:
    if block is None or index >= len(block.args):
        return None
    loc = block.args[index].location
    if isinstance(loc, NameLoc) and not loc.desc.data.startswith("\0"):
        return loc.desc.data
    return None


def _clean(names: list[str | None], prefix: str) -> str:
    out = [n if n and "," not in n else f"{prefix}{i}" for i, n in enumerate(names)]
    if len(set(out)) != len(out):
        out = [f"{prefix}{i}" for i in range(len(out))]
    return ",".join(out)


def result_names(f: func.FuncOp) -> list[str | None]:
    """The `jax.result_info` of each result of `f` (None where absent)."""
    res_attrs = f.res_attrs.data if f.res_attrs is not None else ()
    n = len(f.function_type.outputs.data)
    names: list[str | None] = [None] * n
    for i, attrs in enumerate(res_attrs):
        if isinstance(attrs, DictionaryAttr) and i < n:
            names[i] = _attr_string(attrs, "jax.result_info")
    return names


def argument_names(f: func.FuncOp) -> list[str | None]:
    """`jax.arg_info` of each argument of `f`, else its `loc("name")`."""
    arg_attrs = f.arg_attrs.data if f.arg_attrs is not None else ()
    n = len(f.function_type.inputs.data)
    names: list[str | None] = [None] * n
    for i in range(n):
        attrs = arg_attrs[i] if i < len(arg_attrs) else None
        names[i] = _attr_string(
            attrs if isinstance(attrs, DictionaryAttr) else None, "jax.arg_info"
        )
        if names[i] is None:
            names[i] = _loc_name(f.body.blocks.first, i)
    return names


def name_entry_function(f: func.FuncOp) -> None:
    """Give `f` a `tf.entry_function` with JAX's argument and result names
    (kept when it already has one)."""
    if "tf.entry_function" in f.attributes:
        return
    n_in = len(f.function_type.inputs.data)
    n_out = len(f.function_type.outputs.data)
    entry: dict[str, Attribute] = {
        "inputs": StringAttr(_clean(argument_names(f), "input")),
        "outputs": StringAttr(_clean(result_names(f), "output")),
        "input_placements": StringAttr(",".join(["cpu"] * n_in)),
        "output_placements": StringAttr(",".join(["cpu"] * n_out)),
    }
    f.attributes["tf.entry_function"] = DictionaryAttr(entry)


__all__ = [
    "RAL_SHAPE_ASSERTION",
    "SHAPE_ASSERTION_TARGET",
    "StableHloImportError",
    "argument_names",
    "import_stablehlo",
    "import_stablehlo_module",
    "inline_calls",
    "looks_like_stablehlo",
    "lower_shape_assertions",
    "name_entry_function",
    "result_names",
]
