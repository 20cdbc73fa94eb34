// RUN: disc-opt %s -split-input-file -lower-to-okl | FileCheck %s

// The design's example: relu (here mhlo.abs) and tanh, both returned.
// CHECK-LABEL: func.func @okl_func(%arg0: !okl.launcher_ctx) {
// CHECK-NEXT: "okl.wrapper_kernel"() ({
// CHECK-NEXT: %[[A:.*]] = "okl.get_tensor_from_arg"(%arg0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
// CHECK-NEXT: %[[R:.*]] = mhlo.abs %[[A]] : tensor<2xf32>
// CHECK-NEXT: "okl.get_tensor_as_ret"(%arg0, %[[R]]) {index = 0 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: okl.return
// CHECK-NEXT: }) {index = 0 : i32} : () -> ()
// CHECK-NEXT: "okl.wrapper_kernel"() ({
// CHECK-NEXT: %[[B:.*]] = "okl.get_tensor_from_ret"(%arg0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
// CHECK-NEXT: %[[T:.*]] = mhlo.tanh %[[B]] : tensor<2xf32>
// CHECK-NEXT: "okl.get_tensor_as_ret"(%arg0, %[[T]]) {index = 1 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: okl.return
// CHECK-NEXT: }) {index = 1 : i32} : () -> ()
// CHECK-NEXT: return
func.func @wrap0(%arg0: !okl.launcher_ctx) {
  %0 = "okl.get_tensor_from_arg"(%arg0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
  %1 = "mhlo.abs"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  %2 = "mhlo.tanh"(%1) : (tensor<2xf32>) -> tensor<2xf32>
  %3 = "okl.get_tensor_as_ret"(%arg0, %1) {index = 0 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
  %4 = "okl.get_tensor_as_ret"(%arg0, %2) {index = 1 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

// An intermediate tensor takes the slot after the results; a constant is
// copied into the kernel reading it; a returned argument is forwarded by a
// kernel without an op.
// CHECK-LABEL: func.func @okl_func(%arg0: !okl.launcher_ctx) {
// CHECK: %[[X:.*]] = "okl.get_tensor_from_arg"(%arg0) {index = 0 : i32}
// CHECK-NEXT: mhlo.abs %[[X]]
// CHECK-NEXT: "okl.get_tensor_as_ret"(%arg0, %{{.*}}) {index = 2 : i32}
// CHECK: }) {index = 0 : i32}
// CHECK: "okl.get_tensor_from_ret"(%arg0) {index = 2 : i32}
// CHECK-NEXT: mhlo.constant dense<2.000000e+00>
// CHECK-NEXT: chlo.broadcast_multiply
// CHECK-NEXT: "okl.get_tensor_as_ret"(%arg0, %{{.*}}) {index = 0 : i32}
// CHECK: }) {index = 1 : i32}
// CHECK: %[[Y:.*]] = "okl.get_tensor_from_arg"(%arg0) {index = 0 : i32}
// CHECK-NEXT: "okl.get_tensor_as_ret"(%arg0, %[[Y]]) {index = 1 : i32}
// CHECK-NEXT: okl.return
// CHECK-NEXT: }) {index = 2 : i32}
func.func @main(%arg0: !okl.launcher_ctx) {
  %0 = "okl.get_tensor_from_arg"(%arg0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<?xf32>
  %c = mhlo.constant dense<2.0> : tensor<f32>
  %1 = "mhlo.abs"(%0) : (tensor<?xf32>) -> tensor<?xf32>
  %2 = "chlo.broadcast_multiply"(%1, %c) : (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
  %3 = "okl.get_tensor_as_ret"(%arg0, %2) {index = 0 : i32} : (!okl.launcher_ctx, tensor<?xf32>) -> tensor<?xf32>
  %4 = "okl.get_tensor_as_ret"(%arg0, %0) {index = 1 : i32} : (!okl.launcher_ctx, tensor<?xf32>) -> tensor<?xf32>
  return
}
