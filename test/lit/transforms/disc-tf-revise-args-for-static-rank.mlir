// RUN: disc-opt -split-input-file %s -disc-tf-revise-args-for-static-rank | FileCheck %s
// RUN: disc-opt -split-input-file %s -disc-tf-revise-args-for-static-rank -disc-shape-simplifier | FileCheck %s --check-prefix=SIMPLIFIED

// A const input becomes an mhlo.constant (the argument is kept), a fixed-shape
// input gets its type; placements are updated.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<4xf32>, %arg1: tensor<f32>, %arg2: tensor<1x2xi64>) -> tensor<?xf32>
// CHECK-SAME: input_placements = "cpu,gpu,cpu"
// CHECK: %[[C:.*]] = mhlo.constant dense<2.000000e+00> : tensor<f32>
// CHECK: mhlo.add %arg0, %arg0 : (tensor<4xf32>, tensor<4xf32>) -> tensor<?xf32>
// CHECK: "mhlo.broadcast_in_dim"(%[[C]])
// SIMPLIFIED-LABEL: func.func @main
// SIMPLIFIED-SAME: -> tensor<4xf32>
func.func @main(%arg0: tensor<?xf32>, %arg1: tensor<f32>, %arg2: tensor<1x2xi64>) -> tensor<?xf32>
    attributes {tf.entry_function = {input_placements = "cpu,const,cpu",
    inputs = "input0,input1,input2",
    output_placements = "cpu",
    outputs = "output0",
    disc.input_shape_0 = dense<0.0> : tensor<4xf32>,
    disc.input_value_1 = dense<2.0> : tensor<f32>}} {
  %0 = "mhlo.add"(%arg0, %arg0) : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %1 = "mhlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<4xf32>
  return %0 : tensor<?xf32>
}

// -----

// Without tf.entry_function, the attributes of main itself are read.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<2x3xi32>) -> tensor<?x?xi32>
// CHECK: mhlo.abs %arg0 : (tensor<2x3xi32>) -> tensor<?x?xi32>
func.func @main(%arg0: tensor<?x?xi32>) -> tensor<?x?xi32> attributes {disc.input_shape_0 = dense<0> : tensor<2x3xi32>} {
  %0 = "mhlo.abs"(%arg0) : (tensor<?x?xi32>) -> tensor<?x?xi32>
  return %0 : tensor<?x?xi32>
}

// -----

// Nothing to revise: unchanged.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: tensor<?xf32>) -> tensor<?xf32>
// CHECK-NEXT: return %arg0
func.func @main(%arg0: tensor<?xf32>) -> tensor<?xf32> {
  return %arg0 : tensor<?xf32>
}
