// RUN: disc-opt -split-input-file %s | FileCheck %s
// RUN: disc-opt --split-input-file -o %t %s && FileCheck %s < %t
// RUN: not disc-opt -split-input-file %s -DOESNOTEXIST 2>&1 | FileCheck %s --check-prefix=UNKNOWN

// CHECK-LABEL: func.func @first
// CHECK-SAME: (%arg0: i32) -> i32
// CHECK-NEXT: return %arg0 : i32
// CHECK: // -----
// CHECK-LABEL: func.func @second
// CHECK-NEXT: %c0 = arith.constant 0 : index
// CHECK-NEXT: %c0_i32 = arith.constant 0 : i32
// CHECK-NEXT: %true = arith.constant true
// CHECK-NEXT: %cst = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %c0_0 = arith.constant 0 : index
// CHECK-NEXT: return
// UNKNOWN: unknown option or pass '-DOESNOTEXIST'
func.func @first(%x: i32) -> i32 {
  return %x : i32
}

// -----

func.func @second() {
  %a = arith.constant 0 : index
  %b = arith.constant 0 : i32
  %t = arith.constant true
  %f = arith.constant 1.0 : f32
  %again = arith.constant 0 : index
  return
}
