// RUN: disc-opt %s -split-input-file -disc-convert-hlo-to-std | FileCheck %s

// compute_reshape_shape resolves a -1 extent from the element count: the
// product of the extents times -1 divides the count (1 when the count is 0
// or no extent is -1).
// CHECK-LABEL: func.func @index_shape
// CHECK-SAME:    (%[[N:.*]]: index, %[[S:.*]]: tensor<2xindex>)
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[M1:.*]] = arith.constant -1 : index
// CHECK:         %[[E0:.*]] = tensor.extract %[[S]]
// CHECK:         %[[P0:.*]] = arith.muli %[[E0]], %[[M1]] : index
// CHECK:         %[[E1:.*]] = tensor.extract %[[S]]
// CHECK:         %[[P1:.*]] = arith.muli %[[E1]], %[[P0]] : index
// CHECK:         %[[Z:.*]] = arith.cmpi eq, %[[N]], %[[C0]] : index
// CHECK:         %[[NEG:.*]] = arith.cmpi slt, %[[P1]], %[[C0]] : index
// CHECK:         %[[OR:.*]] = arith.ori %[[Z]], %[[NEG]] : i1
// CHECK:         %[[P:.*]] = arith.select %[[OR]], %[[C1]], %[[P1]] : index
// CHECK:         %[[X0:.*]] = tensor.extract %[[S]]
// CHECK:         %[[IS0:.*]] = arith.cmpi eq, %[[X0]], %[[M1]] : index
// CHECK:         %[[D0:.*]] = arith.divui %[[N]], %[[P]] : index
// CHECK:         %[[R0:.*]] = arith.select %[[IS0]], %[[D0]], %[[X0]] : index
// CHECK:         %[[R1:.*]] = arith.select
// CHECK:         %[[OUT:.*]] = tensor.from_elements %[[R0]], %[[R1]] : tensor<2xindex>
// CHECK:         return %[[OUT]]
// CHECK-NOT:     mhlo.compute_reshape_shape
func.func @index_shape(%n: index, %s: tensor<2xindex>) -> tensor<2xindex> {
  %0 = "mhlo.compute_reshape_shape"(%n, %s) : (index, tensor<2xindex>) -> tensor<2xindex>
  return %0 : tensor<2xindex>
}

// -----

// Integer extents are computed on index and cast back; other ops are kept.
// CHECK-LABEL: func.func @i32_shape
// CHECK:         arith.index_cast %{{.*}} : i32 to index
// CHECK:         %[[A:.*]] = arith.index_cast %{{.*}} : index to i32
// CHECK:         %[[OUT:.*]] = tensor.from_elements %[[A]] : tensor<1xi32>
// CHECK:         mhlo.dynamic_reshape %arg2, %[[OUT]]
func.func @i32_shape(%n: index, %s: tensor<1xi32>, %x: tensor<?x?xf32>) -> tensor<?xf32> {
  %0 = "mhlo.compute_reshape_shape"(%n, %s) : (index, tensor<1xi32>) -> tensor<1xi32>
  %1 = "mhlo.dynamic_reshape"(%x, %0) : (tensor<?x?xf32>, tensor<1xi32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}
