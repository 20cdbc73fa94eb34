// RUN: not disc-opt %s -split-input-file -mhlo-place-ops 2>&1 | FileCheck %s

// CHECK: entry function must have tf.entry_function attr.
func.func @main(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  return %arg0 : tensor<2xi32>
}

// -----

// CHECK: placement size mismatch
func.func @main(%arg0: tensor<2xi32>) -> tensor<2xi32> attributes {tf.entry_function = {input_placements = "cpu,cpu"}} {
  return %arg0 : tensor<2xi32>
}

// -----

// CHECK: unknown placement type name
func.func @main(%arg0: tensor<2xi32>) -> tensor<2xi32> attributes {tf.entry_function = {output_placements = "tpu"}} {
  return %arg0 : tensor<2xi32>
}

// -----

// CHECK: entry function not found.
func.func @other(%arg0: tensor<2xi32>) -> tensor<2xi32> {
  return %arg0 : tensor<2xi32>
}
