// RUN: disc-opt %s -split-input-file --disc-math-approximation | FileCheck %s

// exp: clamp, n = floor(x * log2(e) + 0.5), Cephes polynomial, 2^n built in
// the exponent bits.
// CHECK-LABEL: func.func @exp
// CHECK-NOT: math.exp
// CHECK: arith.cmpf uge
// CHECK: arith.cmpf ule
// CHECK: %[[N:.*]] = math.floor
// CHECK: math.fma
// CHECK: %[[NI:.*]] = arith.fptosi %{{.*}} : f32 to i32
// CHECK: %[[B:.*]] = arith.addi %[[NI]], %c127_i32 : i32
// CHECK: %[[E:.*]] = arith.shli %[[B]], %c23_i32 : i32
// CHECK: %[[P:.*]] = arith.bitcast %[[E]] : i32 to f32
// CHECK: %[[R:.*]] = arith.mulf %{{.*}}, %[[P]] : f32
// CHECK: return %[[R]] : f32
func.func @exp(%x: f32) -> f32 {
  %0 = math.exp %x : f32
  return %0 : f32
}

// -----

// log: frexp through the bits, special values selected at the end.
// CHECK-LABEL: func.func @log
// CHECK-NOT: math.log
// CHECK: arith.shrui %{{.*}}, %c23_i32 : i32
// CHECK: arith.sitofp %{{.*}} : i32 to f32
// CHECK: arith.cmpf ult, %arg0
// CHECK: arith.cmpf oeq, %arg0
// CHECK: arith.cmpf oeq, %arg0
// CHECK: arith.select
// CHECK: arith.select
// CHECK: %[[R:.*]] = arith.select
// CHECK: return %[[R]] : f32
func.func @log(%x: f32) -> f32 {
  %0 = math.log %x : f32
  return %0 : f32
}

// -----

// The ops log1p / expm1 / atan2 introduce are approximated too; every
// listed op is rewritten.
// CHECK-LABEL: func.func @all
// CHECK-NOT: math.{{(exp|expm1|log|log2|log1p|tanh|erf|sin|cos|atan|atan2|cbrt) }}
// CHECK: return
func.func @all(%x: f32, %y: f32) -> (f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32) {
  %0 = math.expm1 %x : f32
  %1 = math.log2 %x : f32
  %2 = math.log1p %x : f32
  %3 = math.tanh %x : f32
  %4 = math.erf %x : f32
  %5 = math.sin %x : f32
  %6 = math.cos %x : f32
  %7 = math.atan %x : f32
  %8 = math.atan2 %x, %y : f32
  %9 = math.cbrt %x : f32
  %10 = math.log %x : f32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : f32, f32, f32, f32, f32, f32, f32, f32, f32, f32, f32
}

// -----

// f16 / bf16 go through f32; f64 and other ops are left alone.
// CHECK-LABEL: func.func @types
// CHECK: %[[E:.*]] = arith.extf %arg0 : f16 to f32
// CHECK-NOT: math.tanh %[[E]]
// CHECK: %[[T:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.extf %arg1 : bf16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[D:.*]] = math.exp %arg2 : f64
// CHECK: %[[S:.*]] = math.sqrt %arg3 : f32
// CHECK: return %[[T]], %{{.*}}, %[[D]], %[[S]]
func.func @types(%h: f16, %b: bf16, %d: f64, %f: f32) -> (f16, bf16, f64, f32) {
  %0 = math.tanh %h : f16
  %1 = math.erf %b : bf16
  %2 = math.exp %d : f64
  %3 = math.sqrt %f : f32
  return %0, %1, %2, %3 : f16, bf16, f64, f32
}
