// RUN: disc-opt %s -split-input-file --disc-assign-memory-space | FileCheck %s
// RUN: disc-opt %s -split-input-file '--disc-assign-memory-space=gpu-enabled=false' | FileCheck %s --check-prefix=NOGPU
// RUN: not disc-opt %s -split-input-file '--disc-assign-memory-space=entry-func-name=missing' 2>&1 | FileCheck %s --check-prefix=MISSING

// MISSING: error: pass 'disc-assign-memory-space' failed: entry func: missing not found

// Without placements every argument and result takes the default device.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32, #gpu.address_space<global>>, %{{.*}}: memref<2xindex, #gpu.address_space<global>>) -> memref<?x?xf32, #gpu.address_space<global>>
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[A]] {{.*}} : memref<?x?xf32, #gpu.address_space<global>> to memref<?x?xf32, #gpu.address_space<global>>
// CHECK: %[[O:.*]] = memref.alloc({{.*}}) : memref<?x?xf32, #gpu.address_space<global>>
// CHECK: %[[S:.*]] = memref.subview %[[O]]
// CHECK-SAME: to memref<?x?xf32, strided<[?, 1]>, #gpu.address_space<global>>
// CHECK: "lmhlo.dynamic_reshape"(%[[V]], %{{.*}}, %[[O]]) : (memref<?x?xf32, #gpu.address_space<global>>, memref<2xindex, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
// NOGPU-LABEL: func.func @main
// NOGPU-SAME: (%{{.*}}: memref<?x?xf32>, %{{.*}}: memref<2xindex>) -> memref<?x?xf32>
// NOGPU-NOT: #gpu.address_space
// NOGPU: return
func.func @main(%arg0: memref<?x?xf32>, %shape: memref<2xindex>) -> memref<?x?xf32> attributes {tf.entry_function = {inputs = "input0,input1", outputs = "output0"}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.load %shape[%c0] : memref<2xindex>
  %d1 = memref.load %shape[%c1] : memref<2xindex>
  %v = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%d0, %d1], strides: [%d1, 1] : memref<?x?xf32> to memref<?x?xf32>
  %0 = memref.alloc(%d0, %d1) : memref<?x?xf32>
  %s = memref.subview %0[0, 0] [%d0, %d1] [1, 1] : memref<?x?xf32> to memref<?x?xf32, strided<[?, 1]>>
  "lmhlo.dynamic_reshape"(%v, %shape, %0) : (memref<?x?xf32>, memref<2xindex>, memref<?x?xf32>) -> ()
  return %0 : memref<?x?xf32>
}

// -----

