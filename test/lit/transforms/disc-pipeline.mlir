// RUN: disc-opt '--disc-pipeline{until=bufferize}' %s | FileCheck %s
// RUN: disc-opt '-pass-pipeline=builtin.module(disc-pipeline{target=cpu until=tensor})' --mlir-print-ir-after-all %s 2>&1 >/dev/null | FileCheck %s --check-prefix=DUMPS
// RUN: not disc-opt '--disc-pipeline{until=nowhere}' %s 2>&1 | FileCheck %s --check-prefix=BADPHASE
// RUN: not disc-opt '--disc-pipeline{target=tpu}' %s 2>&1 | FileCheck %s --check-prefix=BADTARGET

// The pipeline up to bufferization: tensors become buffers allocated with
// their dynamic sizes, every mhlo op becomes its lmhlo form (the input
// phase's run-time check of the bias broadcast included).
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%arg0: memref<?x?xf32>, %arg1: memref<?xf32>) -> memref<?x?xf32>
// CHECK-NOT: {{"mhlo\.|= mhlo\.}}
// Inputs are tied to their symbolic shapes (disc_shape.tie_shape, then
// memref.reinterpret_cast after bufferization).
// CHECK: %[[D0:.*]] = memref.dim %arg0, %c0
// CHECK: %[[D1:.*]] = memref.dim %arg0, %c1
// CHECK: %[[X:.*]] = memref.reinterpret_cast %arg0 to offset: [0], sizes: [%[[D0]], %[[D1]]], strides: [%[[D1]], 1]
// CHECK: %[[BIAS:.*]] = memref.reinterpret_cast %arg1
// CHECK: ral_shape_assertion
// CHECK: %[[B:.*]] = memref.alloc(%[[D0]], %[[D1]]) : memref<?x?xf32>
// CHECK: "lmhlo.dynamic_broadcast_in_dim"(%[[BIAS]], %{{.*}}, %[[B]])
// CHECK: %[[S:.*]] = memref.alloc(%[[D0]], %[[D1]]) : memref<?x?xf32>
// CHECK: "lmhlo.add"(%[[X]], %[[B]], %[[S]])
// CHECK: %[[E:.*]] = memref.alloc(%[[D0]], %[[D1]]) : memref<?x?xf32>
// CHECK: "lmhlo.exponential"(%[[S]], %[[E]])
// CHECK: return %[[E]] : memref<?x?xf32>

// Every pass of the expanded pipeline is dumped under its own name.
// DUMPS: IR Dump After DiscAlgebraicSimplifierPass (disc-algebraic-simplifier)
// DUMPS: IR Dump After DiscRemoveShapeConstraintsPass (disc-remove-shape-constraint)
// DUMPS: IR Dump After CanonicalizePass (canonicalize)
// DUMPS: IR Dump After DiscDotRewriterPass (disc-dot-rewriter)
// DUMPS-NOT: IR Dump After DiscMhloMarkShapeCalcPass

// BADPHASE: pass 'disc-pipeline': unknown phase 'nowhere' (phases: input, tensor, placement, bufferize, lhlo, ral, codegen, llvm)
// BADTARGET: pass 'disc-pipeline': unknown target 'tpu' (known: cpu, cuda)

func.func @main(%x: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32>
    attributes {tf.entry_function = {inputs = "x,b", outputs = "z", input_placements = "cpu,cpu", output_placements = "cpu"}} {
  %s = shape.shape_of %x : tensor<?x?xf32> -> tensor<2xindex>
  %bb = "mhlo.dynamic_broadcast_in_dim"(%b, %s) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<?xf32>, tensor<2xindex>) -> tensor<?x?xf32>
  %y = mhlo.add %x, %bb : tensor<?x?xf32>
  %z = mhlo.exponential %y : tensor<?x?xf32>
  return %z : tensor<?x?xf32>
}
