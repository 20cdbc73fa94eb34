module @jit_gelu_erf attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x16xf32>) -> (tensor<4x16xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %1 = stablehlo.multiply %0, %arg0 : tensor<4x16xf32>
    %2 = stablehlo.negate %arg0 : tensor<4x16xf32>
    %cst_0 = stablehlo.constant dense<0.707106769> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x16xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<4x16xf32>
    %5 = chlo.erfc %4 : tensor<4x16xf32> -> tensor<4x16xf32>
    %6 = stablehlo.multiply %1, %5 : tensor<4x16xf32>
    return %6 : tensor<4x16xf32>
  }
}
