// RUN: disc-opt %s -split-input-file -loop-invariant-code-motion | FileCheck %s

// Inner loops first: %x leaves both loops, %y (using the outer induction
// variable) only the inner one; memory accesses stay.
// CHECK-LABEL: func.func @licm
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %0 = arith.addi %arg0, %arg1 : index
// CHECK-NEXT:    scf.for %arg4 = %c0 to %arg3 step %c1 {
// CHECK-NEXT:      %1 = arith.muli %0, %arg4 : index
// CHECK-NEXT:      scf.for %arg5 = %c0 to %arg3 step %c1 {
// CHECK-NEXT:        %2 = arith.addi %arg5, %1 : index
// CHECK-NEXT:        %3 = memref.load %arg2[%0] : memref<?xf32>
// CHECK-NEXT:        memref.store %3, %arg2[%2] : memref<?xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @licm(%a: index, %b: index, %m: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %n step %c1 {
      %x = arith.addi %a, %b : index
      %y = arith.muli %x, %i : index
      %z = arith.addi %j, %y : index
      %v = memref.load %m[%x] : memref<?xf32>
      memref.store %v, %m[%z] : memref<?xf32>
    }
  }
  return
}

// -----

// scf.parallel bodies too; a division by a non-constant may trap, so it stays.
// CHECK-LABEL: func.func @parallel
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %0 = arith.addi %arg0, %arg1 : index
// CHECK-NEXT:    %c2 = arith.constant 2 : index
// CHECK-NEXT:    %1 = arith.divui %0, %c2 : index
// CHECK-NEXT:    scf.parallel (%arg4) = (%c0) to (%arg3) step (%c1) {
// CHECK-NEXT:      %2 = arith.divui %arg0, %arg1 : index
// CHECK-NEXT:      %3 = arith.addi %1, %arg4 : index
// CHECK-NEXT:      memref.store %2, %arg2[%3] : memref<?xindex>
func.func @parallel(%a: index, %b: index, %m: memref<?xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%p) = (%c0) to (%n) step (%c1) {
    %q = arith.addi %a, %b : index
    %d = arith.divui %a, %b : index
    %c2 = arith.constant 2 : index
    %e = arith.divui %q, %c2 : index
    %r = arith.addi %e, %p : index
    memref.store %d, %m[%r] : memref<?xindex>
    scf.reduce
  }
  return
}

// -----

// A pure inner loop with a constant step is itself invariant.
// CHECK-LABEL: func.func @nested_loop
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %0 = scf.for %arg3 = %c0 to %arg2 step %c1 iter_args(%arg4 = %c0) -> (index) {
// CHECK-NEXT:      %1 = arith.addi %arg4, %arg0 : index
// CHECK-NEXT:      scf.yield %1 : index
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %arg3 = %c0 to %arg2 step %c1 {
// CHECK-NEXT:      memref.store %0, %arg1[%arg3] : memref<?xindex>
// CHECK-NEXT:    }
func.func @nested_loop(%a: index, %m: memref<?xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = scf.for %j = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
      %t = arith.addi %acc, %a : index
      scf.yield %t : index
    }
    memref.store %s, %m[%i] : memref<?xindex>
  }
  return
}

// -----

// Both regions of scf.while.
// CHECK-LABEL: func.func @while
// CHECK-NEXT:    %0 = arith.muli %arg2, %arg1 : index
// CHECK-NEXT:    %1 = arith.addi %arg0, %arg1 : index
// CHECK-NEXT:    %2 = scf.while (%arg3 = %arg0) : (index) -> index {
// CHECK-NEXT:      %3 = arith.cmpi slt, %arg3, %0 : index
// CHECK-NEXT:      scf.condition(%3) %arg3 : index
// CHECK-NEXT:    } do {
// CHECK-NEXT:    ^bb0(%arg3: index):
// CHECK-NEXT:      %3 = arith.addi %arg3, %1 : index
// CHECK-NEXT:      scf.yield %3 : index
// CHECK-NEXT:    }
func.func @while(%a: index, %b: index, %n: index) -> index {
  %r = scf.while (%x = %a) : (index) -> index {
    %lim = arith.muli %n, %b : index
    %cond = arith.cmpi slt, %x, %lim : index
    scf.condition(%cond) %x : index
  } do {
  ^bb0(%y: index):
    %inc = arith.addi %a, %b : index
    %next = arith.addi %y, %inc : index
    scf.yield %next : index
  }
  return %r : index
}
