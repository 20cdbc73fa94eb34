// RUN: disc-opt %s -extract-kernel-launch-tensor | FileCheck %s

// CHECK-LABEL: func.func @wrap0(%arg0: !okl.launcher_ctx) -> (tensor<2xf32>, tensor<2xf32>)
// CHECK-NEXT: %[[A:.*]] = "okl.get_tensor_from_arg"(%arg0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
// CHECK-NEXT: %[[R:.*]] = mhlo.abs %[[A]] : tensor<2xf32>
// CHECK-NEXT: %[[T:.*]] = mhlo.tanh %[[R]] : tensor<2xf32>
// CHECK-NEXT: %[[R0:.*]] = "okl.get_tensor_as_ret"(%arg0, %[[R]]) {index = 0 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: %[[R1:.*]] = "okl.get_tensor_as_ret"(%arg0, %[[T]]) {index = 1 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: return %[[R0]], %[[R1]] : tensor<2xf32>, tensor<2xf32>
func.func @wrap0(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = "mhlo.abs"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "mhlo.tanh"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}
