// RUN: env DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL=0 disc-opt %s -split-input-file -disc-algebraic-simplifier | FileCheck %s
// RUN: env DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL=1 disc-opt %s -split-input-file -disc-algebraic-simplifier | FileCheck %s --check-prefix=MEM

// power by a small positive integer constant -> multiplications; other
// exponents (too large, fractional, f16, zero) are kept.
// CHECK-LABEL: func.func @pow
// CHECK-SAME:    (%[[X:.*]]: tensor<?xf32>, %[[I:.*]]: tensor<4xi32>, %[[H:.*]]: tensor<4xf16>)
// CHECK-DAG:     %[[X2:.*]] = mhlo.multiply %[[X]], %[[X]] : tensor<?xf32>
// CHECK-DAG:     %[[I2:.*]] = mhlo.multiply %[[I]], %[[I]] : tensor<4xi32>
// CHECK-DAG:     %[[I3:.*]] = mhlo.multiply %[[I2]], %[[I]] : tensor<4xi32>
// CHECK-DAG:     %[[I4:.*]] = mhlo.multiply %[[I3]], %[[I]] : tensor<4xi32>
// CHECK-DAG:     %[[P9:.*]] = mhlo.power %[[X]], %{{.*}} : tensor<?xf32>
// CHECK-DAG:     %[[PH:.*]] = mhlo.power %[[H]], %{{.*}} : tensor<4xf16>
// CHECK-DAG:     %[[P0:.*]] = mhlo.power %[[X]], %{{.*}} : tensor<?xf32>
// CHECK:         return %[[X2]], %[[I4]], %[[P9]], %[[PH]], %[[X]], %[[P0]]
func.func @pow(%x: tensor<?xf32>, %i: tensor<4xi32>, %h: tensor<4xf16>) -> (tensor<?xf32>, tensor<4xi32>, tensor<?xf32>, tensor<4xf16>, tensor<?xf32>, tensor<?xf32>) {
  %two = mhlo.constant dense<2.0> : tensor<f32>
  %shape = shape.shape_of %x : tensor<?xf32> -> tensor<1xindex>
  %twos = "mhlo.dynamic_broadcast_in_dim"(%two, %shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
  %0 = mhlo.power %x, %twos : tensor<?xf32>
  %four = mhlo.constant dense<4> : tensor<4xi32>
  %1 = mhlo.power %i, %four : tensor<4xi32>
  %nine = mhlo.constant dense<9.0> : tensor<f32>
  %nines = "mhlo.dynamic_broadcast_in_dim"(%nine, %shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
  %2 = mhlo.power %x, %nines : tensor<?xf32>
  %htwo = mhlo.constant dense<2.0> : tensor<4xf16>
  %3 = mhlo.power %h, %htwo : tensor<4xf16>
  %one = mhlo.constant dense<1.0> : tensor<f32>
  %ones = "mhlo.dynamic_broadcast_in_dim"(%one, %shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
  %4 = mhlo.power %x, %ones : tensor<?xf32>
  %zero = mhlo.constant dense<0.0> : tensor<f32>
  %zeros = "mhlo.dynamic_broadcast_in_dim"(%zero, %shape) {broadcast_dimensions = dense<> : tensor<0xi64>} : (tensor<f32>, tensor<1xindex>) -> tensor<?xf32>
  %5 = mhlo.power %x, %zeros : tensor<?xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<?xf32>, tensor<4xi32>, tensor<?xf32>, tensor<4xf16>, tensor<?xf32>, tensor<?xf32>
}

// -----

// Identity broadcasts go: same static type, same symbolic dims, or a shape
// the shape analysis proves equal (identity broadcast dimensions only).
// CHECK-LABEL: func.func @identity_broadcasts
// CHECK-SAME:    (%[[A:[^:]*]]: tensor<2x2xf32>, %[[B:[^:]*]]: tensor<?x?xf32>,
// CHECK:         %[[T:.*]] = "mhlo.broadcast_in_dim"(%[[A]]) {broadcast_dimensions = dense<[1, 0]> : tensor<2xi64>}
// CHECK-NEXT:    %[[U:.*]] = "mhlo.dynamic_broadcast_in_dim"(%[[B]], %{{.*}}) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// CHECK-NEXT:    return %[[A]], %[[B]], %[[T]], %[[U]]
func.func @identity_broadcasts(%a: tensor<2x2xf32>, %b: tensor<?x?xf32>, %other: tensor<2xindex>) -> (tensor<2x2xf32>, tensor<?x?xf32>, tensor<2x2xf32>, tensor<?x?xf32>) {
  %0 = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %shape = shape.shape_of %b : tensor<?x?xf32> -> tensor<2xindex>
  %1 = "mhlo.dynamic_broadcast_in_dim"(%b, %shape) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  // a transpose in disguise: kept
  %2 = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<[1, 0]> : tensor<2xi64>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  // an unrelated target shape: kept
  %3 = "mhlo.dynamic_broadcast_in_dim"(%b, %other) {broadcast_dimensions = dense<[0, 1]> : tensor<2xi64>} : (tensor<?x?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %0, %1, %2, %3 : tensor<2x2xf32>, tensor<?x?xf32>, tensor<2x2xf32>, tensor<?x?xf32>
}

// -----

// A broadcast of an expand-dims reshape broadcasts the reshape's input; a
// reshape that does more than insert unit dims is kept.
// CHECK-LABEL: func.func @broadcast_of_reshape
// CHECK:         %[[B0:.*]] = "mhlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = dense<[0, 2]> : tensor<2xi64>} : (tensor<4x5xf32>) -> tensor<4x3x5xf32>
// CHECK:         %[[R:.*]] = mhlo.reshape %arg1 : (tensor<4x6xf32>) -> tensor<4x2x3xf32>
// CHECK:         "mhlo.broadcast_in_dim"(%[[R]])
func.func @broadcast_of_reshape(%arg0: tensor<4x5xf32>, %arg1: tensor<4x6xf32>) -> (tensor<4x3x5xf32>, tensor<4x2x3x7xf32>) {
  %0 = "mhlo.reshape"(%arg0) : (tensor<4x5xf32>) -> tensor<4x1x5xf32>
  %1 = "mhlo.broadcast_in_dim"(%0) {broadcast_dimensions = dense<[0, 1, 2]> : tensor<3xi64>} : (tensor<4x1x5xf32>) -> tensor<4x3x5xf32>
  %2 = "mhlo.reshape"(%arg1) : (tensor<4x6xf32>) -> tensor<4x2x3xf32>
  %3 = "mhlo.broadcast_in_dim"(%2) {broadcast_dimensions = dense<[0, 1, 2]> : tensor<3xi64>} : (tensor<4x2x3xf32>) -> tensor<4x2x3x7xf32>
  return %1, %3 : tensor<4x3x5xf32>, tensor<4x2x3x7xf32>
}

// -----

// x + 0, 1 * x, select with a constant predicate or equal branches, and
// exact convert round trips simplify; x + 1 does not. (x + 0.0 folds as in
// BladeDISC, though -0.0 + 0.0 is +0.0.)
// CHECK-LABEL: func.func @identities
// CHECK-SAME:    (%[[X:.*]]: tensor<4xf32>, %[[I:.*]]: tensor<4xi32>, %[[P:.*]]: tensor<4xi1>)
// CHECK:         %[[ONE:.*]] = mhlo.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK:         %[[S:.*]] = mhlo.add %[[X]], %[[ONE]] : tensor<4xf32>
// CHECK:         return %[[X]], %[[X]], %[[X]], %[[X]], %[[S]], %[[I]], %[[X]]
func.func @identities(%x: tensor<4xf32>, %i: tensor<4xi32>, %p: tensor<4xi1>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>) {
  %zero = mhlo.constant dense<-0.0> : tensor<4xf32>
  %pzero = mhlo.constant dense<0.0> : tensor<4xf32>
  %one = mhlo.constant dense<1.0> : tensor<4xf32>
  %0 = mhlo.add %x, %zero : tensor<4xf32>
  %1 = mhlo.multiply %one, %x : tensor<4xf32>
  %false = mhlo.constant dense<false> : tensor<4xi1>
  %2 = "mhlo.select"(%false, %one, %x) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %3 = "mhlo.select"(%p, %x, %x) : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %4 = mhlo.add %x, %one : tensor<4xf32>
  %f = mhlo.convert %i : (tensor<4xi32>) -> tensor<4xf64>
  %5 = mhlo.convert %f : (tensor<4xf64>) -> tensor<4xi32>
  %6 = mhlo.add %x, %pzero : tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Convert round trips fold only where the middle type holds every value
// (BladeDISC's ConvertSimplifierPattern folds them all): int widening with the
// signedness kept or unsigned into a wider signed type, i1 into anything,
// float widening (not f16 <-> bf16), int into a float whose significand holds
// the int. The lossy ones (a truncation through i32, f32 through f16/bf16,
// i32 through i8 or f32, f16 through bf16, i8 through ui16) stay.
// CHECK-LABEL: func.func @convert_round_trips
// CHECK-SAME:    (%[[F:[^:]*]]: tensor<4xf32>, %[[I:[^:]*]]: tensor<4xi32>, %[[H:[^:]*]]: tensor<4xf16>, %[[B:[^:]*]]: tensor<4xbf16>, %[[S:[^:]*]]: tensor<4xi8>, %[[U:[^:]*]]: tensor<4xui8>, %[[P:[^:]*]]: tensor<4xi1>, %[[W:[^:]*]]: tensor<4xi16>)
// CHECK-NOT:     mhlo.convert %[[S]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK:         %[[T0:.*]] = mhlo.convert %[[F]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[K0:.*]] = mhlo.convert %[[T0]] : (tensor<4xi32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[SUM:.*]] = mhlo.add %[[K0]], %[[F]] : tensor<4xf32>
// CHECK-NEXT:    %[[T1:.*]] = mhlo.convert %[[F]] : (tensor<4xf32>) -> tensor<4xf16>
// CHECK-NEXT:    %[[K1:.*]] = mhlo.convert %[[T1]] : (tensor<4xf16>) -> tensor<4xf32>
// CHECK-NEXT:    %[[T2:.*]] = mhlo.convert %[[F]] : (tensor<4xf32>) -> tensor<4xbf16>
// CHECK-NEXT:    %[[K2:.*]] = mhlo.convert %[[T2]] : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK-NEXT:    %[[T3:.*]] = mhlo.convert %[[I]] : (tensor<4xi32>) -> tensor<4xi8>
// CHECK-NEXT:    %[[K3:.*]] = mhlo.convert %[[T3]] : (tensor<4xi8>) -> tensor<4xi32>
// CHECK-NEXT:    %[[T4:.*]] = mhlo.convert %[[I]] : (tensor<4xi32>) -> tensor<4xf32>
// CHECK-NEXT:    %[[K4:.*]] = mhlo.convert %[[T4]] : (tensor<4xf32>) -> tensor<4xi32>
// CHECK-NEXT:    %[[T5:.*]] = mhlo.convert %[[H]] : (tensor<4xf16>) -> tensor<4xbf16>
// CHECK-NEXT:    %[[K5:.*]] = mhlo.convert %[[T5]] : (tensor<4xbf16>) -> tensor<4xf16>
// CHECK-NEXT:    %[[T6:.*]] = mhlo.convert %[[S]] : (tensor<4xi8>) -> tensor<4xui16>
// CHECK-NEXT:    %[[K6:.*]] = mhlo.convert %[[T6]] : (tensor<4xui16>) -> tensor<4xi8>
// CHECK-NEXT:    %[[T7:.*]] = mhlo.convert %[[W]] : (tensor<4xi16>) -> tensor<4xf16>
// CHECK-NEXT:    %[[K7:.*]] = mhlo.convert %[[T7]] : (tensor<4xf16>) -> tensor<4xi16>
// CHECK-NEXT:    return %[[SUM]], %[[K1]], %[[K2]], %[[K3]], %[[K4]], %[[K5]], %[[K6]], %[[K7]], %[[S]], %[[U]], %[[P]], %[[H]], %[[B]], %[[F]], %[[S]], %[[W]]
func.func @convert_round_trips(%f: tensor<4xf32>, %i: tensor<4xi32>, %h: tensor<4xf16>, %b: tensor<4xbf16>, %s: tensor<4xi8>, %u: tensor<4xui8>, %p: tensor<4xi1>, %w: tensor<4xi16>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf16>, tensor<4xi8>, tensor<4xi16>, tensor<4xi8>, tensor<4xui8>, tensor<4xi1>, tensor<4xf16>, tensor<4xbf16>, tensor<4xf32>, tensor<4xi8>, tensor<4xi16>) {
  // kept: f32 -> i32 -> f32 truncates toward zero (x + trunc(x) is not 2x)
  %0 = mhlo.convert %f : (tensor<4xf32>) -> tensor<4xi32>
  %1 = mhlo.convert %0 : (tensor<4xi32>) -> tensor<4xf32>
  %sum = mhlo.add %1, %f : tensor<4xf32>
  %2 = mhlo.convert %f : (tensor<4xf32>) -> tensor<4xf16>
  %3 = mhlo.convert %2 : (tensor<4xf16>) -> tensor<4xf32>
  %4 = mhlo.convert %f : (tensor<4xf32>) -> tensor<4xbf16>
  %5 = mhlo.convert %4 : (tensor<4xbf16>) -> tensor<4xf32>
  %6 = mhlo.convert %i : (tensor<4xi32>) -> tensor<4xi8>
  %7 = mhlo.convert %6 : (tensor<4xi8>) -> tensor<4xi32>
  %8 = mhlo.convert %i : (tensor<4xi32>) -> tensor<4xf32>
  %9 = mhlo.convert %8 : (tensor<4xf32>) -> tensor<4xi32>
  %10 = mhlo.convert %h : (tensor<4xf16>) -> tensor<4xbf16>
  %11 = mhlo.convert %10 : (tensor<4xbf16>) -> tensor<4xf16>
  %12 = mhlo.convert %s : (tensor<4xi8>) -> tensor<4xui16>
  %13 = mhlo.convert %12 : (tensor<4xui16>) -> tensor<4xi8>
  %14 = mhlo.convert %w : (tensor<4xi16>) -> tensor<4xf16>
  %15 = mhlo.convert %14 : (tensor<4xf16>) -> tensor<4xi16>
  // folded: i8 -> i32, ui8 -> i16, i1 -> i8, f16 -> f32, bf16 -> f64,
  // f32 -> f64, i8 -> f16, i16 -> f32
  %20 = mhlo.convert %s : (tensor<4xi8>) -> tensor<4xi32>
  %21 = mhlo.convert %20 : (tensor<4xi32>) -> tensor<4xi8>
  %22 = mhlo.convert %u : (tensor<4xui8>) -> tensor<4xi16>
  %23 = mhlo.convert %22 : (tensor<4xi16>) -> tensor<4xui8>
  %24 = mhlo.convert %p : (tensor<4xi1>) -> tensor<4xi8>
  %25 = mhlo.convert %24 : (tensor<4xi8>) -> tensor<4xi1>
  %26 = mhlo.convert %h : (tensor<4xf16>) -> tensor<4xf32>
  %27 = mhlo.convert %26 : (tensor<4xf32>) -> tensor<4xf16>
  %28 = mhlo.convert %b : (tensor<4xbf16>) -> tensor<4xf64>
  %29 = mhlo.convert %28 : (tensor<4xf64>) -> tensor<4xbf16>
  %30 = mhlo.convert %f : (tensor<4xf32>) -> tensor<4xf64>
  %31 = mhlo.convert %30 : (tensor<4xf64>) -> tensor<4xf32>
  %32 = mhlo.convert %s : (tensor<4xi8>) -> tensor<4xf16>
  %33 = mhlo.convert %32 : (tensor<4xf16>) -> tensor<4xi8>
  %34 = mhlo.convert %w : (tensor<4xi16>) -> tensor<4xf32>
  %35 = mhlo.convert %34 : (tensor<4xf32>) -> tensor<4xi16>
  return %sum, %3, %5, %7, %9, %11, %13, %15, %21, %23, %25, %27, %29, %31, %33, %35 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf16>, tensor<4xi8>, tensor<4xi16>, tensor<4xi8>, tensor<4xui8>, tensor<4xi1>, tensor<4xf16>, tensor<4xbf16>, tensor<4xf32>, tensor<4xi8>, tensor<4xi16>
}

// -----

// Scalars through tensors: from_elements(extract), index_cast chains. The
// round trip through i64 folds; index -> i32 -> index truncates: kept.
// CHECK-LABEL: func.func @scalars
// CHECK-SAME:    (%[[S:.*]]: tensor<i64>, %[[V:.*]]: tensor<1xi64>, %[[N:.*]]: index)
// CHECK:         %[[R:.*]] = mhlo.reshape %[[S]] : (tensor<i64>) -> tensor<1xi64>
// CHECK:         %[[T:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK:         %[[T2:.*]] = arith.index_cast %[[N]] : index to i32
// CHECK:         %[[BACK:.*]] = arith.index_cast %[[T2]] : i32 to index
// CHECK:         return %[[R]], %[[V]], %[[T]], %[[BACK]], %[[N]]
func.func @scalars(%s: tensor<i64>, %v: tensor<1xi64>, %n: index) -> (tensor<1xi64>, tensor<1xi64>, i32, index, index) {
  %c0 = arith.constant 0 : index
  %0 = tensor.extract %s[] : tensor<i64>
  %1 = tensor.from_elements %0 : tensor<1xi64>
  %2 = tensor.extract %v[%c0] : tensor<1xi64>
  %3 = tensor.from_elements %2 : tensor<1xi64>
  %4 = arith.index_cast %n : index to i64
  %5 = arith.trunci %4 : i64 to i32
  %6 = arith.index_cast %n : index to i32
  %7 = arith.index_cast %6 : i32 to index
  %8 = arith.index_cast %n : index to i64
  %9 = arith.index_cast %8 : i64 to index
  return %1, %3, %5, %7, %9 : tensor<1xi64>, tensor<1xi64>, i32, index, index
}

// -----

// get_dimension_size and the scalar arithmetic on it become tensor.dim and
// arith ops.
// CHECK-LABEL: func.func @dimension_size
// CHECK:         %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[C:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK:         %[[E:.*]] = tensor.extract %arg1[] : tensor<i32>
// CHECK:         %[[A:.*]] = arith.addi %[[C]], %[[E]] : i32
// CHECK:         %[[F:.*]] = tensor.from_elements %[[A]] : tensor<i32>
// CHECK:         return %[[F]]
// CHECK-NOT:     mhlo.get_dimension_size
func.func @dimension_size(%arg0: tensor<?x?xf32>, %arg1: tensor<i32>) -> tensor<i32> {
  %0 = "mhlo.get_dimension_size"(%arg0) {dimension = 1 : i64} : (tensor<?x?xf32>) -> tensor<i32>
  %1 = mhlo.add %0, %arg1 : tensor<i32>
  return %1 : tensor<i32>
}

// -----

// Other users (here the compare of a jax.export shape assertion) keep
// consuming the rebuilt value: the rewrite still happens (BladeDISC gave up).
// CHECK-LABEL: func.func @dimension_size_compared
// CHECK:         %[[D:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x?xf32>
// CHECK:         %[[C:.*]] = arith.index_cast %[[D]] : index to i32
// CHECK:         %[[F:.*]] = tensor.from_elements %[[C]] : tensor<i32>
// CHECK:         mhlo.compare GE, %[[F]], %arg1
// CHECK:         mhlo.reshape %[[F]]
// CHECK-NOT:     mhlo.get_dimension_size
func.func @dimension_size_compared(%arg0: tensor<?x?xf32>, %arg1: tensor<i32>) -> (tensor<i1>, tensor<1xi32>) {
  %0 = "mhlo.get_dimension_size"(%arg0) {dimension = 1 : i64} : (tensor<?x?xf32>) -> tensor<i32>
  %1 = mhlo.compare GE, %0, %arg1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
  %2 = mhlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
  return %1, %2 : tensor<i1>, tensor<1xi32>
}

// -----

// Only with DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL (on by default, as in BladeDISC): sqrt of a broadcast splat
// constant folds into the constant.
// CHECK-LABEL: func.func @sqrt_of_broadcast
// CHECK:         mhlo.sqrt
// MEM-LABEL: func.func @sqrt_of_broadcast
// MEM:         %[[C:.*]] = mhlo.constant dense<3.000000e+00> : tensor<f32>
// MEM:         %[[B:.*]] = "mhlo.dynamic_broadcast_in_dim"(%[[C]], %arg0)
// MEM-NOT:     mhlo.sqrt
// MEM:         return %[[B]]
func.func @sqrt_of_broadcast(%arg0: tensor<2xindex>) -> tensor<?x?xf32> {
  %0 = mhlo.constant dense<9.0> : tensor<f32>
  %1 = "mhlo.dynamic_broadcast_in_dim"(%0, %arg0) {broadcast_dimensions = dense<[]> : tensor<0xi64>} : (tensor<f32>, tensor<2xindex>) -> tensor<?x?xf32>
  %2 = mhlo.sqrt %1 : tensor<?x?xf32>
  return %2 : tensor<?x?xf32>
}
