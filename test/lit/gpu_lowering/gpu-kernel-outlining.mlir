// RUN: disc-opt -gpu-launch-sink-index-computations %s | FileCheck %s --check-prefix=SINK
// RUN: disc-opt -gpu-kernel-outlining %s | FileCheck %s

// SINK-LABEL: func.func @main
// SINK:         gpu.launch
// SINK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// SINK-NEXT:      %[[DIM:.*]] = memref.dim %{{.*}}, %[[C0]] : memref<?xf32>
// SINK-NEXT:      %[[C4:.*]] = arith.constant 4.000000e+00 : f32

// The launch becomes a gpu.launch_func of @main_kernel in gpu.module
// @main_kernel; a second launch in the same function gets @main_kernel_0.
// Captured values are kernel arguments in first-use order; sunk constants and
// memref.dim are not.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:       func.func @main(%[[A:.*]]: memref<?xf32>, %[[B:.*]]: memref<?xf32>, %[[N:.*]]: index)
// CHECK:         %[[ONE:.*]] = arith.constant 1 : index
// CHECK:         %[[C256:.*]] = arith.constant 256 : index
// CHECK:         gpu.launch_func  @main_kernel::@main_kernel blocks in (%[[N]], %[[ONE]], %[[ONE]]) threads in (%[[C256]], %[[ONE]], %[[ONE]]) args(%[[A]] : memref<?xf32>, %[[B]] : memref<?xf32>)
// CHECK-NEXT:    gpu.launch_func  @main_kernel_0::@main_kernel blocks in (%[[ONE]], %[[ONE]], %[[ONE]]) threads in (%[[ONE]], %[[ONE]], %[[ONE]]) args(%[[N]] : index, %[[B]] : memref<?xf32>)
// CHECK-NEXT:    return
// CHECK:       gpu.module @main_kernel {
// CHECK-NEXT:    gpu.func @main_kernel(%[[KA:.*]]: memref<?xf32>, %[[KB:.*]]: memref<?xf32>) kernel {
// CHECK-NEXT:      %[[BX:.*]] = gpu.block_id x
// CHECK-NEXT:      %{{.*}} = gpu.block_id y
// CHECK-NEXT:      %{{.*}} = gpu.block_id z
// CHECK-NEXT:      %[[TX:.*]] = gpu.thread_id x
// CHECK-NEXT:      %{{.*}} = gpu.thread_id y
// CHECK-NEXT:      %{{.*}} = gpu.thread_id z
// CHECK-NEXT:      %{{.*}} = gpu.grid_dim x
// CHECK-NEXT:      %{{.*}} = gpu.grid_dim y
// CHECK-NEXT:      %{{.*}} = gpu.grid_dim z
// CHECK-NEXT:      %[[BDX:.*]] = gpu.block_dim x
// CHECK-NEXT:      %{{.*}} = gpu.block_dim y
// CHECK-NEXT:      %{{.*}} = gpu.block_dim z
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[DIM:.*]] = memref.dim %[[KA]], %[[C0]] : memref<?xf32>
// CHECK-NEXT:      %[[C4:.*]] = arith.constant 4.000000e+00 : f32
// CHECK-NEXT:      %[[OFF:.*]] = arith.muli %[[BX]], %[[BDX]] : index
// CHECK-NEXT:      %[[I:.*]] = arith.addi %[[OFF]], %[[TX]] : index
// CHECK-NEXT:      %[[IN:.*]] = arith.cmpi ult, %[[I]], %[[DIM]] : index
// CHECK-NEXT:      scf.if %[[IN]] {
// CHECK-NEXT:        %[[V:.*]] = memref.load %[[KA]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:        %[[M:.*]] = arith.mulf %[[V]], %[[C4]] : f32
// CHECK-NEXT:        memref.store %[[M]], %[[KB]][%[[I]]] : memref<?xf32>
// CHECK-NEXT:      }
// CHECK-NEXT:      gpu.return
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK:       gpu.module @main_kernel_0 {
// CHECK-NEXT:    gpu.func @main_kernel(%[[KN:.*]]: index, %[[KB2:.*]]: memref<?xf32>) kernel {
func.func @main(%a: memref<?xf32>, %b: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : index
  %c256 = arith.constant 256 : index
  %four = arith.constant 4.0 : f32
  %dim = memref.dim %a, %c0 : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c256, %sy = %one, %sz = %one) {
    %off = arith.muli %bx, %sx : index
    %i = arith.addi %off, %tx : index
    %in = arith.cmpi ult, %i, %dim : index
    scf.if %in {
      %v = memref.load %a[%i] : memref<?xf32>
      %m = arith.mulf %v, %four : f32
      memref.store %m, %b[%i] : memref<?xf32>
    }
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %one, %sy = %one, %sz = %one) {
    %f = arith.index_cast %n : index to i64
    %g = arith.sitofp %f : i64 to f32
    memref.store %g, %b[%c0] : memref<?xf32>
    gpu.terminator
  }
  return
}
