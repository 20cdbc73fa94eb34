"""Verifiers of the DISC dialects: mhlo_disc, lmhlo_disc, disc_shape, disc_ral.

Each invalid snippet must be rejected with a message naming the problem; the
valid ones (and the builders) must verify.
"""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IndexType, MemRefType, TensorType, f32, i32, i64
from xdsl.utils.test_value import create_ssa_value

from disc_ir.dialects.disc_ral import (
    DispatchOp,
    GetPointerOp,
    RalExecutionContextType,
    RecvInputOp,
    SendOutputOp,
)
from disc_ir.dialects.disc_shape import (
    DYNAMIC_SIZE,
    DelinearizeOp,
    DimOp,
    LinearizeOp,
    SymbolicDimOp,
    TieProductEqualOp,
    TieShapeOp,
)
from disc_ir.dialects.lmhlo_disc import CustomCallOp as LmhloCustomCallOp
from disc_ir.dialects.lmhlo_disc import CustomCallV2Op as LmhloCustomCallV2Op
from disc_ir.dialects.lmhlo_disc import H2DOp as LmhloH2DOp
from disc_ir.dialects.lmhlo_disc import SourceCodeOp
from disc_ir.dialects.mhlo_disc import (
    CustomCallOp,
    CustomCallV2Op,
    H2DOp,
    parse_layouts,
)
from disc_ir.ir.context import make_context
from disc_ir.ir.parser import parse_module
from disc_ir.ir.verify import first_verify_failure


def verify_error(text: str) -> str | None:
    """Parse `text`; return `'<op>' op <message>` of the first failing op."""
    module = parse_module(make_context(), text)
    failure = first_verify_failure(module)
    if failure is None:
        return None
    return f"'{failure[0]}' op {failure[1]}"


def func(args: str, body: str) -> str:
    return f"func.func @f({args}) {{\n{body}\n  return\n}}\n"


def check_valid(text: str) -> None:
    assert verify_error(text) is None


def check_invalid(text: str, *fragments: str) -> None:
    message = verify_error(text)
    assert message is not None, "expected a verification error"
    for fragment in fragments:
        assert fragment in message, message


# ---------------------------------------------------------------------------
# disc_ral
# ---------------------------------------------------------------------------


def test_ral_valid() -> None:
    check_valid(
        func(
            "%ctx: !disc_ral.context, %m: memref<?xf32>",
            """  %c0 = arith.constant 0 : index
  %0 = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?xf32>
  "disc_ral.send_output"(%ctx, %c0, %0) : (!disc_ral.context, index, memref<?xf32>) -> ()
  %1 = "disc_ral.dispatch"(%ctx, %m) {backend_config = "", call_target_name = "x", device = "cpu", has_side_effect = false} : (!disc_ral.context, memref<?xf32>) -> i32
  %2 = "disc_ral.get_pointer"(%m) : (memref<?xf32>) -> i64""",
        )
    )


def test_ral_context_must_be_first_operand() -> None:
    check_invalid(
        func(
            "%ctx: !disc_ral.context",
            """  %c0 = arith.constant 0 : index
  %0 = "disc_ral.recv_input"(%c0, %c0) : (index, index) -> memref<?xf32>""",
        ),
        "'disc_ral.recv_input' op",
        "must be context, but got 'index'",
    )
    check_invalid(
        func(
            "%ctx: !disc_ral.context, %m: memref<?xf32>",
            """  "disc_ral.dispatch"(%m, %ctx) {call_target_name = "x"} : (memref<?xf32>, !disc_ral.context) -> ()""",
        ),
        "must be context",
    )


def test_ral_operand_counts_and_types() -> None:
    check_invalid(
        func(
            "%ctx: !disc_ral.context",
            """  %0 = "disc_ral.recv_input"(%ctx) : (!disc_ral.context) -> memref<?xf32>""",
        ),
        "'disc_ral.recv_input' op",
        "operand",
    )
    check_invalid(
        func(
            "%ctx: !disc_ral.context, %t: tensor<?xf32>",
            """  %c0 = arith.constant 0 : index
  "disc_ral.send_output"(%ctx, %c0, %t) : (!disc_ral.context, index, tensor<?xf32>) -> ()""",
        ),
        "must be memref of any type values, but got 'tensor<?xf32>'",
    )
    check_invalid(
        func(
            "%ctx: !disc_ral.context, %i: i32",
            """  %0 = "disc_ral.recv_input"(%ctx, %i) : (!disc_ral.context, i32) -> memref<?xf32>""",
        ),
        "must be index, but got 'i32'",
    )
    check_invalid(
        func("%m: memref<?xf32>", """  %0 = "disc_ral.get_pointer"(%m) : (memref<?xf32>) -> i32"""),
        "must be 64-bit signless integer, but got 'i32'",
    )


