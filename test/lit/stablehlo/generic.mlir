// RUN: disc-opt %s | FileCheck %s

// The generic form (properties `<{...}>`) JAX's `get_asm(print_generic_op_form=True)` prints.

// CHECK-LABEL: module @jit_g
// CHECK: func.func public @main(%arg0: tensor<4x8xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<4x6xf32>, %arg3: tensor<3x1xi32>) -> (tensor<4x16xf32> {jax.result_info = "result"})
// CHECK-NEXT: %[[D:.*]] = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
// CHECK-NEXT: %[[G:.*]] = "stablehlo.gather"(%arg2, %arg3) {dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>} : (tensor<4x6xf32>, tensor<3x1xi32>) -> tensor<4x3xf32>
// CHECK-NEXT: %[[E:.*]] = chlo.erfc %[[D]] : tensor<4x16xf32> -> tensor<4x16xf32>
// CHECK-NEXT: %[[C:.*]] = stablehlo.compare LT, %[[E]], %[[D]], FLOAT : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xi1>
// CHECK-NEXT: %[[S:.*]] = stablehlo.select %[[C]], %[[E]], %[[D]] : tensor<4x16xi1>, tensor<4x16xf32>
// CHECK-NEXT: return %[[S]] : tensor<4x16xf32>
"builtin.module"() <{sym_name = "jit_g"}> ({
  "func.func"() <{arg_attrs = [{}, {}, {}, {}], function_type = (tensor<4x8xf32>, tensor<8x16xf32>, tensor<4x6xf32>, tensor<3x1xi32>) -> tensor<4x16xf32>, res_attrs = [{jax.result_info = "result"}], sym_name = "main", sym_visibility = "public"}> ({
  ^bb0(%arg0: tensor<4x8xf32>, %arg1: tensor<8x16xf32>, %arg2: tensor<4x6xf32>, %arg3: tensor<3x1xi32>):
    %0 = "stablehlo.dot_general"(%arg0, %arg1) <{dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]}> : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
    %1 = "stablehlo.gather"(%arg2, %arg3) <{dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], start_index_map = [1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 4, 1>}> : (tensor<4x6xf32>, tensor<3x1xi32>) -> tensor<4x3xf32>
    %2 = "chlo.erfc"(%0) : (tensor<4x16xf32>) -> tensor<4x16xf32>
    %3 = "stablehlo.compare"(%2, %0) <{compare_type = #stablehlo<comparison_type FLOAT>, comparison_direction = #stablehlo<comparison_direction LT>}> : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xi1>
    %4 = "stablehlo.select"(%3, %2, %0) : (tensor<4x16xi1>, tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
    "func.return"(%4) : (tensor<4x16xf32>) -> ()
  }) : () -> ()
}) {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} : () -> ()
