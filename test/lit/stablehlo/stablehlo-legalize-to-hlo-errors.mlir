// RUN: not disc-opt --stablehlo-legalize-to-hlo %s 2>&1 | FileCheck %s

// Gather batching dimensions (StableHLO 1.x) have no mhlo form.
func.func @batched_gather(%x: tensor<2x4x6xf32>, %i: tensor<2x3x1xi32>) -> tensor<2x3x4xf32> {
  // CHECK: error: pass 'stablehlo-legalize-to-hlo' failed: 'stablehlo.gather' op (line 6): #stablehlo.gather fields operand_batching_dims, start_indices_batching_dims have no #mhlo.gather form
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [2], index_vector_dim = 2>, slice_sizes = array<i64: 1, 4, 1>}> : (tensor<2x4x6xf32>, tensor<2x3x1xi32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}
