// RUN: disc-opt %s -trim-return-to-void | FileCheck %s

// CHECK-LABEL: func.func @wrap0(%arg0: !okl.launcher_ctx) {
// CHECK: "okl.get_tensor_as_ret"(%arg0, %{{.*}}) {index = 0 : i32}
// CHECK: "okl.get_tensor_as_ret"(%arg0, %{{.*}}) {index = 1 : i32}
// CHECK-NEXT: return{{$}}
func.func @wrap0(%arg0: !okl.launcher_ctx) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = "okl.get_tensor_from_arg"(%arg0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
  %1 = "mhlo.abs"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "mhlo.tanh"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  %3 = "okl.get_tensor_as_ret"(%arg0, %1) {index = 0 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
  %4 = "okl.get_tensor_as_ret"(%arg0, %2) {index = 1 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
  return %3, %4 : tensor<2xf32>, tensor<2xf32>
}
