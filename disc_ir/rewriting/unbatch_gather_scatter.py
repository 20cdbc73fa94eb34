"""StableHLO 1.x batching dimensions of gather / scatter, as the pinned mhlo spells them.

`#stablehlo.gather` has `operand_batching_dims` / `start_indices_batching_dims`
and `#stablehlo.scatter` has `input_batching_dims` /
`scatter_indices_batching_dims` (jax emits them for `jnp.take_along_axis`
and vmapped gathers / scatters); the pinned mhlo has neither. Each pair says:
operand dim `ob[k]` is indexed by the position along indices dim `ib[k]`. That
is the same as one more start-index component holding that position:

* the indices get, along `index_vector_dim` (added as a trailing dim of size
  1 first when it is implicit), one `iota` per pair counting along `ib[k]`
  (`mhlo.iota`, or `mhlo.dynamic_iota` over the indices' dims when they are
  dynamic), converted to the indices' element type;
* `ob` joins `start_index_map` (gather) / `scatter_dims_to_operand_dims`
  (scatter) and `collapsed_slice_dims` / `inserted_window_dims` (their slice
  size is 1 by definition), and the batching fields become empty.

The result shapes do not change: the batch dims of the result are still the
indices' dims but the index vector, and the operand's batching dims were
never offset / window dims. `unbatch(op, rewriter)` rewrites a
`stablehlo.gather` / `stablehlo.scatter` in place (the new index ops are mhlo
ops before it); `stablehlo-legalize-to-hlo` calls it before converting.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import Rewriter

from disc_ir.ir.mhlo_builder import MhloBuilder

#: op name -> (dimension numbers attribute, operand batching field, indices
#: batching field, index map field, collapsed field, indices operand index)
_FIELDS = {
    "stablehlo.gather": (
        "dimension_numbers",
        "operand_batching_dims",
        "start_indices_batching_dims",
        "start_index_map",
        "collapsed_slice_dims",
        1,
    ),
    "stablehlo.scatter": (
        "scatter_dimension_numbers",
        "input_batching_dims",
        "scatter_indices_batching_dims",
        "scatter_dims_to_operand_dims",
        "inserted_window_dims",
        None,  # after the inputs: (inputs..., indices, updates...)
    ),
}


def _attr(op: Operation, name: str) -> Attribute | None:
    return op.properties.get(name) or op.attributes.get(name)


def _set_attr(op: Operation, name: str, value: Attribute) -> None:
    if name in op.properties:
        op.properties[name] = value
    else:
        op.attributes[name] = value


def _with_positions(
    b: MhloBuilder, indices: SSAValue, index_vector_dim: int, batching: list[int]
) -> tuple[SSAValue, int]:
    """`indices` with one more index-vector component per dim of `batching`,
    holding the position along it; (the new indices, the index vector dim)."""
    t = indices.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    elem = t.get_element_type()
    if index_vector_dim == len(shape):
        shape.append(1)
        new_type = TensorType(elem, shape)
        if DYNAMIC_INDEX in shape:
            target = b.dims_i64(indices)
            one = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [1])
            ones = b.op("mhlo.constant", [], one.type, {"value": one})
            target = b.op(
                "mhlo.concatenate",
                [target, ones],
                TensorType(i64, [len(shape)]),
                {"dimension": IntegerAttr(0, i64)},
            )
            indices = b.op("mhlo.dynamic_reshape", [indices, target], new_type)
        else:
            indices = b.op("mhlo.reshape", [indices], new_type)
    component = list(shape)
    component[index_vector_dim] = 1
    component_type = TensorType(elem, component)
    parts = [indices]
    for dim in batching:
        attrs: dict[str, Attribute] = {"iota_dimension": IntegerAttr(dim, i64)}
        if DYNAMIC_INDEX in component:
            dims = b.dims_i64(indices, {index_vector_dim: 1})
            parts.append(b.op("mhlo.dynamic_iota", [dims], component_type, attrs))
        else:
            parts.append(b.op("mhlo.iota", [], component_type, attrs))
    vector = shape[index_vector_dim]
    out = list(shape)
    out[index_vector_dim] = DYNAMIC_INDEX if vector == DYNAMIC_INDEX else vector + len(batching)
    return (
        b.op(
            "mhlo.concatenate",
            parts,
            TensorType(elem, out),
            {"dimension": IntegerAttr(index_vector_dim, i64)},
        ),
        index_vector_dim,
    )


def unbatch(op: Operation, rewriter: Rewriter) -> bool:
    """Rewrite the batching dims of `stablehlo.gather` / `stablehlo.scatter`
    `op` away (module docstring); False when it has none."""
    spec = _FIELDS.get(op.name)
    if spec is None:
        return False
    attr_name, operand_field, indices_field, map_field, collapsed_field, position = spec
    dnums = _attr(op, attr_name)
    if dnums is None:
        return False
    values = dict(dnums.field_items())  # type: ignore[attr-defined]  # the op's constraint: a gather/scatter dimension-numbers attribute
    operand_batching = list(values.get(operand_field, ()))
    indices_batching = list(values.get(indices_field, ()))
    if not operand_batching:
        return False
    if len(operand_batching) != len(indices_batching):
        raise ValueError(f"'{op.name}': {operand_field} and {indices_field} differ in length")
    index = position if position is not None else (len(op.operands) - 1) // 2
    b = MhloBuilder(rewriter, op)
    indices, vector_dim = _with_positions(
        b, op.operands[index], int(values["index_vector_dim"]), indices_batching
    )
    op.operands[index] = indices
    values[map_field] = [*values[map_field], *operand_batching]
    values[collapsed_field] = sorted([*values[collapsed_field], *operand_batching])
    values[operand_field] = []
    values[indices_field] = []
    values["index_vector_dim"] = vector_dim
    _set_attr(op, attr_name, type(dnums).from_fields(**values))  # type: ignore[attr-defined]  # the op's constraint: a gather/scatter dimension-numbers attribute
    return True


__all__ = ["unbatch"]
