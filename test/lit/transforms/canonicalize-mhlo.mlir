// RUN: disc-opt %s -split-input-file -canonicalize | FileCheck %s

// mlir-hlo fold hooks: mhlo ops on constants fold to mhlo.constant, no-ops to their operand.

// CHECK-LABEL: func.func @binary
// CHECK: %0 = mhlo.constant dense<[true, false]> : tensor<2xi1>
// CHECK: %1 = mhlo.constant dense<[3.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK: %2 = mhlo.constant dense<[3, -3, 4, 4]> : tensor<4xi32>
// CHECK: %3 = mhlo.constant dense<[2.000000e+00, -4.000000e+00, 6.000000e+00, 1.000000e+00]> : tensor<4xf32>
// CHECK: %4 = mhlo.constant dense<[6, 8, 10, 12]> : tensor<4xi64>
// CHECK: %5 = mhlo.constant dense<[1, 0]> : tensor<2xi32>
// CHECK: %6 = mhlo.constant dense<[3, 0]> : tensor<2xi32>
// CHECK: %7 = mhlo.divide %5, %6 : tensor<2xi32>
// CHECK-NEXT: return %4, %3, %2, %7, %1, %0 : tensor<4xi64>, tensor<4xf32>, tensor<4xi32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi1>
func.func @binary() -> (tensor<4xi64>, tensor<4xf32>, tensor<4xi32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi1>) {
  %0 = mhlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
  %1 = mhlo.constant dense<[5, 6, 7, 8]> : tensor<4xi64>
  %2 = mhlo.add %0, %1 : tensor<4xi64>
  %3 = mhlo.constant dense<2.0> : tensor<4xf32>
  %4 = mhlo.constant dense<[1.0, -2.0, 3.0, 0.5]> : tensor<4xf32>
  %5 = mhlo.multiply %3, %4 : tensor<4xf32>
  %6 = mhlo.constant dense<[7, -7, 8, 9]> : tensor<4xi32>
  %7 = mhlo.constant dense<2> : tensor<4xi32>
  %8 = mhlo.divide %6, %7 : tensor<4xi32>
  %9 = mhlo.constant dense<[3, 0]> : tensor<2xi32>
  %10 = mhlo.constant dense<[1, 0]> : tensor<2xi32>
  %11 = mhlo.divide %10, %9 : tensor<2xi32>
  %12 = mhlo.constant dense<[1.0, 4.0]> : tensor<2xf32>
  %13 = mhlo.constant dense<[3.0, 2.0]> : tensor<2xf32>
  %14 = mhlo.maximum %12, %13 : tensor<2xf32>
  %15 = mhlo.compare  LT, %12, %13 : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %2, %5, %8, %11, %14, %15 : tensor<4xi64>, tensor<4xf32>, tensor<4xi32>, tensor<2xi32>, tensor<2xf32>, tensor<2xi1>
}

// -----

