// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// The mhlo_disc dialect prints in generic form, inherent attributes in the
// attribute dictionary (sorted), as BladeDISC's MLIR printed them.

// CHECK-LABEL: func.func @copies(
func.func @copies(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  // CHECK: %0 = "mhlo_disc.h2d"(%arg0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %0 = "mhlo_disc.h2d"(%arg0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  // CHECK: %1 = "mhlo_disc.d2h"(%0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "mhlo_disc.d2h"(%0) : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @custom_calls(
func.func @custom_calls(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xi64>, %arg2: tensor<index>, %arg3: tensor<2xi32>) -> tensor<?x?xf32> {
  // CHECK: %0:2 = "mhlo_disc.custom_call"(%arg0, %arg1, %arg2) {backend_config = "{\22dimension\22: 5}", call_target_name = "topk"} : (tensor<?x?xf32>, tensor<?x?xi64>, tensor<index>) -> (tensor<?x?xf32>, tensor<?x?xi64>)
  %1, %2 = "mhlo_disc.custom_call"(%arg0, %arg1, %arg2) { backend_config = "{\"dimension\": 5}", call_target_name = "topk" } : (tensor<?x?xf32>, tensor<?x?xi64>, tensor<index>) -> (tensor<?x?xf32>, tensor<?x?xi64>)
  // CHECK: %1 = "mhlo_disc.custom_call_v2"(%arg0, %arg3) {call_target_name = "foo", custom_attrs = {}, device = "h", expected_input_layouts = "AB,A", expected_output_layouts = "AB", has_side_effect = false, input_layouts = "AB,A", input_placements = "h,h", output_layouts = "AB", output_placements = "h"} : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %3 = "mhlo_disc.custom_call_v2"(%arg0, %arg3) {
    call_target_name = "foo",
    custom_attrs = {},
    has_side_effect = false,
    device = "h",
    input_placements = "h,h",
    output_placements = "h",
    expected_input_layouts = "AB,A",
    expected_output_layouts = "AB",
    input_layouts = "AB,A",
    output_layouts = "AB"
  } : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  // `*` stands for the default layout of the value's rank.
  // Properties (today's MLIR) are read as attributes.
  // CHECK: %2 = "mhlo_disc.custom_call_v2"(%arg0, %arg3) {call_target_name = "bar", custom_attrs = {k = 1 : i64}, expected_input_layouts = "AB,A", input_layouts = "*,*"} : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %4 = "mhlo_disc.custom_call_v2"(%arg0, %arg3) <{call_target_name = "bar", custom_attrs = {k = 1 : i64}, input_layouts = "*,*", expected_input_layouts = "AB,A"}> : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @quantize(
func.func @quantize(%x: tensor<?x?xf32>, %s: tensor<f32>, %z: tensor<i32>, %cs: tensor<?xf32>, %cz: tensor<?xi32>) -> tensor<?x?xf32> {
  // CHECK: %0 = "mhlo_disc.fake_quant"(%arg0, %arg1, %arg2) {axis = dense<> : tensor<0xi64>, num_bits = 8 : i64, quant_max = 127 : i64, quant_min = -128 : i64, round_mode = 1 : i64, use_dynamic = false, use_signed = true, use_symmetric = true} : (tensor<?x?xf32>, tensor<f32>, tensor<i32>) -> tensor<?x?xf32>
  %0 = "mhlo_disc.fake_quant"(%x, %s, %z) {axis = dense<> : tensor<0xi64>, num_bits = 8 : i64, quant_max = 127 : i64, quant_min = -128 : i64, round_mode = 1 : i64, use_dynamic = false, use_signed = true, use_symmetric = true} : (tensor<?x?xf32>, tensor<f32>, tensor<i32>) -> tensor<?x?xf32>
  // CHECK: %1 = "mhlo_disc.quantize"(%0, %arg3, %arg4) {axis = dense<1> : tensor<1xi64>, quant_max = 127 : i64, quant_min = -128 : i64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x?xi8>
  %1 = "mhlo_disc.quantize"(%0, %cs, %cz) {axis = dense<1> : tensor<1xi64>, quant_max = 127 : i64, quant_min = -128 : i64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x?xi8>
  // CHECK: %2 = "mhlo_disc.dequantize"(%1, %arg3, %arg4) {axis = dense<1> : tensor<1xi64>} : (tensor<?x?xi8>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x?xf32>
  %2 = "mhlo_disc.dequantize"(%1, %cs, %cz) {axis = dense<1> : tensor<1xi64>} : (tensor<?x?xi8>, tensor<?xf32>, tensor<?xi32>) -> tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @quantized_dot_general(
func.func @quantized_dot_general(%input: tensor<?x?x?x?xi8>, %weight: tensor<?x?x?x?xi8>,
                                 %input_scale: tensor<f32>, %input_zero_point: tensor<i32>,
                                 %weight_scale: tensor<?xf32>, %weight_zero_point: tensor<?xi32>,
                                 %result_scale: tensor<f32>, %result_zero_point: tensor<i32>) -> tensor<?x?x?x?xi8> {
  // CHECK: %0 = "mhlo_disc.quantized_dot_general"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7) {axis = dense<3> : tensor<1xi64>, dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2]>, use_dynamic = false, use_symmetric = true} : (tensor<?x?x?x?xi8>, tensor<?x?x?x?xi8>, tensor<f32>, tensor<i32>, tensor<?xf32>, tensor<?xi32>, tensor<f32>, tensor<i32>) -> tensor<?x?x?x?xi8>
  %out = "mhlo_disc.quantized_dot_general"(%input, %weight,
                                           %input_scale, %input_zero_point,
                                           %weight_scale, %weight_zero_point,
                                           %result_scale, %result_zero_point) {
      use_symmetric = true,
      axis = dense<[3]> : tensor<1xi64>,
      use_dynamic = false,
      dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1],
                                        lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [2]>
  } : (tensor<?x?x?x?xi8>, tensor<?x?x?x?xi8>,
       tensor<f32>, tensor<i32>,
       tensor<?xf32>, tensor<?xi32>,
       tensor<f32>, tensor<i32>) -> tensor<?x?x?x?xi8>
  return %out : tensor<?x?x?x?xi8>
}

// CHECK-LABEL: func.func @quantized_dynamic_conv(
func.func @quantized_dynamic_conv(%input: tensor<?x?x?x?xi8>, %weight: tensor<?x?x?x?xi8>, %padding: tensor<4xi32>,
                                  %scale: tensor<f32>, %zero_point: tensor<i32>) -> tensor<?x?x?x?xi8> {
  // CHECK: %0 = "mhlo_disc.quantized_dynamic_conv"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg3, %arg4, %arg3, %arg4) {axis = dense<> : tensor<0xi64>, batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, rhs_dilation = dense<1> : tensor<2xi64>, use_dynamic = false, use_symmetric = true, window_strides = dense<3> : tensor<2xi64>}
  %out = "mhlo_disc.quantized_dynamic_conv"(%input, %weight, %padding,
                                           %scale, %zero_point, %scale, %zero_point, %scale, %zero_point) {
      use_symmetric = true,
      axis = dense<[]> : tensor<0xi64>,
      use_dynamic = false,
      dimension_numbers = #mhlo.conv<raw
        input_batch_dimension = 0,
        input_feature_dimension = 1,
        input_spatial_dimensions = [2, 3],
        kernel_input_feature_dimension = 1,
        kernel_output_feature_dimension = 0,
        kernel_spatial_dimensions = [2, 3],
        output_batch_dimension = 0,
        output_feature_dimension = 1,
        output_spatial_dimensions = [2, 3]
      >,
      batch_group_count = 1 : i64,
      feature_group_count = 1 : i64,
      rhs_dilation = dense<1> : tensor<2xi64>,
      window_strides = dense<3> : tensor<2xi64>
  } : (tensor<?x?x?x?xi8>, tensor<?x?x?x?xi8>, tensor<4xi32>,
       tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<f32>, tensor<i32>) -> tensor<?x?x?x?xi8>
  return %out : tensor<?x?x?x?xi8>
}

// CHECK-LABEL: func.func @sparse(
func.func @sparse(%idx: tensor<?x2xi64>, %shape: tensor<2xi64>, %vals: tensor<?xf32>, %dv: tensor<f32>,
                  %data: tensor<?x8xf32>, %ids: tensor<?xi32>, %cond: tensor<?x?x?xi1>) -> tensor<?x8xf32> {
  // CHECK: %0:2 = "mhlo_disc.sparse_reshape"(%arg0, %arg1, %arg1) : (tensor<?x2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<?x2xi64>, tensor<2xi64>)
  %0:2 = "mhlo_disc.sparse_reshape"(%idx, %shape, %shape) : (tensor<?x2xi64>, tensor<2xi64>, tensor<2xi64>) -> (tensor<?x2xi64>, tensor<2xi64>)
  // CHECK: %1:5 = "mhlo_disc.sparse_fill_empty_rows"(%arg0, %arg2, %arg1, %arg3) : (tensor<?x2xi64>, tensor<?xf32>, tensor<2xi64>, tensor<f32>) -> (tensor<?x2xi64>, tensor<?xf32>, tensor<?xi1>, tensor<?xi64>, tensor<1xi64>)
  %1:5 = "mhlo_disc.sparse_fill_empty_rows"(%idx, %vals, %shape, %dv) : (tensor<?x2xi64>, tensor<?xf32>, tensor<2xi64>, tensor<f32>) -> (tensor<?x2xi64>, tensor<?xf32>, tensor<?xi1>, tensor<?xi64>, tensor<1xi64>)
  // CHECK: %2 = "mhlo_disc.sparse_segment_reduction"(%arg4, %arg5, %arg5) {reduction_mode = 1 : i64} : (tensor<?x8xf32>, tensor<?xi32>, tensor<?xi32>) -> tensor<?x8xf32>
  %2 = "mhlo_disc.sparse_segment_reduction"(%data, %ids, %ids) {reduction_mode = 1 : i64} : (tensor<?x8xf32>, tensor<?xi32>, tensor<?xi32>) -> tensor<?x8xf32>
  // CHECK: %3:2 = "mhlo_disc.sparse_segment_reduction_with_empty_rows"(%arg4, %arg0, %arg5, %arg1) : (tensor<?x8xf32>, tensor<?x2xi64>, tensor<?xi32>, tensor<2xi64>) -> (tensor<?x8xf32>, tensor<?xi1>)
  %3:2 = "mhlo_disc.sparse_segment_reduction_with_empty_rows"(%data, %idx, %ids, %shape) : (tensor<?x8xf32>, tensor<?x2xi64>, tensor<?xi32>, tensor<2xi64>) -> (tensor<?x8xf32>, tensor<?xi1>)
  // CHECK: %index, %num_output_elements = "mhlo_disc.where"(%arg6) : (tensor<?x?x?xi1>) -> (tensor<?x3xi64>, tensor<1xi64>)
  %index, %num_output_elements = "mhlo_disc.where"(%cond) : (tensor<?x?x?xi1>) -> (tensor<?x3xi64>, tensor<1xi64>)
  // CHECK: "mhlo_disc.args_mutation"(%arg4, %2) : (tensor<?x8xf32>, tensor<?x8xf32>) -> ()
  "mhlo_disc.args_mutation"(%data, %2) : (tensor<?x8xf32>, tensor<?x8xf32>) -> ()
  return %2 : tensor<?x8xf32>
}
