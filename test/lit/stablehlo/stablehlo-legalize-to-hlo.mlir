// RUN: disc-opt -split-input-file --stablehlo-legalize-to-hlo %s | FileCheck %s

// CHECK-LABEL: func.func @ops
func.func @ops(%x: tensor<?x8xf32>, %w: tensor<8x16xf32>, %s: tensor<2xi32>, %i: tensor<4x6xf32>, %idx: tensor<3x1xi32>) -> tensor<?x16xi1> {
  // CHECK-NEXT: %[[D:.*]] = "mhlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#mhlo<precision DEFAULT>, #mhlo<precision HIGHEST>]} : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  %0 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0], precision = [DEFAULT, HIGHEST] : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
  // CHECK-NEXT: %[[C:.*]] = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  // CHECK-NEXT: %[[B:.*]] = "mhlo.dynamic_broadcast_in_dim"(%[[C]], %arg2) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xi32>) -> tensor<?x16xf32>
  %1 = stablehlo.dynamic_broadcast_in_dim %c, %s, dims = [] : (tensor<f32>, tensor<2xi32>) -> tensor<?x16xf32>
  // CHECK-NEXT: %[[CMP:.*]] = mhlo.compare  GT, %[[D]], %[[B]],  FLOAT : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xi1>
  %2 = stablehlo.compare GT, %0, %1, FLOAT : (tensor<?x16xf32>, tensor<?x16xf32>) -> tensor<?x16xi1>
  // CHECK-NEXT: "mhlo.gather"(%arg3, %arg4) {dimension_numbers = #mhlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = dense<[4, 1]> : tensor<2xi64>} : (tensor<4x6xf32>, tensor<3x1xi32>) -> tensor<4x3xf32>
  %3 = "stablehlo.gather"(%i, %idx) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x6xf32>, tensor<3x1xi32>) -> tensor<4x3xf32>
  // CHECK-NEXT: "mhlo.slice"(%arg3) {limit_indices = dense<[4, 6]> : tensor<2xi64>, start_indices = dense<[0, 1]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} : (tensor<4x6xf32>) -> tensor<4x3xf32>
  %4 = stablehlo.slice %i [0:4, 1:6:2] : (tensor<4x6xf32>) -> tensor<4x3xf32>
  // CHECK-NEXT: mhlo.reduce(%arg3 init: %[[C]]) applies mhlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = stablehlo.reduce(%i init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK-NEXT: return %[[CMP]] : tensor<?x16xi1>
  return %2 : tensor<?x16xi1>
}

// -----

// A composite becomes a call of its decomposition (the pinned mhlo has no
// composite op).
// CHECK-LABEL: func.func @composite
// CHECK-NEXT: %[[R:.*]] = call @my.tanh(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[R]]
// CHECK: func.func private @my.tanh
// CHECK-NEXT: mhlo.tanh %arg0 : tensor<4xf32>
func.func @composite(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "my.tanh" %x {decomposition = @my.tanh, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @my.tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// -----

// A composite naming a chlo op disc-ir lowers itself stays that op (as XLA
// keeps it); one with composite attributes is still a call.
// CHECK-LABEL: func.func @chlo_composite
// CHECK-NEXT: %[[E:.*]] = chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT: %[[C:.*]] = call @chlo.erf.impl(%[[E]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT: return %[[C]]
func.func @chlo_composite(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.composite "chlo.erf" %x {decomposition = @chlo.erf.impl, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "chlo.erf" %0 {composite_attributes = {mode = 1 : i32}, decomposition = @chlo.erf.impl, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
func.func private @chlo.erf.impl(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// -----

// Gather / scatter batching dimensions (StableHLO 1.x, jnp.take_along_axis
// and vmapped gathers / scatters): one more start-index component per pair,
// an iota along the indices' batching dim, concatenated on index_vector_dim;
// the operand batching dim joins start_index_map and collapsed_slice_dims
// (scatter: scatter_dims_to_operand_dims and inserted_window_dims).
// CHECK-LABEL: func.func @batched_gather
// CHECK:         %[[IOTA:.*]] = "mhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<2x3x1xi32>
// CHECK:         %[[IDX:.*]] = "mhlo.concatenate"(%arg1, %[[IOTA]]) {dimension = 2 : i64} : (tensor<2x3x1xi32>, tensor<2x3x1xi32>) -> tensor<2x3x2xi32>
// CHECK:         "mhlo.gather"(%arg0, %[[IDX]]) {dimension_numbers = #mhlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 2], start_index_map = [2, 0], index_vector_dim = 2>, slice_sizes = dense<[1, 4, 1]> : tensor<3xi64>} : (tensor<2x4x6xf32>, tensor<2x3x2xi32>) -> tensor<2x3x4xf32>
func.func @batched_gather(%x: tensor<2x4x6xf32>, %i: tensor<2x3x1xi32>) -> tensor<2x3x4xf32> {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 2>, slice_sizes = array<i64: 1, 4, 1>}> : (tensor<2x4x6xf32>, tensor<2x3x1xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Dynamic indices: the iota is a dynamic_iota over the indices' dims (the
// index vector's made 1).
// CHECK-LABEL: func.func @batched_gather_dynamic
// CHECK:         %[[D0:.*]] = "mhlo.get_dimension_size"(%arg1) {dimension = 0 : i64}
// CHECK:         %[[SHAPE:.*]] = "mhlo.concatenate"
// CHECK:         %[[IOTA:.*]] = "mhlo.dynamic_iota"(%[[SHAPE]]) {iota_dimension = 0 : i64} : (tensor<3xi64>) -> tensor<?x5x1xi32>
// CHECK:         %[[IDX:.*]] = "mhlo.concatenate"(%arg1, %[[IOTA]]) {dimension = 2 : i64} : (tensor<?x5x1xi32>, tensor<?x5x1xi32>) -> tensor<?x5x2xi32>
// CHECK:         "mhlo.gather"(%arg0, %[[IDX]]) {dimension_numbers = #mhlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [1, 0], index_vector_dim = 2>
func.func @batched_gather_dynamic(%x: tensor<?x16xf32>, %i: tensor<?x5x1xi32>) -> tensor<?x5xf32> {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1>}> : (tensor<?x16xf32>, tensor<?x5x1xi32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// CHECK-LABEL: func.func @batched_scatter
// CHECK:         %[[IOTA:.*]] = "mhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<8x3x1xi32>
// CHECK:         %[[IDX:.*]] = "mhlo.concatenate"(%arg1, %[[IOTA]]) {dimension = 2 : i64} : (tensor<8x3x1xi32>, tensor<8x3x1xi32>) -> tensor<8x3x2xi32>
// CHECK:         "mhlo.scatter"(%arg0, %[[IDX]], %arg2)
// CHECK:         scatter_dimension_numbers = #mhlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [1, 0], index_vector_dim = 2>
func.func @batched_scatter(%x: tensor<8x16xf32>, %i: tensor<8x3x1xi32>, %u: tensor<8x3xf32>) -> tensor<8x16xf32> {
  %0 = "stablehlo.scatter"(%x, %i, %u) <{scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 2>}> ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %1 = stablehlo.add %a, %b : tensor<f32>
    stablehlo.return %1 : tensor<f32>
  }) : (tensor<8x16xf32>, tensor<8x3x1xi32>, tensor<8x3xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}
