// RUN: disc-opt %s -split-input-file -hlo-canonicalize-reduction | FileCheck %s

// Row reduction (a suffix of the dims): [a, b, c] -> [a*b, c], reduced over
// dim 1, the result reshaped back to [a, b].
// CHECK-LABEL: func.func @rank3_row_reduction
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x?xf32>)
// CHECK:         %[[INIT:.*]] = mhlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[D2:.*]] = tensor.dim %[[X]], %[[C2]]
// CHECK-NEXT:    %[[D2I:.*]] = arith.index_cast %[[D2]] : index to i32
// CHECK-NEXT:    %[[RED:.*]] = arith.muli %[[ONE]], %[[D2I]] : i32
// CHECK:         %[[D0:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[D0I:.*]] = arith.index_cast %[[D0]] : index to i32
// CHECK-NEXT:    %[[K0:.*]] = arith.muli %[[ONE]], %[[D0I]] : i32
// CHECK:         %[[D1:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[D1I:.*]] = arith.index_cast %[[D1]] : index to i32
// CHECK-NEXT:    %[[KEPT:.*]] = arith.muli %[[K0]], %[[D1I]] : i32
// CHECK-NEXT:    %[[SHAPE:.*]] = tensor.from_elements %[[KEPT]], %[[RED]] : tensor<2xi32>
// CHECK-NEXT:    %[[R2:.*]] = mhlo.dynamic_reshape %[[X]], %[[SHAPE]] : (tensor<?x?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[SUM:.*]] = mhlo.reduce(%[[R2]] init: %[[INIT]]) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK:         %[[E0:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[E0I:.*]] = arith.index_cast %[[E0]] : index to i32
// CHECK:         %[[E1:.*]] = tensor.dim %[[X]], %{{.*}}
// CHECK-NEXT:    %[[E1I:.*]] = arith.index_cast %[[E1]] : index to i32
// CHECK-NEXT:    %[[OUT_SHAPE:.*]] = tensor.from_elements %[[E0I]], %[[E1I]] : tensor<2xi32>
// CHECK-NEXT:    %[[OUT:.*]] = mhlo.dynamic_reshape %[[SUM]], %[[OUT_SHAPE]] : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
// CHECK-NEXT:    return %[[OUT]] : tensor<?x?xf32>
func.func @rank3_row_reduction(%arg0: tensor<?x?x?xf32>) -> tensor<?x?xf32> {
  %0 = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = mhlo.reduce(%arg0 init: %0) applies mhlo.add across dimensions = [2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}

// -----

// Column reduction (a prefix of the dims, in any order): [a, b, c] -> [a*b, c],
// reduced over dim 0, the result reshaped back to [c].
// CHECK-LABEL: func.func @rank3_column_reduction
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?x?xf32>)
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xi32>
// CHECK-NEXT:    %[[R2:.*]] = mhlo.dynamic_reshape %[[X]], %[[SHAPE]] : (tensor<?x?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[SUM:.*]] = mhlo.reduce(%[[R2]] init: %{{.*}}) applies mhlo.maximum across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK:         %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[E2:.*]] = tensor.dim %[[X]], %[[C2]]
// CHECK-NEXT:    %[[E2I:.*]] = arith.index_cast %[[E2]] : index to i32
// CHECK-NEXT:    %[[OUT_SHAPE:.*]] = tensor.from_elements %[[E2I]] : tensor<1xi32>
// CHECK-NEXT:    %[[OUT:.*]] = mhlo.dynamic_reshape %[[SUM]], %[[OUT_SHAPE]] : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>
// CHECK-NEXT:    return %[[OUT]]
func.func @rank3_column_reduction(%arg0: tensor<?x?x?xf32>) -> tensor<?xf32> {
  %0 = mhlo.constant dense<0xFF800000> : tensor<f32>
  %1 = mhlo.reduce(%arg0 init: %0) applies mhlo.maximum across dimensions = [1, 0] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// -----

// Reduction to a scalar (upstream's choice): [a, b] -> [a*b, 1], a column
// reduction over dim 0, its tensor<?xf32> result reshaped to rank 0.
// CHECK-LABEL: func.func @full_reduction
// CHECK-SAME:    (%[[X:.*]]: tensor<?x?xf32>)
// CHECK:         %[[ONE:.*]] = arith.constant 1 : i32
// CHECK:         %[[N0:.*]] = arith.muli %[[ONE]], %{{.*}} : i32
// CHECK:         %[[N:.*]] = arith.muli %[[N0]], %{{.*}} : i32
// CHECK-NEXT:    %[[SHAPE:.*]] = tensor.from_elements %[[N]], %[[ONE]] : tensor<2xi32>
// CHECK-NEXT:    %[[R2:.*]] = mhlo.dynamic_reshape %[[X]], %[[SHAPE]] : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[SUM:.*]] = mhlo.reduce(%[[R2]] init: %{{.*}}) applies mhlo.add across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NEXT:    %[[OUT:.*]] = mhlo.reshape %[[SUM]] : (tensor<?xf32>) -> tensor<f32>
// CHECK-NEXT:    return %[[OUT]] : tensor<f32>
func.func @full_reduction(%arg0: tensor<?x?xf32>) -> tensor<f32> {
  %0 = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = mhlo.reduce(%arg0 init: %0) applies mhlo.add across dimensions = [0, 1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}

// -----

// A variadic row reduction: every input is reshaped with the same shape (that
// of the first input), the reducer body moves to the new reduce.
// CHECK-LABEL: func.func @variadic_row_reduction
// CHECK-SAME:    (%[[X:.*]]: tensor<4x?x8xf32>, %[[Y:.*]]: tensor<4x?x8xi32>)
// CHECK:         %[[SHAPE:.*]] = tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xi32>
// CHECK-NEXT:    %[[RX:.*]] = mhlo.dynamic_reshape %[[X]], %[[SHAPE]] : (tensor<4x?x8xf32>, tensor<2xi32>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[RY:.*]] = mhlo.dynamic_reshape %[[Y]], %[[SHAPE]] : (tensor<4x?x8xi32>, tensor<2xi32>) -> tensor<?x?xi32>
// CHECK-NEXT:    %[[R:.*]]:2 = mhlo.reduce(%[[RX]] init: %{{.*}}), (%[[RY]] init: %{{.*}}) across dimensions = [1] : (tensor<?x?xf32>, tensor<?x?xi32>, tensor<f32>, tensor<i32>) -> (tensor<?xf32>, tensor<?xi32>)
// CHECK:           mhlo.add
// CHECK:           mhlo.add
// CHECK:           mhlo.return
// CHECK:         %[[OUT_SHAPE:.*]] = tensor.from_elements %{{.*}}, %{{.*}} : tensor<2xi32>
// CHECK-NEXT:    %[[A:.*]] = mhlo.dynamic_reshape %[[R]]#0, %[[OUT_SHAPE]] : (tensor<?xf32>, tensor<2xi32>) -> tensor<4x?xf32>
// CHECK-NEXT:    %[[B:.*]] = mhlo.dynamic_reshape %[[R]]#1, %[[OUT_SHAPE]] : (tensor<?xi32>, tensor<2xi32>) -> tensor<4x?xi32>
// CHECK-NEXT:    return %[[A]], %[[B]]
func.func @variadic_row_reduction(%arg0: tensor<4x?x8xf32>, %arg1: tensor<4x?x8xi32>) -> (tensor<4x?xf32>, tensor<4x?xi32>) {
  %0 = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = mhlo.constant dense<0> : tensor<i32>
  %2:2 = mhlo.reduce(%arg0 init: %0), (%arg1 init: %1) across dimensions = [2] : (tensor<4x?x8xf32>, tensor<4x?x8xi32>, tensor<f32>, tensor<i32>) -> (tensor<4x?xf32>, tensor<4x?xi32>)
   reducer(%a: tensor<f32>, %b: tensor<f32>) (%c: tensor<i32>, %d: tensor<i32>) {
    %s = mhlo.add %a, %b : tensor<f32>
    %t = mhlo.add %c, %d : tensor<i32>
    mhlo.return %s, %t : tensor<f32>, tensor<i32>
  }
  return %2#0, %2#1 : tensor<4x?xf32>, tensor<4x?xi32>
}

// -----

// Not rewritten: a reduction of an interior dim, of non-contiguous dims, and
// rank-2 row / column reductions (already what the GPU codegen schedules).
// CHECK-LABEL: func.func @unchanged
// CHECK-NOT:     reshape
// CHECK:         mhlo.reduce(%arg0 init: %{{.*}}) applies mhlo.add across dimensions = [1] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
// CHECK-NOT:     reshape
// CHECK:         mhlo.reduce(%arg0 init: %{{.*}}) applies mhlo.add across dimensions = [0, 2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NOT:     reshape
// CHECK:         mhlo.reduce(%arg1 init: %{{.*}}) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NOT:     reshape
// CHECK:         mhlo.reduce(%arg1 init: %{{.*}}) applies mhlo.add across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
// CHECK-NOT:     reshape
// CHECK:         return
func.func @unchanged(%arg0: tensor<?x?x?xf32>, %arg1: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>) {
  %0 = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %1 = mhlo.reduce(%arg0 init: %0) applies mhlo.add across dimensions = [1] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %2 = mhlo.reduce(%arg0 init: %0) applies mhlo.add across dimensions = [0, 2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %3 = mhlo.reduce(%arg1 init: %0) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %4 = mhlo.reduce(%arg1 init: %0) applies mhlo.add across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %1, %2, %3, %4 : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>, tensor<?xf32>
}