// Placement flows from an op's data operands to the others, through casts,
// and into the ops of a fusion; the shape operand stays on the host, the
// cpu op's buffers too.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>) -> memref<4xf32>
// CHECK: %[[D:.*]] = memref.alloc() : memref<4xf32, #gpu.address_space<global>>
// CHECK: "lmhlo_disc.h2d"(%[[A]], %[[D]])
// CHECK: %[[B:.*]] = memref.alloc() : memref<4xf32, #gpu.address_space<global>>
// CHECK: %[[C:.*]] = memref.cast %[[B]] : memref<4xf32, #gpu.address_space<global>> to memref<?xf32, #gpu.address_space<global>>
// CHECK: %[[E:.*]] = memref.alloc() : memref<4xf32, #gpu.address_space<global>>
// CHECK: "lmhlo.fusion"() ({
// CHECK:   "lmhlo.abs"(%[[D]], %[[C]]) : (memref<4xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
// CHECK:   "lmhlo.negate"(%[[C]], %[[E]]) : (memref<?xf32, #gpu.address_space<global>>, memref<4xf32, #gpu.address_space<global>>) -> ()
// CHECK: %[[H:.*]] = memref.alloc() : memref<4xf32>
// CHECK: "lmhlo_disc.d2h"(%[[E]], %[[H]])
// CHECK: %[[R:.*]] = memref.alloc() : memref<4xf32>
// CHECK: "lmhlo.abs"(%[[H]], %[[R]]) {disc.device = "cpu"} : (memref<4xf32>, memref<4xf32>) -> ()
// CHECK: return %[[R]] : memref<4xf32>
func.func @main(%arg0: memref<4xf32>) -> memref<4xf32> attributes {tf.entry_function = {input_placements = "cpu", inputs = "input0", output_placements = "cpu", outputs = "output0"}} {
  %0 = memref.alloc() : memref<4xf32>
  "lmhlo_disc.h2d"(%arg0, %0) : (memref<4xf32>, memref<4xf32>) -> ()
  %1 = memref.alloc() : memref<4xf32>
  %2 = memref.cast %1 : memref<4xf32> to memref<?xf32>
  %3 = memref.alloc() : memref<4xf32>
  "lmhlo.fusion"() ({
    "lmhlo.abs"(%0, %2) : (memref<4xf32>, memref<?xf32>) -> ()
    "lmhlo.negate"(%2, %3) : (memref<?xf32>, memref<4xf32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu"} : () -> ()
  %4 = memref.alloc() : memref<4xf32>
  "lmhlo_disc.d2h"(%3, %4) : (memref<4xf32>, memref<4xf32>) -> ()
  %5 = memref.alloc() : memref<4xf32>
  "lmhlo.abs"(%4, %5) {disc.device = "cpu"} : (memref<4xf32>, memref<4xf32>) -> ()
  return %5 : memref<4xf32>
}

// -----

// A small constant read by lmhlo ops on both devices gets one copy per
// reader; a large one is shared.
// CHECK-LABEL: func.func @main
// CHECK: %[[K:.*]] = memref.alloc() : memref<2xf32>
// CHECK-NEXT: "lmhlo.constant"(%[[K]]) {value = dense<1.000000e+00> : tensor<2xf32>} : (memref<2xf32>) -> ()
// CHECK: "lmhlo.add"(%arg0, %[[K]], %{{.*}}) {disc.device = "cpu"}
// CHECK: %[[O2:.*]] = memref.alloc() : memref<2xf32, #gpu.address_space<global>>
// CHECK-NEXT: %[[K2:.*]] = memref.alloc() : memref<2xf32, #gpu.address_space<global>>
// CHECK-NEXT: "lmhlo.constant"(%[[K2]]) {value = dense<1.000000e+00> : tensor<2xf32>} : (memref<2xf32, #gpu.address_space<global>>) -> ()
// CHECK-NEXT: "lmhlo.add"(%arg1, %[[K2]], %[[O2]]) {disc.device = "gpu"}
func.func @main(%arg0: memref<2xf32>, %arg1: memref<2xf32>) -> (memref<2xf32>, memref<2xf32>) attributes {tf.entry_function = {input_placements = "cpu,gpu", inputs = "input0,input1", output_placements = "cpu,gpu", outputs = "output0,output1"}} {
  %k = memref.alloc() : memref<2xf32>
  "lmhlo.constant"(%k) {disc.device = "cpu", value = dense<1.0> : tensor<2xf32>} : (memref<2xf32>) -> ()
  %0 = memref.alloc() : memref<2xf32>
  "lmhlo.add"(%arg0, %k, %0) {disc.device = "cpu"} : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  %1 = memref.alloc() : memref<2xf32>
  "lmhlo.add"(%arg1, %k, %1) {disc.device = "gpu"} : (memref<2xf32>, memref<2xf32>, memref<2xf32>) -> ()
  return %0, %1 : memref<2xf32>, memref<2xf32>
}

// -----

// IR without memrefs on the device is left as it is.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: memref<3xi32>) -> memref<3xi32>
// CHECK-NEXT: return %arg0 : memref<3xi32>
func.func @main(%arg0: memref<3xi32>) -> memref<3xi32> attributes {tf.entry_function = {input_placements = "cpu", inputs = "input0", output_placements = "cpu", outputs = "output0"}} {
  return %arg0 : memref<3xi32>
}
