"""`disc-element-type-converter`: change the element type ops compute in, with `mhlo.convert`s around them.

BladeDISC's ElementTypeConverterPass (element_type_converter.cc). Each rule
converts an op's operands, computes the op in another element type and
converts its results back, so the op's users see the types they had:

- always: a rank-2 `mhlo.reduce` over one dimension of i1, i8 or i16 (one
  input, a body of one binary op) reduces in i32 (the GPU's column
  reductions accumulate with 32-bit atomics). Exact: i8/i16 add and mul wrap
  alike after the truncating convert back; max and min compare the extended
  values. Where BladeDISC computes a wrong answer this pass does not: it
  turns `and`/`or` bodies into `min`/`max`, which is right for i1 only
  (`3 & 5` is 1, `min(3, 5)` is 3), so they stay bitwise `and`/`or` here;
  and an i1 `add` is an exclusive or (1 + 1 wraps to 0), which the convert
  back (`!= 0`) would turn into an `or`, so it reduces with `xor`.
- `enable-fp16-gemm`: `mhlo.dot_general` of f32 operands computes in f16.
- `enable-fp16-conv`: `mhlo.convolution` / `mhlo.dynamic_conv` of f32
  operands compute in f16.
- `promote-fp16-sensitive-ops-to-f32`: `mhlo.tanh`, `mhlo.rsqrt` and
  `mhlo.reduce` (every operand and result f16, a body of one add, mul, max
  or min) compute in f32. BladeDISC promotes f16 only; bf16, with three
  fewer significand bits, is promoted the same way here: a bf16 sum of 3000
  ones accumulated in bf16 stops at 256, XLA's (which accumulates in f32)
  gives 3008. `mhlo.reduce_window` (cumulative sums, average pooling) is
  promoted alike, which BladeDISC does not do. Reductions of several inputs
  or with a longer body are left as they are (BladeDISC asserts on them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import builtin
from xdsl.dialects.builtin import BFloat16Type, Float16Type, Float32Type, IntegerType, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.analysis.placement import PLACEMENT_ATTR as PLACEMENT
from disc_ir.dialects import mhlo
from disc_ir.dialects.hlo_attrs import ints
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass

#: reduce bodies a small integer reduction keeps in i32 (op name -> op name in i32)
_INT_BODIES = {
    "mhlo.add": "mhlo.add",
    "mhlo.mul": "mhlo.mul",
    "mhlo.maximum": "mhlo.maximum",
    "mhlo.minimum": "mhlo.minimum",
    "mhlo.and": "mhlo.and",
    "mhlo.or": "mhlo.or",
    "mhlo.xor": "mhlo.xor",
}
#: reduce bodies promoted from f16 / bf16 to f32
_FLOAT_BODIES = ("mhlo.add", "mhlo.mul", "mhlo.maximum", "mhlo.minimum")
#: the low-precision float types `promote-fp16-sensitive-ops-to-f32` promotes
_SENSITIVE_TYPES = (Float16Type, BFloat16Type)


def _element(value: SSAValue) -> Attribute | None:
    t = value.type
    return t.element_type if isinstance(t, TensorType) else None


def _with_element(t: Attribute, element: Attribute) -> Attribute:
    assert isinstance(t, TensorType)
    return TensorType(element, t.get_shape(), t.encoding)


def _op_class(name: str) -> type[Operation]:
    """The mhlo elementwise op class named `name` (`mhlo.add`, `mhlo.convert`, ...)."""
    return next(c for c in mhlo.ELEMENTWISE_OPS if c.name == name)


def _convert(value: SSAValue, element: Attribute, before: Operation) -> SSAValue:
    """`value` converted to `element` before `before`, placed where `before` is (`disc.device`)."""
    placement = before.attributes.get(PLACEMENT)
    convert = _op_class("mhlo.convert").create(
        operands=[value],
        result_types=[_with_element(value.type, element)],
        attributes={PLACEMENT: placement} if placement is not None else {},
    )
    convert.location = before.location
    Rewriter.insert_op(convert, InsertPoint.before(before))
    return convert.results[0]


def _body_op(reduce: Operation) -> Operation | None:
    """The one binary op of a reduce body `^bb(%a, %b): %c = op %a, %b; return %c`, else None."""
    blocks = list(reduce.regions[0].blocks)
    if len(blocks) != 1:
        return None
    ops = list(blocks[0].ops)
    if len(ops) != 2 or len(blocks[0].args) != 2:
        return None
    op, ret = ops
    if (
        len(op.operands) != 2
        or set(op.operands) != set(blocks[0].args)
        or len(op.results) != 1
        or list(ret.operands) != [op.results[0]]
    ):
        return None
    return op


def _replace_computed_in(
    op: Operation, operands: Sequence[SSAValue], element: Attribute, regions: Sequence[Region] = ()
) -> None:
    """Replace `op` by a copy on `operands` whose results have element type `element`,
    converted back to the types `op`'s results had."""
    old_types = [r.type for r in op.results]
    new = type(op).create(
        operands=list(operands),
        result_types=[_with_element(t, element) for t in old_types],
        attributes=dict(op.attributes),
        properties=dict(op.properties),
        regions=list(regions),
    )
    new.location = op.location
    Rewriter.insert_op(new, InsertPoint.before(op))
    results = []
    for value, t in zip(new.results, old_types, strict=True):
        assert isinstance(t, TensorType)
        results.append(_convert(value, t.element_type, op))
    Rewriter.replace_op(op, [], results)


