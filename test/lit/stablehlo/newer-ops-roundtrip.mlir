// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt %s --disc-import-stablehlo | FileCheck %s --check-prefix=IMPORT

// Ops of today's StableHLO / CHLO / mhlo beyond BladeDISC's pinned mlir-hlo:
// their printed forms round-trip, and stablehlo.reduce_precision imports as
// today's mhlo.reduce_precision.
// CHECK-LABEL: func.func @newer
// CHECK-NEXT: %[[T:.*]]:2 = chlo.top_k(%arg0, k = 2) : tensor<3x5xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
// CHECK-NEXT: %[[P:.*]] = stablehlo.reduce_precision %arg1, format = e5m10 : tensor<?xf32>
// CHECK-NEXT: %[[E:.*]] = chlo.erf_inv %[[P]] : tensor<?xf32> -> tensor<?xf32>
// CHECK-NEXT: %[[A:.*]] = mhlo.acosh %[[E]] : tensor<?xf32>
// CHECK-NEXT: chlo.top_k(%arg0, k = 1) {note = "generic"} : tensor<3x5xf32> -> (tensor<3x1xf32>, tensor<3x1xi32>)
// IMPORT: chlo.top_k(%arg0, k = 2)
// IMPORT-NEXT: mhlo.reduce_precision %arg1, format = e5m10 : tensor<?xf32>
func.func @newer(%x: tensor<3x5xf32>, %y: tensor<?xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>, tensor<?xf32>, tensor<?xf32>) {
  %v, %i = chlo.top_k(%x, k = 2) : tensor<3x5xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
  %0 = stablehlo.reduce_precision %y, format = e5m10 : tensor<?xf32>
  %1 = chlo.erf_inv %0 : tensor<?xf32> -> tensor<?xf32>
  %2 = mhlo.acosh %1 : tensor<?xf32>
  %3:2 = "chlo.top_k"(%x) <{k = 1 : i64}> {note = "generic"} : (tensor<3x5xf32>) -> (tensor<3x1xf32>, tensor<3x1xi32>)
  return %v, %i, %1, %2 : tensor<3x2xf32>, tensor<3x2xi32>, tensor<?xf32>, tensor<?xf32>
}
