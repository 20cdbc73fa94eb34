// RUN: disc-opt --allow-unregistered-dialect %s | FileCheck %s
// RUN: not disc-opt %s 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK: %0:2 = "foo.pair"() {a = 1 : i64, b = 2 : i64} : () -> (i32, i32)
// CHECK-NEXT: "foo.use"(%0#1, %0#0) : (i32, i32) -> ()
// ERR: unregistered.mlir:8:11: error: operation 'foo.pair' being parsed with an unregistered dialect
func.func @f() {
  %p:2 = "foo.pair"() {b = 2, a = 1} : () -> (i32, i32)
  "foo.use"(%p#1, %p#0) : (i32, i32) -> ()
  return
}
