"""`disc-algebraic-simplifier`: BladeDISC's algebraic simplifications on mhlo.

BladeDISC's DiscAlgebraicSimplifierPass (disc_algebraic_simplifier.cc): the
patterns below are applied greedily, with folding and dead-op removal, to each
function until nothing changes.

- `mhlo.power(x, n)` with `n` a constant (or a broadcast of a scalar
  constant) holding an integer 1 <= n <= 8 (integer, f32 or f64 elements)
  becomes `x * x * ... * x`;
- an `mhlo.broadcast` / `mhlo.broadcast_in_dim` / `mhlo.dynamic_broadcast_in_dim`
  whose operand and result have the same static type, the same symbolic dims
  (`tensor<?x?xf32, [@S0, @S1]>` encodings), or provably equal shapes
  (`disc_ir.analysis.shape_analysis`) with identity broadcast dimensions is
  removed;
- a (dynamic_)broadcast_in_dim of an expand-dims `mhlo.reshape` /
  `mhlo.dynamic_reshape` (only unit dims inserted, matched on static shapes or
  symbolic dims) broadcasts the reshape's input directly;
- `x + 0`, `0 + x`, `x * 1`, `1 * x` (constants possibly broadcast) become
  `x` (`-0.0 + 0.0` then gives -0.0, as in BladeDISC);
- `select(p, x, x)`, `select(true, x, y)`, `select(false, x, y)`, and
  `select(pad(true, false), pad(x, 0), 0)` with equal paddings simplify;
- `convert(convert(x : A) : B) : A` becomes `x` when A -> B is exact;
- `tensor.from_elements(tensor.extract(t))` becomes `mhlo.reshape t` (0-d `t`)
  or `t` itself (a 1-element 1-d `t`, through a `tensor.cast`);
- `arith.trunci(arith.index_cast(i : index -> i64) -> i32)` becomes one
  `index_cast` to i32 and `index_cast(index_cast(x))` back to `x`'s type
  through a type at least as wide becomes `x` (the inner cast used once);
- `mhlo.get_dimension_size` becomes `tensor.dim` + `arith.index_cast` in a
  `tensor.from_elements`, and the scalar mhlo add/multiply/subtract/divide
  computed from it become arith ops on the extracted scalars;
- with `DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL=1`: `rsqrt` / `sqrt` of a
  broadcast splat constant become the broadcast of the folded constant.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, builtin, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    BFloat16Type,
    DenseIntOrFPElementsAttr,
    Float16Type,
    Float32Type,
    Float64Type,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    SymbolRefAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from disc_ir import config
from disc_ir.analysis.shape_analysis import ShapeAnalysis
from disc_ir.dialects.hlo_attrs import i64_elements, ints
from disc_ir.dialects.mhlo import (  # type: ignore[attr-defined]  # mhlo builds its elementwise op classes from a table at import
    BroadcastInDimOp,
    ConstantOp,
    DynamicBroadcastInDimOp,
    MulOp,
    ReshapeOp,
)
from disc_ir.ir import builders
from disc_ir.ir.builders import index_constant
from disc_ir.ir.dense_splat import first_value
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.canonicalization import apply_canonicalization
from disc_ir.rewriting.folding.floats import round_to
from disc_ir.rewriting.greedy import GreedyConfig

_BROADCASTS = ("mhlo.broadcast", "mhlo.broadcast_in_dim", "mhlo.dynamic_broadcast_in_dim")
_MAX_POWER_EXPANSION = 8


# ---------------------------------------------------------------------------
# helpers


def _producer(value: SSAValue, *names: str) -> Operation | None:
    if isinstance(value, OpResult) and (not names or value.op.name in names):
        return value.op
    return None


def _attr(op: Operation, name: str) -> Attribute | None:
    """Attribute `name` of `op`, from its attribute dict or its properties."""
    attr = op.attributes.get(name)
    return op.properties.get(name) if attr is None else attr


def _ranked(value: SSAValue) -> TensorType | None:
    t = value.type
    return t if isinstance(t, TensorType) else None


def _is_static(t: TensorType) -> bool:
    return all(d >= 0 for d in t.get_shape())


def _dense_constant(value: SSAValue) -> DenseIntOrFPElementsAttr | None:
    """The dense elements of an `mhlo.constant` / `arith.constant` defining `value`."""
    op = _producer(value, "mhlo.constant", "arith.constant")
    if op is None:
        return None
    attr = _attr(op, "value")
    return attr if isinstance(attr, DenseIntOrFPElementsAttr) else None


def _single_value(attr: DenseIntOrFPElementsAttr) -> int | float | None:
    """The value of a splat or one-element dense attribute (signed for integers)."""
    if len(attr) == 0 or (len(attr) != 1 and not attr.is_splat()):
        return None
    return first_value(attr)


def all_elements_equal(value: SSAValue, expected: int) -> bool:
    """`value` is a constant, possibly broadcast, whose elements all equal `expected`.

    Integers compare sign-extended (`true` is -1), floats as doubles.
    """
    producer = _producer(value, *_BROADCASTS)
    if producer is not None:
        return all_elements_equal(producer.operands[0], expected)
    attr = _dense_constant(value)
    if attr is None:
        return False
    single = _single_value(attr)
    return single is not None and single == expected


def symbolic_dim_refs(value: SSAValue) -> list[str] | None:
    """The symbols of a ranked tensor's `[@S0, @S1, ...]` encoding, one per dim."""
    t = _ranked(value)
    if t is None or not isinstance(t.encoding, ArrayAttr):
        return None
    names: list[str] = []
    for ref in t.encoding.data:
        if not isinstance(ref, SymbolRefAttr) or ref.nested_references.data:
            return None
        names.append(ref.root_reference.data)
    if len(names) != t.get_num_dims():
        return None
    return names


