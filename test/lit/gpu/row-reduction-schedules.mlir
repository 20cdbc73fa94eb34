// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops | FileCheck %s

// Schedule 1 (block-wise, the default) with 128 threads per block: one block
// per row, round one over the 32 lanes of each warp, the 4 warp sums through
// shared memory, round two over 4 lanes.
// CHECK-LABEL: func.func @block_wise
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG:     %[[W32:.*]] = arith.constant 32 : i32
// CHECK-DAG:     %[[W4:.*]] = arith.constant 4 : i32
// CHECK:         scf.parallel (%[[M:.*]], %[[N:.*]]) = (%{{.*}}, %{{.*}}) to (%c64, %[[C128]]) step (%c1, %c1) {
// CHECK:           %[[WARP:.*]] = arith.divui %[[N]], %c32 : index
// CHECK:           %[[INIT:.*]] = memref.load %arg1[] : memref<f32>
// CHECK:           %[[SMEM:.*]] = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK:           %[[SUM:.*]] = scf.for %[[J:.*]] = %[[N]] to %c1000 step %[[C128]] iter_args(%[[ACC:.*]] = %[[INIT]]) -> (f32) {
// CHECK:             %[[X:.*]] = memref.load %arg0[%[[M]], %[[J]]] : memref<64x1000xf32>
// CHECK:             arith.addf %[[ACC]], %[[X]] : f32
// CHECK:           gpu.shuffle xor %[[SUM]], %c1_i32, %[[W32]] : f32
// CHECK:           gpu.shuffle xor %{{.*}}, %c2_i32, %[[W32]] : f32
// CHECK:           gpu.shuffle xor %{{.*}}, %c4_i32, %[[W32]] : f32
// CHECK:           gpu.shuffle xor %{{.*}}, %c8_i32, %[[W32]] : f32
// CHECK:           gpu.shuffle xor %{{.*}}, %c16_i32, %[[W32]] : f32
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %{{.*}}, %[[SMEM]][%[[WARP]]]
// CHECK:           gpu.barrier
// CHECK:           arith.cmpi slt, %{{.*}}, %[[C4]] : index
// CHECK:             memref.load %[[SMEM]]
// CHECK:           } else {
// CHECK-NEXT:        scf.yield %[[INIT]] : f32
// CHECK:           gpu.shuffle xor %{{.*}}, %c1_i32, %[[W4]] : f32
// CHECK:           gpu.shuffle xor %{{.*}}, %c2_i32, %[[W4]] : f32
// CHECK-NOT:       gpu.shuffle
// CHECK:           memref.store %{{.*}}, %arg2[%[[M]]] : memref<64xf32>
func.func @block_wise(%in: memref<64x1000xf32>, %init: memref<f32>, %out: memref<64xf32>) -> memref<64xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%in, %init, %out) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<64x1000xf32>, memref<f32>, memref<64xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "bw", disc.fusion_type = "kRowReduction", disc_cta_size_hint = 128 : i32} : () -> ()
  return %out : memref<64xf32>
}

// -----

