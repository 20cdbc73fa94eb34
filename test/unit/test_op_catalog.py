"""Every op of `disc_ir.dialects.op_catalog` does what the catalog says.

One minimal valid module per op (the generic form, as `stablehlo-opt
--mlir-print-op-generic` prints it): an op marked compiled compiles with
`disc_ir.compile(text, target="cpu")`; an op marked refused raises a
`CompileError` that names it (or, for an op whose operands are tokens,
futures or quantized values, the type, whose message lists the ops) and
says disc-ir does not support it -- never the parser's "unknown op" message,
which reads as a typo. An op refused after parsing is named in its mhlo form
(`stablehlo.tuple` as `mhlo.tuple`). The numerics of the ops disc-ir added
for today's StableHLO / CHLO / mhlo are checked against XLA in
test/e2e/test_newer_ops.py.
"""

from __future__ import annotations

import re

import pytest

import disc_ir
from disc_ir.api import CompileError
from disc_ir.dialects import chlo, stablehlo
from disc_ir.dialects.op_catalog import BY_NAME, COMPILED, OPS, REFUSED
from disc_ir.ir.context import make_context

F = "tensor<4xf32>"
I32 = "tensor<4xi32>"
P = "tensor<4xi1>"
M = "tensor<3x3xf32>"


def fn(args, results, body, ret):
    a = ", ".join(f"%a{i}: {t}" for i, t in enumerate(args))
    r = ", ".join(results)
    return f"func.func @main({a}) -> ({r}) {{\n{body}\n  return {ret} : {r}\n}}\n"


def unary(name, t=F, rt=None, attrs=""):
    rt = rt or t
    return fn([t], [rt], f'  %0 = "{name}"(%a0){attrs} : ({t}) -> {rt}', "%0")


def binary(name, t=F, rt=None, attrs=""):
    rt = rt or t
    return fn([t, t], [rt], f'  %0 = "{name}"(%a0, %a1){attrs} : ({t}, {t}) -> {rt}', "%0")


def op(name, args, results, attrs="", regions=""):
    ops = ", ".join(f"%a{i}" for i in range(len(args)))
    ins = ", ".join(args)
    outs = ", ".join(results)
    lhs = "%0" if len(results) == 1 else f"%0:{len(results)}"
    rets = "%0" if len(results) == 1 else ", ".join(f"%0#{i}" for i in range(len(results)))
    reg = f"({regions})" if regions else ""
    body = f'  {lhs} = "{name}"({ops}){reg}{attrs} : ({ins}) -> ({outs})'
    if not results:
        body = f'  "{name}"({ops}){reg}{attrs} : ({ins}) -> ()'
        return fn(args, [F], body, "%a0")
    return fn(args, results, body, rets)


def add_region(d, t="tensor<f32>"):
    return (
        f'{{\n  ^bb0(%x: {t}, %y: {t}):\n    %s = "{d}.add"(%x, %y) : ({t}, {t}) -> {t}\n'
        f'    "{d}.return"(%s) : ({t}) -> ()\n  }}'
    )


S = "stablehlo"
SAMPLES: dict[str, str] = {}
for n in (
    "abs cbrt ceil cosine exponential exponential_minus_one floor log log_plus_one "
    "logistic negate round_nearest_afz round_nearest_even rsqrt sign sine sqrt tan tanh"
).split():
    SAMPLES[f"stablehlo.{n}"] = unary(f"stablehlo.{n}")
for n in ("add subtract multiply divide maximum minimum power remainder atan2").split():
    SAMPLES[f"stablehlo.{n}"] = binary(f"stablehlo.{n}")
for n in ("and or xor shift_left shift_right_arithmetic shift_right_logical").split():
    SAMPLES[f"stablehlo.{n}"] = binary(f"stablehlo.{n}", I32)
