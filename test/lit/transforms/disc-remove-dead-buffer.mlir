// RUN: disc-opt %s -split-input-file --disc-remove-dead-buffer | FileCheck %s

// Only written, viewed and freed: removed with all those ops.
// CHECK-LABEL: func.func @dead
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.reinterpret_cast
// CHECK-NOT: lmhlo.abs
// CHECK-NOT: memref.store
// CHECK-NOT: memref.dealloc
// CHECK: return %arg0
func.func @dead(%arg0: memref<?xf32>, %i: index, %v: f32) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %0 = memref.dim %arg0, %c0 : memref<?xf32>
  %1 = memref.alloc(%0) : memref<?xf32>
  %2 = memref.reinterpret_cast %1 to offset: [0], sizes: [%0], strides: [1] : memref<?xf32> to memref<?xf32>
  %3 = memref.cast %2 : memref<?xf32> to memref<?xf32>
  "lmhlo.abs"(%arg0, %3) : (memref<?xf32>, memref<?xf32>) -> ()
  memref.store %v, %1[%i] : memref<?xf32>
  memref.dealloc %1 : memref<?xf32>
  return %arg0 : memref<?xf32>
}

// -----

// Read, returned, read through a view, read by a dispatch, or written by an
// op that also writes elsewhere: kept.
// CHECK-LABEL: func.func @alive
// CHECK-COUNT-5: memref.alloc
// CHECK: return
func.func @alive(%arg0: memref<4xf32>, %i: index, %ctx: !disc_ral.context) -> memref<4xf32> {
  %0 = memref.alloc() : memref<4xf32>
  "lmhlo.abs"(%arg0, %0) : (memref<4xf32>, memref<4xf32>) -> ()
  %l = memref.load %0[%i] : memref<4xf32>
  %1 = memref.alloc() : memref<4xf32>
  %2 = memref.alloc() : memref<4xf32>
  %c = memref.cast %2 : memref<4xf32> to memref<?xf32>
  "lmhlo.abs"(%c, %arg0) : (memref<?xf32>, memref<4xf32>) -> ()
  %3 = memref.alloc() : memref<4xf32>
  "disc_ral.dispatch"(%ctx, %3) {backend_config = "", call_target_name = "foo", device = "cpu", has_side_effect = false} : (!disc_ral.context, memref<4xf32>) -> ()
  %4 = memref.alloc() : memref<4xf32>
  "lmhlo.abs"(%arg0, %4) : (memref<4xf32>, memref<4xf32>) -> ()
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%4, %arg0) : (memref<4xf32>, memref<4xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  return %1 : memref<4xf32>
}
