// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// `dense_resource<key>` names a blob of the trailing `dialect_resources`
// section (alignment u32 LE, then the bytes); both print back as MLIR writes
// them, each blob once however many constants use it, in order of first use.

// CHECK-LABEL: func.func @weights
// CHECK: mhlo.constant dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>
// CHECK: mhlo.constant dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>
// CHECK: mhlo.constant dense_resource<bias> : tensor<2x1xi64>
func.func @weights(%arg0: tensor<2xf32>) -> (tensor<2xf32>, tensor<2x1xi64>) {
  %0 = mhlo.constant dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>
  %1 = mhlo.constant dense_resource<torch_tensor_2_torch.float32> : tensor<2xf32>
  %2 = mhlo.add %0, %1 : tensor<2xf32>
  %3 = mhlo.constant dense_resource<bias> : tensor<2x1xi64>
  return %2, %3 : tensor<2xf32>, tensor<2x1xi64>
}

// CHECK:      {-#
// CHECK-NEXT:   dialect_resources: {
// CHECK-NEXT:     builtin: {
// CHECK-NEXT:       torch_tensor_2_torch.float32: "0x040000000000803F000000C0",
// CHECK-NEXT:       bias: "0x080000000700000000000000F9FFFFFFFFFFFFFF"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: #-}

{-#
  dialect_resources: {
    builtin: {
      bias: "0x080000000700000000000000f9ffffffffffffff",
      torch_tensor_2_torch.float32: "0x040000000000803F000000C0"
    }
  }
#-}
