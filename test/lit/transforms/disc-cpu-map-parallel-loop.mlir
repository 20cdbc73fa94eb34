// RUN: disc-opt %s --disc-cpu-map-parallel-loop | FileCheck %s

// Small constant loops (< 64 parallel iterations, nested scf.for < 8) are
// marked; anything dynamic or larger is not; nested loops are never marked.
// CHECK-LABEL: func.func @schedule
// CHECK: scf.parallel
// CHECK: scf.for
// CHECK: } {disc.cpu.small_kernel}
// CHECK: scf.parallel (%{{.*}}) = (%c0) to (%c64) step (%c1) {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.parallel (%{{.*}}) = (%c0) to (%arg1) step (%c1) {
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.parallel
// CHECK-NEXT: scf.for
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.parallel
// CHECK-NEXT: scf.parallel
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @schedule(%m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c7 = arith.constant 7 : index
  %c64 = arith.constant 64 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c8, %c7) step (%c1, %c1) {
    scf.for %k = %c0 to %c7 step %c1 {
    }
  }
  scf.parallel (%i) = (%c0) to (%c64) step (%c1) {
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
    }
  }
  scf.parallel (%i) = (%c0) to (%c8) step (%c1) {
    scf.parallel (%k) = (%c0) to (%n) step (%c1) {
    }
  }
  return
}