def _reduce_in(reduce: Operation, body_name: str, element: Attribute) -> None:
    """Replace `reduce` by the same reduction computed in `element` (body `body_name`)."""
    operands = [_convert(v, element, reduce) for v in reduce.operands]
    scalar = TensorType(element, [])
    block = Block(arg_types=[scalar, scalar])
    body = _op_class(body_name).create(operands=list(block.args), result_types=[scalar])
    block.add_op(body)
    block.add_op(mhlo.ReturnOp.create(operands=[body.results[0]]))
    _replace_computed_in(reduce, operands, element, [Region(block)])


def convert_small_int_reduce(reduce: Operation) -> bool:
    """Reduce a rank-2, one-dimension i1/i8/i16 reduction in i32 (module doc)."""
    if len(reduce.operands) != 2:
        return False
    element = _element(reduce.operands[0])
    t = reduce.operands[0].type
    if not isinstance(element, IntegerType) or element.width.data >= 32:
        return False
    assert isinstance(t, TensorType)
    if t.get_num_dims() != 2 or len(ints(reduce.attributes["dimensions"])) != 1:
        return False
    body = _body_op(reduce)
    if body is None or body.name not in _INT_BODIES:
        return False
    name = _INT_BODIES[body.name]
    if element.width.data == 1 and name == "mhlo.add":
        name = "mhlo.xor"
    _reduce_in(reduce, name, IntegerType(32))
    return True


def promote_sensitive_reduce(reduce: Operation) -> bool:
    """Compute an all-f16 (or all-bf16) one-op `mhlo.reduce` / `mhlo.reduce_window` in f32."""
    elements = {_element(v) for v in (*reduce.operands, *reduce.results)}
    if len(elements) != 1 or not isinstance(next(iter(elements)), _SENSITIVE_TYPES):
        return False
    if len(reduce.operands) != 2:
        return False
    body = _body_op(reduce)
    if body is None or body.name not in _FLOAT_BODIES:
        return False
    _reduce_in(reduce, body.name, Float32Type())
    return True


def compute_in(
    op: Operation,
    operand_types: Sequence[type[Attribute]],
    element: Attribute,
    n_converted: int | None = None,
) -> bool:
    """Compute `op` in `element`: its first `n_converted` operands (all by default) converted
    when every one of them, and every result, has an element type of `operand_types`."""
    converted = list(op.operands)[: n_converted if n_converted is not None else len(op.operands)]
    checked = [*(_element(v) for v in converted), *(_element(r) for r in op.results)]
    if not checked or not all(isinstance(e, tuple(operand_types)) for e in checked):
        return False
    operands = [_convert(v, element, op) for v in converted] + list(op.operands)[len(converted) :]
    _replace_computed_in(op, operands, element)
    return True


@register_pass
@dataclass(frozen=True)
class DiscElementTypeConverterPass(ModulePass):
    """Eliminates certain element types as the input or output of ops by inserting Convert ops."""

    name = "disc-element-type-converter"
    OPTION_HELP: ClassVar[dict[str, str]] = {
        "enable-fp16-gemm": "compute f32 dot_general in f16",
        "enable-fp16-conv": "compute f32 convolutions in f16",
        "promote-fp16-sensitive-ops-to-f32": "compute f16 (and bf16) tanh, rsqrt, reduce and reduce_window in f32",
    }

    enable_fp16_gemm: bool = False
    enable_fp16_conv: bool = False
    promote_fp16_sensitive_ops_to_f32: bool = False

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for target in preorder_ops(op):
            if target.parent is None:
                continue  # replaced already
            name = target.name
            if name == "mhlo.reduce":
                if convert_small_int_reduce(target):
                    continue
                if self.promote_fp16_sensitive_ops_to_f32:
                    promote_sensitive_reduce(target)
            elif name == "mhlo.reduce_window" and self.promote_fp16_sensitive_ops_to_f32:
                promote_sensitive_reduce(target)
            elif name in ("mhlo.tanh", "mhlo.rsqrt") and self.promote_fp16_sensitive_ops_to_f32:
                compute_in(target, _SENSITIVE_TYPES, Float32Type())
            elif name == "mhlo.dot_general" and self.enable_fp16_gemm:
                compute_in(target, (Float32Type,), Float16Type())
            elif name in ("mhlo.convolution", "mhlo.dynamic_conv") and self.enable_fp16_conv:
                compute_in(target, (Float32Type,), Float16Type(), n_converted=2)
