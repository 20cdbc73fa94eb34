// RUN: disc-opt %s -split-input-file -verify-diagnostics
// The verifiers of mhlo_disc, lmhlo_disc, disc_shape and disc_ral ops.

func.func @f(%a: memref<?xf32>, %b: memref<?xi32>) {
  // expected-error @+1 {{input and output must have the same element type}}
  "lmhlo_disc.h2d"(%a, %b) : (memref<?xf32>, memref<?xi32>) -> ()
  return
}

// -----

func.func @f(%a: memref<2xf32>, %b: memref<3xf32>) {
  // expected-error @+1 {{input and output must have compatible shapes}}
  "lmhlo_disc.d2h"(%a, %b) : (memref<2xf32>, memref<3xf32>) -> ()
  return
}

// -----

func.func @f(%a: memref<?x?xi8>, %s: memref<f32>, %z: memref<i32>, %o: memref<?xi8>) {
  // expected-error @+1 {{input, weight and result should have the same rank.}}
  "lmhlo_disc.quantized_dot_general"(%a, %a, %s, %z, %s, %z, %s, %z, %o) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<?x?xi8>, memref<?x?xi8>, memref<f32>, memref<i32>, memref<f32>, memref<i32>, memref<f32>, memref<i32>, memref<?xi8>) -> ()
  return
}

// -----

func.func @f(%a: memref<?xf32>, %b: memref<?xf32>) {
  // expected-error @+1 {{'lmhlo_disc.custom_call' op operand count (2) does not match with the total size (3) specified in attribute 'operand_segment_sizes'}}
  "lmhlo_disc.custom_call"(%a, %b) {call_target_name = "x", operand_segment_sizes = array<i32: 1, 2>} : (memref<?xf32>, memref<?xf32>) -> ()
  return
}

// -----

func.func @f(%a: memref<?xf32>, %b: memref<?xf32>) {
  // expected-error @+1 {{'lmhlo_disc.custom_call' op Expected operand_segment_sizes attribute in lmhlo_disc.custom_call operation.}}
  "lmhlo_disc.custom_call"(%a, %b) {call_target_name = "x"} : (memref<?xf32>, memref<?xf32>) -> ()
  return
}

// -----

func.func @f(%a: tensor<?xf32>, %b: memref<?xf32>) {
  // expected-error @+1 {{'lmhlo_disc.custom_call' op operand 'args' at position 0 does not verify: must be memref of pred, integer, floating-point, complex or index values, but got 'tensor<?xf32>'}}
  "lmhlo_disc.custom_call"(%a, %b) {call_target_name = "x", operand_segment_sizes = array<i32: 1, 1>} : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}

// -----

func.func @f(%a: memref<?xf32>) {
  // expected-error @+1 {{mismatch input layout or expected input layout setting}}
  %0 = "lmhlo_disc.custom_call_v2"(%a) {call_target_name = "x", custom_attrs = {}, input_layouts = "AB", expected_input_layouts = "AB"} : (memref<?xf32>) -> memref<?xf32>
  return
}

// -----

func.func @f(%a: f32, %m: memref<2xf32>) {
  // expected-error @+1 {{'lmhlo_disc.printf' op operand 'args' at position 0 does not verify: must be index or signless integer, but got 'f32'}}
  "lmhlo_disc.printf"(%a) {format = "%d"} : (f32) -> ()
  return
}

// -----

