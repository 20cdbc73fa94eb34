// RUN: disc-opt %s -split-input-file -disc-convert-tensor-to-std | FileCheck %s

// The body is cloned once per element with the index bound to a constant.
// CHECK-LABEL: func.func @generate
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[D0:.*]] = tensor.dim %arg0, %[[C0]] : tensor<?x?xf32>
// CHECK: %[[E0:.*]] = arith.muli %[[D0]], %{{.*}} : index
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D1:.*]] = tensor.dim %arg0, %[[C1]] : tensor<?x?xf32>
// CHECK: %[[E1:.*]] = arith.muli %[[D1]], %{{.*}} : index
// CHECK: %[[S:.*]] = tensor.from_elements %[[E0]], %[[E1]] : tensor<2xindex>
// CHECK-NOT: tensor.generate
// CHECK: return %[[S]] : tensor<2xindex>
func.func @generate(%a: tensor<?x?xf32>) -> tensor<2xindex> {
  %0 = tensor.generate {
  ^bb0(%i: index):
    %d = tensor.dim %a, %i : tensor<?x?xf32>
    %c2 = arith.constant 2 : index
    %m = arith.muli %d, %c2 : index
    tensor.yield %m : index
  } : tensor<2xindex>
  return %0 : tensor<2xindex>
}

// -----

// Other tensor ops are left alone.
// CHECK-LABEL: func.func @others
// CHECK: tensor.from_elements %arg0 : tensor<1xindex>
// CHECK: tensor.extract
func.func @others(%d: index) -> index {
  %c0 = arith.constant 0 : index
  %0 = tensor.from_elements %d : tensor<1xindex>
  %1 = tensor.extract %0[%c0] : tensor<1xindex>
  return %1 : index
}

