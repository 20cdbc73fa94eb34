// RUN: disc-opt -split-input-file %s | FileCheck %s
// RUN: disc-opt -split-input-file %s | disc-opt -split-input-file | FileCheck %s
// RUN: disc-opt -split-input-file --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: disc-opt -split-input-file --mlir-print-op-generic %s | disc-opt -split-input-file | FileCheck %s

// Every mhlo op: custom forms as the pinned mlir-hlo printed them, and the
// generic form (which must parse back to the same custom output).

// CHECK-LABEL: func.func @elementwise
// GENERIC-LABEL: "func.func"
func.func @elementwise(%f: tensor<?x4xf32>, %i: tensor<?x4xi32>) {
  // CHECK: {{%.*}} = mhlo.abs %arg0 : tensor<?x4xf32>
  %abs = mhlo.abs %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.cbrt %arg0 : tensor<?x4xf32>
  %cbrt = mhlo.cbrt %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.ceil %arg0 : tensor<?x4xf32>
  %ceil = mhlo.ceil %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.convert %arg0 : (tensor<?x4xf32>) -> tensor<?x4xi32>
  %convert = mhlo.convert %f : (tensor<?x4xf32>) -> tensor<?x4xi32>
  // CHECK: {{%.*}} = mhlo.count_leading_zeros %arg1 : tensor<?x4xi32>
  %count_leading_zeros = mhlo.count_leading_zeros %i : tensor<?x4xi32>
  // CHECK: {{%.*}} = mhlo.cosine %arg0 : tensor<?x4xf32>
  %cosine = mhlo.cosine %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.exponential %arg0 : tensor<?x4xf32>
  %exponential = mhlo.exponential %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.exponential_minus_one %arg0 : tensor<?x4xf32>
  %exponential_minus_one = mhlo.exponential_minus_one %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.floor %arg0 : tensor<?x4xf32>
  %floor = mhlo.floor %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.imag %arg0 : tensor<?x4xf32>
  %imag = mhlo.imag %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.is_finite %arg0 : (tensor<?x4xf32>) -> tensor<?x4xi1>
  %is_finite = mhlo.is_finite %f : (tensor<?x4xf32>) -> tensor<?x4xi1>
  // CHECK: {{%.*}} = mhlo.log %arg0 : tensor<?x4xf32>
  %log = mhlo.log %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.log_plus_one %arg0 : tensor<?x4xf32>
  %log_plus_one = mhlo.log_plus_one %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.logistic %arg0 : tensor<?x4xf32>
  %logistic = mhlo.logistic %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.not %arg1 : tensor<?x4xi32>
  %not = mhlo.not %i : tensor<?x4xi32>
  // CHECK: {{%.*}} = mhlo.negate %arg0 : tensor<?x4xf32>
  %negate = mhlo.negate %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.popcnt %arg1 : tensor<?x4xi32>
  %popcnt = mhlo.popcnt %i : tensor<?x4xi32>
  // CHECK: {{%.*}} = mhlo.real %arg0 : tensor<?x4xf32>
  %real = mhlo.real %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.round_nearest_afz %arg0 : tensor<?x4xf32>
  %round_nearest_afz = mhlo.round_nearest_afz %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.round_nearest_even %arg0 : tensor<?x4xf32>
  %round_nearest_even = mhlo.round_nearest_even %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.rsqrt %arg0 : tensor<?x4xf32>
  %rsqrt = mhlo.rsqrt %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.sign %arg0 : tensor<?x4xf32>
  %sign = mhlo.sign %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.sine %arg0 : tensor<?x4xf32>
  %sine = mhlo.sine %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.sqrt %arg0 : tensor<?x4xf32>
  %sqrt = mhlo.sqrt %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.tan %arg0 : tensor<?x4xf32>
  %tan = mhlo.tan %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.tanh %arg0 : tensor<?x4xf32>
  %tanh = mhlo.tanh %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.add %arg0, %arg0 : tensor<?x4xf32>
  %add = mhlo.add %f, %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.atan2 %arg0, %arg0 : tensor<?x4xf32>
  %atan2 = mhlo.atan2 %f, %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.complex %arg0, %arg0 : tensor<?x4xcomplex<f32>>
  %complex = mhlo.complex %f, %f : tensor<?x4xcomplex<f32>>
  // CHECK: {{%.*}} = mhlo.divide %arg0, %arg0 : tensor<?x4xf32>
  %divide = mhlo.divide %f, %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.maximum %arg0, %arg0 : tensor<?x4xf32>
  %maximum = mhlo.maximum %f, %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.minimum %arg0, %arg0 : tensor<?x4xf32>
  %minimum = mhlo.minimum %f, %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.multiply %arg0, %arg0 : tensor<?x4xf32>
  %multiply = mhlo.multiply %f, %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.power %arg0, %arg0 : tensor<?x4xf32>
  %power = mhlo.power %f, %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.remainder %arg0, %arg0 : tensor<?x4xf32>
  %remainder = mhlo.remainder %f, %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.shift_left %arg1, %arg1 : tensor<?x4xi32>
  %shift_left = mhlo.shift_left %i, %i : tensor<?x4xi32>
  // CHECK: {{%.*}} = mhlo.shift_right_arithmetic %arg1, %arg1 : tensor<?x4xi32>
  %shift_right_arithmetic = mhlo.shift_right_arithmetic %i, %i : tensor<?x4xi32>
  // CHECK: {{%.*}} = mhlo.shift_right_logical %arg1, %arg1 : tensor<?x4xi32>
  %shift_right_logical = mhlo.shift_right_logical %i, %i : tensor<?x4xi32>
  // CHECK: {{%.*}} = mhlo.subtract %arg0, %arg0 : tensor<?x4xf32>
  %subtract = mhlo.subtract %f, %f : tensor<?x4xf32>
  // CHECK: {{%.*}} = mhlo.and %arg1, %arg1 : tensor<?x4xi32>
  %and = mhlo.and %i, %i : tensor<?x4xi32>
  // CHECK: {{%.*}} = mhlo.or %arg1, %arg1 : tensor<?x4xi32>
  %or = mhlo.or %i, %i : tensor<?x4xi32>
  // CHECK: {{%.*}} = mhlo.xor %arg1, %arg1 : tensor<?x4xi32>
  %xor = mhlo.xor %i, %i : tensor<?x4xi32>
  // GENERIC: "mhlo.abs"(%arg0) : (tensor<?x4xf32>) -> tensor<?x4xf32>
  // GENERIC: "mhlo.add"(%arg0, %arg0) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @constants_compare_select
func.func @constants_compare_select(%a: tensor<?x4xf32, [@S0, @S1]>, %b: tensor<?x4xf32, [@S0, @S1]>, %p: tensor<i1>) {
  // CHECK: mhlo.constant dense<1.000000e+00> : tensor<f32>
  %c0 = mhlo.constant dense<1.0> : tensor<f32>
  // CHECK: mhlo.constant {disc.device = "cpu"} dense<[1, 2]> : tensor<2xi32>
  %c1 = mhlo.constant {disc.device = "cpu"} dense<[1, 2]> : tensor<2xi32>
  // CHECK: mhlo.constant dense<true> : tensor<i1>
  %c2 = "mhlo.constant"() {value = dense<true> : tensor<i1>} : () -> tensor<i1>
  // CHECK: mhlo.constant dense<7> : tensor<i64>
  %c3 = "mhlo.constant"() <{value = dense<7> : tensor<i64>}> : () -> tensor<i64>
  // GENERIC: "mhlo.constant"() {value = dense<1.000000e+00> : tensor<f32>} : () -> tensor<f32>
  // CHECK: mhlo.compare  GT, %arg0, %arg1,  FLOAT : (tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32, [@S0, @S1]>) -> tensor<?x4xi1, [@S0, @S1]>
  %0 = mhlo.compare GT, %a, %b, FLOAT : (tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32, [@S0, @S1]>) -> tensor<?x4xi1, [@S0, @S1]>
  // GENERIC: "mhlo.compare"(%arg0, %arg1) {compare_type = #mhlo<comparison_type FLOAT>, comparison_direction = #mhlo<comparison_direction GT>}
  // CHECK: mhlo.compare  LT, %arg0, %arg1 : (tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32, [@S0, @S1]>) -> tensor<?x4xi1>
  %1 = "mhlo.compare"(%a, %b) {comparison_direction = #mhlo<comparison_direction LT>} : (tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32, [@S0, @S1]>) -> tensor<?x4xi1>
  // CHECK: mhlo.select %{{.*}}, %arg0, %arg1 : tensor<?x4xi1>, tensor<?x4xf32, [@S0, @S1]>
  %2 = "mhlo.select"(%1, %a, %b) : (tensor<?x4xi1>, tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32, [@S0, @S1]>) -> tensor<?x4xf32, [@S0, @S1]>
  // CHECK: mhlo.select %arg2, %arg0, %arg1 : (tensor<i1>, tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32, [@S0, @S1]>) -> tensor<?x4xf32>
  %3 = mhlo.select %p, %a, %b : (tensor<i1>, tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32, [@S0, @S1]>) -> tensor<?x4xf32>
  // CHECK: mhlo.clamp %{{.*}}, %arg0, %{{.*}} : (tensor<f32>, tensor<?x4xf32, [@S0, @S1]>, tensor<f32>) -> tensor<?x4xf32, [@S0, @S1]>
  %4 = "mhlo.clamp"(%c0, %a, %c0) : (tensor<f32>, tensor<?x4xf32, [@S0, @S1]>, tensor<f32>) -> tensor<?x4xf32, [@S0, @S1]>
  // CHECK: mhlo.add %arg0, %arg1 {disc.device = "gpu"} : tensor<?x4xf32, [@S0, @S1]>
  %5 = "mhlo.add"(%a, %b) {disc.device = "gpu"} : (tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32, [@S0, @S1]>) -> tensor<?x4xf32, [@S0, @S1]>
  // CHECK: mhlo.add %arg0, %{{.*}} : (tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32>) -> tensor<?x4xf32>
  %6 = mhlo.add %a, %3 : (tensor<?x4xf32, [@S0, @S1]>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @shapes
func.func @shapes(%a: tensor<?x?xf32>, %s: tensor<2xindex>, %v: tensor<?xf32>, %i: tensor<i32>) {
  // CHECK: "mhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xi32>
  %0 = "mhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xi32>
  // CHECK: "mhlo.dynamic_iota"(%arg1) {iota_dimension = 1 : i64} : (tensor<2xindex>) -> tensor<?x?xi32>
  %1 = "mhlo.dynamic_iota"(%s) {iota_dimension = 1 : i64} : (tensor<2xindex>) -> tensor<?x?xi32>
  // CHECK: "mhlo.broadcast"(%arg2) {broadcast_sizes = dense<3> : tensor<1xi64>} : (tensor<?xf32>) -> tensor<3x?xf32>
  %2 = "mhlo.broadcast"(%v) {broadcast_sizes = dense<3> : tensor<1xi64>} : (tensor<?xf32>) -> tensor<3x?xf32>
  // CHECK: "mhlo.broadcast_in_dim"(%arg2) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>) -> tensor<3x?xf32>
  %3 = "mhlo.broadcast_in_dim"(%v) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>) -> tensor<3x?xf32>
  // CHECK: "mhlo.dynamic_broadcast_in_dim"(%arg2, %arg1) {broadcast_dimensions = dense<1> : tensor<1xi64>, known_expanding_dimensions = dense<> : tensor<0xi64>, known_nonexpanding_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %4 = "mhlo.dynamic_broadcast_in_dim"(%v, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>, known_expanding_dimensions = dense<[]> : tensor<0xi64>, known_nonexpanding_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  // CHECK: mhlo.reshape %{{.*}} : (tensor<4xi32>) -> tensor<2x2xi32>
  %5 = "mhlo.reshape"(%0) : (tensor<4xi32>) -> tensor<2x2xi32>
  // CHECK: mhlo.dynamic_reshape %arg0, %arg1 : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %6 = mhlo.dynamic_reshape %a, %s : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  // CHECK: "mhlo.transpose"(%arg0) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %7 = "mhlo.transpose"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: "mhlo.transpose"(%arg0) {permutation = array<i64: 1, 0>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %8 = "mhlo.transpose"(%a) <{permutation = array<i64: 1, 0>}> : (tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: "mhlo.slice"(%{{.*}}) {limit_indices = dense<3> : tensor<1xi64>, start_indices = dense<1> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} : (tensor<4xi32>) -> tensor<2xi32>
  %9 = "mhlo.slice"(%0) {start_indices = dense<1> : tensor<1xi64>, limit_indices = dense<3> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} : (tensor<4xi32>) -> tensor<2xi32>
  // CHECK: "mhlo.dynamic_slice"(%{{.*}}, %arg3) {slice_sizes = dense<2> : tensor<1xi64>} : (tensor<4xi32>, tensor<i32>) -> tensor<2xi32>
  %10 = "mhlo.dynamic_slice"(%0, %i) {slice_sizes = dense<2> : tensor<1xi64>} : (tensor<4xi32>, tensor<i32>) -> tensor<2xi32>
  // CHECK: mhlo.dynamic_update_slice %{{.*}}, %{{.*}}, %arg3 : (tensor<4xi32>, tensor<2xi32>, tensor<i32>) -> tensor<4xi32>
  %11 = "mhlo.dynamic_update_slice"(%0, %10, %i) : (tensor<4xi32>, tensor<2xi32>, tensor<i32>) -> tensor<4xi32>
  // CHECK: mhlo.real_dynamic_slice %arg0, %arg1, %arg1, %arg1 : (tensor<?x?xf32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xf32>
  %12 = "mhlo.real_dynamic_slice"(%a, %s, %s, %s) : (tensor<?x?xf32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xf32>
  // CHECK: "mhlo.concatenate"(%arg0, %arg0) {dimension = 0 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %13 = "mhlo.concatenate"(%a, %a) {dimension = 0 : i64} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %z = mhlo.constant dense<0.0> : tensor<f32>
  // CHECK: "mhlo.pad"(%arg2, %{{.*}}) {edge_padding_high = dense<4> : tensor<1xi64>, edge_padding_low = dense<0> : tensor<1xi64>, interior_padding = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %14 = "mhlo.pad"(%v, %z) {edge_padding_high = dense<4> : tensor<1xi64>, edge_padding_low = dense<0> : tensor<1xi64>, interior_padding = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  // CHECK: mhlo.dynamic_pad %arg0, %{{.*}}, %arg1, %arg1, %arg1 : (tensor<?x?xf32>, tensor<f32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xf32>
  %15 = "mhlo.dynamic_pad"(%a, %z, %s, %s, %s) : (tensor<?x?xf32>, tensor<f32>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x?xf32>
  // CHECK: "mhlo.get_dimension_size"(%arg0) {dimension = 0 : i64} : (tensor<?x?xf32>) -> tensor<i32>
  %16 = "mhlo.get_dimension_size"(%a) {dimension = 0 : i64} : (tensor<?x?xf32>) -> tensor<i32>
  // CHECK: mhlo.bitcast_convert %arg0 : (tensor<?x?xf32>) -> tensor<?x?xi32>
  %17 = "mhlo.bitcast_convert"(%a) : (tensor<?x?xf32>) -> tensor<?x?xi32>
  // CHECK: "mhlo.reverse"(%arg0) {dimensions = dense<0> : tensor<1xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %18 = "mhlo.reverse"(%a) {dimensions = dense<0> : tensor<1xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: "mhlo.torch_index_select"(%arg0, %{{.*}}) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<?x?xf32>, tensor<4xi32>) -> tensor<4x?xf32>
  %19 = "mhlo.torch_index_select"(%a, %0) {batch_dims = 0 : i64, dim = 0 : i64} : (tensor<?x?xf32>, tensor<4xi32>) -> tensor<4x?xf32>
  // CHECK: mhlo.copy %arg0 : tensor<?x?xf32>
  %20 = "mhlo.copy"(%a) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %n = arith.constant 4 : index
  // CHECK: mhlo.compute_reshape_shape %{{.*}}, %arg1 : (index, tensor<2xindex>) -> tensor<2xindex>
  %21 = "mhlo.compute_reshape_shape"(%n, %s) : (index, tensor<2xindex>) -> tensor<2xindex>
  return
}

// -----

// CHECK-LABEL: func.func @linalg
func.func @linalg(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>, %x: tensor<2x3x8x8xf32>, %k: tensor<4x3x3x3xf32>, %pad: tensor<4xi32>, %idx: tensor<?x6x2xi64>, %sz: tensor<3xi64>, %src: tensor<?x?x?xi32>) {
  // CHECK: "mhlo.dot"(%arg0, %arg1) {precision_config = [#mhlo<precision DEFAULT>, #mhlo<precision HIGHEST>]} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = "mhlo.dot"(%a, %b) {precision_config = [#mhlo<precision DEFAULT>, #mhlo<precision HIGHEST>]} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: "mhlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<rhs_contracting_dimensions = [0], lhs_contracting_dimensions = [1],>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>
  %2 = "mhlo.dot_general"(%src, %src) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_batching_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<?x?x?xi32>, tensor<?x?x?xi32>) -> tensor<?x?x?xi32>
  // CHECK: mhlo.convolution(%arg2, %arg3) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  %3 = "mhlo.convolution"(%x, %k) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2, 3], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2, 3], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2, 3]>, feature_group_count = 1 : i64, padding = dense<1> : tensor<2x2xi64>, rhs_dilation = dense<1> : tensor<2xi64>, window_strides = dense<1> : tensor<2xi64>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<2x4x8x8xf32>
  // GENERIC: dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>
  // CHECK: "mhlo.dynamic_conv"(%arg2, %arg3, %arg4) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xi32>) -> tensor<?x?x?x?xf32>
  %4 = "mhlo.dynamic_conv"(%x, %k, %pad) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xi32>) -> tensor<?x?x?x?xf32>
  // CHECK: "mhlo.dynamic_gather"(%arg7, %arg5, %arg6) {dimension_numbers = #mhlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, indices_are_sorted = false} : (tensor<?x?x?xi32>, tensor<?x6x2xi64>, tensor<3xi64>) -> tensor<?x6x?xi32>
  %5 = "mhlo.dynamic_gather"(%src, %idx, %sz) {dimension_numbers = #mhlo.gather<collapsed_slice_dims = [0, 1], index_vector_dim = 2, offset_dims = [2], start_index_map = [0, 1]>, indices_are_sorted = false} : (tensor<?x?x?xi32>, tensor<?x6x2xi64>, tensor<3xi64>) -> tensor<?x6x?xi32>
  // CHECK: "mhlo.gather"(%arg7, %arg5) {dimension_numbers = #mhlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, slice_sizes = dense<[1, 1, 4]> : tensor<3xi64>} : (tensor<?x?x?xi32>, tensor<?x6x2xi64>) -> tensor<?x6x4xi32>
  %6 = "mhlo.gather"(%src, %idx) {dimension_numbers = #mhlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 2>, slice_sizes = dense<[1, 1, 4]> : tensor<3xi64>} : (tensor<?x?x?xi32>, tensor<?x6x2xi64>) -> tensor<?x6x4xi32>
  // CHECK: "mhlo.fft"(%arg0) {fft_length = dense<8> : tensor<1xi64>, fft_type = #mhlo<fft_type RFFT>} : (tensor<?x?xf32>) -> tensor<?x5xcomplex<f32>>
  %7 = "mhlo.fft"(%a) {fft_length = dense<8> : tensor<1xi64>, fft_type = #mhlo<fft_type RFFT>} : (tensor<?x?xf32>) -> tensor<?x5xcomplex<f32>>
  %lo = mhlo.constant dense<0.0> : tensor<f32>
  %shape = mhlo.constant dense<[2, 3]> : tensor<2xi64>
  // CHECK: "mhlo.rng"(%{{.*}}, %{{.*}}, %{{.*}}) {rng_distribution = #mhlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
  %8 = "mhlo.rng"(%lo, %lo, %shape) {rng_distribution = #mhlo<rng_distribution UNIFORM>} : (tensor<f32>, tensor<f32>, tensor<2xi64>) -> tensor<2x3xf32>
  return
}

// -----

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<?x?xf32>, %init: tensor<f32>) -> (tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  // CHECK: mhlo.reduce(%arg0 init: %arg1) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %0 = mhlo.reduce(%x init: %init) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  // GENERIC: "mhlo.reduce"(%arg0, %arg1) ({
  // GENERIC-NEXT: ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
  // GENERIC-NEXT: "mhlo.add"(%arg2, %arg3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
  // GENERIC-NEXT: "mhlo.return"
  // GENERIC-NEXT: }) {dimensions = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  // CHECK: mhlo.reduce(%arg0 init: %arg1) applies mhlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %1 = "mhlo.reduce"(%x, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = "mhlo.maximum"(%a, %b) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    "mhlo.return"(%m) : (tensor<f32>) -> ()
  }) {dimensions = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  // CHECK: mhlo.reduce(%arg0 init: %arg1) across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  // CHECK-NEXT: reducer(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>)  {
  // CHECK-NEXT: %[[S:.*]] = mhlo.subtract %[[A]], %[[B]] : tensor<f32>
  // CHECK-NEXT: mhlo.return %[[S]] : tensor<f32>
  // CHECK-NEXT: }
  %2 = mhlo.reduce(%x init: %init) across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
   reducer(%a: tensor<f32>, %b: tensor<f32>) {
    %s = mhlo.subtract %a, %b : tensor<f32>
    mhlo.return %s : tensor<f32>
  }
  // CHECK: "mhlo.reduce_window"(%arg0, %arg1)
  // CHECK: window_dimensions = dense<[1, 2]> : tensor<2xi64>
  %3 = "mhlo.reduce_window"(%x, %init) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %m = mhlo.maximum %a, %b : tensor<f32>
    mhlo.return %m : tensor<f32>
  }) {window_dimensions = dense<[1, 2]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  // CHECK: "mhlo.sort"(%arg0)
  // CHECK: mhlo.compare  GT
  // CHECK: {dimension = 1 : i64, is_stable = true}
  %4 = "mhlo.sort"(%x) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %c = mhlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %c : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}

// -----

// CHECK-LABEL: func.func @tuples_calls_control
func.func @tuples_calls_control(%a: tensor<4xf16>, %p: tensor<i1>, %n: tensor<i32>) -> tensor<4xf16> {
  // CHECK: mhlo.custom_call @custom_fn(%arg0) {backend_config = "cfg", has_side_effect = false} : (tensor<4xf16>) -> tuple<tensor<4xf16>, tensor<i32>>
  %0 = "mhlo.custom_call"(%a) {call_target_name = "custom_fn", backend_config = "cfg", has_side_effect = false} : (tensor<4xf16>) -> tuple<tensor<4xf16>, tensor<i32>>
  // GENERIC: "mhlo.custom_call"(%arg0) {backend_config = "cfg", call_target_name = "custom_fn", has_side_effect = false}
  // CHECK: mhlo.get_tuple_element %{{.*}}[1] : (tuple<tensor<4xf16>, tensor<i32>>) -> tensor<i32>
  %1 = mhlo.get_tuple_element %0[1] : (tuple<tensor<4xf16>, tensor<i32>>) -> tensor<i32>
  // GENERIC: "mhlo.get_tuple_element"(%{{.*}}) {index = 1 : i32}
  // CHECK: mhlo.tuple %arg0, %arg1 : tuple<tensor<4xf16>, tensor<i1>>
  %2 = "mhlo.tuple"(%a, %p) : (tensor<4xf16>, tensor<i1>) -> tuple<tensor<4xf16>, tensor<i1>>
  // CHECK: mhlo.while(%[[I:.*]] = %arg2) : tensor<i32>
  // CHECK-NEXT: cond {
  // CHECK-NEXT: mhlo.compare  LT, %[[I]], %[[I]] : (tensor<i32>, tensor<i32>) -> tensor<i1>
  // CHECK: } do {
  // CHECK-NEXT: mhlo.add %[[I]], %[[I]] : tensor<i32>
  %3 = mhlo.while(%i = %n) : tensor<i32>
   cond {
    %c = mhlo.compare LT, %i, %i : (tensor<i32>, tensor<i32>) -> tensor<i1>
    mhlo.return %c : tensor<i1>
  } do {
    %s = mhlo.add %i, %i : tensor<i32>
    mhlo.return %s : tensor<i32>
  }
  // CHECK: "mhlo.if"(%arg1) ({
  // CHECK: }, {
  // CHECK: }) : (tensor<i1>) -> tensor<4xf16>
  %4 = "mhlo.if"(%p) ({
    mhlo.return %a : tensor<4xf16>
  }, {
    %e = mhlo.exponential %a : tensor<4xf16>
    mhlo.return %e : tensor<4xf16>
  }) : (tensor<i1>) -> tensor<4xf16>
  // CHECK: "mhlo.case"(%arg2) ({
  %5 = "mhlo.case"(%n) ({
    mhlo.return %a : tensor<4xf16>
  }, {
    mhlo.return %4 : tensor<4xf16>
  }) : (tensor<i32>) -> tensor<4xf16>
  return %5 : tensor<4xf16>
}

// -----

// mhlo.erf: only today's mhlo has it (no lmhlo form).
// CHECK-LABEL: func.func @erf
func.func @erf(%f: tensor<?x4xf32>) -> tensor<?x4xf32> {
  // CHECK: {{%.*}} = mhlo.erf %arg0 : tensor<?x4xf32>
  %0 = mhlo.erf %f : tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
