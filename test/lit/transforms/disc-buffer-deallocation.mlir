// RUN: disc-opt %s -split-input-file --disc-buffer-deallocation | FileCheck %s

// custom_call_v2 results are freed after the last use of them or their
// views (uses inside a fusion count at the fusion); returned ones are not;
// memref.alloc buffers are left to buffer-deallocation.
// CHECK-LABEL: func.func @main
// CHECK: %[[R:.*]]:2 = "lmhlo_disc.custom_call_v2"
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[R]]#0
// CHECK: %[[O:.*]] = memref.alloc
// CHECK: "lmhlo.fusion"() ({
// CHECK: "lmhlo.abs"(%[[V]], %[[O]])
// CHECK: })
// CHECK-NEXT: memref.dealloc %[[R]]#0 : memref<?xf32>
// CHECK-NEXT: return %[[O]], %[[R]]#1
func.func @main(%arg0: memref<?xf32>) -> (memref<?xf32>, memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %0:2 = "lmhlo_disc.custom_call_v2"(%arg0) {call_target_name = "foo", custom_attrs = {}, device = "h", disc.device = "cpu", expected_input_layouts = "*", expected_output_layouts = "*,*", has_side_effect = false, input_layouts = "*", input_placements = "h", output_layouts = "*,*", output_placements = "h,h"} : (memref<?xf32>) -> (memref<?xf32>, memref<?xf32>)
  %d = memref.dim %0#0, %c0 : memref<?xf32>
  %v = memref.reinterpret_cast %0#0 to offset: [0], sizes: [%d], strides: [1] : memref<?xf32> to memref<?xf32>
  %o = memref.alloc(%d) : memref<?xf32>
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%v, %o) : (memref<?xf32>, memref<?xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  return %o, %0#1 : memref<?xf32>, memref<?xf32>
}

// -----

// A result already freed is not freed again; a result without users is
// freed right after the call.
// CHECK-LABEL: func.func @freed
// CHECK: %[[R:.*]]:2 = "lmhlo_disc.custom_call_v2"
// CHECK-NEXT: memref.dealloc %[[R]]#1
// CHECK-NEXT: "lmhlo.abs"(%[[R]]#0, %arg1)
// CHECK-NEXT: memref.dealloc %[[R]]#0
// CHECK-NOT: memref.dealloc
// CHECK: return
func.func @freed(%arg0: memref<?xf32>, %arg1: memref<?xf32>) {
  %0:2 = "lmhlo_disc.custom_call_v2"(%arg0) {call_target_name = "foo", custom_attrs = {}, device = "h", expected_input_layouts = "*", expected_output_layouts = "*,*", has_side_effect = false, input_layouts = "*", input_placements = "h", output_layouts = "*,*", output_placements = "h,h"} : (memref<?xf32>) -> (memref<?xf32>, memref<?xf32>)
  "lmhlo.abs"(%0#0, %arg1) : (memref<?xf32>, memref<?xf32>) -> ()
  memref.dealloc %0#0 : memref<?xf32>
  return
}

// -----

// No custom_call_v2: nothing changes.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT: memref.alloc
// CHECK-NEXT: return
func.func @plain() -> memref<2xf32> {
  %a = memref.alloc() : memref<2xf32>
  return %a : memref<2xf32>
}
