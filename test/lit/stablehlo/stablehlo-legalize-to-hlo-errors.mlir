// RUN: not disc-opt --stablehlo-legalize-to-hlo %s 2>&1 | FileCheck %s

// Gather batching dimensions must come in pairs (an operand dim per indices dim).
func.func @unpaired_batching_dims(%x: tensor<2x4x6xf32>, %i: tensor<2x3x1xi32>) -> tensor<2x3x4xf32> {
  // CHECK: error: pass 'stablehlo-legalize-to-hlo' failed: 'stablehlo.gather' op (line 6): 'stablehlo.gather': operand_batching_dims and start_indices_batching_dims differ in length
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [2], operand_batching_dims = [0], start_index_map = [2], index_vector_dim = 2>, slice_sizes = array<i64: 1, 4, 1>}> : (tensor<2x4x6xf32>, tensor<2x3x1xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
