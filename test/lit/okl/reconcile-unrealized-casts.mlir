// RUN: disc-opt %s -reconcile-unrealized-casts | FileCheck %s

// The launcher context's cast is unused once the kernels are calls.
// CHECK-LABEL: func.func @okl_func(%arg0: !llvm.ptr<i8>)
// CHECK-NOT: unrealized_conversion_cast
// CHECK: llvm.call @okl_llvm_func(%arg0, %{{.*}})
// CHECK-LABEL: func.func @round_trip(%arg0: i64) -> i64
// CHECK-NEXT: return %arg0 : i64
llvm.func @okl_llvm_func(!llvm.ptr<i8>, i64) attributes {llvm.emit_c_interface}
func.func @okl_func(%arg0: !llvm.ptr<i8>) attributes {llvm.emit_c_interface} {
  %0 = builtin.unrealized_conversion_cast %arg0 : !llvm.ptr<i8> to !okl.launcher_ctx
  %1 = llvm.mlir.constant(0 : index) : i64
  llvm.call @okl_llvm_func(%arg0, %1) : (!llvm.ptr<i8>, i64) -> ()
  return
}
func.func @round_trip(%arg0: i64) -> i64 {
  %0 = builtin.unrealized_conversion_cast %arg0 : i64 to index
  %1 = builtin.unrealized_conversion_cast %0 : index to i64
  return %1 : i64
}