// Schedule 2 (warp-wise) with 2 rows per warp: a block of 256 threads covers
// 8 warps * 2 = 16 rows; lanes stride the row by 32; one shuffle round;
// lane 0 stores both rows adjacently.
// CHECK-LABEL: func.func @warp_wise_vec2
// CHECK:         scf.parallel (%[[M:.*]], %[[N:.*]]) = (%c0, %c0) to (%c64, %c256) step (%c16, %c1) {
// CHECK:           %[[LANE:.*]] = arith.remui %[[N]], %c32 : index
// CHECK:           %[[WARP:.*]] = arith.divui %[[N]], %c32 : index
// CHECK:           %[[OFF:.*]] = arith.muli %[[WARP]], %c2 : index
// CHECK:           %[[ROW0:.*]] = arith.addi %[[M]], %[[OFF]] : index
// CHECK:           %[[ROW1:.*]] = arith.addi %[[ROW0]], %c1 : index
// CHECK:           arith.cmpi ult, %[[ROW0]], %c64 : index
// CHECK:           %[[R:.*]]:2 = scf.for %{{.*}} = %[[LANE]] to %c1000 step %c32 iter_args(%{{.*}} = %[[I:.*]], %{{.*}} = %[[I]]) -> (f32, f32)
// CHECK-COUNT-2:     arith.maximumf
// CHECK:           gpu.shuffle xor %[[R]]#0, %c1_i32, %c32_i32 : f32
// CHECK-NEXT:      arith.maximumf
// CHECK-NEXT:      gpu.shuffle xor %[[R]]#1, %c1_i32, %c32_i32 : f32
// CHECK-COUNT-8:   gpu.shuffle
// CHECK-NOT:       gpu.shuffle
// CHECK-NOT:       gpu.barrier
// CHECK:           arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK:             memref.assume_alignment %arg2, 8 : memref<64xf32>
// CHECK-NEXT:        memref.store %{{.*}}, %arg2[%[[ROW0]]] : memref<64xf32>
// CHECK-NEXT:        memref.store %{{.*}}, %arg2[%[[ROW1]]] : memref<64xf32>
func.func @warp_wise_vec2(%in: memref<64x1000xf32>, %init: memref<f32>, %out: memref<64xf32>) -> memref<64xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%in, %init, %out) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.maximum"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<64x1000xf32>, memref<f32>, memref<64xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "ww", disc.fusion_type = "kRowReduction", disc_row_reduction_schedule_hint = 2 : i32, disc_vectorize_or_tile_hint = 2 : i32} : () -> ()
  return %out : memref<64xf32>
}

// -----

// Narrow and wide element types: f16 is shuffled as f32, f64 as two i32
// halves; the block-wise shared buffer holds the element type.
// CHECK-LABEL: func.func @shuffle_types
// CHECK:         memref.alloc() : memref<32xf16, #gpu.address_space<workgroup>>
// CHECK:         memref.alloc() : memref<32xf64, #gpu.address_space<workgroup>>
// CHECK:         %[[E:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT:    %[[S:.*]]:2 = gpu.shuffle xor %[[E]], %c1_i32, %c32_i32 : f32
// CHECK-NEXT:    arith.truncf %[[S]]#0 : f32 to f16
// CHECK:         arith.bitcast %{{.*}} : f64 to i64
// CHECK:         arith.trunci %{{.*}} : i64 to i32
// CHECK:         arith.shrui
// CHECK:         gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK-NEXT:    gpu.shuffle xor %{{.*}}, %c1_i32, %c32_i32 : i32
// CHECK:         arith.ori %{{.*}} : i64
// CHECK-NEXT:    arith.bitcast %{{.*}} : i64 to f64
func.func @shuffle_types(%a: memref<8x100xf16>, %ia: memref<f16>, %oa: memref<8xf16>,
                         %b: memref<8x100xf64>, %ib: memref<f64>, %ob: memref<8xf64>) -> (memref<8xf16>, memref<8xf64>) {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%a, %ia, %oa) ({
    ^bb0(%x: memref<f16>, %y: memref<f16>, %z: memref<f16>):
      "lmhlo.add"(%x, %y, %z) : (memref<f16>, memref<f16>, memref<f16>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<8x100xf16>, memref<f16>, memref<8xf16>) -> ()
    "lmhlo.reduce"(%b, %ib, %ob) ({
    ^bb0(%x: memref<f64>, %y: memref<f64>, %z: memref<f64>):
      "lmhlo.add"(%x, %y, %z) : (memref<f64>, memref<f64>, memref<f64>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<8x100xf64>, memref<f64>, memref<8xf64>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "types", disc.fusion_type = "kRowReduction"} : () -> ()
  return %oa, %ob : memref<8xf16>, memref<8xf64>
}
