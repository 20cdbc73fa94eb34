// RUN: disc-opt -disc-convert-unhandled-atomic-rmw %s | FileCheck %s
// RUN: disc-opt -disc-convert-unhandled-atomic-rmw %s | disc-opt | FileCheck %s

// A column product reduction accumulates with atomic_rmw mulf / muli, which
// LLVM's atomicrmw cannot express: each becomes a generic_atomic_rmw whose
// body multiplies the current value by the accumulated one (its result, the
// value replaced, keeps its users). Kinds with an LLVM atomicrmw stay.
// CHECK-LABEL: func.func @col_product
// CHECK:         %[[OLD:.*]] = memref.generic_atomic_rmw %arg0[%arg2] : memref<?xf32> {
// CHECK-NEXT:    ^bb0(%[[CUR:.*]]: f32):
// CHECK-NEXT:      %[[NEW:.*]] = arith.mulf %[[CUR]], %arg3 : f32
// CHECK-NEXT:      memref.atomic_yield %[[NEW]] : f32
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[OLDI:.*]] = memref.generic_atomic_rmw %arg1[%arg2] : memref<?xi64> {
// CHECK-NEXT:    ^bb0(%[[CURI:.*]]: i64):
// CHECK-NEXT:      %[[NEWI:.*]] = arith.muli %[[CURI]], %arg4 : i64
// CHECK-NEXT:      memref.atomic_yield %[[NEWI]] : i64
// CHECK-NEXT:    }
// CHECK-NEXT:    memref.atomic_rmw addf %arg3, %arg0[%arg2] : (f32, memref<?xf32>) -> f32
// CHECK-NEXT:    memref.atomic_rmw maximumf %arg3, %arg0[%arg2] : (f32, memref<?xf32>) -> f32
// CHECK-NEXT:    return %[[OLD]], %[[OLDI]] : f32, i64
func.func @col_product(%out: memref<?xf32>, %iout: memref<?xi64>, %i: index, %v: f32, %w: i64) -> (f32, i64) {
  %0 = memref.atomic_rmw mulf %v, %out[%i] : (f32, memref<?xf32>) -> f32
  %1 = memref.atomic_rmw muli %w, %iout[%i] : (i64, memref<?xi64>) -> i64
  %2 = memref.atomic_rmw addf %v, %out[%i] : (f32, memref<?xf32>) -> f32
  %3 = memref.atomic_rmw maxf %v, %out[%i] : (f32, memref<?xf32>) -> f32
  return %0, %1 : f32, i64
}
