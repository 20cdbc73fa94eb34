// RUN: not disc-opt -disc-to-llvm %s 2>&1 | FileCheck %s

// CHECK: error: pass 'disc-to-llvm' failed: 'gpu.launch_func' op: gpu.module @main_kernel: missing gpu.binary attribute, at least one should be provided (run disc-gpu-kernel-to-blob)
module attributes {gpu.container_module} {
  func.func @main(%ctx: !disc_ral.context, %n: index) {
    %c1 = arith.constant 1 : index
    gpu.launch_func  @main_kernel::@main_kernel blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1) args(%n : index)
    return
  }
  gpu.module @main_kernel {
    llvm.func @main_kernel(%arg0: i64) attributes {gpu.kernel, nvvm.kernel} {
      llvm.return
    }
  }
}
