// RUN: disc-opt -split-input-file -convert-scf-to-cf %s | FileCheck %s

// scf.parallel becomes a loop nest (outermost induction variable first); a
// reduction is a loop-carried value combined with the inlined reduce region.
// CHECK-LABEL: func.func @parallel_reduce
// CHECK-SAME: (%[[M:.*]]: memref<?x?xf32>, %[[OUT:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[K:.*]]: index)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: cf.br ^[[OUTER:.*]](%[[C0]] : index)
// CHECK: ^[[OUTER]](%[[I:.*]]: index):
// CHECK: %[[CI:.*]] = arith.cmpi slt, %[[I]], %[[N]] : index
// CHECK: cf.cond_br %[[CI]], ^[[OBODY:.*]], ^[[EXIT:.*]]
// CHECK: ^[[OBODY]]:
// CHECK: cf.br ^[[INNER:.*]](%[[C0]], %[[ZERO]] : index, f32)
// CHECK: ^[[INNER]](%[[J:.*]]: index, %[[ACC:.*]]: f32):
// CHECK: %[[CJ:.*]] = arith.cmpi slt, %[[J]], %[[K]] : index
// CHECK: cf.cond_br %[[CJ]], ^[[IBODY:.*]], ^[[IEXIT:.*]]
// CHECK: ^[[IBODY]]:
// CHECK: %[[X:.*]] = memref.load %[[M]][%[[I]], %[[J]]] : memref<?x?xf32>
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %[[X]] : f32
// CHECK: %[[J1:.*]] = arith.addi %[[J]], %[[C1]] : index
// CHECK: cf.br ^[[INNER]](%[[J1]], %[[SUM]] : index, f32)
// CHECK: ^[[IEXIT]]:
// CHECK: memref.store %[[ACC]], %[[OUT]][%[[I]]] : memref<?xf32>
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %[[C1]] : index
// CHECK: cf.br ^[[OUTER]](%[[I1]] : index)
// CHECK: ^[[EXIT]]:
// CHECK: return
func.func @parallel_reduce(%m: memref<?x?xf32>, %out: memref<?xf32>, %n: index, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %s = scf.parallel (%j) = (%c0) to (%k) step (%c1) init (%zero) -> f32 {
      %x = memref.load %m[%i, %j] : memref<?x?xf32>
      scf.reduce(%x : f32) {
      ^bb0(%l: f32, %r: f32):
        %t = arith.addf %l, %r : f32
        scf.reduce.return %t : f32
      }
    }
    memref.store %s, %out[%i] : memref<?xf32>
    scf.reduce
  }
  return
}

// -----

// A 2-D scf.parallel is a nest of two loops.
// CHECK-LABEL: func.func @parallel_2d
// CHECK: cf.br ^[[L0:.*]](%{{.*}} : index)
// CHECK: ^[[L0]](%[[I:.*]]: index):
// CHECK: cf.br ^[[L1:.*]](%{{.*}} : index)
// CHECK: ^[[L1]](%[[J:.*]]: index):
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<?x?xf32>
func.func @parallel_2d(%m: memref<?x?xf32>, %n: index, %k: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %k) step (%c1, %c1) {
    memref.store %v, %m[%i, %j] : memref<?x?xf32>
  }
  return
}

// -----

// scf.while: `before` ends in a conditional branch to `after` or the exit.
// CHECK-LABEL: func.func @while
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: cf.br ^[[BEFORE:.*]](%{{.*}} : index)
// CHECK: ^[[BEFORE]](%[[K:.*]]: index):
// CHECK: %[[C:.*]] = arith.cmpi slt, %[[K]], %[[N]] : index
// CHECK: cf.cond_br %[[C]], ^[[AFTER:.*]](%[[K]] : index), ^[[EXIT:.*]](%[[K]] : index)
// CHECK: ^[[AFTER]](%[[K2:.*]]: index):
// CHECK: %[[K3:.*]] = arith.addi %[[K2]], %{{.*}} : index
// CHECK: cf.br ^[[BEFORE]](%[[K3]] : index)
// CHECK: ^[[EXIT]](%[[R:.*]]: index):
// CHECK: return %[[R]] : index
func.func @while(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %w = scf.while (%k = %c0) : (index) -> index {
    %cond = arith.cmpi slt, %k, %n : index
    scf.condition(%cond) %k : index
  } do {
  ^bb0(%k2: index):
    %k3 = arith.addi %k2, %c1 : index
    scf.yield %k3 : index
  }
  return %w : index
}

// -----

// scf.if with results (xDSL's lowering) and scf.execute_region.
// CHECK-LABEL: func.func @if_execute_region
// CHECK: cf.cond_br %{{.*}}, ^[[THEN:.*]], ^[[ELSE:.*]]
// CHECK: ^[[THEN]]:
// CHECK: cf.br ^[[JOIN:.*]](%{{.*}} : f32)
// CHECK: ^[[ELSE]]:
// CHECK: cf.br ^[[JOIN]](%{{.*}} : f32)
// CHECK: ^[[JOIN]](%[[V:.*]]: f32):
// CHECK: cf.br ^[[REGION:.*]]
// CHECK: ^[[REGION]]:
// CHECK: %[[D:.*]] = arith.addf %[[V]], %[[V]] : f32
// CHECK: cf.br ^[[CONT:.*]](%[[D]] : f32)
// CHECK: ^[[CONT]](%[[R:.*]]: f32):
// CHECK: return %[[R]] : f32
func.func @if_execute_region(%c: i1, %a: f32, %b: f32) -> f32 {
  %0 = scf.if %c -> (f32) {
    scf.yield %a : f32
  } else {
    scf.yield %b : f32
  }
  %1 = scf.execute_region -> f32 {
    %2 = arith.addf %0, %0 : f32
    scf.yield %2 : f32
  }
  return %1 : f32
}
