// RUN: disc-opt %s -lower-launcher-to-llvm-ptr | FileCheck %s

// CHECK-LABEL: func.func @okl_func(%arg0: !llvm.ptr<i8>) attributes {llvm.emit_c_interface} {
// CHECK-NEXT: %[[CTX:.*]] = builtin.unrealized_conversion_cast %arg0 : !llvm.ptr<i8> to !okl.launcher_ctx
// CHECK-NEXT: "okl.wrapper_kernel"() ({
// CHECK-NEXT: "okl.get_tensor_from_arg"(%[[CTX]]) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
// CHECK: "okl.get_tensor_as_ret"(%[[CTX]], %{{.*}}) {index = 0 : i32}
// CHECK: }) {index = 0 : i32} : () -> ()
// CHECK-NEXT: "okl.wrapper_kernel"() ({
// CHECK-NEXT: "okl.get_tensor_from_ret"(%[[CTX]]) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
// CHECK: }) {index = 1 : i32} : () -> ()
// CHECK-NEXT: return
func.func @okl_func(%arg0: !okl.launcher_ctx) {
  "okl.wrapper_kernel"() ({
    %0 = "okl.get_tensor_from_arg"(%arg0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
    %1 = "mhlo.abs"(%0) : (tensor<2xf32>) -> tensor<2xf32>
    %2 = "okl.get_tensor_as_ret"(%arg0, %1) {index = 0 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
    okl.return
  }) {index = 0 : i32} : () -> ()
  "okl.wrapper_kernel"() ({
    %0 = "okl.get_tensor_from_ret"(%arg0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
    %1 = "mhlo.tanh"(%0) : (tensor<2xf32>) -> tensor<2xf32>
    %2 = "okl.get_tensor_as_ret"(%arg0, %1) {index = 1 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
    okl.return
  }) {index = 1 : i32} : () -> ()
  return
}
