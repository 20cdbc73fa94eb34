// RUN: disc-opt %s '--disc-pipeline=target=cpu until=ral' --disc-mark-shared-fusion-lowering | FileCheck %s

// softmax(softmax(x) @ w): the two softmax fusions lower alike (same ops, dims
// of the same classes); the second is marked to take the first one's lowering.
// CHECK: "lmhlo.fusion"
// CHECK-NOT: lowered_as
// CHECK: disc.fusion.name = "[[REP:[^"]*]]"
// CHECK: "lmhlo.fusion"
// CHECK: disc.fusion.lowered_as = "[[REP]]"
// CHECK-NOT: lowered_as

func.func @main(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> tensor<?x16xf32> {
  %s = shape.shape_of %x : tensor<?x16xf32> -> tensor<2xindex>
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %p_m = mhlo.reduce(%x init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<?x16xf32>, tensor<f32>) -> tensor<?xf32>
  %p_mb = "mhlo.dynamic_broadcast_in_dim"(%p_m, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x16xf32>
  %p_c = mhlo.subtract %x, %p_mb : tensor<?x16xf32>
  %p_e = mhlo.exponential %p_c : tensor<?x16xf32>
  %p_sum = mhlo.reduce(%p_e init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x16xf32>, tensor<f32>) -> tensor<?xf32>
  %p_sb = "mhlo.dynamic_broadcast_in_dim"(%p_sum, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x16xf32>
  %p = mhlo.divide %p_e, %p_sb : tensor<?x16xf32>
  %d = "mhlo.dot"(%p, %w) : (tensor<?x16xf32>, tensor<16x16xf32>) -> tensor<?x16xf32>
  %q_m = mhlo.reduce(%d init: %ninf) applies mhlo.maximum across dimensions = [1] : (tensor<?x16xf32>, tensor<f32>) -> tensor<?xf32>
  %q_mb = "mhlo.dynamic_broadcast_in_dim"(%q_m, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x16xf32>
  %q_c = mhlo.subtract %d, %q_mb : tensor<?x16xf32>
  %q_e = mhlo.exponential %q_c : tensor<?x16xf32>
  %q_sum = mhlo.reduce(%q_e init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x16xf32>, tensor<f32>) -> tensor<?xf32>
  %q_sb = "mhlo.dynamic_broadcast_in_dim"(%q_sum, %s) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x16xf32>
  %q = mhlo.divide %q_e, %q_sb : tensor<?x16xf32>
  return %q : tensor<?x16xf32>
}
