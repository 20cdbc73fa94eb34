// RUN: not disc-opt %s -disc-revise-gpu-kernel-outlining 2>&1 | FileCheck %s

// A kernel indexing a host buffer dynamically cannot take it as scalars.
// CHECK: kernel 'k' loads host memref argument #1 at a non-constant index
module attributes {gpu.container_module} {
  func.func @dynamic_index(%arg0: memref<2xi32>, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func  @m::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%n : index, %arg0 : memref<2xi32>)
    return
  }
  gpu.module @m {
    gpu.func @k(%n: index, %arg0: memref<2xi32>) kernel {
      %a = memref.load %arg0[%n] : memref<2xi32>
      gpu.return
    }
  }
}
