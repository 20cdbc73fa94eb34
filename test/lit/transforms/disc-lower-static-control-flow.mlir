// RUN: disc-opt -split-input-file %s --disc-lower-static-control-flow | FileCheck %s

// A while loop with a constant trip count (i = 1, 3 while 5 > i: 2 trips) is unrolled.
// CHECK-LABEL: func.func @unrolled
// CHECK-NOT: mhlo.while
// CHECK: %[[A:.*]] = mhlo.multiply %arg0, %arg0 : tensor<3xf32>
// CHECK: %[[B:.*]] = mhlo.multiply %[[A]], %[[A]] : tensor<3xf32>
// CHECK-NEXT: return %[[B]] : tensor<3xf32>
func.func @unrolled(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c1 = mhlo.constant dense<1> : tensor<i64>
  %c2 = mhlo.constant dense<2> : tensor<i64>
  %c5 = mhlo.constant dense<5> : tensor<i64>
  %0:2 = mhlo.while(%i = %c1, %v = %x) : tensor<i64>, tensor<3xf32>
    cond {
      %p = mhlo.compare GT, %c5, %i, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      mhlo.return %p : tensor<i1>
    } do {
      %n = mhlo.add %i, %c2 : tensor<i64>
      %w = mhlo.multiply %v, %v : tensor<3xf32>
      mhlo.return %n, %w : tensor<i64>, tensor<3xf32>
    }
  return %0#1 : tensor<3xf32>
}

// -----

// A side-effect-free conditional with static results becomes a select.
// CHECK-LABEL: func.func @select
// CHECK-NOT: mhlo.if
// CHECK-DAG: %[[T:.*]] = mhlo.add %arg1, %arg1
// CHECK-DAG: %[[F:.*]] = mhlo.multiply %arg1, %arg1
// CHECK: %[[P:.*]] = "mhlo.broadcast_in_dim"(%arg0)
// CHECK: mhlo.select %[[P]], %[[T]], %[[F]] : tensor<2xi1>, tensor<2xf32>
func.func @select(%k: tensor<i1>, %x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "mhlo.if"(%k) ({
    %a = mhlo.add %x, %x : tensor<2xf32>
    mhlo.return %a : tensor<2xf32>
  }, {
    %b = mhlo.multiply %x, %x : tensor<2xf32>
    mhlo.return %b : tensor<2xf32>
  }) : (tensor<i1>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A dynamically shaped result is a select too where the shape analysis
// proves every branch's result the same shape: the predicate is broadcast to
// the chosen value's shape.
// CHECK-LABEL: func.func @select_dynamic
// CHECK-NOT: mhlo.if
// CHECK-DAG: %[[T:.*]] = mhlo.add %arg1, %arg1
// CHECK-DAG: %[[F:.*]] = mhlo.multiply %arg1, %arg1
// CHECK: %[[SHAPE:.*]] = shape.shape_of %[[F]]
// CHECK: %[[P:.*]] = "mhlo.dynamic_broadcast_in_dim"(%arg0, %[[SHAPE]])
// CHECK: mhlo.select %[[P]], %[[T]], %[[F]] : tensor<?xi1>, tensor<?xf32>
func.func @select_dynamic(%k: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "mhlo.if"(%k) ({
    %a = mhlo.add %x, %x : tensor<?xf32>
    mhlo.return %a : tensor<?xf32>
  }, {
    %b = mhlo.multiply %x, %x : tensor<?xf32>
    mhlo.return %b : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Branches whose results may differ in shape (2N and N elements) cannot be a
// select: the conditional is left as it is, nothing inlined.
// CHECK-LABEL: func.func @two_shapes
// CHECK-NEXT: "mhlo.if"(%arg0)
// CHECK-NOT: mhlo.select
func.func @two_shapes(%k: tensor<i1>, %x: tensor<?xf32>) -> tensor<?xf32> {
  %0 = "mhlo.if"(%k) ({
    %a = "mhlo.concatenate"(%x, %x) {dimension = 0 : i64} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
    mhlo.return %a : tensor<?xf32>
  }, {
    %b = mhlo.multiply %x, %x : tensor<?xf32>
    mhlo.return %b : tensor<?xf32>
  }) : (tensor<i1>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
