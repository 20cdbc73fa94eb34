"""`@stablehlo.dynamic_reduce_window` of a fixed window: a pad, then a reduce_window.

jax writes `lax.reduce_window` over a shape-polymorphic axis with `"SAME"`
padding (max or average pooling of an image of any size) as StableHLO's
`dynamic_reduce_window` custom call: the padding depends on the axis length,
so it is a run-time operand, while the window dimensions, strides and
dilations are constants. `expand_padded_reduce_windows(module)` rewrites such
a call (one input, every window dimension, stride and dilation a constant) as

    padded = dynamic_pad(x, init, low, high, interior = base_dilation - 1)
    out    = reduce_window(padded, init): the call's window, strides and
             window dilations, no padding, no base dilation, its reducer

which is the same by XLA's reduce_window semantics: padding and base
dilation put `init` around and between the elements. The run-time padding
is checked to be non-negative (a shape assertion naming it; jax's is). Run
after `expand_cumulative_reduce_windows` (whose calls have a run-time
window); calls of other forms are left to `reject_dynamic_custom_calls`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    i64,
)
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from disc_ir.dialects.hlo_attrs import i64_elements
from disc_ir.frontends.cumulative_reduce_window import (
    TARGET,
    Element,
    as_i64_scalar,
    dynamic_reduce_window_calls,
    reducer_region,
    window_operand_elements,
)
from disc_ir.ir.mhlo_builder import MhloBuilder


def _vector(b: MhloBuilder, elements: list[Element]) -> SSAValue:
    """A `tensor<Nxi64>` of constants and run-time scalars."""
    parts: list[SSAValue] = []
    for e in elements:
        if isinstance(e, int):
            attr = DenseIntOrFPElementsAttr.from_list(TensorType(i64, [1]), [e])
            parts.append(b.op("mhlo.constant", [], attr.type, {"value": attr}))
        else:
            parts.append(b.op("mhlo.reshape", [as_i64_scalar(b, e)], TensorType(i64, [1])))
    return b.concat_i64(parts)


def _expand(module: ModuleOp, op: Operation, rewriter: Rewriter) -> bool:
    from disc_ir.dialects.mhlo import ReduceWindowOp
    from disc_ir.frontends.stablehlo import shape_assertion_call

    if len(op.operands) != 7 or len(op.results) != 1:
        return False
    x, init = op.operands[0], op.operands[1]
    t, out_t = x.type, op.results[0].type
    if not isinstance(t, TensorType) or not isinstance(out_t, TensorType):
        return False
    rank = len(t.get_shape())
    window, strides, base, dilation, padding = (window_operand_elements(v) for v in op.operands[2:])
    if window is None or strides is None or base is None or dilation is None or padding is None:
        return False
    fixed: list[list[int]] = []
    for elements in (window, strides, base, dilation):
        ints = [e for e in elements if isinstance(e, int)]
        if len(ints) != rank or len(elements) != rank or any(e < 1 for e in ints):
            return False
        fixed.append(ints)
    window_i, strides_i, base_i, dilation_i = fixed
    if len(padding) != 2 * rank or any(isinstance(e, int) and e < 0 for e in padding):
        return False
    region = reducer_region(module, op)
    if region is None:
        return False
    b = MhloBuilder(rewriter, op)

    # run-time check: the padding is not negative
    runtime = [as_i64_scalar(b, e) for e in padding if not isinstance(e, int)]
    if runtime:
        ok: SSAValue | None = None
        for value in runtime:
            ge = b.compare("GE", value, b.const(0, value), "SIGNED")
            ok = ge if ok is None else b.binary("and", ok, ge)
        assert ok is not None
        shown = b.concat_i64([b.op("mhlo.reshape", [v], TensorType(i64, [1])) for v in runtime])
        got = ", ".join(f"{{{i}}}" for i in range(len(runtime)))
        message = StringAttr(f"{TARGET}: its run-time padding must not be negative; got {got}")
        check = shape_assertion_call(ok, shown, message)
        check.location = op.location
        rewriter.insert_op(check, InsertPoint.before(op))
    low = _vector(b, padding[0::2])
    high = _vector(b, padding[1::2])
    interior = _vector(b, [e - 1 for e in base_i])
    padded = b.op(
        "mhlo.dynamic_pad",
        [x, init, low, high, interior],
        TensorType(t.get_element_type(), [DYNAMIC_INDEX] * rank),
    )
    reduce = ReduceWindowOp.create(
        operands=[padded, init],
        result_types=[out_t],
        attributes={
            "window_dimensions": i64_elements(window_i),
            "window_strides": i64_elements(strides_i),
            "window_dilations": i64_elements(dilation_i),
        },
        regions=[region],
    )
    reduce.location = op.location
    rewriter.insert_op(reduce, InsertPoint.before(op))
    rewriter.replace_op(op, [], [reduce.results[0]])
    return True


def expand_padded_reduce_windows(module: ModuleOp) -> None:
    """Rewrite the fixed-window `@stablehlo.dynamic_reduce_window` calls of `module` (module doc)."""
    rewriter = Rewriter()
    for op in dynamic_reduce_window_calls(module):
        _expand(module, op, rewriter)


__all__ = ["expand_padded_reduce_windows"]