func.func @f(%a: f32, %m: memref<2xf32>) {
  // expected-error @+1 {{'lmhlo_disc.concatenate' op dimension 3 is out of range [0, 1)}}
  "lmhlo_disc.concatenate"(%m, %m, %m) {dimension = 3 : i64} : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

func.func @f(%a: f32, %m: memref<2xf32>) {
  // expected-error @+1 {{'lmhlo_disc.where' op operand 'index' at position 1 does not verify: must be memref of 4/8/16/32/64-bit signless integer or 4/8/16/32/64-bit unsigned integer values, but got 'memref<2xf32>'}}
  "lmhlo_disc.where"(%m, %m, %m) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

func.func @f(%a: tensor<?x?xf32>, %b: tensor<2xi32>) {
  %0 = "mhlo_disc.custom_call_v2"(%a, %b) {call_target_name = "foo", custom_attrs = {}, input_layouts = "*,*", expected_input_layouts = "AB,A"} : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?xf32>, %b: tensor<2xi32>) {
  %0 = "mhlo_disc.custom_call_v2"(%a, %b) {call_target_name = "foo", custom_attrs = {}, input_layouts = "", expected_input_layouts = ""} : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{mismatch number of layouts for input_layouts and expected_input_layouts}}
  %0 = "mhlo_disc.custom_call_v2"(%a, %b) {call_target_name = "foo", custom_attrs = {}, input_layouts = "AB,A", expected_input_layouts = "AB"} : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{mismatch number of input layouts and number of inputs}}
  %0 = "mhlo_disc.custom_call_v2"(%a, %b) {call_target_name = "foo", custom_attrs = {}, input_layouts = "AB", expected_input_layouts = "AB"} : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{mismatch input layout or expected input layout setting}}
  %0 = "mhlo_disc.custom_call_v2"(%a, %b) {call_target_name = "foo", custom_attrs = {}, input_layouts = "AB,AB", expected_input_layouts = "AB,AB"} : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{mismatch number of output layouts and number of outputs}}
  %0 = "mhlo_disc.custom_call_v2"(%a, %b) {call_target_name = "foo", custom_attrs = {}, output_layouts = "AB,A", expected_output_layouts = "AB,A"} : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?xf32>, %b: tensor<2xi32>) {
  // expected-error @+1 {{mismatch output layout or expected output layout setting}}
  %0 = "mhlo_disc.custom_call_v2"(%a, %b) {call_target_name = "foo", custom_attrs = {}, output_layouts = "ABC", expected_output_layouts = "ABC"} : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?xf32>) {
  // expected-error @+1 {{'mhlo_disc.custom_call_v2' op attribute 'call_target_name' expected in operation 'mhlo_disc.custom_call_v2'}}
  %0 = "mhlo_disc.custom_call_v2"(%a) {custom_attrs = {}} : (tensor<?xf32>) -> tensor<?xf32>
  return
}

// -----

func.func @f(%t: tensor<?xf32>) {
  // expected-error @+1 {{'mhlo_disc.h2d' op requires the same type for all operands and results}}
  %0 = "mhlo_disc.h2d"(%t) : (tensor<?xf32>) -> tensor<?xi32>
  return
}

// -----

func.func @f(%t: memref<?xf32>) {
  // expected-error @+1 {{'mhlo_disc.d2h' op operand 'operand' at position 0 does not verify: must be tensor of floating-point or pred (AKA boolean or 1-bit integer) or 4/8/16/32/64-bit signless integer or 4/8/16/32/64-bit unsigned integer or complex type values, but got 'memref<?xf32>'}}
  %0 = "mhlo_disc.d2h"(%t) : (memref<?xf32>) -> memref<?xf32>
  return
}

// -----

func.func @f(%x: tensor<?x?xf32>, %s: tensor<f32>, %z: tensor<i32>) {
  // expected-error @+1 {{input and result have mismatch shape.}}
  %0 = "mhlo_disc.quantize"(%x, %s, %z) {axis = dense<> : tensor<0xi64>} : (tensor<?x?xf32>, tensor<f32>, tensor<i32>) -> tensor<?xi8>
  return
}

// -----

func.func @f(%x: tensor<?x?xf32>, %s: tensor<?xf32>, %z: tensor<i32>) {
  // expected-error @+1 {{scale and zero_point have mismatch rank.}}
  %0 = "mhlo_disc.quantize"(%x, %s, %z) {axis = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<?xf32>, tensor<i32>) -> tensor<?x?xi8>
  return
}

// -----

