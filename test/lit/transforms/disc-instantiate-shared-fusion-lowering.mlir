// RUN: disc-opt %s '--disc-pipeline=target=cpu until=codegen' | FileCheck %s
// RUN: disc-opt %s '--disc-pipeline=target=cpu until=ral' --disc-mark-shared-fusion-lowering \
// RUN:   | not disc-opt - --disc-instantiate-shared-fusion-lowering 2>&1 | FileCheck %s --check-prefix=ERR

// The marked duplicate takes a copy of the first fusion's lowering: it launches
// the same kernel, on its own buffers.
// CHECK: "disc_ral.cpu_launch"(%arg0, {{.*}}) {callee = @[[K:[^}]*]]}
// CHECK: "disc_ral.cpu_launch"(%arg0, {{.*}}) {callee = @[[K]]}
// CHECK-NOT: lowered_as

// Marks made by another run cannot be instantiated (what the copies need is not in the IR).
// ERR: error: pass 'disc-instantiate-shared-fusion-lowering' failed: fusions are marked 'disc.fusion.lowered_as' by another run

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
