// RUN: disc-opt %s -split-input-file --promote-buffers-to-stack | FileCheck %s
// RUN: disc-opt %s -split-input-file '--promote-buffers-to-stack=max-alloc-size-in-bytes=4096 max-rank-of-allocated-memref=0' | FileCheck %s --check-prefix=OPT

// CHECK-LABEL: func.func @promote
// CHECK-NEXT: %[[S:.*]] = memref.alloca() : memref<2xindex>
// CHECK-NEXT: %[[R:.*]] = memref.rank %arg0 : memref<?x?xf32>
// CHECK-NEXT: memref.alloca(%[[R]]) : memref<?xindex>
// CHECK-NEXT: memref.alloc(%arg1) : memref<?xindex>
// CHECK-NEXT: memref.alloca() {alignment = 64 : i64} : memref<4xindex>
// CHECK-NEXT: memref.alloc() : memref<1024xf32>
// CHECK-NEXT: memref.alloc() : memref<4xindex>
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: memref.alloc() : memref<4xindex>
// CHECK: "lmhlo.fusion"() ({
// CHECK-NEXT: memref.alloc() : memref<4xindex>
// CHECK: scf.for
// CHECK-NEXT: memref.alloca() : memref<4xindex>
// OPT-LABEL: func.func @promote
// OPT-NEXT: memref.alloca() : memref<2xindex>
// OPT-NEXT: memref.rank %arg0 : memref<?x?xf32>
// OPT-NEXT: memref.alloc(%{{.*}}) : memref<?xindex>
// OPT-NEXT: memref.alloc(%arg1) : memref<?xindex>
// OPT-NEXT: memref.alloca() {alignment = 64 : i64} : memref<4xindex>
// OPT-NEXT: memref.alloca() : memref<1024xf32>
func.func @promote(%arg0: memref<?x?xf32>, %n: index) -> memref<4xindex> {
  %0 = memref.alloc() : memref<2xindex>
  %r = "memref.rank"(%arg0) : (memref<?x?xf32>) -> index
  %1 = memref.alloc(%r) : memref<?xindex>
  %2 = memref.alloc(%n) : memref<?xindex>
  %3 = memref.alloc() {alignment = 64 : i64} : memref<4xindex>
  %4 = memref.alloc() : memref<1024xf32>
  %5 = memref.alloc() : memref<4xindex>
  memref.dealloc %5 : memref<4xindex>
  %ret = memref.alloc() : memref<4xindex>
  "lmhlo.fusion"() ({
    %6 = memref.alloc() : memref<4xindex>
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %7 = memref.alloc() : memref<4xindex>
  }
  return %ret : memref<4xindex>
}

// -----

// A buffer leaving its scope through scf.if and return stays on the heap;
// one yielded by scf.if but not returned is promoted.
// CHECK-LABEL: func.func @escape
// CHECK: scf.if
// CHECK-NEXT: memref.alloc() : memref<2xf32>
// CHECK: memref.alloca() : memref<3xf32>
func.func @escape(%c: i1, %arg0: memref<2xf32>) -> memref<2xf32> {
  %r = scf.if %c -> (memref<2xf32>) {
    %a = memref.alloc() : memref<2xf32>
    scf.yield %a : memref<2xf32>
  } else {
    scf.yield %arg0 : memref<2xf32>
  }
  %q = scf.if %c -> (memref<3xf32>) {
    %b = memref.alloc() : memref<3xf32>
    scf.yield %b : memref<3xf32>
  } else {
    %b2 = memref.alloc() : memref<3xf32>
    scf.yield %b2 : memref<3xf32>
  }
  return %r : memref<2xf32>
}

// -----

// A small buffer in GPU memory stays on the heap (the stack is the host's; a
// kernel handed a host stack address would fault); the host one is promoted.
// CHECK-LABEL: func.func @gpu_buffer
// CHECK: memref.alloc() : memref<f32, #gpu.address_space<global>>
// CHECK: memref.alloca() : memref<f32>
// OPT-LABEL: func.func @gpu_buffer
// OPT: memref.alloc() : memref<f32, #gpu.address_space<global>>
func.func @gpu_buffer(%v: f32) -> f32 {
  %g = memref.alloc() : memref<f32, #gpu.address_space<global>>
  "lmhlo_disc.h2d"(%g, %g) : (memref<f32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>) -> ()
  %h = memref.alloc() : memref<f32>
  memref.store %v, %h[] : memref<f32>
  %r = memref.load %h[] : memref<f32>
  return %r : f32
}
