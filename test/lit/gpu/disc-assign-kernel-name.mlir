// RUN: disc-opt %s -disc-assign-kernel-name | FileCheck %s

// Launches in a fusion take its full name (with the tag), `_<i>` for the
// i-th launch after the first; launches outside fusions become
// gKernel_<i>_<old name>.
// CHECK-LABEL: gpu.module @kernels
// CHECK-DAG:     gpu.func @fused___1b1rXno_ib(
// CHECK-DAG:     gpu.func @fused___1b1rXno_ib_1(
// CHECK-DAG:     gpu.func @gKernel_0_lonely(
// CHECK-LABEL: func.func @main
// CHECK:         gpu.launch_func  @kernels::@fused___1b1rXno_ib blocks
// CHECK:         gpu.launch_func  @kernels::@fused___1b1rXno_ib_1 blocks
// CHECK:         gpu.launch_func  @kernels::@gKernel_0_lonely blocks
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k0(%arg0: memref<?xf32>) kernel {
      gpu.return
    }
    gpu.func @k1(%arg0: memref<?xf32>) kernel {
      gpu.return
    }
    gpu.func @lonely(%arg0: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @main(%arg0: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    "lmhlo.fusion"() ({
      gpu.launch_func  @kernels::@k0 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%arg0 : memref<?xf32>)
      gpu.launch_func  @kernels::@k1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%arg0 : memref<?xf32>)
      "lmhlo.terminator"() : () -> ()
    }) {disc.fusion.name = "fused", disc.fusion.tag = "1b1rXno_ib"} : () -> ()
    gpu.launch_func  @kernels::@lonely blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%arg0 : memref<?xf32>)
    return
  }
}
