// RUN: disc-opt %s -split-input-file --disc-memref-cse | FileCheck %s

// Equal loads (after CSE of their indices) are merged, also into nested
// regions that follow the first load; different indices or memrefs are kept.
// CHECK-LABEL: func.func @loads
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK: %[[A:.*]] = memref.load %arg0[%[[I]], %[[J]]]
// CHECK: %[[K:.*]] = arith.addi %[[I]], %c1 : index
// CHECK: %[[B:.*]] = memref.load %arg0[%[[K]], %[[J]]]
// CHECK: %[[C:.*]] = memref.load %arg1[%[[I]], %[[J]]]
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]]
// CHECK: %[[T:.*]] = arith.addf %[[S]], %[[B]]
// CHECK: scf.for
// CHECK-NOT: memref.load
// CHECK: arith.addf %[[T]], %[[A]]
// CHECK: memref.store
func.func @loads(%A: memref<?x?xf32>, %B: memref<?x?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    %a = memref.load %A[%i, %j] : memref<?x?xf32>
    %k = arith.addi %i, %c1 : index
    %k2 = arith.addi %i, %c1 : index
    %b = memref.load %A[%k, %j] : memref<?x?xf32>
    %c = memref.load %B[%i, %j] : memref<?x?xf32>
    %b2 = memref.load %A[%k2, %j] : memref<?x?xf32>
    %s = arith.addf %a, %b : f32
    %t = arith.addf %s, %b2 : f32
    scf.for %x = %c0 to %n step %c1 {
      %d = memref.load %A[%i, %j] : memref<?x?xf32>
      %e = arith.addf %t, %d : f32
      %f = arith.addf %e, %c : f32
      memref.store %f, %B[%i, %x] : memref<?x?xf32>
    }
  }
  return
}

// -----

// A load inside a nested region does not replace a later one outside it.
// CHECK-LABEL: func.func @not_dominating
// CHECK: scf.if
// CHECK: memref.load %arg0[%arg1]
// CHECK: }
// CHECK: memref.load %arg0[%arg1]
func.func @not_dominating(%A: memref<?xf32>, %i: index, %p: i1) -> f32 {
  scf.if %p {
    %a = memref.load %A[%i] : memref<?xf32>
    memref.store %a, %A[%i] : memref<?xf32>
  }
  %b = memref.load %A[%i] : memref<?xf32>
  return %b : f32
}