class _ShapeFacts:
    """A `ShapeAnalysis` of the function, built on first use.

    Facts about values that existed when it was built stay true after
    rewrites; values created later are unknown to it (it answers False).
    """

    def __init__(self, func: Operation):
        self.func = func
        self._analysis: ShapeAnalysis | None = None

    def is_shape_equal(self, a: SSAValue, b: SSAValue) -> bool:
        if self._analysis is None:
            self._analysis = ShapeAnalysis(self.func)
        return self._analysis.is_shape_equal(a, b)


# ---------------------------------------------------------------------------
# patterns


class ExpandPow(RewritePattern):
    """`mhlo.power(x, n)` with a small positive integer constant `n` -> multiplications."""

    @staticmethod
    def _exponent_of_constant(value: SSAValue) -> int | None:
        op = _producer(value, "mhlo.constant")
        if op is None:
            return None
        t = _ranked(value)
        attr = _dense_constant(value)
        if t is None or attr is None or not _is_static(t):
            return None
        single = _single_value(attr)
        if single is None:
            return None
        element = t.element_type
        if isinstance(element, IntegerType | IndexType):
            return int(single)
        if not isinstance(element, Float32Type | Float64Type):
            return None
        if not math.isfinite(single) or float(single) != int(single):
            return None
        return int(single)

    def _exponent(self, op: Operation) -> int | None:
        rhs = op.operands[1]
        producer = _producer(rhs)
        if producer is None:
            return None
        if producer.name == "mhlo.constant":
            return self._exponent_of_constant(rhs)
        if producer.name in _BROADCASTS:
            return self._exponent_of_constant(producer.operands[0])
        return None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        exponent = self._exponent(op)
        if exponent is None or not 0 < exponent <= _MAX_POWER_EXPANSION:
            return
        x = op.operands[0]
        result = x
        for i in range(1, exponent):
            last = i == exponent - 1
            mul = MulOp.create(
                operands=[result, x], result_types=[op.results[0].type if last else x.type]
            )
            rewriter.insert(mul)
            result = mul.results[0]
        rewriter.replace(op, [], [result])


def _identity_dims(op: Operation) -> bool:
    """The broadcast maps operand dim i to result dim i (`mhlo.broadcast`: no new dims)."""
    if op.name == "mhlo.broadcast":
        return not ints(op.attributes.get("broadcast_sizes"))
    dims = list(ints(op.attributes.get("broadcast_dimensions")))
    return dims == list(range(len(dims)))


