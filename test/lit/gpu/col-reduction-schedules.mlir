// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops | FileCheck %s

// Thread tile (the default): the output is first filled with the init value,
// then 512 threads per block each reduce 32 rows of one column and add the
// result atomically.
// CHECK-LABEL: func.func @thread_tile
// CHECK:         scf.parallel (%[[I:.*]]) = (%c0) to (%c100) step (%c1) {
// CHECK:           %[[IDX:.*]] = "disc_shape.delinearize"(%[[I]], %c100)
// CHECK:           %[[INIT:.*]] = memref.load %arg1[] : memref<f32>
// CHECK:           memref.store %[[INIT]], %arg2[%[[IDX]]] : memref<100xf32>
// CHECK:         }
// A single column block (100 < 512): the column index folds to the thread index.
// CHECK:         scf.parallel (%[[M:.*]], %[[N:.*]]) = (%c0, %c0) to (%c32, %c512) step (%c1, %c1) {
// CHECK:           %[[VALID:.*]] = arith.cmpi ult, %[[N]], %c100 : index
// CHECK:           %[[ACC:.*]] = scf.if %[[VALID]] -> (f32) {
// CHECK:             scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args
// CHECK:               %[[ROW:.*]] = arith.addi
// CHECK:               arith.cmpi slt, %[[ROW]], %c1000 : index
// CHECK:                 memref.load %arg0[%[[ROW]], %[[N]]] : memref<1000x100xf32>
// CHECK:                 arith.mulf
// CHECK:           scf.if %[[VALID]] {
// CHECK-NEXT:        memref.atomic_rmw mulf %[[ACC]], %arg2[%[[N]]] : (f32, memref<100xf32>) -> f32
func.func @thread_tile(%in: memref<1000x100xf32>, %init: memref<f32>, %out: memref<100xf32>) -> memref<100xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%in, %init, %out) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.multiply"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<0> : tensor<1xi64>} : (memref<1000x100xf32>, memref<f32>, memref<100xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "tt", disc.fusion_type = "kColReduction"} : () -> ()
  return %out : memref<100xf32>
}

// -----

// Block tile (disc_col_reduction_schedule_hint = 8): 32 x 8 threads, 64 rows
// each; the 8 partial sums of a column meet in shared memory (strides 4, 2,
// 1, a barrier before each), then one atomic per column. i32 max: maxs.
// CHECK-LABEL: func.func @block_tile
// CHECK:         %[[BLKS:.*]] = arith.ceildivui %{{.*}}, %c32 : index
// CHECK:         %[[BLKS_ROW:.*]] = arith.ceildivui %{{.*}}, %c512 : index
// CHECK:         scf.parallel (%[[M:.*]], %[[N:.*]]) = (%c0, %c0) to (%{{.*}}, %c256) step (%c1, %c1) {
// CHECK:           %[[TROW:.*]] = arith.divui %[[N]], %c32 : index
// CHECK:           %[[TCOL:.*]] = arith.remui %[[N]], %c32 : index
// CHECK:           %[[T:.*]] = arith.muli %[[TCOL]], %c8 : index
// CHECK:           %[[S:.*]] = arith.addi %[[TROW]], %[[T]] : index
// CHECK:           %[[SMEM:.*]] = memref.alloc() : memref<256xi32, #gpu.address_space<workgroup>>
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c1
// CHECK:           memref.store %{{.*}}, %[[SMEM]][%[[S]]]
// CHECK:           gpu.barrier
// CHECK:           arith.cmpi slt, %[[TROW]], %c4 : index
// CHECK:             arith.addi %[[S]], %c4 : index
// CHECK:           gpu.barrier
// CHECK:           arith.cmpi slt, %[[TROW]], %c2 : index
// CHECK:           gpu.barrier
// CHECK:           arith.cmpi slt, %[[TROW]], %c1 : index
// CHECK:           gpu.barrier
// CHECK:           %[[ROW0:.*]] = arith.cmpi eq, %[[TROW]], %c0 : index
// CHECK:           %[[OK:.*]] = arith.andi %[[ROW0]], %{{.*}} : i1
// CHECK:           scf.if %[[OK]] {
// CHECK-NEXT:        %[[R:.*]] = memref.load %[[SMEM]][%[[S]]]
// CHECK-NEXT:        memref.atomic_rmw maxs %[[R]], %arg2[%{{.*}}] : (i32, memref<?xi32>) -> i32
func.func @block_tile(%in: memref<?x?xi32>, %init: memref<i32>, %out: memref<?xi32>) -> memref<?xi32> {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%in, %init, %out) ({
    ^bb0(%a: memref<i32>, %b: memref<i32>, %c: memref<i32>):
      "lmhlo.maximum"(%a, %b, %c) : (memref<i32>, memref<i32>, memref<i32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<0> : tensor<1xi64>} : (memref<?x?xi32>, memref<i32>, memref<?xi32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "bt", disc.fusion_type = "kColReduction", disc_col_reduction_schedule_hint = 8 : i32} : () -> ()
  return %out : memref<?xi32>
}

// -----

// A row reduction fused with a column reduction of the same input: the column
// reduce (the first root) adds each element atomically inside the row loop.
// CHECK-LABEL: func.func @row_and_col
// CHECK:         scf.parallel (%[[I:.*]]) = (%c0) to (%c16) step (%c1)
// CHECK:         scf.for %[[J:.*]] = %{{.*}} to %c16 step %c256 iter_args
// CHECK:           %[[X:.*]] = memref.load %arg0[%{{.*}}, %[[J]]] : memref<32x16xf32>
// CHECK-NEXT:      memref.atomic_rmw addf %[[X]], %arg3[%[[J]]] : (f32, memref<16xf32>) -> f32
// CHECK:           arith.addf
// CHECK:         gpu.barrier
func.func @row_and_col(%in: memref<32x16xf32>, %init: memref<f32>, %row: memref<32xf32>, %col: memref<16xf32>) -> (memref<32xf32>, memref<16xf32>) {
  "lmhlo.fusion"() ({
    "lmhlo.reduce"(%in, %init, %col) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<0> : tensor<1xi64>} : (memref<32x16xf32>, memref<f32>, memref<16xf32>) -> ()
    "lmhlo.reduce"(%in, %init, %row) ({
    ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
      "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<32x16xf32>, memref<f32>, memref<32xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "rc", disc.fusion_type = "kRowReduction"} : () -> ()
  return %row, %col : memref<32xf32>, memref<16xf32>
}