func.func @f(%x: tensor<?x?xf32>, %s: tensor<?xf32>, %z: tensor<?xi32>) {
  // expected-error @+1 {{must be tensor of 4/8/16/32/64-bit signless integer}}
  %0 = "mhlo_disc.dequantize"(%x, %s, %z) {axis = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%x: tensor<?x?xf32>, %s: tensor<?xf32>, %z: tensor<?xi32>) {
  // expected-error @+1 {{num of quantized axes (len(axis)) is not equal to the rank of scale tensor}}
  %0 = "mhlo_disc.fake_quant"(%x, %s, %z) : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%x: tensor<?x?xf32>, %s: tensor<f32>, %z: tensor<i32>) {
  // expected-error @+1 {{'mhlo_disc.fake_quant' op must be round mode whose value is one of 0 (RoundHalfAwayFromZero), 1 (RoundHalfToEven), but got '7 : i64'}}
  %0 = "mhlo_disc.fake_quant"(%x, %s, %z) {round_mode = 7 : i64} : (tensor<?x?xf32>, tensor<f32>, tensor<i32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %s: tensor<f32>, %z: tensor<i32>, %ws: tensor<f32>, %wz: tensor<i32>) {
  %0 = "mhlo_disc.quantized_dot_general"(%a, %b, %s, %z, %ws, %wz, %s, %z) {axis = dense<> : tensor<0xi64>, dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x?xi8>, tensor<?x?xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<?x?xi8>
  return
}

// -----

func.func @f(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %s: tensor<f32>, %z: tensor<i32>, %ws: tensor<f32>, %wz: tensor<i32>) {
  // expected-error @+1 {{input, weight and result should have the same rank.}}
  %0 = "mhlo_disc.quantized_dot_general"(%a, %b, %s, %z, %ws, %wz, %s, %z) {axis = dense<> : tensor<0xi64>, dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x?xi8>, tensor<?x?xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<?xi8>
  return
}

// -----

func.func @f(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %s: tensor<f32>, %z: tensor<i32>, %ws: tensor<?xf32>, %wz: tensor<i32>) {
  // expected-error @+1 {{weight_scale and weight_zero_point have mismatch shape}}
  %0 = "mhlo_disc.quantized_dot_general"(%a, %b, %s, %z, %ws, %wz, %s, %z) {axis = dense<> : tensor<0xi64>, dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x?xi8>, tensor<?x?xi8>, tensor<f32>, tensor<i32>, tensor<?xf32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<?x?xi8>
  return
}

// -----

func.func @f(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %s: tensor<f32>, %z: tensor<i32>, %ws: tensor<?xf32>, %wz: tensor<?xi32>) {
  // expected-error @+1 {{num of quantized axes (len(axis)) is not equal to the rank of weight_scale tensor}}
  %0 = "mhlo_disc.quantized_dot_general"(%a, %b, %s, %z, %ws, %wz, %s, %z) {axis = dense<> : tensor<0xi64>, dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x?xi8>, tensor<?x?xi8>, tensor<f32>, tensor<i32>, tensor<?xf32>, tensor<?xi32>, tensor<f32>, tensor<i32>) -> tensor<?x?xi8>
  return
}

// -----

func.func @f(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %s: tensor<f32>, %z: tensor<i32>, %ws: tensor<f32>, %wz: tensor<i32>) {
  // expected-error @+1 {{'mhlo_disc.quantized_dot_general' op lhs_batching_dimensions and lhs_contracting_dimensions value 2 is out of range [0, 2)}}
  %0 = "mhlo_disc.quantized_dot_general"(%a, %b, %s, %z, %ws, %wz, %s, %z) {axis = dense<> : tensor<0xi64>, dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<?x?xi8>, tensor<?x?xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<?x?xi8>
  return
}

// -----

func.func @f(%a: tensor<?x?xi8>, %b: tensor<?x?xi8>, %s: tensor<f32>, %z: tensor<i32>, %ws: tensor<f32>, %wz: tensor<i32>) {
  // expected-error @+1 {{same number of contracting dimensions}}
  %0 = "mhlo_disc.quantized_dot_general"(%a, %b, %s, %z, %ws, %wz, %s, %z) {axis = dense<> : tensor<0xi64>, dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1, 0], rhs_contracting_dimensions = [0]>} : (tensor<?x?xi8>, tensor<?x?xi8>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<?x?xi8>
  return
}

// -----

func.func @f(%a: tensor<?x?x?x?xi8>, %p: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>) {
  %0 = "mhlo_disc.quantized_dynamic_conv"(%a, %a, %p, %s, %z, %s, %z, %s, %z) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, window_strides = dense<1> : tensor<2xi64>} : (tensor<?x?x?x?xi8>, tensor<?x?x?x?xi8>, tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<?x?x?x?xi8>
  return
}

// -----

func.func @f(%a: tensor<?x?x?x?xi8>, %p: tensor<4xi32>, %s: tensor<f32>, %z: tensor<i32>) {
  // expected-error @+1 {{expects window_strides to have 2 elements}}
  %0 = "mhlo_disc.quantized_dynamic_conv"(%a, %a, %p, %s, %z, %s, %z, %s, %z) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, window_strides = dense<1> : tensor<3xi64>} : (tensor<?x?x?x?xi8>, tensor<?x?x?x?xi8>, tensor<4xi32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<?x?x?x?xi8>
  return
}

// -----

func.func @f(%a: tensor<?x?x?x?xi8>, %p: tensor<4xi32>, %s: tensor<1xf32>, %z: tensor<i32>) {
  // expected-error @+1 {{input_scale and input_zero_point only support per-tensor quantization}}
  %0 = "mhlo_disc.quantized_dynamic_conv"(%a, %a, %p, %s, %z, %s, %z, %s, %z) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64} : (tensor<?x?x?x?xi8>, tensor<?x?x?x?xi8>, tensor<4xi32>, tensor<1xf32>, tensor<i32>, tensor<1xf32>, tensor<i32>, tensor<1xf32>, tensor<i32>) -> tensor<?x?x?x?xi8>
  return
}

// -----

func.func @f(%c: tensor<?x?xi1>) {
  // expected-error @+1 {{'mhlo_disc.where' op output must be a matrix}}
  %0:2 = "mhlo_disc.where"(%c) : (tensor<?x?xi1>) -> (tensor<?xi64>, tensor<1xi64>)
  return
}

// -----

func.func @f(%c: tensor<?x?xi1>) {
  // expected-error @+1 {{must be tensor of 64-bit signless integer values}}
  %0:2 = "mhlo_disc.where"(%c) : (tensor<?x?xi1>) -> (tensor<?x2xi32>, tensor<1xi64>)
  return
}

// -----

func.func @f(%i: tensor<?xi64>, %s: tensor<2xi64>) {
  // expected-error @+1 {{Input/Output indices must be a matrix.}}
  %0:2 = "mhlo_disc.sparse_reshape"(%i, %s, %s) : (tensor<?xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<?x2xi64>, tensor<2xi64>)
  return
}

// -----

func.func @f(%i: tensor<?x2xi64>, %v: tensor<?xf32>, %s: tensor<?xi64>, %d: tensor<f32>) {
  // expected-error @+1 {{dense_shape should has static shape}}
  %0:5 = "mhlo_disc.sparse_fill_empty_rows"(%i, %v, %s, %d) : (tensor<?x2xi64>, tensor<?xf32>, tensor<?xi64>, tensor<f32>) -> (tensor<?x2xi64>, tensor<?xf32>, tensor<?xi1>, tensor<?xi64>, tensor<1xi64>)
  return
}

// -----

func.func @f(%d: tensor<?x8xf32>, %i: tensor<4xi32>, %s: tensor<5xi32>) {
  // expected-error @+1 {{segment_ids and indices should have same size}}
  %0 = "mhlo_disc.sparse_segment_reduction"(%d, %i, %s) : (tensor<?x8xf32>, tensor<4xi32>, tensor<5xi32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @f(%d: tensor<?x8x2xf32>, %i: tensor<?x2xi64>, %s: tensor<?xi32>, %ds: tensor<2xi64>) {
  // expected-error @+1 {{input must be matrix since other rank is not supported}}
  %0:2 = "mhlo_disc.sparse_segment_reduction_with_empty_rows"(%d, %i, %s, %ds) : (tensor<?x8x2xf32>, tensor<?x2xi64>, tensor<?xi32>, tensor<2xi64>) -> (tensor<?x8x2xf32>, tensor<?xi1>)
  return
}

// -----

func.func @f(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{must be context, but got 'index'}}
  %0 = "disc_ral.recv_input"(%c0, %c0) : (index, index) -> memref<?xf32>
  return
}

// -----

func.func @f(%ctx: !disc_ral.context, %m: memref<?xf32>) {
  // expected-error @+1 {{'disc_ral.dispatch' op operand 'ctx' at position 0 does not verify: must be context, but got 'memref<?xf32>'}}
  "disc_ral.dispatch"(%m, %ctx) {call_target_name = "x"} : (memref<?xf32>, !disc_ral.context) -> ()
  return
}

// -----

func.func @f(%ctx: !disc_ral.context, %b: memref<2xi32>, %i: index) {
  // expected-error @+1 {{must be 1D memref of index values}}
  "disc_ral.cpu_launch"(%ctx, %b, %b, %b, %i) {callee = @k} : (!disc_ral.context, memref<2xi32>, memref<2xi32>, memref<2xi32>, index) -> ()
  return
}

// -----

func.func @f(%ctx: !disc_ral.context) {
  // expected-error @+1 {{'disc_ral.dispatch' op attribute 'call_target_name' expected in operation 'disc_ral.dispatch'}}
  "disc_ral.dispatch"(%ctx) : (!disc_ral.context) -> ()
  return
}

// -----

func.func @f(%ctx: !disc_ral.context) {
  // expected-error @+1 {{'disc_ral.recv_input' op Expected 2 operands, but got 1}}
  %0 = "disc_ral.recv_input"(%ctx) : (!disc_ral.context) -> memref<?xf32>
  return
}

// -----

func.func @f(%ctx: !disc_ral.context, %t: tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{must be memref of any type values, but got 'tensor<?xf32>'}}
  "disc_ral.send_output"(%ctx, %c0, %t) : (!disc_ral.context, index, tensor<?xf32>) -> ()
  return
}

// -----

func.func @f(%ctx: !disc_ral.context, %i: i32) {
  // expected-error @+1 {{'disc_ral.recv_input' op operand 'input_idx' at position 1 does not verify: must be index, but got 'i32'}}
  %0 = "disc_ral.recv_input"(%ctx, %i) : (!disc_ral.context, i32) -> memref<?xf32>
  return
}

// -----

func.func @f(%m: memref<?xf32>) {
  // expected-error @+1 {{must be 64-bit signless integer, but got 'i32'}}
  %0 = "disc_ral.get_pointer"(%m) : (memref<?xf32>) -> i32
  return
}

// -----

func.func @f(%ctx: !disc_ral.context, %m: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %0 = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?xf32>
  "disc_ral.send_output"(%ctx, %c0, %0) : (!disc_ral.context, index, memref<?xf32>) -> ()
  %1 = "disc_ral.dispatch"(%ctx, %m) {backend_config = "", call_target_name = "x", device = "cpu", has_side_effect = false} : (!disc_ral.context, memref<?xf32>) -> i32
  %2 = "disc_ral.get_pointer"(%m) : (memref<?xf32>) -> i64
  return
}

// -----

func.func @f(%i: index, %d: index) {
  // expected-error @+1 {{expects one result per dimension size, got 1 results and 2 dimension sizes}}
  %0 = "disc_shape.delinearize"(%i, %d, %d) : (index, index, index) -> index
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{must be flat symbol reference attribute}}
  %0 = "disc_shape.dim"() {name = @a::@b} : () -> index
  return
}

// -----

func.func @f(%i: index, %d: index) {
  // expected-error @+1 {{'disc_shape.linearize' op Expected operand_segment_sizes attribute in disc_shape.linearize operation.}}
  %0 = "disc_shape.linearize"(%i, %d) : (index, index) -> index
  return
}

// -----

func.func @f(%i: index, %d: index) {
  // expected-error @+1 {{expects as many indices as dimension sizes, got 2 and 1}}
  %0 = "disc_shape.linearize"(%i, %i, %d) {operand_segment_sizes = array<i32: 2, 1>} : (index, index, index) -> index
  return
}

// -----

func.func @f(%i: i32, %d: index) {
  // expected-error @+1 {{'disc_shape.linearize' op operand 'multiDimIndexes' at position 0 does not verify: must be index, but got 'i32'}}
  %0 = "disc_shape.linearize"(%i, %d) {operand_segment_sizes = array<i32: 1, 1>} : (i32, index) -> index
  return
}

// -----

// expected-error @+1 {{'disc_shape.SymbolicDim' op attribute 'sym_name' expected in operation 'disc_shape.SymbolicDim'}}
"disc_shape.SymbolicDim"() {value = 3 : i64} : () -> ()

// -----

// expected-error @+1 {{must be 64-bit signless integer attribute}}
"disc_shape.SymbolicDim"() {sym_name = "S0", value = 3 : i32} : () -> ()

// -----

func.func @f(%t: tensor<?x?xf32>, %d: index) {
  // expected-error @+1 {{expects one dimension size per dimension of tensor<?x?xf32>, got 1}}
  %0 = "disc_shape.tie_shape"(%t, %d) : (tensor<?x?xf32>, index) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%t: tensor<?xf32>, %d: index) {
  // expected-error @+1 {{does not match the operand type}}
  %0 = "disc_shape.tie_shape"(%t, %d) : (tensor<?xf32>, index) -> tensor<?xi32>
  return
}

// -----

"disc_shape.SymbolicDim"() {sym_name = "S0", value = -9223372036854775808 : i64} : () -> ()
func.func @f(%i: index, %d: index, %t: tensor<?x?xf32>) {
  %0 = "disc_shape.linearize"(%i, %i, %d, %d) {operand_segment_sizes = array<i32: 2, 2>} : (index, index, index, index) -> index
  %1:2 = "disc_shape.delinearize"(%0, %d, %d) : (index, index, index) -> (index, index)
  %2 = "disc_shape.tie_shape"(%t, %d, %d) : (tensor<?x?xf32>, index, index) -> tensor<?x?xf32>
  %3 = "disc_shape.dim"() {name = @S0} : () -> index
  "disc_shape.tie_product_equal"(%i, %d, %3) {operand_segment_sizes = array<i32: 2, 1>} : (index, index, index) -> ()
  return
}
