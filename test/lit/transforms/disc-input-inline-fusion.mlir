// RUN: disc-opt %s -split-input-file -disc-input-inline-fusion | FileCheck %s

// Producers are inlined consumer first (add before abs, which add reads);
// loads of one buffer at one index that the first dominates reuse its value.
// CHECK-LABEL: func.func @chain
// CHECK:         "lmhlo.fusion"() ({
// CHECK-NOT:       lmhlo.abs
// CHECK-NOT:       lmhlo.add
// CHECK:           scf.parallel (%[[I:.*]]) =
// CHECK-NEXT:        %[[A:.*]] = memref.load %arg0[%[[I]]] : memref<?xf32>
// CHECK-NEXT:        %[[ABS:.*]] = math.absf %[[A]] : f32
// CHECK-NEXT:        %[[B:.*]] = memref.load %arg1[%[[I]]] : memref<?xf32>
// CHECK-NEXT:        %[[ADD:.*]] = arith.addf %[[ABS]], %[[B]] : f32
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[ADD]], %[[ABS]] : f32
// CHECK-NEXT:        %[[R:.*]] = arith.addf %[[M]], %[[ADD]] : f32
// CHECK-NEXT:        memref.store %[[R]], %arg4[%[[I]]] : memref<?xf32>
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:      }
// CHECK-NEXT:      "lmhlo.terminator"() : () -> ()
func.func @chain(%a: memref<?xf32>, %b: memref<?xf32>, %t1: memref<?xf32>, %t2: memref<?xf32>, %o: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%a, %t1) : (memref<?xf32>, memref<?xf32>) -> ()
    "lmhlo.add"(%t1, %b, %t2) : (memref<?xf32>, memref<?xf32>, memref<?xf32>) -> ()
    %n = memref.dim %o, %c0 : memref<?xf32>
    scf.parallel (%i) = (%c0) to (%n) step (%c1) {
      %x = memref.load %t2[%i] : memref<?xf32>
      %y = memref.load %t1[%i] : memref<?xf32>
      %z = memref.load %t2[%i] : memref<?xf32>
      %s = arith.mulf %x, %y : f32
      %r = arith.addf %s, %z : f32
      memref.store %r, %o[%i] : memref<?xf32>
      scf.yield
    }
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "chain", disc.fusion_type = "kLoop"} : () -> ()
  return %o : memref<?xf32>
}

// -----

// Broadcast, reshape and splat-constant producers: elemental index math; a
// dimension of static size 1 reads index 0, a dynamic one compares sizes.
// CHECK-LABEL: func.func @misc_producers
// CHECK:         %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NOT:     lmhlo.broadcast_in_dim
// CHECK-NOT:     lmhlo.reshape
// CHECK-NOT:     lmhlo.constant
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) =
// CHECK:           %[[LIN:.*]] = "disc_shape.linearize"(%[[I]], %[[J]]
// CHECK:           %[[IN:.*]]:2 = "disc_shape.delinearize"(%[[LIN]]
// CHECK:           memref.load %arg0[%[[IN]]#0, %[[IN]]#1] : memref<?x?xf32>
// CHECK:           %[[CMP:.*]] = arith.cmpi eq
// CHECK:           %[[SEL:.*]] = arith.select %[[CMP]], %[[J]], %{{.*}} : index
// CHECK:           memref.load %arg1[%[[SEL]]] : memref<?xf32>
// CHECK:           arith.mulf %{{.*}}, %[[TWO]] : f32
// CHECK-NOT:     lmhlo.{{[a-z_]+}}"(
// CHECK:         "lmhlo.terminator"
func.func @misc_producers(%a: memref<?x?xf32>, %v: memref<?xf32>, %shape: memref<2xindex>, %r: memref<?x?xf32>, %bc: memref<?x?xf32>, %two: memref<f32>, %t: memref<?x?xf32>, %o: memref<?x?xf32>) -> memref<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  "lmhlo.fusion"() ({
    "lmhlo.reshape"(%a, %r) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
    "lmhlo.dynamic_broadcast_in_dim"(%v, %shape, %bc) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (memref<?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
    "lmhlo.constant"(%two) {value = dense<2.0> : tensor<f32>} : (memref<f32>) -> ()
    "lmhlo.add"(%r, %bc, %t) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
    %d0 = memref.dim %o, %c0 : memref<?x?xf32>
    %d1 = memref.dim %o, %c1 : memref<?x?xf32>
    scf.parallel (%i, %j) = (%c0, %c0) to (%d0, %d1) step (%c1, %c1) {
      %x = memref.load %t[%i, %j] : memref<?x?xf32>
      %k = memref.load %two[] : memref<f32>
      %y = arith.mulf %x, %k : f32
      memref.store %y, %o[%i, %j] : memref<?x?xf32>
      scf.yield
    }
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "cpu", disc.fusion.name = "misc", disc.fusion_type = "kLoop"} : () -> ()
  return %o : memref<?x?xf32>
}
