// RUN: disc-opt %s | FileCheck %s
// RUN: disc-opt %s | disc-opt | FileCheck %s
// RUN: disc-opt --mlir-print-op-generic %s | FileCheck %s --check-prefix=GENERIC
// RUN: disc-opt --mlir-print-op-generic %s | disc-opt | FileCheck %s

// CHECK-LABEL: func.func @parallel(
// CHECK: scf.parallel (%arg10, %arg11) = (%arg0, %arg1) to (%arg2, %arg3) step (%arg4, %arg5) {
// CHECK-NEXT: %[[E:.*]] = memref.load %arg6[%arg10, %arg11] : memref<?x?xf32>
// CHECK-NEXT: memref.store %[[E]], %arg6[%arg10, %arg11] : memref<?x?xf32>
// CHECK-NEXT: scf.yield
// CHECK-NEXT: }
// GENERIC: "scf.parallel"(%{{.*}}) <{operandSegmentSizes = array<i32: 2, 2, 2, 0>}> ({
// GENERIC: "scf.reduce"() : () -> ()

// BladeDISC's form (a reduce op in the body, then scf.yield) reads as today's.
// CHECK: %[[R:.*]] = scf.parallel (%arg10) = (%arg0) to (%arg2) step (%arg4) init (%arg8) -> f32 {
// CHECK-NEXT: %[[V:.*]] = memref.load %arg6[%arg10, %arg10] : memref<?x?xf32>
// CHECK-NEXT: scf.reduce(%[[V]] : f32) {
// CHECK-NEXT: ^bb0(%arg11: f32, %arg12: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %arg11, %arg12 : f32
// CHECK-NEXT: scf.reduce.return %[[S]] : f32
// CHECK-NEXT: }
// CHECK-NEXT: } {mapping = 1 : i64}
// Today's form, with two reductions.
// CHECK: %{{.*}}:2 = scf.parallel (%arg10) = (%arg0) to (%arg2) step (%arg4) init (%arg8, %arg9) -> (f32, f64) {
// CHECK: scf.reduce(%{{.*}}, %{{.*}} : f32, f64) {
// CHECK: scf.reduce.return %{{.*}} : f32
// CHECK-NEXT: }, {
// CHECK: arith.maximumf
// CHECK-NEXT: scf.reduce.return %{{.*}} : f64
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @parallel(%arg0: index, %arg1: index, %arg2: index, %arg3: index, %arg4: index, %arg5: index,
                    %m: memref<?x?xf32>, %p: i1, %f: f32, %d: f64) {
  scf.parallel (%i0, %i1) = (%arg0, %arg1) to (%arg2, %arg3) step (%arg4, %arg5) {
    %e = memref.load %m[%i0, %i1] : memref<?x?xf32>
    memref.store %e, %m[%i0, %i1] : memref<?x?xf32>
  }
  %r = scf.parallel (%i) = (%arg0) to (%arg2) step (%arg4) init (%f) -> f32 {
    %e = memref.load %m[%i, %i] : memref<?x?xf32>
    scf.reduce(%e) : f32 {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      scf.reduce.return %s : f32
    }
    scf.yield
  } {mapping = 1 : i64}
  %r2:2 = scf.parallel (%i) = (%arg0) to (%arg2) step (%arg4) init (%f, %d) -> (f32, f64) {
    %e = memref.load %m[%i, %i] : memref<?x?xf32>
    %e2 = arith.extf %e : f32 to f64
    scf.reduce(%e, %e2 : f32, f64) {
    ^bb0(%lhs: f32, %rhs: f32):
      %s = arith.addf %lhs, %rhs : f32
      scf.reduce.return %s : f32
    }, {
    ^bb0(%lhs: f64, %rhs: f64):
      %s = arith.maximumf %lhs, %rhs : f64
      scf.reduce.return %s : f64
    }
  }
  return
}

// CHECK-LABEL: func.func @control_flow(
// CHECK: %0:2 = scf.for %arg4 = %arg0 to %arg1 step %arg1 iter_args(%arg5 = %arg3, %arg6 = %arg3) -> (f32, f32) {
// CHECK-NEXT: scf.yield %arg6, %arg5 : f32, f32
// CHECK-NEXT: }
// CHECK-NEXT: %1 = scf.if %arg2 -> (f32) {
// CHECK-NEXT: scf.yield %0#0 : f32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %0#1 : f32
// CHECK-NEXT: }
// CHECK-NEXT: scf.if %arg2 {
// CHECK-NEXT: %{{.*}} = arith.addf %1, %1 : f32
// CHECK-NEXT: } {tag}
// CHECK-NEXT: scf.for %arg4 = %arg0 to %arg1 step %arg1 {
// CHECK-NEXT: }
// CHECK-NEXT: %2 = scf.execute_region -> f32 {
// CHECK-NEXT: scf.yield %1 : f32
// CHECK-NEXT: } {tag}
func.func @control_flow(%lb: index, %ub: index, %p: i1, %f: f32) -> f32 {
  %x:2 = scf.for %i = %lb to %ub step %ub iter_args(%a = %f, %b = %f) -> (f32, f32) {
    scf.yield %b, %a : f32, f32
  }
  %y = scf.if %p -> (f32) {
    scf.yield %x#0 : f32
  } else {
    scf.yield %x#1 : f32
  }
  scf.if %p {
    %z = arith.addf %y, %y : f32
  } {tag}
  scf.for %j = %lb to %ub step %ub {
  }
  %e = scf.execute_region -> f32 {
    scf.yield %y : f32
  } {tag}
  return %e : f32
}