def test_ral_dispatch_requires_call_target_name() -> None:
    check_invalid(
        func(
            "%ctx: !disc_ral.context", """  "disc_ral.dispatch"(%ctx) : (!disc_ral.context) -> ()"""
        ),
        "call_target_name",
    )


def test_ral_cpu_launch_bounds_are_1d_index_memrefs() -> None:
    check_invalid(
        func(
            "%ctx: !disc_ral.context, %b: memref<2xi32>, %i: index",
            """  "disc_ral.cpu_launch"(%ctx, %b, %b, %b, %i) {callee = @k} : (!disc_ral.context, memref<2xi32>, memref<2xi32>, memref<2xi32>, index) -> ()""",
        ),
        "must be 1D memref of index values",
    )


def test_ral_builders() -> None:
    ctx = create_ssa_value(RalExecutionContextType())
    idx = create_ssa_value(IndexType())
    mt = MemRefType(f32, [-1])
    recv = RecvInputOp(ctx, idx, mt)
    send = SendOutputOp(ctx, idx, recv.result)
    dispatch = DispatchOp(ctx, [recv.result], [i32], "ral_foo", device="gpu")
    pointer = GetPointerOp(recv.result)
    for op in (recv, send, dispatch, pointer):
        op.verify()
    assert dispatch.get_device() == "gpu"
    assert not dispatch.get_has_side_effect()
    assert dispatch.get_backend_config() == ""
    assert pointer.result.type == i64


# ---------------------------------------------------------------------------
# disc_shape
# ---------------------------------------------------------------------------


def test_shape_valid() -> None:
    check_valid(
        '"disc_shape.SymbolicDim"() {sym_name = "S0", value = -9223372036854775808 : i64} : () -> ()\n'
        + func(
            "%i: index, %d: index, %t: tensor<?x?xf32>",
            """  %0 = "disc_shape.linearize"(%i, %i, %d, %d) {operand_segment_sizes = array<i32: 2, 2>} : (index, index, index, index) -> index
  %1:2 = "disc_shape.delinearize"(%0, %d, %d) : (index, index, index) -> (index, index)
  %2 = "disc_shape.tie_shape"(%t, %d, %d) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
  %3 = "disc_shape.dim"() {name = @S0} : () -> index
  "disc_shape.tie_product_equal"(%i, %d, %3) {operand_segment_sizes = array<i32: 2, 1>} : (index, index, index) -> ()""",
        )
    )


def test_shape_linearize_needs_segments_and_matching_counts() -> None:
    check_invalid(
        func(
            "%i: index, %d: index",
            """  %0 = "disc_shape.linearize"(%i, %d) : (index, index) -> index""",
        ),
        "operand_segment_sizes",
    )
    check_invalid(
        func(
            "%i: index, %d: index",
            """  %0 = "disc_shape.linearize"(%i, %i, %d) {operand_segment_sizes = array<i32: 2, 1>} : (index, index, index) -> index""",
        ),
        "expects as many indices as dimension sizes, got 2 and 1",
    )
    check_invalid(
        func(
            "%i: i32, %d: index",
            """  %0 = "disc_shape.linearize"(%i, %d) {operand_segment_sizes = array<i32: 1, 1>} : (i32, index) -> index""",
        ),
        "must be index, but got 'i32'",
    )


def test_shape_delinearize_one_result_per_dim() -> None:
    check_invalid(
        func(
            "%i: index, %d: index",
            """  %0 = "disc_shape.delinearize"(%i, %d, %d) : (index, index, index) -> index""",
        ),
        "expects one result per dimension size, got 1 results and 2 dimension sizes",
    )


