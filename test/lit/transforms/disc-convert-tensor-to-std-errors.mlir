// RUN: not disc-opt %s -disc-convert-tensor-to-std 2>&1 | FileCheck %s

// Only static 1-d extent tensors are unrolled.
// CHECK: 'tensor.generate' op: only static shape ranked tensor result type is supported
func.func @dynamic(%n: index) -> tensor<?xindex> {
  %0 = tensor.generate %n {
  ^bb0(%i: index):
    tensor.yield %i : index
  } : tensor<?xindex>
  return %0 : tensor<?xindex>
}