SAMPLES["stablehlo.not"] = unary("stablehlo.not", I32)
SAMPLES["stablehlo.popcnt"] = unary("stablehlo.popcnt", I32)
SAMPLES["stablehlo.count_leading_zeros"] = unary("stablehlo.count_leading_zeros", I32)
SAMPLES["stablehlo.is_finite"] = unary("stablehlo.is_finite", F, P)
SAMPLES["stablehlo.convert"] = unary("stablehlo.convert", F, I32)
SAMPLES["stablehlo.bitcast_convert"] = unary("stablehlo.bitcast_convert", F, I32)
SAMPLES["stablehlo.reduce_precision"] = unary(
    "stablehlo.reduce_precision", attrs=" {exponent_bits = 5 : i32, mantissa_bits = 10 : i32}"
)
SAMPLES["stablehlo.compare"] = binary(
    "stablehlo.compare", F, P, " {comparison_direction = #stablehlo<comparison_direction LT>}"
)
SAMPLES["stablehlo.select"] = fn(
    [P, F, F],
    [F],
    '  %0 = "stablehlo.select"(%a0, %a1, %a2) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>',
    "%0",
)
SAMPLES["stablehlo.clamp"] = fn(
    ["tensor<f32>", F, "tensor<f32>"],
    [F],
    '  %0 = "stablehlo.clamp"(%a0, %a1, %a2) : (tensor<f32>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>',
    "%0",
)
SAMPLES["stablehlo.constant"] = fn(
    [],
    [F],
    '  %0 = "stablehlo.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>',
    "%0",
)
SAMPLES["stablehlo.iota"] = fn(
    [], [I32], '  %0 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xi32>', "%0"
)
SAMPLES["stablehlo.dynamic_iota"] = fn(
    ["tensor<1xi64>"],
    ["tensor<?xi32>"],
    '  %0 = "stablehlo.dynamic_iota"(%a0) {iota_dimension = 0 : i64} : (tensor<1xi64>) -> tensor<?xi32>',
    "%0",
)
SAMPLES["stablehlo.broadcast_in_dim"] = op(
    "stablehlo.broadcast_in_dim",
    [F],
    ["tensor<3x4xf32>"],
    " {broadcast_dimensions = array<i64: 1>}",
)
SAMPLES["stablehlo.broadcast"] = op(
    "stablehlo.broadcast", [F], ["tensor<3x4xf32>"], " {broadcast_sizes = array<i64: 3>}"
)
SAMPLES["stablehlo.dynamic_broadcast_in_dim"] = op(
    "stablehlo.dynamic_broadcast_in_dim",
    ["tensor<?xf32>", "tensor<2xi64>"],
    ["tensor<?x?xf32>"],
    " {broadcast_dimensions = array<i64: 1>}",
)
SAMPLES["stablehlo.reshape"] = op("stablehlo.reshape", ["tensor<2x2xf32>"], [F])
SAMPLES["stablehlo.dynamic_reshape"] = op(
    "stablehlo.dynamic_reshape", ["tensor<?xf32>", "tensor<2xi64>"], ["tensor<?x?xf32>"]
)
SAMPLES["stablehlo.transpose"] = op(
    "stablehlo.transpose",
    ["tensor<2x3xf32>"],
    ["tensor<3x2xf32>"],
    " {permutation = array<i64: 1, 0>}",
)
SAMPLES["stablehlo.reverse"] = op("stablehlo.reverse", [F], [F], " {dimensions = array<i64: 0>}")
SAMPLES["stablehlo.slice"] = op(
    "stablehlo.slice",
    [F],
    ["tensor<2xf32>"],
    " {start_indices = array<i64: 1>, limit_indices = array<i64: 3>, strides = array<i64: 1>}",
)
SAMPLES["stablehlo.dynamic_slice"] = op(
    "stablehlo.dynamic_slice",
    [F, "tensor<i32>"],
    ["tensor<2xf32>"],
    " {slice_sizes = array<i64: 2>}",
)
SAMPLES["stablehlo.dynamic_update_slice"] = op(
    "stablehlo.dynamic_update_slice", [F, "tensor<2xf32>", "tensor<i32>"], [F]
)
SAMPLES["stablehlo.real_dynamic_slice"] = op(
    "stablehlo.real_dynamic_slice",
    ["tensor<?xf32>", "tensor<1xi64>", "tensor<1xi64>", "tensor<1xi64>"],
    ["tensor<?xf32>"],
)
SAMPLES["stablehlo.concatenate"] = op(
    "stablehlo.concatenate", [F, F], ["tensor<8xf32>"], " {dimension = 0 : i64}"
)
SAMPLES["stablehlo.pad"] = op(
    "stablehlo.pad",
    [F, "tensor<f32>"],
    ["tensor<7xf32>"],
    " {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 2>, interior_padding = array<i64: 0>}",
)
SAMPLES["stablehlo.dynamic_pad"] = op(
    "stablehlo.dynamic_pad",
    ["tensor<?xf32>", "tensor<f32>", "tensor<1xi64>", "tensor<1xi64>", "tensor<1xi64>"],
    ["tensor<?xf32>"],
)
SAMPLES["stablehlo.get_dimension_size"] = op(
    "stablehlo.get_dimension_size", ["tensor<?xf32>"], ["tensor<i32>"], " {dimension = 0 : i64}"
)
SAMPLES["stablehlo.set_dimension_size"] = op(
    "stablehlo.set_dimension_size", [F, "tensor<i32>"], ["tensor<4xf32>"], " {dimension = 0 : i64}"
)
SAMPLES["stablehlo.dot"] = op("stablehlo.dot", [M, M], [M])
SAMPLES["stablehlo.dot_general"] = op(
    "stablehlo.dot_general",
    [M, M],
    [M],
    " {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}",
)
SAMPLES["stablehlo.einsum"] = op("stablehlo.einsum", [M, M], [M], ' {einsum_config = "ab,bc->ac"}')
SAMPLES["stablehlo.unary_einsum"] = op(
    "stablehlo.unary_einsum", [M], ["tensor<3xf32>"], ' {einsum_config = "ab->a"}'
)
SAMPLES["stablehlo.convolution"] = op(
    "stablehlo.convolution",
    ["tensor<1x4x4x1xf32>", "tensor<2x2x1x1xf32>"],
    ["tensor<1x3x3x1xf32>"],
    " {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64}",
)
SAMPLES["stablehlo.dynamic_conv"] = op(
    "stablehlo.dynamic_conv",
    ["tensor<1x4x4x1xf32>", "tensor<2x2x1x1xf32>", "tensor<2x2xi64>"],
    ["tensor<1x?x?x1xf32>"],
    " {dimension_numbers = #stablehlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, batch_group_count = 1 : i64}",
)
SAMPLES["stablehlo.gather"] = op(
    "stablehlo.gather",
    ["tensor<4x6xf32>", "tensor<3x1xi32>"],
    ["tensor<4x3xf32>"],
    " {dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}",
)
SAMPLES["stablehlo.dynamic_gather"] = op(
    "stablehlo.dynamic_gather",
    ["tensor<4x6xf32>", "tensor<3x1xi32>", "tensor<2xi32>"],
    ["tensor<4x3xf32>"],
    " {dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false}",
)
SAMPLES["stablehlo.scatter"] = op(
    "stablehlo.scatter",
    ["tensor<6xf32>", "tensor<2x1xi32>", "tensor<2xf32>"],
    ["tensor<6xf32>"],
    " {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}",
    add_region(S),
)
SAMPLES["stablehlo.reduce"] = op(
    "stablehlo.reduce",
    [F, "tensor<f32>"],
    ["tensor<f32>"],
    " {dimensions = array<i64: 0>}",
    add_region(S),
)
SAMPLES["stablehlo.reduce_window"] = op(
    "stablehlo.reduce_window",
    [F, "tensor<f32>"],
    ["tensor<3xf32>"],
    " {window_dimensions = array<i64: 2>, window_strides = array<i64: 1>}",
    add_region(S),
)
SAMPLES["stablehlo.select_and_scatter"] = op(
    "stablehlo.select_and_scatter",
    [F, "tensor<2xf32>", "tensor<f32>"],
    [F],
    " {window_dimensions = array<i64: 2>, window_strides = array<i64: 2>}",
    '{\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction GE>} : (tensor<f32>, tensor<f32>) -> tensor<i1>\n    "stablehlo.return"(%c) : (tensor<i1>) -> ()\n  }, '
    + add_region(S),
)
SAMPLES["stablehlo.sort"] = op(
    "stablehlo.sort",
    [F],
    [F],
    " {dimension = 0 : i64, is_stable = true}",
    '{\n  ^bb0(%x: tensor<f32>, %y: tensor<f32>):\n    %c = "stablehlo.compare"(%x, %y) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>\n    "stablehlo.return"(%c) : (tensor<i1>) -> ()\n  }',
)
SAMPLES["stablehlo.map"] = op(
    "stablehlo.map", [F, F], [F], " {dimensions = array<i64: 0>}", add_region(S)
)
SAMPLES["stablehlo.while"] = fn(
    [F],
    [F],
    """  %c0 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
  %c3 = "stablehlo.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
  %c1 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
  %0:2 = "stablehlo.while"(%c0, %a0) ({
  ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
    %p = "stablehlo.compare"(%i, %c3) {comparison_direction = #stablehlo<comparison_direction LT>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
    "stablehlo.return"(%p) : (tensor<i1>) -> ()
  }, {
  ^bb0(%i: tensor<i32>, %v: tensor<4xf32>):
    %n = "stablehlo.add"(%i, %c1) : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %w = "stablehlo.add"(%v, %v) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    "stablehlo.return"(%n, %w) : (tensor<i32>, tensor<4xf32>) -> ()
  }) : (tensor<i32>, tensor<4xf32>) -> (tensor<i32>, tensor<4xf32>)""",
    "%0#1",
)
_BRANCH = '{\n    "stablehlo.return"(%a1) : (tensor<4xf32>) -> ()\n  }, {\n    %n = "stablehlo.negate"(%a1) : (tensor<4xf32>) -> tensor<4xf32>\n    "stablehlo.return"(%n) : (tensor<4xf32>) -> ()\n  }'
SAMPLES["stablehlo.if"] = fn(
    ["tensor<i1>", F],
    [F],
    f'  %0 = "stablehlo.if"(%a0) ({_BRANCH}) : (tensor<i1>) -> tensor<4xf32>',
    "%0",
)
SAMPLES["stablehlo.case"] = fn(
    ["tensor<i32>", F],
    [F],
    f'  %0 = "stablehlo.case"(%a0) ({_BRANCH}) : (tensor<i32>) -> tensor<4xf32>',
    "%0",
)
SAMPLES["stablehlo.tuple"] = fn(
    [F, I32],
    [F],
    '  %t = "stablehlo.tuple"(%a0, %a1) : (tensor<4xf32>, tensor<4xi32>) -> tuple<tensor<4xf32>, tensor<4xi32>>\n  %0 = "stablehlo.get_tuple_element"(%t) {index = 0 : i32} : (tuple<tensor<4xf32>, tensor<4xi32>>) -> tensor<4xf32>',
    "%0",
)
SAMPLES["stablehlo.get_tuple_element"] = fn(
    [F],
    [F],
    '  %t = "stablehlo.custom_call"(%a0) {call_target_name = "my_kernel"} : (tensor<4xf32>) -> tuple<tensor<4xf32>, tensor<4xi32>>\n'
    '  %0 = "stablehlo.get_tuple_element"(%t) {index = 0 : i32} : (tuple<tensor<4xf32>, tensor<4xi32>>) -> tensor<4xf32>',
    "%0",
)
SAMPLES["stablehlo.optimization_barrier"] = op("stablehlo.optimization_barrier", [F], [F])
SAMPLES["stablehlo.composite"] = (
    "func.func private @dec(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n"
    + op("stablehlo.composite", [F], [F], ' {name = "my.op", decomposition = @dec}')
)
SAMPLES["stablehlo.custom_call"] = op(
    "stablehlo.custom_call", [F], [F], ' {call_target_name = "my_kernel"}'
)
SAMPLES["stablehlo.complex"] = op("stablehlo.complex", [F, F], ["tensor<4xcomplex<f32>>"])
SAMPLES["stablehlo.real"] = op("stablehlo.real", ["tensor<4xcomplex<f32>>"], [F])
SAMPLES["stablehlo.imag"] = op("stablehlo.imag", ["tensor<4xcomplex<f32>>"], [F])
SAMPLES["stablehlo.fft"] = op(
    "stablehlo.fft",
    ["tensor<4xcomplex<f32>>"],
    ["tensor<4xcomplex<f32>>"],
    " {fft_type = #stablehlo<fft_type FFT>, fft_length = array<i64: 4>}",
)
SAMPLES["stablehlo.rng"] = op(
    "stablehlo.rng",
    ["tensor<f32>", "tensor<f32>", "tensor<1xi64>"],
    [F],
    " {rng_distribution = #stablehlo<rng_distribution UNIFORM>}",
)
SAMPLES["stablehlo.rng_bit_generator"] = op(
    "stablehlo.rng_bit_generator",
    ["tensor<2xui64>"],
    ["tensor<2xui64>", "tensor<4xui32>"],
    " {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>}",
)
SAMPLES["stablehlo.cholesky"] = op("stablehlo.cholesky", [M], [M], " {lower = true}")
SAMPLES["stablehlo.triangular_solve"] = op(
    "stablehlo.triangular_solve",
    [M, M],
    [M],
    " {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>}",
)
SAMPLES["stablehlo.batch_norm_inference"] = op(
    "stablehlo.batch_norm_inference",
    ["tensor<2x3xf32>", "tensor<3xf32>", "tensor<3xf32>", "tensor<3xf32>", "tensor<3xf32>"],
    ["tensor<2x3xf32>"],
    " {epsilon = 1.0e-5 : f32, feature_index = 1 : i64}",
)
SAMPLES["stablehlo.batch_norm_training"] = op(
    "stablehlo.batch_norm_training",
    ["tensor<2x3xf32>", "tensor<3xf32>", "tensor<3xf32>"],
    ["tensor<2x3xf32>", "tensor<3xf32>", "tensor<3xf32>"],
    " {epsilon = 1.0e-5 : f32, feature_index = 1 : i64}",
)
SAMPLES["stablehlo.batch_norm_grad"] = op(
    "stablehlo.batch_norm_grad",
    ["tensor<2x3xf32>", "tensor<3xf32>", "tensor<3xf32>", "tensor<3xf32>", "tensor<2x3xf32>"],
    ["tensor<2x3xf32>", "tensor<3xf32>", "tensor<3xf32>"],
    " {epsilon = 1.0e-5 : f32, feature_index = 1 : i64}",
)
SAMPLES["stablehlo.uniform_quantize"] = op(
    "stablehlo.uniform_quantize", [F], ["tensor<4x!quant.uniform<i8:f32, 0.5:3>>"]
)
SAMPLES["stablehlo.uniform_dequantize"] = op(
    "stablehlo.uniform_dequantize", ["tensor<4x!quant.uniform<i8:f32, 0.5:3>>"], [F]
)
# tokens and distribution
SAMPLES["stablehlo.create_token"] = fn(
    [F], [F], '  %t = "stablehlo.create_token"() : () -> !stablehlo.token', "%a0"
)
SAMPLES["stablehlo.after_all"] = fn(
    [F], [F], '  %t = "stablehlo.after_all"() : () -> !stablehlo.token', "%a0"
)
SAMPLES["stablehlo.infeed"] = fn(
    ["!stablehlo.token"],
    [F],
    '  %0:2 = "stablehlo.infeed"(%a0) {infeed_config = ""} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)',
    "%0#0",
)
SAMPLES["stablehlo.outfeed"] = fn(
    [F, "!stablehlo.token"],
    [F],
    '  %t = "stablehlo.outfeed"(%a0, %a1) {outfeed_config = ""} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token',
    "%a0",
)
SAMPLES["stablehlo.send"] = fn(
    [F, "!stablehlo.token"],
    [F],
    '  %t = "stablehlo.send"(%a0, %a1) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>, is_host_transfer = true} : (tensor<4xf32>, !stablehlo.token) -> !stablehlo.token',
    "%a0",
)
SAMPLES["stablehlo.recv"] = fn(
    ["!stablehlo.token"],
    [F],
    '  %0:2 = "stablehlo.recv"(%a0) {channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>, is_host_transfer = true} : (!stablehlo.token) -> (tensor<4xf32>, !stablehlo.token)',
    "%0#0",
)
SAMPLES["stablehlo.replica_id"] = fn(
    [], ["tensor<ui32>"], '  %0 = "stablehlo.replica_id"() : () -> tensor<ui32>', "%0"
)
SAMPLES["stablehlo.partition_id"] = fn(
    [], ["tensor<ui32>"], '  %0 = "stablehlo.partition_id"() : () -> tensor<ui32>', "%0"
)
_GROUPS = "replica_groups = dense<[[0]]> : tensor<1x1xi64>"
SAMPLES["stablehlo.all_reduce"] = op(
    "stablehlo.all_reduce", [F], [F], f" {{{_GROUPS}}}", add_region(S)
)
SAMPLES["stablehlo.reduce_scatter"] = op(
    "stablehlo.reduce_scatter",
    [F],
    [F],
    f" {{scatter_dimension = 0 : i64, {_GROUPS}}}",
    add_region(S),
)
SAMPLES["stablehlo.collective_reduce"] = op(
    "stablehlo.collective_reduce", [F], [F], f" {{{_GROUPS}}}", add_region(S)
)
SAMPLES["stablehlo.all_gather"] = op(
    "stablehlo.all_gather", [F], [F], f" {{all_gather_dim = 0 : i64, {_GROUPS}}}"
)
SAMPLES["stablehlo.all_to_all"] = op(
    "stablehlo.all_to_all",
    [F],
    [F],
    f" {{split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = 1 : i64, {_GROUPS}}}",
)
SAMPLES["stablehlo.collective_permute"] = op(
    "stablehlo.collective_permute",
    [F],
    [F],
    " {source_target_pairs = dense<[[0, 0]]> : tensor<1x2xi64>}",
)
SAMPLES["stablehlo.collective_broadcast"] = op(
    "stablehlo.collective_broadcast", [F], [F], f" {{{_GROUPS}}}"
)
SAMPLES["stablehlo.async_start"] = (
    "func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n}\n"
    + fn(
        [F],
        [F],
        '  %0 = "stablehlo.async_start"(%a0) {called_computation = @f} : (tensor<4xf32>) -> !stablehlo.future<tensor<4xf32>>\n  %1 = "stablehlo.async_done"(%0) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>',
        "%1",
    )
)
SAMPLES["stablehlo.async_done"] = fn(
    ["!stablehlo.future<tensor<4xf32>>"],
    [F],
    '  %0 = "stablehlo.async_done"(%a0) : (!stablehlo.future<tensor<4xf32>>) -> tensor<4xf32>',
    "%0",
)
SAMPLES["stablehlo.torch_index_select"] = op(
    "stablehlo.torch_index_select",
    ["tensor<5x4xf32>", "tensor<2xi32>"],
    ["tensor<2x4xf32>"],
    " {dim = 0 : i64, batch_dims = 0 : i64}",
)
SAMPLES["stablehlo.return"] = SAMPLES["stablehlo.reduce"]
# chlo
for n in (
    "acos acosh asin asinh atan atanh bessel_i1e conj cosh sinh tan digamma erf erf_inv erfc lgamma square"
).split():
    SAMPLES[f"chlo.{n}"] = unary(f"chlo.{n}")
