// RUN: disc-opt %s '-arith-emulate-unsupported-floats=source-types=bf16 target-type=f32' | FileCheck %s
// RUN: not disc-opt %s '-arith-emulate-unsupported-floats=source-types=bf17 target-type=f32' 2>&1 | FileCheck %s --check-prefix=ERR

// Every arith / math op touching bf16 computes in f32: operands widened,
// results rounded back (one rounding per op); comparisons keep their i1;
// int -> bf16 converts to f32 first. extf / truncf / constant / select /
// bitcast are left alone, f32 ops too.
// CHECK-LABEL: func.func @f
// CHECK-SAME:    (%[[A:.*]]: bf16, %[[B:.*]]: bf16, %[[I:.*]]: i32, %[[F:.*]]: f32)
// CHECK:         %[[A0:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK:         %[[B0:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK:         %[[S:.*]] = arith.addf %[[A0]], %[[B0]] : f32
// CHECK:         %[[SB:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK:         %[[A1:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK:         %[[B1:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK:         %[[C:.*]] = arith.cmpf olt, %[[A1]], %[[B1]] : f32
// CHECK:         %[[SB1:.*]] = arith.extf %[[SB]] : bf16 to f32
// CHECK:         %[[E:.*]] = math.exp %[[SB1]] : f32
// CHECK:         %[[EB:.*]] = arith.truncf %[[E]] : f32 to bf16
// CHECK:         %[[IF:.*]] = arith.sitofp %[[I]] : i32 to f32
// CHECK:         %[[IB:.*]] = arith.truncf %[[IF]] : f32 to bf16
// CHECK:         %[[SEL:.*]] = arith.select %[[C]], %[[EB]], %[[IB]] : bf16
// CHECK:         %[[G:.*]] = arith.mulf %[[F]], %[[F]] : f32
// CHECK-NEXT:    return %[[SEL]], %[[C]], %[[G]] : bf16, i1, f32
// ERR: source-types 'bf17' is not a float type
func.func @f(%a: bf16, %b: bf16, %i: i32, %f: f32) -> (bf16, i1, f32) {
  %0 = arith.addf %a, %b : bf16
  %1 = arith.cmpf olt, %a, %b : bf16
  %2 = math.exp %0 : bf16
  %3 = arith.sitofp %i : i32 to bf16
  %4 = arith.select %1, %2, %3 : bf16
  %5 = arith.mulf %f, %f : f32
  return %4, %1, %5 : bf16, i1, f32
}
