// RUN: disc-opt -split-input-file -disc-element-type-converter %s | FileCheck %s
// RUN: disc-opt -split-input-file -disc-element-type-converter=enable-fp16-gemm=true %s | FileCheck %s --check-prefix=FP16
// RUN: disc-opt -split-input-file -disc-element-type-converter=enable-fp16-conv=true %s | FileCheck %s --check-prefix=CONV
// RUN: disc-opt -split-input-file -disc-element-type-converter=promote-fp16-sensitive-ops-to-f32=true %s | FileCheck %s --check-prefix=PROMOTE

// A rank-2 column reduction of i1 reduces in i32; `or` stays `or`.
// CHECK-LABEL: func.func @rank2_column_reduction_i1
// CHECK:         %[[X:.*]] = mhlo.convert %arg0 : (tensor<?x?xi1>) -> tensor<?x?xi32>
// CHECK:         %[[I:.*]] = mhlo.convert %{{.*}} : (tensor<i1>) -> tensor<i32>
// CHECK:         %[[R:.*]] = mhlo.reduce(%[[X]] init: %[[I]]) applies mhlo.or across dimensions = [0] : (tensor<?x?xi32>, tensor<i32>) -> tensor<?xi32>
// CHECK:         mhlo.convert %[[R]] : (tensor<?xi32>) -> tensor<?xi1>
func.func @rank2_column_reduction_i1(%arg0: tensor<?x?xi1>) -> tensor<?xi1> {
  %0 = mhlo.constant dense<false> : tensor<i1>
  %1 = mhlo.reduce(%arg0 init: %0) applies mhlo.or across dimensions = [0] : (tensor<?x?xi1>, tensor<i1>) -> tensor<?xi1>
  return %1 : tensor<?xi1>
}

// -----

// i1 addition wraps (1 + 1 = 0): in i32 it is an exclusive or, not a sum
// that the convert back (`!= 0`) would turn into an `or`.
// CHECK-LABEL: func.func @rank2_row_sum_i1
// CHECK:         mhlo.reduce(%{{.*}} init: %{{.*}}) applies mhlo.xor across dimensions = [1] : (tensor<?x?xi32>, tensor<i32>) -> tensor<?xi32>
func.func @rank2_row_sum_i1(%arg0: tensor<?x?xi1>) -> tensor<?xi1> {
  %0 = mhlo.constant dense<false> : tensor<i1>
  %1 = mhlo.reduce(%arg0 init: %0) applies mhlo.add across dimensions = [1] : (tensor<?x?xi1>, tensor<i1>) -> tensor<?xi1>
  return %1 : tensor<?xi1>
}

// -----

// Bitwise `and` of i8 stays `and` in i32 (BladeDISC's `min` is right for i1 only).
// CHECK-LABEL: func.func @rank2_and_i8
// CHECK:         mhlo.reduce(%{{.*}} init: %{{.*}}) applies mhlo.and across dimensions = [0] : (tensor<?x?xi32>, tensor<i32>) -> tensor<?xi32>
// CHECK:         mhlo.convert %{{.*}} : (tensor<?xi32>) -> tensor<?xi8>
func.func @rank2_and_i8(%arg0: tensor<?x?xi8>) -> tensor<?xi8> {
  %0 = mhlo.constant dense<-1> : tensor<i8>
  %1 = mhlo.reduce(%arg0 init: %0) applies mhlo.and across dimensions = [0] : (tensor<?x?xi8>, tensor<i8>) -> tensor<?xi8>
  return %1 : tensor<?xi8>
}

// -----

// Rank 3, i32 and f32 reductions stay as they are without the options.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:     mhlo.convert
// CHECK:         return
func.func @untouched(%arg0: tensor<?x?x?xi8>, %arg1: tensor<?x?xi32>, %arg2: tensor<?x?xf16>) -> (tensor<?x?xi8>, tensor<?xi32>, tensor<?xf16>) {
  %0 = mhlo.constant dense<0> : tensor<i8>
  %1 = mhlo.reduce(%arg0 init: %0) applies mhlo.add across dimensions = [0] : (tensor<?x?x?xi8>, tensor<i8>) -> tensor<?x?xi8>
  %2 = mhlo.constant dense<0> : tensor<i32>
  %3 = mhlo.reduce(%arg1 init: %2) applies mhlo.add across dimensions = [0] : (tensor<?x?xi32>, tensor<i32>) -> tensor<?xi32>
  %4 = mhlo.constant dense<0.000000e+00> : tensor<f16>
  %5 = mhlo.reduce(%arg2 init: %4) applies mhlo.add across dimensions = [0] : (tensor<?x?xf16>, tensor<f16>) -> tensor<?xf16>
  return %1, %3, %5 : tensor<?x?xi8>, tensor<?xi32>, tensor<?xf16>
}

