// RUN: disc-opt %s -split-input-file -canonicalize | FileCheck %s

// MLIR's bufferization cast folds: to_memref(to_tensor(m)) -> m (same type),
// tensor.dim(to_tensor(m)) -> memref.dim m, to_tensor(to_memref(t)) -> t when
// the to_memref comes right before it.
// CHECK-LABEL: func.func @casts(
// CHECK: %c0 = arith.constant 0 : index
// CHECK: %dim = memref.dim %arg0, %c0 : memref<?xf32>
// CHECK-NEXT: %[[M:.*]] = bufferization.to_memref %arg1 : memref<4xf32>
// CHECK-NEXT: return %arg0, %dim, %arg1, %[[M]] : memref<?xf32>, index, tensor<4xf32>, memref<4xf32>
func.func @casts(%m: memref<?xf32>, %t: tensor<4xf32>) -> (memref<?xf32>, index, tensor<4xf32>, memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %0 = bufferization.to_tensor %m : memref<?xf32>
  %1 = bufferization.to_memref %0 : memref<?xf32>
  %2 = tensor.dim %0, %c0 : tensor<?xf32>
  %3 = bufferization.to_memref %t : memref<4xf32>
  %4 = bufferization.to_tensor %3 : memref<4xf32>
  return %1, %2, %4, %3 : memref<?xf32>, index, tensor<4xf32>, memref<4xf32>
}

// -----

// Not folded: a different type, or an op between to_memref and to_tensor.
// CHECK-LABEL: func.func @kept(
// CHECK: bufferization.to_memref %{{.*}} : memref<4xf32>
// CHECK: memref.store
// CHECK: bufferization.to_tensor
func.func @kept(%t: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %0 = bufferization.to_memref %t : memref<4xf32>
  memref.store %v, %0[%c0] : memref<4xf32>
  %1 = bufferization.to_tensor %0 : memref<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// memref.rank / tensor.rank of a ranked operand fold to a constant.
// CHECK-LABEL: func.func @rank(
// CHECK-NEXT: %c2 = arith.constant 2 : index
// CHECK-NEXT: %0 = memref.rank %arg1 : memref<*xf32>
// CHECK-NEXT: return %c2, %0 : index, index
func.func @rank(%m: memref<?x?xf32>, %u: memref<*xf32>) -> (index, index) {
  %0 = memref.rank %m : memref<?x?xf32>
  %1 = memref.rank %u : memref<*xf32>
  return %0, %1 : index, index
}
