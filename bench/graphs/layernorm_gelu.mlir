// Row layernorm (eps 1e-5, per-column gamma / beta) followed by tanh-form gelu,
// dynamic shapes.
func.func @main(%x: tensor<?x?xf32>, %gamma: tensor<?xf32>, %beta: tensor<?xf32>) -> tensor<?x?xf32> {
  %shape1 = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %c2 = arith.constant 1 : index
  %d3 = tensor.dim %x, %c2 : tensor<?x?xf32>
  %v4 = arith.index_cast %d3 : index to i64
  %v5 = arith.sitofp %v4 : i64 to f32
  %v6 = tensor.from_elements %v5 : tensor<f32>
  %v7 = "mhlo.dynamic_broadcast_in_dim"(%v6, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %c8 = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %v9 = mhlo.reduce(%x init: %c8) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %v10 = "mhlo.dynamic_broadcast_in_dim"(%v9, %shape1) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v11 = mhlo.divide %v10, %v7 : tensor<?x?xf32>
  %v12 = mhlo.subtract %x, %v11 : tensor<?x?xf32>
  %v13 = mhlo.multiply %v12, %v12 : tensor<?x?xf32>
  %c14 = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %v15 = mhlo.reduce(%v13 init: %c14) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %v16 = "mhlo.dynamic_broadcast_in_dim"(%v15, %shape1) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v17 = mhlo.divide %v16, %v7 : tensor<?x?xf32>
  %c18 = mhlo.constant dense<1.000000000e-05> : tensor<f32>
  %v19 = "mhlo.dynamic_broadcast_in_dim"(%c18, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v20 = mhlo.add %v17, %v19 : tensor<?x?xf32>
  %v21 = mhlo.rsqrt %v20 : tensor<?x?xf32>
  %v22 = mhlo.multiply %v12, %v21 : tensor<?x?xf32>
  %v23 = "mhlo.dynamic_broadcast_in_dim"(%gamma, %shape1) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v24 = mhlo.multiply %v22, %v23 : tensor<?x?xf32>
  %v25 = "mhlo.dynamic_broadcast_in_dim"(%beta, %shape1) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v26 = mhlo.add %v24, %v25 : tensor<?x?xf32>
  %v27 = mhlo.multiply %v26, %v26 : tensor<?x?xf32>
  %v28 = mhlo.multiply %v27, %v26 : tensor<?x?xf32>
  %c29 = mhlo.constant dense<4.471500000e-02> : tensor<f32>
  %v30 = "mhlo.dynamic_broadcast_in_dim"(%c29, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v31 = mhlo.multiply %v28, %v30 : tensor<?x?xf32>
  %v32 = mhlo.add %v26, %v31 : tensor<?x?xf32>
  %c33 = mhlo.constant dense<7.978845608e-01> : tensor<f32>
  %v34 = "mhlo.dynamic_broadcast_in_dim"(%c33, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v35 = mhlo.multiply %v32, %v34 : tensor<?x?xf32>
  %v36 = mhlo.tanh %v35 : tensor<?x?xf32>
  %c37 = mhlo.constant dense<1.000000000e+00> : tensor<f32>
  %v38 = "mhlo.dynamic_broadcast_in_dim"(%c37, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v39 = mhlo.add %v36, %v38 : tensor<?x?xf32>
  %c40 = mhlo.constant dense<5.000000000e-01> : tensor<f32>
  %v41 = "mhlo.dynamic_broadcast_in_dim"(%c40, %shape1) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v42 = mhlo.multiply %v26, %v41 : tensor<?x?xf32>
  %v43 = mhlo.multiply %v42, %v39 : tensor<?x?xf32>
  return %v43 : tensor<?x?xf32>
}
