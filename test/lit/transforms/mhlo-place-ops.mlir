// RUN: disc-opt %s -split-input-file -mhlo-place-ops | FileCheck %s
// RUN: disc-opt %s -split-input-file '-mhlo-place-ops=on-gpu=false' | FileCheck %s --check-prefix=CPU

// Data ops go to the GPU, shape ops and i32 computations to the host; copies
// are inserted where values cross, including the entry function's results.
// CHECK-LABEL: func.func @main
// CHECK-SAME:    (%[[ARG0:.*]]: tensor<?x?xf32>, %[[ARG1:.*]]: tensor<2xi32>)
// CHECK:         %[[S:.*]] = mhlo.add %[[ARG1]], %[[ARG1]] {disc.device = "cpu", disc.shape_op = true} : tensor<2xi32>
// CHECK:         %[[IN:.*]] = "mhlo_disc.h2d"(%[[ARG0]]) : (tensor<?x?xf32>) -> tensor<?x?xf32>
// CHECK:         %[[R:.*]] = mhlo.dynamic_reshape %[[IN]], %[[S]] {disc.device = "gpu"}
// CHECK:         %[[A:.*]] = mhlo.abs %[[R]] {disc.device = "gpu"} : tensor<?x?xf32>
// CHECK:         %[[OUT:.*]] = "mhlo_disc.d2h"(%[[A]]) {disc.device = "cpu"}
// CHECK:         return %[[OUT]], %[[A]]
// CPU-LABEL: func.func @main
// CPU-NOT:     mhlo_disc.h2d
// CPU-NOT:     mhlo_disc.d2h
// CPU:         mhlo.dynamic_reshape {{.*}} {disc.device = "cpu"}
// CPU:         mhlo.abs {{.*}} {disc.device = "cpu"}
func.func @main(%arg0: tensor<?x?xf32>, %arg1: tensor<2xi32>) -> (tensor<?x?xf32>, tensor<?x?xf32>) attributes {tf.entry_function = {input_placements = "cpu,cpu", output_placements = "cpu,gpu"}} {
  %s = mhlo.add %arg1, %arg1 {disc.shape_op = true} : tensor<2xi32>
  %r = "mhlo.dynamic_reshape"(%arg0, %s) : (tensor<?x?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  %a = mhlo.abs %r : tensor<?x?xf32>
  return %a, %a : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// i32 data computations run on the host; a GPU argument read by them is
// copied to the host first. Placements default to the GPU without
// input_placements / output_placements.
// CHECK-LABEL: func.func @main
// CHECK:         %[[C:.*]] = mhlo.constant {disc.device = "cpu"} dense<1> : tensor<4xi32>
// CHECK:         %[[H:.*]] = "mhlo_disc.d2h"(%arg0) {disc.device = "cpu"}
// CHECK:         %[[M:.*]] = mhlo.multiply %[[H]], %[[C]] {disc.device = "cpu"} : tensor<4xi32>
// CHECK:         %[[F:.*]] = mhlo.constant {disc.device = "gpu"} dense<2.000000e+00> : tensor<4xf32>
// CHECK:         %[[D:.*]] = "mhlo_disc.h2d"(%[[M]])
// CHECK:         return %[[D]], %[[F]]
func.func @main(%arg0: tensor<4xi32>) -> (tensor<4xi32>, tensor<4xf32>) attributes {tf.entry_function = {}} {
  %c = mhlo.constant dense<1> : tensor<4xi32>
  %m = mhlo.multiply %arg0, %c : tensor<4xi32>
  %f = mhlo.constant dense<2.0> : tensor<4xf32>
  return %m, %f : tensor<4xi32>, tensor<4xf32>
}

// -----

// An i64 scalar returned on the host is computed on the host, with what it
// depends on; a tuple gets one placement per element.
// CHECK-LABEL: func.func @main
// CHECK:         mhlo.add {{.*}} {disc.device = "cpu"} : tensor<i64>
// CHECK:         mhlo.tuple {{.*}} {disc.device = ["cpu", "cpu"]}
// CHECK:         mhlo.get_tuple_element {{.*}} {disc.device = "cpu"}
// CHECK-NOT:     mhlo_disc
// CHECK:         return
func.func @main(%arg0: tensor<i64>, %arg1: tensor<f32>) -> tensor<i64> attributes {tf.entry_function = {input_placements = "cpu,cpu", output_placements = "cpu"}} {
  %0 = mhlo.add %arg0, %arg0 : tensor<i64>
  %1 = "mhlo.tuple"(%0, %arg1) : (tensor<i64>, tensor<f32>) -> tuple<tensor<i64>, tensor<f32>>
  %2 = "mhlo.get_tuple_element"(%1) {index = 0 : i32} : (tuple<tensor<i64>, tensor<f32>>) -> tensor<i64>
  return %2 : tensor<i64>
}

// -----

// A device argument read by tensor.extract is copied to the host; a
// custom_call_v2 follows its own device and operand/result placements
// (`x`: the default device).
// CHECK-LABEL: func.func @main
// CHECK:         %[[H:.*]] = "mhlo_disc.d2h"(%arg1) {disc.device = "cpu"}
// CHECK:         tensor.extract %[[H]]
// CHECK:         %[[CC:.*]] = "mhlo_disc.custom_call_v2"(%arg0)
// CHECK-SAME:    disc.device = "gpu"
// CHECK:         %[[D:.*]] = "mhlo_disc.d2h"(%[[CC]]) {disc.device = "cpu"}
// CHECK:         return %[[D]]
func.func @main(%arg0: tensor<?xf32>, %arg1: tensor<1xi64>) -> (tensor<?xf32>, i64) attributes {tf.entry_function = {input_placements = "gpu,gpu", output_placements = "cpu,cpu"}} {
  %c0 = arith.constant 0 : index
  %e = tensor.extract %arg1[%c0] : tensor<1xi64>
  %0 = "mhlo_disc.custom_call_v2"(%arg0) {call_target_name = "foo", custom_attrs = {}, has_side_effect = false, device = "x", input_placements = "x", output_placements = "x", expected_input_layouts = "*", expected_output_layouts = "*", input_layouts = "*", output_layouts = "*"} : (tensor<?xf32>) -> tensor<?xf32>
  return %0, %e : tensor<?xf32>, i64
}
