// RUN: disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops | FileCheck %s
// RUN: env DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL=0 disc-opt %s -split-input-file -disc-lhlo-legalize-roots-to-parallel-loops | FileCheck %s --check-prefix=NOMEMOPT

// kLoop on the GPU with disc_vectorize_or_tile_hint = 4: a 1-D parallel loop
// over n / 4 with an inner scf.for over the tile, each step writing element
// k * (n / 4) + i, so that neighbouring iterations (threads) write
// neighbouring elements at every step (coalesced scalar accesses).
// CHECK-LABEL: func.func @kloop_tiled
// CHECK-DAG:     %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C4:.*]] = arith.constant 4 : index
// CHECK:         %[[N:.*]] = arith.muli
// CHECK:         %[[T:.*]] = arith.divui %[[N]], %[[C4]] : index
// CHECK:         scf.parallel (%[[I:.*]]) = (%[[C0]]) to (%[[T]]) step (%[[C1]]) {
// CHECK-NEXT:      scf.for %[[K:.*]] = %[[C0]] to %[[C4]] step %[[C1]] {
// CHECK-NEXT:        %[[M:.*]] = arith.muli %[[K]], %[[T]] : index
// CHECK-NEXT:        %[[LIN:.*]] = arith.addi %[[M]], %[[I]] : index
// CHECK:             math.exp
// CHECK:             memref.store %{{.*}}, %{{.*}}[%[[LIN]]] : memref<?xf32, #gpu.address_space<global>>
// Without DISC_MEM_INTENSIVE_OPT_EXPERIMENTAL: BladeDISC's first loop schedule,
// four adjacent elements per iteration.
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
