// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops | FileCheck %s
// RUN: env DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL=0 disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops | FileCheck %s --check-prefix=NOMEMOPT

// kLoop on the GPU with disc_vectorize_or_tile_hint = 4 (with or without
// DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL): BladeDISC's first loop schedule, a
// 1-D parallel loop over n / 4, each iteration writing four adjacent
// elements: the four loads first, then the four stores into the flat output,
// which is assumed 16-byte aligned (the kernels' buffers are: the NVPTX
// backend then merges the accesses into 128-bit vector ones).
// CHECK-LABEL: func.func @kloop_tiled
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[N:.*]] = arith.muli
// CHECK:         %[[T:.*]] = arith.divui %[[N]], %[[C4]] : index
// CHECK:         scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[T]]) step (%[[C1]]) {
// CHECK-NOT:       scf.for
// CHECK:           %[[FLAT:.*]] = memref.reinterpret_cast
// CHECK:           memref.assume_alignment %[[FLAT]], 16
// CHECK:           %[[L0:.*]] = arith.muli %[[I]], %[[C4]] : index
// CHECK-COUNT-4:   memref.load
// CHECK-NOT:       memref.store
// CHECK-COUNT-4:   math.exp
// CHECK:           memref.store %{{.*}}, %[[FLAT]][%[[L0]]]
// CHECK-COUNT-3:   memref.store
// NOMEMOPT-LABEL: func.func @kloop_tiled
// NOMEMOPT:       scf.parallel
// NOMEMOPT-NOT:   scf.for
// NOMEMOPT-COUNT-4: math.exp
func.func @kloop_tiled(%a: memref<?x?xf32, #gpu.address_space<global>>, %o: memref<?x?xf32, #gpu.address_space<global>>) -> memref<?x?xf32, #gpu.address_space<global>> {
  "lmhlo.fusion"() ({
    "lmhlo.exponential"(%a, %o) : (memref<?x?xf32, #gpu.address_space<global>>, memref<?x?xf32, #gpu.address_space<global>>) -> ()
    "lmhlo.terminator"() : () -> ()
  }) {disc.device = "gpu", disc.fusion.name = "kloop_vec", disc.fusion_type = "kLoop", disc_vectorize_or_tile_hint = 4 : i32} : () -> ()
  return %o : memref<?x?xf32, #gpu.address_space<global>>
}
