// RUN: disc-opt %s -disc-convert-shape-to-std | FileCheck %s

// Static extents become constants, dynamic ones tensor.dim / memref.dim.
// CHECK-LABEL: func.func @shape_of_mixed
// CHECK: %[[D0:.*]] = tensor.dim %arg0, %c0 : tensor<?x4x?xf32>
// CHECK: %[[D2:.*]] = tensor.dim %arg0, %c2 : tensor<?x4x?xf32>
// CHECK: %[[S:.*]] = tensor.from_elements %[[D0]], %c4, %[[D2]] : tensor<3xindex>
// CHECK: return %[[S]] : tensor<3xindex>
// CHECK-LABEL: func.func @shape_of_memref
// CHECK: %[[D0:.*]] = memref.dim %arg0, %c0 : memref<?x2xf32>
// CHECK: tensor.from_elements %[[D0]], %c2 : tensor<2xindex>

// Broadcast: per extent, a 1 takes the other operand's extent.
// CHECK-LABEL: func.func @broadcast
// CHECK: %[[A0:.*]] = tensor.extract %arg0[%{{.*}}] : tensor<2xindex>
// CHECK: %[[A0ONE:.*]] = arith.cmpi eq, %[[A0]], %{{.*}} : index
// CHECK: %[[E0:.*]] = arith.select %[[A0ONE]], %{{.*}}, %[[A0]] : index
// CHECK: %[[A1:.*]] = tensor.extract %arg0[%{{.*}}] : tensor<2xindex>
// CHECK: %[[A1ONE:.*]] = arith.cmpi eq, %[[A1]], %{{.*}} : index
// CHECK: %[[P1:.*]] = arith.select %[[A1ONE]], %{{.*}}, %[[A1]] : index
// CHECK: %[[B0:.*]] = tensor.extract %arg1[%{{.*}}] : tensor<1xindex>
// CHECK: %[[B0ONE:.*]] = arith.cmpi eq, %[[B0]], %{{.*}} : index
// CHECK: %[[E1:.*]] = arith.select %[[B0ONE]], %[[P1]], %[[B0]] : index
// CHECK: tensor.from_elements %[[E0]], %[[E1]] : tensor<2xindex>

// CHECK-LABEL: func.func @split_concat
// CHECK: %[[X0:.*]] = tensor.extract %arg0[%c0]
// CHECK: %[[X1:.*]] = tensor.extract %arg0[%c1]
// CHECK: %[[X2:.*]] = tensor.extract %arg0[%c2]
// CHECK: %[[HEAD:.*]] = tensor.from_elements %[[X0]] : tensor<1xindex>
// CHECK: %[[TAIL:.*]] = tensor.from_elements %[[X1]], %[[X2]] : tensor<2xindex>
// CHECK: %[[T0:.*]] = tensor.extract %[[TAIL]]
// CHECK: %[[T1:.*]] = tensor.extract %[[TAIL]]
// CHECK: %[[H0:.*]] = tensor.extract %[[HEAD]]
// CHECK: %[[CAT:.*]] = tensor.from_elements %[[T0]], %[[T1]], %[[H0]] : tensor<3xindex>
// CHECK: return %[[HEAD]], %[[TAIL]], %[[CAT]]

// CHECK-LABEL: func.func @num_elements
// CHECK: %[[E0:.*]] = tensor.extract %arg0[%c0]
// CHECK: %[[P0:.*]] = arith.muli %[[E0]], %c1 : index
// CHECK: %[[E1:.*]] = tensor.extract %arg0
// CHECK: %[[P1:.*]] = arith.muli %[[E1]], %[[P0]] : index
// CHECK: return %[[P1]] : index

// CHECK-LABEL: func.func @linearize
// CHECK-SAME: (%[[I:.*]]: index, %[[J:.*]]: index, %[[D0:.*]]: index, %[[D1:.*]]: index)
// CHECK: %[[M:.*]] = arith.muli %[[I]], %[[D1]] : index
// CHECK: %[[L:.*]] = arith.addi %[[M]], %[[J]] : index
// CHECK: %[[R1:.*]] = arith.remui %[[L]], %[[D1]] : index
// CHECK: %[[R0:.*]] = arith.divui %[[L]], %[[D1]] : index
// CHECK: return %[[L]], %[[R0]], %[[R1]]

// Values of !shape.shape type are left alone.
// CHECK-LABEL: func.func @shape_type_left
// CHECK: shape.shape_of %arg0 : tensor<?xf32> -> !shape.shape
func.func @shape_of_mixed(%a: tensor<?x4x?xf32>) -> tensor<3xindex> {
  %0 = shape.shape_of %a : tensor<?x4x?xf32> -> tensor<3xindex>
  return %0 : tensor<3xindex>
}

func.func @shape_of_memref(%a: memref<?x2xf32>) -> tensor<2xindex> {
  %0 = shape.shape_of %a : memref<?x2xf32> -> tensor<2xindex>
  return %0 : tensor<2xindex>
}

func.func @broadcast(%a: tensor<2xindex>, %b: tensor<1xindex>) -> tensor<2xindex> {
  %0 = shape.broadcast %a, %b : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
  return %0 : tensor<2xindex>
}

func.func @split_concat(%a: tensor<3xindex>) -> (tensor<1xindex>, tensor<2xindex>, tensor<3xindex>) {
  %c1 = arith.constant 1 : index
  %h, %t = shape.split_at %a, %c1 : tensor<3xindex>, index -> tensor<1xindex>, tensor<2xindex>
  %c = shape.concat %t, %h : tensor<2xindex>, tensor<1xindex> -> tensor<3xindex>
  return %h, %t, %c : tensor<1xindex>, tensor<2xindex>, tensor<3xindex>
}

func.func @num_elements(%a: tensor<2xindex>) -> index {
  %0 = shape.num_elements %a : tensor<2xindex> -> index
  return %0 : index
}

func.func @linearize(%i: index, %j: index, %d0: index, %d1: index) -> (index, index, index) {
  %0 = "disc_shape.linearize"(%i, %j, %d0, %d1) {operand_segment_sizes = array<i32: 2, 2>} : (index, index, index, index) -> index
  %1:2 = "disc_shape.delinearize"(%0, %d0, %d1) : (index, index, index) -> (index, index)
  return %0, %1#0, %1#1 : index, index, index
}

func.func @shape_type_left(%a: tensor<?xf32>) -> !shape.shape {
  %0 = shape.shape_of %a : tensor<?xf32> -> !shape.shape
  return %0 : !shape.shape
}
