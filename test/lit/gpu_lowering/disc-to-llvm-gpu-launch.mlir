// RUN: disc-opt -disc-to-llvm %s | FileCheck %s

// gpu.launch_func -> the blob in a global, the kernel name, packed kernel
// arguments (memref descriptor fields, then %n) and a RAL ral_kernel_launch
// on gpu with grid (n, 1, 1), block (256, 1, 1), 0 bytes of shared memory,
// the default stream and 6 arguments. The gpu.module is gone.
// CHECK:      llvm.mlir.global internal constant @[[API:ral_kernel_launch___gpu___pvoid_ppvoid_i64_pvoid_i64_i64_i64_i64_i64_i64_i32_pvoid_i32_ppvoid___void]]("ral_kernel_launch___gpu___pvoid_ppvoid_i64_pvoid_i64_i64_i64_i64_i64_i64_i32_pvoid_i32_ppvoid___void\00")
// CHECK:      llvm.func @disc_ral_call(!llvm.ptr, !llvm.ptr, !llvm.ptr)
// CHECK:      llvm.mlir.global internal constant @main_kernel_main_kernel_kernel_name("main_kernel\00")
// CHECK:      llvm.mlir.global internal constant @main_kernel_blob_gpu.binary("CUBIN\00")
// CHECK-NOT:  gpu.module
// CHECK:      llvm.func @main(%[[CTX:.*]]: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[N:.*]]: i64) {
// CHECK:        %[[ONE:.*]] = llvm.mlir.constant(1) : i64
// CHECK:        %[[C256:.*]] = llvm.mlir.constant(256) : i64
// CHECK:        %[[BLOBS:.*]] = llvm.alloca %{{.*}} x !llvm.ptr : (i32) -> !llvm.ptr
// CHECK:        llvm.mlir.addressof @main_kernel_blob_gpu.binary : !llvm.ptr
// CHECK:        %[[NAMEG:.*]] = llvm.mlir.addressof @main_kernel_main_kernel_kernel_name : !llvm.ptr
// CHECK:        %[[NAME:.*]] = llvm.getelementptr %[[NAMEG]][0, 0]
// CHECK:        %[[KARGS:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, i64, i64, i64)> : (i32) -> !llvm.ptr
// CHECK:        %[[PARAMS:.*]] = llvm.alloca %{{.*}} x !llvm.ptr : (i32) -> !llvm.ptr
// CHECK:        llvm.store %[[N]], %{{.*}} : i64, !llvm.ptr
// CHECK:        %[[SMEM:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK:        %[[STREAM:.*]] = llvm.inttoptr %{{.*}} : i32 to !llvm.ptr
// CHECK:        %[[NBLOBS:.*]] = llvm.mlir.constant(1) : i64
// CHECK:        %[[NARGS:.*]] = llvm.mlir.constant(6 : i32) : i32
// CHECK:        %[[SLOTS:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(!llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr, i32, !llvm.ptr)> : (i32) -> !llvm.ptr
// CHECK:        %[[ARGV:.*]] = llvm.alloca %{{.*}} x !llvm.ptr : (i32) -> !llvm.ptr
// CHECK:        llvm.store %[[CTX]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK:        llvm.store %[[BLOBS]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK:        llvm.store %[[NBLOBS]], %{{.*}} : i64, !llvm.ptr
// CHECK:        llvm.store %[[NAME]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK:        llvm.store %[[N]], %{{.*}} : i64, !llvm.ptr
// CHECK:        llvm.store %[[ONE]], %{{.*}} : i64, !llvm.ptr
// CHECK:        llvm.store %[[ONE]], %{{.*}} : i64, !llvm.ptr
// CHECK:        llvm.store %[[C256]], %{{.*}} : i64, !llvm.ptr
// CHECK:        llvm.store %[[ONE]], %{{.*}} : i64, !llvm.ptr
// CHECK:        llvm.store %[[ONE]], %{{.*}} : i64, !llvm.ptr
// CHECK:        llvm.store %[[SMEM]], %{{.*}} : i32, !llvm.ptr
// CHECK:        llvm.store %[[STREAM]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK:        llvm.store %[[NARGS]], %{{.*}} : i32, !llvm.ptr
// CHECK:        llvm.store %[[PARAMS]], %{{.*}} : !llvm.ptr, !llvm.ptr
// CHECK:        %[[APIG:.*]] = llvm.mlir.addressof @[[API]] : !llvm.ptr
// CHECK:        %[[APIP:.*]] = llvm.getelementptr %[[APIG]][0, 0]
// CHECK-NEXT:   llvm.call @disc_ral_call(%[[CTX]], %[[APIP]], %[[ARGV]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// CHECK-NEXT:   llvm.return
module attributes {gpu.container_module} {
  func.func @main(%ctx: !disc_ral.context, %a: memref<?xf32, #gpu.address_space<global>>, %n: index) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    gpu.launch_func  @main_kernel::@main_kernel blocks in (%n, %c1, %c1) threads in (%c256, %c1, %c1) args(%a : memref<?xf32, #gpu.address_space<global>>, %n : index)
    return
  }
  gpu.module @main_kernel attributes {gpu.binary = "CUBIN"} {
    llvm.func @main_kernel(%arg0: !llvm.ptr, %arg1: !llvm.ptr, %arg2: i64, %arg3: i64, %arg4: i64, %arg5: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
