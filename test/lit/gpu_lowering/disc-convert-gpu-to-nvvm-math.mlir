// RUN: disc-opt -split-input-file -disc-convert-gpu-to-nvvm %s | FileCheck %s
// RUN: not disc-opt -disc-convert-gpu-to-nvvm{index-bitwidth=32} %s 2>&1 | FileCheck %s --check-prefix=BITS

// Transcendental math has no libdevice here: exp is a polynomial (fma chain,
// exponent bits), powf goes through exp/log; no call to an external function.
// CHECK-LABEL: gpu.module @k
// CHECK-NOT:     llvm.call @
// CHECK-NOT:     llvm.intr.exp
// CHECK-NOT:     llvm.intr.pow
// CHECK:         llvm.intr.fma
// CHECK:         llvm.intr.floor
// CHECK-NOT:     llvm.call @
// CHECK:         llvm.return
// BITS: error: pass 'disc-convert-gpu-to-nvvm' failed: disc-convert-gpu-to-nvvm: index-bitwidth=32 is not supported (disc-ir lowers index to i64: use 0 or 64)
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<?xf32>, %b: f32) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %a[%tx] : memref<?xf32>
      %e = math.exp %v : f32
      %p = math.powf %e, %b : f32
      %t = math.tan %p : f32
      memref.store %t, %a[%tx] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// f64 sqrt is native on NVPTX (sqrt.rn.f64): allowed.
// CHECK-LABEL: gpu.module @f64_ok
module attributes {gpu.container_module} {
  gpu.module @f64_ok {
    gpu.func @f64_ok(%a: memref<?xf64>) kernel {
      %tx = gpu.thread_id x
      %v = memref.load %a[%tx] : memref<?xf64>
      %s = math.sqrt %v : f64
      memref.store %s, %a[%tx] : memref<?xf64>
      gpu.return
    }
  }
}