class IdentityBroadcast(RewritePattern):
    """Remove a broadcast whose operand already has the result's shape."""

    def __init__(self, facts: _ShapeFacts):
        self.facts = facts

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        operand, result = op.operands[0], op.results[0]
        from_type, to_type = _ranked(operand), _ranked(result)
        if from_type is None or to_type is None or not _identity_dims(op):
            return  # (BladeDISC ignores the dims: a permuting "broadcast" would go)
        if _is_static(from_type) and _is_static(to_type) and from_type == to_type:
            rewriter.replace(op, [], [operand])
            return
        from_syms, to_syms = symbolic_dim_refs(operand), symbolic_dim_refs(result)
        if from_syms is not None and to_syms is not None and from_syms == to_syms:
            rewriter.replace(op, [], [operand])
            return
        if from_type.element_type == to_type.element_type and self.facts.is_shape_equal(
            operand, result
        ):
            rewriter.replace(op, [], [operand])


def _expand_dims_map(
    inputs: Sequence[object], outputs: Sequence[object], out_shape: Sequence[int]
) -> dict[int, int] | None:
    """Map each input dim to its output dim when `outputs` is `inputs` with unit dims inserted."""
    dim_map: dict[int, int] = {}
    out_index = 0
    for in_index, item in enumerate(inputs):
        while out_index < len(outputs) and item != outputs[out_index]:
            if out_shape[out_index] != 1:
                return None
            out_index += 1
        if out_index >= len(outputs):
            return None
        dim_map[in_index] = out_index
        out_index += 1
    return dim_map


class BroadcastOfExpandReshape(RewritePattern):
    """Broadcast the input of an expand-dims reshape instead of the reshape."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        reshape_out = op.operands[0]
        reshape = _producer(reshape_out, "mhlo.reshape", "mhlo.dynamic_reshape")
        if reshape is None:
            return
        reshape_in = reshape.operands[0]
        bcast_type = _ranked(op.results[0])
        out_type, in_type = _ranked(reshape_out), _ranked(reshape_in)
        if bcast_type is None or out_type is None or in_type is None:
            return
        if in_type.get_num_dims() >= out_type.get_num_dims():
            return
        out_shape = list(out_type.get_shape())
        if _is_static(out_type) and _is_static(in_type):
            dim_map = _expand_dims_map(list(in_type.get_shape()), out_shape, out_shape)
        else:
            in_syms, out_syms = symbolic_dim_refs(reshape_in), symbolic_dim_refs(reshape_out)
            if in_syms is None or out_syms is None:
                return
            dim_map = _expand_dims_map(in_syms, out_syms, out_shape)
        if dim_map is None:
            return
        old_dims = list(ints(op.attributes.get("broadcast_dimensions")))
        new_dims = [old_dims[dim_map[d]] for d in range(len(dim_map))]
        attrs = {
            k: v
            for k, v in op.attributes.items()
            if k
            not in (
                "broadcast_dimensions",
                "known_expanding_dimensions",
                "known_nonexpanding_dimensions",
            )
        }
        attrs["broadcast_dimensions"] = i64_elements(new_dims)
        cls = BroadcastInDimOp if op.name == "mhlo.broadcast_in_dim" else DynamicBroadcastInDimOp
        new = cls.create(
            operands=[reshape_in, *op.operands[1:]],
            result_types=[op.results[0].type],
            attributes=attrs,
        )
        rewriter.replace(op, new)


class AddZero(RewritePattern):
    """`x + 0` / `0 + x` -> `x`.

    For floats this is BladeDISC's AddZero fold (its test `add_zero_tensor`
    requires it): exact except for the sign of a zero result, `-0.0 + 0.0` is
    +0.0 but the fold gives -0.0 (canonicalize's mhlo.add folder, which is
    exact, folds only `x + -0.0`).
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        lhs, rhs = op.operands
        if all_elements_equal(lhs, 0):
            rewriter.replace(op, [], [rhs])
        elif all_elements_equal(rhs, 0):
            rewriter.replace(op, [], [lhs])


class MulOne(RewritePattern):
    """`x * 1` / `1 * x` -> `x`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        lhs, rhs = op.operands
        if all_elements_equal(lhs, 1):
            rewriter.replace(op, [], [rhs])
        elif all_elements_equal(rhs, 1):
            rewriter.replace(op, [], [lhs])


class SelectSimplifier(RewritePattern):
    """`select` with equal branches, a constant predicate, or a padded all-true mask."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        pred, on_true, on_false = op.operands
        if on_true == on_false:
            rewriter.replace(op, [], [on_true])
            return
        if all_elements_equal(pred, -1):
            rewriter.replace(op, [], [on_true])
            return
        if all_elements_equal(pred, 0):
            rewriter.replace(op, [], [on_false])
            return
        # select(pad(true, false), pad(x, 0), 0) -> pad(x, 0)
        cond = _producer(pred, "mhlo.pad")
        value = _producer(on_true, "mhlo.pad")
        if cond is None or value is None or _producer(on_false, "mhlo.constant") is None:
            return
        if _producer(cond.operands[1], "mhlo.constant") is None:
            return
        for name in ("edge_padding_low", "edge_padding_high", "interior_padding"):
            if ints(cond.attributes.get(name)) != ints(value.attributes.get(name)):
                return
        if (
            all_elements_equal(cond.operands[0], -1)
            and all_elements_equal(cond.operands[1], 0)
            and all_elements_equal(value.operands[1], 0)
            and all_elements_equal(on_false, 0)
        ):
            rewriter.replace(op, [], [on_true])


