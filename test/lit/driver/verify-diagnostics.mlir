// RUN: disc-opt %s -split-input-file -verify-diagnostics
// RUN: disc-opt %s --split-input-file --verify-diagnostics -o /dev/null
// Every way of placing an expectation, each met: the run succeeds.

func.func @plus_offset(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{requires compatible shapes}}
  %0 = mhlo.add %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @same_line(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  %0 = mhlo.add %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32> // expected-error {{requires the same element type}}
  return
}

// -----

func.func @minus_offset(%a: tensor<4xi32>) {
  %0 = mhlo.sqrt %a : tensor<4xi32>
  // expected-error@-1 {{'mhlo.sqrt' op operand #0 must be tensor/memref of floating-point}}
  return
}

// -----

func.func @above(%a: tensor<4xf32>) {
  %0 = mhlo.compare GT, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error@above {{result must be a tensor of i1}}
  return
}

// -----

func.func @below(%a: tensor<4xf32>) {
  // expected-error@below {{pred must be a tensor of i1}}
  %0 = mhlo.select %a, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @regex(%a: tensor<4xf32>) {
  // expected-error-re@+1 {{'mhlo.select' op {{[a-z]+}} must be a tensor of i{{[0-9]}}}}
  %0 = mhlo.select %a, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

// A parse error is a diagnostic like any other.
func.func @parse_error(%a: i32) -> i32 {
  // expected-error @+1 {{use of undefined SSA value %b}}
  %0 = arith.addi %a, %b : i32
  return %0 : i32
}

// -----

// A chunk without errors and without expectations.
func.func @valid(%a: i32) -> i32 {
  return %a : i32
}
