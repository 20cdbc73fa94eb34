// RUN: disc-opt %s -disc-hlo-legalize-to-lhlo | FileCheck %s
// RUN: disc-opt %s -disc-hlo-legalize-to-lhlo -hlo-legalize-to-lhlo -canonicalize | FileCheck %s --check-prefix=BOTH

// Only BladeDISC's ops are converted; operands are read through to_memref,
// results given back through to_tensor (signatures are left to
// hlo-legalize-to-lhlo).
// CHECK-LABEL: func.func @h2d_rank3
// CHECK-SAME: (%[[A:.*]]: tensor<?x3x?xf32>) -> tensor<?x3x?xf32>
// CHECK: %[[M:.*]] = bufferization.to_memref %[[A]] : memref<?x3x?xf32>
// CHECK: %[[D0:.*]] = memref.dim %[[M]], %c0 : memref<?x3x?xf32>
// CHECK: %[[D2:.*]] = memref.dim %[[M]], %c2 : memref<?x3x?xf32>
// CHECK: %[[OUT:.*]] = memref.alloc(%[[D0]], %[[D2]]) : memref<?x3x?xf32>
// CHECK: "lmhlo_disc.h2d"(%[[M]], %[[OUT]]) : (memref<?x3x?xf32>, memref<?x3x?xf32>) -> ()
// CHECK: %[[T:.*]] = bufferization.to_tensor %[[OUT]] : memref<?x3x?xf32>
// CHECK: return %[[T]] : tensor<?x3x?xf32>
// BOTH-LABEL: func.func @h2d_rank3
// BOTH-SAME: (%[[A:.*]]: memref<?x3x?xf32>) -> memref<?x3x?xf32>
// BOTH: "lmhlo_disc.h2d"(%[[A]], %[[OUT:.*]]) :
// BOTH: return %[[OUT]] : memref<?x3x?xf32>
func.func @h2d_rank3(%a: tensor<?x3x?xf32>) -> tensor<?x3x?xf32> {
  %0 = "mhlo_disc.h2d"(%a) : (tensor<?x3x?xf32>) -> tensor<?x3x?xf32>
  return %0 : tensor<?x3x?xf32>
}

// CHECK-LABEL: func.func @leaves_mhlo
// CHECK: %[[ABS:.*]] = mhlo.abs %arg0 : tensor<?xf32>
// CHECK: %[[M:.*]] = bufferization.to_memref %[[ABS]] : memref<?xf32>
// CHECK: "lmhlo_disc.d2h"(%[[M]], %{{.*}})
// BOTH-LABEL: func.func @leaves_mhlo
// BOTH: %[[D:.*]] = memref.dim %arg0, %c0 : memref<?xf32>
// BOTH: %[[T0:.*]] = memref.alloc(%[[D]]) : memref<?xf32>
// BOTH: "lmhlo.abs"(%arg0, %[[T0]])
// BOTH: %[[T1:.*]] = memref.alloc(%[[D]]) : memref<?xf32>
// BOTH: "lmhlo_disc.d2h"(%[[T0]], %[[T1]])
// BOTH: return %[[T1]]
func.func @leaves_mhlo(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = mhlo.abs %a : tensor<?xf32>
  %1 = "mhlo_disc.d2h"(%0) : (tensor<?xf32>) -> tensor<?xf32>
  return %1 : tensor<?xf32>
}

// topk: the sorted dimension (here -1, the last) gets size k (the whole
// dimension when k is -1); outputs are allocated and passed after the inputs.
// CHECK-LABEL: func.func @topk
// CHECK: %[[K:.*]] = bufferization.to_memref %arg0 : memref<?x?xf32>
// CHECK: %[[V:.*]] = bufferization.to_memref %arg1 : memref<?x?xi32>
// CHECK: %[[N:.*]] = bufferization.to_memref %arg2 : memref<i32>
// CHECK: %[[NL:.*]] = memref.load %[[N]][] : memref<i32>
// CHECK: %[[NI:.*]] = arith.index_cast %[[NL]] : i32 to index
// CHECK: %[[D0:.*]] = memref.dim %[[K]], %c0
// CHECK: %[[D1:.*]] = memref.dim %[[K]], %c1
// CHECK: %[[ALL:.*]] = arith.cmpi eq, %[[NI]], %c-1 : index
// CHECK: %[[SIZE:.*]] = arith.select %[[ALL]], %[[D1]], %[[NI]] : index
// CHECK: %[[O0:.*]] = memref.alloc(%[[D0]], %[[SIZE]]) : memref<?x?xf32>
// CHECK: %[[O1:.*]] = memref.alloc(%[[D0]], %[[SIZE]]) : memref<?x?xi32>
// CHECK: "lmhlo_disc.custom_call"(%[[K]], %[[V]], %[[N]], %[[O0]], %[[O1]]) {backend_config = "{\22dimension\22: -1}", call_target_name = "topk", operand_segment_sizes = array<i32: 3, 2>}

func.func @topk(%k: tensor<?x?xf32>, %v: tensor<?x?xi32>, %n: tensor<i32>) -> (tensor<?x?xf32>, tensor<?x?xi32>) {
  %0, %1 = "mhlo_disc.custom_call"(%k, %v, %n) {backend_config = "{\"dimension\": -1}", call_target_name = "topk"} : (tensor<?x?xf32>, tensor<?x?xi32>, tensor<i32>) -> (tensor<?x?xf32>, tensor<?x?xi32>)
  return %0, %1 : tensor<?x?xf32>, tensor<?x?xi32>
}

