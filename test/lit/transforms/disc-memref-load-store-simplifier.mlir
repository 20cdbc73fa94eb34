// RUN: disc-opt %s -split-input-file --disc-memref-load-store-simplifier | FileCheck %s

// A load of a constant index gets the value the dominating store wrote there;
// a conditional store to another constant index does not block it, one to
// the same index does.
// CHECK-LABEL: func.func @forward
// CHECK: memref.store %arg1, %arg0[%c0]
// CHECK: memref.store %arg2, %arg0[%c1]
// CHECK: scf.if
// CHECK: memref.store %arg2, %arg0[%c2]
// CHECK: %[[C:.*]] = memref.load %arg0[%c2]
// CHECK: return %arg1, %arg2, %[[C]] : index, index, index
func.func @forward(%m: memref<4xindex>, %v: index, %w: index, %p: i1) -> (index, index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  memref.store %v, %m[%c0] : memref<4xindex>
  memref.store %w, %m[%c1] : memref<4xindex>
  scf.if %p {
    memref.store %w, %m[%c2] : memref<4xindex>
  }
  %a = memref.load %m[%c0] : memref<4xindex>
  %b = memref.load %m[%c1] : memref<4xindex>
  %c = memref.load %m[%c2] : memref<4xindex>
  return %a, %b, %c : index, index, index
}

// -----

// Kept: a view of the buffer, a non-dominating store to an unknown index,
// two stores to the same index, a GPU buffer, a multi-dimensional access.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: memref.load
// CHECK: return
func.func @kept(%m: memref<4xindex>, %m2: memref<4xindex>, %m3: memref<4xindex>,
                %g: memref<4xindex, #gpu.address_space<global>>, %m4: memref<2x2xindex>,
                %v: index, %i: index, %p: i1) -> (index, index, index, index, index) {
  %c0 = arith.constant 0 : index
  memref.store %v, %m[%c0] : memref<4xindex>
  %view = memref.cast %m : memref<4xindex> to memref<?xindex>
  %a = memref.load %m[%c0] : memref<4xindex>
  memref.store %v, %m2[%c0] : memref<4xindex>
  scf.if %p {
    memref.store %v, %m2[%i] : memref<4xindex>
  }
  %b = memref.load %m2[%c0] : memref<4xindex>
  memref.store %v, %m3[%c0] : memref<4xindex>
  memref.store %i, %m3[%c0] : memref<4xindex>
  %c = memref.load %m3[%c0] : memref<4xindex>
  memref.store %v, %g[%c0] : memref<4xindex, #gpu.address_space<global>>
  %d = memref.load %g[%c0] : memref<4xindex, #gpu.address_space<global>>
  memref.store %v, %m4[%c0, %c0] : memref<2x2xindex>
  %e = memref.load %m4[%c0, %c0] : memref<2x2xindex>
  return %a, %b, %c, %d, %e : index, index, index, index, index
}
