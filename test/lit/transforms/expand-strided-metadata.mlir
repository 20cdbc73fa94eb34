// RUN: disc-opt -split-input-file -expand-strided-metadata %s | FileCheck %s

// A static subview: the whole layout folds to constants.
// CHECK-LABEL: func.func @static_subview
// CHECK-SAME: (%[[A:.*]]: memref<4x6xf32>)
// CHECK: %[[META:.*]]:6 = memref.extract_strided_metadata %[[A]] : memref<4x6xf32> -> memref<f32>, index, index, index, index, index
// CHECK: %[[R:.*]] = memref.reinterpret_cast %[[META]]#0 to offset: [8], sizes: [2, 3], strides: [6, 1] : memref<f32> to memref<2x3xf32, strided<[6, 1], offset: 8>>
// CHECK: return %[[R]]
func.func @static_subview(%a: memref<4x6xf32>) -> memref<2x3xf32, strided<[6, 1], offset: 8>> {
  %sub = memref.subview %a[1, 2] [2, 3] [1, 1] : memref<4x6xf32> to memref<2x3xf32, strided<[6, 1], offset: 8>>
  return %sub : memref<2x3xf32, strided<[6, 1], offset: 8>>
}

// -----

// A dynamic, rank-reducing subview: offset = i * stride0, the unit row is dropped.
// CHECK-LABEL: func.func @dynamic_subview
// CHECK-SAME: (%[[B:.*]]: memref<?x?xf32>, %[[I:.*]]: index, %[[N:.*]]: index)
// CHECK: %[[META:.*]]:6 = memref.extract_strided_metadata %[[B]]
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %[[META]]#4 : index
// CHECK: memref.reinterpret_cast %[[META]]#0 to offset: [%[[OFF]]], sizes: [%[[N]]], strides: [2] : memref<f32> to memref<?xf32, strided<[?], offset: ?>>
func.func @dynamic_subview(%b: memref<?x?xf32>, %i: index, %n: index) -> memref<?xf32, strided<[?], offset: ?>> {
  %sub = memref.subview %b[%i, 0] [1, %n] [1, 2] : memref<?x?xf32> to memref<?xf32, strided<[?], offset: ?>>
  return %sub : memref<?xf32, strided<[?], offset: ?>>
}
