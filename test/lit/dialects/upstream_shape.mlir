// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// CHECK-LABEL: func.func @shapes(
// CHECK: %0 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
// CHECK-NEXT: %1 = shape.shape_of %arg1 : memref<?x?xf32> -> tensor<2xindex>
// CHECK-NEXT: %2 = shape.const_shape [1, 2, 3] : tensor<3xindex>
// CHECK-NEXT: %3 = shape.const_shape [] : tensor<0xindex>
// CHECK-NEXT: %4 = shape.const_shape [3, 4, 5] : !shape.shape
// CHECK-NEXT: %5 = shape.to_extent_tensor %4 : !shape.shape -> tensor<3xindex>
// CHECK-NEXT: %6 = shape.broadcast %0, %1 : tensor<2xindex>, tensor<2xindex> -> tensor<?xindex>
// CHECK-NEXT: %7 = shape.broadcast %0, %4 {error = "bad"} : tensor<2xindex>, !shape.shape -> !shape.shape
// CHECK-NEXT: %8 = shape.num_elements %0 : tensor<2xindex> -> index
// CHECK-NEXT: %9 = shape.cstr_broadcastable %0, %1 : tensor<2xindex>, tensor<2xindex>
// CHECK-NEXT: %10 = shape.cstr_eq %0, %1 : tensor<2xindex>, tensor<2xindex>
// CHECK-NEXT: %11 = shape.assuming_all %9, %10
// CHECK-NEXT: %12 = shape.index_to_size %arg2
// CHECK-NEXT: %13 = shape.size_to_index %12 : !shape.size
// CHECK-NEXT: %14 = shape.get_extent %0, %arg2 : tensor<2xindex>, index -> index
// CHECK-NEXT: %15:2 = shape.split_at %6, %arg2 : tensor<?xindex>, index -> tensor<?xindex>, tensor<?xindex>
// CHECK-NEXT: %16 = shape.concat %15#0, %15#1 : tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>
// CHECK-NEXT: %17 = shape.from_extents %arg2, %13 : index, index
// CHECK-NEXT: %18 = shape.any %0, %1 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
// CHECK-NEXT: %c3 = shape.const_size 3
// CHECK-NEXT: %19 = shape.const_witness true
// CHECK-NEXT: %true = arith.constant true
// CHECK-NEXT: %20 = shape.cstr_require %true, "must hold"
// CHECK-NEXT: %21 = shape.rank %0 : tensor<2xindex> -> index
// CHECK-NEXT: %22 = shape.add %c3, %12 : !shape.size, !shape.size -> !shape.size
// CHECK-NEXT: %23 = shape.mul %arg2, %13 : index, index -> index
// CHECK-NEXT: %24 = shape.shape_eq %0, %1 : tensor<2xindex>, tensor<2xindex>
// CHECK-NEXT: %25 = shape.is_broadcastable %0, %1 : tensor<2xindex>, tensor<2xindex>
// CHECK-NEXT: %26 = shape.from_extent_tensor %6 : tensor<?xindex>
// CHECK-NEXT: %27 = shape.with_shape %arg0, %26 : tensor<?x?xf32>, !shape.shape
// CHECK-NEXT: %28 = shape.value_of %27 : tensor<?x?xf32>
// CHECK-NEXT: %29 = shape.assuming %11 -> (tensor<?xf32>) {
// CHECK-NEXT: %{{.*}} = tensor.empty(%arg2) : tensor<?xf32>
// CHECK-NEXT: shape.assuming_yield %{{.*}} : tensor<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: shape.assuming %9 {
// CHECK-NEXT: arith.addi
// CHECK-NEXT: }

// GENERIC: "shape.const_shape"() {shape = dense<[1, 2, 3]> : tensor<3xindex>} : () -> tensor<3xindex>
// GENERIC: "shape.const_size"() {value = 3 : index} : () -> !shape.size
// GENERIC: "shape.assuming"(%{{.*}}) ({
// GENERIC: "shape.assuming_yield"(%{{.*}}) : (tensor<?xf32>) -> ()
// GENERIC: }) : (!shape.witness) -> tensor<?xf32>
func.func @shapes(%arg0: tensor<?x?xf32>, %m: memref<?x?xf32>, %i: index) -> tensor<?xf32> {
  %0 = shape.shape_of %arg0 : tensor<?x?xf32> -> tensor<2xindex>
  %1 = shape.shape_of %m : memref<?x?xf32> -> tensor<2xindex>
  %shape = shape.const_shape [1, 2, 3] : tensor<3xindex>
  %e = shape.const_shape [] : tensor<0xindex>
  %s = shape.const_shape [3, 4, 5] : !shape.shape
  %2 = shape.to_extent_tensor %s: !shape.shape -> tensor<3xindex>
  %3 = shape.broadcast %0, %1 : tensor<2xindex>, tensor<2xindex> -> tensor<?xindex>
  %4 = shape.broadcast %0, %s {error = "bad"} : tensor<2xindex>, !shape.shape -> !shape.shape
  %5 = shape.num_elements %0 : tensor<2xindex> -> index
  %w = shape.cstr_broadcastable %0, %1 : tensor<2xindex>, tensor<2xindex>
  %w2 = shape.cstr_eq %0, %1 : tensor<2xindex>, tensor<2xindex>
  %w3 = shape.assuming_all %w, %w2
  %sz = shape.index_to_size %i
  %ix = shape.size_to_index %sz : !shape.size
  %ext = shape.get_extent %0, %i : tensor<2xindex>, index -> index
  %h, %t = shape.split_at %3, %i : tensor<?xindex>, index -> tensor<?xindex>, tensor<?xindex>
  %c = shape.concat %h, %t : tensor<?xindex>, tensor<?xindex> -> tensor<?xindex>
  %fe = shape.from_extents %i, %ix : index, index
  %any = shape.any %0, %1 : tensor<2xindex>, tensor<2xindex> -> tensor<2xindex>
  %c3 = shape.const_size 3
  %cw = shape.const_witness true
  %pred = arith.constant true
  %cr = shape.cstr_require %pred, "must hold"
  %rk = shape.rank %0 : tensor<2xindex> -> index
  %add = shape.add %c3, %sz : !shape.size, !shape.size -> !shape.size
  %mul = shape.mul %i, %ix : index, index -> index
  %eq = shape.shape_eq %0, %1 : tensor<2xindex>, tensor<2xindex>
  %ib = shape.is_broadcastable %0, %1 : tensor<2xindex>, tensor<2xindex>
  %fet = shape.from_extent_tensor %3 : tensor<?xindex>
  %vs = shape.with_shape %arg0, %fet : tensor<?x?xf32>, !shape.shape
  %vo = shape.value_of %vs : tensor<?x?xf32>
  %r = shape.assuming %w3 -> (tensor<?xf32>) {
    %x = tensor.empty(%i) : tensor<?xf32>
    shape.assuming_yield %x : tensor<?xf32>
  }
  shape.assuming %w {
    %y = arith.addi %i, %i : index
  }
  return %r : tensor<?xf32>
}

