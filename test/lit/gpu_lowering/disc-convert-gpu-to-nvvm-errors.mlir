// RUN: not disc-opt -disc-convert-gpu-to-nvvm %s 2>&1 | FileCheck %s

// CHECK: error: pass 'disc-convert-gpu-to-nvvm' failed: gpu.module @k: llvm.exp on f64 has no NVPTX lowering (it needs a libm / libdevice call; a GPU has no libm)
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf64>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %a[%tx] : memref<?xf64>
      %e = math.exp %v : f64
      memref.store %e, %a[%tx] : memref<?xf64>
      gpu.return
    }
  }
}
