// RUN: disc-opt %s -split-input-file --disc-flatten-memref-access | FileCheck %s

// Dynamic shape: dims, linearize, 1-D view sized by the element count.
// CHECK-LABEL: func.func @dynamic
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?x?xf32>, %[[N:.*]]: index)
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK: %[[D0:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK: %[[D1:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK: %[[LIN:.*]] = "disc_shape.linearize"(%[[I]], %[[J]], %[[D0]], %[[D1]]) {operand_segment_sizes = array<i32: 2, 2>} : (index, index, index, index) -> index
// CHECK: %[[M0:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[M1:.*]] = arith.muli %[[M0]], %{{.*}} : index
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[A]] to offset: [%{{.*}}], sizes: [%[[M1]]], strides: [%{{.*}}] : memref<?x?xf32> to memref<?xf32>
// CHECK: %[[V:.*]] = memref.load %[[FLAT]][%[[LIN]]] : memref<?xf32>
// CHECK: "disc_shape.linearize"
// CHECK: %[[FLATB:.*]] = memref.reinterpret_cast %[[B]]
// CHECK: memref.store %[[V]], %[[FLATB]][%{{.*}}] : memref<?xf32>
// CHECK-NOT: memref.load %[[A]]
func.func @dynamic(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    %v = memref.load %A[%i, %j] : memref<?x?xf32>
    memref.store %v, %B[%i, %j] : memref<?x?xf32>
  }
  return
}

// -----

// Static shape and mixed shape; accesses nested deeper in the loop; memory
// space kept.
// CHECK-LABEL: func.func @static_and_mixed
// CHECK: scf.for
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: "disc_shape.linearize"(%{{.*}}, %{{.*}}, %[[C2]], %[[C3]])
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [6], strides: [1] : memref<2x3xf32, #gpu.address_space<global>> to memref<6xf32, #gpu.address_space<global>>
// CHECK: memref.load %{{.*}} : memref<6xf32, #gpu.address_space<global>>
// CHECK: memref.dim
// CHECK: arith.constant 4 : index
// CHECK: "disc_shape.linearize"
// CHECK: memref.reinterpret_cast {{.*}} : memref<?x4xf32> to memref<?xf32>
// CHECK: memref.store
func.func @static_and_mixed(%A: memref<2x3xf32, #gpu.address_space<global>>, %B: memref<?x4xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    scf.for %k = %c0 to %n step %c1 {
      %v = memref.load %A[%i, %k] : memref<2x3xf32, #gpu.address_space<global>>
      memref.store %v, %B[%k, %i] : memref<?x4xf32>
    }
  }
  return
}

// -----

// Left alone: outside parallel loops, rank 0, non-identity layout.
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT: disc_shape.linearize
// CHECK-NOT: memref.reinterpret_cast
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}] : memref<?x?xf32>
// CHECK: memref.load %arg1[] : memref<f32>
// CHECK: memref.load %arg2[%{{.*}}] : memref<?xf32, strided<[2]>>
func.func @unchanged(%A: memref<?x?xf32>, %S: memref<f32>, %T: memref<?xf32, strided<[2]>>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.load %A[%c0, %c1] : memref<?x?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %s = memref.load %S[] : memref<f32>
    %t = memref.load %T[%i] : memref<?xf32, strided<[2]>>
  }
  return %v : f32
}
