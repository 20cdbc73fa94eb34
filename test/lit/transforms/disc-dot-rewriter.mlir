// RUN: disc-opt %s -split-input-file -disc-dot-rewriter | FileCheck %s

// mhlo.dot of matrices: a dot_general contracting lhs dim 1 with rhs dim 0;
// transposes of both operands fold into the contracting dimensions.
// CHECK-LABEL: func.func @dot_2d_transposed
// CHECK-SAME:    (%[[A:.*]]: tensor<4x?xf32>, %[[B:.*]]: tensor<8x?xf32>)
// CHECK-NOT:     mhlo.transpose
// CHECK:         %[[D:.*]] = "mhlo.dot_general"(%[[A]], %[[B]]) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<4x?xf32>, tensor<8x?xf32>) -> tensor<?x?xf32>
// CHECK-NEXT:    return %[[D]]
func.func @dot_2d_transposed(%a: tensor<4x?xf32>, %b: tensor<8x?xf32>) -> tensor<?x?xf32> {
  %at = "mhlo.transpose"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<4x?xf32>) -> tensor<?x4xf32>
  %bt = "mhlo.transpose"(%b) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<8x?xf32>) -> tensor<?x8xf32>
  %0 = "mhlo.dot"(%at, %bt) : (tensor<?x4xf32>, tensor<?x8xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A transpose used elsewhere stays for that use; precision_config is kept.
// CHECK-LABEL: func.func @shared_transpose
// CHECK:         %[[T:.*]] = "mhlo.transpose"(%arg0)
// CHECK:         "mhlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#mhlo<precision HIGHEST>, #mhlo<precision DEFAULT>]}
// CHECK:         return {{.*}}, %[[T]]
func.func @shared_transpose(%arg0: tensor<3x5xf32>, %arg1: tensor<3x7xf32>) -> (tensor<5x7xf32>, tensor<5x3xf32>) {
  %t = "mhlo.transpose"(%arg0) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<3x5xf32>) -> tensor<5x3xf32>
  %0 = "mhlo.dot"(%t, %arg1) {precision_config = [#mhlo<precision HIGHEST>, #mhlo<precision DEFAULT>]} : (tensor<5x3xf32>, tensor<3x7xf32>) -> tensor<5x7xf32>
  return %0, %t : tensor<5x7xf32>, tensor<5x3xf32>
}

// -----

// Batched matrix x vector: the vector gets a unit minor dimension, removed
// again from the product.
// CHECK-LABEL: func.func @batched_mat_vec
// CHECK-SAME:    (%[[M:.*]]: tensor<?x4x8xf32>, %[[V:.*]]: tensor<?x8xf32>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK:         %[[B:.*]] = tensor.dim %[[V]], %[[C0]] : tensor<?x8xf32>
// CHECK:         %[[S:.*]] = tensor.from_elements %[[B]], %[[C8]], %[[C1]] : tensor<3xindex>
// CHECK:         %[[VM:.*]] = mhlo.dynamic_reshape %[[V]], %[[S]] : (tensor<?x8xf32>, tensor<3xindex>) -> tensor<?x8x1xf32>
// CHECK:         %[[P:.*]] = "mhlo.dot_general"(%[[M]], %[[VM]]) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x4x8xf32>, tensor<?x8x1xf32>) -> tensor<?x4x1xf32>
// CHECK:         %[[PB:.*]] = tensor.dim %[[P]], %[[C0]] : tensor<?x4x1xf32>
// CHECK:         %[[S2:.*]] = tensor.from_elements %[[PB]], %{{.*}} : tensor<2xindex>
// CHECK:         %[[R:.*]] = mhlo.dynamic_reshape %[[P]], %[[S2]] : (tensor<?x4x1xf32>, tensor<2xindex>) -> tensor<?x4xf32>
// CHECK:         return %[[R]]
func.func @batched_mat_vec(%m: tensor<?x4x8xf32>, %v: tensor<?x8xf32>) -> tensor<?x4xf32> {
  %0 = "mhlo.dot_general"(%m, %v) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x4x8xf32>, tensor<?x8xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// Left alone: matrix products, several contracting dims, batching dims that
// are not leading, and transposes that move a batching dimension.
// CHECK-LABEL: func.func @unchanged
// CHECK:         mhlo.transpose
// CHECK:         "mhlo.dot_general"(%{{.*}}, %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}
// CHECK:         "mhlo.dot_general"(%arg2, %arg3) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>}
// CHECK:         "mhlo.dot_general"(%arg4, %arg5) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [1], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>}
func.func @unchanged(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3x4x5xf32>, %arg2: tensor<2x3xf32>, %arg3: tensor<2x3xf32>, %arg4: tensor<4x2xf32>, %arg5: tensor<2x4xf32>) -> (tensor<3x2x5xf32>, tensor<f32>, tensor<2xf32>) {
  %t = "mhlo.transpose"(%arg0) {permutation = dense<[1, 0, 2]> : tensor<3xi64>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %0 = "mhlo.dot_general"(%t, %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<3x2x4xf32>, tensor<3x4x5xf32>) -> tensor<3x2x5xf32>
  %1 = "mhlo.dot_general"(%arg2, %arg3) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  %2 = "mhlo.dot_general"(%arg4, %arg5) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [1], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<2xf32>
  return %0, %1, %2 : tensor<3x2x5xf32>, tensor<f32>, tensor<2xf32>
}
