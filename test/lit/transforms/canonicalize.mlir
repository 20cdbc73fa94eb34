// RUN: disc-opt %s -split-input-file -canonicalize | FileCheck %s
// RUN: disc-opt %s -split-input-file '-canonicalize=top-down=false' | FileCheck %s --check-prefix=BOTTOMUP
// RUN: disc-opt %s -split-input-file '--canonicalize{region-simplify=disabled max-iterations=0}' | FileCheck %s --check-prefix=NOITER
// RUN: not disc-opt %s -split-input-file '-canonicalize=max-iterations=1 test-convergence=true' 2>&1 | FileCheck %s --check-prefix=CONVERGE
// RUN: not disc-opt %s '-canonicalize=region-simplify=sometimes' 2>&1 | FileCheck %s --check-prefix=BADOPT

// Folded constants are created at the front of the entry block, reusing (and
// moving to the front) an existing constant of the same value: top-down
// processing folds %a first, bottom-up processing folds %b first.
// CONVERGE: error: pass 'canonicalize' failed: Canonicalizer failed to converge
// BADOPT: region-simplify takes true/false or disabled/normal/aggressive, got 'sometimes'

// CHECK-LABEL: func.func @order
// CHECK-NEXT:    %c7_i32 = arith.constant 7 : i32
// CHECK-NEXT:    %c3_i32 = arith.constant 3 : i32
// CHECK-NEXT:    return %c3_i32, %c7_i32 : i32, i32
// BOTTOMUP-LABEL: func.func @order
// BOTTOMUP-NEXT:    %c3_i32 = arith.constant 3 : i32
// BOTTOMUP-NEXT:    %c7_i32 = arith.constant 7 : i32
// BOTTOMUP-NEXT:    return %c3_i32, %c7_i32 : i32, i32
// NOITER-LABEL: func.func @order
// NOITER-NEXT:    %c1_i32 = arith.constant 1 : i32
// NOITER-NEXT:    %c2_i32 = arith.constant 2 : i32
// NOITER-NEXT:    %c3_i32 = arith.constant 3 : i32
// NOITER-NEXT:    %c4_i32 = arith.constant 4 : i32
// NOITER-NEXT:    %0 = arith.addi %c1_i32, %c2_i32 : i32
// NOITER-NEXT:    %1 = arith.addi %c3_i32, %c4_i32 : i32
func.func @order(%x: i32) -> (i32, i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %c4 = arith.constant 4 : i32
  %a = arith.addi %c1, %c2 : i32
  %b = arith.addi %c3, %c4 : i32
  return %a, %b : i32, i32
}

// -----

// Constants are uniqued and hoisted to the entry block: a constant stays where
// it is when it heads the block or follows hoisted constants, else it moves to
// the front (so %c0 goes before %c1), nested ones included.
// CHECK-LABEL: func.func @hoist_order
// CHECK-NEXT:    %c5_i32 = arith.constant 5 : i32
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %dim = memref.dim %arg1, %c1 : memref<?xi32>
// CHECK-NEXT:    scf.for %arg2 = %c0 to %arg0 step %c1 {
// CHECK-NEXT:      memref.store %c5_i32, %arg1[%arg2] : memref<?xi32>
// CHECK-NEXT:    }
// CHECK-NEXT:    %0 = arith.addi %dim, %c1 : index
// CHECK-NEXT:    return %0 : index
func.func @hoist_order(%n: index, %m: memref<?xi32>) -> index {
  %c1 = arith.constant 1 : index
  %d = memref.dim %m, %c1 : memref<?xi32>
  %c0 = arith.constant 0 : index
  %c1_0 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1_0 {
    %c5 = arith.constant 5 : i32
    memref.store %c5, %m[%i] : memref<?xi32>
  }
  %r = arith.addi %d, %c1 : index
  return %r : index
}

// -----

