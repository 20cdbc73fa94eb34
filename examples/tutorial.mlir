// disc-ir's walkthrough graph: a classifier head with dynamic shapes.
//
//   logits = x @ w + b             (a bias-added matmul; batch and features unknown)
//   probs  = softmax(logits, axis=1)   (row max, exp, row sum, divide)
//   out    = reshape(probs, new_shape) (new_shape is a host-side input: shape calculation)
//
// Inputs:  %x [?, ?] f32, %w [?, ?] f32, %b [?] f32 (device), %new_shape [2] i64 (host)
// Outputs: %probs [?, ?] and %out [?, ?]
func.func @main(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>,
                %new_shape: tensor<2xi64>) -> (tensor<?x?xf32>, tensor<?x?xf32>)
    attributes {tf.entry_function = {inputs = "x,w,b,new_shape", outputs = "probs,out",
                                     input_placements = "gpu,gpu,gpu,cpu",
                                     output_placements = "gpu,gpu"}} {
  %mm = "mhlo.dot"(%x, %w) : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  %mm_shape = shape.shape_of %mm : tensor<?x?xf32> -> tensor<2xindex>
  %b_2d = "mhlo.dynamic_broadcast_in_dim"(%b, %mm_shape) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %logits = mhlo.add %mm, %b_2d : tensor<?x?xf32>

  %neg_inf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %row_max = mhlo.reduce(%logits init: %neg_inf) applies mhlo.maximum across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %row_max_2d = "mhlo.dynamic_broadcast_in_dim"(%row_max, %mm_shape) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %centered = mhlo.subtract %logits, %row_max_2d : tensor<?x?xf32>
  %exp = mhlo.exponential %centered : tensor<?x?xf32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %row_sum = mhlo.reduce(%exp init: %zero) applies mhlo.add across dimensions = [1] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  %row_sum_2d = "mhlo.dynamic_broadcast_in_dim"(%row_sum, %mm_shape) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %probs = mhlo.divide %exp, %row_sum_2d : tensor<?x?xf32>

  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows_i64 = tensor.extract %new_shape[%c0] : tensor<2xi64>
  %cols_i64 = tensor.extract %new_shape[%c1] : tensor<2xi64>
  %rows = arith.index_cast %rows_i64 : i64 to index
  %cols = arith.index_cast %cols_i64 : i64 to index
  %target = tensor.from_elements %rows, %cols : tensor<2xindex>
  %out = "mhlo.dynamic_reshape"(%probs, %target) : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %probs, %out : tensor<?x?xf32>, tensor<?x?xf32>
}