def test_shape_tie_shape_one_size_per_dim() -> None:
    check_invalid(
        func(
            "%t: tensor<?x?xf32>, %d: index",
            """  %0 = "disc_shape.tie_shape"(%t, %d) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>""",
        ),
        "expects one dimension size per dimension of tensor<?x?xf32>, got 1",
    )
    check_invalid(
        func(
            "%t: tensor<?xf32>, %d: index",
            """  %0 = "disc_shape.tie_shape"(%t, %d) : (tensor<?xf32>, index) -> tensor<?xi32>""",
        ),
        "does not match the operand type",
    )


def test_shape_symbolic_dim_needs_name_and_i64_value() -> None:
    check_invalid('"disc_shape.SymbolicDim"() {value = 3 : i64} : () -> ()\n', "sym_name")
    check_invalid(
        '"disc_shape.SymbolicDim"() {sym_name = "S0", value = 3 : i32} : () -> ()\n',
        "must be 64-bit signless integer attribute",
    )


def test_shape_dim_needs_flat_symbol() -> None:
    check_invalid(
        func("", """  %0 = "disc_shape.dim"() {name = @a::@b} : () -> index"""),
        "must be flat symbol reference attribute",
    )


def test_shape_builders_and_symbolic_dim_helpers() -> None:
    i = create_ssa_value(IndexType())
    t = create_ssa_value(TensorType(f32, [-1]))
    lin = LinearizeOp([i, i], [i, i])
    assert lin.attributes["operand_segment_sizes"] is not None
    assert "operandSegmentSizes" not in lin.attributes
    assert "operandSegmentSizes" not in lin.properties
    delin = DelinearizeOp(lin.result, [i, i, i])
    tie = TieShapeOp(t, [i])
    prod = TieProductEqualOp([i], [i, i])
    dim = DimOp("S0")
    for op in (lin, delin, tie, prod, dim):
        op.verify()
    assert len(delin.results) == 3
    assert len(prod.lhs) == 1 and len(prod.rhs) == 2

    s0 = SymbolicDimOp("S0")
    assert s0.is_dynamic() and s0.get_dim_size() == DYNAMIC_SIZE
    c4 = SymbolicDimOp("C4", 4, known_non_negative=True)
    assert s0.merge(c4)
    assert s0.get_dim_size() == 4
    assert s0.get_known("knownNonNegative")
    assert s0.get_known("knownNonSizeOne") and s0.get_known("knownNonSizeZero")
    neg = SymbolicDimOp("N", known_negative_one=True)
    assert not SymbolicDimOp("X", known_non_negative=True).merge(neg)
    assert not s0.merge(SymbolicDimOp("C5", 5))


# ---------------------------------------------------------------------------
# mhlo_disc
# ---------------------------------------------------------------------------


def test_mhlo_disc_h2d_same_type() -> None:
    check_invalid(
        func(
            "%t: tensor<?xf32>",
            """  %0 = "mhlo_disc.h2d"(%t) : (tensor<?xf32>) -> tensor<?xi32>""",
        ),
        "'mhlo_disc.h2d' op requires the same type for all operands and results",
    )
    check_invalid(
        func(
            "%t: memref<?xf32>", """  %0 = "mhlo_disc.d2h"(%t) : (memref<?xf32>) -> memref<?xf32>"""
        ),
        "must be tensor of",
    )


def test_mhlo_disc_custom_call_v2_layouts() -> None:
    def call(
        layouts: str, types: str = "(tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>"
    ) -> str:
        return func(
            "%a: tensor<?x?xf32>, %b: tensor<2xi32>",
            f"""  %0 = "mhlo_disc.custom_call_v2"(%a, %b) {{call_target_name = "foo", custom_attrs = {{}}, {layouts}}} : {types}""",
        )

    check_valid(call('input_layouts = "*,*", expected_input_layouts = "AB,A"'))
    check_valid(call('input_layouts = "", expected_input_layouts = ""'))
    check_invalid(
        call('input_layouts = "AB,A", expected_input_layouts = "AB"'),
        "mismatch number of layouts for input_layouts and expected_input_layouts",
    )
    check_invalid(
        call('input_layouts = "AB", expected_input_layouts = "AB"'),
        "mismatch number of input layouts and number of inputs",
    )
    check_invalid(
        call('input_layouts = "AB,AB", expected_input_layouts = "AB,AB"'),
        "mismatch input layout or expected input layout setting",
    )
    check_invalid(
        call('output_layouts = "AB,A", expected_output_layouts = "AB,A"'),
        "mismatch number of output layouts and number of outputs",
    )
    check_invalid(
        call('output_layouts = "ABC", expected_output_layouts = "ABC"'),
        "mismatch output layout or expected output layout setting",
    )
    check_invalid(
        func(
            "%a: tensor<?xf32>",
            """  %0 = "mhlo_disc.custom_call_v2"(%a) {custom_attrs = {}} : (tensor<?xf32>) -> tensor<?xf32>""",
        ),
        "call_target_name",
    )
    assert parse_layouts("*,AB,*", [2, 3, 1]) == ["AB", "AB", "A"]
    assert parse_layouts("", [2]) == []


