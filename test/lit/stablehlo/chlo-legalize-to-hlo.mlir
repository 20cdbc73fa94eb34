// RUN: disc-opt -split-input-file --chlo-legalize-to-hlo %s | FileCheck %s

// erf (f32): x T(x^2) (Cephes) for |x| < 1, 1 - erfc(x) beyond. mlir-hlo
// lowers it with Eigen's single rational approximation on x clamped to
// [-4, 4], which is up to 5.5 ulps off and reaches 1.0 four ulps early (an
// int conversion of erf(3.66) then gives 1 instead of 0); disc-ir is within
// 3 ulps.
// CHECK-LABEL: func.func @erf
// CHECK-NEXT: %[[ONE:.*]] = mhlo.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[X2:.*]] = mhlo.multiply %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT: %[[T0:.*]] = mhlo.constant dense<7.85386146e-05> : tensor<4xf32>
// CHECK: %[[SMALL:.*]] = mhlo.multiply %arg0, %{{.*}} : tensor<4xf32>
// CHECK: mhlo.exponential
// CHECK: %[[LARGE:.*]] = mhlo.subtract %[[ONE]], %{{.*}} : tensor<4xf32>
// CHECK-NEXT: %[[ABS:.*]] = mhlo.abs %arg0 : tensor<4xf32>
// CHECK-NEXT: %[[LT:.*]] = mhlo.compare  LT, %[[ABS]], %[[ONE]],  FLOAT
// CHECK-NEXT: %[[R:.*]] = mhlo.select %[[LT]], %[[SMALL]], %[[LARGE]] : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: return %[[R]]
// CHECK-NOT: chlo.erf
func.func @erf(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// mhlo.erf (today's mhlo) expands as chlo.erf does.
// CHECK-LABEL: func.func @mhlo_erf
// CHECK: mhlo.exponential
// CHECK-NOT: mhlo.erf
func.func @mhlo_erf(%x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mhlo.erf %x : tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Constants shaped like a dynamic operand: a scalar broadcast to its shape.
// CHECK-LABEL: func.func @erf_dynamic_bf16
// CHECK: %[[W:.*]] = mhlo.convert %arg0 : (tensor<?xbf16>) -> tensor<?xf32>
// CHECK-NEXT: %[[C:.*]] = mhlo.constant dense<1.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[S:.*]] = shape.shape_of %[[W]] : tensor<?xf32> -> tensor<1xindex>
// CHECK-NEXT: %{{.*}} = "mhlo.dynamic_broadcast_in_dim"(%[[C]], %[[S]]) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
// CHECK: %[[R:.*]] = mhlo.convert %{{.*}} : (tensor<?xf32>) -> tensor<?xbf16>
// CHECK-NEXT: return %[[R]]
func.func @erf_dynamic_bf16(%x: tensor<?xbf16>) -> tensor<?xbf16> {
  %0 = chlo.erf %x : tensor<?xbf16> -> tensor<?xbf16>
  return %0 : tensor<?xbf16>
}

// -----

// erfc (f32): 1 - x T(x^2) for |x| < 1, Cephes' P / R beyond.
// CHECK-LABEL: func.func @erfc
// CHECK: mhlo.exponential
// CHECK: %[[ONE:.*]] = mhlo.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK: %[[ABS:.*]] = mhlo.abs %arg0 : tensor<4xf32>
// CHECK-NEXT: %[[LT:.*]] = mhlo.compare  LT, %[[ABS]], %[[ONE]],  FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
// CHECK-NEXT: %[[R:.*]] = mhlo.select %[[LT]], %{{.*}}, %{{.*}} : tensor<4xi1>, tensor<4xf32>
// CHECK-NEXT: return %[[R]]
func.func @erfc(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.erfc %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @square_and_broadcast
// CHECK-NEXT: %[[SQ:.*]] = mhlo.multiply %arg0, %arg0 : tensor<2x3xf32>
// CHECK-NEXT: %[[B:.*]] = "mhlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<3xf32>) -> tensor<2x3xf32>
// CHECK-NEXT: %[[ADD:.*]] = mhlo.add %[[SQ]], %[[B]] : tensor<2x3xf32>
// CHECK-NEXT: %[[S0:.*]] = shape.shape_of %arg2 : tensor<?x?xf32> -> tensor<2xindex>
// CHECK-NEXT: %[[S1:.*]] = shape.shape_of %arg3 : tensor<?xf32> -> tensor<1xindex>
// CHECK-NEXT: %[[S:.*]] = shape.broadcast %[[S0]], %[[S1]] : tensor<2xindex>, tensor<1xindex> -> tensor<2xindex>
// CHECK-NEXT: %[[L:.*]] = "mhlo.dynamic_broadcast_in_dim"(%arg2, %[[S]]) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// CHECK-NEXT: %[[R:.*]] = "mhlo.dynamic_broadcast_in_dim"(%arg3, %[[S]]) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// CHECK-NEXT: %[[CMP:.*]] = mhlo.compare  GT, %[[L]], %[[R]] : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xi1>
// CHECK-NEXT: return %[[ADD]], %[[CMP]]
func.func @square_and_broadcast(%x: tensor<2x3xf32>, %y: tensor<3xf32>, %a: tensor<?x?xf32>, %b: tensor<?xf32>) -> (tensor<2x3xf32>, tensor<?x?xi1>) {
  %0 = chlo.square %x : tensor<2x3xf32> -> tensor<2x3xf32>
  %1 = chlo.broadcast_add %0, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %2 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction GT>} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xi1>
  return %1, %2 : tensor<2x3xf32>, tensor<?x?xi1>
}

// -----

// broadcast_dimensions maps the lower-rank operand (here a column) into the
// result: its shape is placed at those dims (1 elsewhere) before the join.
// CHECK-LABEL: func.func @column_broadcast
// CHECK: %[[S:.*]] = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[D:.*]] = tensor.dim %arg1, %[[ZERO]] : tensor<?xf32>
// CHECK: %[[M:.*]] = tensor.from_elements %[[D]], %[[ONE]] : tensor<2xindex>
// CHECK: %[[B:.*]] = shape.broadcast %[[S]], %[[M]] : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
// CHECK: "mhlo.dynamic_broadcast_in_dim"(%arg0, %[[B]]) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>}
// CHECK: "mhlo.dynamic_broadcast_in_dim"(%arg1, %[[B]]) {broadcast_dimensions = dense<0> : tensor<1xi64>}
func.func @column_broadcast(%a: tensor<?x?xf32>, %col: tensor<?xf32>) -> tensor<?x?xf32> {
  %0 = chlo.broadcast_multiply %a, %col {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// asin(x) = 2 atan2(x, 1 + sqrt(1 - x^2)) (mlir-hlo's expansion).
// CHECK-LABEL: func.func @asin
// CHECK-NEXT: %[[ONE:.*]] = mhlo.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[X2:.*]] = mhlo.multiply %arg0, %arg0 : tensor<4xf32>
// CHECK-NEXT: %[[D:.*]] = mhlo.subtract %[[ONE]], %[[X2]] : tensor<4xf32>
// CHECK-NEXT: %[[R:.*]] = mhlo.sqrt %[[D]] : tensor<4xf32>
// CHECK-NEXT: %[[S:.*]] = mhlo.add %[[ONE]], %[[R]] : tensor<4xf32>
// CHECK-NEXT: %[[A:.*]] = mhlo.atan2 %arg0, %[[S]] : tensor<4xf32>
// CHECK-NEXT: %[[TWO:.*]] = mhlo.constant dense<2.000000e+00> : tensor<4xf32>
// CHECK-NEXT: %[[Y:.*]] = mhlo.multiply %[[TWO]], %[[A]] : tensor<4xf32>
// CHECK-NEXT: return %[[Y]]
func.func @asin(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.asin %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// lgamma, digamma, erf_inv, and today's mhlo.sinh: expanded, none left.
// CHECK-LABEL: func.func @special
// CHECK-NOT: chlo.
// CHECK-NOT: mhlo.sinh
// CHECK: mhlo.log_plus_one
// CHECK: mhlo.sine
// CHECK: return
func.func @special(%x: tensor<?xf32>, %h: tensor<4xbf16>) -> (tensor<?xf32>, tensor<?xf32>, tensor<4xbf16>, tensor<?xf32>) {
  %0 = chlo.lgamma %x : tensor<?xf32> -> tensor<?xf32>
  %1 = chlo.digamma %x : tensor<?xf32> -> tensor<?xf32>
  %2 = chlo.erf_inv %h : tensor<4xbf16> -> tensor<4xbf16>
  %3 = mhlo.sinh %x : tensor<?xf32>
  return %0, %1, %2, %3 : tensor<?xf32>, tensor<?xf32>, tensor<4xbf16>, tensor<?xf32>
}

// -----

// erf_inv's polynomials are f32-accurate: an f64 one is left for the
// compiler to name; lgamma's Lanczos sum holds f64 and is expanded in f64.
// CHECK-LABEL: func.func @f64
// CHECK-NEXT: chlo.erf_inv %arg0 : tensor<4xf64> -> tensor<4xf64>
// CHECK-NOT: chlo.lgamma
// CHECK-NOT: mhlo.convert
// CHECK: mhlo.log_plus_one %{{.*}} : tensor<4xf64>
func.func @f64(%x: tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>) {
  %0 = chlo.erf_inv %x : tensor<4xf64> -> tensor<4xf64>
  %1 = chlo.lgamma %x : tensor<4xf64> -> tensor<4xf64>
  return %0, %1 : tensor<4xf64>, tensor<4xf64>
}

// -----

// top_k: a stable sort of (x, iota) along the last dim in descending total
// order, then the first k columns.
// CHECK-LABEL: func.func @top_k
// CHECK-NEXT: %[[I:.*]] = "mhlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<3x5xi32>
// CHECK-NEXT: %[[S:.*]]:2 = "mhlo.sort"(%arg0, %[[I]]) ({
// CHECK-NEXT: ^bb0(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>, %{{.*}}: tensor<i32>, %{{.*}}: tensor<i32>):
// CHECK-NEXT: %[[GT:.*]] = mhlo.compare  GT, %[[A]], %[[B]],  TOTALORDER
// CHECK-NEXT: mhlo.return %[[GT]] : tensor<i1>
// CHECK-NEXT: }) {dimension = 1 : i64, is_stable = true}
// CHECK-NEXT: %[[V:.*]] = "mhlo.slice"(%[[S]]#0) {limit_indices = dense<[3, 2]> : tensor<2xi64>, start_indices = dense<0> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} : (tensor<3x5xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: %[[X:.*]] = "mhlo.slice"(%[[S]]#1) {{.*}} : (tensor<3x5xi32>) -> tensor<3x2xi32>
// CHECK-NEXT: return %[[V]], %[[X]]
func.func @top_k(%x: tensor<3x5xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>) {
  %v, %i = chlo.top_k(%x, k = 2) : tensor<3x5xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi32>
}

// -----

// Dynamic rows: a dynamic_iota of the operand's shape and real_dynamic_slices.
// CHECK-LABEL: func.func @top_k_dynamic
// CHECK: %[[SH:.*]] = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
// CHECK-NEXT: "mhlo.dynamic_iota"(%[[SH]]) {iota_dimension = 1 : i64} : (tensor<2xindex>) -> tensor<?x?xi32>
// CHECK: mhlo.real_dynamic_slice {{.*}} -> tensor<?x2xf32>
// CHECK: mhlo.real_dynamic_slice {{.*}} -> tensor<?x2xi32>
func.func @top_k_dynamic(%x: tensor<?x?xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>) {
  %0:2 = "chlo.top_k"(%x) <{k = 2 : i64}> : (tensor<?x?xf32>) -> (tensor<?x2xf32>, tensor<?x2xi32>)
  return %0#0, %0#1 : tensor<?x2xf32>, tensor<?x2xi32>
}

// -----

// reduce_precision (e5m10 of f32): round the mantissa to nearest even through
// the bits, flush the exponent range, keep NaN.
// CHECK-LABEL: func.func @reduce_precision
// CHECK-NEXT: %[[B:.*]] = mhlo.bitcast_convert %arg0 : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT: %[[LAST:.*]] = mhlo.constant dense<8192> : tensor<4xi32>
// CHECK: %[[T:.*]] = mhlo.constant dense<-8192> : tensor<4xi32>
// CHECK: %[[EXP:.*]] = mhlo.constant dense<2139095040> : tensor<4xi32>
// CHECK: mhlo.constant dense<1191182336> : tensor<4xi32>
// CHECK: mhlo.constant dense<939524096> : tensor<4xi32>
// CHECK: %[[R:.*]] = mhlo.bitcast_convert %{{.*}} : (tensor<4xi32>) -> tensor<4xf32>
// CHECK-NEXT: %[[NAN:.*]] = mhlo.compare  NE, %arg0, %arg0,  FLOAT
// CHECK-NEXT: %[[Y:.*]] = mhlo.select %[[NAN]], %arg0, %[[R]]
// CHECK-NEXT: return %[[Y]]
func.func @reduce_precision(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.reduce_precision %x, format = e5m10 : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// next_after: one step of the integer representation, in the operands' width.
// CHECK-LABEL: func.func @next_after
// CHECK-NEXT: %[[X:.*]] = mhlo.bitcast_convert %arg0 : (tensor<4xf16>) -> tensor<4xi16>
// CHECK-NEXT: %[[Y:.*]] = mhlo.bitcast_convert %arg1 : (tensor<4xf16>) -> tensor<4xi16>
// CHECK: mhlo.subtract %[[X]], %{{.*}} : tensor<4xi16>
// CHECK-NEXT: mhlo.add %[[X]], %{{.*}} : tensor<4xi16>
// CHECK: mhlo.constant dense<0x7E00> : tensor<4xf16>
// CHECK-NOT: chlo.
func.func @next_after(%x: tensor<4xf16>, %y: tensor<4xf16>) -> tensor<4xf16> {
  %0 = chlo.next_after %x, %y : tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// batch_norm_inference (today's mhlo, unfused as mlir-hlo's unfuse-batch-norm):
// (x - mean) * (scale * rsqrt(var + eps)) + offset, the vectors broadcast
// along feature_index to the operand's (dynamic) shape.
// CHECK-LABEL: func.func @batch_norm_inference
// CHECK-NEXT: %[[EPS:.*]] = mhlo.constant dense<1.000000e-03> : tensor<3xf32>
// CHECK-NEXT: %[[VE:.*]] = mhlo.add %arg4, %[[EPS]] : tensor<3xf32>
// CHECK-NEXT: %[[R:.*]] = mhlo.rsqrt %[[VE]] : tensor<3xf32>
// CHECK-NEXT: %[[C:.*]] = mhlo.multiply %arg1, %[[R]] : tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = shape.shape_of %arg0 : tensor<?x3xf32> -> tensor<2xindex>
// CHECK-NEXT: %[[CB:.*]] = "mhlo.dynamic_broadcast_in_dim"(%[[C]], %[[S]]) {broadcast_dimensions = dense<1> : tensor<1xi64>}
// CHECK-NEXT: %[[MB:.*]] = "mhlo.dynamic_broadcast_in_dim"(%arg3, %[[S]]) {broadcast_dimensions = dense<1> : tensor<1xi64>}
// CHECK-NEXT: %[[XC:.*]] = mhlo.subtract %arg0, %[[MB]] : tensor<?x3xf32>
// CHECK-NEXT: %[[Y:.*]] = mhlo.multiply %[[XC]], %[[CB]] : tensor<?x3xf32>
// CHECK-NEXT: %[[OB:.*]] = "mhlo.dynamic_broadcast_in_dim"(%arg2, %[[S]])
// CHECK-NEXT: %[[Z:.*]] = mhlo.add %[[Y]], %[[OB]] : tensor<?x3xf32>
// CHECK-NEXT: return %[[Z]]
func.func @batch_norm_inference(%x: tensor<?x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<?x3xf32> {
  %0 = "mhlo.batch_norm_inference"(%x, %s, %o, %m, %v) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<?x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// batch_norm_training: the mean by a reduce, the variance of the centered
// values by another, divided by the static count per feature.
// CHECK-LABEL: func.func @batch_norm_training
// CHECK-NEXT: %[[N:.*]] = mhlo.constant dense<2.000000e+00> : tensor<3xf32>
// CHECK-NEXT: %[[Z:.*]] = mhlo.constant dense<0.000000e+00> : tensor<f32>
// CHECK-NEXT: %[[SUM:.*]] = mhlo.reduce(%arg0 init: %[[Z]]) applies mhlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
// CHECK-NEXT: %[[MEAN:.*]] = mhlo.divide %[[SUM]], %[[N]] : tensor<3xf32>
// CHECK: %[[SQ:.*]] = mhlo.reduce
// CHECK-NEXT: %[[VAR:.*]] = mhlo.divide %[[SQ]], %[[N]] : tensor<3xf32>
// CHECK: return %{{.*}}, %[[MEAN]], %[[VAR]]
func.func @batch_norm_training(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %o: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0:3 = "mhlo.batch_norm_training"(%x, %s, %o) {epsilon = 1.0e-3 : f32, feature_index = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// zeta and polygamma (and their broadcasting forms) are computed in f64.
// CHECK-LABEL: func.func @zeta_polygamma
// CHECK-NOT: chlo.
// CHECK: mhlo.convert %arg0 : (tensor<?xf32>) -> tensor<?xf64>
// CHECK: mhlo.power %{{.*}}, %{{.*}} : tensor<?xf64>
// CHECK: mhlo.convert %{{.*}} : (tensor<?xf64>) -> tensor<?xf32>
// CHECK-NOT: chlo.
// CHECK: return
func.func @zeta_polygamma(%x: tensor<?xf32>, %q: tensor<?xf32>, %n: tensor<f32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %0 = chlo.zeta %x, %q : tensor<?xf32>, tensor<?xf32> -> tensor<?xf32>
  %1 = chlo.broadcast_polygamma %n, %q : (tensor<f32>, tensor<?xf32>) -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}
