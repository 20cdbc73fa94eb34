// RUN: disc-opt -split-input-file -disc-lower-to-library-call %s | FileCheck %s
// RUN: disc-opt -split-input-file -disc-lower-to-library-call=gpu-enabled=false %s | FileCheck %s --check-prefix=CPU

// CHECK-LABEL: func.func @recv_send
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context)
// CHECK: %[[IN:.*]] = "disc_ral.dispatch"(%[[CTX]], %{{.*}}) {backend_config = "", call_target_name = "ral_recv_input", device = "cpu", has_side_effect = false} : (!disc_ral.context, index) -> memref<?x?x?xf16>
// CHECK: "disc_ral.dispatch"(%[[CTX]], %{{.*}}, %[[IN]]) {backend_config = "", call_target_name = "ral_send_output", device = "cpu", has_side_effect = false} : (!disc_ral.context, index, memref<?x?x?xf16>) -> ()
// CHECK-NOT: disc_ral.recv_input
// CHECK-NOT: disc_ral.send_output
func.func @recv_send(%ctx: !disc_ral.context) {
  %c0 = arith.constant 0 : index
  %0 = "disc_ral.recv_input"(%ctx, %c0) : (!disc_ral.context, index) -> memref<?x?x?xf16>
  "disc_ral.send_output"(%ctx, %c0, %0) : (!disc_ral.context, index, memref<?x?x?xf16>) -> ()
  return
}

// -----

// The stream handle is stream #0 as an opaque pointer.
// CHECK-LABEL: func.func @h2d_d2h
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context, %[[H:.*]]: memref<?xf32>, %[[D:.*]]: memref<?xf32, #gpu.address_space<global>>)
// CHECK: %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[S:.*]] = llvm.inttoptr %[[Z]] : i32 to !llvm.ptr<i8>
// CHECK: "disc_ral.dispatch"(%[[CTX]], %[[S]], %[[H]], %[[D]]) {backend_config = "", call_target_name = "h2d", device = "gpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr<i8>, memref<?xf32>, memref<?xf32, #gpu.address_space<global>>) -> ()
// CHECK: "disc_ral.dispatch"(%[[CTX]], %[[S]]) {backend_config = "", call_target_name = "sync_on_stream", device = "gpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr<i8>) -> ()
// CHECK: %[[S2:.*]] = llvm.inttoptr
// CHECK: "disc_ral.dispatch"(%[[CTX]], %[[S2]], %[[D]], %[[H]]) {{.*}}call_target_name = "d2h"
// CHECK: "disc_ral.dispatch"(%[[CTX]], %[[S2]]) {{.*}}call_target_name = "sync_on_stream"
// CHECK-NOT: lmhlo_disc.h2d
// CHECK-NOT: lmhlo_disc.d2h
func.func @h2d_d2h(%ctx: !disc_ral.context, %h: memref<?xf32>, %d: memref<?xf32, #gpu.address_space<global>>) {
  "lmhlo_disc.h2d"(%h, %d) : (memref<?xf32>, memref<?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo_disc.d2h"(%d, %h) : (memref<?xf32, #gpu.address_space<global>>, memref<?xf32>) -> ()
  return
}

// -----

// gemm: transpose flags from the contracting dims, weight_is_const from an
// lmhlo.constant on the rhs buffer; the device of the output.
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context, %[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<4x8xf32>, %[[C:.*]]: memref<?x8xf32>)
// CHECK-DAG: %[[TRUE:.*]] = arith.constant true
// CHECK-DAG: %[[FALSE:.*]] = arith.constant false
// CHECK: %[[S:.*]] = llvm.inttoptr
// CHECK: "disc_ral.dispatch"(%[[CTX]], %[[S]], %[[A]], %[[B]], %[[C]], %[[TRUE]], %[[FALSE]], %[[TRUE]]) {backend_config = "", call_target_name = "ral_gemm", device = "cpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr<i8>, memref<?x?xf32>, memref<4x8xf32>, memref<?x8xf32>, i1, i1, i1) -> ()
// CHECK-NOT: lmhlo.dot_general
func.func @gemm(%ctx: !disc_ral.context, %a: memref<?x?xf32>, %b: memref<4x8xf32>, %c: memref<?x8xf32>) {
  "lmhlo.constant"(%b) {value = dense<1.0> : tensor<4x8xf32>} : (memref<4x8xf32>) -> ()
  "lmhlo.dot_general"(%a, %b, %c) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>} : (memref<?x?xf32>, memref<4x8xf32>, memref<?x8xf32>) -> ()
  return
}

