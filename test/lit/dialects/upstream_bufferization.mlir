// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// CHECK-LABEL: func.func @casts(
// CHECK: %0 = bufferization.to_memref %arg0 : memref<2xindex>
// CHECK-NEXT: %1 = bufferization.to_memref %arg0 : memref<2xindex>
// CHECK-NEXT: %2 = bufferization.to_memref %arg2 read_only : memref<?xf32, strided<[?], offset: ?>>
// CHECK-NEXT: %3 = bufferization.to_buffer %arg2 : tensor<?xf32> to memref<?xf32, #gpu.address_space<global>>
// CHECK-NEXT: %4 = bufferization.to_tensor %0 : memref<2xindex>
// CHECK-NEXT: %5 = bufferization.to_tensor %arg1 restrict writable : memref<?xf32, #gpu.address_space<global>>
// CHECK-NEXT: %6 = bufferization.clone %0 : memref<2xindex> to memref<2xindex>
// CHECK-NEXT: %7 = bufferization.alloc_tensor() : tensor<4xf32>

// GENERIC: "bufferization.to_memref"(%{{.*}}) : (tensor<2xindex>) -> memref<2xindex>
// GENERIC: "bufferization.to_memref"(%{{.*}}) {read_only} : (tensor<?xf32>) -> memref<?xf32, strided<[?], offset: ?>>
// GENERIC: "bufferization.to_tensor"(%{{.*}}) : (memref<2xindex>) -> tensor<2xindex>
func.func @casts(%t: tensor<2xindex>, %m: memref<?xf32, #gpu.address_space<global>>, %u: tensor<?xf32>) {
  %0 = bufferization.to_memref %t : memref<2xindex>
  %1 = bufferization.to_memref %t : tensor<2xindex> to memref<2xindex>
  %2 = bufferization.to_memref %u read_only : tensor<?xf32> to memref<?xf32, strided<[?], offset: ?>>
  %3 = bufferization.to_buffer %u : tensor<?xf32> to memref<?xf32, #gpu.address_space<global>>
  %4 = bufferization.to_tensor %0 : memref<2xindex>
  %5 = bufferization.to_tensor %m restrict writable : memref<?xf32, #gpu.address_space<global>> to tensor<?xf32>
  %6 = bufferization.clone %0 : memref<2xindex> to memref<2xindex>
  %7 = bufferization.alloc_tensor() : tensor<4xf32>
  return
}
