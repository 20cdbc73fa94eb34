// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// The lmhlo_disc dialect prints in generic form, inherent attributes in the
// attribute dictionary; operand segments are `operand_segment_sizes`.

// CHECK-LABEL: func.func @copies(
func.func @copies(%h: memref<?x8xf32>, %d: memref<?x8xf32>, %i: memref<1xi64>) {
  // CHECK: "lmhlo_disc.h2d"(%arg0, %arg1) : (memref<?x8xf32>, memref<?x8xf32>) -> ()
  "lmhlo_disc.h2d"(%h, %d) : (memref<?x8xf32>, memref<?x8xf32>) -> ()
  // CHECK: "lmhlo_disc.d2h"(%arg1, %arg0) {disc.device = "cpu"} : (memref<?x8xf32>, memref<?x8xf32>) -> ()
  "lmhlo_disc.d2h"(%d, %h) {disc.device = "cpu"} : (memref<?x8xf32>, memref<?x8xf32>) -> ()
  return
}

// CHECK-LABEL: func.func @custom_calls(
func.func @custom_calls(%a: memref<2x16xf32>, %b: memref<2x16xi32>, %k: memref<i32>, %o0: memref<2x?xf32>, %o1: memref<2x?xi32>) -> memref<?xf32> {
  // CHECK: "lmhlo_disc.custom_call"(%arg0, %arg1, %arg2, %arg3, %arg4) {backend_config = "{\22dimension\22:1}", call_target_name = "topk", disc.device = "gpu", has_side_effect = false, operand_segment_sizes = array<i32: 3, 2>} : (memref<2x16xf32>, memref<2x16xi32>, memref<i32>, memref<2x?xf32>, memref<2x?xi32>) -> ()
  "lmhlo_disc.custom_call"(%a, %b, %k, %o0, %o1) {backend_config = "{\22dimension\22:1}", call_target_name = "topk", disc.device = "gpu", has_side_effect = false, operand_segment_sizes = array<i32: 3, 2>} : (memref<2x16xf32>, memref<2x16xi32>, memref<i32>, memref<2x?xf32>, memref<2x?xi32>) -> ()
  // Today's `operandSegmentSizes` property is accepted and renamed.
  // CHECK: "lmhlo_disc.custom_call"(%arg0, %arg3) {call_target_name = "test", operand_segment_sizes = array<i32: 1, 1>} : (memref<2x16xf32>, memref<2x?xf32>) -> ()
  "lmhlo_disc.custom_call"(%a, %o0) <{call_target_name = "test", operandSegmentSizes = array<i32: 1, 1>}> : (memref<2x16xf32>, memref<2x?xf32>) -> ()
  // CHECK: %0 = "lmhlo_disc.custom_call_v2"(%arg0, %arg1) {call_target_name = "foo", custom_attrs = {transpose_a = false}, device = "h", expected_input_layouts = "*,*", expected_output_layouts = "*", has_side_effect = false, input_layouts = "*,*", input_placements = "h,s", output_layouts = "*", output_placements = "h"} : (memref<2x16xf32>, memref<2x16xi32>) -> memref<?xf32>
  %0 = "lmhlo_disc.custom_call_v2"(%a, %b) {call_target_name = "foo", custom_attrs = {transpose_a = false}, device = "h", expected_input_layouts = "*,*", expected_output_layouts = "*", has_side_effect = false, input_layouts = "*,*", input_placements = "h,s", output_layouts = "*", output_placements = "h"} : (memref<2x16xf32>, memref<2x16xi32>) -> memref<?xf32>
  // CHECK: "lmhlo_disc.source_code"(%arg0, %arg3) {call_target_name = "k", code = "void k() {}", operand_segment_sizes = array<i32: 1, 1>} : (memref<2x16xf32>, memref<2x?xf32>) -> ()
  "lmhlo_disc.source_code"(%a, %o0) {call_target_name = "k", code = "void k() {}", operand_segment_sizes = array<i32: 1, 1>} : (memref<2x16xf32>, memref<2x?xf32>) -> ()
  return %0 : memref<?xf32>
}

// CHECK-LABEL: func.func @misc(
func.func @misc(%a: memref<2x4xf32>, %b: memref<2x4xf32>, %p: memref<2xi64>, %o: memref<2x8xf32>, %n: index, %x: i32) -> memref<2x4xf32> {
  // CHECK: "lmhlo_disc.printf"(%arg4, %arg5) {format = "n=%d x=%d\0A"} : (index, i32) -> ()
  "lmhlo_disc.printf"(%n, %x) {format = "n=%d x=%d\0A"} : (index, i32) -> ()
  // CHECK: "lmhlo_disc.concatenate"(%arg0, %arg1, %arg2, %arg3) {dimension = 1 : i64} : (memref<2x4xf32>, memref<2x4xf32>, memref<2xi64>, memref<2x8xf32>) -> ()
  "lmhlo_disc.concatenate"(%a, %b, %p, %o) {dimension = 1 : i64} : (memref<2x4xf32>, memref<2x4xf32>, memref<2xi64>, memref<2x8xf32>) -> ()
  // CHECK: "lmhlo_disc.args_mutation"(%arg0, %arg1) : (memref<2x4xf32>, memref<2x4xf32>) -> ()
  "lmhlo_disc.args_mutation"(%a, %b) : (memref<2x4xf32>, memref<2x4xf32>) -> ()
  // CHECK: %0:2 = "lmhlo_disc.optimization_barrier"(%arg0, %arg1) : (memref<2x4xf32>, memref<2x4xf32>) -> (memref<2x4xf32>, memref<2x4xf32>)
  %0:2 = "lmhlo_disc.optimization_barrier"(%a, %b) : (memref<2x4xf32>, memref<2x4xf32>) -> (memref<2x4xf32>, memref<2x4xf32>)
  return %0#1 : memref<2x4xf32>
}

