"""Lower some specific ops to library calls (modeled by `disc_ral.dispatch` ops).

`disc-lower-to-library-call{gpu-enabled=true}`, BladeDISC's
DiscLowerToLibraryCallPass (disc_lower_to_library_call.cc), applied to each
function greedily with folding (MLIR's applyPatternsAndFoldGreedily; the
constants the patterns make are uniqued and hoisted). Functions marked
`disc.comp_intens_fusion` are skipped. Every dispatch takes the function's
`!disc_ral.context` (argument #0) first; `stream` below is the default GPU
stream handle, `llvm.inttoptr` of `llvm.mlir.constant(0 : i32)` to `!llvm.ptr<i8>`
(made for CPU calls too, as BladeDISC does). The rewrites (target, device,
operands after the context):

- `disc_ral.recv_input` / `send_output` -> `ral_recv_input` /
  `ral_send_output`, cpu, same operands;
- `lmhlo_disc.h2d` / `d2h` (outside fusions) -> `h2d` / `d2h`, gpu,
  (stream, from, to), then `sync_on_stream`, gpu, (stream);
- `lmhlo.dot_general` / `lmhlo_disc.quantized_dot_general` -> `ral_gemm` /
  `ral_qgemm` (batched when rank > 2), (stream, operands..., lhs_transposed:
  i1, rhs_transposed: i1, weight_is_const: i1); one contracting dimension
  among the last two, batching dimensions before them; device of operand #2;
- `lmhlo.convolution` -> `ral_conv`, (stream, input, kernel, padding:
  memref<2(N-2)xi32>, output, metadata); `lmhlo.dynamic_conv` /
  `lmhlo_disc.quantized_dynamic_conv` -> `ral_conv` / `ral_qconv`,
  (stream, operands..., metadata), device of operand #0. The metadata is a
  `memref<3N+2(N-2)+1 x i32>` alloca holding the input layout (batch, feature,
  spatial dims), kernel layout (in feature, out feature, spatial), output
  layout, window strides, rhs dilations (1 when absent) and whether the
  kernel is a constant buffer;
- `lmhlo.transpose` of f32 or f64 elements, of rank 2, or rank 3 with
  permutation [0, 2, 1], on the GPU and outside fusions -> `ral_transpose`,
  gpu, (stream, input, permutation: memref<Nxi32> alloca, output) (other
  element types stay for code generation: disc-ir's RAL transposes with
  cuBLAS geam);
- `lmhlo.copy` / `reshape` / `dynamic_reshape` whose output can alias the
  input (see `_copy_removable_result`) -> `%r = inc_ref`, (stream, input,
  shape: memref<Nxindex> alloca of the output's dims) returning the output
  type, then a `memref.reinterpret_cast` of `%r` to the output's shape with
  row-major strides replaces the output in the users after the op (a dealloc
  of the new view is added before the dealloc of the output's root buffer
  when the output is a view of it);
- `lmhlo_disc.custom_call` by `call_target_name` (backend_config JSON or
  dictionary): `topk` -> `ral_dsort` (stream, operands..., dimension: i64,
  is_ascending: i1 false), `rng_uniform` -> `ral_gpu_rng_uniform` (stream,
  operands..., unique id: i64, seed: i64, seed2: i64), `sparse_gemm` ->
  `sparse_gemm` (stream, operands..., lhs/rhs contracting dim: i32); other
  targets are an error;
- `lmhlo_disc.custom_call_v2` -> its `call_target_name` with (stream,
  operands...), its results, gpu when `device` is `d` (or `x` with
  gpu-enabled), and `backend_config` = the `custom_attrs` serialized as
  BladeDISC serializes them (`_emit_attr`).

`gpu-enabled=false` is BladeDISC's CPU-only build for the copy removal: a
copy-like op is removed when neither buffer is a small (<= 128 bytes,
static) host buffer.
"""

from __future__ import annotations

import itertools
import json
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects import arith, builtin, memref
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import DiagnosticException

