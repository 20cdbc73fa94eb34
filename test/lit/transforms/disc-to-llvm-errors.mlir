// RUN: not disc-opt %s -split-input-file -disc-to-llvm 2>&1 | FileCheck %s

// Structured control flow must be lowered first.
// CHECK: disc-to-llvm: failed to legalize operation 'scf.for' (run convert-scf-to-cf / lower-affine first)
func.func @scf_left(%n: index, %m: memref<?xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    memref.store %v, %m[%i] : memref<?xf32>
  }
  return
}

// -----

// Heap allocation needs the RAL context as the function's first argument.
// CHECK: 'memref.alloc' op: the enclosing function's first argument is not a RAL context
func.func @no_context(%n: index) {
  %0 = memref.alloc(%n) : memref<?xf32>
  memref.dealloc %0 : memref<?xf32>
  return
}

// -----

// CHECK: 'memref.atomic_rmw' op: atomic_rmw kind 'mulf' has no LLVM atomicrmw equivalent
func.func @atomic_mul(%m: memref<?xf32>, %i: index, %v: f32) -> f32 {
  %0 = memref.atomic_rmw mulf %v, %m[%i] : (f32, memref<?xf32>) -> f32
  return %0 : f32
}
