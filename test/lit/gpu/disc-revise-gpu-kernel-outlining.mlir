// RUN: disc-opt %s -disc-revise-gpu-kernel-outlining | FileCheck %s

// The host shape buffer memref<2xi32> is loaded element by element before the
// launch and passed as two i32 scalars; the kernel's constant-index loads
// become those arguments. The workgroup alloc becomes a workgroup attribution.
// CHECK-LABEL: func.func @launch
// CHECK:         %[[E0:.*]] = memref.load %arg1[%{{.*}}] : memref<2xi32>
// CHECK:         %[[E1:.*]] = memref.load %arg1[%{{.*}}] : memref<2xi32>
// CHECK:         gpu.launch_func  @m::@k_revised blocks in ({{.*}}) threads in ({{.*}}) args(%arg0 : memref<?xf32, #gpu.address_space<global>>, %[[E0]] : i32, %[[E1]] : i32)
// CHECK:         gpu.func @k_revised(%[[BUF:.*]]: memref<?xf32, #gpu.address_space<global>>, %[[S0:.*]]: i32, %[[S1:.*]]: i32) workgroup(%[[SH:.*]]: memref<32xf32, #gpu.address_space<workgroup>>) kernel {
// CHECK-NOT:       memref<2xi32>
// CHECK:           arith.addi %[[S0]], %[[S1]] : i32
// CHECK:           memref.store %{{.*}}, %[[SH]][%{{.*}}] : memref<32xf32, #gpu.address_space<workgroup>>
module attributes {gpu.container_module} {
  func.func @launch(%arg0: memref<?xf32, #gpu.address_space<global>>, %arg1: memref<2xi32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%arg0 : memref<?xf32, #gpu.address_space<global>>, %arg1 : memref<2xi32>)
    return
  }
  gpu.module @m {
    gpu.func @k(%arg0: memref<?xf32, #gpu.address_space<global>>, %arg1: memref<2xi32>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %a = memref.load %arg1[%c0] : memref<2xi32>
      %b = memref.load %arg1[%c1] : memref<2xi32>
      %s = arith.addi %a, %b : i32
      %f = arith.sitofp %s : i32 to f32
      %sh = memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %f, %sh[%c0] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.return
    }
  }
}