_FLOAT_FORMATS: dict[type, tuple[int, int]] = {
    Float16Type: (11, 15),
    BFloat16Type: (8, 127),
    Float32Type: (24, 127),
    Float64Type: (53, 1023),
}
"""(significand bits with the implicit one, largest exponent) per float type."""


def _int_range(t: IntegerType) -> tuple[int, int]:
    """The values of integer type `t` as mhlo computes them (i1 and ui* unsigned)."""
    width = t.width.data
    if width == 1 or t.signedness.data == Signedness.UNSIGNED:
        return 0, (1 << width) - 1
    return -(1 << (width - 1)), (1 << (width - 1)) - 1


def is_exact_conversion(source: Attribute, middle: Attribute) -> bool:
    """Every value of element type `source` converts to `middle` and back unchanged.

    Integers: `middle` holds `source`'s range (widening, signedness kept, or
    unsigned into a strictly wider signed type; i1 into any integer). Floats:
    `middle` has at least `source`'s significand and exponent range (not
    f16 <-> bf16). Integer into float: the significand holds every value.
    """
    if isinstance(source, IntegerType) and isinstance(middle, IntegerType):
        low, high = _int_range(source)
        mid_low, mid_high = _int_range(middle)
        return mid_low <= low and high <= mid_high
    src_float = _FLOAT_FORMATS.get(type(source))
    mid_float = _FLOAT_FORMATS.get(type(middle))
    if src_float is not None and mid_float is not None:
        return mid_float[0] >= src_float[0] and mid_float[1] >= src_float[1]
    if isinstance(source, IntegerType) and mid_float is not None:
        low, high = _int_range(source)
        # |v| < 2**precision is exact; the signed minimum is a power of two
        return max(high, -low - 1).bit_length() <= mid_float[0]
    return False


class ConvertOfConvert(RewritePattern):
    """`convert(convert(x : A) : B) : A` -> `x` when converting A to B is exact.

    BladeDISC's ConvertSimplifierPattern (disc_algebraic_simplifier.cc) drops
    any round trip, which truncates nothing: f32 -> i32 -> f32 (a truncation
    toward zero), f32 -> f16/bf16 -> f32, i32 -> i8 -> i32 or i32 -> f32 -> i32
    all change values. Only the exact round trips (`is_exact_conversion`) fold.
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        inner = _producer(op.operands[0], "mhlo.convert")
        if inner is None or inner.operands[0].type != op.results[0].type:
            return
        source, middle = _ranked(inner.operands[0]), _ranked(op.operands[0])
        if source is None or middle is None:
            return
        if is_exact_conversion(source.element_type, middle.element_type):
            rewriter.replace(op, [], [inner.operands[0]])


class FromElementsOfExtract(RewritePattern):
    """`tensor.from_elements(tensor.extract(t))` -> `mhlo.reshape t` / `t`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if len(op.operands) != 1:
            return
        extract = _producer(op.operands[0], "tensor.extract")
        if extract is None:
            return
        source = extract.operands[0]
        source_type, result_type = _ranked(source), _ranked(op.results[0])
        if source_type is None or result_type is None:
            return
        if source_type.get_num_dims() == 0:
            rewriter.replace(op, ReshapeOp.create(operands=[source], result_types=[result_type]))
        elif (
            source_type.get_num_dims() == 1
            and source_type.get_shape()[0] == 1
            and result_type.get_num_dims() == 1
        ):
            rewriter.replace(op, tensor.CastOp(source, result_type))


def _int_width(t: Attribute) -> int | None:
    """The bit width of an integer type, 64 for `index`, None otherwise."""
    if isinstance(t, IndexType):
        return 64
    return t.width.data if isinstance(t, IntegerType) else None


