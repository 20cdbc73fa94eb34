// RUN: disc-opt %s -split-input-file -cse | FileCheck %s

// Equal side-effect-free ops (constants included) are merged; operand order matters.
// CHECK-LABEL: func.func @simple
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %0 = arith.addi %arg0, %arg1 : index
// CHECK-NEXT:    %1 = arith.addi %arg1, %arg0 : index
// CHECK-NEXT:    %2 = arith.muli %0, %c1 : index
// CHECK-NEXT:    return %2, %2, %1 : index, index, index
func.func @simple(%a: index, %b: index) -> (index, index, index) {
  %c1 = arith.constant 1 : index
  %c1_0 = arith.constant 1 : index
  %0 = arith.addi %a, %b : index
  %1 = arith.addi %a, %b : index
  %2 = arith.addi %b, %a : index
  %3 = arith.muli %0, %c1 : index
  %4 = arith.muli %1, %c1_0 : index
  return %3, %4, %2 : index, index, index
}

// -----

// Loads merge only without a write in between; allocations never merge; an
// unused allocation is dead.
// CHECK-LABEL: func.func @memory
// CHECK-NEXT:    %0 = memref.load %arg0[%arg1] : memref<?xf32>
// CHECK-NEXT:    memref.store %arg2, %arg0[%arg1] : memref<?xf32>
// CHECK-NEXT:    %1 = memref.load %arg0[%arg1] : memref<?xf32>
// CHECK-NEXT:    %alloc = memref.alloc(%arg1) : memref<?xf32>
// CHECK-NEXT:    %alloc_0 = memref.alloc(%arg1) : memref<?xf32>
// CHECK-NEXT:    memref.dealloc %alloc : memref<?xf32>
// CHECK-NEXT:    memref.dealloc %alloc_0 : memref<?xf32>
// CHECK-NEXT:    return %0, %0, %1 : f32, f32, f32
func.func @memory(%m: memref<?xf32>, %i: index, %v: f32) -> (f32, f32, f32) {
  %0 = memref.load %m[%i] : memref<?xf32>
  %1 = memref.load %m[%i] : memref<?xf32>
  memref.store %v, %m[%i] : memref<?xf32>
  %2 = memref.load %m[%i] : memref<?xf32>
  %a = memref.alloc(%i) : memref<?xf32>
  %b = memref.alloc(%i) : memref<?xf32>
  %unused = memref.alloc(%i) : memref<?xf32>
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return %0, %1, %2 : f32, f32, f32
}

// -----

// Loop bodies (scf.for, scf.parallel) see the ops known outside them.
// CHECK-LABEL: func.func @nested
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %0 = arith.muli %arg1, %arg1 : index
// CHECK-NEXT:    scf.for %arg3 = %c0 to %arg2 step %c1 {
// CHECK-NEXT:      %1 = arith.addi %0, %c1 : index
// CHECK-NEXT:      memref.store %1, %arg0[%arg3] : memref<?xindex>
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.parallel (%arg3) = (%c0) to (%arg2) step (%c1) {
// CHECK-NEXT:      %1 = arith.addi %arg3, %0 : index
// CHECK-NEXT:      memref.store %1, %arg0[%1] : memref<?xindex>
// CHECK:         memref.store %0, %arg0[%0] : memref<?xindex>
// CHECK-NEXT:    return
func.func @nested(%m: memref<?xindex>, %a: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = arith.muli %a, %a : index
  scf.for %i = %c0 to %n step %c1 {
    %c1_1 = arith.constant 1 : index
    %y = arith.muli %a, %a : index
    %z = arith.addi %y, %c1_1 : index
    memref.store %z, %m[%i] : memref<?xindex>
  }
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %y = arith.muli %a, %a : index
    %u = arith.addi %i, %y : index
    %w = arith.addi %i, %y : index
    memref.store %u, %m[%w] : memref<?xindex>
    scf.reduce
  }
  %t = arith.muli %a, %a : index
  memref.store %t, %m[%x] : memref<?xindex>
  return
}

// -----

// Functions are isolated from above: each has its own scope.
// CHECK-LABEL: func.func @isolated
// CHECK-NEXT:    %0 = arith.addi %arg0, %arg0 : index
// CHECK-NEXT:    return %0 : index
// CHECK-LABEL: func.func @isolated2
// CHECK-NEXT:    %0 = arith.addi %arg0, %arg0 : index
// CHECK-NEXT:    %1 = arith.addi %0, %0 : index
// CHECK-NEXT:    return %1 : index
func.func @isolated(%a: index) -> index {
  %0 = arith.addi %a, %a : index
  return %0 : index
}
func.func @isolated2(%a: index) -> index {
  %0 = arith.addi %a, %a : index
  %1 = arith.addi %a, %a : index
  %2 = arith.addi %0, %1 : index
  return %2 : index
}