// Float x + c folds only for c = -0.0 (x + 0.0 turns -0.0 into +0.0: kept),
// x - c only for c = +0.0 (x - -0.0 is x + 0.0: kept).
// CHECK-LABEL: func.func @identities
// CHECK-DAG: %[[PZ:.*]] = mhlo.constant dense<0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[NZ:.*]] = mhlo.constant dense<-0.000000e+00> : tensor<4xf32>
// CHECK-DAG: %[[T:.*]] = mhlo.constant dense<true> : tensor<4xi1>
// CHECK-DAG: %[[KEPT_ADD:.*]] = mhlo.add %arg0, %[[PZ]] : tensor<4xf32>
// CHECK-DAG: %[[KEPT_SUB:.*]] = mhlo.subtract %arg0, %[[NZ]] : tensor<4xf32>
// CHECK: return %arg0, %arg0, %arg1, %[[T]], %arg0, %[[KEPT_ADD]], %[[KEPT_SUB]] : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
func.func @identities(%arg0: tensor<4xf32>, %arg1: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0 = mhlo.constant dense<-0.0> : tensor<4xf32>
  %pz = mhlo.constant dense<0.0> : tensor<4xf32>
  %1 = mhlo.constant dense<1.0> : tensor<4xf32>
  %2 = mhlo.add %0, %arg0 : tensor<4xf32>
  %3 = mhlo.multiply %2, %1 : tensor<4xf32>
  %t = mhlo.constant dense<true> : tensor<4xi1>
  %f = mhlo.constant dense<false> : tensor<4xi1>
  %4 = mhlo.and %arg1, %t : tensor<4xi1>
  %5 = mhlo.or %arg1, %t : tensor<4xi1>
  %6 = mhlo.subtract %arg0, %pz : tensor<4xf32>
  %7 = mhlo.add %pz, %arg0 : tensor<4xf32>
  %8 = mhlo.subtract %arg0, %0 : tensor<4xf32>
  return %3, %2, %4, %5, %6, %7, %8 : tensor<4xf32>, tensor<4xf32>, tensor<4xi1>, tensor<4xi1>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unary
// CHECK: %0 = mhlo.constant dense<[1, 0]> : tensor<2xi32>
// CHECK: %1 = mhlo.constant dense<[-3.000000e+00, 5.000000e+00]> : tensor<2xf16>
// CHECK: %2 = mhlo.constant dense<[-1, 2]> : tensor<2xi32>
// CHECK: %3 = mhlo.constant dense<[false, true]> : tensor<2xi1>
// CHECK: %4 = mhlo.constant dense<[3, -5]> : tensor<2xi32>
// CHECK: %5 = mhlo.constant dense<[1.500000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %5, %4, %3, %2, %1, %0 : tensor<2xf32>, tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xf16>, tensor<2xi32>
func.func @unary() -> (tensor<2xf32>, tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xf16>, tensor<2xi32>) {
  %0 = mhlo.constant dense<[-1.5, 2.0]> : tensor<2xf32>
  %1 = mhlo.abs %0 : tensor<2xf32>
  %2 = mhlo.constant dense<[-3, 5]> : tensor<2xi32>
  %3 = mhlo.negate %2 : tensor<2xi32>
  %4 = mhlo.constant dense<[true, false]> : tensor<2xi1>
  %5 = mhlo.not %4 : tensor<2xi1>
  %6 = mhlo.convert %0 : (tensor<2xf32>) -> tensor<2xi32>
  %7 = mhlo.convert %2 : (tensor<2xi32>) -> tensor<2xf16>
  %8 = mhlo.convert %4 : (tensor<2xi1>) -> tensor<2xi32>
  return %1, %3, %5, %6, %7, %8 : tensor<2xf32>, tensor<2xi32>, tensor<2xi1>, tensor<2xi32>, tensor<2xf16>, tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @select
// CHECK: %0 = mhlo.constant dense<[1.000000e+00, 4.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %arg0, %arg1, %arg0, %0 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
func.func @select(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xi1>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %t = mhlo.constant dense<true> : tensor<2xi1>
  %f = mhlo.constant dense<false> : tensor<i1>
  %p = mhlo.constant dense<[true, false]> : tensor<2xi1>
  %0 = mhlo.select %t, %arg0, %arg1 : tensor<2xi1>, tensor<2xf32>
  %1 = mhlo.select %f, %arg0, %arg1 : tensor<i1>, tensor<2xf32>
  %2 = mhlo.select %arg2, %arg0, %arg0 : tensor<2xi1>, tensor<2xf32>
  %a = mhlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = mhlo.constant dense<[3.0, 4.0]> : tensor<2xf32>
  %3 = mhlo.select %p, %a, %b : tensor<2xi1>, tensor<2xf32>
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @shapes
// CHECK: %0 = mhlo.constant dense<1.000000e+00> : tensor<2x3xf32>
// CHECK: %1 = mhlo.constant dense<[[0, 0, 0, 0, 0], [1, 0, 2, 0, 3], [1, 0, 2, 0, 3], [0, 0, 0, 0, 0]]> : tensor<4x5xi32>
// CHECK: %2 = mhlo.constant dense<[[1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3]]> : tensor<4x3xi32>
// CHECK: %3 = mhlo.constant dense<[[1, 3]]> : tensor<1x2xi32>
// CHECK: %4 = mhlo.constant dense<[1, 1, 2, 2, 3, 3]> : tensor<6xi32>
// CHECK: %5 = mhlo.constant dense<[[1, 1], [2, 2], [3, 3]]> : tensor<3x2xi32>
// CHECK: %6 = mhlo.constant dense<[[1, 2, 3], [1, 2, 3]]> : tensor<2x3xi32>
// CHECK-NEXT: return %6, %5, %4, %3, %2, %1, %0 : tensor<2x3xi32>, tensor<3x2xi32>, tensor<6xi32>, tensor<1x2xi32>, tensor<4x3xi32>, tensor<4x5xi32>, tensor<2x3xf32>
func.func @shapes() -> (tensor<2x3xi32>, tensor<3x2xi32>, tensor<6xi32>, tensor<1x2xi32>, tensor<4x3xi32>, tensor<4x5xi32>, tensor<2x3xf32>) {
  %0 = mhlo.constant dense<[1, 2, 3]> : tensor<3xi32>
  %1 = "mhlo.broadcast_in_dim"(%0) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<3xi32>) -> tensor<2x3xi32>
  %2 = "mhlo.transpose"(%1) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x3xi32>) -> tensor<3x2xi32>
  %3 = mhlo.reshape %2 : (tensor<3x2xi32>) -> tensor<6xi32>
  %4 = "mhlo.slice"(%1) {limit_indices = dense<[2, 3]> : tensor<2xi64>, start_indices = dense<[1, 0]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} : (tensor<2x3xi32>) -> tensor<1x2xi32>
  %5 = "mhlo.concatenate"(%1, %1) {dimension = 0 : i64} : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<4x3xi32>
  %z = mhlo.constant dense<0> : tensor<i32>
  %6 = "mhlo.pad"(%1, %z) {edge_padding_high = dense<[1, 0]> : tensor<2xi64>, edge_padding_low = dense<[1, 0]> : tensor<2xi64>, interior_padding = dense<[0, 1]> : tensor<2xi64>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<4x5xi32>
  %s = mhlo.constant dense<1.0> : tensor<f32>
  %7 = "mhlo.broadcast_in_dim"(%s) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<2x3xf32>
  return %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xi32>, tensor<3x2xi32>, tensor<6xi32>, tensor<1x2xi32>, tensor<4x3xi32>, tensor<4x5xi32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @noops
// CHECK: %cst = arith.constant 2.000000e+00 : f32
// CHECK: %0 = mhlo.constant dense<0> : tensor<1x3xi32>
// CHECK: %1 = mhlo.constant dense<4> : tensor<i32>
// CHECK: %2 = "mhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<3xi32>
// CHECK-NEXT: return %arg0, %arg0, %arg0, %arg1, %arg1, %1, %0, %2, %cst : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<i32>, tensor<1x3xi32>, tensor<3xi32>, f32
func.func @noops(%arg0: tensor<?x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<2xindex>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<i32>, tensor<1x3xi32>, tensor<3xi32>, f32) {
  %0 = mhlo.reshape %arg0 : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %1 = mhlo.convert %0 : tensor<?x4xf32>
  %2 = "mhlo.transpose"(%1) {permutation = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  %3 = mhlo.dynamic_reshape %arg1, %arg2 : (tensor<2x4xf32>, tensor<2xindex>) -> tensor<2x4xf32>
  %4 = "mhlo.dynamic_broadcast_in_dim"(%3, %arg2) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<2x4xf32>, tensor<2xindex>) -> tensor<2x4xf32>
  %5 = "mhlo.get_dimension_size"(%arg0) {dimension = 1 : i64} : (tensor<?x4xf32>) -> tensor<i32>
  %6 = "mhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<1x3xi32>
  %7 = "mhlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<3xi32>
  %c = mhlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %i = arith.constant 1 : index
  %8 = tensor.extract %c[%i] : tensor<2xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<i32>, tensor<1x3xi32>, tensor<3xi32>, f32
}

// -----

// Constant folds agree with the generated code: an integer converts to f32 /
// bf16 in one rounding from its exact value (2^60 + 2^36 + 1 -> 2^60 + 2^37,
// not 2^60 through f64; 2^24 + 2^16 + 1 -> 2^24 + 2^17 in bf16, not 2^24
// through f32); max/min order -0.0 below +0.0 (arith.maximumf/minimumf);
// a TOTALORDER compare is not folded.
// CHECK-LABEL: func.func @rounding_and_signed_zeros
// CHECK-DAG: %[[MIN:.*]] = mhlo.constant dense<-0.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[MAX:.*]] = mhlo.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK-DAG: %[[BF:.*]] = mhlo.constant dense<1.690830e+07> : tensor<bf16>
// CHECK-DAG: %[[F:.*]] = mhlo.constant dense<1.15292164e+18> : tensor<f32>
// CHECK-DAG: %[[TOTAL:.*]] = mhlo.compare  LT, %{{.*}}, %{{.*}},  TOTALORDER
// CHECK: return %[[F]], %[[BF]], %[[MAX]], %[[MIN]], %[[TOTAL]]
func.func @rounding_and_signed_zeros() -> (tensor<f32>, tensor<bf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>) {
  %big = mhlo.constant dense<1152921573326323713> : tensor<i64>
  %0 = mhlo.convert %big : (tensor<i64>) -> tensor<f32>
  %mid = mhlo.constant dense<16842753> : tensor<i32>
  %1 = mhlo.convert %mid : (tensor<i32>) -> tensor<bf16>
  %a = mhlo.constant dense<[-0.0, 0.0]> : tensor<2xf32>
  %b = mhlo.constant dense<[0.0, -0.0]> : tensor<2xf32>
  %2 = mhlo.maximum %a, %b : tensor<2xf32>
  %3 = mhlo.minimum %a, %b : tensor<2xf32>
  %4 = mhlo.compare LT, %a, %b, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %0, %1, %2, %3, %4 : tensor<f32>, tensor<bf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xi1>
}