def _is_int_type(t: Attribute, width: int) -> bool:
    return isinstance(t, IntegerType) and t.width.data == width


class TruncIOfIndexCast(RewritePattern):
    """`trunci(index_cast(i : index -> i64) -> i32)` -> `index_cast(i -> i32)`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        value = op.operands[0]
        cast = _producer(value, "arith.index_cast")
        if cast is None:
            return
        source = cast.operands[0]
        if (
            isinstance(source.type, IndexType)
            and _is_int_type(value.type, 64)
            and _is_int_type(op.results[0].type, 32)
            and value.has_one_use()
        ):
            rewriter.replace(op, arith.IndexCastOp(source, op.results[0].type))


class IndexCastRoundTrip(RewritePattern):
    """`index_cast(index_cast(x))` back to `x`'s type -> `x` (the inner cast used once)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        value = op.operands[0]
        inner = _producer(value, "arith.index_cast")
        if inner is None:
            return
        source = inner.operands[0]
        if source.type != op.results[0].type or not value.has_one_use():
            return
        # exact only through a type at least as wide (BladeDISC's
        # IndexCastSimplifierPattern also drops index -> i32 -> index)
        source_width, middle_width = _int_width(source.type), _int_width(value.type)
        if source_width is not None and middle_width is not None and middle_width >= source_width:
            rewriter.replace(op, [], [source])


_SCALAR_ARITH = {
    "mhlo.multiply": arith.MuliOp,
    "mhlo.add": arith.AddiOp,
    "mhlo.subtract": arith.SubiOp,
    "mhlo.divide": arith.DivSIOp,
}
_DIM_SIZE_SINKS = frozenset(
    {"tensor.extract", "func.return", "mhlo.reshape", "mhlo.dynamic_broadcast_in_dim"}
)


def _is_int_scalar_tensor(t: Attribute) -> bool:
    return (
        isinstance(t, TensorType)
        and t.get_num_dims() == 0
        and isinstance(t.element_type, IntegerType | IndexType)
    )


class GetDimensionSizeToDim(RewritePattern):
    """`mhlo.get_dimension_size` and the scalar arithmetic on it -> `tensor.dim` + arith."""

    @staticmethod
    def _scalar_users(op: Operation) -> list[Operation] | None:
        """The scalar arithmetic computing (transitively) from `op`'s result.

        BladeDISC fails the rewrite at any other user than its sinks; here
        any other user (e.g. the `mhlo.compare` of a jax.export shape
        assertion) is a sink as well: it keeps consuming the rebuilt
        `tensor.from_elements` value, which is equivalent.
        """
        found: list[Operation] = []
        seen: set[Operation] = set()
        stack = [use.operation for use in op.results[0].uses]
        while stack:
            user = stack.pop()
            if user.name in _DIM_SIZE_SINKS or user in seen:
                continue
            if user.name not in _SCALAR_ARITH or len(user.operands) != 2:
                continue
            if not all(_is_int_scalar_tensor(v.type) for v in (*user.operands, *user.results)):
                continue
            seen.add(user)
            found.append(user)
            stack.extend(use.operation for r in user.results for use in r.uses)
        return found

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        result_type = _ranked(op.results[0])
        source = op.operands[0]
        if result_type is None or _ranked(source) is None:
            return
        users = self._scalar_users(op)
        # Users other than scalar arithmetic (a compare of JAX's shape
        # assertions, a convert): only the dimension itself is rewritten.
        for user in users or ():
            lhs = tensor.ExtractOp(user.operands[0], [], _element(user.operands[0]))
            rhs = tensor.ExtractOp(user.operands[1], [], _element(user.operands[1]))
            scalar = _SCALAR_ARITH[user.name](lhs, rhs)
            packed = tensor.FromElementsOp(scalar.results[0], result_type=user.results[0].type)
            rewriter.insert([lhs, rhs, scalar, packed], InsertPoint.before(user))
            rewriter.replace_all_uses_with(user.results[0], packed.results[0])
        dim_attr = _attr(op, "dimension")
        assert isinstance(dim_attr, IntegerAttr)
        index = index_constant(dim_attr.value.data)
        dim = builders.dim(tensor.DimOp, source, index.result)
        cast = builders.make(arith.IndexCastOp, [dim.result], [result_type.element_type])
        packed = tensor.FromElementsOp(cast.results[0], result_type=result_type)
        rewriter.replace(op, [index, dim, cast, packed], [packed.results[0]])


