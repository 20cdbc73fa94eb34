// RUN: disc-opt -disc-convert-gpu-to-nvvm %s | FileCheck %s
// RUN: disc-opt -disc-convert-gpu-to-nvvm %s | disc-opt | FileCheck %s

// A workgroup attribution (what disc-revise-gpu-kernel-outlining makes of a
// `#gpu.address_space<workgroup>` alloc) becomes an internal array global in
// NVPTX's shared address space 3, read and written through a generic pointer
// (its descriptor's fields are read directly: element [tx] at offset tx,
// element [0] at the base).
// CHECK-LABEL: gpu.module @main_kernel
// CHECK:         llvm.mlir.global internal @__wg_main_kernel_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<32 x f32>
// CHECK:         llvm.func @main_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.align = 16 : i64}, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) attributes {gpu.kernel, nvvm.kernel}
// CHECK:           %[[SHARED:.*]] = llvm.mlir.addressof @__wg_main_kernel_0 : !llvm.ptr<3>
// CHECK-NEXT:      %[[GENERIC:.*]] = llvm.addrspacecast %[[SHARED]] : !llvm.ptr<3> to !llvm.ptr
// CHECK:           %[[TX:.*]] = llvm.zext %{{.*}} : i32 to i64
// CHECK:           %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:           %[[SLOT:.*]] = llvm.getelementptr inbounds %[[GENERIC]][%[[TX]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:      llvm.store %[[V]], %[[SLOT]] : f32, !llvm.ptr
// CHECK:           llvm.call_intrinsic "llvm.nvvm.barrier0"() : () -> ()
// CHECK-NEXT:      llvm.load %[[GENERIC]] : !llvm.ptr -> f32
// CHECK-NOT:       memref.
module attributes {gpu.container_module} {
  gpu.module @main_kernel {
    gpu.func @main_kernel(%a: memref<?xf32>) workgroup(%w: memref<32xf32, #gpu.address_space<workgroup>>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %a[%tx] : memref<?xf32>
      memref.store %v, %w[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %c0 = arith.constant 0 : index
      %r = memref.load %w[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %r, %a[%tx] : memref<?xf32>
      gpu.return
    }
  }
}