def test_mhlo_disc_quantize_verifier() -> None:
    check_invalid(
        func(
            "%x: tensor<?x?xf32>, %s: tensor<f32>, %z: tensor<i32>",
            """  %0 = "mhlo_disc.quantize"(%x, %s, %z) {axis = dense<> : tensor<0xi64>} : (tensor<?x?xf32>, tensor<f32>, tensor<i32>) -> tensor<?xi8>""",
        ),
        "input and result have mismatch shape.",
    )
    check_invalid(
        func(
            "%x: tensor<?x?xf32>, %s: tensor<?xf32>, %z: tensor<i32>",
            """  %0 = "mhlo_disc.quantize"(%x, %s, %z) {axis = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<?xf32>, tensor<i32>) -> tensor<?x?xi8>""",
        ),
        "scale and zero_point have mismatch rank.",
    )
    check_invalid(
        func(
            "%x: tensor<?x?xf32>, %s: tensor<?xf32>, %z: tensor<?xi32>",
            """  %0 = "mhlo_disc.dequantize"(%x, %s, %z) {axis = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x?xf32>""",
        ),
        "must be tensor of 4/8/16/32/64-bit signless integer",
    )
    check_invalid(
        func(
            "%x: tensor<?x?xf32>, %s: tensor<?xf32>, %z: tensor<?xi32>",
            """  %0 = "mhlo_disc.fake_quant"(%x, %s, %z) : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x?xf32>""",
        ),
        "num of quantized axes (len(axis)) is not equal to the rank of scale tensor",
    )
    check_invalid(
        func(
            "%x: tensor<?x?xf32>, %s: tensor<f32>, %z: tensor<i32>",
            """  %0 = "mhlo_disc.fake_quant"(%x, %s, %z) {round_mode = 7 : i64} : (tensor<?x?xf32>, tensor<f32>, tensor<i32>) -> tensor<?x?xf32>""",
        ),
        "round mode",
    )


_QDOT_TYPES = (
    "(tensor<?x?xi8>, tensor<?x?xi8>, tensor<f32>, tensor<i32>, {ws}, {wz}, "
    "tensor<f32>, tensor<i32>) -> {res}"
)


def _qdot(
    dims: str,
    ws: str = "tensor<f32>",
    wz: str = "tensor<i32>",
    res: str = "tensor<?x?xi8>",
    axis: str = "dense<> : tensor<0xi64>",
) -> str:
    types = _QDOT_TYPES.format(ws=ws, wz=wz, res=res)
    return func(
        f"%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %s: tensor<f32>, %z: tensor<i32>, %ws: {ws}, %wz: {wz}",
        f"""  %0 = "mhlo_disc.quantized_dot_general"(%a, %b, %s, %z, %ws, %wz, %s, %z) {{axis = {axis}, dot_dimension_numbers = #mhlo.dot<{dims}>}} : {types}""",
    )


def test_mhlo_disc_quantized_dot_general_verifier() -> None:
    ok = "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]"
    check_valid(_qdot(ok))
    check_invalid(
        _qdot(ok, res="tensor<?xi8>"),
        "input, weight and result should have the same rank.",
    )
    check_invalid(
        _qdot(ok, ws="tensor<?xf32>", wz="tensor<i32>"),
        "weight_scale and weight_zero_point have mismatch shape",
    )
    check_invalid(
        _qdot(ok, ws="tensor<?xf32>", wz="tensor<?xi32>"),
        "num of quantized axes (len(axis)) is not equal to the rank of weight_scale tensor",
    )
    check_invalid(
        _qdot("lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]"),
        "out of range [0, 2)",
    )
    check_invalid(
        _qdot("lhs_contracting_dimensions = [1, 0], rhs_contracting_dimensions = [0]"),
        "same number of contracting dimensions",
    )


