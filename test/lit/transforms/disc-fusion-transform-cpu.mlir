// RUN: disc-opt -split-input-file -pass-pipeline='builtin.module(func.func(disc-fusion{gpu-enabled=false fusion-strategy=stitch mlir-compute-intensive-codegen=true}))' %s | FileCheck %s
// RUN: env DISC_ENABLE_TRANSFORM_SCHEDULE=1 disc-opt -split-input-file -pass-pipeline='builtin.module(func.func(disc-fusion{gpu-enabled=false fusion-strategy=stitch}))' %s | FileCheck %s
// RUN: env DISC_ENABLE_TRANSFORM_GEMM_EPILOGUE_FUSION=0 disc-opt -split-input-file -pass-pipeline='builtin.module(func.func(disc-fusion{gpu-enabled=false fusion-strategy=stitch mlir-compute-intensive-codegen=true}))' %s | FileCheck %s --check-prefix=NOEPI
// RUN: disc-opt -split-input-file -pass-pipeline='builtin.module(func.func(disc-fusion{gpu-enabled=false fusion-strategy=stitch}))' %s | FileCheck %s --check-prefix=OFF

// The transform_based stage (TransformBasedCpuFusionStrategy): a rank-2 GEMM
// becomes a kTransform fusion with its constant weight and an elementwise
// epilogue (bias broadcast + add, scalar constant + multiply).
// CHECK-LABEL: func.func @gemm_bias_scale
// CHECK: "lmhlo.fusion"() ({
// CHECK-NEXT: "lmhlo.constant"
// CHECK-NEXT: "lmhlo.dot_general"
// CHECK-NEXT: "lmhlo.broadcast_in_dim"
// CHECK-NEXT: "lmhlo.add"
// CHECK-NEXT: "lmhlo.constant"
// CHECK-NEXT: "lmhlo.broadcast_in_dim"
// CHECK-NEXT: "lmhlo.multiply"
// CHECK-NEXT: "lmhlo.terminator"
// CHECK-NEXT: }) {disc.device = "cpu", disc.fusion.name = "gemm_bias_scale_kTransform_multiply__7_1_0", disc.fusion_type = "kTransform"}
// CHECK-NEXT: return
// Without the epilogue: the GEMM and its weight; the epilogue is a kLoop fusion.
// NOEPI: "lmhlo.fusion"() ({
// NOEPI-NEXT: "lmhlo.constant"
// NOEPI-NEXT: "lmhlo.dot_general"
// NOEPI-NEXT: "lmhlo.terminator"
// NOEPI-NEXT: }) {{.*}}disc.fusion_type = "kTransform"
// NOEPI: "lmhlo.fusion"() ({
// NOEPI: "lmhlo.multiply"
// NOEPI: disc.fusion_type = "kLoop"
// Without the stage the GEMM stays a library call.
// OFF-NOT: kTransform
func.func @gemm_bias_scale(%x: memref<?x4xf32>, %w: memref<4x8xf32>, %b: memref<8xf32>,
                           %y: memref<?x8xf32>, %bb: memref<?x8xf32>, %s: memref<f32>,
                           %sb: memref<?x8xf32>, %t: memref<?x8xf32>, %out: memref<?x8xf32>) -> memref<?x8xf32> {
  "lmhlo.constant"(%w) {value = dense<0.5> : tensor<4x8xf32>} : (memref<4x8xf32>) -> ()
  "lmhlo.dot_general"(%x, %w, %y) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<?x4xf32>, memref<4x8xf32>, memref<?x8xf32>) -> ()
  "lmhlo.broadcast_in_dim"(%b, %bb) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (memref<8xf32>, memref<?x8xf32>) -> ()
  "lmhlo.add"(%y, %bb, %t) : (memref<?x8xf32>, memref<?x8xf32>, memref<?x8xf32>) -> ()
  "lmhlo.constant"(%s) {value = dense<2.0> : tensor<f32>} : (memref<f32>) -> ()
  "lmhlo.broadcast_in_dim"(%s, %sb) {broadcast_dimensions = dense<> : tensor<0xi64>} : (memref<f32>, memref<?x8xf32>) -> ()
  "lmhlo.multiply"(%t, %sb, %out) : (memref<?x8xf32>, memref<?x8xf32>, memref<?x8xf32>) -> ()
  return %out : memref<?x8xf32>
}

// -----

// Epilogue fusion only: a GEMM reading a buffer made by another op (a
// prologue) is a kTransform fusion of its own (a single GEMM is one; a
// single other op is not).
// CHECK-LABEL: func.func @gemm_after_prologue
// CHECK-NEXT: "lmhlo.abs"
// CHECK-NEXT: "lmhlo.fusion"() ({
// CHECK-NEXT: "lmhlo.dot_general"
// CHECK-NEXT: "lmhlo.terminator"
// CHECK-NEXT: }) {{.*}}disc.fusion_type = "kTransform"
func.func @gemm_after_prologue(%x: memref<?x4xf32>, %ax: memref<?x4xf32>, %w: memref<4x8xf32>,
                               %y: memref<?x8xf32>) -> memref<?x8xf32> {
  "lmhlo.abs"(%x, %ax) : (memref<?x4xf32>, memref<?x4xf32>) -> ()
  "lmhlo.dot_general"(%ax, %w, %y) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<?x4xf32>, memref<4x8xf32>, memref<?x8xf32>) -> ()
  return %y : memref<?x8xf32>
}

// -----

// One result only: the GEMM's output read outside keeps the epilogue apart;
// a weight read outside stays outside; a batched GEMM is not supported.
// CHECK-LABEL: func.func @gemm_two_results
// CHECK: "lmhlo.constant"
// CHECK-NEXT: "lmhlo.fusion"() ({
// CHECK-NEXT: "lmhlo.dot_general"
// CHECK-NEXT: "lmhlo.terminator"
// CHECK-NEXT: }) {{.*}}disc.fusion_type = "kTransform"
// CHECK-NOT: kTransform
// CHECK: "lmhlo.dot_general"{{.*}}memref<2x?x4xf32>
// CHECK: return
func.func @gemm_two_results(%x: memref<?x4xf32>, %w: memref<4x8xf32>, %y: memref<?x8xf32>,
                            %t: memref<?x8xf32>, %bx: memref<2x?x4xf32>, %bw: memref<2x4x8xf32>,
                            %by: memref<2x?x8xf32>) -> (memref<4x8xf32>, memref<?x8xf32>, memref<?x8xf32>, memref<2x?x8xf32>) {
  "lmhlo.constant"(%w) {value = dense<0.5> : tensor<4x8xf32>} : (memref<4x8xf32>) -> ()
  "lmhlo.dot_general"(%x, %w, %y) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<?x4xf32>, memref<4x8xf32>, memref<?x8xf32>) -> ()
  "lmhlo.abs"(%y, %t) : (memref<?x8xf32>, memref<?x8xf32>) -> ()
  "lmhlo.dot_general"(%bx, %bw, %by) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (memref<2x?x4xf32>, memref<2x4x8xf32>, memref<2x?x8xf32>) -> ()
  return %w, %y, %t, %by : memref<4x8xf32>, memref<?x8xf32>, memref<?x8xf32>, memref<2x?x8xf32>
}
