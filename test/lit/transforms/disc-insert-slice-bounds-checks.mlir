// RUN: not disc-opt -split-input-file %s --disc-insert-slice-bounds-checks 2>%t.err | FileCheck %s
// RUN: FileCheck --check-prefix=ERR %s < %t.err

// Bounds from the inputs: checked at run time, the slice taking safe bounds otherwise.
// CHECK-LABEL: func.func @bounds
// CHECK: mhlo.compare  GE, %arg1
// CHECK: "mhlo_disc.custom_call_v2"(%{{.*}}, %{{.*}}) {call_target_name = "ral_shape_assertion", custom_attrs = {error_message = "mhlo.real_dynamic_slice of an operand of shape ({0}, {1}) with start ({2}, {3})
// CHECK: mhlo.real_dynamic_slice %arg0, %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?xf32>
func.func @bounds(%y: tensor<?x?xf32>, %start: tensor<2xi64>, %limit: tensor<2xi64>, %strides: tensor<2xi64>) -> tensor<?x?xf32> {
  %0 = "mhlo.real_dynamic_slice"(%y, %start, %limit, %strides) : (tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Constant bounds out of range for a static operand: a compile-time error.
// ERR: error: mhlo.real_dynamic_slice out of range: dimension 0: start 1, limit 6, stride 1 for size 4
func.func @constant_out_of_range(%y: tensor<4x4xf32>) -> tensor<?x?xf32> {
  %s = mhlo.constant dense<[1, 0]> : tensor<2xi64>
  %l = mhlo.constant dense<[6, 4]> : tensor<2xi64>
  %t = mhlo.constant dense<[1, 1]> : tensor<2xi64>
  %0 = "mhlo.real_dynamic_slice"(%y, %s, %l, %t) : (tensor<4x4xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
