// RUN: disc-opt %s '-disc-shape-simplifier=entry-func-name=other' | FileCheck %s
// RUN: not disc-opt %s '-disc-shape-simplifier=entry-func-name=nope' 2>&1 | FileCheck %s --check-prefix=MISSING

// Only the function named by entry-func-name is simplified.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%{{.*}}: tensor<?xf32>) -> tensor<?xf32>
// CHECK: tensor.cast
// CHECK-LABEL: func.func @other
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>) -> tensor<3xf32>
// CHECK-NEXT: return %[[X]] : tensor<3xf32>
// MISSING: entry func: nope not found
func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.cast %arg0 : tensor<?xf32> to tensor<5xf32>
  %1 = tensor.cast %0 : tensor<5xf32> to tensor<?xf32>
  return %1 : tensor<?xf32>
}
func.func @other(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  %0 = tensor.cast %arg0 : tensor<?xf32> to tensor<3xf32>
  %1 = tensor.cast %0 : tensor<3xf32> to tensor<?xf32>
  return %1 : tensor<?xf32>
}
