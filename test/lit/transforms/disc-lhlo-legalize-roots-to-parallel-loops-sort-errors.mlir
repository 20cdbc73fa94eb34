// RUN: not disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops=cpu-only=true 2>&1 | FileCheck %s

// The sort schedule runs on the host: a sort placed on the GPU is refused
// (mhlo-place-ops never places one there).
// CHECK: failed to lower to loops: lmhlo.sort has no GPU schedule
func.func @gpu_sort(%x: memref<?xf32>, %o: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.sort"(%x, %o) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %0 = mhlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %0 : tensor<i1>
  }) {dimension = 0 : i64, disc.device = "gpu"} : (memref<?xf32>, memref<?xf32>) -> ()
  return %o : memref<?xf32>
}

// -----

// A comparator the scalar evaluator cannot run is named.
// CHECK: the comparator of lmhlo.sort is not supported: 'mhlo.broadcast_in_dim' computes a non-scalar tensor
func.func @vector_comparator(%x: memref<?xf32>, %o: memref<?xf32>) -> memref<?xf32> {
  "lmhlo.sort"(%x, %o) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %v = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<2xf32>
    %0 = mhlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %0 : tensor<i1>
  }) {dimension = 0 : i64} : (memref<?xf32>, memref<?xf32>) -> ()
  return %o : memref<?xf32>
}
