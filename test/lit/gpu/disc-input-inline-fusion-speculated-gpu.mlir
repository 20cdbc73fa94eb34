// RUN: disc-opt %s -disc-input-inline-fusion | FileCheck %s

// Two speculated copies of one GPU column-reduction fusion (the same
// disc.fusion.name, one per scf.if branch, as
// disc-specialize-fusion-with-speculation makes them) write the same
// buffers: each copy's lmhlo.exponential is the producer of that copy's loads only
// (BladeDISC's inSameFusionOp), so both inline without "more than one lmhlo
// op writes one memref". The init loop's stores and the atomic_rmw into the
// reduce output are the root's own writes and stay.
// CHECK-LABEL: func.func @speculated_col_reduce
// CHECK:         scf.if
// CHECK:           "lmhlo.fusion"() ({
// CHECK-NOT:         lmhlo.exponential
// CHECK:             scf.parallel
// CHECK:               memref.store %{{.*}}, %arg2[%{{.*}}] : memref<?xf32>
// CHECK:             scf.parallel
// CHECK:               %[[A:.*]] = memref.load %arg0[%{{.*}}, %{{.*}}] : memref<?x?xf32>
// CHECK-NEXT:          %[[E:.*]] = math.exp %[[A]] : f32
// CHECK-NEXT:          memref.atomic_rmw addf %[[E]], %arg2[%{{.*}}] : (f32, memref<?xf32>) -> f32
// CHECK:             "lmhlo.terminator"() : () -> ()
// CHECK-NEXT:      }) {disc.device = "gpu", disc.fusion.name = "main_kColReduction_reduce__1_1_0", disc.fusion_type = "kColReduction"} : () -> ()
// CHECK:         } else {
// CHECK:           "lmhlo.fusion"() ({
// CHECK-NOT:         lmhlo.exponential
// CHECK:             scf.parallel
// CHECK:               memref.store %{{.*}}, %arg2[%{{.*}}] : memref<?xf32>
// CHECK:             scf.parallel
// CHECK:               %[[B:.*]] = memref.load %arg0[%{{.*}}, %{{.*}}] : memref<?x?xf32>
// CHECK-NEXT:          %[[F:.*]] = math.exp %[[B]] : f32
// CHECK-NEXT:          memref.generic_atomic_rmw %arg2[%{{.*}}] : memref<?xf32> {
// CHECK:             "lmhlo.terminator"() : () -> ()
// CHECK-NEXT:      }) {disc.device = "gpu", disc.fusion.name = "main_kColReduction_reduce__1_1_0", disc.fusion_type = "kColReduction"} : () -> ()
func.func @speculated_col_reduce(%x: memref<?x?xf32>, %t: memref<?x?xf32>, %out: memref<?xf32>, %init: memref<f32>, %flag: i1) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %rows = memref.dim %x, %c0 : memref<?x?xf32>
  %cols = memref.dim %x, %c1 : memref<?x?xf32>
  scf.if %flag {
    "lmhlo.fusion"() ({
      "lmhlo.exponential"(%x, %t) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
      scf.parallel (%j) = (%c0) to (%cols) step (%c1) {
        %v = memref.load %init[] : memref<f32>
        memref.store %v, %out[%j] : memref<?xf32>
        scf.yield
      }
      scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
        %e = memref.load %t[%i, %j] : memref<?x?xf32>
        %old = memref.atomic_rmw addf %e, %out[%j] : (f32, memref<?xf32>) -> f32
        scf.yield
      }
      "lmhlo.terminator"() : () -> ()
    }) {disc.device = "gpu", disc.fusion.name = "main_kColReduction_reduce__1_1_0", disc.fusion_type = "kColReduction"} : () -> ()
  } else {
    "lmhlo.fusion"() ({
      "lmhlo.exponential"(%x, %t) : (memref<?x?xf32>, memref<?x?xf32>) -> ()
      scf.parallel (%j) = (%c0) to (%cols) step (%c1) {
        %v = memref.load %init[] : memref<f32>
        memref.store %v, %out[%j] : memref<?xf32>
        scf.yield
      }
      scf.parallel (%i, %j) = (%c0, %c0) to (%rows, %cols) step (%c1, %c1) {
        %e = memref.load %t[%i, %j] : memref<?x?xf32>
        %old = memref.generic_atomic_rmw %out[%j] : memref<?xf32> {
        ^bb0(%cur: f32):
          %p = arith.mulf %cur, %e : f32
          memref.atomic_yield %p : f32
        }
        scf.yield
      }
      "lmhlo.terminator"() : () -> ()
    }) {disc.device = "gpu", disc.fusion.name = "main_kColReduction_reduce__1_1_0", disc.fusion_type = "kColReduction"} : () -> ()
  }
  return %out : memref<?xf32>
}
