// RUN: disc-opt %s -split-input-file -canonicalize | FileCheck %s

// A splat up to 65536 elements folds to a constant; a larger one stays a
// broadcast scalar: xDSL stores a splat with every element, so folding it
// would build (and later ship) a constant of that many elements.

// CHECK-LABEL: func.func @small_splat
// CHECK: %[[C:.*]] = mhlo.constant dense<5.000000e-01> : tensor<256x256xf32>
// CHECK-NOT: mhlo.broadcast_in_dim
func.func @small_splat(%arg0: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %c = mhlo.constant dense<0.5> : tensor<f32>
  %b = "mhlo.broadcast_in_dim"(%c) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<256x256xf32>
  %0 = mhlo.multiply %arg0, %b : tensor<256x256xf32>
  return %0 : tensor<256x256xf32>
}

// -----

// CHECK-LABEL: func.func @large_splat
// CHECK: %[[C:.*]] = mhlo.constant dense<5.000000e-01> : tensor<f32>
// CHECK: %[[B:.*]] = "mhlo.broadcast_in_dim"(%[[C]]) {{.*}} : (tensor<f32>) -> tensor<257x256xf32>
// CHECK: %[[R:.*]] = mhlo.reshape %[[B]] : (tensor<257x256xf32>) -> tensor<256x257xf32>
// CHECK: mhlo.multiply %arg0, %[[R]]
func.func @large_splat(%arg0: tensor<256x257xf32>) -> tensor<256x257xf32> {
  %c = mhlo.constant dense<0.5> : tensor<f32>
  %b = "mhlo.broadcast_in_dim"(%c) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>) -> tensor<257x256xf32>
  %r = "mhlo.reshape"(%b) : (tensor<257x256xf32>) -> tensor<256x257xf32>
  %0 = mhlo.multiply %arg0, %r : tensor<256x257xf32>
  return %0 : tensor<256x257xf32>
}
