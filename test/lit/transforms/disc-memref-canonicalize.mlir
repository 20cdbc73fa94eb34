// RUN: disc-opt %s -disc-memref-canonicalize | FileCheck %s

// CHECK-LABEL: func.func @static_alloc
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK-NEXT: return %[[A]] : memref<4x8xf32>

// The new size is only known after the allocation: left as it is.
// CHECK-LABEL: func.func @size_defined_later
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.reinterpret_cast

// The allocation takes the cast's sizes (for every user) and its symbolic dims.
// CHECK-LABEL: func.func @other_uses
// CHECK-NEXT: %[[A:.*]] = memref.alloc(%arg1) {kDiscSymbolicDimAttr = [@S0]} : memref<?xf32>
// CHECK-NEXT: return %[[A]], %[[A]]

// A cast of a cast folds too: the inner fold makes the outer one's source an
// allocation. The sizes' computation left dead goes.
// CHECK-LABEL: func.func @cast_of_cast
// CHECK-NEXT: %[[A:.*]] = memref.alloc(%arg2) : memref<?xf32>
// CHECK-NEXT: return %[[A]]

// Casts nested in loops fold where their sizes are defined before the allocation.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK-NEXT: %[[A:.*]] = memref.alloc(%arg1) : memref<?xf32>
// CHECK-NEXT: memref.store %{{.*}}, %[[A]]
// CHECK-NOT: memref.reinterpret_cast
func.func @static_alloc(%arg0: index) -> memref<4x8xf32> {
  %0 = memref.alloc() : memref<4x8xf32>
  %1 = memref.reinterpret_cast %0 to offset: [0], sizes: [4, 8], strides: [8, 1] : memref<4x8xf32> to memref<4x8xf32>
  return %1 : memref<4x8xf32>
}

func.func @size_defined_later(%arg0: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %d = memref.dim %arg0, %c0 : memref<?xf32>
  %0 = memref.alloc(%d) : memref<?xf32>
  %n = memref.load %arg0[%c0] : memref<?xf32>
  %i = arith.fptosi %n : f32 to i64
  %s = arith.index_cast %i : i64 to index
  %1 = memref.reinterpret_cast %0 to offset: [0], sizes: [%s], strides: [1] : memref<?xf32> to memref<?xf32>
  return %1 : memref<?xf32>
}

func.func @other_uses(%arg0: index, %arg1: index) -> (memref<?xf32>, memref<?xf32>) {
  %0 = memref.alloc(%arg0) : memref<?xf32>
  %1 = memref.reinterpret_cast %0 to offset: [0], sizes: [%arg1], strides: [1] {kDiscSymbolicDimAttr = [@S0]} : memref<?xf32> to memref<?xf32>
  return %0, %1 : memref<?xf32>, memref<?xf32>
}

func.func @cast_of_cast(%arg0: index, %arg1: index, %arg2: index) -> memref<?xf32> {
  %n = arith.addi %arg0, %arg1 : index
  %0 = memref.alloc(%n) : memref<?xf32>
  %1 = memref.reinterpret_cast %0 to offset: [0], sizes: [%arg1], strides: [1] : memref<?xf32> to memref<?xf32>
  %2 = memref.reinterpret_cast %1 to offset: [0], sizes: [%arg2], strides: [1] : memref<?xf32> to memref<?xf32>
  return %2 : memref<?xf32>
}

func.func @in_loop(%arg0: index, %arg1: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %arg0 step %c1 {
    %0 = memref.alloc(%arg0) : memref<?xf32>
    %1 = memref.reinterpret_cast %0 to offset: [0], sizes: [%arg1], strides: [1] : memref<?xf32> to memref<?xf32>
    memref.store %v, %1[%i] : memref<?xf32>
  }
  return
}
