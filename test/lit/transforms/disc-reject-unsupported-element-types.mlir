// RUN: not disc-opt -split-input-file %s '--disc-reject-unsupported-element-types=target=cuda' 2>&1 | FileCheck %s --check-prefix=CUDA
// RUN: disc-opt -split-input-file %s '--disc-reject-unsupported-element-types=target=cpu' | FileCheck %s --check-prefix=CPU

// bf16 is compiled for the CPU only: the cuda target names the first op using it.
// CUDA: error: 'mhlo.add' (input line 9) uses bf16, which the cuda target does not compile yet (the cpu target does): convert to f32 before the graph (x.astype(jnp.float32))
// CPU-LABEL: func.func @bf16
// CPU: mhlo.add
func.func @bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = mhlo.add %x, %x : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// f32 passes on both targets.
// CPU-LABEL: func.func @f32
// CUDA-NOT: error: 'mhlo.multiply'
func.func @f32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.multiply %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
