// Bias add (per-column bias) followed by tanh-form gelu, dynamic shapes.
func.func @main(%x: tensor<?x?xf32>, %bias: tensor<?xf32>) -> tensor<?x?xf32> {
  %shape1 = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %v2 = "mhlo.dynamic_broadcast_in_dim"(%bias, %shape1) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v3 = mhlo.add %x, %v2 : tensor<?x?xf32>
  %v4 = mhlo.multiply %v3, %v3 : tensor<?x?xf32>
  %v5 = mhlo.multiply %v4, %v3 : tensor<?x?xf32>
  %c6 = mhlo.constant dense<4.471500000e-02> : tensor<f32>
  %v7 = "mhlo.dynamic_broadcast_in_dim"(%c6, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v8 = mhlo.multiply %v5, %v7 : tensor<?x?xf32>
  %v9 = mhlo.add %v3, %v8 : tensor<?x?xf32>
  %c10 = mhlo.constant dense<7.978845608e-01> : tensor<f32>
  %v11 = "mhlo.dynamic_broadcast_in_dim"(%c10, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v12 = mhlo.multiply %v9, %v11 : tensor<?x?xf32>
  %v13 = mhlo.tanh %v12 : tensor<?x?xf32>
  %c14 = mhlo.constant dense<1.000000000e+00> : tensor<f32>
  %v15 = "mhlo.dynamic_broadcast_in_dim"(%c14, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v16 = mhlo.add %v13, %v15 : tensor<?x?xf32>
  %c17 = mhlo.constant dense<5.000000000e-01> : tensor<f32>
  %v18 = "mhlo.dynamic_broadcast_in_dim"(%c17, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v19 = mhlo.multiply %v3, %v18 : tensor<?x?xf32>
  %v20 = mhlo.multiply %v19, %v16 : tensor<?x?xf32>
  return %v20 : tensor<?x?xf32>
}
