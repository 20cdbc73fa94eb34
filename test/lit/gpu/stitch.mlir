// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops | FileCheck %s

// A softmax stitched on the GPU with the warp-wise schedule: one warp per row
// (8 rows per 256-thread block); each row max / sum goes through an 8-slot
// shared buffer (lane 0 stores it at the warp index, a barrier follows), the
// ops between the reductions are inlined, and the division reads both
// reduction results from shared memory. No lmhlo op is left.
// CHECK-LABEL: func.func @softmax
// CHECK:         %[[BLOCKS:.*]] = arith.ceildivui %{{.*}}, %c8 : index
// CHECK:         scf.parallel (%[[B:.*]], %[[T:.*]]) = (%c0, %c0) to (%[[BLOCKS]], %c256) step (%c1, %c1) {
// CHECK:           %[[WARP:.*]] = arith.divui %[[T]], %c32 : index
// CHECK:           %[[LANE:.*]] = arith.remui %[[T]], %c32 : index
// CHECK:           %[[MAX:.*]] = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK:           scf.for %{{.*}} = %[[LANE]] to %{{.*}} step %c32
// CHECK:             arith.maximumf
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:             memref.store %{{.*}}, %[[MAX]][%[[WARP]]]
// CHECK:           gpu.barrier
// CHECK:           %[[SUM:.*]] = memref.alloc() : memref<8xf32, #gpu.address_space<workgroup>>
// CHECK:           scf.for %{{.*}} = %[[LANE]] to %{{.*}} step %c32
// CHECK:             %[[SLOT:.*]] = arith.remui %{{.*}}, %c8 : index
// CHECK:             memref.load %[[MAX]][%[[SLOT]]]
// CHECK:             arith.subf
// CHECK:             math.exp
// CHECK:             arith.addf
// CHECK-COUNT-5:   gpu.shuffle xor
// CHECK:             memref.store %{{.*}}, %[[SUM]][%[[WARP]]]
// CHECK:           gpu.barrier
// CHECK:           scf.for %{{.*}} = %[[LANE]] to %{{.*}} step %c32 {
// CHECK:             memref.load %[[MAX]]
// CHECK:             math.exp
// CHECK:             memref.load %[[SUM]]
// CHECK:             arith.divf
// CHECK:             memref.store
// The loop is (block, thread): it maps itself so.
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK-NOT:     "lmhlo.{{[a-z_]+}}"(%
// CHECK:         "lmhlo.terminator"
func.func @softmax(%in: memref<?x?xf32>, %init_max: memref<f32>, %init_sum: memref<f32>, %shape: memref<2xindex>,
                   %max: memref<?xf32>, %bmax: memref<?x?xf32>, %sub: memref<?x?xf32>, %exp: memref<?x?xf32>,
                   %sum: memref<?xf32>, %bsum: memref<?x?xf32>, %out: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%in, %init_max, %max) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.maximum"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%max, %shape, %bmax) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.subtract"(%in, %bmax, %sub) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.exponential"(%sub, %exp) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%exp, %init_sum, %sum) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%sum, %shape, %bsum) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.divide"(%exp, %bsum, %out) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "softmax", disc.fusion_type = "kStitch", disc_row_reduction_schedule_hint = 2 : i32} : () -> ()
  return %out : memref<?x?xf32>
}

// -----

// The default block-wise schedule: a block per row, the reduce result is a
// result of the fusion too (stored by thread 0 after the second round), and
// the same block then writes the elementwise output of the row.
// CHECK-LABEL: func.func @row_sum_and_scale
// CHECK:         scf.parallel (%[[B:.*]], %[[T:.*]]) = (%c0, %c0) to (%{{.*}}, %c256) step (%c1, %c1) {
// CHECK:           %[[RES:.*]] = memref.alloc() : memref<1xf32, #gpu.address_space<workgroup>>
// CHECK:           scf.for %{{.*}} = %[[T]] to %{{.*}} step %c256
// CHECK:           %[[WSM:.*]] = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK-COUNT-5:   gpu.shuffle xor %{{.*}}, %c32_i32 : f32
// CHECK:           gpu.barrier
// CHECK:           scf.if
// CHECK:             memref.load %[[WSM]]
// CHECK-COUNT-3:     gpu.shuffle xor %{{.*}}, %c8_i32 : f32
// CHECK:             scf.if
// CHECK-NEXT:          memref.store %{{.*}}, %[[RES]][%c0]
// CHECK-NEXT:          memref.store %{{.*}}, %arg2[%[[B]]] : memref<?xf32>
// CHECK:           gpu.barrier
// CHECK:           scf.for %{{.*}} = %[[T]] to %{{.*}} step %c256 {
// CHECK:             memref.load %[[RES]][%c0]
// CHECK:             arith.divf
func.func @row_sum_and_scale(%in: memref<?x?xf32>, %init: memref<f32>, %sum: memref<?xf32>, %shape: memref<2xindex>,
                             %bsum: memref<?x?xf32>, %out: memref<?x?xf32>) -> (memref<?xf32>, memref<?x?xf32>) {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%in, %init, %sum) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%sum, %shape, %bsum) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.divide"(%in, %bsum, %out) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "scale", disc.fusion_type = "kStitch"} : () -> ()
  return %sum, %out : memref<?xf32>, memref<?x?xf32>
}

// -----

// An x-root: exp is a result of the fusion and also read by the sum and the
// division. Its own skeleton loop writes it (after the max's barrier); the
// sum and the division recompute it from the input and the shared max
// rather than read it back.
// CHECK-LABEL: func.func @softmax_exp_xroot
// CHECK-SAME:  %[[EXP:[a-z0-9]+]]: memref<?x?xf32>, %{{[a-z0-9]+}}: memref<?xf32>, %{{[a-z0-9]+}}: memref<?x?xf32>, %[[OUT:[a-z0-9]+]]: memref<?x?xf32>)
// CHECK:         scf.parallel
// CHECK:           gpu.barrier
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:             memref.store %{{.*}}, %{{.*}}[%{{.*}}] : memref<?xf32>
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:             arith.addf
// CHECK:           gpu.barrier
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:             arith.divf
// CHECK:             memref.store
// CHECK-NOT:     memref.load %[[EXP]]
// CHECK-NOT:     "lmhlo.{{[a-z_]+}}"(%
// CHECK:         "lmhlo.terminator"
func.func @softmax_exp_xroot(%in: memref<?x?xf32>, %init_max: memref<f32>, %init_sum: memref<f32>, %shape: memref<2xindex>,
                   %max: memref<?xf32>, %bmax: memref<?x?xf32>, %sub: memref<?x?xf32>, %exp: memref<?x?xf32>,
                   %sum: memref<?xf32>, %bsum: memref<?x?xf32>, %out: memref<?x?xf32>) -> (memref<?x?xf32>, memref<?x?xf32>) {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%in, %init_max, %max) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.maximum"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%max, %shape, %bmax) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.subtract"(%in, %bmax, %sub) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.exponential"(%sub, %exp) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%exp, %init_sum, %sum) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%sum, %shape, %bsum) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.divide"(%exp, %bsum, %out) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "softmax_exp_xroot", disc.fusion_type = "kStitch", disc_row_reduction_schedule_hint = 2 : i32} : () -> ()
  return %out, %exp : memref<?x?xf32>, memref<?x?xf32>
}
