"""Verifiers of mhlo, lmhlo and chlo, and the `#mhlo` attributes.

Each invalid snippet must be rejected with a message naming the problem; the
valid variants must verify (dynamic dims and `[@S0]` encodings included).
"""

from __future__ import annotations

import pytest

from disc_ir.ir.context import make_context
from disc_ir.ir.parser import Diagnostic, parse_module
from disc_ir.ir.verify import first_verify_failure


def verify_error(body: str, args: str = "") -> str | None:
    """Wrap `body` in a function with arguments `args`; return
    `'<op>' op <message>` of the first failing op, or None if valid."""
    text = f"func.func @f({args}) {{\n{body}\n  return\n}}\n"
    module = parse_module(make_context(), text)
    failure = first_verify_failure(module)
    if failure is None:
        return None
    return f"'{failure[0]}' op {failure[1]}"


T = "tensor<?x4xf32>"


@pytest.mark.parametrize(
    "body, args, expected",
    [
        # elementwise: shapes compatible (dynamic vs static ok), encodings ignored
        (
            "%0 = mhlo.add %a, %b : (tensor<?x4xf32, [@S0, @S1]>, tensor<3x4xf32>)"
            " -> tensor<3x4xf32>",
            "%a: tensor<?x4xf32, [@S0, @S1]>, %b: tensor<3x4xf32>",
            None,
        ),
        (
            "%0 = mhlo.add %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>",
            "%a: tensor<2x4xf32>, %b: tensor<3x4xf32>",
            "'mhlo.add' op requires compatible shapes",
        ),
        (
            "%0 = mhlo.add %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>",
            "%a: tensor<4xf32>, %b: tensor<4xi32>",
            "'mhlo.add' op requires the same element type",
        ),
        (
            "%0 = mhlo.sqrt %a : tensor<4xi32>",
            "%a: tensor<4xi32>",
            "'mhlo.sqrt' op operand #0 must be tensor/memref of floating-point",
        ),
        (
            "%0 = mhlo.and %a, %a : tensor<4xf32>",
            "%a: tensor<4xf32>",
            "'mhlo.and' op operand #0 must be tensor/memref of pred (i1) or integer",
        ),
        (
            "%0 = mhlo.is_finite %a : (tensor<4xf32>) -> tensor<4xf32>",
            "%a: tensor<4xf32>",
            "'mhlo.is_finite' op result element type f32 does not match the expected i1",
        ),
        (
            "%0 = mhlo.abs %a : (tensor<4xcomplex<f32>>) -> tensor<4xf32>",
            "%a: tensor<4xcomplex<f32>>",
            None,
        ),
        # compare / select
        (
            "%0 = mhlo.compare GT, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>",
            "%a: tensor<4xf32>",
            "'mhlo.compare' op result must be a tensor of i1",
        ),
        (
            "%0 = mhlo.select %a, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)"
            " -> tensor<4xf32>",
            "%a: tensor<4xf32>",
            "'mhlo.select' op pred must be a tensor of i1",
        ),
        (
            "%0 = mhlo.select %p, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>)"
            " -> tensor<4xf32>",
            "%p: tensor<3xi1>, %a: tensor<4xf32>",
            "'mhlo.select' op requires the same shape for all operands",
        ),
        # constant
        (
            '%0 = "mhlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>',
            "",
            "'mhlo.constant' op value type tensor<2xf32> does not match result type",
        ),
        # broadcast_in_dim
        (
            '%0 = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<[0, 1]> :'
            " tensor<2xi64>} : (tensor<4xf32>) -> tensor<3x4xf32>",
            "%a: tensor<4xf32>",
            "'mhlo.broadcast_in_dim' op broadcast_dimensions size (2) does not match"
            " operand rank (1)",
        ),
        (
            '%0 = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<2> :'
            " tensor<1xi64>} : (tensor<4xf32>) -> tensor<3x4xf32>",
            "%a: tensor<4xf32>",
            "'mhlo.broadcast_in_dim' op broadcast_dimensions contains invalid value 2",
        ),
        (
            '%0 = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<0> :'
            " tensor<1xi64>} : (tensor<4xf32>) -> tensor<3x4xf32>",
            "%a: tensor<4xf32>",
            "'mhlo.broadcast_in_dim' op size of operand dimension 0 (4) is not equal to 1"
            " or size of result dimension 0 (3)",
        ),
        (
            '%0 = "mhlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = dense<1> :'
            " tensor<1xi64>, known_expanding_dimensions = dense<0> : tensor<1xi64>,"
            " known_nonexpanding_dimensions = dense<0> : tensor<1xi64>} :"
            " (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>",
            "%a: tensor<?xf32>, %s: tensor<2xindex>",
            "'mhlo.dynamic_broadcast_in_dim' op duplicate expansion hint",
        ),
        (
            '%0 = "mhlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = dense<1> :'
            " tensor<1xi64>} : (tensor<?xf32>, tensor<3xindex>) -> tensor<?x?xf32>",
            "%a: tensor<?xf32>, %s: tensor<3xindex>",
            "'mhlo.dynamic_broadcast_in_dim' op output_dimensions has 3 elements but the"
            " result has rank 2",
        ),
        # transpose / concatenate / reshape
        (
            '%0 = "mhlo.transpose"(%a) {permutation = dense<[0, 0]> : tensor<2xi64>} :'
            f" ({T}) -> {T}",
            f"%a: {T}",
            "'mhlo.transpose' op permutation [0, 0] is not a permutation",
        ),
        (
            '%0 = "mhlo.transpose"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} :'
            " (tensor<3x4xf32>) -> tensor<3x4xf32>",
            "%a: tensor<3x4xf32>",
            "'mhlo.transpose' op result dimension 0 (3) is incompatible with operand"
            " dimension 1 (4)",
        ),
        (
            '%0 = "mhlo.concatenate"(%a, %a) {dimension = 2 : i64} :'
            f" ({T}, {T}) -> tensor<?x8xf32>",
            f"%a: {T}",
            "'mhlo.concatenate' op dimension 2 is out of range [0, 2)",
        ),
        (
            '%0 = "mhlo.concatenate"(%a, %b) {dimension = 0 : i64} :'
            " (tensor<?x4xf32>, tensor<?x5xf32>) -> tensor<?x4xf32>",
            "%a: tensor<?x4xf32>, %b: tensor<?x5xf32>",
            "'mhlo.concatenate' op shapes of operands differ in non-concatenated dimension 1",
        ),
        (
            "%0 = mhlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>",
            "%a: tensor<2x3xf32>",
            "'mhlo.reshape' op number of output elements (5) doesn't match expected"
            " number of elements (6)",
        ),
        # dot_general
        (
            '%0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<'
            "lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} :"
            " (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>",
            "%a: tensor<2x3xf32>, %b: tensor<4x5xf32>",
            "'mhlo.dot_general' op contracting dimension sizes must match for lhs/rhs",
        ),
        (
            '%0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<'
            "lhs_batching_dimensions = [0], lhs_contracting_dimensions = [2],"
            " rhs_contracting_dimensions = [1]>} :"
            " (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>",
            "%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>",
            "'mhlo.dot_general' op lhs and rhs should have the same number of batching dimensions",
        ),
        (
            '%0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<'
            "lhs_contracting_dimensions = [5], rhs_contracting_dimensions = [0]>} :"
            " (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>",
            "%a: tensor<?x?xf32>, %b: tensor<?x?xf32>",
            "'mhlo.dot_general' op lhs_contracting_dimensions 5 is out of range [0, 2)",
        ),
        (
            '%0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<'
            "lhs_batching_dimensions = [0], rhs_batching_dimensions = [0],"
            " lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} :"
            " (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>",
            "%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>",
            None,
        ),
        # reduce
        (
            "%0 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [2] :"
            " (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>",
            "%a: tensor<?x4xf32>, %z: tensor<f32>",
            "'mhlo.reduce' op dimensions 2 is out of range [0, 2)",
        ),
        (
            "%0 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [1] :"
            " (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>",
            "%a: tensor<?x4xf32>, %z: tensor<f32>",
            "'mhlo.reduce' op result rank (2) should be the input rank (2) minus the"
            " number of reduced dimensions (1)",
        ),
        (
            "%0 = mhlo.reduce(%a init: %z) across dimensions = [1] :"
            " (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>\n"
            " reducer(%x: tensor<4xf32>, %y: tensor<4xf32>) {\n"
            "  mhlo.return %x : tensor<4xf32>\n }",
            "%a: tensor<?x4xf32>, %z: tensor<f32>",
            "'mhlo.reduce' op reducer region arguments must be 0-d",
        ),
        # get_tuple_element
        (
            "%0 = mhlo.get_tuple_element %t[2] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>",
            "%t: tuple<tensor<f32>, tensor<i32>>",
            "'mhlo.get_tuple_element' op index 2 is out of bounds",
        ),
        # lmhlo
        (
            '"lmhlo.add"(%a, %b, %c) : (memref<4xf32>, memref<4xf32>, memref<5xf32>) -> ()',
            "%a: memref<4xf32>, %b: memref<4xf32>, %c: memref<5xf32>",
            "'lmhlo.add' op requires compatible shapes",
        ),
        (
            '"lmhlo.abs"(%a, %b) : (memref<4xf32>, memref<4xi32>) -> ()',
            "%a: memref<4xf32>, %b: memref<4xi32>",
            "'lmhlo.abs' op output element type i32 does not match the expected f32",
        ),
        (
            '"lmhlo.transpose"(%a, %a) {permutation = dense<[0, 1, 2]> : tensor<3xi64>}'
            " : (memref<?x?xf32>, memref<?x?xf32>) -> ()",
            "%a: memref<?x?xf32>",
            "'lmhlo.transpose' op permutation size (3) does not match operand rank (2)",
        ),
        (
            '"lmhlo.fusion"() ({\n  "lmhlo.abs"(%a, %a) : (memref<4xf32>, memref<4xf32>)'
            " -> ()\n}) : () -> ()",
            "%a: memref<4xf32>",
            # xDSL's own check: a block of a region op must end in a terminator
            "'lmhlo.abs' op Operation lmhlo.abs terminates block",
        ),
        (
            '"lmhlo.reduce"(%a, %z, %r) ({\n^bb0(%x: memref<f32>, %y: memref<f32>):\n'
            '  "lmhlo.terminator"() : () -> ()\n}) {dimensions = dense<1> : tensor<1xi64>}'
            " : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()",
            "%a: memref<?x?xf32>, %z: memref<f32>, %r: memref<?xf32>",
            "'lmhlo.reduce' op reducer region expects 3 arguments",
        ),
        # chlo
        (
            "%0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>",
            "%a: tensor<2x3xf32>, %b: tensor<4xf32>",
            "'chlo.broadcast_add' op operand shapes tensor<2x3xf32> and tensor<4xf32> are"
            " not broadcast compatible",
        ),
        (
            "%0 = chlo.broadcast_add %a, %b {broadcast_dimensions = dense<0> : tensor<1xi64>}"
            " : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>",
            "%a: tensor<2x3xf32>, %b: tensor<2xf32>",
            None,
        ),
        (
            "%0 = chlo.erf %a : tensor<4xi32> -> tensor<4xi32>",
            "%a: tensor<4xi32>",
            "'chlo.erf' op operand must be tensor/memref of floating-point values",
        ),
    ],
)
def test_verifier(body: str, args: str, expected: str | None) -> None:
    error = verify_error("  " + body, args)
    if expected is None:
        assert error is None
    else:
        assert error is not None and error.startswith(expected), error


