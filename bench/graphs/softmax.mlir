// Row softmax: exp(x - max(x, 1)) / sum(exp(x - max(x, 1)), 1), dynamic shapes.
func.func @main(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %shape1 = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %c2 = mhlo.constant dense<0xFF800000> : tensor<f32>
  %v3 = mhlo.reduce(%x init: %c2) applies mhlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %v4 = "mhlo.dynamic_broadcast_in_dim"(%v3, %shape1) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v5 = mhlo.subtract %x, %v4 : tensor<?x?xf32>
  %v6 = mhlo.exponential %v5 : tensor<?x?xf32>
  %c7 = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %v8 = mhlo.reduce(%v6 init: %c7) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %v9 = "mhlo.dynamic_broadcast_in_dim"(%v8, %shape1) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %v10 = mhlo.divide %v6, %v9 : tensor<?x?xf32>
  return %v10 : tensor<?x?xf32>
}