// -----

// Batched gemm on the GPU.
// CHECK-LABEL: func.func @batched_gemm
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: "disc_ral.dispatch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[FALSE]], %[[FALSE]], %[[FALSE]]) {backend_config = "", call_target_name = "ral_gemm", device = "gpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr<i8>, memref<?x?x?xf16, #gpu.address_space<global>>, memref<?x?x?xf16, #gpu.address_space<global>>, memref<?x?x?xf16, #gpu.address_space<global>>, i1, i1, i1) -> ()
func.func @batched_gemm(%ctx: !disc_ral.context, %a: memref<?x?x?xf16, #gpu.address_space<global>>, %b: memref<?x?x?xf16, #gpu.address_space<global>>, %c: memref<?x?x?xf16, #gpu.address_space<global>>) {
  "lmhlo.dot_general"(%a, %b, %c) {dot_dimension_numbers = #mhlo.dot<lhs_batching_dimensions = [0], rhs_batching_dimensions = [0], lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>} : (memref<?x?x?xf16, #gpu.address_space<global>>, memref<?x?x?xf16, #gpu.address_space<global>>, memref<?x?x?xf16, #gpu.address_space<global>>) -> ()
  return
}

// -----

// Static convolution: a padding buffer and the metadata buffer
// (3 * 4 + 2 * 2 + 1 = 17 fields: layouts, strides, dilations, const kernel).
// CHECK-LABEL: func.func @conv
// CHECK: %[[PAD:.*]] = memref.alloca() : memref<4xi32>
// CHECK: memref.store %{{.*}}, %[[PAD]][%{{.*}}] : memref<4xi32>
// CHECK: %[[META:.*]] = memref.alloca() : memref<17xi32>
// CHECK: memref.store %{{.*}}, %[[META]][%c16] : memref<17xi32>
// CHECK: "disc_ral.dispatch"(%{{.*}}, %{{.*}}, %[[IN:.*]], %[[K:.*]], %[[PAD]], %[[OUT:.*]], %[[META]]) {backend_config = "", call_target_name = "ral_conv", device = "cpu", has_side_effect = false}
// CHECK-NOT: lmhlo.convolution
func.func @conv(%ctx: !disc_ral.context, %in: memref<1x3x8x8xf32>, %k: memref<4x3x3x3xf32>, %out: memref<1x4x8x8xf32>) {
  "lmhlo.convolution"(%in, %k, %out) {batch_group_count = 1 : i64, dimension_numbers = #mhlo.conv<[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]>, feature_group_count = 1 : i64, padding = dense<1> : tensor<2x2xi64>, rhs_dilation = dense<1> : tensor<2xi64>, window_strides = dense<1> : tensor<2xi64>} : (memref<1x3x8x8xf32>, memref<4x3x3x3xf32>, memref<1x4x8x8xf32>) -> ()
  return
}

// -----

// A 2-D f32 transpose on the GPU becomes ral_transpose; a rank-4 one and an
// f16 one (the RAL transposes f32 / f64 with cuBLAS geam) stay.
// CHECK-LABEL: func.func @transpose
// CHECK: %[[PERM:.*]] = memref.alloca() : memref<2xi32>
// CHECK: "disc_ral.dispatch"(%{{.*}}, %{{.*}}, %{{.*}}, %[[PERM]], %{{.*}}) {backend_config = "", call_target_name = "ral_transpose", device = "gpu", has_side_effect = false}
// CHECK: "lmhlo.transpose"
// CHECK-SAME: tensor<4xi64>
// CHECK: "lmhlo.transpose"
// CHECK-SAME: memref<?x?xf16, #gpu.address_space<global>>
// CHECK-NOT: ral_transpose
func.func @transpose(%ctx: !disc_ral.context, %a: memref<?x?xf32, #gpu.address_space<global>>, %b: memref<?x?xf32, #gpu.address_space<global>>, %c: memref<?x?x?x?xf32, #gpu.address_space<global>>, %d: memref<?x?x?x?xf32, #gpu.address_space<global>>, %e: memref<?x?xf16, #gpu.address_space<global>>, %f: memref<?x?xf16, #gpu.address_space<global>>) {
  "lmhlo.transpose"(%a, %b) {permutation = dense<[1, 0]> : tensor<2xi64>} : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.transpose"(%c, %d) {permutation = dense<[0, 2, 3, 1]> : tensor<4xi64>} : (memref<?x?x?x?xf32, #gpu.address_space<global>>, memref<?x?x?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.transpose"(%e, %f) {permutation = dense<[1, 0]> : tensor<2xi64>} : (memref<?x?xf16, #gpu.address_space<global>>, memref<?x?xf16, #gpu.address_space<global>>) -> ()
  return
}

// -----

// Copy removal: inc_ref of the source with the target shape, then a
// row-major reinterpret_cast used by the later users. Host buffers are kept
// on GPU builds; on CPU-only builds big host buffers are elided, small ones
// kept.
// CHECK-LABEL: func.func @copy_removal
// CHECK-SAME: (%[[CTX:.*]]: !disc_ral.context, %[[SRC:.*]]: memref<?x?xf32, #gpu.address_space<global>>, %[[N:.*]]: index)
// CHECK: %[[SHAPE:.*]] = memref.alloca() : memref<2xindex>
// CHECK: memref.store %[[N]], %[[SHAPE]][%c0] : memref<2xindex>
// CHECK: memref.store %c16, %[[SHAPE]][%c1] : memref<2xindex>
// CHECK: %[[R:.*]] = "disc_ral.dispatch"(%[[CTX]], %{{.*}}, %[[SRC]], %[[SHAPE]]) {backend_config = "", call_target_name = "inc_ref", device = "gpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr<i8>, memref<?x?xf32, #gpu.address_space<global>>, memref<2xindex>) -> memref<?x16xf32, #gpu.address_space<global>>
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[R]] to offset: [0], sizes: [%[[N]], 16], strides: [16, 1]
// CHECK: "lmhlo.abs"(%[[V]], %{{.*}})
// CHECK: "lmhlo.copy"(%{{.*}}, %{{.*}}) : (memref<64xf32>, memref<64xf32>) -> ()
// CHECK: "lmhlo.copy"(%{{.*}}, %{{.*}}) : (memref<4xf32>, memref<4xf32>) -> ()
// CPU-LABEL: func.func @copy_removal
// CPU: call_target_name = "inc_ref", device = "gpu"
// CPU: call_target_name = "inc_ref", device = "cpu"
// CPU-SAME: -> memref<64xf32>
// CPU: "lmhlo.copy"(%{{.*}}, %{{.*}}) : (memref<4xf32>, memref<4xf32>) -> ()
func.func @copy_removal(%ctx: !disc_ral.context, %src: memref<?x?xf32, #gpu.address_space<global>>, %n: index) {
  %0 = memref.alloc(%n) : memref<?x16xf32, #gpu.address_space<global>>
  "lmhlo.copy"(%src, %0) : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x16xf32, #gpu.address_space<global>>) -> ()
  %1 = memref.alloc(%n) : memref<?x16xf32, #gpu.address_space<global>>
  "lmhlo.abs"(%0, %1) : (memref<?x16xf32, #gpu.address_space<global>>, memref<?x16xf32, #gpu.address_space<global>>) -> ()
  %h0 = memref.alloc() : memref<64xf32>
  %h1 = memref.alloc() : memref<64xf32>
  "lmhlo.copy"(%h0, %h1) : (memref<64xf32>, memref<64xf32>) -> ()
  %s0 = memref.alloc() : memref<4xf32>
  %s1 = memref.alloc() : memref<4xf32>
  "lmhlo.copy"(%s0, %s1) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}

// -----

// Not removable: the output is written in place later, or used before.
// CHECK-LABEL: func.func @copy_kept
// CHECK-COUNT-2: "lmhlo.copy"
// CHECK-NOT: inc_ref
func.func @copy_kept(%ctx: !disc_ral.context, %a: memref<8xf32, #gpu.address_space<global>>, %b: memref<8xf32, #gpu.address_space<global>>, %c: memref<8xf32, #gpu.address_space<global>>) {
  "lmhlo.copy"(%a, %b) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.add"(%b, %a, %b) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.abs"(%c, %a) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.copy"(%a, %c) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
  return
}

// -----

// A stack buffer (promote-buffers-to-stack takes allocations up to 1 KiB,
// bigger than "small" here) is never aliased on CPU builds: the reshape of a
// 64-element alloca into a returned buffer stays a copy (an inc_ref view of
// it would outlive the frame).
// CPU-LABEL: func.func @reshape_of_stack_buffer
// CPU-NOT:     inc_ref
// CPU:         "lmhlo.reshape"(%{{.*}}, %[[OUT:.*]]) : (memref<1x4x16xf32>, memref<4x16xf32>) -> ()
// CPU:         return %[[OUT]]
func.func @reshape_of_stack_buffer(%ctx: !disc_ral.context) -> memref<4x16xf32> {
  %0 = memref.alloca() : memref<1x4x16xf32>
  %1 = memref.alloc() : memref<4x16xf32>
  "lmhlo.reshape"(%0, %1) : (memref<1x4x16xf32>, memref<4x16xf32>) -> ()
  return %1 : memref<4x16xf32>
}

// -----

// topk -> ral_dsort with the dimension (i64) and is_ascending = false.
// CHECK-LABEL: func.func @topk
// CHECK-DAG: %[[DIM:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[ASC:.*]] = arith.constant false
// CHECK: "disc_ral.dispatch"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DIM]], %[[ASC]]) {backend_config = "", call_target_name = "ral_dsort", device = "gpu", has_side_effect = false}
func.func @topk(%ctx: !disc_ral.context, %k: memref<?x?xf32, #gpu.address_space<global>>, %v: memref<?x?xi32, #gpu.address_space<global>>, %n: memref<i32>, %ok: memref<?x?xf32, #gpu.address_space<global>>, %ov: memref<?x?xi32, #gpu.address_space<global>>) {
  "lmhlo_disc.custom_call"(%k, %v, %n, %ok, %ov) {backend_config = "{\22dimension\22:1}", call_target_name = "topk", has_side_effect = false, operand_segment_sizes = array<i32: 3, 2>} : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xi32, #gpu.address_space<global>>, memref<i32>, memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xi32, #gpu.address_space<global>>) -> ()
  return
}

// -----

// custom_call_v2: results come from the dispatch; the custom attrs are
// serialized into backend_config ('d' places it on the GPU).
// CHECK-LABEL: func.func @custom_v2
// CHECK: %[[R:.*]] = "disc_ral.dispatch"(%{{.*}}, %{{.*}}, %{{.*}}) {backend_config = "\04\00\00\00\00\00\00\00dict\00\00\00\00\00\00\00\00", call_target_name = "my_op", device = "gpu", has_side_effect = false} : (!disc_ral.context, !llvm.ptr<i8>, memref<?xf32, #gpu.address_space<global>>) -> memref<?xf32, #gpu.address_space<global>>
// CHECK: return %[[R]]
func.func @custom_v2(%ctx: !disc_ral.context, %a: memref<?xf32, #gpu.address_space<global>>) -> memref<?xf32, #gpu.address_space<global>> {
  %0 = "lmhlo_disc.custom_call_v2"(%a) {call_target_name = "my_op", custom_attrs = {}, device = "d", input_placements = "d", output_placements = "d", input_layouts = "*", output_layouts = "*", expected_input_layouts = "*", expected_output_layouts = "*", has_side_effect = false} : (memref<?xf32, #gpu.address_space<global>>) -> memref<?xf32, #gpu.address_space<global>>
  return %0 : memref<?xf32, #gpu.address_space<global>>
}

// -----

// Ops inside fusions and comp-intensive fusion functions are left alone.
// CHECK-LABEL: func.func @skipped
// CHECK: "lmhlo.dot_general"
// CHECK-LABEL: func.func @in_fusion
// CHECK: "lmhlo.fusion"
// CHECK: "lmhlo.copy"
func.func @skipped(%ctx: !disc_ral.context, %a: memref<2x2xf32>, %b: memref<2x2xf32>, %c: memref<2x2xf32>) attributes {disc.comp_intens_fusion = "x"} {
  "lmhlo.dot_general"(%a, %b, %c) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<2x2xf32>, memref<2x2xf32>, memref<2x2xf32>) -> ()
  return
}
func.func @in_fusion(%ctx: !disc_ral.context, %a: memref<8xf32, #gpu.address_space<global>>, %b: memref<8xf32, #gpu.address_space<global>>) {
  "lmhlo.fusion"() ({
    "lmhlo.copy"(%a, %b) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) : () -> ()
  return
}
