// RUN: disc-opt -split-input-file %s | FileCheck %s
// RUN: disc-opt -split-input-file %s | disc-opt -split-input-file | FileCheck %s

// StableHLO's pretty forms as JAX prints them, with deferred location aliases.

// CHECK-LABEL: module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32}
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  // CHECK: func.func public @main(%arg0: tensor<?x8xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<16xf32>) -> (tensor<?x16xf32> {jax.result_info = "result"})
  func.func public @main(%arg0: tensor<?x8xf32> loc("x"), %arg1: tensor<8x16xf32> loc("w"), %arg2: tensor<16xf32> loc("b")) -> (tensor<?x16xf32> {jax.result_info = "result"}) {
    // CHECK-NEXT: %[[C:.*]] = stablehlo.constant dense<16> : tensor<1xi32>
    %c = stablehlo.constant dense<16> : tensor<1xi32> loc(#loc3)
    // CHECK-NEXT: %[[D:.*]] = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x8xf32>) -> tensor<i32>
    %0 = stablehlo.get_dimension_size %arg0, dim = 0 : (tensor<?x8xf32>) -> tensor<i32> loc(#loc4)
    // CHECK-NEXT: %[[P:.*]] = stablehlo.compare GE, %[[D]], %[[D]], SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %p = stablehlo.compare GE, %0, %0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1> loc(#loc4)
    // CHECK-NEXT: stablehlo.custom_call @shape_assertion(%[[P]], %[[D]]) {api_version = 2 : i32, error_message = "b = {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> ()
    stablehlo.custom_call @shape_assertion(%p, %0) {api_version = 2 : i32, error_message = "b = {0}", has_side_effect = true} : (tensor<i1>, tensor<i32>) -> () loc(#loc4)
    // CHECK-NEXT: %[[DOT:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32>
    %1 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<?x8xf32>, tensor<8x16xf32>) -> tensor<?x16xf32> loc(#loc5)
    // CHECK-NEXT: %[[B1:.*]] = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %2 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    // CHECK-NEXT: %[[R:.*]] = stablehlo.reshape %[[D]] : (tensor<i32>) -> tensor<1xi32>
    %3 = stablehlo.reshape %0 : (tensor<i32>) -> tensor<1xi32>
    // CHECK-NEXT: %[[S:.*]] = stablehlo.concatenate %[[R]], %[[C]], dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %4 = stablehlo.concatenate %3, %c, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    // CHECK-NEXT: %[[B2:.*]] = stablehlo.dynamic_broadcast_in_dim %[[B1]], %[[S]], dims = [0, 1] : (tensor<1x16xf32>, tensor<2xi32>) -> tensor<?x16xf32>
    %5 = stablehlo.dynamic_broadcast_in_dim %2, %4, dims = [0, 1] : (tensor<1x16xf32>, tensor<2xi32>) -> tensor<?x16xf32>
    // CHECK-NEXT: %[[ADD:.*]] = stablehlo.add %[[DOT]], %[[B2]] : tensor<?x16xf32>
    %6 = stablehlo.add %1, %5 : tensor<?x16xf32>
    // CHECK-NEXT: %[[ERF:.*]] = chlo.erf %[[ADD]] : tensor<?x16xf32> -> tensor<?x16xf32>
    %7 = chlo.erf %6 : tensor<?x16xf32> -> tensor<?x16xf32>
    // CHECK-NEXT: return %[[ERF]] : tensor<?x16xf32>
    return %7 : tensor<?x16xf32> loc(#loc)
  } loc(#loc)
} loc(#loc)
#loc = loc(unknown)
#loc1 = loc("/tmp/f.py":4:20 to :26)
#loc2 = loc("f"(#loc1))
#loc3 = loc("jit(f)/add"(#loc2))
#loc4 = loc("shape_assertion")
#loc5 = loc(callsite(#loc3 at #loc2))

// -----

// CHECK-LABEL: func.func @shapes
func.func @shapes(%x: tensor<4x6xf32>, %i: tensor<i32>, %s: tensor<1xi32>, %v: tensor<f32>) -> tensor<6x4xf32> {
  // CHECK: stablehlo.slice %{{.*}} [0:4, 1:6:2] : (tensor<4x6xf32>) -> tensor<4x3xf32>
  %0 = stablehlo.slice %x [0:4, 1:6:2] : (tensor<4x6xf32>) -> tensor<4x3xf32>
  // CHECK: stablehlo.dynamic_slice %{{.*}}, %{{.*}}, %{{.*}}, sizes = [2, 6] : (tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x6xf32>
  %1 = stablehlo.dynamic_slice %x, %i, %i, sizes = [2, 6] : (tensor<4x6xf32>, tensor<i32>, tensor<i32>) -> tensor<2x6xf32>
  // CHECK: stablehlo.pad %{{.*}}, %{{.*}}, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<5x7xf32>
  %2 = stablehlo.pad %x, %v, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<5x7xf32>
  // CHECK: stablehlo.iota dim = 0 : tensor<6xf32>
  %3 = stablehlo.iota dim = 0 : tensor<6xf32>
  // CHECK: stablehlo.dynamic_iota %{{.*}}, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
  %4 = stablehlo.dynamic_iota %s, dim = 0 : (tensor<1xi32>) -> tensor<?xi32>
  // CHECK: stablehlo.reduce(%{{.*}} init: %{{.*}}) applies stablehlo.maximum across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  %5 = stablehlo.reduce(%x init: %v) applies stablehlo.maximum across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
  // CHECK: stablehlo.transpose %{{.*}}, dims = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
  %6 = stablehlo.transpose %x, dims = [1, 0] : (tensor<4x6xf32>) -> tensor<6x4xf32>
  // CHECK: stablehlo.clamp %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<6x4xf32>, tensor<f32>) -> tensor<6x4xf32>
  %7 = stablehlo.clamp %v, %6, %v : (tensor<f32>, tensor<6x4xf32>, tensor<f32>) -> tensor<6x4xf32>
  return %7 : tensor<6x4xf32>
}

// -----

// The region form of reduce (argmax), composite and its decomposition.
// CHECK-LABEL: func.func @argmax
func.func @argmax(%arg0: tensor<4x6xf32>) -> tensor<4xi32> {
  %0 = stablehlo.iota dim = 1 : tensor<4x6xi32>
  %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %c = stablehlo.constant dense<0> : tensor<i32>
  // CHECK: stablehlo.reduce(%{{.*}} init: %{{.*}}), (%{{.*}} init: %{{.*}}) across dimensions = [1] : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
  // CHECK-NEXT: reducer(%[[A:.*]]: tensor<f32>, %[[B:.*]]: tensor<f32>) (%[[C:.*]]: tensor<i32>, %[[D:.*]]: tensor<i32>)  {
  // CHECK-NEXT: stablehlo.compare GT, %[[A]], %[[B]], FLOAT
  // CHECK: stablehlo.return %{{.*}}, %{{.*}} : tensor<f32>, tensor<i32>
  %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<4x6xf32>, tensor<4x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<4xf32>, tensor<4xi32>)
   reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
    %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %9 = stablehlo.select %2, %arg1, %arg3 : tensor<i1>, tensor<f32>
    %10 = stablehlo.select %2, %arg2, %arg4 : tensor<i1>, tensor<i32>
    stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
  }
  return %1#1 : tensor<4xi32>
}
// CHECK-LABEL: func.func @composite
func.func @composite(%x: tensor<4xf32>) -> tensor<4xf32> {
  // CHECK: stablehlo.composite "my.tanh" %{{.*}} {decomposition = @my.tanh, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  %0 = stablehlo.composite "my.tanh" %x {decomposition = @my.tanh, version = 1 : i32} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @my.tanh(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.tanh %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// `reverse` has SameOperandsAndResultType: StableHLO prints one type; the
// functional form parses too and prints the short one.
// CHECK-LABEL: func.func @reverse_same_type
// CHECK:         %[[R:.*]] = stablehlo.reverse %arg0, dims = [1] : tensor<4x10xf32>
// CHECK-NEXT:    stablehlo.reverse %[[R]], dims = [0, 1] : tensor<4x10xf32>
func.func @reverse_same_type(%a: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = stablehlo.reverse %a, dims = [1] : tensor<4x10xf32>
  %1 = stablehlo.reverse %0, dims = [0, 1] : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %1 : tensor<4x10xf32>
}
