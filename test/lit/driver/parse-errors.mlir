// RUN: not disc-opt -split-input-file %s 2>&1 | FileCheck %s
// Each chunk is reported with its line in this file, and the other chunks still print.

// CHECK: parse-errors.mlir:[[# @LINE + 2]]:{{[0-9]+}}: error:
// CHECK-NEXT: %0 = "nope.op"() : () -> i32
%0 = "nope.op"() : () -> i32

// -----

// CHECK: parse-errors.mlir:[[# @LINE + 3]]:{{[0-9]+}}: error:
// CHECK-NEXT: %1 = arith.addi %a, %b : i64
func.func @type_mismatch(%a: i32, %b: i32) -> i32 {
  %1 = arith.addi %a, %b : i64
  return %1 : i32
}

// -----

// The error sits at the end of the input, the line after the last one.
// CHECK: parse-errors.mlir:[[# @LINE + 3]]:1: error:
func.func @truncated(%a: i32) -> i32 {
  return %a : i32
