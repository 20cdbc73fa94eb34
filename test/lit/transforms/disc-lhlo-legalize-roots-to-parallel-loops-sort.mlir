// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops=cpu-only=true | FileCheck %s

// lmhlo.sort: one scratch buffer per output, a parallel loop over the rows
// (every index but `dimension`), the inputs' row copied into the outputs,
// then merge passes in pairs (outputs -> scratch -> outputs) while the run
// width is below the row length. The comparator is evaluated on scalars with
// the right run's element as lhs; a captured 0-d buffer is read once per row;
// TOTALORDER compares the sign-adjusted bits as signed integers.
// CHECK-LABEL: func.func @argsort
// CHECK-SAME:    (%[[X:.*]]: memref<?x?xf32>, %[[I:.*]]: memref<?x?xi32>, %[[ZERO:.*]]: memref<f32>, %[[OX:.*]]: memref<?x?xf32>, %[[OI:.*]]: memref<?x?xi32>)
// CHECK-NOT:     bufferization.to_tensor
// CHECK:         %[[N:.*]] = memref.dim %[[OX]], %c1
// CHECK:         %[[SX:.*]] = memref.alloc({{.*}}) : memref<?x?xf32>
// CHECK:         %[[SI:.*]] = memref.alloc({{.*}}) : memref<?x?xi32>
// CHECK:         scf.parallel (%[[ROW:.*]], %{{.*}}) = (%c0, %c0) to (%{{.*}}, %c1) step (%c1, %c1) {
// CHECK:           %[[Z:.*]] = memref.load %[[ZERO]][] : memref<f32>
// CHECK:           scf.for %[[P:.*]] = %c0 to %[[N]] step %c1 {
// CHECK:             memref.load %[[X]][%[[ROW]], %[[P]]]
// CHECK:             memref.store %{{.*}}, %[[OX]][%[[ROW]], %[[P]]]
// CHECK:             memref.load %[[I]][%[[ROW]], %[[P]]]
// CHECK:             memref.store %{{.*}}, %[[OI]][%[[ROW]], %[[P]]]
// CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%[[W:.*]] = %c1) -> (index) {
// CHECK:             %[[MORE:.*]] = arith.cmpi slt, %[[W]], %[[N]] : index
// CHECK:             scf.if %[[MORE]] {
// CHECK:               scf.for %[[LO:.*]] = %c0 to %[[N]] step
// CHECK:                 %{{.*}}:2 = scf.for %[[K:.*]] = %[[LO]] to %[[HI:.*]] step %c1 iter_args(%[[L:.*]] = %[[LO]], %[[R:.*]] = %{{.*}}) -> (index, index) {
// CHECK:                   %[[LV:.*]] = memref.load %[[OX]]
// CHECK:                   %[[RV:.*]] = memref.load %[[OX]]
// CHECK:                   arith.cmpf oeq, %[[RV]], %[[Z]] : f32
// CHECK:                   arith.bitcast %{{.*}} : f32 to i32
// CHECK:                   arith.xori
// CHECK:                   %[[LESS:.*]] = arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK:                   %[[ROK:.*]] = arith.cmpi slt, %[[R]], %[[HI]] : index
// CHECK:                   %[[LDONE:.*]] = arith.cmpi sge, %[[L]]
// CHECK:                   %[[OR:.*]] = arith.ori %[[LDONE]], %[[LESS]] : i1
// CHECK:                   %[[TAKE:.*]] = arith.andi %[[ROK]], %[[OR]] : i1
// CHECK:                   %[[V:.*]] = arith.select %[[TAKE]], %[[RV]], %[[LV]] : f32
// CHECK:                   memref.store %[[V]], %[[SX]][%[[ROW]], %[[K]]]
// CHECK:                   memref.store %{{.*}}, %[[SI]][%[[ROW]], %[[K]]]
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   memref.store %{{.*}}, %[[OX]]
// CHECK:                   memref.store %{{.*}}, %[[OI]]
// CHECK:             arith.shli %[[W]], %c2 : index
// CHECK:         memref.dealloc %[[SI]]
// CHECK:         memref.dealloc %[[SX]]
// CHECK-NOT:     lmhlo.sort
func.func @argsort(%x: memref<?x?xf32>, %i: memref<?x?xi32>, %zero: memref<f32>, %ox: memref<?x?xf32>, %oi: memref<?x?xi32>) -> memref<?x?xi32> {
  %z = bufferization.to_tensor %zero : memref<f32>
  "lmhlo.sort"(%x, %i, %ox, %oi) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>):
    %0 = mhlo.compare EQ, %a, %z, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %1 = mhlo.select %0, %z, %a : tensor<i1>, tensor<f32>
    %2 = mhlo.compare LT, %1, %b, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %2 : tensor<i1>
  }) {dimension = 1 : i64, is_stable = true} : (memref<?x?xf32>, memref<?x?xi32>, memref<?x?xf32>, memref<?x?xi32>) -> ()
  return %oi : memref<?x?xi32>
}

// -----

// Sorting in place copies nothing; a rank-1 sort has one row.
// CHECK-LABEL: func.func @in_place
// CHECK:         scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1) {
// CHECK-NOT:       scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {
// CHECK:           scf.for %{{.*}} = %c0 to %c32
// CHECK:             arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
func.func @in_place(%x: memref<?xi32>) -> memref<?xi32> {
  "lmhlo.sort"(%x, %x) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %0 = mhlo.compare GT, %a, %b, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    mhlo.return %0 : tensor<i1>
  }) {dimension = 0 : i64} : (memref<?xi32>, memref<?xi32>) -> ()
  return %x : memref<?xi32>
}
