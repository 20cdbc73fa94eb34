// RUN: disc-opt -split-input-file %s -disc-shape-simplifier | FileCheck %s
// RUN: disc-opt -split-input-file %s '-disc-shape-simplifier=insert-tie-shape=true' | FileCheck %s --check-prefix=TIE

// A static dim reaches the signature through tensor.cast and elementwise ops;
// other functions are left alone.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A0:.*]]: tensor<4x?xf32>, %[[A1:.*]]: tensor<4x?xf32>) -> tensor<4x?xf32>
// CHECK-NEXT: %[[M:.*]] = mhlo.multiply %[[A0]], %[[A1]] : tensor<4x?xf32>
// CHECK-NEXT: %[[B:.*]] = mhlo.abs %[[M]] : tensor<4x?xf32>
// CHECK-NEXT: return %[[B]] : tensor<4x?xf32>
// CHECK-LABEL: func.func @other
// CHECK-SAME: (%{{.*}}: tensor<?xf32>) -> tensor<?xf32>
// CHECK: tensor.cast
// CHECK: tensor.cast
func.func @main(%arg0: tensor<?x?xf32>, %arg1: tensor<4x?xf32>) -> tensor<?x?xf32> {
  %0 = tensor.cast %arg1 : tensor<4x?xf32> to tensor<?x?xf32>
  %1 = mhlo.multiply %arg0, %0 : tensor<?x?xf32>
  %2 = mhlo.abs %1 : tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}
func.func @other(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.cast %arg0 : tensor<?xf32> to tensor<3xf32>
  %1 = tensor.cast %0 : tensor<3xf32> to tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// A constant extent of a dynamic_reshape's target shape becomes static; the
// input's dims are not guessed from the product (a zero dim would break it).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: tensor<?x?xf32>) -> tensor<?x4xf32>
// CHECK: %[[R:.*]] = mhlo.dynamic_reshape %[[A]], %{{.*}} : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x4xf32>
// CHECK-NEXT: return %[[R]] : tensor<?x4xf32>
func.func @main(%arg0: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %c4 = arith.constant 4 : index
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x?xf32>
  %s = tensor.from_elements %d, %c4 : tensor<2xindex>
  %0 = mhlo.dynamic_reshape %arg0, %s : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A constant shape tensor makes the whole reshape result static.
// CHECK-LABEL: func.func @main
// CHECK-SAME: -> tensor<2x3xf32>
// CHECK: mhlo.dynamic_reshape {{.*}} -> tensor<2x3xf32>
func.func @main(%arg0: tensor<?xf32>) -> tensor<?x?xf32> {
  %s = mhlo.constant dense<[2, 3]> : tensor<2xi32>
  %0 = mhlo.dynamic_reshape %arg0, %s : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A broadcast to the operand's own shape is dropped.
// CHECK-LABEL: func.func @main
// CHECK-NOT: mhlo.dynamic_broadcast_in_dim
// CHECK: %[[S:.*]] = mhlo.add %arg0, %arg1 : tensor<?x?xf32>
// CHECK-NEXT: return %[[S]]
func.func @main(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
  %1 = "mhlo.dynamic_broadcast_in_dim"(%arg0, %0) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %2 = mhlo.add %1, %arg1 : tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}

// -----

// A broadcast that may expand is kept; the operand's dynamic dim is not tied
// to the result (it may be 1). Static and dynamic dims mix in tie_shape.
// CHECK-LABEL: func.func @main
// CHECK: mhlo.dynamic_broadcast_in_dim
// TIE-LABEL: func.func @main(%arg0: tensor<?x8xf32>
// TIE-DAG: %[[C8:.*]] = arith.constant 8 : index
// TIE-DAG: %[[D0:.*]] = tensor.dim %arg0, %c0 : tensor<?x8xf32>
// TIE: %[[T0:.*]] = "disc_shape.tie_shape"(%arg0, %[[D0]], %[[C8]]) : (tensor<?x8xf32>, index, index) -> tensor<?x8xf32>
// TIE: %[[D1:.*]] = tensor.dim %arg1, %c0 : tensor<?xf32>
// TIE: %[[T1:.*]] = "disc_shape.tie_shape"(%arg1, %[[D1]]) : (tensor<?xf32>, index) -> tensor<?xf32>
// TIE: %[[B:.*]] = "mhlo.dynamic_broadcast_in_dim"(%[[T1]], %{{.*}})
// TIE: %[[TB:.*]] = "disc_shape.tie_shape"(%[[B]], %[[D0]], %[[C8]])
// TIE: %[[S:.*]] = mhlo.add %[[TB]], %[[T0]] : tensor<?x8xf32>
// TIE: %[[TS:.*]] = "disc_shape.tie_shape"(%[[S]], %[[D0]], %[[C8]])
// TIE: return %[[TS]] : tensor<?x8xf32>
func.func @main(%arg0: tensor<?x8xf32>, %arg1: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %d0 = tensor.dim %arg0, %c0 : tensor<?x8xf32>
  %c1 = arith.constant 1 : index
  %d1 = tensor.dim %arg0, %c1 : tensor<?x8xf32>
  %s = tensor.from_elements %d0, %d1 : tensor<2xindex>
  %1 = "mhlo.dynamic_broadcast_in_dim"(%arg1, %s) {broadcast_dimensions = dense<[1]> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %2 = tensor.cast %arg0 : tensor<?x8xf32> to tensor<?x?xf32>
  %3 = mhlo.add %1, %2 : tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}

// -----

// Dims flow through transpose, dot and reduce; tie_shape shares the dims.
// TIE-LABEL: func.func @main(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>) -> tensor<?x?xf32>
// TIE: %[[A:.*]] = tensor.dim %arg0, %c0
// TIE: %[[B:.*]] = tensor.dim %arg0, %c1
// TIE: "disc_shape.tie_shape"(%arg0, %[[A]], %[[B]])
// TIE: %[[C:.*]] = tensor.dim %arg1, %c1
// TIE: "disc_shape.tie_shape"(%arg1, %[[B]], %[[C]])
// TIE: mhlo.dot
// TIE: "disc_shape.tie_shape"(%{{.*}}, %[[A]], %[[C]])
// TIE: mhlo.transpose
// TIE: "disc_shape.tie_shape"(%{{.*}}, %[[C]], %[[A]])
func.func @main(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "mhlo.dot"(%arg0, %arg1) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %1 = "mhlo.transpose"(%0) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<?x?xf32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// Fully static IR is left unchanged, with or without tie_shape.
// CHECK-LABEL: func.func @main(%arg0: tensor<2x3xf32>)
// CHECK-NEXT: mhlo.add %arg0, %arg0 : tensor<2x3xf32>
// TIE-LABEL: func.func @main(%arg0: tensor<2x3xf32>)
// TIE-NOT: disc_shape.tie_shape
func.func @main(%arg0: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mhlo.add %arg0, %arg0 : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
