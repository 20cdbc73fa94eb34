// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s

// A dense constant is printed as a splat only when all its elements have the
// same bits: [-0.0, 0.0] keeps both signs through a text round trip.

// CHECK-LABEL: func.func @signed_zeros
// CHECK: mhlo.constant dense<[-0.000000e+00, 0.000000e+00]> : tensor<2xf32>
func.func @signed_zeros() -> tensor<2xf32> {
  %0 = mhlo.constant dense<[-0.0, 0.0]> : tensor<2xf32>
  return %0 : tensor<2xf32>
}

// CHECK-LABEL: func.func @splat
// CHECK: mhlo.constant dense<2.500000e+00> : tensor<3xf32>
func.func @splat() -> tensor<3xf32> {
  %0 = mhlo.constant dense<[2.5, 2.5, 2.5]> : tensor<3xf32>
  return %0 : tensor<3xf32>
}
