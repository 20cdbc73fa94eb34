"""Legalize StableHLO to MHLO (what `stablehlo-legalize-to-hlo` and the StableHLO importer run).

mlir-hlo's StablehloLegalizeToHloPass (which BladeDISC's TF bridge runs
before its own pipeline) turns every `stablehlo.*`
op into its `mhlo.*` twin (`disc_ir.dialects.stablehlo.MHLO_TWIN`): same
operands, results and regions, attributes mapped:

* `#stablehlo<...>` / `#stablehlo.dot<...>` ... -> their `#mhlo` forms;
  gather / scatter batching dimensions (which the pinned mhlo lacks) become
  extra start-index components first (`unbatch_gather_scatter`);
* dimension lists `array<i64: ..>` -> `dense<[..]> : tensor<Nxi64>` and
  `array<i1: ..>` -> `dense<..> : tensor<Nxi1>`, the pinned mlir-hlo's form;
* `stablehlo.dot_general`'s `algorithm` is dropped when absent/default (the
  pinned mhlo has none; a non-default one is an error).

`stablehlo.composite` has no twin in the pinned mhlo: it becomes a
`func.call` of its `decomposition` (what a backend without the composite
does; the inliner then inlines it), except the chlo ops of `KEPT_COMPOSITES`,
kept as that op as XLA keeps them. `stablehlo.optimization_barrier` is
replaced by its operands. An op that cannot be converted is an error naming
it.
"""

from __future__ import annotations

from xdsl.dialects import builtin, func
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IntegerType,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.rewriter import Rewriter
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.ir.walk import preorder_ops


def _dense_from_array(attr: DenseArrayBase[IntegerType]) -> DenseIntOrFPElementsAttr:
    values = [int(v) for v in attr.get_values()]
    elem = attr.elt_type
    if isinstance(elem, IntegerType) and elem.width.data == 1:
        return DenseIntOrFPElementsAttr.from_list(TensorType(elem, [len(values)]), values)
    return DenseIntOrFPElementsAttr.from_list(TensorType(i64, [len(values)]), values)


def to_mhlo_attr(attr: Attribute) -> Attribute:
    """`attr` as the pinned mhlo spells it (see the module docstring)."""
    from disc_ir.dialects.stablehlo import TO_MHLO_ATTR, map_attr

    if isinstance(attr, DenseArrayBase):
        return _dense_from_array(attr)
    return map_attr(attr, TO_MHLO_ATTR)


def _where(op: Operation) -> str:
    from disc_ir.ir.parser import source_location

    loc = source_location(op)
    return f" (line {loc[0]})" if loc else ""


#: composites kept as the chlo op they name (as XLA keeps them), where disc-ir
#: lowers that op itself: its lowering is more accurate than the decomposition
#: jax ships (jax's `chlo.erf` decomposition reaches 1.0 four ulps early)
KEPT_COMPOSITES = ("chlo.erf", "chlo.erfc", "chlo.erf_inv")


def _kept_composite(op: Operation) -> Operation | None:
    """The chlo op a `stablehlo.composite` of `KEPT_COMPOSITES` stands for, or None."""
    from disc_ir.dialects.chlo import UNARY_OPS

    name = op.attributes.get("name")
    if not isinstance(name, builtin.StringAttr) or name.data not in KEPT_COMPOSITES:
        return None
    extra = op.attributes.get("composite_attributes")
    if len(op.operands) != 1 or len(op.results) != 1:
        return None
    if isinstance(extra, builtin.DictionaryAttr) and extra.data:
        return None
    cls = next((c for c in UNARY_OPS if c.name == name.data), None)
    if cls is None:
        return None
    return cls.create(operands=[op.operands[0]], result_types=[op.results[0].type])


def legalize_op(op: Operation, rewriter: Rewriter) -> None:
    """Replace the stablehlo op `op` by its mhlo form (raises
    DiagnosticException when it has none)."""
    from disc_ir.dialects.stablehlo import MHLO_TWIN

    if op.name == "stablehlo.composite":
        kept = _kept_composite(op)
        if kept is not None:
            rewriter.replace_op(op, kept)
            return
        callee = op.attributes["decomposition"]
        assert isinstance(callee, builtin.SymbolRefAttr)
        call = func.CallOp(callee, list(op.operands), [r.type for r in op.results])
        rewriter.replace_op(op, call)
        return
    if op.name == "stablehlo.optimization_barrier":
        rewriter.replace_op(op, [], list(op.operands))
        return
    if op.name in ("stablehlo.gather", "stablehlo.scatter"):
        from disc_ir.rewriting.unbatch_gather_scatter import unbatch

        try:
            unbatch(op, rewriter)
        except ValueError as exc:
            raise DiagnosticException(f"'{op.name}' op{_where(op)}: {exc}") from None
    twin = MHLO_TWIN.get(op.name)
    if twin is None:
        raise DiagnosticException(f"'{op.name}' op{_where(op)}: no mhlo equivalent")
    attrs: dict[str, Attribute] = {}
    for key, value in op.attributes.items():
        if key == "algorithm" and op.name == "stablehlo.dot_general":
            raise DiagnosticException(
                f"'{op.name}' op{_where(op)}: dot algorithms are not supported by mhlo"
            )
        try:
            attrs[key] = to_mhlo_attr(value)
        except ValueError as exc:
            raise DiagnosticException(f"'{op.name}' op{_where(op)}: {exc}") from None
    for key, value in op.properties.items():
        attrs.setdefault(key, to_mhlo_attr(value))
    regions = [op.detach_region(r) for r in list(op.regions)]
    new = twin.create(
        operands=list(op.operands),
        result_types=[r.type for r in op.results],
        attributes=attrs,
        regions=regions,
    )
    new.location = op.location
    rewriter.replace_op(op, new)


def legalize_module(module: builtin.ModuleOp) -> None:
    """Legalize every stablehlo op of `module` (nested regions included)."""
    rewriter = Rewriter()
    for op in [o for o in preorder_ops(module) if o.name.startswith("stablehlo.")]:
        legalize_op(op, rewriter)
