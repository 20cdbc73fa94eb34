// RUN: disc-opt %s -lower-okl-to-llvm-call | FileCheck %s

// CHECK: llvm.func @okl_llvm_func(!llvm.ptr<i8>, i64) attributes {llvm.emit_c_interface}
// CHECK-LABEL: func.func @okl_func(%arg0: !llvm.ptr<i8>) attributes {llvm.emit_c_interface} {
// CHECK-NEXT: builtin.unrealized_conversion_cast %arg0 : !llvm.ptr<i8> to !okl.launcher_ctx
// CHECK-NEXT: %[[I0:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: llvm.call @okl_llvm_func(%arg0, %[[I0]]) : (!llvm.ptr<i8>, i64) -> ()
// CHECK-NEXT: %[[I1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: llvm.call @okl_llvm_func(%arg0, %[[I1]]) : (!llvm.ptr<i8>, i64) -> ()
// CHECK-NEXT: return
// CHECK-NOT: okl.wrapper_kernel
func.func @okl_func(%arg0: !llvm.ptr<i8>) attributes {llvm.emit_c_interface} {
  %0 = builtin.unrealized_conversion_cast %arg0 : !llvm.ptr<i8> to !okl.launcher_ctx
  "okl.wrapper_kernel"() ({
    %1 = "okl.get_tensor_from_arg"(%0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
    %2 = "mhlo.abs"(%1) : (tensor<2xf32>) -> tensor<2xf32>
    %3 = "okl.get_tensor_as_ret"(%0, %2) {index = 0 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
    okl.return
  }) {index = 0 : i32} : () -> ()
  "okl.wrapper_kernel"() ({
    %1 = "okl.get_tensor_from_ret"(%0) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
    %2 = "mhlo.tanh"(%1) : (tensor<2xf32>) -> tensor<2xf32>
    %3 = "okl.get_tensor_as_ret"(%0, %2) {index = 1 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<2xf32>
    okl.return
  }) {index = 1 : i32} : () -> ()
  return
}