// CHECK-LABEL: func.func @quantized(
func.func @quantized(%in: memref<?x?x?x?xi8>, %w: memref<?x?x?x?xi8>, %pad: memref<4xi32>, %s: memref<f32>, %z: memref<i32>, %out: memref<?x?x?x?xi8>) {
  // CHECK: "lmhlo_disc.quantized_dot_general"(%arg0, %arg1, %arg3, %arg4, %arg3, %arg4, %arg3, %arg4, %arg5) {axis = dense<> : tensor<0xi64>, dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1], lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3]>, use_dynamic = false, use_symmetric = true}
  "lmhlo_disc.quantized_dot_general"(%in, %w, %s, %z, %s, %z, %s, %z, %out) {
    axis = dense<> : tensor<0xi64>, use_dynamic = false, use_symmetric = true,
    dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0, 1], rhs_batching_dimensions = [0, 1],
                                      lhs_contracting_dimensions = [3], rhs_contracting_dimensions = [3]>
  } : (memref<?x?x?x?xi8>, memref<?x?x?x?xi8>, memref<f32>, memref<i32>, memref<f32>, memref<i32>, memref<f32>, memref<i32>, memref<?x?x?x?xi8>) -> ()
  // CHECK: "lmhlo_disc.quantized_dynamic_conv"(%arg0, %arg1, %arg2, %arg3, %arg4, %arg3, %arg4, %arg3, %arg4, %arg5) {axis = dense<> : tensor<0xi64>, batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, rhs_dilation = dense<1> : tensor<2xi64>, use_dynamic = false, use_symmetric = true, window_strides = dense<3> : tensor<2xi64>}
  "lmhlo_disc.quantized_dynamic_conv"(%in, %w, %pad, %s, %z, %s, %z, %s, %z, %out) {
    axis = dense<> : tensor<0xi64>, batch_group_count = 1 : i64,
    dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>,
    feature_group_count = 1 : i64, rhs_dilation = dense<1> : tensor<2xi64>,
    use_dynamic = false, use_symmetric = true, window_strides = dense<3> : tensor<2xi64>
  } : (memref<?x?x?x?xi8>, memref<?x?x?x?xi8>, memref<4xi32>, memref<f32>, memref<i32>, memref<f32>, memref<i32>, memref<f32>, memref<i32>, memref<?x?x?x?xi8>) -> ()
  return
}

// CHECK-LABEL: func.func @sparse(
func.func @sparse(%idx: memref<?x2xi64>, %shape: memref<2xi64>, %vals: memref<?xf32>, %dv: memref<f32>,
                  %oidx: memref<?x2xi64>, %ovals: memref<?xf32>, %ind: memref<?xi1>, %rmap: memref<?xi64>, %oel: memref<1xi64>,
                  %data: memref<?x8xf32>, %ids: memref<?xi32>, %out: memref<?x8xf32>, %cond: memref<?x?xi1>) {
  // CHECK: "lmhlo_disc.sparse_reshape"(%arg0, %arg1, %arg1, %arg4, %arg1) : (memref<?x2xi64>, memref<2xi64>, memref<2xi64>, memref<?x2xi64>, memref<2xi64>) -> ()
  "lmhlo_disc.sparse_reshape"(%idx, %shape, %shape, %oidx, %shape) : (memref<?x2xi64>, memref<2xi64>, memref<2xi64>, memref<?x2xi64>, memref<2xi64>) -> ()
  // CHECK: "lmhlo_disc.sparse_fill_empty_rows"(%arg0, %arg2, %arg1, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8)
  "lmhlo_disc.sparse_fill_empty_rows"(%idx, %vals, %shape, %dv, %oidx, %ovals, %ind, %rmap, %oel) : (memref<?x2xi64>, memref<?xf32>, memref<2xi64>, memref<f32>, memref<?x2xi64>, memref<?xf32>, memref<?xi1>, memref<?xi64>, memref<1xi64>) -> ()
  // CHECK: "lmhlo_disc.sparse_segment_reduction"(%arg9, %arg10, %arg10, %arg11) {reduction_mode = 1 : i64} : (memref<?x8xf32>, memref<?xi32>, memref<?xi32>, memref<?x8xf32>) -> ()
  "lmhlo_disc.sparse_segment_reduction"(%data, %ids, %ids, %out) {reduction_mode = 1 : i64} : (memref<?x8xf32>, memref<?xi32>, memref<?xi32>, memref<?x8xf32>) -> ()
  // CHECK: "lmhlo_disc.sparse_segment_reduction_with_empty_rows"(%arg9, %arg0, %arg10, %arg1, %arg11, %arg6) : (memref<?x8xf32>, memref<?x2xi64>, memref<?xi32>, memref<2xi64>, memref<?x8xf32>, memref<?xi1>) -> ()
  "lmhlo_disc.sparse_segment_reduction_with_empty_rows"(%data, %idx, %ids, %shape, %out, %ind) : (memref<?x8xf32>, memref<?x2xi64>, memref<?xi32>, memref<2xi64>, memref<?x8xf32>, memref<?xi1>) -> ()
  // CHECK: "lmhlo_disc.where"(%arg12, %arg0, %arg8) : (memref<?x?xi1>, memref<?x2xi64>, memref<1xi64>) -> ()
  "lmhlo_disc.where"(%cond, %idx, %oel) : (memref<?x?xi1>, memref<?x2xi64>, memref<1xi64>) -> ()
  return
}