// -----

// FP16-LABEL: func.func @dot_fp32
// FP16:         %[[L:.*]] = mhlo.convert %arg0 : (tensor<?x?xf32>) -> tensor<?x?xf16>
// FP16:         %[[R:.*]] = mhlo.convert %arg1 : (tensor<?x?xf32>) -> tensor<?x?xf16>
// FP16:         %[[D:.*]] = "mhlo.dot_general"(%[[L]], %[[R]])
// FP16-SAME:      -> tensor<?x?xf16>
// FP16:         mhlo.convert %[[D]] : (tensor<?x?xf16>) -> tensor<?x?xf32>
// CHECK-LABEL: func.func @dot_fp32
// CHECK-NOT:     f16
// CHECK:         return
func.func @dot_fp32(%arg0: tensor<?x?xf32>, %arg1: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = "mhlo.dot_general"(%arg0, %arg1) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// CONV-LABEL: func.func @conv_fp32
// CONV:         %[[L:.*]] = mhlo.convert %arg0 : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf16>
// CONV:         %[[R:.*]] = mhlo.convert %arg1 : (tensor<?x?x?x?xf32>) -> tensor<?x?x?x?xf16>
// CONV:         %[[C:.*]] = "mhlo.dynamic_conv"(%[[L]], %[[R]], %arg2)
// CONV-SAME:      -> tensor<?x?x?x?xf16>
// CONV:         mhlo.convert %[[C]] : (tensor<?x?x?x?xf16>) -> tensor<?x?x?x?xf32>
func.func @conv_fp32(%arg0: tensor<?x?x?x?xf32>, %arg1: tensor<?x?x?x?xf32>, %arg2: tensor<4xi32>) -> tensor<?x?x?x?xf32> {
  %0 = "mhlo.dynamic_conv"(%arg0, %arg1, %arg2) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]>, feature_group_count = 1 : i64, rhs_dilation = dense<1> : tensor<2xi64>, window_strides = dense<1> : tensor<2xi64>} : (tensor<?x?x?x?xf32>, tensor<?x?x?x?xf32>, tensor<4xi32>) -> tensor<?x?x?x?xf32>
  return %0 : tensor<?x?x?x?xf32>
}

// -----

// f16 and bf16 reductions, tanh and rsqrt compute in f32.
// PROMOTE-LABEL: func.func @sensitive
// PROMOTE:         %[[X:.*]] = mhlo.convert %arg0 : (tensor<?x?xf16>) -> tensor<?x?xf32>
// PROMOTE:         %[[I:.*]] = mhlo.convert %{{.*}} : (tensor<f16>) -> tensor<f32>
// PROMOTE:         %[[S:.*]] = mhlo.reduce(%[[X]] init: %[[I]]) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
// PROMOTE:         %[[S16:.*]] = mhlo.convert %[[S]] : (tensor<?xf32>) -> tensor<?xf16>
// PROMOTE:         %[[T:.*]] = mhlo.convert %[[S16]] : (tensor<?xf16>) -> tensor<?xf32>
// PROMOTE:         %[[T1:.*]] = mhlo.tanh %[[T]] : tensor<?xf32>
// PROMOTE:         %[[T16:.*]] = mhlo.convert %[[T1]] : (tensor<?xf32>) -> tensor<?xf16>
// PROMOTE:         mhlo.rsqrt %{{.*}} : tensor<?xf32>
// PROMOTE:         mhlo.reduce(%{{.*}} init: %{{.*}}) applies mhlo.maximum across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
// PROMOTE:         mhlo.convert %{{.*}} : (tensor<?xf32>) -> tensor<?xbf16>
func.func @sensitive(%arg0: tensor<?x?xf16>, %arg1: tensor<?x?xbf16>) -> (tensor<?xf16>, tensor<?xbf16>) {
  %0 = mhlo.constant dense<0.000000e+00> : tensor<f16>
  %1 = mhlo.reduce(%arg0 init: %0) applies mhlo.add across dimensions = [1] : (tensor<?x?xf16>, tensor<f16>) -> tensor<?xf16>
  %2 = mhlo.tanh %1 : tensor<?xf16>
  %3 = mhlo.rsqrt %2 : tensor<?xf16>
  %4 = mhlo.constant dense<0xFF80> : tensor<bf16>
  %5 = mhlo.reduce(%arg1 init: %4) applies mhlo.maximum across dimensions = [0] : (tensor<?x?xbf16>, tensor<bf16>) -> tensor<?xbf16>
  return %3, %5 : tensor<?xf16>, tensor<?xbf16>
}

