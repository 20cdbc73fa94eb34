// RUN: disc-opt %s -split-input-file -verify-diagnostics
// The verifiers of the okl dialect's ops.

func.func @f(%ctx: !okl.launcher_ctx) {
  "okl.wrapper_kernel"() ({
    %0 = "okl.get_tensor_from_arg"(%ctx) {index = 0 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
    // expected-error @+1 {{'okl.get_tensor_as_ret' op result type tensor<3xf32> differs from its tensor's tensor<2xf32>}}
    %1 = "okl.get_tensor_as_ret"(%ctx, %0) {index = 0 : i32} : (!okl.launcher_ctx, tensor<2xf32>) -> tensor<3xf32>
    okl.return
  }) {index = 0 : i32} : () -> ()
  return
}

// -----

func.func @f(%ctx: !okl.launcher_ctx) {
  // expected-error @+1 {{expects parent op 'okl.wrapper_kernel'}}
  okl.return
}

// -----

func.func @f(%x: tensor<2xf32>) {
  // expected-error @+1 {{must be !okl.launcher_ctx, but got 'tensor<2xf32>'}}
  %0 = "okl.get_tensor_from_arg"(%x) {index = 0 : i32} : (tensor<2xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @f(%ctx: !okl.launcher_ctx) {
  // expected-error @+1 {{'okl.get_tensor_from_ret' op needs a non-negative i32 'index' attribute}}
  %0 = "okl.get_tensor_from_ret"(%ctx) {index = -1 : i32} : (!okl.launcher_ctx) -> tensor<2xf32>
  return
}

// -----

func.func @f(%ctx: !okl.launcher_ctx) {
  // expected-error @+1 {{'okl.wrapper_kernel' op region takes no block arguments}}
  "okl.wrapper_kernel"() ({
  ^bb0(%a: i32):
    okl.return
  }) {index = 0 : i32} : () -> ()
  return
}
