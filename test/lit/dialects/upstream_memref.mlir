// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// Affine maps printed as attributes get aliases, as mlir-opt prints them.
// CHECK: #map = affine_map<(d0)[s0] -> (d0 + s0)>

// CHECK-LABEL: func.func @memref_ops(
// CHECK: %dim = memref.dim %arg0, %c0 : memref<?x?xf32>
// CHECK-NEXT: %dim_0 = memref.dim %arg0, %c1 : memref<?x?xf32>
// CHECK-NEXT: %alloc = memref.alloc(%dim, %arg2) : memref<?x?xf32>
// CHECK-NEXT: %alloc_1 = memref.alloc() {alignment = 128 : i64} : memref<2xindex>
// CHECK-NEXT: %alloc_2 = memref.alloc(%dim)[%arg2] : memref<?xf32, #map>
// CHECK-NEXT: %alloc_3 = memref.alloc(%dim) {kDiscSymbolicDimAttr = [@S2, @C71]} : memref<?x71xf32>
// CHECK-NEXT: %alloca = memref.alloca() : memref<4xi32>
// CHECK-NEXT: %alloca_4 = memref.alloca(%dim) : memref<?xf32, #gpu.address_space<private>>
// CHECK-NEXT: %[[L:.*]] = memref.load %arg0[%arg2, %c0] : memref<?x?xf32>
// CHECK-NEXT: memref.store %[[L]], %arg0[%arg2, %c0] : memref<?x?xf32>
// CHECK-NEXT: %cast = memref.cast %arg1 : memref<?xf32, #gpu.address_space<global>> to memref<4xf32, #gpu.address_space<global>>
// CHECK-NEXT: %cast_5 = memref.cast %alloc : memref<?x?xf32> to memref<*xf32>
// CHECK-NEXT: %reinterpret_cast = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%dim_0, %dim], strides: [%dim, 1] {kDiscSymbolicDimAttr = [@S0, @S1]} : memref<?x?xf32> to memref<?x?xf32>
// CHECK-NEXT: %reinterpret_cast_6 = memref.reinterpret_cast %arg0 to offset: [%c0], sizes: [%dim], strides: [%c1] : memref<?x?xf32> to memref<?xf32>
// CHECK-NEXT: %{{.*}} = memref.atomic_rmw addf %arg3, %reinterpret_cast_6[%arg2] : (f32, memref<?xf32>) -> f32
// CHECK-NEXT: %{{.*}} = memref.atomic_rmw maximumf %arg3, %reinterpret_cast_6[%arg2] : (f32, memref<?xf32>) -> f32
// CHECK-NEXT: memref.copy %alloc, %alloc : memref<?x?xf32> to memref<?x?xf32>
// CHECK-NEXT: %subview = memref.subview %arg0[0, 0] [4, 4] [1, 1] : memref<?x?xf32> to memref<4x4xf32, strided<[?, 1]>>
// CHECK-NEXT: %{{.*}} = memref.assume_alignment %reinterpret_cast_6, 8 : memref<?xf32>
// CHECK-NEXT: memref.dealloc %alloc : memref<?x?xf32>

// GENERIC: "memref.cast"(%{{.*}}) : (memref<?xf32, #gpu.address_space<global>>) -> memref<4xf32, #gpu.address_space<global>>
// GENERIC: "memref.atomic_rmw"(%{{.*}}, %{{.*}}, %{{.*}}) <{kind = 0 : i64}> : (f32, memref<?xf32>, index) -> f32
// GENERIC: "memref.copy"(%{{.*}}, %{{.*}}) : (memref<?x?xf32>, memref<?x?xf32>) -> ()

func.func @memref_ops(%arg0: memref<?x?xf32>, %g: memref<?xf32, #gpu.address_space<global>>, %i: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = memref.dim %arg0, %c0 : memref<?x?xf32>
  %d1 = memref.dim %arg0, %c1 : memref<?x?xf32>
  %a = memref.alloc(%d, %i) : memref<?x?xf32>
  %a2 = memref.alloc() {alignment = 128 : i64} : memref<2xindex>
  %a3 = memref.alloc(%d)[%i] : memref<?xf32, affine_map<(d0)[s0] -> (d0 + s0)>>
  %t = memref.alloc(%d) {kDiscSymbolicDimAttr = [@S2, @C71]} : memref<?x71xf32>
  %b = memref.alloca() : memref<4xi32>
  %b2 = memref.alloca(%d) : memref<?xf32, #gpu.address_space<private>>
  %l = memref.load %arg0[%i, %c0] : memref<?x?xf32>
  memref.store %l, %arg0[%i, %c0] : memref<?x?xf32>
  %c = memref.cast %g : memref<?xf32, #gpu.address_space<global>> to memref<4xf32, #gpu.address_space<global>>
  %u = memref.cast %a : memref<?x?xf32> to memref<*xf32>
  %r = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%d1, %d], strides: [%d, 1] {kDiscSymbolicDimAttr = [@S0, @S1]} : memref<?x?xf32> to memref<?x?xf32>
  %f = memref.reinterpret_cast %arg0 to offset: [%c0], sizes: [%d], strides: [%c1] : memref<?x?xf32> to memref<?xf32>
  %x = memref.atomic_rmw addf %v, %f[%i] : (f32, memref<?xf32>) -> f32
  %y = memref.atomic_rmw maxf %v, %f[%i] : (f32, memref<?xf32>) -> f32
  memref.copy %a, %a : memref<?x?xf32> to memref<?x?xf32>
  %s = memref.subview %arg0[0, 0] [4, 4] [1, 1] : memref<?x?xf32> to memref<4x4xf32, strided<[?, 1]>>
  memref.assume_alignment %f, 8 : memref<?xf32>
  memref.dealloc %a : memref<?x?xf32>
  return
}
