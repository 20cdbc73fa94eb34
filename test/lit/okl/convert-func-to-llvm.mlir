// RUN: disc-opt %s -convert-func-to-llvm | FileCheck %s

// CHECK: module attributes {llvm.data_layout = ""} {
// CHECK-NEXT: llvm.func @okl_llvm_func(!llvm.ptr<i8>, i64) attributes {llvm.emit_c_interface}
// CHECK-NEXT: llvm.func @okl_func(%arg0: !llvm.ptr<i8>) attributes {llvm.emit_c_interface} {
// CHECK-NEXT: %[[I0:.*]] = llvm.mlir.constant(0) : i64
// CHECK-NEXT: llvm.call @okl_llvm_func(%arg0, %[[I0]]) : (!llvm.ptr<i8>, i64) -> ()
// CHECK-NEXT: %[[I1:.*]] = llvm.mlir.constant(1) : i64
// CHECK-NEXT: llvm.call @okl_llvm_func(%arg0, %[[I1]]) : (!llvm.ptr<i8>, i64) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
// CHECK-NEXT: llvm.func @_mlir_ciface_okl_func(%arg0: !llvm.ptr<i8>) attributes {llvm.emit_c_interface} {
// CHECK-NEXT: llvm.call @okl_func(%arg0) : (!llvm.ptr<i8>) -> ()
// CHECK-NEXT: llvm.return
// CHECK-NEXT: }
llvm.func @okl_llvm_func(!llvm.ptr<i8>, i64) attributes {llvm.emit_c_interface}
func.func @okl_func(%arg0: !llvm.ptr<i8>) attributes {llvm.emit_c_interface} {
  %1 = llvm.mlir.constant(0 : index) : i64
  llvm.call @okl_llvm_func(%arg0, %1) : (!llvm.ptr<i8>, i64) -> ()
  %2 = llvm.mlir.constant(1 : index) : i64
  llvm.call @okl_llvm_func(%arg0, %2) : (!llvm.ptr<i8>, i64) -> ()
  return
}
