// RUN: disc-opt %s -split-input-file -verify-diagnostics
// The verifiers of mhlo and chlo ops (BladeDISC's invalid_hlo_disc.mlir style).

func.func @f(%a: tensor<?x4xf32, [@S0, @S1]>, %b: tensor<3x4xf32>) {
  %0 = mhlo.add %a, %b : (tensor<?x4xf32, [@S0, @S1]>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%a: tensor<2x4xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+1 {{'mhlo.add' op requires compatible shapes}}
  %0 = mhlo.add %a, %b : (tensor<2x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>, %b: tensor<4xi32>) {
  // expected-error @+1 {{'mhlo.add' op requires the same element type}}
  %0 = mhlo.add %a, %b : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xi32>) {
  // expected-error @+1 {{'mhlo.sqrt' op operand #0 must be tensor/memref of floating-point}}
  %0 = mhlo.sqrt %a : tensor<4xi32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mhlo.and' op operand #0 must be tensor/memref of pred (i1) or integer}}
  %0 = mhlo.and %a, %a : tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mhlo.is_finite' op result element type f32 does not match the expected i1}}
  %0 = mhlo.is_finite %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xcomplex<f32>>) {
  %0 = mhlo.abs %a : (tensor<4xcomplex<f32>>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mhlo.compare' op result must be a tensor of i1}}
  %0 = mhlo.compare GT, %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mhlo.select' op pred must be a tensor of i1}}
  %0 = mhlo.select %a, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%p: tensor<3xi1>, %a: tensor<4xf32>) {
  // expected-error @+1 {{'mhlo.select' op requires the same shape for all operands}}
  %0 = mhlo.select %p, %a, %a : (tensor<3xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'mhlo.constant' op value type tensor<2xf32> does not match result type}}
  %0 = "mhlo.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mhlo.broadcast_in_dim' op broadcast_dimensions size (2) does not match operand rank (1)}}
  %0 = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mhlo.broadcast_in_dim' op broadcast_dimensions contains invalid value 2}}
  %0 = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<2> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4xf32>) {
  // expected-error @+1 {{'mhlo.broadcast_in_dim' op size of operand dimension 0 (4) is not equal to 1 or size of result dimension 0 (3)}}
  %0 = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%a: tensor<?xf32>, %s: tensor<2xindex>) {
  // expected-error @+1 {{'mhlo.dynamic_broadcast_in_dim' op duplicate expansion hint}}
  %0 = "mhlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>, known_expanding_dimensions = dense<0> : tensor<1xi64>, known_nonexpanding_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?xf32>, %s: tensor<3xindex>) {
  // expected-error @+1 {{'mhlo.dynamic_broadcast_in_dim' op output_dimensions has 3 elements but the result has rank 2}}
  %0 = "mhlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<3xindex>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{'mhlo.transpose' op permutation [0, 0] is not a permutation}}
  %0 = "mhlo.transpose"(%a) {permutation = dense<[0, 0]> : tensor<2xi64>} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @f(%a: tensor<3x4xf32>) {
  // expected-error @+1 {{'mhlo.transpose' op result dimension 0 (3) is incompatible with operand dimension 1 (4)}}
  %0 = "mhlo.transpose"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @f(%a: tensor<?x4xf32>) {
  // expected-error @+1 {{'mhlo.concatenate' op dimension 2 is out of range [0, 2)}}
  %0 = "mhlo.concatenate"(%a, %a) {dimension = 2 : i64} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @f(%a: tensor<?x4xf32>, %b: tensor<?x5xf32>) {
  // expected-error @+1 {{'mhlo.concatenate' op shapes of operands differ in non-concatenated dimension 1}}
  %0 = "mhlo.concatenate"(%a, %b) {dimension = 0 : i64} : (tensor<?x4xf32>, tensor<?x5xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+1 {{'mhlo.reshape' op number of output elements (5) doesn't match expected number of elements (6)}}
  %0 = mhlo.reshape %a : (tensor<2x3xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'mhlo.dot_general' op contracting dimension sizes must match for lhs/rhs}}
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) {
  // expected-error @+1 {{'mhlo.dot_general' op lhs and rhs should have the same number of batching dimensions}}
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?xf32>, %b: tensor<?x?xf32>) {
  // expected-error @+1 {{'mhlo.dot_general' op lhs_contracting_dimensions 5 is out of range [0, 2)}}
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [5], rhs_contracting_dimensions = [0]>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x?x?xf32>, %b: tensor<?x?x?xf32>) {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x?x?xf32>, tensor<?x?x?xf32>) -> tensor<?x?x?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x4xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'mhlo.reduce' op dimensions 2 is out of range [0, 2)}}
  %0 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [2] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
  return
}

// -----

func.func @f(%a: tensor<?x4xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'mhlo.reduce' op result rank (2) should be the input rank (2) minus the number of reduced dimensions (1)}}
  %0 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @f(%a: tensor<?x4xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{'mhlo.reduce' op reducer region arguments must be 0-d}}
  %0 = mhlo.reduce(%a init: %z) across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
      reducer(%x: tensor<4xf32>, %y: tensor<4xf32>) {
        mhlo.return %x : tensor<4xf32>
      }
  return
}

// -----

func.func @f(%t: tuple<tensor<f32>, tensor<i32>>) {
  // expected-error @+1 {{'mhlo.get_tuple_element' op index 2 is out of bounds}}
  %0 = mhlo.get_tuple_element %t[2] : (tuple<tensor<f32>, tensor<i32>>) -> tensor<f32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'chlo.broadcast_add' op operand shapes tensor<2x3xf32> and tensor<4xf32> are not broadcast compatible}}
  %0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<2x3xf32>, %b: tensor<2xf32>) {
  %0 = chlo.broadcast_add %a, %b {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @f(%a: tensor<4xi32>) {
  // expected-error @+1 {{'chlo.erf' op operand must be tensor/memref of floating-point values}}
  %0 = chlo.erf %a : tensor<4xi32> -> tensor<4xi32>
  return
}

// -----

// expected-error @+1 {{duplicated `lhs_batching_dimensions` entry}}
func.func @f() attributes {a = #mhlo.dot<lhs_batching_dimensions = [0], lhs_batching_dimensions = [0]>} {
  return
}

// -----

// expected-error @+1 {{expected one of: `lhs_batching_dimensions`, `rhs_batching_dimensions`, `lhs_contracting_dimensions`, `rhs_contracting_dimensions` in #mhlo.dot}}
func.func @f() attributes {a = #mhlo.dot<lhs_dims = [0]>} {
  return
}

// -----

// expected-error @+1 {{Duplicate entries for spatial dimension 0}}
func.func @f() attributes {a = #mhlo.conv<[b, f, 0, 0]x[o, i, 0, 1]->[b, f, 0, 1]>} {
  return
}

// -----

// expected-error @+1 {{Expected dimensions b, f not specified}}
func.func @f() attributes {a = #mhlo.conv<[b, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>} {
  return
}

// -----

// expected-error @+1 {{Expected `EQ`, `NE`, `GE`, `GT`, `LE`, or `LT`.}}
func.func @f() attributes {a = #mhlo<comparison_direction XX>} {
  return
}

// -----

func.func @f(%a: tensor<?x4xf32>, %z: tensor<f32>) {
  // expected-error @+1 {{expected the inner-op to be a commutative binary-op from mhlo dialect, zero region, producing single result}}
  %0 = mhlo.reduce(%a init: %z) applies mhlo.subtract across dimensions = [1] : (tensor<?x4xf32>, tensor<f32>) -> tensor<?xf32>
  return
}