for n in ("is_inf is_neg_inf is_pos_inf").split():
    SAMPLES[f"chlo.{n}"] = unary(f"chlo.{n}", F, P)
for n in ("next_after polygamma zeta").split():
    SAMPLES[f"chlo.{n}"] = binary(f"chlo.{n}")
for n in (
    "add atan2 divide maximum minimum multiply next_after polygamma power remainder subtract zeta"
).split():
    SAMPLES[f"chlo.broadcast_{n}"] = op(f"chlo.broadcast_{n}", [F, "tensor<f32>"], [F])
for n in ("and or xor shift_left shift_right_arithmetic shift_right_logical").split():
    SAMPLES[f"chlo.broadcast_{n}"] = op(f"chlo.broadcast_{n}", [I32, "tensor<i32>"], [I32])
SAMPLES["chlo.broadcast_compare"] = op(
    "chlo.broadcast_compare",
    [F, "tensor<f32>"],
    [P],
    " {comparison_direction = #chlo<comparison_direction LT>}",
)
SAMPLES["chlo.broadcast_select"] = op("chlo.broadcast_select", ["tensor<i1>", F, F], [F])
SAMPLES["chlo.broadcast_complex"] = op(
    "chlo.broadcast_complex", [F, "tensor<f32>"], ["tensor<4xcomplex<f32>>"]
)
SAMPLES["chlo.constant"] = fn(
    [],
    [F],
    '  %0 = "chlo.constant"() {value = dense<1.0> : tensor<4xf32>} : () -> tensor<4xf32>',
    "%0",
)
SAMPLES["chlo.constant_like"] = op("chlo.constant_like", [F], [F], " {value = 1.0 : f32}")
SAMPLES["chlo.top_k"] = op(
    "chlo.top_k", ["tensor<8xf32>"], ["tensor<3xf32>", "tensor<3xi32>"], " {k = 3 : i64}"
)
SAMPLES["chlo.mulhi"] = binary("chlo.mulhi", I32)
SAMPLES["chlo.ragged_dot"] = op(
    "chlo.ragged_dot",
    ["tensor<6x4xf32>", "tensor<2x4x5xf32>", "tensor<2xi64>"],
    ["tensor<6x5xf32>"],
    " {ragged_dot_dimension_numbers = #chlo.ragged_dot<lhs_batching_dimensions = [], rhs_batching_dimensions = [], lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1], lhs_ragged_dimensions = [0], rhs_group_dimensions = [0]>, precision_config = []}",
)
SAMPLES["chlo.scan"] = op(
    "chlo.scan",
    [F, "tensor<f32>"],
    [F, "tensor<f32>"],
    " {dimension = 0 : i64}",
    add_region("chlo"),
)
SAMPLES["chlo._asin_acos_kernel"] = unary("chlo._asin_acos_kernel")
# today's mhlo beyond the pinned set
for n in ("acos acosh asin asinh atanh cosh sinh erf tan").split():
    SAMPLES[f"mhlo.{n}"] = unary(f"mhlo.{n}")
