// RUN: disc-opt -split-input-file -pass-pipeline='builtin.module(func.func(disc-fusion{gpu-enabled=true fusion-strategy=base}))' %s | FileCheck %s --check-prefix=GPU
// RUN: disc-opt -split-input-file -pass-pipeline='builtin.module(func.func(disc-fusion{gpu-enabled=false fusion-strategy=base}))' %s | FileCheck %s --check-prefix=CPU
// RUN: env DISC_ENABLE_HORIZONTAL_FUSION=0 disc-opt -split-input-file -pass-pipeline='builtin.module(func.func(disc-fusion{gpu-enabled=true}))' %s | FileCheck %s --check-prefix=NOHORIZ
// RUN: not disc-opt -pass-pipeline='builtin.module(func.func(disc-fusion{fusion-strategy=fancy}))' %s 2>&1 | FileCheck %s --check-prefix=BADOPT

// BADOPT: unknown fusion-strategy 'fancy'

// kLoop on the GPU. The op order is kept, the fusion sits where the last op
// was, and gets BladeDISC's attributes and name.
// GPU-LABEL: func.func @kloop
// GPU-SAME: (%[[A:.*]]: memref<?x?xf32, #gpu.address_space<global>>, %[[B:.*]]: memref<?x?xf32, #gpu.address_space<global>>, %[[C:.*]]: memref<?x?xf32, #gpu.address_space<global>>, %[[D:.*]]: memref<?x?xf32, #gpu.address_space<global>>)
// GPU-NEXT: "lmhlo.fusion"() ({
// GPU-NEXT: "lmhlo.abs"(%[[A]], %[[B]])
// GPU-NEXT: "lmhlo.add"(%[[B]], %[[C]], %[[D]])
// GPU-NEXT: "lmhlo.terminator"() : () -> ()
// GPU-NEXT: }) {disc.device = "gpu", disc.fusion.name = "kloop_kLoop_add__2_1_0", disc.fusion_type = "kLoop"} : () -> ()
// GPU-NEXT: return %[[D]]
// The GPU buffers have no CPU strategy: nothing fuses with gpu-enabled=false.
// CPU-LABEL: func.func @kloop
// CPU-NOT: lmhlo.fusion
// CPU: return
func.func @kloop(%a: memref<?x?xf32, #gpu.address_space<global>>, %b: memref<?x?xf32, #gpu.address_space<global>>, %c: memref<?x?xf32, #gpu.address_space<global>>, %d: memref<?x?xf32, #gpu.address_space<global>>) -> memref<?x?xf32, #gpu.address_space<global>> {
  "lmhlo.abs"(%a, %b) : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.add"(%b, %c, %d) : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  return %d : memref<?x?xf32, #gpu.address_space<global>>
}

// -----

