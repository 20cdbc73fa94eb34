// RUN: disc-opt %s -split-input-file --disc-parallel-loop-tiling='parallel-loop-tile-sizes=4' | FileCheck %s
// RUN: disc-opt %s -split-input-file --disc-parallel-loop-tiling='parallel-loop-tile-sizes=4 with-inbound-check=true' | FileCheck %s --check-prefix=INBOUND

// Dynamic bounds without in-bound check: the inner bound is an affine.min;
// missing tile sizes are 1.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[S0:.*]] = arith.muli %arg2, %[[C4]] : index
// CHECK: %[[S1:.*]] = arith.muli %arg2, %[[C1]] : index
// CHECK: scf.parallel (%[[I:.*]], %[[J:.*]]) = (%arg0, %arg0) to (%arg1, %arg1) step (%[[S0]], %[[S1]]) {
// CHECK: %[[B0:.*]] = affine.min #map(%[[S0]], %arg1, %[[I]])
// CHECK: %[[B1:.*]] = affine.min #map(%[[S1]], %arg1, %[[J]])
// CHECK: scf.parallel (%[[K:.*]], %[[L:.*]]) = (%[[C0]], %[[C0]]) to (%[[B0]], %[[B1]]) step (%arg2, %arg2) {
// CHECK: %[[X:.*]] = arith.addi %[[K]], %[[I]] : index
// CHECK: %[[Y:.*]] = arith.addi %[[L]], %[[J]] : index
// CHECK: memref.load %arg3[%[[X]], %[[Y]]]
// CHECK-NOT: scf.if
// INBOUND-LABEL: func.func @dynamic
// INBOUND-NOT: affine.min
// INBOUND: %[[TRUE:.*]] = arith.constant true
// INBOUND: arith.cmpi ult
// INBOUND: arith.andi %[[TRUE]]
// INBOUND: arith.cmpi ult
// INBOUND: %[[OK:.*]] = arith.andi
// INBOUND: scf.if %[[OK]] {
// INBOUND: memref.load
func.func @dynamic(%lb: index, %ub: index, %st: index, %A: memref<?x?xf32>) {
  scf.parallel (%i, %j) = (%lb, %lb) to (%ub, %ub) step (%st, %st) {
    %v = memref.load %A[%i, %j] : memref<?x?xf32>
    memref.store %v, %A[%j, %i] : memref<?x?xf32>
  }
  return
}

// -----

// Constant trip count divisible by the tile size: static inner bound, no check.
// CHECK-LABEL: func.func @divisible
// CHECK: %[[S:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: scf.parallel
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%[[S]]) step
// CHECK-NOT: affine.min
// INBOUND-LABEL: func.func @divisible
// INBOUND-NOT: scf.if
// INBOUND: return
func.func @divisible(%A: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%i) = (%c0) to (%c16) step (%c1) {
    %v = memref.load %A[%i] : memref<16xf32>
    memref.store %v, %A[%i] : memref<16xf32>
  }
  return
}

// -----

// A fusion's disc_cta_size_hint overrides the tile sizes; loops with
// reductions are not tiled.
// CHECK-LABEL: func.func @hint_and_reduction
// CHECK: "lmhlo.fusion"
// CHECK: arith.constant 128 : index
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%{{.*}}) init (%{{.*}}) -> f32 {
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @hint_and_reduction(%A: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  "lmhlo.fusion"() ({
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %v = memref.load %A[%i] : memref<?xf32>
      memref.store %v, %A[%i] : memref<?xf32>
    }
    "lmhlo.terminator"() : () -> ()
  }) {disc_cta_size_hint = 128 : i32} : () -> ()
  %r = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
    %v = memref.load %A[%i] : memref<?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}