// Integer folding wraps around at the type's width (index is 64 bits wide);
// division by zero and signed division overflow are not folded.
// CHECK-LABEL: func.func @fold_int
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    %false = arith.constant false
// CHECK-NEXT:    %c-2 = arith.constant -2 : index
// CHECK-NEXT:    %c1_i8 = arith.constant 1 : i8
// CHECK-NEXT:    %c-128_i8 = arith.constant -128 : i8
// CHECK-NEXT:    %c10_i32 = arith.constant 10 : i32
// CHECK-NEXT:    %c7_i32 = arith.constant 7 : i32
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    %c-2147483648_i32 = arith.constant -2147483648 : i32
// CHECK-NEXT:    %c-1_i32 = arith.constant -1 : i32
// CHECK-NEXT:    %0 = arith.divsi %c7_i32, %c0_i32 : i32
// CHECK-NEXT:    %1 = arith.divsi %c-2147483648_i32, %c-1_i32 : i32
// CHECK-NEXT:    return %c10_i32, %0, %1, %c-128_i8, %c1_i8, %c-2, %false, %true
func.func @fold_int(%a: i32) -> (i32, i32, i32, i8, i8, index, i1, i1) {
  %c7 = arith.constant 7 : i32
  %c3 = arith.constant 3 : i32
  %c0 = arith.constant 0 : i32
  %m = arith.constant -2147483648 : i32
  %cm1 = arith.constant -1 : i32
  %0 = arith.addi %c7, %c3 : i32
  %1 = arith.divsi %c7, %c0 : i32
  %2 = arith.divsi %m, %cm1 : i32
  %b1 = arith.constant 127 : i8
  %b2 = arith.constant 1 : i8
  %3 = arith.addi %b1, %b2 : i8
  %4 = arith.muli %b1, %b1 : i8
  %i1 = arith.constant 5 : index
  %i2 = arith.constant -7 : index
  %5 = arith.floordivsi %i2, %i1 : index
  %6 = arith.cmpi ult, %cm1, %c7 : i32
  %7 = arith.cmpi slt, %cm1, %c7 : i32
  return %0, %1, %2, %3, %4, %5, %6, %7 : i32, i32, i32, i8, i8, index, i1, i1
}

// -----

// CHECK-LABEL: func.func @identities
// CHECK-NEXT:    %false = arith.constant false
// CHECK-NEXT:    %true = arith.constant true
// CHECK-NEXT:    %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT:    return %arg0, %arg0, %c0_i32, %c0_i32, %arg0, %c0_i32, %arg1, %true, %false, %arg3, %arg3, %arg0
func.func @identities(%x: i32, %y: i32, %c: i1, %f: f32) -> (i32, i32, i32, i32, i32, i32, i32, i1, i1, f32, f32, i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %cm1 = arith.constant -1 : i32
  %0 = arith.addi %x, %c0 : i32
  %1 = arith.muli %c1, %x : i32
  %2 = arith.muli %x, %c0 : i32
  %3 = arith.subi %x, %x : i32
  %4 = arith.andi %x, %cm1 : i32
  %5 = arith.xori %x, %x : i32
  %6 = arith.select %c, %y, %y : i32
  %7 = arith.cmpi sle, %x, %x : i32
  %8 = arith.cmpi ne, %x, %x : i32
  %one = arith.constant 1.0 : f32
  %9 = arith.mulf %f, %one : f32
  %10 = arith.negf %f : f32
  %11 = arith.negf %10 : f32
  %s = arith.subi %x, %y : i32
  %12 = arith.addi %s, %y : i32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %11, %12 : i32, i32, i32, i32, i32, i32, i32, i1, i1, f32, f32, i32
}

// -----

// index -> i32 -> index truncates: kept (MLIR's IndexCastOfIndexCast drops
// it); i32 -> index -> i32 is exact: folded.
// CHECK-LABEL: func.func @casts
// CHECK-NEXT:    %c44_i8 = arith.constant 44 : i8
// CHECK-NEXT:    %cst = arith.constant -3.000000e+00 : f32
// CHECK-NEXT:    %c-3_i16 = arith.constant -3 : i16
// CHECK-NEXT:    %c4294967293_i64 = arith.constant 4294967293 : i64
// CHECK-NEXT:    %0 = arith.index_cast %arg0 : index to i32
// CHECK-NEXT:    %1 = arith.index_cast %0 : i32 to index
// CHECK-NEXT:    %2 = arith.extui %arg1 : i1 to i32
// CHECK-NEXT:    return %1, %c4294967293_i64, %c-3_i16, %2, %cst, %c44_i8, %arg2
func.func @casts(%i: index, %b: i1, %j: i32) -> (index, i64, i16, i32, f32, i8, i32) {
  %c = arith.constant -3 : i32
  %0 = arith.index_cast %c : i32 to index
  %1 = arith.extui %c : i32 to i64
  %2 = arith.index_cast %i : index to i32
  %3 = arith.index_cast %2 : i32 to index
  %4 = arith.extsi %c : i32 to i64
  %5 = arith.trunci %4 : i64 to i16
  %6 = arith.extui %b : i1 to i32
  %7 = arith.sitofp %c : i32 to f32
  %c300 = arith.constant 300 : i32
  %8 = arith.trunci %c300 : i32 to i8
  %9 = arith.index_cast %j : i32 to index
  %10 = arith.index_cast %9 : index to i32
  return %3, %1, %5, %6, %7, %8, %10 : index, i64, i16, i32, f32, i8, i32
}

// -----

