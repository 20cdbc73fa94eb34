// RUN: disc-opt %s -mhlo-place-ops | FileCheck %s

// mhlo.sort runs on the host, its comparator with it; the f32 constant the
// comparator captures stays on the GPU and is copied once, before the sort
// (a region body holds no copies), as the sort's GPU operand is.
// CHECK-LABEL: func.func @main
// CHECK:         %[[Z:.*]] = mhlo.constant {disc.device = "gpu"} dense<0.000000e+00> : tensor<f32>
// CHECK:         %[[A:.*]] = mhlo.abs %{{.*}} {disc.device = "gpu"}
// CHECK:         %[[AH:.*]] = "mhlo_disc.d2h"(%[[A]]) {disc.device = "cpu"}
// CHECK:         %[[ZH:.*]] = "mhlo_disc.d2h"(%[[Z]]) {disc.device = "cpu"}
// CHECK-NOT:     mhlo_disc.d2h
// CHECK:         "mhlo.sort"(%[[AH]]) ({
// CHECK:           mhlo.compare  EQ, %{{.*}}, %[[ZH]],  FLOAT {disc.device = "cpu"}
// CHECK:           mhlo.select %{{.*}}, %[[ZH]], %{{.*}} {disc.device = "cpu"}
// CHECK:           mhlo.compare  LT, %{{.*}}, %{{.*}},  TOTALORDER {disc.device = "cpu"}
// CHECK:         }) {dimension = 0 : i64, disc.device = "cpu", is_stable = true}
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> attributes {tf.entry_function = {input_placements = "gpu", output_placements = "cpu"}} {
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %a = mhlo.abs %x : tensor<?xf32>
  %0 = "mhlo.sort"(%a) ({
  ^bb0(%l: tensor<f32>, %r: tensor<f32>):
    %1 = mhlo.compare EQ, %l, %zero, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %2 = mhlo.select %1, %zero, %l : tensor<i1>, tensor<f32>
    %3 = mhlo.compare LT, %2, %r, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
    mhlo.return %3 : tensor<i1>
  }) {dimension = 0 : i64, is_stable = true} : (tensor<?xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