// -----

// A reduction of several inputs (argmax), and one whose body is longer than
// one op, stay in f16.
// PROMOTE-LABEL: func.func @not_promoted
// PROMOTE-NOT:     f32
// PROMOTE:         return
func.func @not_promoted(%arg0: tensor<?xf16>, %arg1: tensor<?xi32>) -> (tensor<f16>, tensor<i32>, tensor<f16>) {
  %0 = mhlo.constant dense<0xFC00> : tensor<f16>
  %1 = mhlo.constant dense<0> : tensor<i32>
  %2:2 = mhlo.reduce(%arg0 init: %0), (%arg1 init: %1) across dimensions = [0] : (tensor<?xf16>, tensor<?xi32>, tensor<f16>, tensor<i32>) -> (tensor<f16>, tensor<i32>)
   reducer(%a: tensor<f16>, %b: tensor<f16>) (%c: tensor<i32>, %d: tensor<i32>) {
    %5 = mhlo.compare GT, %a, %b : (tensor<f16>, tensor<f16>) -> tensor<i1>
    %6 = mhlo.select %5, %a, %b : tensor<i1>, tensor<f16>
    %7 = mhlo.select %5, %c, %d : tensor<i1>, tensor<i32>
    mhlo.return %6, %7 : tensor<f16>, tensor<i32>
  }
  %3 = mhlo.constant dense<0.000000e+00> : tensor<f16>
  %4 = mhlo.reduce(%arg0 init: %3) across dimensions = [0] : (tensor<?xf16>, tensor<f16>) -> tensor<f16>
   reducer(%a: tensor<f16>, %b: tensor<f16>) {
    %8 = mhlo.multiply %a, %a : tensor<f16>
    %9 = mhlo.add %8, %b : tensor<f16>
    mhlo.return %9 : tensor<f16>
  }
  return %2#0, %2#1, %4 : tensor<f16>, tensor<i32>, tensor<f16>
}

// -----

// A cumulative f16 sum (reduce_window) accumulates in f32 as well.
// PROMOTE-LABEL: func.func @cumulative_sum
// PROMOTE:         %[[X:.*]] = mhlo.convert %arg0 : (tensor<?xf16>) -> tensor<?xf32>
// PROMOTE:         %[[W:.*]] = "mhlo.reduce_window"(%[[X]], %{{.*}})
// PROMOTE:           mhlo.add %{{.*}}, %{{.*}} : tensor<f32>
// PROMOTE:         padding = dense<{{\[\[}}2999, 0]]> : tensor<1x2xi64>
// PROMOTE-SAME:    (tensor<?xf32>, tensor<f32>) -> tensor<?xf32>
// PROMOTE:         mhlo.convert %[[W]] : (tensor<?xf32>) -> tensor<?xf16>
func.func @cumulative_sum(%arg0: tensor<?xf16>) -> tensor<?xf16> {
  %0 = mhlo.constant dense<0.000000e+00> : tensor<f16>
  %1 = "mhlo.reduce_window"(%arg0, %0) ({
  ^bb0(%a: tensor<f16>, %b: tensor<f16>):
    %s = mhlo.add %a, %b : tensor<f16>
    mhlo.return %s : tensor<f16>
  }) {padding = dense<[[2999, 0]]> : tensor<1x2xi64>, window_dimensions = dense<3000> : tensor<1xi64>} : (tensor<?xf16>, tensor<f16>) -> tensor<?xf16>
  return %1 : tensor<?xf16>
}