from disc_ir.analysis.block_order import BlockOrder, OpOrder
from disc_ir.analysis.buffer_alias import is_view_like
from disc_ir.analysis.placement import is_gpu_memref
from disc_ir.analysis.ral_context import context_of, default_stream_ops, is_comp_intens_fusion_func
from disc_ir.dialects.disc_ral import DispatchOp
from disc_ir.dialects.hlo_attrs import ConvDimensionNumbersAttr, DotDimensionNumbersAttr, ints
from disc_ir.ir import builders
from disc_ir.ir.attrs import inherent_attr
from disc_ir.ir.walk import preorder_ops
from disc_ir.passes.registry import register_pass
from disc_ir.rewriting.canonicalization import apply_canonicalization
from disc_ir.rewriting.greedy import GreedyConfig

SMALL_BUFFER_BYTES = 128

# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def _in_fusion(op: Operation) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if parent.name == "lmhlo.fusion":
            return True
        parent = parent.parent_op()
    return False


def _device(value: SSAValue) -> str:
    return "gpu" if isinstance(value.type, MemRefType) and is_gpu_memref(value) else "cpu"


def _stream(op: Operation, rewriter: PatternRewriter) -> SSAValue:
    zero, handle = default_stream_ops()
    rewriter.insert([zero, handle], InsertPoint.before(op))
    return handle.results[0]


def _const(rewriter: PatternRewriter, op: Operation, value: int, type_: Attribute) -> SSAValue:
    if type_ == i1:
        c = builders.constant(IntegerAttr(1 if value else 0, i1))
    else:
        c = builders.constant(IntegerAttr(value, type_))  # type: ignore[call-overload]  # callers pass an integer or index type
    rewriter.insert(c, InsertPoint.before(op))
    return c.result


def _int_buffer(
    rewriter: PatternRewriter, op: Operation, values: Sequence[int], element: Attribute = i32
) -> SSAValue:
    """A `memref<Nxelement>` alloca before `op` holding `values`."""
    buf = memref.AllocaOp.get(element, shape=[len(values)])
    rewriter.insert(buf, InsertPoint.before(op))
    for i, v in enumerate(values):
        value = _const(rewriter, op, v, element)
        index = _const(rewriter, op, i, IndexType())
        rewriter.insert(memref.StoreOp.get(value, buf.memref, [index]), InsertPoint.before(op))
    return buf.memref


def _root_memref(value: SSAValue) -> SSAValue:
    while isinstance(value.owner, Operation) and is_view_like(value.owner):
        value = value.owner.operands[0]
    return value


def _data_users(value: SSAValue) -> list[Operation]:
    """BladeDISC's getValueUsers: users of the buffer and its views but dims/deallocs/shape_of."""
    root = _root_memref(value)
    users: list[Operation] = []
    work = [root]
    seen = {root}
    while work:
        current = work.pop()
        for use in current.uses:
            user = use.operation
            if user.name in ("memref.dim", "memref.dealloc", "shape.shape_of"):
                continue
            if is_view_like(user):
                if user.results[0] not in seen:
                    seen.add(user.results[0])
                    work.append(user.results[0])
            else:
                users.append(user)
    return users


def is_constant_memref(value: SSAValue) -> bool:
    """The underlying buffer of `value` is written by an `lmhlo.constant`."""
    return any(u.name == "lmhlo.constant" for u in _data_users(value))


def _memref_type(value: SSAValue, op: Operation) -> MemRefType:
    if not isinstance(value.type, MemRefType):
        raise DiagnosticException(f"'{op.name}' op: expected a ranked memref, got {value.type}")
    return value.type


def _dispatch(
    rewriter: PatternRewriter,
    op: Operation,
    ctx: SSAValue,
    args: Sequence[SSAValue],
    target: str,
    device: str,
    result_types: Sequence[Attribute] = (),
    backend_config: str | bytes = "",
) -> DispatchOp:
    d = DispatchOp(ctx, list(args), list(result_types), target, device, False, backend_config)
    rewriter.insert(d, InsertPoint.before(op))
    return d


# ---------------------------------------------------------------------------
# recv_input / send_output, h2d / d2h
# ---------------------------------------------------------------------------


