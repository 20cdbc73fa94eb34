// RUN: not disc-opt %s --disc-outline-cpu-kernel 2>&1 | FileCheck %s

// A loop to outline needs the RAL context as the function's first argument.
// CHECK: function @no_context has a parallel loop to outline but no !disc_ral.context first argument
func.func @no_context(%A: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %v = memref.load %A[%i] : memref<?xf32>
    memref.store %v, %A[%i] : memref<?xf32>
  }
  return
}
