// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops | FileCheck %s

// A rank-2 row reduce on the GPU outside any fusion (disc-fusion keeps no
// single-op pattern) gets the row-reduction schedule in a fusion of its own:
// one block of 256 threads per row, two rounds of warp shuffles through
// shared memory -- not the loop schedule (one thread reading a whole row).
// CHECK-LABEL: func.func @lone_row_reduce
// CHECK: "lmhlo.fusion"() ({
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%{{.*}}, %c256)
// CHECK: memref.alloc() : memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.shuffle xor %{{.*}}, %c16_i32, %c32_i32 : f32
// CHECK: gpu.barrier
// CHECK: gpu.shuffle xor %{{.*}}, %c4_i32, %c8_i32 : f32
// CHECK: }) {disc.device = "gpu", disc.fusion.name = "lone_row_reduce_kRowReduction_reduce__0", disc.fusion_type = "kRowReduction"}
// CHECK-NOT: lmhlo.reduce
func.func @lone_row_reduce(%in: memref<?x?xf32, #gpu.address_space<global>>, %init: memref<f32, #gpu.address_space<global>>, %out: memref<?xf32, #gpu.address_space<global>>) -> memref<?xf32, #gpu.address_space<global>> {
  "lmhlo.reduce"(%in, %init, %out) ({
  ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
    "lmhlo.maximum"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<1> : tensor<1xi64>, disc.device = "gpu"} : (memref<?x?xf32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
  return %out : memref<?xf32, #gpu.address_space<global>>
}

// -----

// A lone column reduce: the output is filled with the init value, then
// accumulated with atomics.
// CHECK-LABEL: func.func @lone_col_reduce
// CHECK: "lmhlo.fusion"() ({
// CHECK: memref.atomic_rmw addf
// CHECK: }) {disc.device = "gpu", disc.fusion.name = "lone_col_reduce_kColReduction_reduce__0", disc.fusion_type = "kColReduction"}
func.func @lone_col_reduce(%in: memref<?x?xf32, #gpu.address_space<global>>, %init: memref<f32, #gpu.address_space<global>>, %out: memref<?xf32, #gpu.address_space<global>>) -> memref<?xf32, #gpu.address_space<global>> {
  "lmhlo.reduce"(%in, %init, %out) ({
  ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
    "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<0> : tensor<1xi64>, disc.device = "gpu"} : (memref<?x?xf32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<?xf32, #gpu.address_space<global>>) -> ()
  return %out : memref<?xf32, #gpu.address_space<global>>
}

// -----

// Other GPU ops outside fusions keep the 1-D loop schedule.
// CHECK-LABEL: func.func @lone_rank3_reduce
// CHECK-NOT: lmhlo.fusion
// CHECK: scf.parallel
// CHECK: scf.for
func.func @lone_rank3_reduce(%in: memref<?x?x?xf32, #gpu.address_space<global>>, %init: memref<f32, #gpu.address_space<global>>, %out: memref<?x?xf32, #gpu.address_space<global>>) -> memref<?x?xf32, #gpu.address_space<global>> {
  "lmhlo.reduce"(%in, %init, %out) ({
  ^bb0(%a: memref<f32>, %b: memref<f32>, %c: memref<f32>):
    "lmhlo.add"(%a, %b, %c) : (memref<f32>, memref<f32>, memref<f32>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {dimensions = dense<1> : tensor<1xi64>, disc.device = "gpu"} : (memref<?x?x?xf32, #gpu.address_space<global>>, memref<f32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
  return %out : memref<?x?xf32, #gpu.address_space<global>>
}
