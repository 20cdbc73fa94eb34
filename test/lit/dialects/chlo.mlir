// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// CHECK-LABEL: func.func @broadcasting
func.func @broadcasting(%a: tensor<?x?xf32>, %b: tensor<?xf32>, %i: tensor<?x?xi32>, %j: tensor<?xi32>, %p: tensor<?x?xi1>) {
  // CHECK: chlo.broadcast_add %arg0, %arg1 {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %0 = chlo.broadcast_add %a, %b {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // GENERIC: "chlo.broadcast_add"(%arg0, %arg1) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_subtract %arg0, %arg1 : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %1 = chlo.broadcast_subtract %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_multiply
  %2 = chlo.broadcast_multiply %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_divide
  %3 = chlo.broadcast_divide %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_maximum
  %4 = chlo.broadcast_maximum %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_minimum
  %5 = chlo.broadcast_minimum %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_power
  %6 = chlo.broadcast_power %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_remainder
  %7 = chlo.broadcast_remainder %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_atan2
  %8 = chlo.broadcast_atan2 %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_and %arg2, %arg3 : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32>
  %9 = chlo.broadcast_and %i, %j : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32>
  // CHECK: chlo.broadcast_or
  %10 = chlo.broadcast_or %i, %j : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32>
  // CHECK: chlo.broadcast_xor
  %11 = chlo.broadcast_xor %i, %j : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32>
  // CHECK: chlo.broadcast_shift_left
  %12 = chlo.broadcast_shift_left %i, %j : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32>
  // CHECK: chlo.broadcast_shift_right_arithmetic
  %13 = chlo.broadcast_shift_right_arithmetic %i, %j : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32>
  // CHECK: chlo.broadcast_shift_right_logical
  %14 = chlo.broadcast_shift_right_logical %i, %j : (tensor<?x?xi32>, tensor<?xi32>) -> tensor<?x?xi32>
  // CHECK: chlo.broadcast_next_after
  %15 = chlo.broadcast_next_after %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_polygamma
  %16 = chlo.broadcast_polygamma %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_zeta
  %17 = chlo.broadcast_zeta %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  // CHECK: chlo.broadcast_complex %arg0, %arg1 : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xcomplex<f32>>
  %18 = chlo.broadcast_complex %a, %b : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xcomplex<f32>>
  // CHECK: chlo.broadcast_compare %arg0, %arg1 {compare_type = #chlo<comparison_type FLOAT>, comparison_direction = #chlo<comparison_direction GT>} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xi1>
  %19 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction GT>, compare_type = #chlo<comparison_type FLOAT>} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xi1>
  // CHECK: chlo.broadcast_select %arg4, %arg0, %arg1 : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  %20 = chlo.broadcast_select %p, %a, %b : (tensor<?x?xi1>, tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return
}

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<4xf32>) {
  // CHECK: chlo.erf %arg0 : tensor<4xf32> -> tensor<4xf32>
  %0 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  // GENERIC: "chlo.erf"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  // CHECK: chlo.erfc
  %1 = chlo.erfc %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.tan
  %2 = chlo.tan %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.lgamma
  %3 = chlo.lgamma %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.digamma
  %4 = chlo.digamma %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.is_inf %arg0 : tensor<4xf32> -> tensor<4xi1>
  %5 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xi1>
  // CHECK: chlo.is_neg_inf
  %6 = chlo.is_neg_inf %x : tensor<4xf32> -> tensor<4xi1>
  // CHECK: chlo.is_pos_inf
  %7 = chlo.is_pos_inf %x : tensor<4xf32> -> tensor<4xi1>
  // CHECK: chlo.acos
  %8 = chlo.acos %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.acosh
  %9 = chlo.acosh %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.asin
  %10 = chlo.asin %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.asinh
  %11 = chlo.asinh %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.atan
  %12 = chlo.atan %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.atanh
  %13 = chlo.atanh %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.bessel_i1e
  %14 = chlo.bessel_i1e %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.conj
  %15 = chlo.conj %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.cosh
  %16 = chlo.cosh %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.sinh
  %17 = chlo.sinh %x : tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.next_after %arg0, %arg0 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %18 = chlo.next_after %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.polygamma
  %19 = chlo.polygamma %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.zeta
  %20 = chlo.zeta %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  // CHECK: chlo.constant dense<1.000000e+00> : tensor<4xf32>
  %21 = chlo.constant dense<1.0> : tensor<4xf32>
  // CHECK: "chlo.constant_like"(%arg0) {value = 0.000000e+00 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  %22 = "chlo.constant_like"(%x) {value = 0.0 : f32} : (tensor<4xf32>) -> tensor<4xf32>
  return
}
