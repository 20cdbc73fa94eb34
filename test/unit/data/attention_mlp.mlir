// A transformer block in mhlo with a dynamic batch and sequence length:
// single-head self-attention (q, k, v projections, scaled q.k^T, row softmax,
// probs.v), a residual add, then an MLP (dense + bias + tanh-gelu + dense).
// x: [batch, seq, 64]; weights are static.
func.func @main(%x: tensor<?x?x64xf32>, %wq: tensor<64x64xf32>, %wk: tensor<64x64xf32>,
                %wv: tensor<64x64xf32>, %w1: tensor<64x128xf32>, %b1: tensor<128xf32>,
                %w2: tensor<128x64xf32>) -> tensor<?x?x64xf32>
    attributes {tf.entry_function = {inputs = "x,wq,wk,wv,w1,b1,w2", outputs = "y",
                                     input_placements = "cpu,cpu,cpu,cpu,cpu,cpu,cpu",
                                     output_placements = "cpu"}} {
  %q = "mhlo.dot_general"(%x, %wq) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %k = "mhlo.dot_general"(%x, %wk) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %v = "mhlo.dot_general"(%x, %wv) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<?x?x64xf32>, tensor<64x64xf32>) -> tensor<?x?x64xf32>
  %kt = "mhlo.transpose"(%k) {permutation = dense<[0, 2, 1]> : tensor<3xi64>} : (tensor<?x?x64xf32>) -> tensor<?x64x?xf32>
  %s = "mhlo.dot_general"(%q, %kt) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x?x64xf32>, tensor<?x64x?xf32>) -> tensor<?x?x?xf32>
  %s_shape = shape.shape_of %s : tensor<?x?x?xf32> -> tensor<3xindex>
  %scale = mhlo.constant dense<1.250000e-01> : tensor<f32>
  %scale_b = "mhlo.dynamic_broadcast_in_dim"(%scale, %s_shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<3xindex>) -> tensor<?x?x?xf32>
  %scaled = mhlo.multiply %s, %scale_b : tensor<?x?x?xf32>
  %ninf = mhlo.constant dense<0xFF800000> : tensor<f32>
  %max = mhlo.reduce(%scaled init: %ninf) applies mhlo.maximum across dimensions = [2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %max_b = "mhlo.dynamic_broadcast_in_dim"(%max, %s_shape) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
  %shifted = mhlo.subtract %scaled, %max_b : tensor<?x?x?xf32>
  %e = mhlo.exponential %shifted : tensor<?x?x?xf32>
  %zero = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %sum = mhlo.reduce(%e init: %zero) applies mhlo.add across dimensions = [2] : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?xf32>
  %sum_b = "mhlo.dynamic_broadcast_in_dim"(%sum, %s_shape) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<3xindex>) -> tensor<?x?x?xf32>
  %p = mhlo.divide %e, %sum_b : tensor<?x?x?xf32>
  %ctx = "mhlo.dot_general"(%p, %v) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x?x?xf32>, tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  %h = mhlo.add %x, %ctx : tensor<?x?x64xf32>
  %m1 = "mhlo.dot_general"(%h, %w1) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<?x?x64xf32>, tensor<64x128xf32>) -> tensor<?x?x128xf32>
  %m1_shape = shape.shape_of %m1 : tensor<?x?x128xf32> -> tensor<3xindex>
  %b1_b = "mhlo.dynamic_broadcast_in_dim"(%b1, %m1_shape) {broadcast_dimensions = dense<2> : tensor<1xi64>} : (tensor<128xf32>, tensor<3xindex>) -> tensor<?x?x128xf32>
  %z = mhlo.add %m1, %b1_b : tensor<?x?x128xf32>
  %half = mhlo.constant dense<5.000000e-01> : tensor<f32>
  %half_b = "mhlo.dynamic_broadcast_in_dim"(%half, %m1_shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<3xindex>) -> tensor<?x?x128xf32>
  %one = mhlo.constant dense<1.000000e+00> : tensor<f32>
  %one_b = "mhlo.dynamic_broadcast_in_dim"(%one, %m1_shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<3xindex>) -> tensor<?x?x128xf32>
  %t = mhlo.tanh %z : tensor<?x?x128xf32>
  %t1 = mhlo.add %t, %one_b : tensor<?x?x128xf32>
  %zh = mhlo.multiply %z, %half_b : tensor<?x?x128xf32>
  %g = mhlo.multiply %zh, %t1 : tensor<?x?x128xf32>
  %m2 = "mhlo.dot_general"(%g, %w2) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [0]>} : (tensor<?x?x128xf32>, tensor<128x64xf32>) -> tensor<?x?x64xf32>
  %y = mhlo.add %h, %m2 : tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}
