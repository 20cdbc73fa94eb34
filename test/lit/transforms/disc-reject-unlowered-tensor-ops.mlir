// RUN: not disc-opt -split-input-file %s --disc-reject-unlowered-tensor-ops 2>&1 | FileCheck %s
// RUN: not disc-opt -split-input-file %s '--disc-pipeline=target=cpu until=bufferize' 2>&1 | FileCheck %s --check-prefix=PIPELINE

// An mhlo op left after bufferization has no lmhlo form: named with its line.
// CHECK: error: 'chlo.erf_inv' (input line 8) is not supported by disc-ir's cpu pipeline: it has no lowering to lmhlo
// PIPELINE: error: 'chlo.erf_inv' (input line 8) is not supported by disc-ir's cpu pipeline: it has no lowering to lmhlo
func.func @main(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = chlo.erf_inv %x : tensor<4xf64> -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

// Loops whose trip count depends on the data are not compiled (the pass alone
// names the first mhlo op: nothing was bufferized).
// CHECK: error: 'mhlo.constant' (input line 19) is not supported by disc-ir's cpu pipeline: it has no lowering to lmhlo
// PIPELINE: error: 'mhlo.while' (input line 21) is not supported by disc-ir's cpu pipeline: only loops whose trip count is a compile-time constant are compiled (unrolled); this one's depends on the data
func.func @main(%x: tensor<3xf32>, %n: tensor<i64>) -> tensor<3xf32> {
  %c1 = mhlo.constant dense<1> : tensor<i64>
  %c0 = mhlo.constant dense<0> : tensor<i64>
  %0:2 = mhlo.while(%i = %c0, %v = %x) : tensor<i64>, tensor<3xf32>
    cond {
      %p = mhlo.compare LT, %i, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      mhlo.return %p : tensor<i1>
    } do {
      %j = mhlo.add %i, %c1 : tensor<i64>
      %w = mhlo.add %v, %v : tensor<3xf32>
      mhlo.return %j, %w : tensor<i64>, tensor<3xf32>
    }
  return %0#1 : tensor<3xf32>
}

// -----

// lmhlo alone passes.
// CHECK-NOT: error
func.func @copy(%a: memref<4xf32>, %b: memref<4xf32>) {
  "lmhlo.copy"(%a, %b) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