// CHECK-LABEL: func.func @scf_if
// CHECK-NEXT:    %0 = arith.select %arg0, %arg1, %arg2 : index
// CHECK-NEXT:    return %arg1, %0 : index, index
func.func @scf_if(%c: i1, %a: index, %b: index) -> (index, index) {
  %true = arith.constant true
  %0 = scf.if %true -> (index) {
    scf.yield %a : index
  } else {
    scf.yield %b : index
  }
  %1, %2 = scf.if %c -> (index, index) {
    scf.yield %a, %b : index, index
  } else {
    scf.yield %b, %b : index, index
  }
  return %0, %1 : index, index
}

// -----

// Zero-trip loops give their init values, one-trip loops are inlined, and
// iteration arguments passed through unchanged are dropped.
// CHECK-LABEL: func.func @scf_for
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    %0 = arith.addi %arg2, %c1 : index
// CHECK-NEXT:    scf.for %arg3 = %c0 to %arg1 step %c1 {
// CHECK-NEXT:      memref.store %arg3, %arg0[%arg3] : memref<?xindex>
// CHECK-NEXT:    }
// CHECK-NEXT:    return %arg2, %0, %c4 : index, index, index
func.func @scf_for(%m: memref<?xindex>, %n: index, %init: index) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %0 = scf.for %i = %c0 to %c0 step %c1 iter_args(%x = %init) -> (index) {
    %y = arith.addi %x, %i : index
    scf.yield %y : index
  }
  %1 = scf.for %i = %c1 to %c4 step %c4 iter_args(%x = %init) -> (index) {
    %y = arith.addi %x, %i : index
    scf.yield %y : index
  }
  %2:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %init, %z = %c4) -> (index, index) {
    memref.store %i, %m[%i] : memref<?xindex>
    scf.yield %x, %z : index, index
  }
  return %0, %1, %2#1 : index, index, index
}

// -----

// A single-iteration dimension is dropped; an empty iteration space erases the loop.
// CHECK-LABEL: func.func @parallel
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    scf.parallel (%arg2) = (%c0) to (%arg1) step (%c1) {
// CHECK-NEXT:      memref.store %c0, %arg0[%arg2, %c0] : memref<?x?xindex>
// CHECK-NOT:     scf.parallel
// CHECK:         return
func.func @parallel(%m: memref<?x?xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%n, %c1) step (%c1, %c1) {
    memref.store %j, %m[%i, %j] : memref<?x?xindex>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c0) step (%c1) {
    memref.store %i, %m[%i, %i] : memref<?x?xindex>
    scf.reduce
  }
  return
}

// -----

// A buffer only stored into and deallocated is erased; constant sizes make
// allocations static (the cast back folds into its users); dims of
// allocations fold to their sizes.
// CHECK-LABEL: func.func @memref
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %alloc = memref.alloc(%arg0) : memref<8x?xf32>
// CHECK-NEXT:    %0 = memref.load %alloc[%c0, %c0] : memref<8x?xf32>
// CHECK-NEXT:    return %c8, %arg0, %0 : index, index, f32
func.func @memref(%n: index, %v: f32) -> (index, index, f32) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %dead = memref.alloc(%n) : memref<?xf32>
  memref.store %v, %dead[%c0] : memref<?xf32>
  memref.dealloc %dead : memref<?xf32>
  %a = memref.alloc(%c8, %n) : memref<?x?xf32>
  %d0 = memref.dim %a, %c0 : memref<?x?xf32>
  %c1 = arith.constant 1 : index
  %d1 = memref.dim %a, %c1 : memref<?x?xf32>
  %l = memref.load %a[%c0, %c0] : memref<?x?xf32>
  return %d0, %d1, %l : index, index, f32
}

// -----

// Nothing to fold: the IR stays as it is.
// CHECK-LABEL: func.func @unchanged
// CHECK-NEXT:    %0 = arith.addi %arg1, %arg2 : index
// CHECK-NEXT:    %1 = memref.load %arg0[%0] : memref<?xf32>
// CHECK-NEXT:    %2 = arith.mulf %1, %arg3 : f32
// CHECK-NEXT:    memref.store %2, %arg0[%arg1] : memref<?xf32>
// CHECK-NEXT:    %3 = arith.divsi %arg1, %arg2 : index
// CHECK-NEXT:    %4 = memref.load %arg0[%3] : memref<?xf32>
// CHECK-NEXT:    return %4 : f32
func.func @unchanged(%m: memref<?xf32>, %i: index, %j: index, %f: f32) -> f32 {
  %0 = arith.addi %i, %j : index
  %1 = memref.load %m[%0] : memref<?xf32>
  %2 = arith.mulf %1, %f : f32
  memref.store %2, %m[%i] : memref<?xf32>
  %3 = arith.divsi %i, %j : index
  %4 = memref.load %m[%3] : memref<?xf32>
  return %4 : f32
}