class RecvInputToDispatch(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        d = _dispatch(
            rewriter,
            op,
            op.operands[0],
            op.operands[1:],
            "ral_recv_input",
            "cpu",
            [op.results[0].type],
        )
        rewriter.replace(op, [], d.results)


class SendOutputToDispatch(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        _dispatch(rewriter, op, op.operands[0], op.operands[1:], "ral_send_output", "cpu")
        rewriter.erase(op)


@dataclass
class GpuCopyToDispatch(RewritePattern):
    """`h2d` / `d2h`: the copy on the default stream, then a sync on it."""

    target: str

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if _in_fusion(op):
            return
        ctx = context_of(op)
        stream = _stream(op, rewriter)
        _dispatch(rewriter, op, ctx, [stream, *op.operands], self.target, "gpu")
        _dispatch(rewriter, op, ctx, [stream], "sync_on_stream", "gpu")
        rewriter.erase(op)


# ---------------------------------------------------------------------------
# gemm
# ---------------------------------------------------------------------------


@dataclass
class DotGeneralLikeToDispatch(RewritePattern):
    """`dot_general` -> `ral_gemm`, `quantized_dot_general` -> `ral_qgemm`."""

    target: str

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        ctx = context_of(op)
        dims = op.attributes.get("dot_dimension_numbers")
        if not isinstance(dims, DotDimensionNumbersAttr):
            raise DiagnosticException(f"'{op.name}' op: missing dot_dimension_numbers")
        rank = _memref_type(op.operands[0], op).get_num_dims()
        lhs_batch, rhs_batch = dims.lhs_batching, dims.rhs_batching
        if len(lhs_batch) != len(rhs_batch):
            raise DiagnosticException(f"'{op.name}' op: unmatched batch dims size.")
        if any(d >= rank - 2 for d in (*lhs_batch, *rhs_batch)):
            raise DiagnosticException(f"'{op.name}' op: unsupported batch dims.")
        lhs_c, rhs_c = dims.lhs_contracting, dims.rhs_contracting
        if len(lhs_c) != 1 or len(rhs_c) != 1:
            raise DiagnosticException(
                f"'{op.name}' op: DotGeneralOp only supports 1 dimensional contracting."
            )
        if lhs_c[0] not in (rank - 1, rank - 2) or rhs_c[0] not in (rank - 1, rank - 2):
            raise DiagnosticException(
                f"'{op.name}' op: DotGeneral only support contracting through the last "
                "two dimensions."
            )
        stream = _stream(op, rewriter)
        flags = [
            _const(rewriter, op, int(lhs_c[0] == rank - 2), i1),
            _const(rewriter, op, int(rhs_c[0] == rank - 1), i1),
            _const(rewriter, op, int(is_constant_memref(op.operands[1])), i1),
        ]
        device = _device(op.operands[2])
        _dispatch(rewriter, op, ctx, [stream, *op.operands, *flags], self.target, device)
        rewriter.erase(op)


# ---------------------------------------------------------------------------
# convolution
# ---------------------------------------------------------------------------


def conv_metadata_fields(op: Operation, rank: int) -> list[int]:
    """BladeDISC's GetConvMetadata fields (see the module docstring)."""
    dn = op.attributes.get("dimension_numbers")
    if not isinstance(dn, ConvDimensionNumbersAttr):
        raise DiagnosticException(f"'{op.name}' op: missing dimension_numbers")
    spatial = rank - 2
    fields: list[int] = []
    fields += [dn.field("input_batch_dimension"), dn.field("input_feature_dimension")]  # type: ignore[list-item]  # scalar fields are ints
    fields += list(dn.field("input_spatial_dimensions"))  # type: ignore[arg-type]  # a dims field: always a tuple
    fields += [
        dn.field("kernel_input_feature_dimension"),  # type: ignore[list-item]  # scalar fields are ints
        dn.field("kernel_output_feature_dimension"),  # type: ignore[list-item]  # scalar fields are ints
    ]
    fields += list(dn.field("kernel_spatial_dimensions"))  # type: ignore[arg-type]  # a dims field: always a tuple
    fields += [dn.field("output_batch_dimension"), dn.field("output_feature_dimension")]  # type: ignore[list-item]  # scalar fields are ints
    fields += list(dn.field("output_spatial_dimensions"))  # type: ignore[arg-type]  # a dims field: always a tuple
    for name in ("window_strides", "rhs_dilation"):
        values = list(ints(inherent_attr(op, name)))
        fields += values if values else [1] * spatial
    fields.append(int(is_constant_memref(op.operands[1])))
    return [int(f) for f in fields]


class ConvToDispatch(RewritePattern):
    """`lmhlo.convolution` (static padding) -> `ral_conv`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        ctx = context_of(op)
        rank = _memref_type(op.operands[2], op).get_num_dims()
        stream = _stream(op, rewriter)
        padding = list(ints(op.attributes.get("padding")))
        if not padding:
            padding = [0] * (2 * (rank - 2))
        pad_buf = _int_buffer(rewriter, op, padding)
        metadata = _int_buffer(rewriter, op, conv_metadata_fields(op, rank))
        lhs, rhs, out = op.operands[0], op.operands[1], op.operands[2]
        args = [stream, lhs, rhs, pad_buf, out, metadata]
        _dispatch(rewriter, op, ctx, args, "ral_conv", _device(out))
        rewriter.erase(op)


@dataclass
class DynamicConvLikeToDispatch(RewritePattern):
    """`dynamic_conv` -> `ral_conv`, `quantized_dynamic_conv` -> `ral_qconv`."""

    target: str

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        ctx = context_of(op)
        rank = _memref_type(op.operands[-1], op).get_num_dims()
        stream = _stream(op, rewriter)
        metadata = _int_buffer(rewriter, op, conv_metadata_fields(op, rank))
        device = _device(op.operands[0])
        operands = list(op.operands)
        padding = _memref_type(operands[2], op)
        if padding.get_num_dims() == 2 and -1 not in padding.get_shape():
            # StableHLO's `[[low, high], ...]` padding: ral_conv takes it flattened
            flat = MemRefType(padding.get_element_type(), [padding.get_shape()[0] * 2])
            operands[2] = cast_memref_to(rewriter, op, operands[2], flat, [])
        _dispatch(rewriter, op, ctx, [stream, *operands, metadata], self.target, device)
        rewriter.erase(op)


# ---------------------------------------------------------------------------
# transpose
# ---------------------------------------------------------------------------


class TransposeToDispatch(RewritePattern):
    """A 2-D transpose or a [0, 2, 1] 3-D one on the GPU -> `ral_transpose`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        perm = list(ints(op.attributes.get("permutation")))
        if len(perm) not in (2, 3) or (len(perm) == 3 and perm[1:] != [2, 1]):
            return
        if _in_fusion(op) or _device(op.operands[0]) != "gpu":
            return
        element = getattr(op.operands[0].type, "element_type", None)
        if element not in (builtin.f32, builtin.f64):
            return
        ctx = context_of(op)
        stream = _stream(op, rewriter)
        perm_buf = _int_buffer(rewriter, op, perm)
        args = [stream, op.operands[0], perm_buf, op.operands[1]]
        _dispatch(rewriter, op, ctx, args, "ral_transpose", "gpu")
        rewriter.erase(op)


# ---------------------------------------------------------------------------
# copy removal (inc_ref)
# ---------------------------------------------------------------------------


def _is_small_cpu_buffer(value: SSAValue) -> bool:
    t = value.type
    if not isinstance(t, MemRefType) or is_gpu_memref(value):
        return False
    shape = t.get_shape()
    if any(d < 0 for d in shape):
        return False
    element = t.get_element_type()
    width = 64 if isinstance(element, IndexType) else getattr(element, "bitwidth", None)
    if not isinstance(width, int):
        return False
    n = 1
    for d in shape:
        n *= d
    return n * width <= SMALL_BUFFER_BYTES * 8


def _is_inplace_lmhlo(op: Operation) -> bool:
    """BladeDISC's isInplaceOperator: an lmhlo op reading its own output buffer."""
    if op.dialect_name() != "lmhlo" or op.name == "lmhlo.terminator" or not op.operands:
        return False
    out = op.operands[-1]
    return any(v == out for v in op.operands[:-1])


def _copy_removable_result(op: Operation, gpu_enabled: bool) -> SSAValue | None:
    """The output buffer of a copy-like op that may alias its input, else None."""
    if _in_fusion(op):
        return None
    result = op.operands[-1]
    if not isinstance(result.type, MemRefType):
        return None
    if not gpu_enabled:
        if _on_stack(op.operands[0]):
            # promote-buffers-to-stack put the input in the frame (it promotes up
            # to 1 KiB, more than "small" here): an alias of it could outlive the
            # frame (a returned reshape), so the copy stays
            return None
        if not _is_small_cpu_buffer(result) and not _is_small_cpu_buffer(op.operands[0]):
            return result
        return None
    for use in result.uses:
        user = use.operation
        if _is_inplace_lmhlo(user) and user.operands[-1] == result:
            return None
    return result if is_gpu_memref(result) else None


def _on_stack(value: SSAValue) -> bool:
    """Whether `value` is (a view of) a `memref.alloca` buffer."""
    while isinstance(value.owner, Operation) and is_view_like(value.owner):
        value = value.owner.operands[0]
    return isinstance(value.owner, Operation) and value.owner.name == "memref.alloca"


def _root_memref_if_safe(value: SSAValue) -> SSAValue | None:
    """BladeDISC's getRootMemRefIfSafe: the buffer `value` views when no one else uses the views."""
    root = value
    known: set[Operation] = set()
    while isinstance(root.owner, Operation) and is_view_like(root.owner):
        view = root.owner
        known.add(view)
        if root != value:
            for use in root.uses:
                if use.operation.name == "memref.dim" or use.operation in known:
                    continue
                return None
        root = view.operands[0]
    if root != value:
        for use in root.uses:
            user = use.operation
            if user.name in ("memref.dim", "memref.dealloc") or user in known:
                continue
            return None
    return root


def cast_memref_to(
    rewriter: PatternRewriter,
    anchor: Operation,
    source: SSAValue,
    to_type: MemRefType,
    sizes: Sequence[SSAValue],
) -> SSAValue:
    """BladeDISC's CastMemRefTo: a row-major `memref.reinterpret_cast` of `source`."""
    shape = to_type.get_shape()
    rank = len(shape)
    mixed_sizes: list[SSAValue | int] = [
        sizes[i] if shape[i] < 0 else shape[i] for i in range(rank)
    ]
    strides: list[SSAValue | int] = []
    static_stride: int | None = 1
    dynamic_stride: SSAValue | None = None
    for i in reversed(range(rank)):
        if static_stride is not None:
            strides.append(static_stride)
            if shape[i] < 0:
                dynamic_stride = _const(rewriter, anchor, static_stride, IndexType())
                static_stride = None
            else:
                static_stride *= shape[i]
        else:
            assert dynamic_stride is not None
            strides.append(dynamic_stride)
        if dynamic_stride is not None:
            mul = arith.MuliOp(dynamic_stride, sizes[i])
            rewriter.insert(mul, InsertPoint.before(anchor))
            dynamic_stride = mul.result
    strides.reverse()
    cast = memref.ReinterpretCastOp.from_dynamic(source, [0], mixed_sizes, strides, to_type)
    rewriter.insert(cast, InsertPoint.before(anchor))
    return cast.result


@dataclass
class CopyLikeToIncRef(RewritePattern):
    """`lmhlo.copy` / `reshape` / `dynamic_reshape` -> `inc_ref` + reinterpret_cast."""

    gpu_enabled: bool
    #: block order keys, kept across matches (a block's ops keyed once, not per
    #: match). The rewrites insert ops and erase them; the driver only moves
    #: constants (hoisting), which are never asked about here: a stale key of
    #: a moved constant can only make a run of new ops next to it look earlier
    #: than it is, which refuses a rewrite, never allows a wrong one.
    order: OpOrder = field(default_factory=OpOrder)

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        result = _copy_removable_result(op, self.gpu_enabled)
        if result is None:
            return
        root = _root_memref_if_safe(result)
        if root is None:
            return
        block = op.parent_block()
        if block is None:
            return
        blocks = self.order.blocks
        positions = blocks.get(block)
        if positions is None:
            positions = blocks[block] = BlockOrder(block)
        op_pos = positions[op]
        users: list[Operation] = []
        has_dealloc_user = False
        for use in result.uses:
            user = use.operation
            if user is op or user.name == "memref.dim" or user in users:
                continue
            ancestor = block.find_ancestor_op_in_block(user)
            if ancestor is None or positions[ancestor] <= op_pos:
                return
            users.append(user)
            if user.name == "memref.dealloc":
                if has_dealloc_user:
                    return
                has_dealloc_user = True
        root_dealloc: Operation | None = None
        if not has_dealloc_user and root != result:
            for use in root.uses:
                user = use.operation
                if user.name != "memref.dealloc":
                    continue
                if root_dealloc is not None:
                    return
                if user.parent_block() is not block or positions[user] <= op_pos:
                    return
                root_dealloc = user

        ctx = context_of(op)
        stream = _stream(op, rewriter)
        target_type = _memref_type(result, op)
        rank = target_type.get_num_dims()
        shape_buf = memref.AllocaOp.get(IndexType(), shape=[rank], layout=target_type.layout)
        rewriter.insert(shape_buf, InsertPoint.before(op))
        dim_sizes: list[SSAValue] = []
        for i in range(rank):
            idx = _const(rewriter, op, i, IndexType())
            dim = builders.dim(memref.DimOp, result, idx)
            rewriter.insert(dim, InsertPoint.before(op))
            dim_sizes.append(dim.result)
            store = builders.store(dim.result, shape_buf.memref, [idx])
            rewriter.insert(store, InsertPoint.before(op))
        d = _dispatch(
            rewriter,
            op,
            ctx,
            [stream, op.operands[0], shape_buf.memref],
            "inc_ref",
            _device(result),
            [target_type],
        )
        new_value = cast_memref_to(rewriter, op, d.results[0], target_type, dim_sizes)
        owner = result.owner
        if isinstance(owner, Operation) and "disc.symbolic_dims" in owner.attributes:
            new_value.owner.attributes["disc.symbolic_dims"] = owner.attributes[  # type: ignore[union-attr]  # the cast just made: an op result
                "disc.symbolic_dims"
            ]
        user_set = set(users)
        rewriter.replace_uses_with_if(result, new_value, lambda use: use.operation in user_set)
        if root_dealloc is not None:
            rewriter.insert(memref.DeallocOp.get(new_value), InsertPoint.before(root_dealloc))
        rewriter.erase(op)


# ---------------------------------------------------------------------------
# custom calls
# ---------------------------------------------------------------------------

CustomCallLowering = Callable[[Operation, PatternRewriter, SSAValue, SSAValue], None]
"""Lowers one `lmhlo_disc.custom_call` given (op, rewriter, context, stream)."""


def _json_config(op: Operation) -> dict[str, object]:
    attr = op.attributes.get("backend_config")
    text = attr.data if isinstance(attr, StringAttr) else "{}"
    try:
        config = json.loads(text or "{}")
    except json.JSONDecodeError as e:
        raise DiagnosticException(
            f"'{op.name}' op: problem with parsing backend_config of "
            f"{op.attributes['call_target_name']}: {e}"
        ) from e
    if not isinstance(config, dict):
        raise DiagnosticException(f"'{op.name}' op: backend_config must be a JSON object")
    return config


def _config_int(op: Operation, config: dict[str, object], key: str, default: int | None) -> int:
    value = config.get(key, default)
    if not isinstance(value, int):
        raise DiagnosticException(f"'{op.name}' op: backend_config needs an integer '{key}'")
    return value


def _lower_topk(op: Operation, rewriter: PatternRewriter, ctx: SSAValue, stream: SSAValue) -> None:
    config = _json_config(op)
    dimension = _const(rewriter, op, _config_int(op, config, "dimension", None), i64)
    ascending = _const(rewriter, op, 0, i1)
    device = _device(op.operands[3]) if len(op.operands) > 3 else "cpu"
    _dispatch(rewriter, op, ctx, [stream, *op.operands, dimension, ascending], "ral_dsort", device)


def _lower_rng_uniform(
    op: Operation, rewriter: PatternRewriter, ctx: SSAValue, stream: SSAValue
) -> None:
    config = _json_config(op)
    module = op.get_toplevel_object()
    counter = _RNG_IDS.setdefault(id(module), itertools.count())
    extra = [
        _const(rewriter, op, next(counter), i64),
        _const(rewriter, op, _config_int(op, config, "seed", 0), i64),
        _const(rewriter, op, _config_int(op, config, "seed2", 0), i64),
    ]
    device = _device(op.operands[3]) if len(op.operands) > 3 else "cpu"
    _dispatch(rewriter, op, ctx, [stream, *op.operands, *extra], "ral_gpu_rng_uniform", device)


_RNG_IDS: dict[int, itertools.count[int]] = {}


def _lower_sparse_gemm(
    op: Operation, rewriter: PatternRewriter, ctx: SSAValue, stream: SSAValue
) -> None:
    if len(op.operands) < 3:
        raise DiagnosticException(f"'{op.name}' op: mismatch #operands or #results")
    config = op.attributes.get("backend_config")
    if not isinstance(config, DictionaryAttr):
        raise DiagnosticException(f"'{op.name}' op: sparse_gemm needs a dictionary backend_config")
    extra: list[SSAValue] = []
    for key in ("lhs_contracting_dimensions", "rhs_contracting_dimensions"):
        value = config.data.get(key)
        if not isinstance(value, IntegerAttr):
            raise DiagnosticException(f"'{op.name}' op: backend_config needs '{key}'")
        extra.append(_const(rewriter, op, value.value.data, i32))
    device = _device(op.operands[0])
    _dispatch(rewriter, op, ctx, [stream, *op.operands, *extra], "sparse_gemm", device)


CUSTOM_CALL_LOWERINGS: dict[str, CustomCallLowering] = {
    "topk": _lower_topk,
    "rng_uniform": _lower_rng_uniform,
    "sparse_gemm": _lower_sparse_gemm,
}
"""BladeDISC's CustomCallRegistry lowerings, by `call_target_name`."""


class CustomCallToDispatch(RewritePattern):
    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        ctx = context_of(op)
        name_attr = op.attributes.get("call_target_name")
        target = name_attr.data if isinstance(name_attr, StringAttr) else ""
        lowering = CUSTOM_CALL_LOWERINGS.get(target)
        if lowering is None:
            raise DiagnosticException(
                f"'{op.name}' op: custom call {target} is not implemented in lowering to "
                "library calls."
            )
        stream = _stream(op, rewriter)
        lowering(op, rewriter, ctx, stream)
        rewriter.erase(op)


def _emit_string(text: bytes, out: bytearray) -> None:
    out += struct.pack("<q", len(text))
    out += text


def _emit_attr(attr: Attribute, out: bytearray) -> bool:
    """BladeDISC's emitAttr: the binary form of a custom_call_v2 attribute (little-endian)."""
    if isinstance(attr, DictionaryAttr):
        _emit_string(b"dict", out)
        out += struct.pack("<q", len(attr.data))
        for key, value in sorted(attr.data.items()):
            _emit_string(key.encode("utf-8"), out)
            if not _emit_attr(value, out):
                return False
        return True
    if isinstance(attr, StringAttr):
        _emit_string(b"str", out)
        _emit_string(attr.data.encode("utf-8"), out)
        return True
    if isinstance(attr, BytesAttr):
        _emit_string(b"str", out)
        _emit_string(attr.data, out)
        return True
    if isinstance(attr, IntegerAttr) and isinstance(attr.type, IntegerType):
        if attr.type.width.data == 1:
            _emit_string(b"bool", out)
            out += struct.pack("<?", bool(attr.value.data))
        else:
            _emit_string(b"int", out)
            out += struct.pack("<q", attr.value.data)
        return True
    if isinstance(attr, IntegerAttr):
        _emit_string(b"int", out)
        out += struct.pack("<q", attr.value.data)
        return True
    if isinstance(attr, FloatAttr):
        _emit_string(b"float", out)
        out += struct.pack("<d", float(attr.value.data))
        return True
    if isinstance(attr, DenseIntOrFPElementsAttr):
        return _emit_dense(attr, out)
    if isinstance(attr, ArrayAttr):
        items = list(attr.data)
        if all(
            isinstance(v, IntegerAttr)
            and isinstance(v.type, IntegerType)
            and v.type.width.data == 64
            for v in items
        ):
            _emit_string(b"intArray", out)
            out += struct.pack("<q", len(items))
            for v in items:
                out += struct.pack("<q", v.value.data)
            return True
        _emit_string(b"array", out)
        out += struct.pack("<q", len(items))
        return all(_emit_attr(v, out) for v in items)
    return False


def _emit_dense(attr: DenseIntOrFPElementsAttr, out: bytearray) -> bool:
    from disc_ir.runtime.ral_metadata import dense_raw_data

    raw = dense_raw_data(attr)
    if raw is None:
        return False
    kind, width, data, splat = raw
    _emit_string(b"denseElementsAttr", out)
    _emit_string(kind.encode(), out)
    out += struct.pack("<I", width)
    shape = attr.get_shape()
    out += struct.pack("<q", len(shape))
    for d in shape:
        out += struct.pack("<q", d)
    out += struct.pack("<?", splat)
    _emit_string(data, out)
    return True


def serialize_custom_attrs(attr: Attribute) -> bytes | None:
    """The `custom_attrs` of a custom_call_v2 as BladeDISC serializes them (None: unsupported)."""
    out = bytearray()
    return bytes(out) if _emit_attr(attr, out) else None


@dataclass
class CustomCallV2ToDispatch(RewritePattern):
    gpu_enabled: bool

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        ctx = context_of(op)
        custom_attrs = op.attributes.get("custom_attrs", DictionaryAttr({}))
        config = serialize_custom_attrs(custom_attrs)
        if config is None:
            raise DiagnosticException(
                f"'{op.name}' op: fail to lower the custom_attrs of the custom call op."
            )
        stream = _stream(op, rewriter)
        dev_attr = op.attributes.get("device")
        dev = dev_attr.data if isinstance(dev_attr, StringAttr) else ""
        on_gpu = dev == "d" or (dev == "x" and self.gpu_enabled)
        name = op.attributes["call_target_name"]
        assert isinstance(name, StringAttr)
        d = _dispatch(
            rewriter,
            op,
            ctx,
            [stream, *op.operands],
            name.data,
            "gpu" if on_gpu else "cpu",
            [r.type for r in op.results],
            config,
        )
        rewriter.replace(op, [], d.results)


# ---------------------------------------------------------------------------
# The pass
# ---------------------------------------------------------------------------


def library_call_patterns(gpu_enabled: bool) -> dict[str, tuple[RewritePattern, ...]]:
    """The patterns of the pass, by the op name they match."""
    copy_like = CopyLikeToIncRef(gpu_enabled)
    return {
        "disc_ral.recv_input": (RecvInputToDispatch(),),
        "disc_ral.send_output": (SendOutputToDispatch(),),
        "lmhlo_disc.h2d": (GpuCopyToDispatch("h2d"),),
        "lmhlo_disc.d2h": (GpuCopyToDispatch("d2h"),),
        "lmhlo.dot_general": (DotGeneralLikeToDispatch("ral_gemm"),),
        "lmhlo_disc.quantized_dot_general": (DotGeneralLikeToDispatch("ral_qgemm"),),
        "lmhlo.convolution": (ConvToDispatch(),),
        "lmhlo.dynamic_conv": (DynamicConvLikeToDispatch("ral_conv"),),
        "lmhlo_disc.quantized_dynamic_conv": (DynamicConvLikeToDispatch("ral_qconv"),),
        "lmhlo.transpose": (TransposeToDispatch(),),
        "lmhlo.copy": (copy_like,),
        "lmhlo.reshape": (copy_like,),
        "lmhlo.dynamic_reshape": (copy_like,),
        "lmhlo_disc.custom_call": (CustomCallToDispatch(),),
        "lmhlo_disc.custom_call_v2": (CustomCallV2ToDispatch(gpu_enabled),),
    }


@register_pass
@dataclass(frozen=True)
class DiscLowerToLibraryCallPass(ModulePass):
    """Lower some specific ops to library calls (modeled by `disc_ral.dispatch` ops)."""

    name = "disc-lower-to-library-call"

    gpu_enabled: bool = True

    OPTION_HELP: ClassVar[dict[str, str]] = {
        "gpu-enabled": "whether gpu is available.",
    }

    def apply(self, ctx: Context, op: builtin.ModuleOp) -> None:
        table = library_call_patterns(self.gpu_enabled)

        def patterns(o: Operation) -> Sequence[RewritePattern]:
            return table.get(o.name, ())

        funcs = [f for f in preorder_ops(op) if f.name == "func.func" and f.regions[0].blocks]
        for f in funcs:
            if is_comp_intens_fusion_func(f):
                continue
            if not apply_canonicalization(ctx, f, GreedyConfig(), patterns=patterns):
                raise DiagnosticException(
                    "applyPatternsAndFoldGreedily does not converge in disc-lower-to-library-call"
                )


__all__ = [
    "CUSTOM_CALL_LOWERINGS",
    "DiscLowerToLibraryCallPass",
    "cast_memref_to",
    "conv_metadata_fields",
    "is_constant_memref",
    "library_call_patterns",
    "serialize_custom_attrs",
]
