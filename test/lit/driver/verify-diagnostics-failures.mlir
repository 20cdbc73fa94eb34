// RUN: not disc-opt %s -split-input-file -verify-diagnostics 2>&1 | FileCheck %s
// A wrong expectation fails the run with MLIR's messages, each at file:line:col.

// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 4]]:3: error: unexpected error: 'mhlo.add' op requires compatible shapes
// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:6: error: expected error "requires the same shape" was not produced
func.func @wrong_message(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{requires the same shape}}
  %0 = mhlo.add %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

// The message is right but the line is not.
// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 3]]:3: error: unexpected error: 'mhlo.sqrt' op operand #0
// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 3]]:6: error: expected error "must be tensor/memref of floating-point" was not produced
func.func @wrong_line(%a: tensor<4xi32>) {
  %0 = mhlo.sqrt %a : tensor<4xi32>
  // expected-error @+1 {{must be tensor/memref of floating-point}}
  return
}

// -----

// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 3]]:6: error: 'error' diagnostic emitted when expecting a 'warning'
// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:6: error: expected warning "pred must be a tensor of i1" was not produced
func.func @wrong_severity(%a: tensor<4xf32>) {
  // expected-warning @+1 {{pred must be a tensor of i1}}
  %0 = mhlo.select %a, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:6: error: expected error "never" was not produced
func.func @nothing_wrong(%a: i32) -> i32 {
  // expected-error @+1 {{never}}
  return %a : i32
}

// -----

// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 2]]:6: error: found start of regex with no end '}}'
func.func @bad_regex(%a: i32) -> i32 {
  // expected-error-re @+1 {{a {{[0-9] b}}
  return %a : i32
}

// -----

// CHECK: verify-diagnostics-failures.mlir:[[# @LINE + 1]]:{{[0-9]+}}: error: unexpected error: custom op 'nope.op' is unknown
%0 = nope.op : i32
