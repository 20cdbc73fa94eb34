// RUN: disc-opt %s -hlo-legalize-to-lhlo | FileCheck %s
// RUN: disc-opt %s -hlo-legalize-to-lhlo -canonicalize | FileCheck %s --check-prefix=CANON

// Static shapes: a plain alloc, the function signature on buffers.
// CHECK-LABEL: func.func @static_add
// CHECK-SAME: (%[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<2x3xf32>) -> memref<2x3xf32>
// CHECK-NEXT: %[[OUT:.*]] = memref.alloc() : memref<2x3xf32>
// CHECK-NEXT: "lmhlo.add"(%[[A]], %[[B]], %[[OUT]]) : (memref<2x3xf32>, memref<2x3xf32>, memref<2x3xf32>) -> ()
// CHECK-NEXT: return %[[OUT]] : memref<2x3xf32>
func.func @static_add(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mhlo.add %a, %b : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Only dynamic sizes are computed; rank 3, mixed static/dynamic.
// CHECK-LABEL: func.func @mixed_rank3
// CHECK-SAME: (%[[A:.*]]: memref<?x4x?xf32>)
// CHECK: %[[D0:.*]] = memref.dim %[[A]], %c0 : memref<?x4x?xf32>
// CHECK: %[[D2:.*]] = memref.dim %[[A]], %c2 : memref<?x4x?xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[D0]], %[[D2]]) : memref<?x4x?xi32>
// CHECK: "lmhlo.convert"(%[[A]], %[[OUT]])
func.func @mixed_rank3(%a: tensor<?x4x?xf32>) -> tensor<?x4x?xi32> {
  %0 = mhlo.convert %a : (tensor<?x4x?xf32>) -> tensor<?x4x?xi32>
  return %0 : tensor<?x4x?xi32>
}

// CHECK-LABEL: func.func @transpose
// CHECK: %[[D0:.*]] = memref.dim %arg0, %c0 : memref<?x3xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[D0]]) : memref<3x?xf32>
// CHECK: "lmhlo.transpose"(%arg0, %[[OUT]]) {permutation = dense<[1, 0]> : tensor<2xi64>}
func.func @transpose(%a: tensor<?x3xf32>) -> tensor<3x?xf32> {
  %0 = "mhlo.transpose"(%a) {permutation = dense<[1, 0]> : tensor<2xi64>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// The target shape's elements are read where they are built; the shape tensor
// itself reaches lmhlo through bufferization.to_memref.
// CHECK-LABEL: func.func @dyn_reshape
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[D0:.*]]: index, %[[D1:.*]]: index)
// CHECK: %[[S:.*]] = tensor.from_elements %[[D0]], %[[D1]] : tensor<2xindex>
// CHECK: %[[SM:.*]] = bufferization.to_memref %[[S]] : memref<2xindex>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[D0]], %[[D1]]) : memref<?x?xf32>
// CHECK: "lmhlo.dynamic_reshape"(%[[A]], %[[SM]], %[[OUT]])
func.func @dyn_reshape(%a: tensor<?xf32>, %d0: index, %d1: index) -> tensor<?x?xf32> {
  %s = tensor.from_elements %d0, %d1 : tensor<2xindex>
  %0 = "mhlo.dynamic_reshape"(%a, %s) : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// An integer shape operand is loaded and cast to index.
// CHECK-LABEL: func.func @dyn_bcast_from_operand
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[S:.*]]: memref<2xi32>)
// CHECK: %[[L0:.*]] = memref.load %[[S]][%c0] : memref<2xi32>
// CHECK: %[[I0:.*]] = arith.index_cast %[[L0]] : i32 to index
// CHECK: %[[L1:.*]] = memref.load %[[S]][%c1] : memref<2xi32>
// CHECK: %[[I1:.*]] = arith.index_cast %[[L1]] : i32 to index
// CHECK: %[[OUT:.*]] = memref.alloc(%[[I0]], %[[I1]]) : memref<?x?xf32>
// CHECK: "lmhlo.dynamic_broadcast_in_dim"(%[[A]], %[[S]], %[[OUT]]) {broadcast_dimensions = dense<1> : tensor<1xi64>}
func.func @dyn_bcast_from_operand(%a: tensor<?xf32>, %s: tensor<2xi32>) -> tensor<?x?xf32> {
  %0 = "mhlo.dynamic_broadcast_in_dim"(%a, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @concat
// CHECK: %[[D0:.*]] = memref.dim %arg0, %c0
// CHECK: %[[D1:.*]] = memref.dim %arg1, %c0
// CHECK: %[[SUM:.*]] = arith.addi %[[D0]], %[[D1]] : index
// CHECK: %[[OUT:.*]] = memref.alloc(%[[SUM]]) : memref<?x2xf32>
// CHECK: "lmhlo.concatenate"(%arg0, %arg1, %[[OUT]]) {dimension = 0 : i64}
func.func @concat(%a: tensor<?x2xf32>, %b: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %0 = "mhlo.concatenate"(%a, %b) {dimension = 0 : i64} : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// Size: ceil((limit - start) / stride) = (limit - start + stride - 1) / stride.
// CHECK-LABEL: func.func @real_dynamic_slice
// CHECK: %[[START:.*]] = memref.load %arg1
// CHECK: %[[LIMIT:.*]] = memref.load %arg2
// CHECK: %[[STRIDE:.*]] = memref.load %arg3
// CHECK: %[[DIFF:.*]] = arith.subi %[[LIMIT]], %[[START]] : index
// CHECK: %[[UP:.*]] = arith.addi %[[DIFF]], %[[STRIDE]] : index
// CHECK: %[[UP1:.*]] = arith.subi %[[UP]], %c1 : index
// CHECK: %[[SIZE:.*]] = arith.divsi %[[UP1]], %[[STRIDE]] : index
// CHECK: %[[OUT:.*]] = memref.alloc(%[[SIZE]]) : memref<?xf32>
// CHECK: "lmhlo.real_dynamic_slice"(%arg0, %arg1, %arg2, %arg3, %[[OUT]])
func.func @real_dynamic_slice(%a: tensor<?xf32>, %start: tensor<1xindex>, %limit: tensor<1xindex>, %stride: tensor<1xindex>) -> tensor<?xf32> {
  %0 = "mhlo.real_dynamic_slice"(%a, %start, %limit, %stride) : (tensor<?xf32>, tensor<1xindex>, tensor<1xindex>, tensor<1xindex>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// The reducer becomes lmhlo on 0-d buffers writing the output argument.
// CHECK-LABEL: func.func @reduce
// CHECK: %[[INIT:.*]] = memref.alloc() : memref<f32>
// CHECK: "lmhlo.constant"(%[[INIT]]) {value = dense<0.000000e+00> : tensor<f32>} : (memref<f32>) -> ()
// CHECK: %[[D1:.*]] = memref.dim %arg0, %c1 : memref<?x?xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[D1]]) : memref<?xf32>
// CHECK: "lmhlo.reduce"(%arg0, %[[INIT]], %[[OUT]]) ({
// CHECK-NEXT: ^bb0(%[[X:.*]]: memref<f32>, %[[Y:.*]]: memref<f32>, %[[Z:.*]]: memref<f32>):
// CHECK-NEXT: "lmhlo.add"(%[[X]], %[[Y]], %[[Z]]) : (memref<f32>, memref<f32>, memref<f32>) -> ()
// CHECK-NEXT: "lmhlo.terminator"() : () -> ()
// CHECK-NEXT: }) {dimensions = dense<0> : tensor<1xi64>}
func.func @reduce(%a: tensor<?x?xf32>) -> tensor<?xf32> {
  %z = mhlo.constant dense<0.000000e+00> : tensor<f32>
  %0 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [0] : (tensor<?x?xf32>, tensor<f32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// Batch dims from lhs, then lhs free dims, then rhs free dims.
// CHECK-LABEL: func.func @dot_general
// CHECK: %[[B:.*]] = memref.dim %arg0, %c0 : memref<?x?x4xf32>
// CHECK: %[[M:.*]] = memref.dim %arg0, %c1 : memref<?x?x4xf32>
// CHECK: %[[N:.*]] = memref.dim %arg1, %c2 : memref<?x4x?xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[B]], %[[M]], %[[N]]) : memref<?x?x?xf32>
// CHECK: "lmhlo.dot_general"(%arg0, %arg1, %[[OUT]])
func.func @dot_general(%a: tensor<?x?x4xf32>, %b: tensor<?x4x?xf32>) -> tensor<?x?x?xf32> {
  %0 = "mhlo.dot_general"(%a, %b) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (tensor<?x?x4xf32>, tensor<?x4x?xf32>) -> tensor<?x?x?xf32>
  return %0 : tensor<?x?x?xf32>
}

// mhlo.dot gets explicit dimension numbers.
// CHECK-LABEL: func.func @dot
// CHECK: "lmhlo.dot"(%arg0, %arg1, %{{.*}}) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<?x8xf32>, memref<8x?xf32>, memref<?x?xf32>) -> ()
func.func @dot(%a: tensor<?x8xf32>, %b: tensor<8x?xf32>) -> tensor<?x?xf32> {
  %0 = "mhlo.dot"(%a, %b) : (tensor<?x8xf32>, tensor<8x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// shape.shape_of reads the buffer; calls and declarations use buffers.
// CHECK-LABEL: func.func @shape_of_and_call
// CHECK: %[[ABS:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: "lmhlo.abs"(%arg0, %[[ABS]])
// CHECK: %[[S:.*]] = shape.shape_of %[[ABS]] : memref<?xf32> -> tensor<1xindex>
// CHECK: %[[R:.*]] = call @callee(%[[ABS]]) : (memref<?xf32>) -> memref<?xf32>
// CHECK: %[[SM:.*]] = bufferization.to_memref %[[S]] : memref<1xindex>
// CHECK: return %[[R]], %[[SM]] : memref<?xf32>, memref<1xindex>
// CHECK: func.func private @callee(memref<?xf32>) -> memref<?xf32>
func.func @shape_of_and_call(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<1xindex>) {
  %0 = mhlo.abs %a : tensor<?xf32>
  %1 = shape.shape_of %0 : tensor<?xf32> -> tensor<1xindex>
  %2 = func.call @callee(%0) : (tensor<?xf32>) -> tensor<?xf32>
  return %2, %1 : tensor<?xf32>, tensor<1xindex>
}

func.func private @callee(tensor<?xf32>) -> tensor<?xf32>

// Ops without an lmhlo form stay on tensors, bridged by bufferization casts.
// CHECK-LABEL: func.func @not_converted
// CHECK: %[[T:.*]] = bufferization.to_tensor %arg0 : memref<i32>
// CHECK: %[[TUP:.*]] = mhlo.tuple %[[T]] : tuple<tensor<i32>>
// CHECK: %[[E:.*]] = mhlo.get_tuple_element %[[TUP]][0]
// CHECK: %[[M:.*]] = bufferization.to_memref %[[E]] : memref<i32>
// CHECK: return %[[M]] : memref<i32>
func.func @not_converted(%a: tensor<i32>) -> tensor<i32> {
  %0 = "mhlo.tuple"(%a) : (tensor<i32>) -> tuple<tensor<i32>>
  %1 = mhlo.get_tuple_element %0[0] : (tuple<tensor<i32>>) -> tensor<i32>
  return %1 : tensor<i32>
}

// Chained dynamic ops: the sizes of a converted result fold to the sizes
// its allocation was given.
// CANON-LABEL: func.func @chain
// CANON: %[[D0:.*]] = memref.dim %arg0, %c0 : memref<?x?xf32>
// CANON: %[[D1:.*]] = memref.dim %arg0, %c1 : memref<?x?xf32>
// CANON: %[[T0:.*]] = memref.alloc(%[[D0]], %[[D1]]) : memref<?x?xf32>
// CANON: "lmhlo.exponential"(%arg0, %[[T0]])
// CANON: %[[T1:.*]] = memref.alloc(%[[D0]], %[[D1]]) : memref<?x?xf32>
// CANON: "lmhlo.negate"(%[[T0]], %[[T1]])
// CANON: return %[[T1]]
func.func @chain(%a: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = mhlo.exponential %a : tensor<?x?xf32>
  %1 = mhlo.negate %0 : tensor<?x?xf32>
  return %1 : tensor<?x?xf32>
}
