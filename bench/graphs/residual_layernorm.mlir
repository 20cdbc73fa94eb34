// Residual add followed by row layernorm (eps 1e-5, per-column gamma / beta),
// dynamic shapes.
func.func @main(%x: tensor<?x?xf32>, %residual: tensor<?x?xf32>, %gamma: tensor<?xf32>, %beta: tensor<?xf32>) -> tensor<?x?xf32> {
  %shape1 = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %v2 = mhlo.add %x, %residual : tensor<?x?xf32>
  %c3 = arith.constant 1 : index
  %d4 = tensor.dim %x, %c3 : tensor<?x?xf32>
  %v5 = arith.index_cast %d4 : index to i64
  %v6 = arith.sitofp %v5 : i64 to f32
  %v7 = tensor.from_elements %v6 : tensor<f32>
  %v8 = "mhlo.dynamic_broadcast_in_dim"(%v7, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %c9 = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %v10 = mhlo.reduce(%v2 init: %c9) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %v11 = "mhlo.dynamic_broadcast_in_dim"(%v10, %shape1) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v12 = mhlo.divide %v11, %v8 : tensor<?x?xf32>
  %v13 = mhlo.subtract %v2, %v12 : tensor<?x?xf32>
  %v14 = mhlo.multiply %v13, %v13 : tensor<?x?xf32>
  %c15 = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %v16 = mhlo.reduce(%v14 init: %c15) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %v17 = "mhlo.dynamic_broadcast_in_dim"(%v16, %shape1) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v18 = mhlo.divide %v17, %v8 : tensor<?x?xf32>
  %c19 = mhlo.constant dense<1.000000000e-05> : tensor<f32>
  %v20 = "mhlo.dynamic_broadcast_in_dim"(%c19, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v21 = mhlo.add %v18, %v20 : tensor<?x?xf32>
  %v22 = mhlo.rsqrt %v21 : tensor<?x?xf32>
  %v23 = mhlo.multiply %v13, %v22 : tensor<?x?xf32>
  %v24 = "mhlo.dynamic_broadcast_in_dim"(%gamma, %shape1) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v25 = mhlo.multiply %v23, %v24 : tensor<?x?xf32>
  %v26 = "mhlo.dynamic_broadcast_in_dim"(%beta, %shape1) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v27 = mhlo.add %v25, %v26 : tensor<?x?xf32>
  return %v27 : tensor<?x?xf32>
}
