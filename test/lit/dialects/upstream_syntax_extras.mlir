// RUN: disc-opt %s -split-input-file | FileCheck %s
// RUN: disc-opt %s -split-input-file | disc-opt -split-input-file | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s -split-input-file | FileCheck %s --check-prefix=GENERIC

// shape.shape_of may give an extent tensor of dynamic length, or !shape.shape.
// CHECK-LABEL: func.func @shape_of_dynamic(
// CHECK: %0 = shape.shape_of %arg0 : tensor<?x4x?xf32> -> tensor<?xindex>
// CHECK-NEXT: %1 = shape.shape_of %arg0 : tensor<?x4x?xf32> -> !shape.shape
func.func @shape_of_dynamic(%x: tensor<?x4x?xf32>) -> (tensor<?xindex>, !shape.shape) {
  %0 = shape.shape_of %x : tensor<?x4x?xf32> -> tensor<?xindex>
  %1 = shape.shape_of %x : tensor<?x4x?xf32> -> !shape.shape
  return %0, %1 : tensor<?xindex>, !shape.shape
}

// -----

// A single scf.if / scf.for result type may be written without parentheses;
// MLIR prints it with them.
// CHECK-LABEL: func.func @scf_single_type(
// CHECK: %0 = scf.if %arg0 -> (memref<2xf32>) {
// CHECK: %1 = scf.for %arg3 = %c0 to %arg2 step %c1 iter_args(%arg4 = %0) -> (memref<2xf32>) {
// CHECK: %2:2 = scf.for %arg3 = %c0 to %arg2 step %c1 iter_args(%arg4 = %0, %arg5 = %1) -> (memref<2xf32>, memref<2xf32>) {
func.func @scf_single_type(%c: i1, %m: memref<2xf32>, %n: index) -> memref<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %0 = scf.if %c -> memref<2xf32> {
    scf.yield %m : memref<2xf32>
  } else {
    scf.yield %m : memref<2xf32>
  }
  %1 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %0) -> memref<2xf32> {
    scf.yield %a : memref<2xf32>
  }
  %2:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %0, %b = %1) -> (memref<2xf32>, memref<2xf32>) {
    scf.yield %a, %b : memref<2xf32>, memref<2xf32>
  }
  return %2#1 : memref<2xf32>
}

// -----

// memref.rank has MLIR's custom form, for ranked and unranked memrefs.
// CHECK-LABEL: func.func @rank(
// CHECK: %0 = memref.rank %arg0 : memref<?x?xf32>
// CHECK-NEXT: %1 = memref.rank %arg1 : memref<*xf32>
// GENERIC: "memref.rank"(%arg0) : (memref<?x?xf32>) -> index
func.func @rank(%m: memref<?x?xf32>, %u: memref<*xf32>) -> (index, index) {
  %0 = memref.rank %m : memref<?x?xf32>
  %1 = "memref.rank"(%u) : (memref<*xf32>) -> index
  return %0, %1 : index, index
}

// -----

// Affine maps get aliases (#map, #map1, ... in the order the printer meets
// them), in the custom and the generic form; block labels get MLIR's
// predecessor comments.
// CHECK: #map = affine_map<(d0) -> (d0 + 2)>
// CHECK-NEXT: #map1 = affine_map<(d0) -> (d0 + 1)>
// CHECK-NEXT: #map2 = affine_map<(d0) -> (d0 * 2)>
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @aliases(%arg0: index, %arg1: memref<4xf32, #map>) -> index {
// CHECK-NEXT: %0 = affine.apply #map1(%arg0)
// CHECK-NEXT: %1 = affine.apply #map2(%0)
// CHECK-NEXT: %2 = affine.apply #map1(%1)
// CHECK: func.func @preds(
// CHECK-NEXT: cf.cond_br %arg0, ^bb1, ^bb2(%arg1 : i32)
// CHECK-NEXT: ^bb1:  // pred: ^bb0
// CHECK-NEXT: cf.br ^bb2(%arg1 : i32)
// CHECK-NEXT: ^bb2(%0: i32):  // 3 preds: ^bb0, ^bb1, ^bb3
// CHECK-NEXT: return %0 : i32
// CHECK-NEXT: ^bb3:  // no predecessors
// GENERIC: #map = affine_map<(d0) -> (d0 + 2)>
// GENERIC-NEXT: #map1 = affine_map<(d0) -> (d0 + 1)>
// GENERIC-NEXT: #map2 = affine_map<(d0) -> (d0 * 2)>
// GENERIC-NEXT: "builtin.module"() ({
#map = affine_map<(d0) -> (d0 + 1)>
func.func @aliases(%a: index, %m: memref<4xf32, affine_map<(d0) -> (d0 + 2)>>) -> index {
  %0 = affine.apply #map(%a)
  %1 = affine.apply affine_map<(d0) -> (d0 * 2)>(%0)
  %2 = affine.apply #map(%1)
  return %2 : index
}
func.func @preds(%c: i1, %x: i32) -> i32 {
  cf.cond_br %c, ^bb1, ^bb2(%x : i32)
^bb1:
  cf.br ^bb2(%x : i32)
^bb2(%y: i32):
  return %y : i32
^bb3:
  cf.br ^bb2(%x : i32)
}

// -----

// Typed LLVM pointers, the syntax of the MLIR BladeDISC is built on: a
// pointee of the llvm dialect is written without its `!llvm.` prefix; the
// forms without a pointee are the opaque pointer.
// CHECK-LABEL: func.func @typed_pointers(
// CHECK: %0 = llvm.inttoptr %arg0 : i32 to !llvm.ptr<i8>
// CHECK-NEXT: %1 = llvm.inttoptr %arg0 : i32 to !llvm.ptr<f32, 3>
// CHECK-NEXT: %2 = llvm.inttoptr %arg0 : i32 to !llvm.ptr<ptr<i8>>
// CHECK-NEXT: %3 = llvm.inttoptr %arg0 : i32 to !llvm.ptr<array<32 x i8>>
// CHECK-NEXT: %4 = llvm.inttoptr %arg0 : i32 to !llvm.ptr
// CHECK-NEXT: %5 = llvm.inttoptr %arg0 : i32 to !llvm.ptr<1>
// GENERIC-LABEL: sym_name = "typed_pointers"
// GENERIC: "llvm.inttoptr"(%arg0) : (i32) -> !llvm.ptr<i8>
func.func @typed_pointers(%i: i32) {
  %0 = llvm.inttoptr %i : i32 to !llvm.ptr<i8>
  %1 = llvm.inttoptr %i : i32 to !llvm.ptr<f32, 3>
  %2 = llvm.inttoptr %i : i32 to !llvm.ptr<ptr<i8>>
  %3 = llvm.inttoptr %i : i32 to !llvm.ptr<array<32 x i8>>
  %4 = llvm.inttoptr %i : i32 to !llvm.ptr
  %5 = llvm.inttoptr %i : i32 to !llvm.ptr<1>
  return
}
