// RUN: not disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops=cpu-only=true 2>&1 | FileCheck %s

// The GPU row-reduction schedules take rank-2 row reductions only (BladeDISC
// canonicalizes reductions to rank 2 before fusion).
// CHECK: failed to lower to loops: the GPU row-reduction schedule expects a rank-2 row reduction
func.func @gpu_row(%a: memref<?x?x?xf32>, %init: memref<f32>, %o: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%a, %init, %o) ({
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<2> : tensor<1xi64>} : (memref<?x?x?xf32>, memref<f32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "row", disc.fusion_type = "kRowReduction"} : () -> ()
  return %o : memref<?x?xf32>
}

// -----

// An op without an element-wise emission (a non-splat constant) as a root.
// CHECK: failed to lower to loops: only scalar or splat lmhlo.constant can be emitted elementally
func.func @non_splat_constant(%o: memref<2xf32>) -> memref<2xf32> {
  "lmhlo.constant"(%o) {value = dense<[1.0, 2.0]> : tensor<2xf32>} : (memref<2xf32>) -> ()
  return %o : memref<2xf32>
}
