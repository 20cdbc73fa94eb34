// RUN: disc-opt -split-input-file %s --disc-import-stablehlo | FileCheck %s

// A JAX export: stablehlo to mhlo, the helper inlined and removed, the entry named.
// CHECK-LABEL: module @jit_f
// CHECK: func.func public @main(%arg0: tensor<4xf32>) -> (tensor<4xf32> {jax.result_info = "out"}) attributes {tf.entry_function = {input_placements = "cpu", inputs = "x", output_placements = "cpu", outputs = "out"}}
// CHECK-NEXT: %[[S:.*]] = mhlo.add %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT: return %[[S]]
// CHECK-NOT: @helper
module @jit_f {
  func.func public @main(%arg0: tensor<4xf32> loc("x")) -> (tensor<4xf32> {jax.result_info = "out"}) {
    %0 = call @helper(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @helper(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}

// -----

// mhlo input is left as it is (no inlining, no entry attributes).
// CHECK-LABEL: func.func @main(
// CHECK-NOT: tf.entry_function
// CHECK: call @helper
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