def test_mhlo_disc_quantized_dynamic_conv_verifier() -> None:
    def conv(attrs: str, scale: str = "tensor<f32>") -> str:
        return func(
            f"%a: tensor<?x?x?x?xi8>, %p: tensor<4xi32>, %s: {scale}, %z: tensor<i32>",
            f"""  %0 = "mhlo_disc.quantized_dynamic_conv"(%a, %a, %p, %s, %z, %s, %z, %s, %z) {{batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64{attrs}}} : (tensor<?x?x?x?xi8>, tensor<?x?x?x?xi8>, tensor<4xi32>, {scale}, tensor<i32>, {scale}, tensor<i32>, {scale}, tensor<i32>) -> tensor<?x?x?x?xi8>""",
        )

    check_valid(conv(", window_strides = dense<1> : tensor<2xi64>"))
    check_invalid(
        conv(", window_strides = dense<1> : tensor<3xi64>"),
        "expects window_strides to have 2 elements",
    )
    check_invalid(
        conv("", scale="tensor<1xf32>"),
        "input_scale and input_zero_point only support per-tensor quantization",
    )


def test_mhlo_disc_sparse_and_where_verifiers() -> None:
    check_invalid(
        func(
            "%c: tensor<?x?xi1>",
            """  %0:2 = "mhlo_disc.where"(%c) : (tensor<?x?xi1>) -> (tensor<?xi64>, tensor<1xi64>)""",
        ),
        "'mhlo_disc.where' op output must be a matrix",
    )
    check_invalid(
        func(
            "%c: tensor<?x?xi1>",
            """  %0:2 = "mhlo_disc.where"(%c) : (tensor<?x?xi1>) -> (tensor<?x2xi32>, tensor<1xi64>)""",
        ),
        "must be tensor of 64-bit signless integer values",
    )
    check_invalid(
        func(
            "%i: tensor<?xi64>, %s: tensor<2xi64>",
            """  %0:2 = "mhlo_disc.sparse_reshape"(%i, %s, %s) : (tensor<?xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<?x2xi64>, tensor<2xi64>)""",
        ),
        "Input/Output indices must be a matrix.",
    )
    check_invalid(
        func(
            "%i: tensor<?x2xi64>, %v: tensor<?xf32>, %s: tensor<?xi64>, %d: tensor<f32>",
            """  %0:5 = "mhlo_disc.sparse_fill_empty_rows"(%i, %v, %s, %d) : (tensor<?x2xi64>, tensor<?xf32>, tensor<?xi64>, tensor<f32>) -> (tensor<?x2xi64>, tensor<?xf32>, tensor<?xi1>, tensor<?xi64>, tensor<1xi64>)""",
        ),
        "dense_shape should has static shape",
    )
    check_invalid(
        func(
            "%d: tensor<?x8xf32>, %i: tensor<4xi32>, %s: tensor<5xi32>",
            """  %0 = "mhlo_disc.sparse_segment_reduction"(%d, %i, %s) : (tensor<?x8xf32>, tensor<4xi32>, tensor<5xi32>) -> tensor<?x8xf32>""",
        ),
        "segment_ids and indices should have same size",
    )
    check_invalid(
        func(
            "%d: tensor<?x8x2xf32>, %i: tensor<?x2xi64>, %s: tensor<?xi32>, %ds: tensor<2xi64>",
            """  %0:2 = "mhlo_disc.sparse_segment_reduction_with_empty_rows"(%d, %i, %s, %ds) : (tensor<?x8x2xf32>, tensor<?x2xi64>, tensor<?xi32>, tensor<2xi64>) -> (tensor<?x8x2xf32>, tensor<?xi1>)""",
        ),
        "input must be matrix since other rank is not supported",
    )


def test_mhlo_disc_builders() -> None:
    t = create_ssa_value(TensorType(f32, [-1, 4]))
    h2d = H2DOp(t)
    call = CustomCallOp([t], [TensorType(f32, [-1, 4])], "topk", backend_config="{}")
    v2 = CustomCallV2Op(
        [t],
        [TensorType(f32, [-1, 4])],
        "foo",
        {},
        device="d",
        input_layouts="*",
        expected_input_layouts="AB",
    )
    for op in (h2d, call, v2):
        op.verify()
    assert h2d.result.type == t.type
    assert v2.get_string("device") == "d"
    assert v2.get_string("output_placements") == ""
    assert not call.get_has_side_effect()


