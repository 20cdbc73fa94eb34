// RUN: disc-opt %s '--disc-assign-memory-space{entry-func-name=entry}' | FileCheck %s
// RUN: disc-opt %s '--disc-assign-memory-space=entry-func-name=entry gpu-enabled=false' | FileCheck %s

// The entry function named by the option; placements given explicitly, so
// gpu-enabled changes nothing.
// Calls: the callee's arguments and results follow the caller's buffers,
// scf.if results follow their yields; the entry function may be renamed.
// CHECK-LABEL: func.func @callee
// CHECK-SAME: (%{{.*}}: memref<8xf32, #gpu.address_space<global>>, %{{.*}}: i1) -> memref<8xf32, #gpu.address_space<global>>
// CHECK: %[[R:.*]] = scf.if %{{.*}} -> (memref<8xf32, #gpu.address_space<global>>)
// CHECK: memref.alloc() : memref<8xf32, #gpu.address_space<global>>
// CHECK: return %[[R]] : memref<8xf32, #gpu.address_space<global>>
// CHECK-LABEL: func.func @entry
// CHECK-SAME: (%[[A:.*]]: memref<8xf32, #gpu.address_space<global>>, %{{.*}}: i1) -> memref<8xf32, #gpu.address_space<global>>
// CHECK: %[[C:.*]] = call @callee(%[[A]], %{{.*}}) : (memref<8xf32, #gpu.address_space<global>>, i1) -> memref<8xf32, #gpu.address_space<global>>
// CHECK: return %[[C]]
func.func @callee(%arg0: memref<8xf32>, %p: i1) -> memref<8xf32> {
  %r = scf.if %p -> (memref<8xf32>) {
    scf.yield %arg0 : memref<8xf32>
  } else {
    %0 = memref.alloc() : memref<8xf32>
    scf.yield %0 : memref<8xf32>
  }
  return %r : memref<8xf32>
}
func.func @entry(%arg0: memref<8xf32>, %p: i1) -> memref<8xf32> attributes {tf.entry_function = {input_placements = "gpu,cpu", inputs = "input0,input1", output_placements = "gpu", outputs = "output0"}} {
  %0 = func.call @callee(%arg0, %p) : (memref<8xf32>, i1) -> memref<8xf32>
  return %0 : memref<8xf32>
}

