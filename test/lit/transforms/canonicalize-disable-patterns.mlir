// RUN: disc-opt %s -canonicalize | FileCheck %s
// RUN: disc-opt %s '-canonicalize=disable-patterns={anonymous}::CollapseSingleIterationLoops,{anonymous}::RemoveEmptyParallelLoops,{anonymous}::MergeNestedParallelLoops' | FileCheck %s --check-prefix=GPU
// RUN: disc-opt %s -pass-pipeline='builtin.module(canonicalize{disable-patterns=ParallelOpSingleOrZeroIterationDimsFolder})' | FileCheck %s --check-prefix=GPU
// RUN: disc-opt %s '-canonicalize=enable-patterns=RemoveEmptyParallelLoops' | FileCheck %s --check-prefix=ONLY

// Patterns are filtered by their MLIR labels, with or without `{anonymous}::`
// (BladeDISC's GPU pipeline keeps one-iteration parallel loops: they are kernels).
// CHECK-LABEL: func.func @parallel
// CHECK-NOT:     scf.parallel
// CHECK:         memref.store %c0, %arg0[%c0] : memref<1xindex>
// CHECK-NEXT:    return
// GPU-LABEL: func.func @parallel
// GPU:         scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1)
// GPU:         scf.parallel (%{{.*}}) = (%c0) to (%c0) step (%c1)
// ONLY-LABEL: func.func @parallel
// ONLY:        scf.parallel (%{{.*}}) = (%c0) to (%c1) step (%c1)
// ONLY-NOT:    scf.parallel
// ONLY:        return
func.func @parallel(%m: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i) = (%c0) to (%c1) step (%c1) {
    memref.store %i, %m[%i] : memref<1xindex>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c0) step (%c1) {
    memref.store %c1, %m[%i] : memref<1xindex>
    scf.reduce
  }
  return
}