// CPU reductions: a trailing-dims reduction of any rank is kRowReduction, a
// leading-dim one kInput; each takes its elementwise producer. The two
// fusions stay apart (a reduce root must be the only root on the CPU).
// CPU-LABEL: func.func @cpu_reductions
// CPU-NEXT: "lmhlo.fusion"() ({
// CPU-NEXT: "lmhlo.exponential"
// CPU-NEXT: "lmhlo.reduce"
// CPU: }) {dimensions = dense<[1, 2]> : tensor<2xi64>}
// CPU-NEXT: "lmhlo.terminator"
// CPU-NEXT: }) {disc.device = "cpu", disc.fusion.name = "cpu_reductions_kRowReduction_reduce__2_1_0", disc.fusion_type = "kRowReduction"}
// CPU-NEXT: "lmhlo.fusion"() ({
// CPU-NEXT: "lmhlo.negate"
// CPU-NEXT: "lmhlo.reduce"
// CPU: }) {dimensions = dense<0> : tensor<1xi64>}
// CPU-NEXT: "lmhlo.terminator"
// CPU-NEXT: }) {disc.device = "cpu", disc.fusion.name = "cpu_reductions_kInput_reduce__2_1_0", disc.fusion_type = "kInput"}
// CPU-NEXT: return
func.func @cpu_reductions(%a: memref<?x?x?xf32>, %b: memref<?x?x?xf32>, %init: memref<f32>, %r: memref<?xf32>, %m: memref<?x?xf32>, %n: memref<?x?xf32>, %col: memref<?xf32>) -> (memref<?xf32>, memref<?xf32>) {
  "lmhlo.exponential"(%a, %b) : (memref<?x?x?xf32>, memref<?x?x?xf32>) -> ()
  "lmhlo.reduce"(%b, %init, %r) ({
  ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
    "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<[1, 2]> : tensor<2xi64>} : (memref<?x?x?xf32>, memref<f32>, memref<?xf32>) -> ()
  "lmhlo.negate"(%m, %n) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.reduce"(%n, %init, %col) ({
  ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
    "lmhlo.maximum"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<0> : tensor<1xi64>} : (memref<?x?xf32>, memref<f32>, memref<?xf32>) -> ()
  return %r, %col : memref<?xf32>, memref<?xf32>
}

// -----

// Reductions for the GPU. Rank-2 row reduction -> kRowReduction, column -> kColReduction;
// a rank-3 reduce is not fusible on the GPU.
// GPU-LABEL: func.func @gpu_reductions
// GPU: "lmhlo.fusion"() ({
// GPU-NEXT: "lmhlo.negate"
// GPU-NEXT: "lmhlo.reduce"
// GPU: }) {disc.device = "gpu", disc.fusion.name = "gpu_reductions_kRowReduction_reduce__2_1_0", disc.fusion_type = "kRowReduction"}
// GPU: "lmhlo.fusion"() ({
// GPU-NEXT: "lmhlo.abs"
// GPU-NEXT: "lmhlo.reduce"
// GPU: }) {disc.device = "gpu", disc.fusion.name = "gpu_reductions_kColReduction_reduce__2_1_0", disc.fusion_type = "kColReduction"}
// GPU-NEXT: "lmhlo.sqrt"
// GPU-NEXT: "lmhlo.reduce"
// GPU-NOT: lmhlo.fusion
// GPU: return
func.func @gpu_reductions(%a: memref<?x?xf32, #gpu.address_space<global>>, %b: memref<?x?xf32, #gpu.address_space<global>>, %init: memref<f32, #gpu.address_space<global>>, %r: memref<?xf32, #gpu.address_space<global>>, %c: memref<?x?xf32, #gpu.address_space<global>>, %d: memref<?x?xf32, #gpu.address_space<global>>, %col: memref<?xf32, #gpu.address_space<global>>, %e: memref<?x?x?xf32, #gpu.address_space<global>>, %f: memref<?x?x?xf32, #gpu.address_space<global>>, %g: memref<?x?xf32, #gpu.address_space<global>>) -> (memref<?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) {
  "lmhlo.negate"(%a, %b) : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.reduce"(%b, %init, %r) ({
  ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
    "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.abs"(%c, %d) : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.reduce"(%d, %init, %col) ({
  ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
    "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<0> : tensor<1xi64>} : (memref<?x?xf32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.sqrt"(%e, %f) : (memref<?x?x?xf32, #gpu.address_space<global>>, memref<?x?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.reduce"(%f, %init, %g) ({
  ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
    "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<2> : tensor<1xi64>} : (memref<?x?x?xf32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  return %r, %col, %g : memref<?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>
}

// -----

// Multi-output kLoop: both results hold the same number of elements because
// one is a reshape of a buffer of the other's shape.
// GPU-LABEL: func.func @multi_output_reshape
// GPU-SAME: (%[[A:[a-z0-9]+]]: {{.*}}, %[[B:[a-z0-9]+]]: {{.*}}, %[[S:[a-z0-9]+]]: {{.*}}, %[[C:[a-z0-9]+]]: {{.*}}, %[[D:[a-z0-9]+]]: {{.*}}, %[[E:[a-z0-9]+]]: {{.*}})
// GPU-NEXT: "lmhlo.fusion"() ({
// GPU-NEXT: "lmhlo.abs"(%[[A]], %[[B]])
// GPU-NEXT: "lmhlo.dynamic_reshape"(%[[B]], %[[S]], %[[C]])
// GPU-NEXT: "lmhlo.add"(%[[C]], %[[D]], %[[E]])
// GPU-NEXT: "lmhlo.terminator"
// GPU-NEXT: }) {disc.device = "gpu", disc.fusion.name = "multi_output_reshape_kLoop_abs_add__3_2_0", disc.fusion_type = "kLoop"}
// GPU-NEXT: return %[[B]], %[[E]]
func.func @multi_output_reshape(%a: memref<?x?xf32, #gpu.address_space<global>>, %b: memref<?x?xf32, #gpu.address_space<global>>, %s: memref<3xindex>, %c: memref<?x?x?xf32, #gpu.address_space<global>>, %d: memref<?x?x?xf32, #gpu.address_space<global>>, %e: memref<?x?x?xf32, #gpu.address_space<global>>) -> (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?x?xf32, #gpu.address_space<global>>) {
  "lmhlo.abs"(%a, %b) : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.dynamic_reshape"(%b, %s, %c) : (memref<?x?xf32, #gpu.address_space<global>>, memref<3xindex>, memref<?x?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.add"(%c, %d, %e) : (memref<?x?x?xf32, #gpu.address_space<global>>, memref<?x?x?xf32, #gpu.address_space<global>>, memref<?x?x?xf32, #gpu.address_space<global>>) -> ()
  return %b, %e : memref<?x?xf32, #gpu.address_space<global>>, memref<?x?x?xf32, #gpu.address_space<global>>
}

// -----

// Multi-output with static shapes of equal size (4x6 and 24) fuses; a result
// of unrelated dynamic size (the broadcast) does not, and moves after the
// fusion so its operand is written first (the reorder).
// GPU-LABEL: func.func @static_multi_output_and_reorder
// GPU-NEXT: "lmhlo.fusion"() ({
// GPU-NEXT: "lmhlo.abs"(%arg0, %arg1)
// GPU-NEXT: "lmhlo.reshape"(%arg1, %arg2)
// GPU-NEXT: "lmhlo.negate"(%arg2, %arg3)
// GPU-NEXT: "lmhlo.terminator"
// GPU-NEXT: }) {disc.device = "gpu", disc.fusion.name = "static_multi_output_and_reorder_kLoop_abs_negate__3_2_0", disc.fusion_type = "kLoop"}
// GPU-NEXT: "lmhlo.dynamic_broadcast_in_dim"(%arg1, %arg4, %arg5)
// GPU-NEXT: return
func.func @static_multi_output_and_reorder(%a: memref<4x6xf32, #gpu.address_space<global>>, %b: memref<4x6xf32, #gpu.address_space<global>>, %c: memref<24xf32, #gpu.address_space<global>>, %d: memref<24xf32, #gpu.address_space<global>>, %shape: memref<3xindex>, %e: memref<?x4x6xf32, #gpu.address_space<global>>) -> (memref<4x6xf32, #gpu.address_space<global>>, memref<24xf32, #gpu.address_space<global>>, memref<?x4x6xf32, #gpu.address_space<global>>) {
  "lmhlo.abs"(%a, %b) : (memref<4x6xf32, #gpu.address_space<global>>, memref<4x6xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.dynamic_broadcast_in_dim"(%b, %shape, %e) {broadcast_dimensions = dense<[1, 2]> : tensor<2xi64>} : (memref<4x6xf32, #gpu.address_space<global>>, memref<3xindex>, memref<?x4x6xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.reshape"(%b, %c) : (memref<4x6xf32, #gpu.address_space<global>>, memref<24xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.negate"(%c, %d) : (memref<24xf32, #gpu.address_space<global>>, memref<24xf32, #gpu.address_space<global>>) -> ()
  return %b, %d, %e : memref<4x6xf32, #gpu.address_space<global>>, memref<24xf32, #gpu.address_space<global>>, memref<?x4x6xf32, #gpu.address_space<global>>
}

// -----

// Not fusible: unrelated shapes (even horizontally), a constant that is
// itself a result. Next case: a reduce whose output is read by another op.
// GPU-LABEL: func.func @not_fusible
// GPU-NEXT: "lmhlo.add"(%arg0, %arg0, %arg1)
// GPU-NEXT: "lmhlo.subtract"(%arg2, %arg2, %arg3)
// GPU-NEXT: "lmhlo.constant"(%arg4)
// GPU-NEXT: "lmhlo.multiply"(%arg4, %arg4, %arg5)
// GPU-NEXT: return
// NOHORIZ-LABEL: func.func @not_fusible
// NOHORIZ-NOT: lmhlo.fusion
// NOHORIZ: return
func.func @not_fusible(%a: memref<?x?xf32, #gpu.address_space<global>>, %b: memref<?x?xf32, #gpu.address_space<global>>, %c: memref<?xf32, #gpu.address_space<global>>, %d: memref<?xf32, #gpu.address_space<global>>, %k: memref<f32, #gpu.address_space<global>>, %km: memref<f32, #gpu.address_space<global>>) -> (memref<?x?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>) {
  "lmhlo.add"(%a, %a, %b) : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.subtract"(%c, %c, %d) : (memref<?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.constant"(%k) {value = dense<2.0> : tensor<f32>} : (memref<f32, #gpu.address_space<global>>) -> ()
  "lmhlo.multiply"(%k, %k, %km) : (memref<f32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>) -> ()
  return %b, %d, %k, %km : memref<?x?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>
}

// -----

// GPU-LABEL: func.func @reduce_has_consumer
// GPU-NEXT: "lmhlo.fusion"() ({
// GPU-NEXT: "lmhlo.negate"
// GPU-NEXT: "lmhlo.reduce"
// GPU: }) {dimensions = dense<1> : tensor<1xi64>}
// GPU-NEXT: "lmhlo.terminator"() : () -> ()
// GPU-NEXT: }) {disc.device = "gpu", {{.*}}disc.fusion_type = "kRowReduction"}
// GPU-NEXT: "lmhlo.abs"(%arg3, %arg4)
// GPU-NEXT: return
func.func @reduce_has_consumer(%a: memref<?x?xf32, #gpu.address_space<global>>, %b: memref<?x?xf32, #gpu.address_space<global>>, %init: memref<f32, #gpu.address_space<global>>, %r: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xf32, #gpu.address_space<global>>) -> memref<?xf32, #gpu.address_space<global>> {
  "lmhlo.negate"(%a, %b) : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.reduce"(%b, %init, %r) ({
  ^bb0(%x: memref<f32>, %y: memref<f32>, %z: memref<f32>):
    "lmhlo.add"(%x, %y, %z) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<1> : tensor<1xi64>} : (memref<?x?xf32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.abs"(%r, %o) : (memref<?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
  return %o : memref<?xf32, #gpu.address_space<global>>
}

// -----

// Library calls end fusions: the dot writes %t, which the add reads, so
// fusing abs with add would need the dot inside the kernel.
// CPU-LABEL: func.func @library_call_boundary
// CPU-NEXT: "lmhlo.abs"(%arg0, %arg1)
// CPU-NEXT: "lmhlo.dot_general"(%arg1, %arg2, %arg3)
// CPU-NEXT: "lmhlo.add"(%arg3, %arg1, %arg4)
// CPU-NEXT: return
func.func @library_call_boundary(%a: memref<?x?xf32>, %b: memref<?x?xf32>, %w: memref<?x?xf32>, %t: memref<?x?xf32>, %o: memref<?x?xf32>) -> memref<?x?xf32> {
  "lmhlo.abs"(%a, %b) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.dot_general"(%b, %w, %t) {dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>} : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  "lmhlo.add"(%t, %b, %o) : (memref<?x?xf32>, memref<?x?xf32>, memref<?x?xf32>) -> ()
  return %o : memref<?x?xf32>
}

// -----

// Shape computation (disc.shape_op) is never fused on the CPU, so the
// elementwise chain around it stays apart.
// CPU-LABEL: func.func @shape_op_boundary
// CPU-NEXT: "lmhlo.abs"(%arg0, %arg1)
// CPU-NEXT: "lmhlo.add"(%arg1, %arg1, %arg2) {disc.shape_op = true}
// CPU-NEXT: "lmhlo.multiply"(%arg2, %arg1, %arg3)
// CPU-NEXT: return
func.func @shape_op_boundary(%a: memref<2xi32>, %b: memref<2xi32>, %c: memref<2xi32>, %d: memref<2xi32>) -> memref<2xi32> {
  "lmhlo.abs"(%a, %b) : (memref<2xi32>, memref<2xi32>) -> ()
  "lmhlo.add"(%b, %b, %c) {disc.shape_op = true} : (memref<2xi32>, memref<2xi32>, memref<2xi32>) -> ()
  "lmhlo.multiply"(%c, %b, %d) : (memref<2xi32>, memref<2xi32>, memref<2xi32>) -> ()
  return %d : memref<2xi32>
}

// -----

// Host/device boundary: the CPU-placed abs (host buffer) does not join the
// GPU add, although the add reads its output.
// GPU-LABEL: func.func @device_boundary
// GPU-NEXT: "lmhlo.abs"(%arg0, %arg1) {disc.device = "cpu"}
// GPU-NEXT: "lmhlo_disc.h2d"
// GPU-NEXT: "lmhlo.fusion"() ({
// GPU-NEXT: "lmhlo.negate"
// GPU-NEXT: "lmhlo.add"
// GPU-NEXT: "lmhlo.terminator"
// GPU-NEXT: }) {disc.device = "gpu"
// GPU-NEXT: return
func.func @device_boundary(%a: memref<?xf32>, %b: memref<?xf32>, %g: memref<?xf32, #gpu.address_space<global>>, %n: memref<?xf32, #gpu.address_space<global>>, %o: memref<?xf32, #gpu.address_space<global>>) -> memref<?xf32, #gpu.address_space<global>> {
  "lmhlo.abs"(%a, %b) {disc.device = "cpu"} : (memref<?xf32>, memref<?xf32>) -> ()
  "lmhlo_disc.h2d"(%b, %g) : (memref<?xf32>, memref<?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.negate"(%g, %n) : (memref<?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.add"(%n, %g, %o) : (memref<?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
  return %o : memref<?xf32, #gpu.address_space<global>>
}

// -----

// Horizontal fusion (on by default): two independent ops on buffers of one
// shape join one kLoop fusion; DISC_ENABLE_HORIZONTAL_FUSION=0 keeps them apart.
// Two fusions of one signature in one function are numbered _0, _1.
// GPU-LABEL: func.func @horizontal
// GPU-NEXT: "lmhlo.fusion"() ({
// GPU-NEXT: "lmhlo.abs"(%arg0, %arg1)
// GPU-NEXT: "lmhlo.negate"(%arg0, %arg2)
// GPU-NEXT: "lmhlo.terminator"
// GPU-NEXT: }) {disc.device = "gpu", disc.fusion.name = "horizontal_kLoop_abs_negate__2_2_0", disc.fusion_type = "kLoop"}
// NOHORIZ-LABEL: func.func @horizontal
// NOHORIZ-NEXT: "lmhlo.abs"
// NOHORIZ-NEXT: "lmhlo.negate"
// NOHORIZ-NEXT: return
func.func @horizontal(%a: memref<?x8xf32, #gpu.address_space<global>>, %b: memref<?x8xf32, #gpu.address_space<global>>, %c: memref<?x8xf32, #gpu.address_space<global>>) -> (memref<?x8xf32, #gpu.address_space<global>>, memref<?x8xf32, #gpu.address_space<global>>) {
  "lmhlo.abs"(%a, %b) : (memref<?x8xf32, #gpu.address_space<global>>, memref<?x8xf32, #gpu.address_space<global>>) -> ()
  "lmhlo.negate"(%a, %c) : (memref<?x8xf32, #gpu.address_space<global>>, memref<?x8xf32, #gpu.address_space<global>>) -> ()
  return %b, %c : memref<?x8xf32, #gpu.address_space<global>>, memref<?x8xf32, #gpu.address_space<global>>
}

// -----

// Several functions; fusion names restart per function; the shape
// constraint graph function is skipped; existing fusions are kept.
// GPU-LABEL: func.func @first
// GPU: disc.fusion.name = "first_kLoop_add__2_1_0"
// GPU-LABEL: func.func @second
// GPU: disc.fusion.name = "already_named"
// GPU: disc.fusion.name = "second_kLoop_add__2_1_0"
// GPU: disc.fusion.name = "second_kLoop_add__2_1_1"
// GPU-LABEL: func.func @shape_constraint_graph
// GPU-NEXT: "lmhlo.abs"
// GPU-NEXT: "lmhlo.add"
module {
  func.func @first(%a: memref<8xf32, #gpu.address_space<global>>, %b: memref<8xf32, #gpu.address_space<global>>, %c: memref<8xf32, #gpu.address_space<global>>) -> memref<8xf32, #gpu.address_space<global>> {
    "lmhlo.abs"(%a, %b) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
    "lmhlo.add"(%b, %b, %c) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
    return %c : memref<8xf32, #gpu.address_space<global>>
  }
  func.func @second(%a: memref<8xf32, #gpu.address_space<global>>, %b: memref<8xf32, #gpu.address_space<global>>, %c: memref<8xf32, #gpu.address_space<global>>, %d: memref<4xf32, #gpu.address_space<global>>, %e: memref<4xf32, #gpu.address_space<global>>, %f: memref<4xf32, #gpu.address_space<global>>) -> (memref<8xf32, #gpu.address_space<global>>, memref<4xf32, #gpu.address_space<global>>) {
    "lmhlo.fusion"() ({
      "lmhlo.copy"(%a, %a) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
      "lmhlo.terminator"() : () -> ()
    }) {disc.device = "gpu", disc.fusion.name = "already_named", disc.fusion_type = "kLoop"} : () -> ()
    "lmhlo.abs"(%a, %b) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
    "lmhlo.add"(%b, %b, %c) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
    "lmhlo.negate"(%d, %e) : (memref<4xf32, #gpu.address_space<global>>, memref<4xf32, #gpu.address_space<global>>) -> ()
    "lmhlo.add"(%e, %e, %f) : (memref<4xf32, #gpu.address_space<global>>, memref<4xf32, #gpu.address_space<global>>, memref<4xf32, #gpu.address_space<global>>) -> ()
    return %c, %f : memref<8xf32, #gpu.address_space<global>>, memref<4xf32, #gpu.address_space<global>>
  }
  func.func @shape_constraint_graph(%a: memref<8xf32, #gpu.address_space<global>>, %b: memref<8xf32, #gpu.address_space<global>>, %c: memref<8xf32, #gpu.address_space<global>>) {
    "lmhlo.abs"(%a, %b) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
    "lmhlo.add"(%b, %b, %c) : (memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>, memref<8xf32, #gpu.address_space<global>>) -> ()
    return
  }
}
