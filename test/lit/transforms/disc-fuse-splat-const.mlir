// RUN: disc-opt -split-input-file -disc-fuse-splat-const %s | FileCheck %s

// One fusion reads the splat: the constant moves in (on a fresh buffer) and
// the original constant goes away; its alloc stays.
// CHECK-LABEL: func.func @single_consumer
// CHECK-NEXT:    %[[NEW:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[OLD:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    %[[OUT:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.constant"(%[[NEW]]) {value = dense<2.000000e+00> : tensor<4xf32>} : (memref<4xf32>) -> ()
// CHECK-NEXT:      "lmhlo.multiply"(%arg0, %[[NEW]], %[[OUT]])
// CHECK-NEXT:      "lmhlo.terminator"() : () -> ()
// CHECK-NEXT:    }) {disc.fusion.name = "f0"} : () -> ()
// CHECK-NEXT:    return %[[OUT]] : memref<4xf32>
func.func @single_consumer(%arg0: memref<4xf32>) -> memref<4xf32> {
  %0 = memref.alloc() : memref<4xf32>
  %1 = memref.alloc() : memref<4xf32>
  "lmhlo.constant"(%0) {value = dense<2.0> : tensor<4xf32>} : (memref<4xf32>) -> ()
  "lmhlo.fusion"() ({
    "lmhlo.multiply"(%arg0, %0, %1) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.fusion.name = "f0"} : () -> ()
  return %1 : memref<4xf32>
}

// -----

// Two fusions and an unfused op read the splat: each fusion gets its own copy
// (one copy even when two ops of a fusion read it), the original stays for
// the unfused reader.
// CHECK-LABEL: func.func @two_fusions_and_outside_reader
// CHECK:         %[[D:.*]] = memref.dim %arg0
// CHECK-NEXT:    %[[C1:.*]] = memref.alloc(%[[D]]) : memref<?xi32>
// CHECK-NEXT:    %[[C2:.*]] = memref.alloc(%[[D]]) : memref<?xi32>
// CHECK-NEXT:    %[[OLD:.*]] = memref.alloc(%[[D]]) : memref<?xi32>
// CHECK-COUNT-4: memref.alloc(%[[D]]) : memref<?xi32>
// CHECK-NEXT:    "lmhlo.constant"(%[[OLD]]) {value = dense<7> : tensor<3xi32>}
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.constant"(%[[C1]]) {value = dense<7> : tensor<3xi32>}
// CHECK-NEXT:      "lmhlo.add"(%arg0, %[[C1]], %[[T:[a-z0-9_]+]]) :
// CHECK-NEXT:      "lmhlo.multiply"(%[[T]], %[[C1]], %[[R1:[a-z0-9_]+]]) :
// CHECK-NEXT:      "lmhlo.terminator"
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.constant"(%[[C2]]) {value = dense<7> : tensor<3xi32>}
// CHECK-NEXT:      "lmhlo.subtract"(%arg0, %[[C2]], %[[R2:[a-z0-9_]+]]) :
// CHECK-NEXT:      "lmhlo.terminator"
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    "lmhlo.abs"(%[[OLD]], %{{.*}}) :
func.func @two_fusions_and_outside_reader(%arg0: memref<?xi32>) -> (memref<?xi32>, memref<?xi32>, memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %d = memref.dim %arg0, %c0 : memref<?xi32>
  %0 = memref.alloc(%d) : memref<?xi32>
  %1 = memref.alloc(%d) : memref<?xi32>
  %2 = memref.alloc(%d) : memref<?xi32>
  %3 = memref.alloc(%d) : memref<?xi32>
  %4 = memref.alloc(%d) : memref<?xi32>
  "lmhlo.constant"(%0) {value = dense<7> : tensor<3xi32>} : (memref<?xi32>) -> ()
  "lmhlo.fusion"() ({
    "lmhlo.add"(%arg0, %0, %1) : (memref<?xi32>, memref<?xi32>, memref<?xi32>) -> ()
    "lmhlo.multiply"(%1, %0, %2) : (memref<?xi32>, memref<?xi32>, memref<?xi32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  "lmhlo.fusion"() ({
    "lmhlo.subtract"(%arg0, %0, %3) : (memref<?xi32>, memref<?xi32>, memref<?xi32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  "lmhlo.abs"(%0, %4) : (memref<?xi32>, memref<?xi32>) -> ()
  return %2, %3, %4 : memref<?xi32>, memref<?xi32>, memref<?xi32>
}

// -----

// Left alone: a non-splat constant, a constant already inside a fusion, a
// splat constant nobody fused reads, and a splat written into a function
// argument (no alloc to duplicate).
// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:    %[[A:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    %[[B:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    %[[C:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    %[[D:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT:    "lmhlo.constant"(%[[A]]) {value = dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>}
// CHECK-NEXT:    "lmhlo.constant"(%[[B]]) {value = dense<3.000000e+00> : tensor<2xf32>}
// CHECK-NEXT:    "lmhlo.constant"(%arg1) {value = dense<4.000000e+00> : tensor<2xf32>}
// CHECK-NEXT:    "lmhlo.fusion"() ({
// CHECK-NEXT:      "lmhlo.constant"(%[[C]]) {value = dense<5.000000e+00> : tensor<2xf32>}
// CHECK-NEXT:      "lmhlo.add"(%[[A]], %[[C]], %[[D]])
// CHECK-NEXT:      "lmhlo.add"(%[[D]], %arg1, %arg0)
// CHECK-NEXT:      "lmhlo.terminator"
// CHECK-NEXT:    }) : () -> ()
// CHECK-NEXT:    "lmhlo.abs"(%[[B]], %arg0)
// CHECK-NEXT:    return
func.func @untouched(%arg0: memref<2xf32>, %arg1: memref<2xf32>) {
  %0 = memref.alloc() : memref<2xf32>
  %1 = memref.alloc() : memref<2xf32>
  %2 = memref.alloc() : memref<2xf32>
  %3 = memref.alloc() : memref<2xf32>
  "lmhlo.constant"(%0) {value = dense<[1.0, 2.0]> : tensor<2xf32>} : (memref<2xf32>) -> ()
  "lmhlo.constant"(%1) {value = dense<3.0> : tensor<2xf32>} : (memref<2xf32>) -> ()
  "lmhlo.constant"(%arg1) {value = dense<4.0> : tensor<2xf32>} : (memref<2xf32>) -> ()
  "lmhlo.fusion"() ({
    "lmhlo.constant"(%2) {value = dense<5.0> : tensor<2xf32>} : (memref<2xf32>) -> ()
    "lmhlo.add"(%0, %2, %3) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "lmhlo.add"(%3, %arg1, %arg0) : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  "lmhlo.abs"(%1, %arg0) : (memref<2xf32>, memref<2xf32>) -> ()
  return
}

// -----

// A scalar splat on the GPU feeding a fusion nested in another region: fused,
// memory space kept.
// CHECK-LABEL: func.func @scalar_in_region
// CHECK-NEXT:    %[[NEW:.*]] = memref.alloc() : memref<f32, #gpu.address_space<global>>
// CHECK-NEXT:    %[[OLD:.*]] = memref.alloc() : memref<f32, #gpu.address_space<global>>
// CHECK-NEXT:    scf.if %arg2 {
// CHECK-NEXT:      "lmhlo.fusion"() ({
// CHECK-NEXT:        "lmhlo.constant"(%[[NEW]]) {value = dense<0.000000e+00> : tensor<f32>} : (memref<f32, #gpu.address_space<global>>) -> ()
// CHECK-NEXT:        "lmhlo.dynamic_broadcast_in_dim"(%[[NEW]], %arg1, %arg0)
// CHECK-NEXT:        "lmhlo.terminator"
// CHECK-NEXT:      }) {disc.device = "gpu"} : () -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @scalar_in_region(%arg0: memref<?xf32, #gpu.address_space<global>>, %arg1: memref<1xindex>, %arg2: i1) {
  %0 = memref.alloc() : memref<f32, #gpu.address_space<global>>
  "lmhlo.constant"(%0) {value = dense<0.0> : tensor<f32>} : (memref<f32, #gpu.address_space<global>>) -> ()
  scf.if %arg2 {
    "lmhlo.fusion"() ({
      "lmhlo.dynamic_broadcast_in_dim"(%0, %arg1, %arg0) {broadcast_dimensions = dense<> : tensor<0xi64>} : (memref<f32, #gpu.address_space<global>>, memref<1xindex>, memref<?xf32, #gpu.address_space<global>>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {disc.device = "gpu"} : () -> ()
  }
  return
}
