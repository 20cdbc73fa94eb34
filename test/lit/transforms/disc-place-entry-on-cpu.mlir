// RUN: disc-opt -split-input-file -disc-place-entry-on-cpu %s | FileCheck %s

// `gpu` entry placements become `cpu`; `const` and `cpu` stay, other keys too.
// CHECK-LABEL: func.func @main
// CHECK-SAME: tf.entry_function = {input_placements = "cpu,const,cpu", inputs = "a,b,c", output_placements = "cpu", outputs = "o"}
func.func @main(%a: tensor<?xf32>, %b: tensor<?xf32>, %c: tensor<?xf32>) -> tensor<?xf32>
    attributes {tf.entry_function = {inputs = "a,b,c", outputs = "o", input_placements = "gpu,const,cpu", output_placements = "gpu"}} {
  %0 = mhlo.add %a, %c : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Only the entry function; without tf.entry_function nothing changes.
// CHECK-LABEL: func.func @helper
// CHECK-SAME: tf.entry_function = {input_placements = "gpu"}
// CHECK-LABEL: func.func @main
// CHECK-NOT: tf.entry_function
func.func @helper(%a: tensor<?xf32>) -> tensor<?xf32> attributes {tf.entry_function = {input_placements = "gpu"}} {
  return %a : tensor<?xf32>
}
func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}
