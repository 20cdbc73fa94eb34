// RUN: disc-opt %s --disc-expand-conv-lhs-dilation | FileCheck %s

// The input dilation (2) becomes an interior padding of 1 on the spatial dims.
// CHECK-LABEL: func.func @transposed
// CHECK: %[[Z:.*]] = mhlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK: %[[P:.*]] = "mhlo.pad"(%arg0, %[[Z]]) {edge_padding_high = dense<0> : tensor<4xi64>, edge_padding_low = dense<0> : tensor<4xi64>, interior_padding = dense<[0, 0, 1, 1]> : tensor<4xi64>} : (tensor<1x1x3x3xf32>, tensor<f32>) -> tensor<1x1x5x5xf32>
// CHECK: mhlo.convolution(%[[P]], %arg1)
// CHECK-NOT: lhs_dilate
// CHECK-SAME: (tensor<1x1x5x5xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x6x6xf32>
func.func @transposed(%x: tensor<1x1x3x3xf32>, %k: tensor<1x1x2x2xf32>) -> tensor<1x1x6x6xf32> {
  %0 = "mhlo.convolution"(%x, %k) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<raw input_batch_dimension = 0, input_feature_dimension = 1, input_spatial_dimensions = [2, 3], kernel_input_feature_dimension = 1, kernel_output_feature_dimension = 0, kernel_spatial_dimensions = [2, 3], output_batch_dimension = 0, output_feature_dimension = 1, output_spatial_dimensions = [2, 3]>, feature_group_count = 1 : i64, lhs_dilation = dense<2> : tensor<2xi64>, padding = dense<1> : tensor<2x2xi64>, rhs_dilation = dense<1> : tensor<2xi64>, window_strides = dense<1> : tensor<2xi64>} : (tensor<1x1x3x3xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x6x6xf32>
  return %0 : tensor<1x1x6x6xf32>
}
