// RUN: disc-opt %s -split-input-file -lhlo-fusion-inliner | FileCheck %s

// The body (but the terminator) moves before the fusion, in order; the
// fusion and its attributes go.
// CHECK-LABEL: func.func @inline
// CHECK-NOT:     lmhlo.fusion
// CHECK:         %[[D:.*]] = memref.dim %arg1, %{{.*}} : memref<?xf32>
// CHECK-NEXT:    scf.parallel (%[[I:.*]]) = (%{{.*}}) to (%[[D]]) step (%{{.*}}) {
// CHECK-NEXT:      %[[X:.*]] = memref.load %arg0[%[[I]]] : memref<?xf32>
// CHECK-NEXT:      memref.store %[[X]], %arg1[%[[I]]] : memref<?xf32>
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:    }
// CHECK-NEXT:    "lmhlo.abs"(%arg0, %arg1)
// CHECK-NEXT:    return %arg1
// CHECK-NOT:     lmhlo.terminator
func.func @inline(%a: memref<?xf32>, %b: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "lmhlo.fusion"() ({
    %n = memref.dim %b, %c0 : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %x = memref.load %a[%i] : memref<?xf32>
      memref.store %x, %b[%i] : memref<?xf32>
      scf.yield
    }
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "f", disc.fusion_type = "kLoop"} : () -> ()
  "lmhlo.abs"(%a, %b) : (memref<?xf32>, memref<?xf32>) -> ()
  return %b : memref<?xf32>
}

// -----

// Several fusions (and nested ops) in one function; functions without
// fusions are unchanged.
// CHECK-LABEL: func.func @two
// CHECK-NEXT:    "lmhlo.abs"(%arg0, %arg1)
// CHECK-NEXT:    "lmhlo.negate"(%arg1, %arg0)
// CHECK-NEXT:    return
// CHECK-LABEL: func.func @none
// CHECK-NEXT:    "lmhlo.abs"(%arg0, %arg1)
func.func @two(%a: memref<?xf32>, %b: memref<?xf32>) {
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%a, %b) : (memref<?xf32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  "lmhlo.fusion"() ({
    "lmhlo.negate"(%b, %a) : (memref<?xf32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  return
}
func.func @none(%a: memref<?xf32>, %b: memref<?xf32>) {
  "lmhlo.abs"(%a, %b) : (memref<?xf32>, memref<?xf32>) -> ()
  return
}