SAMPLES["mhlo.reduce_precision"] = unary(
    "mhlo.reduce_precision", attrs=" {exponent_bits = 5 : i32, mantissa_bits = 10 : i32}"
)
SAMPLES["mhlo.topk"] = op(
    "mhlo.topk",
    ["tensor<8xf32>"],
    ["tensor<3xf32>", "tensor<3xi32>"],
    " {k = 3 : i64, largest = true}",
)
SAMPLES["mhlo.stochastic_convert"] = op(
    "mhlo.stochastic_convert", [F, "tensor<4xui32>"], ["tensor<4xf16>"]
)
SAMPLES["mhlo.bitcast"] = op("mhlo.bitcast", [F], ["tensor<2x2xf32>"])
SAMPLES["mhlo.add_dependency"] = fn(
    [F, "!mhlo.token"],
    [F],
    '  %0 = "mhlo.add_dependency"(%a0, %a1) : (tensor<4xf32>, !mhlo.token) -> tensor<4xf32>',
    "%0",
)
SAMPLES["mhlo.domain"] = op(
    "mhlo.domain",
    [F],
    [F],
    ' {kind = #mhlo<kind sharding>, entry_metadata = "", exit_metadata = ""}',
)
SAMPLES["mhlo.fusion"] = op(
    "mhlo.fusion", [F], [F], "", '{\n  ^bb0:\n    "mhlo.return"(%a0) : (tensor<4xf32>) -> ()\n  }'
)
SAMPLES["mhlo.trace"] = fn(
    [F], [F], '  "mhlo.trace"(%a0) {tag = "t"} : (tensor<4xf32>) -> ()', "%a0"
)
SAMPLES["mhlo.async_update"] = fn(
    ["!mhlo.async_bundle<tensor<4xf32>, tensor<4xf32>>"],
    [F],
    '  %0 = "mhlo.async_update"(%a0) : (!mhlo.async_bundle<tensor<4xf32>, tensor<4xf32>>) -> !mhlo.async_bundle<tensor<4xf32>, tensor<4xf32>>\n',
    "%a0",
)
SAMPLES["mhlo.ragged_dot"] = SAMPLES["chlo.ragged_dot"].replace("chlo.", "mhlo.")
SAMPLES["mhlo.xla.rng_get_and_update_state"] = fn(
    [],
    ["tensor<2xui64>"],
    '  %0 = "mhlo.xla.rng_get_and_update_state"() {delta = 1 : i64} : () -> tensor<2xui64>',
    "%0",
)
SAMPLES["mhlo.copy"] = unary("mhlo.copy")
SAMPLES["mhlo.real_dynamic_slice"] = SAMPLES["stablehlo.real_dynamic_slice"].replace(
    "stablehlo.", "mhlo."
)
SAMPLES["mhlo.dynamic_broadcast_in_dim"] = op(
    "mhlo.dynamic_broadcast_in_dim",
    ["tensor<?xf32>", "tensor<2xi64>"],
    ["tensor<?x?xf32>"],
    " {broadcast_dimensions = dense<1> : tensor<1xi64>}",
)


