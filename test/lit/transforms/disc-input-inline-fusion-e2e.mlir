// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops=cpu-only=true -disc-input-inline-fusion -cse -canonicalize | FileCheck %s

// Roots pass then inline fusion, then cse + canonicalize: the
// linearize / delinearize pairs of the loop cancel; no lmhlo op is left.
// CHECK-LABEL: func.func @e2e
// CHECK:         "lmhlo.fusion"() ({
// CHECK-NOT:       lmhlo.exponential
// CHECK-NOT:       lmhlo.negate
// CHECK:           scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK-NOT:         disc_shape.delinearize
// CHECK:             %[[X:.*]] = memref.load %arg0[%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK:             math.exp %[[X]]
// CHECK:             arith.negf
// CHECK:           "lmhlo.terminator"
func.func @e2e(%a: memref<?x?xf32>, %e: memref<?x?xf32>, %o: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.exponential"(%a, %e) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.negate"(%e, %o) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "e2e", disc.fusion_type = "kLoop"} : () -> ()
  return %o : memref<?x?xf32>
}

// -----

// A kStitch fusion on CPU (row schedule): the roots pass inlines it itself;
// the exp tile on the stack, written in the pass that sums it (one exp per
// element), the sum a scalar, the broadcast of the sum replaced by it; no
// lmhlo op is left.
// CHECK-LABEL: func.func @stitch_softmax
// CHECK-NOT:     lmhlo.dynamic_broadcast_in_dim
// CHECK:         scf.parallel (%[[I:.*]]) =
// CHECK:           %[[TILE:.*]] = memref.alloca(%{{.*}}) : memref<?xf32>
// CHECK:           %[[SUM:.*]] = scf.for %[[J:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (f32) {
// CHECK:             %[[EXP:.*]] = math.exp
// CHECK:             memref.store %[[EXP]], %[[TILE]][%[[J]]]
// CHECK:             arith.addf %[[ACC]], %[[EXP]] fastmath<reassoc>
// CHECK-NOT:         math.exp
// CHECK:           scf.for %[[L:.*]] =
// CHECK:             %[[E:.*]] = memref.load %[[TILE]][%[[L]]] : memref<?xf32>
// CHECK:             %[[D:.*]] = arith.divf %[[E]], %[[SUM]] : f32
// CHECK:             memref.store %[[D]], %arg6[%[[I]], %[[L]]]
// CHECK-NOT:     "lmhlo.{{[a-z_]+}}"(%
// CHECK:         "lmhlo.terminator"
func.func @stitch_softmax(%a: memref<?x?xf32>, %e: memref<?x?xf32>, %init: memref<f32>, %s: memref<?xf32>, %shape: memref<2xindex>, %bs: memref<?x?xf32>, %o: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.exponential"(%a, %e) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.reduce"(%e, %init, %s) ({
    ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
      "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%s, %shape, %bs) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.divide"(%e, %bs, %o) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "softmax", disc.fusion_type = "kStitch"} : () -> ()
  return %o : memref<?x?xf32>
}

// -----

// A writer kept only by a producer inlined after the first step: the shape
// of a dynamic_reshape (copied inside the fusion) is read by the reshape op,
// not by a load; once the reshape is inlined (its elements need the output's
// dims, not the shape buffer) no load keeps the copy, and the fusion is
// cleaned of it, as BladeDISC cleans after every step.
// CHECK-LABEL: func.func @orphaned_shape_constant
// CHECK:         "lmhlo.fusion"() ({
// CHECK-NOT:       "lmhlo.
// CHECK:           scf.parallel
// CHECK:             math.absf
// CHECK:             arith.negf
// CHECK-NOT:       "lmhlo.copy"
// CHECK:           "lmhlo.terminator"
func.func @orphaned_shape_constant(%in: memref<2x3xf32>, %shape_in: memref<2xi64>, %shape: memref<2xi64>, %mid: memref<3x2xf32>, %neg: memref<3x2xf32>, %out: memref<3x2xf32>) -> memref<3x2xf32> {
  "lmhlo.fusion"() ({
    "lmhlo.copy"(%shape_in, %shape) : (memref<2xi64>, memref<2xi64>) -> ()
    "lmhlo.dynamic_reshape"(%in, %shape, %mid) : (memref<2x3xf32>, memref<2xi64>, memref<3x2xf32>) -> ()
    "lmhlo.abs"(%mid, %neg) : (memref<3x2xf32>, memref<3x2xf32>) -> ()
    "lmhlo.negate"(%neg, %out) : (memref<3x2xf32>, memref<3x2xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "orphan", disc.fusion_type = "kLoop"} : () -> ()
  return %out : memref<3x2xf32>
}
