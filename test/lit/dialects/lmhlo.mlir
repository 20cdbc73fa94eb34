// RUN: disc-opt -split-input-file %s | FileCheck %s
// RUN: disc-opt -split-input-file %s | disc-opt -split-input-file | FileCheck %s

// lmhlo has no custom forms: every op prints generically, operands first and
// the written buffers last, with inherent and disc.* attributes in the dictionary.

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%f: memref<?x4xf32>, %i: memref<?x4xi32>, %fo: memref<?x4xf32>, %io: memref<?x4xi32>, %bo: memref<?x4xi1>, %co: memref<?x4xcomplex<f32>>) {
  // CHECK: "lmhlo.abs"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.abs"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.cbrt"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.cbrt"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.ceil"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.ceil"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.convert"(%arg0, %arg3) : (memref<?x4xf32>, memref<?x4xi32>) -> ()
  "lmhlo.convert"(%f, %io) : (memref<?x4xf32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.count_leading_zeros"(%arg1, %arg3) : (memref<?x4xi32>, memref<?x4xi32>) -> ()
  "lmhlo.count_leading_zeros"(%i, %io) : (memref<?x4xi32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.cosine"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.cosine"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.exponential"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.exponential"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.exponential_minus_one"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.exponential_minus_one"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.floor"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.floor"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.imag"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.imag"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.is_finite"(%arg0, %arg4) : (memref<?x4xf32>, memref<?x4xi1>) -> ()
  "lmhlo.is_finite"(%f, %bo) : (memref<?x4xf32>, memref<?x4xi1>) -> ()
  // CHECK: "lmhlo.log"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.log"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.log_plus_one"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.log_plus_one"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.logistic"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.logistic"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.not"(%arg1, %arg3) : (memref<?x4xi32>, memref<?x4xi32>) -> ()
  "lmhlo.not"(%i, %io) : (memref<?x4xi32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.negate"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.negate"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.popcnt"(%arg1, %arg3) : (memref<?x4xi32>, memref<?x4xi32>) -> ()
  "lmhlo.popcnt"(%i, %io) : (memref<?x4xi32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.real"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.real"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.round_nearest_afz"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.round_nearest_afz"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.round_nearest_even"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.round_nearest_even"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.rsqrt"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.rsqrt"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.sign"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.sign"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.sine"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.sine"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.sqrt"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.sqrt"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.tan"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.tan"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.tanh"(%arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.tanh"(%f, %fo) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.add"(%arg0, %arg0, %arg2) {disc.device = "gpu"} : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.add"(%f, %f, %fo) {disc.device = "gpu"} : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.atan2"(%arg0, %arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.atan2"(%f, %f, %fo) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.complex"(%arg0, %arg0, %arg5) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xcomplex<f32>>) -> ()
  "lmhlo.complex"(%f, %f, %co) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xcomplex<f32>>) -> ()
  // CHECK: "lmhlo.divide"(%arg0, %arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.divide"(%f, %f, %fo) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.maximum"(%arg0, %arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.maximum"(%f, %f, %fo) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.minimum"(%arg0, %arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.minimum"(%f, %f, %fo) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.multiply"(%arg0, %arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.multiply"(%f, %f, %fo) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.power"(%arg0, %arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.power"(%f, %f, %fo) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.remainder"(%arg0, %arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.remainder"(%f, %f, %fo) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.shift_left"(%arg1, %arg1, %arg3) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  "lmhlo.shift_left"(%i, %i, %io) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.shift_right_arithmetic"(%arg1, %arg1, %arg3) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  "lmhlo.shift_right_arithmetic"(%i, %i, %io) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.shift_right_logical"(%arg1, %arg1, %arg3) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  "lmhlo.shift_right_logical"(%i, %i, %io) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.subtract"(%arg0, %arg0, %arg2) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.subtract"(%f, %f, %fo) : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xf32>) -> ()
  // CHECK: "lmhlo.and"(%arg1, %arg1, %arg3) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  "lmhlo.and"(%i, %i, %io) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.or"(%arg1, %arg1, %arg3) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  "lmhlo.or"(%i, %i, %io) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.xor"(%arg1, %arg1, %arg3) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  "lmhlo.xor"(%i, %i, %io) : (memref<?x4xi32>, memref<?x4xi32>, memref<?x4xi32>) -> ()
  // CHECK: "lmhlo.compare"(%arg0, %arg0, %arg4) {comparison_direction = #mhlo<comparison_direction GE>} : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xi1>) -> ()
  "lmhlo.compare"(%f, %f, %bo) {comparison_direction = #mhlo<comparison_direction GE>} : (memref<?x4xf32>, memref<?x4xf32>, memref<?x4xi1>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @structured
func.func @structured(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %v: memref<?xf32>, %s: memref<2xindex>, %p: memref<?x?xi1>, %s0: memref<f32>, %i: memref<i32>, %q: memref<4xf32>) {
  // CHECK: "lmhlo.constant"(%arg6) {value = dense<0.000000e+00> : tensor<f32>} : (memref<f32>) -> ()
  "lmhlo.constant"(%s0) {value = dense<0.0> : tensor<f32>} : (memref<f32>) -> ()
  // CHECK: "lmhlo.iota"(%arg8) {iota_dimension = 0 : i64} : (memref<4xf32>) -> ()
  "lmhlo.iota"(%q) {iota_dimension = 0 : i64} : (memref<4xf32>) -> ()
  // CHECK: "lmhlo.dynamic_iota"(%arg4, %arg0) {iota_dimension = 1 : i64} : (memref<2xindex>, memref<?x?xf32>) -> ()
  "lmhlo.dynamic_iota"(%s, %a) {iota_dimension = 1 : i64} : (memref<2xindex>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.select"(%arg5, %arg0, %arg1, %arg2) : (memref<?x?xi1>, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.select"(%p, %a, %b, %c) : (memref<?x?xi1>, memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.clamp"(%arg6, %arg0, %arg6, %arg2) : (memref<f32>, memref<?x?xf32>, memref<f32>, memref<?x?xf32>) -> ()
  "lmhlo.clamp"(%s0, %a, %s0, %c) : (memref<f32>, memref<?x?xf32>, memref<f32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.copy"(%arg0, %arg2) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.copy"(%a, %c) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.bitcast_convert"(%arg0, %arg2) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.bitcast_convert"(%a, %c) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.reshape"(%arg8, %arg2) : (memref<4xf32>, memref<?x?xf32>) -> ()
  "lmhlo.reshape"(%q, %c) : (memref<4xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.dynamic_reshape"(%arg3, %arg4, %arg2) : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  "lmhlo.dynamic_reshape"(%v, %s, %c) : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.broadcast"(%arg3, %arg2) {broadcast_sizes = dense<4> : tensor<1xi64>} : (memref<?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.broadcast"(%v, %c) {broadcast_sizes = dense<4> : tensor<1xi64>} : (memref<?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.broadcast_in_dim"(%arg3, %arg2) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (memref<?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.broadcast_in_dim"(%v, %c) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (memref<?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.dynamic_broadcast_in_dim"(%arg3, %arg4, %arg2) {broadcast_dimensions = dense<1> : tensor<1xi64>, disc.device = "gpu"} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  "lmhlo.dynamic_broadcast_in_dim"(%v, %s, %c) {disc.device = "gpu", broadcast_dimensions = dense<1> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.transpose"(%arg0, %arg2) {permutation = dense<[1, 0]> : tensor<2xi64>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.transpose"(%a, %c) {permutation = dense<[1, 0]> : tensor<2xi64>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.reverse"(%arg0, %arg2) {dimensions = dense<0> : tensor<1xi64>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.reverse"(%a, %c) {dimensions = dense<0> : tensor<1xi64>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.slice"(%arg0, %arg2) {limit_indices = dense<2> : tensor<2xi64>, start_indices = dense<0> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.slice"(%a, %c) {limit_indices = dense<2> : tensor<2xi64>, start_indices = dense<0> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.dynamic_slice"(%arg0, %arg7, %arg7, %arg2) {slice_sizes = dense<1> : tensor<2xi64>} : (memref<?x?xf32>, memref<i32>, memref<i32>, memref<?x?xf32>) -> ()
  "lmhlo.dynamic_slice"(%a, %i, %i, %c) {slice_sizes = dense<1> : tensor<2xi64>} : (memref<?x?xf32>, memref<i32>, memref<i32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.real_dynamic_slice"(%arg0, %arg4, %arg4, %arg4, %arg2) : (memref<?x?xf32>, memref<2xindex>, memref<2xindex>, memref<2xindex>, memref<?x?xf32>) -> ()
  "lmhlo.real_dynamic_slice"(%a, %s, %s, %s, %c) : (memref<?x?xf32>, memref<2xindex>, memref<2xindex>, memref<2xindex>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.concatenate"(%arg0, %arg1, %arg2) {dimension = 1 : i64} : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.concatenate"(%a, %b, %c) {dimension = 1 : i64} : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.pad"(%arg0, %arg6, %arg2) {edge_padding_high = dense<1> : tensor<2xi64>, edge_padding_low = dense<0> : tensor<2xi64>, interior_padding = dense<0> : tensor<2xi64>}
  "lmhlo.pad"(%a, %s0, %c) {edge_padding_high = dense<1> : tensor<2xi64>, edge_padding_low = dense<0> : tensor<2xi64>, interior_padding = dense<0> : tensor<2xi64>} : (memref<?x?xf32>, memref<f32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.dynamic_pad"(%arg0, %arg6, %arg4, %arg4, %arg4, %arg2) : (memref<?x?xf32>, memref<f32>, memref<2xindex>, memref<2xindex>, memref<2xindex>, memref<?x?xf32>) -> ()
  "lmhlo.dynamic_pad"(%a, %s0, %s, %s, %s, %c) : (memref<?x?xf32>, memref<f32>, memref<2xindex>, memref<2xindex>, memref<2xindex>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.dot"(%arg0, %arg1, %arg2) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.dot"(%a, %b, %c) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.dot_general"(%arg0, %arg1, %arg2) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.dot_general"(%a, %b, %c) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.fft"(%arg8, %arg8) {fft_length = dense<4> : tensor<1xi64>, fft_type = #mhlo<fft_type FFT>} : (memref<4xf32>, memref<4xf32>) -> ()
  "lmhlo.fft"(%q, %q) {fft_length = dense<4> : tensor<1xi64>, fft_type = #mhlo<fft_type FFT>} : (memref<4xf32>, memref<4xf32>) -> ()
  // CHECK: "lmhlo.custom_call"(%arg0, %arg2) {call_target_name = "foo", operandSegmentSizes = array<i32: 1, 1>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.custom_call"(%a, %c) {call_target_name = "foo", operandSegmentSizes = array<i32: 1, 1>} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @conv_gather
func.func @conv_gather(%x: memref<?x?x?x?xf32>, %k: memref<?x?x?x?xf32>, %pad: memref<4xi32>, %y: memref<?x?x?x?xf32>, %operand: memref<?x?xf32>, %idx: memref<?x?xi32>, %sizes: memref<2xi32>, %out: memref<?x?x?xf32>) {
  // CHECK: "lmhlo.dynamic_conv"(%arg0, %arg1, %arg2, %arg3) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, disc.device = "gpu", feature_group_count = 1 : i64, rhs_dilation = dense<1> : tensor<2xi64>, window_strides = dense<1> : tensor<2xi64>} : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<4xi32>, memref<?x?x?x?xf32>) -> ()
  "lmhlo.dynamic_conv"(%x, %k, %pad, %y) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<raw
    input_batch_dimension = 0,
    input_feature_dimension = 1,
    input_spatial_dimensions = [2, 3],
    kernel_input_feature_dimension = 1,
    kernel_output_feature_dimension = 0,
    kernel_spatial_dimensions = [2, 3],
    output_batch_dimension = 0,
    output_feature_dimension = 1,
    output_spatial_dimensions = [2, 3]>,
    disc.device = "gpu", feature_group_count = 1 : i64, rhs_dilation = dense<1> : tensor<2xi64>, window_strides = dense<1> : tensor<2xi64>} : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<4xi32>, memref<?x?x?x?xf32>) -> ()
  // CHECK: "lmhlo.convolution"(%arg0, %arg1, %arg3) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64}
  "lmhlo.convolution"(%x, %k, %y) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64} : (memref<?x?x?x?xf32>, memref<?x?x?x?xf32>, memref<?x?x?x?xf32>) -> ()
  // CHECK: "lmhlo.dynamic_gather"(%arg4, %arg5, %arg6, %arg7) {dimension_numbers = #mhlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false} : (memref<?x?xf32>, memref<?x?xi32>, memref<2xi32>, memref<?x?x?xf32>) -> ()
  "lmhlo.dynamic_gather"(%operand, %idx, %sizes, %out) {dimension_numbers = #mhlo.gather<collapsed_slice_dims = [0], index_vector_dim = 2, offset_dims = [2], start_index_map = [0]>, indices_are_sorted = false} : (memref<?x?xf32>, memref<?x?xi32>, memref<2xi32>, memref<?x?x?xf32>) -> ()
  // CHECK: "lmhlo.gather"(%arg4, %arg5, %arg7) {dimension_numbers = #mhlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, slice_sizes = dense<1> : tensor<2xi64>}
  "lmhlo.gather"(%operand, %idx, %out) {dimension_numbers = #mhlo.gather<collapsed_slice_dims = [0], index_vector_dim = 2, offset_dims = [2], start_index_map = [0]>, slice_sizes = dense<1> : tensor<2xi64>} : (memref<?x?xf32>, memref<?x?xi32>, memref<?x?x?xf32>) -> ()
  return
}

// -----

// CHECK-LABEL: func.func @regions
func.func @regions(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %init: memref<f32>, %r: memref<?xf32>, %idx: memref<2xi32>, %upd: memref<2x?xf32>) {
  // CHECK: "lmhlo.fusion"() ({
  // CHECK-NEXT: "lmhlo.abs"(%arg0, %arg1) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  // CHECK-NEXT: "lmhlo.reduce"(%arg1, %arg3, %arg4) ({
  // CHECK-NEXT: ^bb0(%[[X:.*]]: memref<f32>, %[[Y:.*]]: memref<f32>, %[[Z:.*]]: memref<f32>):
  // CHECK-NEXT: "lmhlo.add"(%[[X]], %[[Y]], %[[Z]]) : (memref<f32>, memref<f32>, memref<f32>) -> ()
  // CHECK-NEXT: "lmhlo.terminator"() : () -> ()
  // CHECK-NEXT: }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
  // CHECK-NEXT: "lmhlo.terminator"() : () -> ()
  // CHECK-NEXT: }) {disc.device = "gpu", disc.fusion.name = "main_kRowReduction_reduce_0", disc.fusion_type = "kRowReduction"} : () -> ()
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%a, %b) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%b, %init, %r) ( {
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "main_kRowReduction_reduce_0", disc.fusion_type = "kRowReduction"} : () -> ()
  // CHECK: "lmhlo.scatter"(%arg0, %arg5, %arg6, %arg2) ({
  "lmhlo.scatter"(%a, %idx, %upd, %c) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    "mhlo.return"(%y) : (tensor<f32>) -> ()
  }) {scatter_dimension_numbers = #mhlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (memref<?x?xf32>, memref<2xi32>, memref<2x?xf32>, memref<?x?xf32>) -> ()
  // CHECK: "lmhlo.sort"(%arg0, %arg2) ({
  "lmhlo.sort"(%a, %c) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %lt = "mhlo.compare"(%x, %y) {comparison_direction = #mhlo<comparison_direction LT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    "mhlo.return"(%lt) : (tensor<i1>) -> ()
  }) {dimension = 1 : i64} : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  return
}