def test_every_op_has_a_sample():
    assert sorted(SAMPLES) == sorted(BY_NAME)


def test_registered_ops_are_listed():
    """Every stablehlo / chlo op disc-ir registers is in the catalog, and every
    op marked compiled is registered."""
    registered = {c.name for c in (*stablehlo.STABLEHLO.operations, *chlo.CHLO.operations)}
    assert sorted(registered - set(BY_NAME)) == []
    ctx = make_context()
    unregistered = [
        o.name for o in OPS if o.status == COMPILED and ctx.get_optional_op(o.name) is None
    ]
    assert unregistered == []


def test_refused_ops_have_a_reason():
    assert all(o.note for o in OPS if o.status == REFUSED)
    assert {o.status for o in OPS} == {COMPILED, REFUSED}


@pytest.mark.parametrize("name", sorted(o.name for o in OPS if o.status == COMPILED))
def test_compiled(name):
    disc_ir.compile(SAMPLES[name], target="cpu")


def _names_it(message: str, name: str) -> bool:
    mnemonic = name.split(".", 1)[1]
    if f"'{name}'" in message or f"'mhlo.{mnemonic}'" in message:
        return True
    # refused at the type of its operands (tokens, futures, quantized values)
    return re.search(r"'![a-z]+\.[a-z_]+' is not supported by disc-ir", message) is not None and (
        mnemonic in message or "quant" in message
    )


