// RUN: disc-opt --mlir-print-op-generic %s | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s --check-prefix=CUSTOM

// CHECK: "builtin.module"() ({
// CHECK: "func.func"() <{function_type = (i32) -> i32, sym_name = "f"}> ({
// CHECK: ^bb0(%arg0: i32):
// CHECK: "func.return"(%arg0) : (i32) -> ()
// CUSTOM: module {
// CUSTOM-NEXT: func.func @f(%arg0: i32) -> i32 {
// CUSTOM-NEXT: return %arg0 : i32
func.func @f(%x: i32) -> i32 {
  return %x : i32
}
