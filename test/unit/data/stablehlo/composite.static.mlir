module @jit_composite attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>) -> (tensor<4x6xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.composite "disc.test.scaled_tanh" %arg0 {decomposition = @disc.test.scaled_tanh, version = 1 : i32} : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %1 = stablehlo.subtract %0, %arg0 : tensor<4x6xf32>
    return %1 : tensor<4x6xf32>
  }
  func.func private @disc.test.scaled_tanh(%arg0: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %0 = stablehlo.tanh %arg0 : tensor<4x6xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<4x6xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %4 = stablehlo.add %2, %3 : tensor<4x6xf32>
    return %4 : tensor<4x6xf32>
  }
}