def _element(value: SSAValue) -> Attribute:
    t = _ranked(value)
    assert t is not None
    return t.element_type


class FoldBroadcastSqrtOfConstant(RewritePattern):
    """`(r)sqrt(dynamic_broadcast_in_dim(c))` of a splat constant -> broadcast of the folded constant."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        const_type = _ranked(op.results[0])
        attr = _dense_constant(op.results[0])
        if const_type is None or attr is None or not _is_static(const_type):
            return
        value = _single_value(attr)
        if value is None:
            return
        element = const_type.element_type
        for use in list(op.results[0].uses):
            bcast = use.operation
            if bcast.name != "mhlo.dynamic_broadcast_in_dim":
                continue
            for bcast_use in list(bcast.results[0].uses):
                user = bcast_use.operation
                if user.name not in ("mhlo.rsqrt", "mhlo.sqrt"):
                    return  # only (r)sqrt users are handled
                is_rsqrt = user.name == "mhlo.rsqrt"
                if isinstance(element, IntegerType | IndexType):
                    root = int(math.sqrt(int(value)))
                    folded: int | float = (1 // root if root else 0) if is_rsqrt else root
                    dense = DenseIntOrFPElementsAttr.from_list(const_type, [folded])  # type: ignore[type-var]  # `const_type` is the constant's tensor type
                elif isinstance(value, float):
                    root_f = math.sqrt(value) if value >= 0 else math.nan
                    inverse = 1.0 / root_f if root_f else math.copysign(math.inf, root_f)
                    folded = inverse if is_rsqrt else root_f  # rsqrt(-0.0) is -inf
                    rounded = round_to(folded, element)  # once, from the double
                    if rounded is None:
                        continue
                    dense = DenseIntOrFPElementsAttr.from_list(const_type, [rounded])  # type: ignore[type-var]  # `const_type` is the constant's tensor type
                else:
                    continue
                new_const = ConstantOp(dense)  # type: ignore[arg-type]  # `const_type` is the constant's tensor type
                attrs = {
                    k: v for k, v in bcast.attributes.items() if k in ("broadcast_dimensions",)
                }
                new_bcast = DynamicBroadcastInDimOp.create(
                    operands=[new_const.results[0], bcast.operands[1]],
                    result_types=[bcast.results[0].type],
                    attributes=attrs,
                )
                rewriter.insert([new_const, new_bcast], InsertPoint.after(user))
                rewriter.replace(user, [], [new_bcast.results[0]])
                return


def _patterns_for(func: Operation) -> dict[str, tuple[RewritePattern, ...]]:
    facts = _ShapeFacts(func)
    identity = IdentityBroadcast(facts)
    of_reshape = BroadcastOfExpandReshape()
    table: dict[str, tuple[RewritePattern, ...]] = {
        "mhlo.broadcast_in_dim": (of_reshape, identity),
        "mhlo.dynamic_broadcast_in_dim": (of_reshape, identity),
        "mhlo.broadcast": (identity,),
        "mhlo.power": (ExpandPow(),),
        "tensor.from_elements": (FromElementsOfExtract(),),
        "arith.trunci": (TruncIOfIndexCast(),),
        "arith.index_cast": (IndexCastRoundTrip(),),
        "mhlo.get_dimension_size": (GetDimensionSizeToDim(),),
        "mhlo.add": (AddZero(),),
        "mhlo.multiply": (MulOne(),),
        "mhlo.select": (SelectSimplifier(),),
        "mhlo.convert": (ConvertOfConvert(),),
    }
    if config.flag("DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL"):
        table["mhlo.constant"] = (FoldBroadcastSqrtOfConstant(),)
    return table


@register_pass
@dataclass(frozen=True)
class DiscAlgebraicSimplifierPass(ModulePass):
    """Apply some basic algebraic simplification optimizations."""

    name = "disc-algebraic-simplifier"

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        for func in [o for o in preorder_ops(op) if o.name == "func.func"]:
            table = _patterns_for(func)
            apply_canonicalization(
                ctx,
                func,
                GreedyConfig(max_iterations=-1),
                patterns=lambda o, table=table: table.get(o.name, ()),  # type: ignore[misc]  # the default argument binds this function's table
            )