@pytest.mark.parametrize("name", sorted(o.name for o in OPS if o.status == REFUSED))
def test_refused_by_name(name):
    with pytest.raises(CompileError) as info:
        disc_ir.compile(SAMPLES[name], target="cpu")
    message = str(info.value)
    assert "not supported by disc-ir" in message, message
    assert "is unknown" not in message and "unregistered operation" not in message, message
    assert _names_it(message, name), message


def test_refusal_is_located():
    """A refused op is reported at its name, with the file position."""
    with pytest.raises(
        CompileError,
        match=r"^<source>:2:9: error: 'stablehlo.cholesky' is not supported by disc-ir: ",
    ):
        disc_ir.compile(SAMPLES["stablehlo.cholesky"], target="cpu")


def test_unknown_op_keeps_the_parser_message():
    """A name that is no op of StableHLO / CHLO / mhlo is still reported as unknown."""
    text = SAMPLES["stablehlo.abs"].replace("stablehlo.abs", "stablehlo.abss")
    with pytest.raises(CompileError, match="unregistered operation 'stablehlo.abss'"):
        disc_ir.compile(text, target="cpu")


def test_ops_doc_is_current():
    """docs/ops.md is what `python -m disc_ir.tools.op_docs` generates."""
    from disc_ir.tools import op_docs

    assert op_docs.DEFAULT_OUTPUT.read_text() == op_docs.render(), (
        "docs/ops.md is stale: run `python -m disc_ir.tools.op_docs`"
    )


def test_pretty_form_and_disc_opt_refuse_by_name(tmp_path):
    """The pretty form (`stablehlo.triangular_solve %a, %b, ...`) is refused
    at the op's name too, and disc-opt reports it with file:line:col."""
    import subprocess
    import sys

    text = (
        "func.func @main(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> tensor<3x3xf32> {\n"
        "  %0 = stablehlo.triangular_solve %a, %b, left_side = true, lower = true, "
        "unit_diagonal = false, transpose_a = NO_TRANSPOSE : tensor<3x3xf32>\n"
        "  return %0 : tensor<3x3xf32>\n"
        "}\n"
    )
    with pytest.raises(
        CompileError,
        match=r"<source>:2:8: error: 'stablehlo.triangular_solve' is not supported by disc-ir",
    ):
        disc_ir.compile(text, target="cpu")
    path = tmp_path / "solve.mlir"
    path.write_text(text)
    proc = subprocess.run(
        [sys.executable, "-m", "disc_ir.tools.disc_opt", str(path)], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert (
        f"{path}:2:8: error: 'stablehlo.triangular_solve' is not supported by disc-ir"
        in proc.stderr
    )
    assert "Traceback" not in proc.stderr
