// RUN: disc-opt %s -split-input-file --disc-parallel-loop-collapsing | FileCheck %s

// Normalized dimensions are multiplied into one; the original indices are
// recovered with remsi/divsi (last dimension fastest) and un-normalized.
// CHECK-LABEL: func.func @collapse
// CHECK-SAME: (%[[LB:.*]]: index, %[[UB:.*]]: index, %[[ST:.*]]: index, %[[N:.*]]: index, %[[A:.*]]: memref<?x?x?xf32>)
// CHECK: %[[D1:.*]] = arith.subi %[[UB]], %[[LB]] : index
// CHECK: %[[N1:.*]] = arith.ceildivsi %[[D1]], %[[ST]] : index
// CHECK: %[[N2:.*]] = arith.ceildivsi %[[N]], %[[ST]] : index
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: %[[P0:.*]] = arith.muli %[[ONE]], %[[N]] : index
// CHECK: %[[P1:.*]] = arith.muli %[[P0]], %[[N1]] : index
// CHECK: %[[P2:.*]] = arith.muli %[[P1]], %[[N2]] : index
// CHECK: scf.parallel (%[[IV:.*]]) = (%[[C0]]) to (%[[P2]]) step (%[[C1]]) {
// CHECK: %[[K:.*]] = arith.remsi %[[IV]], %[[N2]] : index
// CHECK: %[[R:.*]] = arith.divsi %[[IV]], %[[N2]] : index
// CHECK: %[[J:.*]] = arith.remsi %[[R]], %[[N1]] : index
// CHECK: %[[I:.*]] = arith.divsi %[[R]], %[[N1]] : index
// CHECK: %[[JS:.*]] = arith.muli %[[J]], %[[ST]] : index
// CHECK: %[[JJ:.*]] = arith.addi %[[JS]], %[[LB]] : index
// CHECK: %[[KK:.*]] = arith.muli %[[K]], %[[ST]] : index
// CHECK: memref.load %[[A]][%[[I]], %[[JJ]], %[[KK]]]
func.func @collapse(%lb: index, %ub: index, %st: index, %n: index, %A: memref<?x?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j, %k) = (%c0, %lb, %c0) to (%n, %ub, %n) step (%c1, %st, %st) {
    %v = memref.load %A[%i, %j, %k] : memref<?x?x?xf32>
    memref.store %v, %A[%k, %j, %i] : memref<?x?x?xf32>
  }
  return
}

// -----

// Only innermost loops; 1-D loops stay as they are.
// CHECK-LABEL: func.func @nested
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%c0, %c0) to (%arg0, %arg0)
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK: arith.remsi
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%arg0) step (%c1)
// CHECK-NOT: arith.remsi
func.func @nested(%n: index, %A: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
    scf.parallel (%k, %l) = (%c0, %c0) to (%n, %n) step (%c1, %c1) {
      %v = memref.load %A[%k, %l] : memref<?x?xf32>
      memref.store %v, %A[%i, %j] : memref<?x?xf32>
    }
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %A[%i, %i] : memref<?x?xf32>
    memref.store %v, %A[%i, %i] : memref<?x?xf32>
  }
  return
}
