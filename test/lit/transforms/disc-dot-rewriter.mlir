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

// Left alone: (batched) matrix products, and transposes that move a batching
// dimension.
// CHECK-LABEL: func.func @unchanged
// CHECK:         mhlo.transpose
// CHECK:         "mhlo.dot_general"(%{{.*}}, %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>}
// CHECK-NOT:     mhlo.reshape
func.func @unchanged(%arg0: tensor<2x3x4xf32>, %arg1: tensor<3x4x5xf32>) -> tensor<3x2x5xf32> {
  %t = "mhlo.transpose"(%arg0) {permutation = dense<[1, 0, 2]> : tensor<3xi64>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %0 = "mhlo.dot_general"(%t, %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<3x2x4xf32>, tensor<3x4x5xf32>) -> tensor<3x2x5xf32>
  return %0 : tensor<3x2x5xf32>
}

// -----

// Several free dims on a side (JAX's `x @ w` with x of rank 3): collapsed into
// one with a dynamic_reshape, the matrix product, the result reshaped back.
// CHECK-LABEL: func.func @free_dims_collapsed
// CHECK-DAG:     %[[C8:.*]] = arith.constant 8 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[D0:.*]] = tensor.dim %arg0, %c0
// CHECK-DAG:     %[[D1:.*]] = tensor.dim %arg0, %c1
// CHECK:         %[[M:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK:         %[[S:.*]] = tensor.from_elements %[[M]], %[[C8]] : tensor<2xindex>
// CHECK:         %[[X:.*]] = mhlo.dynamic_reshape %arg0, %[[S]] : (tensor<?x?x8xf32>, tensor<2xindex>) -> tensor<?x8xf32>
// CHECK:         %[[P:.*]] = "mhlo.dot_general"(%[[X]], %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x8xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
// CHECK:         %[[S2:.*]] = tensor.from_elements %[[D0]], %[[D1]], %[[C4]] : tensor<3xindex>
// CHECK:         %[[R:.*]] = mhlo.dynamic_reshape %[[P]], %[[S2]] : (tensor<?x4xf32>, tensor<3xindex>) -> tensor<?x?x4xf32>
// CHECK:         return %[[R]]
func.func @free_dims_collapsed(%x: tensor<?x?x8xf32>, %w: tensor<8x4xf32>) -> tensor<?x?x4xf32> {
  %0 = "mhlo.dot_general"(%x, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<?x?x8xf32>, tensor<8x4xf32>) -> tensor<?x?x4xf32>
  return %0 : tensor<?x?x4xf32>
}

// -----

// Several contracting dims: collapsed into one (static: mhlo.reshape); the
// vectors left then become matrix products (previous pattern).
// CHECK-LABEL: func.func @contracting_dims_collapsed
// CHECK:         mhlo.reshape %arg0 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK:         mhlo.reshape %arg1 : (tensor<2x3xf32>) -> tensor<6xf32>
// CHECK:         "mhlo.dot_general"({{.*}}) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<1x6xf32>, tensor<6x1xf32>) -> tensor<1x1xf32>
// CHECK:         return {{.*}} : tensor<f32>
func.func @contracting_dims_collapsed(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<f32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [0, 1], rhs_contracting_dimensions = [0, 1]>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Batching dims that are not leading: transposed to the front.
// CHECK-LABEL: func.func @batching_moved_to_front
// CHECK:         "mhlo.transpose"(%arg0) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<4x2xf32>) -> tensor<2x4xf32>
// CHECK:         "mhlo.dot_general"({{.*}}) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<2x1x4xf32>, tensor<2x4x1xf32>) -> tensor<2x1x1xf32>
// CHECK:         return {{.*}} : tensor<2xf32>
func.func @batching_moved_to_front(%a: tensor<4x2xf32>, %b: tensor<2x4xf32>) -> tensor<2xf32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [1], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [1]>} : (tensor<4x2xf32>, tensor<2x4xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A transpose that reorders free dims is not folded (the result would be
// permuted): it stays, and the free dims are collapsed after it.
// CHECK-LABEL: func.func @free_dim_transpose_kept
// CHECK:         %[[T:.*]] = "mhlo.transpose"(%arg0) {permutation = dense<[1, 0, 2]> : tensor<3xi64>}
// CHECK:         mhlo.reshape %[[T]] : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK:         "mhlo.dot_general"({{.*}}, %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<6x4xf32>, tensor<4x5xf32>) -> tensor<6x5xf32>
// CHECK:         mhlo.reshape {{.*}} : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
func.func @free_dim_transpose_kept(%x: tensor<3x2x4xf32>, %w: tensor<4x5xf32>) -> tensor<2x3x5xf32> {
  %t = "mhlo.transpose"(%x) {permutation = dense<[1, 0, 2]> : tensor<3xi64>} : (tensor<3x2x4xf32>) -> tensor<2x3x4xf32>
  %0 = "mhlo.dot_general"(%t, %w) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// No contracting dims (an outer product): a unit dim appended to each
// operand is contracted, a gemm with k = 1.
// CHECK-LABEL: func.func @outer_product
// CHECK:         "mhlo.dot_general"({{.*}}) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>} : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
// CHECK-NOT:     "mhlo.dot_general"
func.func @outer_product(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<>} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// f16 operands, f32 result: the operands are widened first (one element type
// for the gemm).
// CHECK-LABEL: func.func @mixed_precision
// CHECK:         %[[A:.*]] = mhlo.convert %arg0 : (tensor<?x4xf16>) -> tensor<?x4xf32>
// CHECK:         %[[B:.*]] = mhlo.convert %arg1 : (tensor<4x5xf16>) -> tensor<4x5xf32>
// CHECK:         "mhlo.dot_general"(%[[A]], %[[B]]) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
func.func @mixed_precision(%a: tensor<?x4xf16>, %b: tensor<4x5xf16>) -> tensor<?x5xf32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x4xf16>, tensor<4x5xf16>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}