# ---------------------------------------------------------------------------
# lmhlo_disc
# ---------------------------------------------------------------------------


def test_lmhlo_disc_custom_call_segments() -> None:
    check_invalid(
        func(
            "%a: memref<?xf32>, %b: memref<?xf32>",
            """  "lmhlo_disc.custom_call"(%a, %b) {call_target_name = "x", operand_segment_sizes = array<i32: 1, 2>} : (memref<?xf32>, memref<?xf32>) -> ()""",
        ),
        "'lmhlo_disc.custom_call' op",
    )
    check_invalid(
        func(
            "%a: memref<?xf32>, %b: memref<?xf32>",
            """  "lmhlo_disc.custom_call"(%a, %b) {call_target_name = "x"} : (memref<?xf32>, memref<?xf32>) -> ()""",
        ),
        "operand_segment_sizes",
    )
    check_invalid(
        func(
            "%a: tensor<?xf32>, %b: memref<?xf32>",
            """  "lmhlo_disc.custom_call"(%a, %b) {call_target_name = "x", operand_segment_sizes = array<i32: 1, 1>} : (tensor<?xf32>, memref<?xf32>) -> ()""",
        ),
        "must be memref of",
    )


def test_lmhlo_disc_copies_and_quantized() -> None:
    check_invalid(
        func(
            "%a: memref<?xf32>, %b: memref<?xi32>",
            """  "lmhlo_disc.h2d"(%a, %b) : (memref<?xf32>, memref<?xi32>) -> ()""",
        ),
        "input and output must have the same element type",
    )
    check_invalid(
        func(
            "%a: memref<2xf32>, %b: memref<3xf32>",
            """  "lmhlo_disc.d2h"(%a, %b) : (memref<2xf32>, memref<3xf32>) -> ()""",
        ),
        "input and output must have compatible shapes",
    )
    check_invalid(
        func(
            "%a: memref<?x?xi8>, %s: memref<f32>, %z: memref<i32>, %o: memref<?xi8>",
            """  "lmhlo_disc.quantized_dot_general"(%a, %a, %s, %z, %s, %z, %s, %z, %o) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<?x?xi8>, memref<?x?xi8>, memref<f32>, memref<i32>, memref<f32>, memref<i32>, memref<f32>, memref<i32>, memref<?xi8>) -> ()""",
        ),
        "input, weight and result should have the same rank.",
    )


def test_lmhlo_disc_custom_call_v2_layouts() -> None:
    check_invalid(
        func(
            "%a: memref<?xf32>",
            """  %0 = "lmhlo_disc.custom_call_v2"(%a) {call_target_name = "x", custom_attrs = {}, input_layouts = "AB", expected_input_layouts = "AB"} : (memref<?xf32>) -> memref<?xf32>""",
        ),
        "mismatch input layout or expected input layout setting",
    )


def test_lmhlo_disc_builders() -> None:
    m = create_ssa_value(MemRefType(f32, [-1]))
    call = LmhloCustomCallOp([m, m], [m], "topk", backend_config="{}")
    assert call.attributes["operand_segment_sizes"] is not None
    assert "operandSegmentSizes" not in call.attributes
    assert len(call.args) == 2 and len(call.output) == 1
    src = SourceCodeOp([m], [m], "code", "k")
    v2 = LmhloCustomCallV2Op(
        [m], [MemRefType(f32, [-1])], "foo", input_layouts="*", expected_input_layouts="A"
    )
    h2d = LmhloH2DOp(m, m)
    for op in (call, src, v2, h2d):
        op.verify()


@pytest.mark.parametrize(
    "text",
    [
        '"lmhlo_disc.printf"(%a) {format = "%d"} : (f32) -> ()',
        '"lmhlo_disc.concatenate"(%m, %m, %m) {dimension = 3 : i64} : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()',
        '"lmhlo_disc.where"(%m, %m, %m) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()',
    ],
)
def test_lmhlo_disc_misc_invalid(text: str) -> None:
    assert verify_error(func("%a: f32, %m: memref<2xf32>", "  " + text)) is not None
