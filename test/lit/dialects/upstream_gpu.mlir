// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// CHECK-LABEL: module @main attributes {gpu.container_module} {
// CHECK: gpu.module @kernel_module attributes {gpu.binary = "BLOB!"} {
// CHECK: gpu.func @kernel(%arg0: memref<?x?xf32, #gpu.address_space<global>>, %arg1: f32) workgroup(%arg2: memref<32xf32, #gpu.address_space<workgroup>>) private(%arg3: memref<1xf32, #gpu.address_space<private>>) kernel attributes {foo = 1 : i64} {
// CHECK-NEXT: %block_id_x = gpu.block_id x
// CHECK-NEXT: %block_id_y = gpu.block_id y
// CHECK-NEXT: %thread_id_z = gpu.thread_id z
// CHECK-NEXT: %block_dim_x = gpu.block_dim x
// CHECK-NEXT: %grid_dim_y = gpu.grid_dim y
// CHECK: %0:2 = gpu.shuffle xor %arg1, %c1_i32, %c32_i32 : f32
// CHECK-NEXT: %1:2 = gpu.shuffle down %0#0, %c1_i32, %c32_i32 : f32
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: gpu.return
// CHECK: gpu.func @helper(%arg0: f32) -> f32 {
// CHECK-NEXT: gpu.return %arg0 : f32
// CHECK: func.func @launch(%arg0: memref<?x?xf32, #gpu.address_space<global>>, %arg1: f32) {
// CHECK: gpu.launch_func  @kernel_module::@kernel blocks in (%c1, %c2, %c1) threads in (%c2, %c1, %c1) args(%arg0 : memref<?x?xf32, #gpu.address_space<global>>, %arg1 : f32)
// CHECK-NEXT: gpu.launch_func  @kernel_module::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %c0_i32
// CHECK-NEXT: gpu.launch blocks(%arg2, %arg3, %arg4) in (%arg8 = %c1, %arg9 = %c1, %arg10 = %c1) threads(%arg5, %arg6, %arg7) in (%arg11 = %c2, %arg12 = %c1, %arg13 = %c1) {
// CHECK-NEXT: %{{.*}} = arith.addi %arg2, %arg11 : index
// CHECK-NEXT: gpu.terminator
// CHECK-NEXT: }

// GENERIC: "gpu.module"() <{sym_name = "kernel_module"}> ({
// GENERIC: "gpu.func"() <{function_type = (memref<?x?xf32, #gpu.address_space<global>>, f32) -> (), kernel}> ({
// GENERIC: "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// GENERIC: "gpu.shuffle"(%{{.*}}, %{{.*}}, %{{.*}}) <{mode = #gpu<shuffle_mode xor>}> : (f32, i32, i32) -> (f32, i1)
// GENERIC: "gpu.barrier"() : () -> ()
// GENERIC: "gpu.launch_func"(

module @main attributes {gpu.container_module} {
  gpu.module @kernel_module attributes {gpu.binary = "BLOB!"} {
    gpu.func @kernel(%a: memref<?x?xf32, #gpu.address_space<global>>, %f: f32)
        workgroup(%w: memref<32xf32, #gpu.address_space<workgroup>>)
        private(%p: memref<1xf32, #gpu.address_space<private>>) kernel attributes {foo = 1 : i64} {
      %0 = gpu.block_id x
      %1 = gpu.block_id y
      %2 = gpu.thread_id z
      %3 = gpu.block_dim x
      %4 = gpu.grid_dim y
      %c1 = arith.constant 1 : i32
      %c32 = arith.constant 32 : i32
      %r, %valid = gpu.shuffle xor %f, %c1, %c32 : f32
      %r2, %valid2 = gpu.shuffle down %r, %c1, %c32 : f32
      gpu.barrier
      gpu.return
    }
    gpu.func @helper(%a: f32) -> f32 {
      gpu.return %a : f32
    }
  }
  func.func @launch(%arg1: memref<?x?xf32, #gpu.address_space<global>>, %f: f32) {
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c0_i32 = arith.constant 0 : i32
    gpu.launch_func  @kernel_module::@kernel blocks in (%c1, %c2, %c1) threads in (%c2, %c1, %c1) args(%arg1 : memref<?x?xf32, #gpu.address_space<global>>, %f : f32)
    gpu.launch_func @kernel_module::@kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) dynamic_shared_memory_size %c0_i32
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
               threads(%tx, %ty, %tz) in (%sx = %c2, %sy = %c1, %sz = %c1) {
      %x = arith.addi %bx, %sx : index
      gpu.terminator
    }
    return
  }
}
