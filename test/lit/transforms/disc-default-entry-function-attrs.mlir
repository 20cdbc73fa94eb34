// RUN: disc-opt -split-input-file %s --disc-default-entry-function-attrs | FileCheck %s

// @main without a tf.entry_function gets the default names and cpu placements.
// CHECK-LABEL: func.func @main
// CHECK-SAME: attributes {tf.entry_function = {input_placements = "cpu,cpu", inputs = "input0,input1", output_placements = "cpu", outputs = "output0"}}
func.func @main(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mhlo.add %x, %y : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// An existing one is kept.
// CHECK-LABEL: func.func @main
// CHECK-SAME: inputs = "x"
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> attributes {tf.entry_function = {inputs = "x", outputs = "y", input_placements = "cpu", output_placements = "cpu"}} {
  return %x : tensor<?xf32>
}

// -----

// Only the entry (@main) gets one.
// CHECK-LABEL: func.func @other
// CHECK-NOT: tf.entry_function

func.func @other(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}
