// RUN: disc-opt %s -split-input-file -disc-mhlo-mark-shape-calc | FileCheck %s

// The producers of shape operands are marked, transitively through mhlo and
// tensor ops; the data path is not.
// CHECK-LABEL: func.func @main
// CHECK:         %[[C:.*]] = mhlo.constant {disc.shape_op = true} dense<[2, 4]> : tensor<2xi32>
// CHECK:         %[[SUM:.*]] = mhlo.add %[[C]], %[[C]] {disc.shape_op = true} : tensor<2xi32>
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %[[D:.*]] = tensor.dim %arg0, %c0 : tensor<?x8xf32>{{$}}
// CHECK-NEXT:    %[[E:.*]] = tensor.extract %[[SUM]][%{{.*}}] {disc.shape_op = true} : tensor<2xi32>
// CHECK:         arith.index_cast %[[E]] : i32 to index
// CHECK:         tensor.from_elements %{{.*}}, %[[D]] {disc.shape_op = true} : tensor<2xindex>
// CHECK:         %[[R:.*]] = mhlo.dynamic_reshape %arg0, %{{.*}} : (tensor<?x8xf32>, tensor<2xindex>) -> tensor<?x?xf32>
// CHECK-NEXT:    %[[T:.*]] = mhlo.tanh %[[R]] : tensor<?x?xf32>
// CHECK-NEXT:    return %[[T]]
func.func @main(%arg0: tensor<?x8xf32>) -> tensor<?x?xf32> attributes {tf.entry_function = {input_placements = "cpu", output_placements = "cpu"}} {
  %c = mhlo.constant dense<[2, 4]> : tensor<2xi32>
  %sum = mhlo.add %c, %c : tensor<2xi32>
  %c0 = arith.constant 0 : index
  %d = tensor.dim %arg0, %c0 : tensor<?x8xf32>
  %e = tensor.extract %sum[%c0] : tensor<2xi32>
  %i = arith.index_cast %e : i32 to index
  %shape = tensor.from_elements %i, %d : tensor<2xindex>
  %r = "mhlo.dynamic_reshape"(%arg0, %shape) : (tensor<?x8xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %t = mhlo.tanh %r : tensor<?x?xf32>
  return %t : tensor<?x?xf32>
}

// -----

// Only @main is analysed; a large static constant (> 64 elements) feeding a
// shape computation stays a data computation; a tuple result is marked
// element-wise.
// CHECK-LABEL: func.func @helper
// CHECK-NOT:     disc.shape_op
// CHECK-LABEL: func.func @main
// CHECK:         mhlo.constant dense<1> : tensor<100xi32>
// CHECK:         mhlo.slice
// CHECK-SAME:    disc.shape_op = true
// CHECK:         mhlo.tuple %{{.*}} {disc.shape_op = [true]} : tuple<tensor<2xi32>>
// CHECK:         mhlo.get_tuple_element %{{.*}}[0] {disc.shape_op = true}
// CHECK:         mhlo.dynamic_iota
// CHECK-NOT:     disc.shape_op
// CHECK:         return
func.func @helper(%arg0: tensor<2xi32>) -> tensor<?x?xf32> {
  %0 = "mhlo.dynamic_iota"(%arg0) {iota_dimension = 0 : i64} : (tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @main(%arg0: tensor<100xi32>) -> tensor<?x?xf32> {
  %big = mhlo.constant dense<1> : tensor<100xi32>
  %s = "mhlo.slice"(%big) {start_indices = dense<0> : tensor<1xi64>, limit_indices = dense<2> : tensor<1xi64>, strides = dense<1> : tensor<1xi64>} : (tensor<100xi32>) -> tensor<2xi32>
  %tup = "mhlo.tuple"(%s) : (tensor<2xi32>) -> tuple<tensor<2xi32>>
  %g = "mhlo.get_tuple_element"(%tup) {index = 0 : i32} : (tuple<tensor<2xi32>>) -> tensor<2xi32>
  %0 = "mhlo.dynamic_iota"(%g) {iota_dimension = 0 : i64} : (tensor<2xi32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// The element count of mhlo_disc.where is not a shape computation: what reads
// it directly is left unmarked.
// CHECK-LABEL: func.func @main
// CHECK:         %index, %num_output_elements = "mhlo_disc.where"
// CHECK:         tensor.extract %num_output_elements[%{{.*}}] : tensor<1xi64>
// CHECK:         tensor.from_elements {{.*}} {disc.shape_op = true}
func.func @main(%arg0: tensor<?x3xi1>, %arg1: tensor<?x3xi64>) -> tensor<?x3xi64> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant dense<0> : tensor<2xindex>
  %one = arith.constant dense<1> : tensor<2xindex>
  %index, %num = "mhlo_disc.where"(%arg0) : (tensor<?x3xi1>) -> (tensor<?x3xi64>, tensor<1xi64>)
  %n = tensor.extract %num[%c0] : tensor<1xi64>
  %ni = arith.index_cast %n : i64 to index
  %limit = tensor.from_elements %ni, %c3 : tensor<2xindex>
  %r = mhlo.real_dynamic_slice %index, %zero, %limit, %one : (tensor<?x3xi64>, tensor<2xindex>, tensor<2xindex>, tensor<2xindex>) -> tensor<?x3xi64>
  return %r : tensor<?x3xi64>
}

