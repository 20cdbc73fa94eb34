// RUN: disc-opt -split-input-file %s --disc-insert-runtime-shape-checks | FileCheck %s

// A broadcast the shape analysis cannot prove valid gets a run-time assertion.
// CHECK-LABEL: func.func @unproven
// CHECK: "mhlo_disc.custom_call_v2"({{.*}}) {call_target_name = "ral_shape_assertion", custom_attrs = {error_message = "an operand of shape ({0}) broadcast to shape ({1}, {2}) by mhlo.dynamic_broadcast_in_dim
// CHECK: "mhlo.dynamic_broadcast_in_dim"(%arg0, %arg1)
func.func @unproven(%x: tensor<?xf32>, %s: tensor<2xindex>) -> tensor<?x?xf32> {
  %0 = "mhlo.dynamic_broadcast_in_dim"(%x, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A broadcast to the operand's own shape needs no check.
// CHECK-LABEL: func.func @proven
// CHECK-NOT: ral_shape_assertion
// CHECK: "mhlo.dynamic_broadcast_in_dim"

func.func @proven(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = shape.shape_of %x : tensor<?x4xf32> -> tensor<2xindex>
  %0 = "mhlo.dynamic_broadcast_in_dim"(%x, %s) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x4xf32>, tensor<2xindex>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
