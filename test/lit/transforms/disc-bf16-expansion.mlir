// RUN: disc-opt %s -split-input-file -disc-bf16-expansion | FileCheck %s

// bf16 -> f32: the bits moved to the high half.
// CHECK-LABEL: func.func @ext
// CHECK-SAME:    (%[[X:.*]]: bf16)
// CHECK:         %[[I:.*]] = arith.bitcast %[[X]] : bf16 to i16
// CHECK:         %[[W:.*]] = arith.extui %[[I]] : i16 to i32
// CHECK:         %[[S:.*]] = arith.shli %[[W]], %{{.*}} : i32
// CHECK:         %[[R:.*]] = arith.bitcast %[[S]] : i32 to f32
// CHECK:         arith.bitcast %[[X]] : bf16 to i16
// CHECK:         %[[R2:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:         %[[D:.*]] = arith.extf %[[R2]] : f32 to f64
// CHECK:         return %[[R]], %[[D]] : f32, f64
// CHECK-NOT:     bf16 to f
func.func @ext(%x: bf16) -> (f32, f64) {
  %0 = arith.extf %x : bf16 to f32
  %1 = arith.extf %x : bf16 to f64
  return %0, %1 : f32, f64
}

// -----

// f32 -> bf16: round to nearest even (bias 0x7fff + lsb), a NaN made quiet
// with its sign kept; f64 goes through f32.
// CHECK-LABEL: func.func @trunc
// CHECK-SAME:    (%[[X:.*]]: f32, %[[Y:.*]]: f64)
// CHECK:         %[[B:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK:         %[[C16:.*]] = arith.constant 16 : i32
// CHECK:         %[[HI:.*]] = arith.shrui %[[B]], %[[C16]] : i32
// CHECK:         %[[LSB:.*]] = arith.andi %[[HI]], %{{.*}} : i32
// CHECK:         %[[C7FFF:.*]] = arith.constant 32767 : i32
// CHECK:         %[[BIAS:.*]] = arith.addi %[[C7FFF]], %[[LSB]] : i32
// CHECK:         %[[ADD:.*]] = arith.addi %[[B]], %[[BIAS]] : i32
// CHECK:         %[[RND:.*]] = arith.shrui %[[ADD]], %[[C16]] : i32
// CHECK:         %[[HI2:.*]] = arith.shrui %[[B]], %[[C16]] : i32
// CHECK:         %[[C64:.*]] = arith.constant 64 : i32
// CHECK:         %[[QNAN:.*]] = arith.ori %[[HI2]], %[[C64]] : i32
// CHECK:         %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK:         %[[SEL:.*]] = arith.select %[[NAN]], %[[QNAN]], %[[RND]] : i32
// CHECK:         %[[T:.*]] = arith.trunci %[[SEL]] : i32 to i16
// CHECK:         %[[R:.*]] = arith.bitcast %[[T]] : i16 to bf16
// CHECK:         %[[Y32:.*]] = arith.truncf %[[Y]] : f64 to f32
// CHECK:         arith.bitcast %[[Y32]] : f32 to i32
// CHECK-NOT:     to bf16 :
// CHECK:         return %[[R]]
func.func @trunc(%x: f32, %y: f64) -> (bf16, bf16) {
  %0 = arith.truncf %x : f32 to bf16
  %1 = arith.truncf %y : f64 to bf16
  return %0, %1 : bf16, bf16
}