// mhlo.custom_call: BladeDISC's custom_call_v2 defaults, the callee allocates.
// CHECK-LABEL: func.func @mhlo_custom_call_single
// CHECK: %[[R:.*]] = "lmhlo_disc.custom_call_v2"(%{{.*}}) {call_target_name = "foo", custom_attrs = {}, device = "x", expected_input_layouts = "*", expected_output_layouts = "*", has_side_effect = false, input_layouts = "*", input_placements = "d", output_layouts = "*", output_placements = "d"} : (memref<4xf32>) -> memref<8xf32>
// CHECK: bufferization.to_tensor %[[R]] : memref<8xf32>

func.func @mhlo_custom_call_single(%a: tensor<4xf32>) -> tensor<8xf32> {
  %0 = "mhlo.custom_call"(%a) {call_target_name = "foo"} : (tensor<4xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// CHECK-LABEL: func.func @args_mutation
// CHECK: %[[A:.*]] = bufferization.to_memref %arg0 : memref<4xf32>
// CHECK: %[[B:.*]] = bufferization.to_memref %arg1 : memref<4xf32>
// CHECK: "lmhlo_disc.args_mutation"(%[[A]], %[[B]]) : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK: return %arg1 : tensor<4xf32>

func.func @args_mutation(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  "mhlo_disc.args_mutation"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> ()
  return %b : tensor<4xf32>
}

// where: the index output is sized by the number of input elements.
// CHECK-LABEL: func.func @where
// CHECK: %[[D0:.*]] = memref.dim %{{.*}}, %c0 : memref<?x?xi1>
// CHECK: %[[D1:.*]] = memref.dim %{{.*}}, %c1 : memref<?x?xi1>
// CHECK: %[[NUM:.*]] = arith.muli %[[D0]], %[[D1]] : index
// CHECK: %[[IDX:.*]] = memref.alloc(%[[NUM]]) : memref<?x2xi64>
// CHECK: %[[CNT:.*]] = memref.alloc() : memref<1xi64>
// CHECK: "lmhlo_disc.where"(%{{.*}}, %[[IDX]], %[[CNT]])

func.func @where(%a: tensor<?x?xi1>) -> (tensor<?x2xi64>, tensor<1xi64>) {
  %0, %1 = "mhlo_disc.where"(%a) : (tensor<?x?xi1>) -> (tensor<?x2xi64>, tensor<1xi64>)
  return %0, %1 : tensor<?x2xi64>, tensor<1xi64>
}

// tie_shape: a reinterpret_cast to the given sizes with row-major strides.
// CHECK-LABEL: func.func @tie_shape
// CHECK-SAME: %[[D0:[a-z0-9]+]]: index, %[[D2:[a-z0-9]+]]: index
// CHECK: %[[BUF:.*]] = memref.alloc
// CHECK: "lmhlo_disc.h2d"
// CHECK: %[[S0:.*]] = arith.muli %[[D2]], %c4 : index
// CHECK: %[[CAST:.*]] = memref.reinterpret_cast %[[BUF]] to offset: [0], sizes: [%[[D0]], 4, %[[D2]]], strides: [%[[S0]], %[[D2]], 1] : memref<?x4x?xf32> to memref<?x4x?xf32>
// CHECK: bufferization.to_tensor %[[CAST]]

func.func @tie_shape(%a: tensor<?x4x?xf32>, %d0: index, %d2: index) -> tensor<?x4x?xf32> {
  %0 = "mhlo_disc.h2d"(%a) : (tensor<?x4x?xf32>) -> tensor<?x4x?xf32>
  %c4 = arith.constant 4 : index
  %1 = "disc_shape.tie_shape"(%0, %d0, %c4, %d2) : (tensor<?x4x?xf32>, index, index, index) -> tensor<?x4x?xf32>
  return %1 : tensor<?x4x?xf32>
}

// Tuple results of mhlo.custom_call are flattened; get_tuple_element users
// take the matching result.
// BOTH-LABEL: func.func @mhlo_custom_call_tuple
// BOTH: %[[R:.*]]:2 = "lmhlo_disc.custom_call_v2"(%arg0) {call_target_name = "bar", custom_attrs = {}, device = "x", expected_input_layouts = "*", expected_output_layouts = "*,*", has_side_effect = false, input_layouts = "*", input_placements = "d", output_layouts = "*,*", output_placements = "d,d"} : (memref<?xf32>) -> (memref<?xf32>, memref<2xi32>)
// BOTH: return %[[R]]#1, %[[R]]#0 : memref<2xi32>, memref<?xf32>
func.func @mhlo_custom_call_tuple(%a: tensor<?xf32>) -> (tensor<2xi32>, tensor<?xf32>) {
  %0 = "mhlo.custom_call"(%a) {call_target_name = "bar"} : (tensor<?xf32>) -> tuple<tensor<?xf32>, tensor<2xi32>>
  %1 = mhlo.get_tuple_element %0[1] : (tuple<tensor<?xf32>, tensor<2xi32>>) -> tensor<2xi32>
  %2 = mhlo.get_tuple_element %0[0] : (tuple<tensor<?xf32>, tensor<2xi32>>) -> tensor<?xf32>
  return %1, %2 : tensor<2xi32>, tensor<?xf32>
}