def test_reduce_compact_form_rejects_non_commutative_inner_op() -> None:
    text = (
        "func.func @f(%a: tensor<?x4xf32>, %z: tensor<f32>) {\n"
        "  %0 = mhlo.reduce(%a init: %z) applies mhlo.subtract across dimensions = [1]"
        " : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>\n  return\n}\n"
    )
    with pytest.raises(Diagnostic, match="commutative binary-op"):
        parse_module(make_context(), text)


@pytest.mark.parametrize(
    "attr, expected",
    [
        ("#mhlo.dot<lhs_batching_dimensions = [0], lhs_batching_dimensions = [0]>", "duplicated"),
        ("#mhlo.dot<lhs_dims = [0]>", "expected one of"),
        ("#mhlo.conv<[b, f, 0, 0]x[o, i, 0, 1]->[b, f, 0, 1]>", "Duplicate entries"),
        ("#mhlo.conv<[b, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>", "Expected dimensions b, f"),
        ("#mhlo<comparison_direction XX>", "comparison_direction"),
    ],
)
def test_attribute_parse_errors(attr: str, expected: str) -> None:
    text = f"func.func @f() attributes {{a = {attr}}} {{\n  return\n}}\n"
    with pytest.raises(Diagnostic) as info:
        parse_module(make_context(), text)
    assert expected in str(info.value), str(info.value)
