// RUN: disc-opt -split-input-file %s -disc-remove-shape-constraint | FileCheck %s

// Constraints are assumed to hold: the assuming region is inlined.
// CHECK-LABEL: func.func @assuming
// CHECK-NOT: shape.cstr
// CHECK-NOT: shape.assuming
// CHECK: %[[S:.*]] = mhlo.add %arg0, %arg1 : tensor<?xf32>
// CHECK-NEXT: return %[[S]] : tensor<?xf32>
func.func @assuming(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = shape.shape_of %a : tensor<?xf32> -> tensor<1xindex>
  %1 = shape.shape_of %b : tensor<?xf32> -> tensor<1xindex>
  %w = shape.cstr_broadcastable %0, %1 : tensor<1xindex>, tensor<1xindex>
  %w2 = shape.cstr_eq %0, %1 : tensor<1xindex>, tensor<1xindex>
  %all = shape.assuming_all %w, %w2
  %r = shape.assuming %all -> (tensor<?xf32>) {
    %s = mhlo.add %a, %b : tensor<?xf32>
    shape.assuming_yield %s : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}

// -----

// mhlo.cstr_reshapable too.
// CHECK-LABEL: func.func @reshapable
// CHECK-NOT: cstr_reshapable
// CHECK: mhlo.dynamic_reshape
func.func @reshapable(%a: tensor<?xf32>, %s: tensor<2xindex>) -> tensor<?x?xf32> {
  %c = arith.constant 6 : index
  %w = mhlo.cstr_reshapable %c, %s : (index, tensor<2xindex>) -> !shape.witness
  %r = shape.assuming %w -> (tensor<?x?xf32>) {
    %x = mhlo.dynamic_reshape %a, %s : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
    shape.assuming_yield %x : tensor<?x?xf32>
  }
  return %r : tensor<?x?xf32>
}

// -----

// IR without constraints is unchanged; a failing witness keeps its region.
// CHECK-LABEL: func.func @untouched
// CHECK: shape.const_witness false
// CHECK: shape.assuming
func.func @untouched(%a: tensor<?xf32>) -> tensor<?xf32> {
  %w = shape.const_witness false
  %r = shape.assuming %w -> (tensor<?xf32>) {
    shape.assuming_yield %a : tensor<?xf32>
  }
  return %r : tensor<?xf32>
}
